/* Host functions in stream order (cudaLaunchHostFunc, cudaStreamAddCallback). The function runs in
 * the client, where its data lives: the stream's earlier work is waited for, then the function is
 * called. That keeps CUDA's ordering guarantee (after everything before it in the stream) at the
 * price of blocking the calling thread until then, where CUDA would return at once. */
#include "graph.h"
#include "rgpu_call.h"


typedef void (*host_fn)(void *data);
typedef void (*stream_callback)(void *stream, int status, void *data);

/* On a capturing stream a host function becomes a host node, run when the graph is launched. */
static int capture_host(int face, void *stream, host_fn fn, void *data, int *rc) {
    if (!rgpu_capturing(stream)) return 0;
    rgpu_gnode proto = {.type = NODE_HOST};
    proto.u.h.fn = fn;
    proto.u.h.data = data;
    if (!rgpu_capture_append(stream, &proto, rc)) return 0;
    *rc = rgpu_record(face, *rc);
    return 1;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *data) {
    if (!fn) return rgpu_invalid_value(RGPU_RUNTIME);
    int rc;
    if (capture_host(RGPU_RUNTIME, stream, fn, data, &rc)) return rc;
    rc = cudaStreamSynchronize(stream);
    if (rc) return rc;
    fn(data);
    return RGPU_SUCCESS;
}

CUresult cuLaunchHostFunc(CUstream stream, CUhostFn fn, void *data) {
    if (!fn) return rgpu_invalid_value(RGPU_DRIVER);
    int rc;
    if (capture_host(RGPU_DRIVER, stream, fn, data, &rc)) return rc;
    rc = cuStreamSynchronize(stream);
    if (rc) return rc;
    fn(data);
    return RGPU_SUCCESS;
}

/* Unlike a host function, a stream callback also runs after an error, and is told it. */
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t cb, void *data, unsigned int flags) {
    if (!cb || flags != 0) return rgpu_invalid_value(RGPU_RUNTIME);
    int rc = RGPU_GUARD_cudaStreamAddCallback(stream); /* callbacks cannot be captured */
    if (rc) return rc;
    rc = cudaStreamSynchronize(stream);
    if (rc == RGPU_INVALID_HANDLE || rc == RGPU_DEVICE_UNAVAILABLE) return rc;
    cb(stream, rc, data);
    return RGPU_SUCCESS;
}

CUresult cuStreamAddCallback(CUstream stream, CUstreamCallback cb, void *data, unsigned int flags) {
    if (!cb || flags != 0) return rgpu_invalid_value(RGPU_DRIVER);
    int rc = RGPU_GUARD_cuStreamAddCallback(stream); /* callbacks cannot be captured */
    if (rc) return rc;
    rc = cuStreamSynchronize(stream);
    if (rc == RGPU_INVALID_HANDLE || rc == RGPU_DEVICE_UNAVAILABLE) return rc;
    cb(stream, rc, data);
    return RGPU_SUCCESS;
}
