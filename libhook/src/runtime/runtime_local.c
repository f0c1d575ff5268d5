/* Runtime API functions the client answers itself: error state, devices, versions, host memory. */
#include <stdlib.h>
#include <string.h>

#include "rgpu_call.h"
#include "rgpu_ids.h"


cudaError_t cudaGetLastError(void) { return rgpu_get_last_error(RGPU_RUNTIME, 1); }
cudaError_t cudaPeekAtLastError(void) { return rgpu_get_last_error(RGPU_RUNTIME, 0); }
const char *cudaGetErrorName(cudaError_t e) { return rgpu_error_name(RGPU_RUNTIME, e); }
const char *cudaGetErrorString(cudaError_t e) { return rgpu_error_string(e); }

cudaError_t cudaGetDeviceCount(int *count) {
    if (!count) return rgpu_invalid_value(RGPU_RUNTIME);
    *count = rgpu_device_count();
    return *count ? RGPU_SUCCESS : rgpu_record(RGPU_RUNTIME, RGPU_NO_DEVICE);
}

cudaError_t cudaSetDevice(int dev) {
    if (dev < 0 || dev >= rgpu_device_count()) return rgpu_record(RGPU_RUNTIME, RGPU_INVALID_DEVICE);
    rgpu_set_current_device(dev);
    rgpu_bind_runtime_context(dev, 1);
    return RGPU_SUCCESS;
}

cudaError_t cudaGetDevice(int *dev) {
    if (!dev) return rgpu_invalid_value(RGPU_RUNTIME);
    *dev = rgpu_current_device();
    return RGPU_SUCCESS;
}

cudaError_t cudaInitDevice(int dev, unsigned int deviceFlags, unsigned int flags) {
    (void)deviceFlags; (void)flags;
    return dev >= 0 && dev < rgpu_device_count() ? RGPU_SUCCESS : rgpu_record(RGPU_RUNTIME, RGPU_INVALID_DEVICE);
}

static __thread unsigned int device_flags;
cudaError_t cudaSetDeviceFlags(unsigned int flags) { device_flags = flags; return RGPU_SUCCESS; }
cudaError_t cudaGetDeviceFlags(unsigned int *flags) {
    if (!flags) return rgpu_invalid_value(RGPU_RUNTIME);
    *flags = device_flags;
    return RGPU_SUCCESS;
}

cudaError_t cudaRuntimeGetVersion(int *v) {
    if (!v) return rgpu_invalid_value(RGPU_RUNTIME);
    *v = RGPU_CUDA_VERSION;
    return RGPU_SUCCESS;
}
cudaError_t cudaDriverGetVersion(int *v) { return cudaRuntimeGetVersion(v); }

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f) {
    return (struct cudaChannelFormatDesc){x, y, z, w, f};
}
