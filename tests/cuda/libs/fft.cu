// Real cuFFT on small sizes: a complex-to-complex forward transform and a real-to-complex one.
#include <cuda_runtime.h>
#include <cufft.h>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "report.h"

static void c2c(int n) {
    std::vector<cufftComplex> h(n);
    for (int i = 0; i < n; i++) h[i].x = (float)input(i, 1), h[i].y = (float)input(i, 2);
    cufftComplex *d;
    cudaMalloc(&d, n * sizeof *d);
    cudaMemcpy(d, h.data(), n * sizeof *d, cudaMemcpyHostToDevice);
    cufftHandle plan;
    int st = cufftPlan1d(&plan, n, CUFFT_C2C, 1);
    if (!st) st = cufftExecC2C(plan, d, d, CUFFT_FORWARD);
    cudaDeviceSynchronize();
    cudaMemcpy(h.data(), d, n * sizeof *d, cudaMemcpyDeviceToHost);
    report("c2c", st, (const float *)h.data(), 2 * n);
    if (!st) cufftDestroy(plan);
}

static void r2c(int n) {
    std::vector<float> x(n);
    for (int i = 0; i < n; i++) x[i] = (float)input(i, 3);
    std::vector<cufftComplex> y(n / 2 + 1);
    float *dx;
    cufftComplex *dy;
    cudaMalloc(&dx, n * sizeof *dx), cudaMalloc(&dy, y.size() * sizeof *dy);
    cudaMemcpy(dx, x.data(), n * sizeof *dx, cudaMemcpyHostToDevice);
    cufftHandle plan;
    int st = cufftPlan1d(&plan, n, CUFFT_R2C, 1);
    if (!st) st = cufftExecR2C(plan, dx, dy);
    cudaDeviceSynchronize();
    cudaMemcpy(y.data(), dy, y.size() * sizeof *dy, cudaMemcpyDeviceToHost);
    report("r2c", st, (const float *)y.data(), 2 * (int)y.size());
    if (!st) cufftDestroy(plan);
}

int main(int argc, char **argv) {
    const char *only = argc > 1 ? argv[1] : "";
    int n = argc > 2 ? atoi(argv[2]) : 16;
    if (!*only || !strcmp(only, "c2c")) c2c(n);
    if (!*only || !strcmp(only, "r2c")) r2c(n);
    return 0;
}
