// A kernel that stores far outside its allocation: the launch reports nothing, the next synchronising
// call reports cudaErrorIllegalAddress, and from then on every call does (the context is lost). Far:
// a real GPU faults only on an unmapped page, and its allocations are 2 MiB pages (a store just past
// a small allocation lands in memory the driver mapped and faults nowhere); 4 GiB past a fresh
// context's first allocation nothing is mapped, on a GPU or on the software GPU. Every thread stores
// into those same few KiB: stores spread over terabytes (each thread 4 GiB past the last) reached,
// on an H100, an address that the generic space gives to another window, which is
// cudaErrorInvalidAddressSpace instead.
#include <unistd.h>
#include <cuda_runtime.h>
#include "check.h"

__global__ void write_past(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    p[((size_t)1 << 30) + i] = i;  // no bounds check: 4 GiB past the allocation
    (void)n;
}

int main() {
    int *d;
    CHECK(cudaMalloc(&d, 100 * sizeof(int)));
    write_past<<<4, 256>>>(d, 100);
    EXPECT(cudaGetLastError() == cudaSuccess);  // launches are asynchronous
    cudaError_t e = cudaDeviceSynchronize();
    printf("sync after fault: %d %s\n", (int)e, cudaGetErrorName(e));
    EXPECT(e == cudaErrorIllegalAddress);
    EXPECT(cudaMalloc(&d, 16) == cudaErrorIllegalAddress);  // sticky
    EXPECT(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
    printf("OK kernel_fault\n");
    return 0;
}
