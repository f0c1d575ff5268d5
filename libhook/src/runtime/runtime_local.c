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

/* The current device's flags are its primary context's, for every thread (as in CUDA): cuCtxGetFlags
 * and cuDevicePrimaryCtxGetState read them back, and their scheduling part decides how a thread of
 * that context waits for replies (driver_local.c's wait_mode). One scheduling flag at most. */
cudaError_t cudaSetDeviceFlags(unsigned int flags) {
    unsigned sched = flags & cudaDeviceScheduleMask;
    if ((flags & ~(unsigned)cudaDeviceMask) || (sched != cudaDeviceScheduleAuto && sched != cudaDeviceScheduleSpin &&
                                                sched != cudaDeviceScheduleYield && sched != cudaDeviceScheduleBlockingSync))
        return rgpu_invalid_value(RGPU_RUNTIME);
    return rgpu_record(RGPU_RUNTIME, cuDevicePrimaryCtxSetFlags_v2(rgpu_current_device(), flags));
}
cudaError_t cudaGetDeviceFlags(unsigned int *flags) {
    if (!flags) return rgpu_invalid_value(RGPU_RUNTIME);
    int active;
    return rgpu_record(RGPU_RUNTIME, cuDevicePrimaryCtxGetState(rgpu_current_device(), flags, &active));
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

/* The device whose compute capability best matches prop's: the closest at or above it (prop's other
 * fields are not compared: a pool's vGPUs differ in architecture, and in memory by their lease),
 * else the highest there is; ties go to the lower ordinal. */
cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop) {
    if (!device || !prop) return rgpu_invalid_value(RGPU_RUNTIME);
    int n = rgpu_device_count(), want = prop->major * 1000 + prop->minor, best = -1, best_cc = 0, top = 0, top_cc = -1;
    if (!n) return rgpu_record(RGPU_RUNTIME, RGPU_NO_DEVICE);
    for (int d = 0; d < n; d++) {
        int major = 0, minor = 0;
        int rc = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d);
        if (!rc) rc = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, d);
        if (rc) return rc;
        int cc = major * 1000 + minor;
        if (cc >= want && (best < 0 || cc < best_cc)) best = d, best_cc = cc;
        if (cc > top_cc) top = d, top_cc = cc;
    }
    *device = best >= 0 ? best : top;
    return RGPU_SUCCESS;
}
