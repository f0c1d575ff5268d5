// Names of kernels and kernel handles: cudaFuncGetName on a host stub, cudaGetKernel and launching
// through the cudaKernel_t it gives, and cuFuncGetName/cuKernelGetName on handles of both APIs.
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
#include "check.h"

__global__ void fill(int *out, int v) { out[threadIdx.x] = v + threadIdx.x; }

int main() {
    const char *name = nullptr;
    CHECK(cudaFuncGetName(&name, fill));
    EXPECT(name && strcmp(name, "_Z4fillPii") == 0);

    cudaKernel_t k;
    CHECK(cudaGetKernel(&k, fill));
    int *d, h[32];
    CHECK(cudaMalloc(&d, sizeof h));
    int v = 40;
    void *args[] = {&d, &v};
    CHECK(cudaLaunchKernel((const void *)k, dim3(1), dim3(32), args, 0, 0));
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h[0] == 40 && h[31] == 71);

    const char *kname = nullptr, *again = nullptr;
    EXPECT(cuKernelGetName(&kname, (CUkernel)k) == CUDA_SUCCESS && strcmp(kname, "_Z4fillPii") == 0);
    EXPECT(cuFuncGetName(&again, (CUfunction)k) == CUDA_SUCCESS && again == kname);  // kept, not re-fetched
    EXPECT(cuFuncGetName(&again, (CUfunction)0x1234) != CUDA_SUCCESS);
    printf("OK driver_kernel_names %s\n", kname);
    return 0;
}
