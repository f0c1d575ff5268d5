/* Runtime API functions the client answers itself: error state, devices, versions, host memory. */
#include <stdlib.h>
#include <string.h>

#include "rgpu_call.h"
#include "rgpu_ids.h"

extern const char *rgpu_error_name(int face, int code);
extern const char *rgpu_error_string(int code);

int cudaGetLastError(void) { return rgpu_get_last_error(RGPU_RUNTIME, 1); }
int cudaPeekAtLastError(void) { return rgpu_get_last_error(RGPU_RUNTIME, 0); }
const char *cudaGetErrorName(int e) { return rgpu_error_name(RGPU_RUNTIME, e); }
const char *cudaGetErrorString(int e) { return rgpu_error_string(e); }

int cudaGetDeviceCount(int *count) {
    if (!count) return rgpu_invalid_value(RGPU_RUNTIME);
    *count = rgpu_device_count();
    return *count ? RGPU_SUCCESS : rgpu_record(RGPU_RUNTIME, RGPU_NO_DEVICE);
}

int cudaSetDevice(int dev) {
    if (dev < 0 || dev >= rgpu_device_count()) return rgpu_record(RGPU_RUNTIME, RGPU_INVALID_DEVICE);
    rgpu_set_current_device(dev);
    return RGPU_SUCCESS;
}

int cudaGetDevice(int *dev) {
    if (!dev) return rgpu_invalid_value(RGPU_RUNTIME);
    *dev = rgpu_current_device();
    return RGPU_SUCCESS;
}

int cudaInitDevice(int dev, unsigned int deviceFlags, unsigned int flags) {
    (void)deviceFlags; (void)flags;
    return dev >= 0 && dev < rgpu_device_count() ? RGPU_SUCCESS : rgpu_record(RGPU_RUNTIME, RGPU_INVALID_DEVICE);
}

static __thread unsigned int device_flags;
int cudaSetDeviceFlags(unsigned int flags) { device_flags = flags; return RGPU_SUCCESS; }
int cudaGetDeviceFlags(unsigned int *flags) {
    if (!flags) return rgpu_invalid_value(RGPU_RUNTIME);
    *flags = device_flags;
    return RGPU_SUCCESS;
}

int cudaRuntimeGetVersion(int *v) {
    if (!v) return rgpu_invalid_value(RGPU_RUNTIME);
    *v = RGPU_CUDA_VERSION;
    return RGPU_SUCCESS;
}
int cudaDriverGetVersion(int *v) { return cudaRuntimeGetVersion(v); }

struct rgpu_channel_desc { int x, y, z, w; int f; };
struct rgpu_channel_desc cudaCreateChannelDesc(int x, int y, int z, int w, int f) {
    struct rgpu_channel_desc d = {x, y, z, w, f};
    return d;
}
