// Keeps the device busy for SECONDS with a stream of real kernels and prints how many ran: for
// compute-share tests, where two of these compete for one GPU.
#include <chrono>
#include <cuda_runtime.h>
#include "check.h"

__global__ void churn(float *x, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    for (int k = 0; k < iters; k++) v = v * 0.999f + 0.001f;
    x[i] = v;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 10.0;
    int iters = argc > 2 ? atoi(argv[2]) : 64;
    float *x;
    CHECK(cudaMalloc(&x, 4096 * sizeof(float)));
    CHECK(cudaMemset(x, 0, 4096 * sizeof(float)));
    auto start = std::chrono::steady_clock::now();
    long kernels = 0;
    printf("READY\n");
    fflush(stdout);
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
        for (int k = 0; k < 8; k++, kernels++) churn<<<16, 256>>>(x, iters);
        CHECK(cudaDeviceSynchronize());
    }
    printf("kernels %ld\n", kernels);
    printf("OK spin_kernels\n");
    return 0;
}
