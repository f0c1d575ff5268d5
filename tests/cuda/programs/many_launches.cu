// Launches N tiny kernels and one check: launches are asynchronous and batched, so this must not
// cost a round trip per launch.
#include <cstdlib>
#include <cuda_runtime.h>
#include "check.h"

__global__ void bump(int *c) { if (threadIdx.x == 0) atomicAdd(c, 1); }

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    int *c, got = 0;
    CHECK(cudaMalloc(&c, sizeof(int)));
    CHECK(cudaMemset(c, 0, sizeof(int)));
    for (int i = 0; i < n; i++) bump<<<1, 32>>>(c);
    CHECK(cudaMemcpy(&got, c, sizeof got, cudaMemcpyDeviceToHost));
    printf("launched %d counted %d\n", n, got);
    EXPECT(got == n);
    printf("OK many_launches\n");
    return 0;
}
