// Device malloc()/free() through rgpu: the heap size the program sets, before any kernel uses the
// heap (as CUDA requires), is the one kernels get; once one has, the size is fixed.
#include <cuda_runtime.h>
#include "check.h"

__global__ void grab(unsigned long long bytes, int *ok) {
    char *p = (char *)malloc(bytes);
    ok[threadIdx.x] = p != nullptr;
    if (p) { p[bytes - 1] = 1; free(p); }
}

int main() {
    size_t heap = 0;
    CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    EXPECT(heap == 8u << 20);
    CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64u << 20));
    CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    EXPECT(heap == 64u << 20);
    int *ok, h[6];
    CHECK(cudaMalloc(&ok, sizeof h));
    grab<<<1, 6>>>(4u << 20, ok);  // 6 x 4 MiB: all fit in 64 MiB (none would past the default 8 MiB)
    CHECK(cudaMemcpy(h, ok, sizeof h, cudaMemcpyDeviceToHost));
    int fit = 0;
    for (int v : h) fit += v;
    EXPECT(fit == 6);
    grab<<<1, 6>>>(16u << 20, ok);  // 6 x 16 MiB: not all of them
    CHECK(cudaMemcpy(h, ok, sizeof h, cudaMemcpyDeviceToHost));
    fit = 0;
    for (int v : h) fit += v;
    EXPECT(fit >= 1 && fit < 6);
    // a kernel has used the heap: its size is fixed now
    EXPECT(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 128u << 20) == cudaErrorInvalidValue);
    cudaGetLastError();
    CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    EXPECT(heap == 64u << 20);
    printf("OK device_heap\n");
    return 0;
}
