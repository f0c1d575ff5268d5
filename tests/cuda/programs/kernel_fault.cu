// A kernel that stores through a pointer to unmapped memory: the launch reports nothing, the next
// synchronising call reports cudaErrorIllegalAddress, and from then on every call does (the context
// is lost). Unmapped: the first pages of the address space, which no GPU and no software GPU maps. Not
// "just past an allocation": a real GPU faults only on an unmapped page, and its allocations are
// 2 MiB pages. Not "far past it" either: 4 GiB past a fresh context's first allocation, an H100
// under rgpu answered cudaErrorInvalidAddressSpace, twice (presumably a window of the generic
// address space other than global memory lies there).
#include <unistd.h>
#include <cuda_runtime.h>
#include "check.h"

__global__ void write_unmapped(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    p[i] = i;  // no bounds check, and p points at nothing
    (void)n;
}

int main() {
    int *d;
    CHECK(cudaMalloc(&d, 100 * sizeof(int)));
    write_unmapped<<<4, 256>>>((int *)4096, 100);
    EXPECT(cudaGetLastError() == cudaSuccess);  // launches are asynchronous
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync after fault: %d %s\n", (int)e, cudaGetErrorName(e));
    EXPECT(e == cudaErrorIllegalAddress);
    EXPECT(cudaMalloc(&d, 16) == cudaErrorIllegalAddress);  // sticky
    EXPECT(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
    printf("OK kernel_fault\n");
    return 0;
}
