/* What the client knows of a stream without asking: the device it belongs to is its handle's tag (the
 * session that made it); the default streams belong to the calling thread's current device. */
#include "rgpu_call.h"

static int stream_device(int face, const void *stream, int *device) {
    if (!device) return rgpu_invalid_value(face);
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(face, rc);
    int dev = rgpu_current_device();
    rgpu_untag_handle(stream, &dev);
    *device = dev;
    return RGPU_SUCCESS;
}

CUresult cuStreamGetDevice(CUstream hStream, CUdevice *device) { return stream_device(RGPU_DRIVER, hStream, device); }
cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device) { return stream_device(RGPU_RUNTIME, hStream, device); }
