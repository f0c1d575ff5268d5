// NVIDIA's "An Even Easier Introduction to CUDA", unchanged in substance: managed memory written on
// the host, a grid-stride kernel, cudaDeviceSynchronize, then the host reads the result.
#include <cmath>
#include <cstdio>
#include "check.h"

__global__ void add(int n, float *x, float *y) {
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    for (int i = index; i < n; i += stride) y[i] = x[i] + y[i];
}

int main() {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int concurrent = -1;
    CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0));
    printf("managedMemory %d concurrentManagedAccess %d\n", prop.managedMemory, concurrent);

    int N = 1 << 20;
    float *x, *y;
    CHECK(cudaMallocManaged(&x, N * sizeof(float)));
    CHECK(cudaMallocManaged(&y, N * sizeof(float)));
    for (int i = 0; i < N; i++) {
        x[i] = 1.0f;
        y[i] = 2.0f;
    }
    int blockSize = 256;
    int numBlocks = (N + blockSize - 1) / blockSize;
    add<<<numBlocks, blockSize>>>(N, x, y);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    float maxError = 0.0f;
    for (int i = 0; i < N; i++) maxError = fmax(maxError, fabs(y[i] - 3.0f));
    printf("Max error: %g\n", maxError);
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    EXPECT(maxError == 0.0f);
    printf("OK managed_add\n");
    return 0;
}
