// A kernel that stores outside its allocation: the launch reports nothing, the next synchronising
// call reports cudaErrorIllegalAddress, and from then on every call does (the context is lost).
#include <unistd.h>
#include <cuda_runtime.h>
#include "check.h"

__global__ void write_past(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    p[i] = i;  // no bounds check: threads past n write outside the allocation
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
