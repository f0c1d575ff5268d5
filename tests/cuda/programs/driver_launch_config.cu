// A launch whose configuration CUDA refuses fails at the launch itself, as on a GPU: the Runtime's
// cudaGetLastError() right after <<<>>> and cuLaunchKernel's own return code say so, and the next
// synchronising call (reported once, at the launch) succeeds. Past the device's limits (1025 threads
// per block, a block's z of 65, a grid's y of 65536, a zero dimension), past the function's own
// (__launch_bounds__(128) and 129 threads; dynamic shared memory past its 48 KiB default).
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>

#include "driver_check.h"

__global__ void fill(int *p, int v) { p[threadIdx.x] = v; }
__global__ void __launch_bounds__(128) bounded(int *p) { p[threadIdx.x] = 2; }
extern __shared__ int dyn[];
__global__ void with_dyn(int *p) {
    dyn[threadIdx.x] = 3;
    __syncthreads();
    p[threadIdx.x] = dyn[threadIdx.x];
}

#define RT(e, want)                                                                               \
    do {                                                                                          \
        cudaError_t got_ = (e);                                                                   \
        printf("%s: %d\n", #e, (int)got_);                                                        \
        EXPECT(want);                                                                             \
    } while (0)

int main() {
    int *d;
    if (cudaMalloc(&d, 1 << 20) != cudaSuccess) { printf("FAIL cudaMalloc\n"); return 1; }
    // -- the Runtime: the launch's own error, from cudaGetLastError() right after it
    fill<<<1, 1025>>>(d, 1);
    cudaError_t e = cudaGetLastError();
    printf("1025 threads: %d\n", (int)e);
    EXPECT(e == cudaErrorInvalidConfiguration);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);  // said once, at the launch
    fill<<<1, dim3(1, 1, 65)>>>(d, 1);
    EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
    fill<<<dim3(1, 65536, 1), 1>>>(d, 1);
    EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
    fill<<<0, 32>>>(d, 1);
    EXPECT(cudaGetLastError() == cudaErrorInvalidConfiguration);
    bounded<<<1, 129>>>(d);
    e = cudaGetLastError();
    printf("129 threads of a 128-bounded kernel: %d\n", (int)e);
    EXPECT(e != cudaSuccess);
    with_dyn<<<1, 32, 64 << 10>>>(d);
    e = cudaGetLastError();
    printf("64 KiB dynamic shared: %d\n", (int)e);
    EXPECT(e != cudaSuccess);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    // what is inside every limit still runs
    bounded<<<1, 128>>>(d);
    with_dyn<<<1, 32, 1024>>>(d + 256);
    fill<<<1, 1024>>>(d + 512, 7);
    EXPECT(cudaGetLastError() == cudaSuccess);
    int host[1536];
    EXPECT(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int i = 0; i < 128; i++) EXPECT(host[i] == 2);
    for (int i = 0; i < 32; i++) EXPECT(host[256 + i] == 3);
    for (int i = 0; i < 1024; i++) EXPECT(host[512 + i] == 7);

    // -- the Driver API: cuLaunchKernel's return code
    CUfunction f, fb;
    EXPECT(cudaGetFuncBySymbol(&f, (const void *)fill) == cudaSuccess);
    EXPECT(cudaGetFuncBySymbol(&fb, (const void *)bounded) == cudaSuccess);
    int v = 5;
    CUdeviceptr dp = (CUdeviceptr)d;
    void *args[] = {&dp, &v};
    CUresult rc = cuLaunchKernel(f, 1, 1, 1, 1025, 1, 1, 0, 0, args, nullptr);
    printf("cuLaunchKernel 1025 threads: %d\n", (int)rc);
    EXPECT(rc == CUDA_ERROR_INVALID_VALUE);
    CK(cuCtxSynchronize());  // said once, at the launch
    EXPECT(cuLaunchKernel(f, 1, 1, 1, 32, 32, 2, 0, 0, args, nullptr) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(f, 1, 1 << 16, 1, 32, 1, 1, 0, 0, args, nullptr) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(f, 1, 1, 1, 0, 1, 1, 0, 0, args, nullptr) == CUDA_ERROR_INVALID_VALUE);
    void *bargs[] = {&dp};
    rc = cuLaunchKernel(fb, 1, 1, 1, 129, 1, 1, 0, 0, bargs, nullptr);
    printf("cuLaunchKernel 129 threads of a 128-bounded kernel: %d\n", (int)rc);
    EXPECT(rc != CUDA_SUCCESS);
    CK(cuCtxSynchronize());
    CK(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, 0, args, nullptr));
    CK(cuCtxSynchronize());
    CK(cuMemcpyDtoH(host, dp, 64 * sizeof(int)));
    for (int i = 0; i < 64; i++) EXPECT(host[i] == 5);
    printf("OK driver_launch_config\n");
    return 0;
}
