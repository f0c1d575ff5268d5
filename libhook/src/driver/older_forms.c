/* Older forms of driver calls that NVIDIA's CUDA 13 libraries still resolve: cuBLAS 13.0 asks
 * cuGetProcAddress for cuStreamGetCaptureInfo as CUDA 11.3 meant it (cuStreamGetCaptureInfo_v2, no
 * edge data) and checks every stream it is handed with it. rgpu's graphs have plain edges, so each is
 * the current form without edge data. Where cuGetProcAddress finds them: protocol/contract/
 * proc_versions.toml (adapters) and cuda12.toml ([handwritten]). */
#include "rgpu_call.h"

/* CUDA 11.3 */
CUresult cuStreamGetCaptureInfo_v2(CUstream stream, CUstreamCaptureStatus *status, cuuint64_t *id, CUgraph *graph,
                                   const CUgraphNode **deps, size_t *ndeps) {
    return cuStreamGetCaptureInfo_v3(stream, status, id, graph, deps, NULL, ndeps);
}

/* CUDA 10.1: the capture status and its id alone */
CUresult rgpu_cuStreamGetCaptureInfo_v1(CUstream stream, CUstreamCaptureStatus *status, cuuint64_t *id) {
    return cuStreamGetCaptureInfo_v3(stream, status, id, NULL, NULL, NULL, NULL);
}
