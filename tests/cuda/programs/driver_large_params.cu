// Kernel parameters past 4 KiB (CUDA 12.1 raised the limit to 32,764 bytes), as NVIDIA's
// LargeKernelParameter sample passes them: a 32,000-byte struct by value beside a pointer, and a
// 4 KiB one. ptxas describes such a kernel's parameters with KPARAM_INFO_V2, which the software
// GPU must read to know the launch buffer's layout, and the null driver to answer cuFuncGetParamInfo.
// Argument "layout": the parameters' layout only, and the launches without checking their sums (the
// null driver runs no kernel).
#include <cuda.h>
#include <cstring>

#include "check.h"

struct Large { int v[8000]; };
struct Small { int v[1024]; };

__global__ void sum_large(const __grid_constant__ Large p, long long *out) {
    long long s = 0;
    for (int i = threadIdx.x; i < 8000; i += blockDim.x) s += p.v[i] * (long long)(i + 1);
    atomicAdd((unsigned long long *)out, (unsigned long long)s);
}

__global__ void sum_small(const __grid_constant__ Small p, long long *out) {
    long long s = 0;
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) s += p.v[i] * (long long)(i + 1);
    atomicAdd((unsigned long long *)out, (unsigned long long)s);
}

int main(int argc, char **argv) {
    bool layout_only = argc > 1 && !strcmp(argv[1], "layout");
    static Large big;
    static Small small;
    long long want_big = 0, want_small = 0, got = 0;
    for (int i = 0; i < 8000; i++) {
        big.v[i] = (i * 7919) % 1000 - 500;
        want_big += big.v[i] * (long long)(i + 1);
    }
    for (int i = 0; i < 1024; i++) {
        small.v[i] = (i * 31) % 97;
        want_small += small.v[i] * (long long)(i + 1);
    }
    cudaFunction_t fn;
    CHECK(cudaGetFuncBySymbol(&fn, (const void *)sum_large));
    size_t off = 1, size = 0;
    EXPECT(cuFuncGetParamInfo((CUfunction)fn, 0, &off, &size) == CUDA_SUCCESS && off == 0 && size == 32000);
    EXPECT(cuFuncGetParamInfo((CUfunction)fn, 1, &off, &size) == CUDA_SUCCESS && off == 32000 && size == 8);
    EXPECT(cuFuncGetParamInfo((CUfunction)fn, 2, &off, &size) == CUDA_ERROR_INVALID_VALUE);
    long long *d;
    CHECK(cudaMalloc(&d, sizeof *d));
    CHECK(cudaMemset(d, 0, sizeof *d));
    sum_large<<<2, 128>>>(big, d);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&got, d, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT(layout_only || got == 2 * want_big);
    CHECK(cudaMemset(d, 0, sizeof *d));
    sum_small<<<1, 64>>>(small, d);
    CHECK(cudaMemcpy(&got, d, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT(layout_only || got == want_small);
    CHECK(cudaFree(d));
    printf("OK driver_large_params\n");
    return 0;
}
