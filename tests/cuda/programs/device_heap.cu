// Device malloc()/free() through rgpu: the heap size the program sets is the one kernels get.
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
    int *ok, h[6];
    CHECK(cudaMalloc(&ok, sizeof h));
    grab<<<1, 6>>>(4u << 20, ok);  // 6 x 4 MiB: only 2 fit in the default 8 MiB
    CHECK(cudaMemcpy(h, ok, sizeof h, cudaMemcpyDeviceToHost));
    int fit = 0;
    for (int v : h) fit += v;
    EXPECT(fit == 2);
    CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 32u << 20));
    CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    EXPECT(heap == 32u << 20);
    grab<<<1, 6>>>(4u << 20, ok);
    CHECK(cudaMemcpy(h, ok, sizeof h, cudaMemcpyDeviceToHost));
    fit = 0;
    for (int v : h) fit += v;
    EXPECT(fit == 6);
    printf("OK device_heap\n");
    return 0;
}
