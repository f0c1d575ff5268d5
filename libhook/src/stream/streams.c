/* What the client knows of a stream without asking: the device it belongs to is its handle's tag (the
 * session that made it); the default streams belong to the calling thread's current device. */
#include "graph.h"
#include "rgpu_call.h"

static int stream_device(int face, const void *stream, int *device) {
    if (!device) return rgpu_invalid_value(face);
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(face, rc);
    *device = rgpu_handle_device(stream);
    return RGPU_SUCCESS;
}

CUresult cuStreamGetDevice(CUstream hStream, CUdevice *device) { return stream_device(RGPU_DRIVER, hStream, device); }

/* The context of a stream: the calling thread's current one when it is of the stream's device (a
 * stream belongs to the context current where it was made; rgpu keeps no context per stream, and
 * programs make their streams where they use them), else the device's primary context. */
CUresult cuStreamGetCtx_v2(CUstream hStream, CUcontext *pctx, CUgreenCtx *pgreen) {
    if (!pctx && !pgreen) return rgpu_invalid_value(RGPU_DRIVER);
    int dev = 0;
    int rc = stream_device(RGPU_DRIVER, hStream, &dev);
    if (rc) return rc;
    if (pctx) *pctx = rgpu_context_of(dev);
    if (pgreen) *pgreen = NULL;
    return RGPU_SUCCESS;
}
CUresult cuStreamGetCtx(CUstream hStream, CUcontext *pctx) {
    return pctx ? cuStreamGetCtx_v2(hStream, pctx, NULL) : rgpu_invalid_value(RGPU_DRIVER);
}
cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device) { return stream_device(RGPU_RUNTIME, hStream, device); }

/* Context-wide events (CUDA 12.5). The context names the device (NULL: the current one); the event
 * must be that device's. A device's contexts share its session, so the work taken in or made to wait
 * is the session's (server/api/stream.py). Refused while a stream of the device is captured, as CUDA
 * refuses it. */
static CUresult ctx_event(CUcontext ctx, CUevent ev, int wait) {
    CUdevice dev = 0;
    int rc = cuCtxGetDevice_v2(&dev, ctx);
    if (rc) return rc;
    if (!ev || rgpu_handle_device(ev) != dev) return rgpu_record(RGPU_DRIVER, RGPU_INVALID_HANDLE);
    if (rgpu_capturing_on(dev)) return rgpu_record(RGPU_DRIVER, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    rgpu_call c;
    if (wait) rgpu_wire_cuCtxWaitEvent(&c, ev);
    else rgpu_wire_cuCtxRecordEvent(&c, ev);
    return rgpu_async(&c);
}

CUresult cuCtxRecordEvent(CUcontext hCtx, CUevent hEvent) { return ctx_event(hCtx, hEvent, 0); }
CUresult cuCtxWaitEvent(CUcontext hCtx, CUevent hEvent) { return ctx_event(hCtx, hEvent, 1); }
