// Keeps the device busy for SECONDS with a stream of real kernels and prints how many ran: for
// compute-share tests, where two of these compete for one GPU. ITERS sizes each kernel (the tests
// pick it per device: tests/conftest.py); a negative ITERS launches one kernel that never ends (it
// spins on a flag nobody sets), for the tests of what a server does with such a session.
#include <chrono>
#include <cuda_runtime.h>
#include "check.h"

__global__ void churn(float *x, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    for (int k = 0; k < iters; k++) v = v * 0.999f + 0.001f;
    x[i] = v;
}

__global__ void endless(volatile int *flag, float *x) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    while (*flag == 0) v = v * 0.999f + 0.001f;
    x[i] = v;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 10.0;
    int iters = argc > 2 ? atoi(argv[2]) : 64;
    float *x;
    int *flag;
    CHECK(cudaMalloc(&x, 4096 * sizeof(float)));
    CHECK(cudaMemset(x, 0, 4096 * sizeof(float)));
    CHECK(cudaMalloc(&flag, sizeof(int)));
    CHECK(cudaMemset(flag, 0, sizeof(int)));
    auto start = std::chrono::steady_clock::now();
    long kernels = 0;
    printf("READY\n");
    fflush(stdout);
    if (iters < 0) {
        endless<<<16, 256>>>(flag, x);
        CHECK(cudaDeviceSynchronize());  // returns only if the device is gone
        printf("kernels 1\n");
        return 1;
    }
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
        for (int k = 0; k < 8; k++, kernels++) churn<<<16, 256>>>(x, iters);
        CHECK(cudaDeviceSynchronize());
    }
    printf("kernels %ld\n", kernels);
    printf("OK spin_kernels\n");
    return 0;
}
