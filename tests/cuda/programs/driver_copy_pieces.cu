// Large synchronous copies, which travel in pieces where frames carry the data (server/pieces.py):
// exact in both directions and both faces at sizes that do and do not divide into pieces, and a copy
// past the end of its allocation fails with nothing written, either way.
//   driver_copy_pieces MiB
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>

#include "driver_check.h"

static void fill(std::vector<unsigned char> &v, unsigned seed) {
    for (size_t i = 0; i < v.size(); i++) v[i] = (unsigned char)((i * 2654435761u + seed) >> 11);
}

int main(int argc, char **argv) {
    size_t mib = argc > 1 ? strtoul(argv[1], 0, 0) : 16, n = mib << 20;
    CK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CUdeviceptr a, small;
    CK(cuMemAlloc(&a, n + 4096));
    CK(cuMemAlloc(&small, n / 2));

    // the Driver API, at an odd offset and length
    const size_t odd = n - 12345;
    std::vector<unsigned char> src(n), back(n);
    fill(src, 1);
    CK(cuMemcpyHtoD(a + 17, src.data(), odd));
    memset(back.data(), 0, n);
    CK(cuMemcpyDtoH(back.data(), a + 17, odd));
    EXPECT(memcmp(back.data(), src.data(), odd) == 0);

    // the Runtime API, the whole buffer, and just past the smallest size that goes in pieces
    fill(src, 2);
    EXPECT(cudaMemcpy((void *)a, src.data(), n, cudaMemcpyHostToDevice) == cudaSuccess);
    memset(back.data(), 0, n);
    EXPECT(cudaMemcpy(back.data(), (void *)a, n, cudaMemcpyDeviceToHost) == cudaSuccess);
    EXPECT(memcmp(back.data(), src.data(), n) == 0);
    const size_t edge = (4u << 20) + 1;
    fill(src, 3);
    EXPECT(cudaMemcpy((void *)(a + 4096), src.data(), edge, cudaMemcpyHostToDevice) == cudaSuccess);
    memset(back.data(), 0, n);
    EXPECT(cudaMemcpy(back.data(), (void *)(a + 4096), edge, cudaMemcpyDefault) == cudaSuccess);
    EXPECT(memcmp(back.data(), src.data(), edge) == 0);

    // past the end of the allocation: refused, nothing written either way
    CK(cuMemsetD8(small, 0x11, n / 2));
    fill(src, 4);
    EXPECT(cuMemcpyHtoD(small, src.data(), n) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(cudaMemcpy((void *)small, src.data(), n, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    memset(back.data(), 0x77, n);
    EXPECT(cuMemcpyDtoH(back.data(), small, n) == CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < n; i++) EXPECT(back[i] == 0x77);
    CK(cuMemcpyDtoH(back.data(), small, n / 2));
    for (size_t i = 0; i < n / 2; i++) EXPECT(back[i] == 0x11);

    // async copies from pageable memory: pieces too, in stream order, the buffer free to reuse at once
    cudaStream_t st;
    EXPECT(cudaStreamCreate(&st) == cudaSuccess);
    fill(src, 6);
    EXPECT(cudaMemcpyAsync((void *)a, src.data(), n, cudaMemcpyHostToDevice, st) == cudaSuccess);
    std::vector<unsigned char> second(n);
    fill(second, 7);
    CK(cuMemcpyHtoDAsync(a + n / 2, second.data(), n / 2, (CUstream)st));
    fill(src, 8);  // the first copy's data went with its call
    fill(second, 9);
    EXPECT(cudaStreamSynchronize(st) == cudaSuccess);
    CK(cuMemcpyDtoH(back.data(), a, n));
    fill(src, 6);
    fill(second, 7);
    EXPECT(memcmp(back.data(), src.data(), n / 2) == 0);
    EXPECT(memcmp(back.data() + n / 2, second.data(), n / 2) == 0);
    // and back into pageable memory on the stream: in pieces too, after the stream's earlier work
    CK(cuMemsetD8Async(a + n - 4096, 0x5e, 4096, (CUstream)st));
    memset(back.data(), 0, n);
    EXPECT(cudaMemcpyAsync(back.data(), (void *)a, n, cudaMemcpyDeviceToHost, st) == cudaSuccess);
    EXPECT(cudaStreamSynchronize(st) == cudaSuccess);
    EXPECT(memcmp(back.data(), src.data(), n / 2) == 0);
    EXPECT(memcmp(back.data() + n / 2, second.data(), n / 2 - 4096) == 0);
    for (size_t i = n - 4096; i < n; i++) EXPECT(back[i] == 0x5e);
    // past the end, async: its failure comes at the synchronisation, and nothing is written
    cudaMemcpyAsync((void *)small, src.data(), n, cudaMemcpyHostToDevice, st);
    EXPECT(cudaStreamSynchronize(st) == cudaErrorInvalidValue);
    cudaGetLastError();
    CK(cuMemcpyDtoH(back.data(), small, n / 2));
    for (size_t i = 0; i < n / 2; i++) EXPECT(back[i] == 0x11);
    EXPECT(cudaStreamDestroy(st) == cudaSuccess);

    // the session goes on: a copy after the failures is exact
    fill(src, 5);
    CK(cuMemcpyHtoD(a, src.data(), n));
    CK(cuMemcpyDtoH(back.data(), a, n));
    EXPECT(memcmp(back.data(), src.data(), n) == 0);
    CK(cuMemFree(a));
    CK(cuMemFree(small));
    printf("OK driver_copy_pieces %zu MiB\n", mib);
    return 0;
}
