// Mapped ("zero-copy") host memory, as NVIDIA's simpleZeroCopy uses it: kernels read and write
// host memory through the device pointer cudaHostGetDevicePointer gives, and the host sees their
// writes after a synchronisation.
#include <cuda_runtime.h>
#include "check.h"

__global__ void axpy(const float *x, float *y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
    const int n = 1 << 16;
    CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    float *x, *y, *dx, *dy;
    CHECK(cudaHostAlloc(&x, n * sizeof(float), cudaHostAllocMapped));
    CHECK(cudaHostAlloc(&y, n * sizeof(float), cudaHostAllocMapped | cudaHostAllocPortable));
    CHECK(cudaHostGetDevicePointer((void **)&dx, x, 0));
    CHECK(cudaHostGetDevicePointer((void **)&dy, y, 0));
    for (int round = 1; round <= 3; round++) {
        for (int i = 0; i < n; i++) { x[i] = (float)(i % 100); y[i] = (float)round; }
        axpy<<<(n + 255) / 256, 256>>>(dx, dy, 2.0f, n);
        CHECK(cudaDeviceSynchronize());
        for (int i = 0; i < n; i++)
            if (y[i] != 2.0f * (float)(i % 100) + (float)round) {
                printf("FAIL round %d at %d: %f\n", round, i, y[i]);
                return 1;
            }
    }
    cudaPointerAttributes at;
    CHECK(cudaPointerGetAttributes(&at, x));
    EXPECT(at.type == cudaMemoryTypeHost);
    float *dev, back[4];
    CHECK(cudaMalloc(&dev, sizeof back));
    CHECK(cudaMemcpy(dev, y + 10, sizeof back, cudaMemcpyDefault));  // mapped memory as a copy source
    CHECK(cudaMemcpy(back, dev, sizeof back, cudaMemcpyDeviceToHost));
    EXPECT(back[0] == y[10] && back[3] == y[13]);

    // under unified addressing all pinned memory has a device address, not only what was asked mapped
    float *pinned, *pdev = nullptr;
    CHECK(cudaMallocHost(&pinned, 4096));
    CHECK(cudaHostGetDevicePointer((void **)&pdev, pinned, 0));
    for (int i = 0; i < 1024; i++) pinned[i] = 1.0f;
    axpy<<<4, 256>>>(dx, pdev, 3.0f, 1024);
    CHECK(cudaDeviceSynchronize());
    EXPECT(pinned[0] == 1.0f + 3.0f * x[0] && pinned[1023] == 1.0f + 3.0f * x[1023]);
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFreeHost(x));
    CHECK(cudaFreeHost(y));
    printf("OK zero_copy\n");
    return 0;
}
