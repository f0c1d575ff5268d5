/* Stream-ordered memsets and copies made on a capturing stream become graph nodes (the hooks of the
 * generated stubs, the capture rules of protocol/contract/calls/, and of memcpy.c); the host side of a copy is
 * read or written when the graph runs, as in CUDA. */
#include "graph.h"
#include "rgpu_call.h"

static int memset_node(int face, int *rc, uint64_t dst, size_t pitch, uint32_t value, unsigned elsize, size_t width,
                       size_t height, void *stream) {
    if (!rgpu_capturing(stream)) return 0;
    rgpu_gnode proto = {.type = NODE_MEMSET};
    proto.u.s = (rgpu_memset_node){(void *)(uintptr_t)dst, pitch, width, height, value, elsize};
    if (!rgpu_capture_append(stream, &proto, rc)) return 0;
    *rc = rgpu_record(face, *rc);
    return 1;
}

int rgpu_capture_cudaMemsetAsync(int *rc, void *dst, int value, size_t n, cudaStream_t stream) {
    return memset_node(RGPU_RUNTIME, rc, (uint64_t)(uintptr_t)dst, n, (uint32_t)value & 0xff, 1, n, 1, stream);
}
int rgpu_capture_cudaMemset2DAsync(int *rc, void *dst, size_t pitch, int value, size_t w, size_t h, cudaStream_t stream) {
    return memset_node(RGPU_RUNTIME, rc, (uint64_t)(uintptr_t)dst, pitch, (uint32_t)value & 0xff, 1, w, h, stream);
}
int rgpu_capture_cuMemsetD8Async(int *rc, CUdeviceptr dst, unsigned char v, size_t n, CUstream stream) {
    return memset_node(RGPU_DRIVER, rc, dst, n, v, 1, n, 1, stream);
}
int rgpu_capture_cuMemsetD16Async(int *rc, CUdeviceptr dst, unsigned short v, size_t n, CUstream stream) {
    return memset_node(RGPU_DRIVER, rc, dst, 2 * n, v, 2, n, 1, stream);
}
int rgpu_capture_cuMemsetD32Async(int *rc, CUdeviceptr dst, unsigned int v, size_t n, CUstream stream) {
    return memset_node(RGPU_DRIVER, rc, dst, 4 * n, v, 4, n, 1, stream);
}
int rgpu_capture_cuMemsetD2D8Async(int *rc, CUdeviceptr dst, size_t pitch, unsigned char v, size_t w, size_t h, CUstream stream) {
    return memset_node(RGPU_DRIVER, rc, dst, pitch, v, 1, w, h, stream);
}
int rgpu_capture_cuMemsetD2D16Async(int *rc, CUdeviceptr dst, size_t pitch, unsigned short v, size_t w, size_t h, CUstream stream) {
    return memset_node(RGPU_DRIVER, rc, dst, pitch, v, 2, w, h, stream);
}
int rgpu_capture_cuMemsetD2D32Async(int *rc, CUdeviceptr dst, size_t pitch, unsigned int v, size_t w, size_t h, CUstream stream) {
    return memset_node(RGPU_DRIVER, rc, dst, pitch, v, 4, w, h, stream);
}

int rgpu_capture_copy(int face, int *rc, void *dst, const void *src, size_t n, int kind, void *stream) {
    if (!rgpu_capturing(stream)) return 0;
    rgpu_gnode proto = {.type = NODE_MEMCPY};
    proto.u.m = (rgpu_copy_node){dst, src, n, n, n, 1, kind};
    if (!rgpu_capture_append(stream, &proto, rc)) return 0;
    *rc = rgpu_record(face, *rc);
    return 1;
}

int rgpu_capture_cuMemcpyDtoDAsync_v2(int *rc, CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream stream) {
    return rgpu_capture_copy(RGPU_DRIVER, rc, (void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n, 3, stream);
}
