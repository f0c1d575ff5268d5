// Managed memory on every device of the program (each device another server): the pointers of
// different devices are distinct and each kernel sees its own host writes.
#include "check.h"

__global__ void mul(int n, int *a, int k) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) a[i] *= k;
}

int main() {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    EXPECT(count >= 2);
    const int n = 10000;
    int *a[8];
    for (int d = 0; d < count && d < 8; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaMallocManaged(&a[d], n * sizeof(int)));
        for (int i = 0; i < n; i++) a[d][i] = i + d;
        mul<<<16, 128>>>(n, a[d], d + 2);
    }
    for (int d = 0; d < count && d < 8; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaDeviceSynchronize());
        for (int i = 0; i < n; i++) EXPECT(a[d][i] == (i + d) * (d + 2));
        cudaPointerAttributes pa;
        CHECK(cudaPointerGetAttributes(&pa, a[d]));
        EXPECT(pa.type == cudaMemoryTypeManaged);
        printf("device %d managed at %p\n", d, (void *)a[d]);
    }
    for (int d = 0; d < count && d < 8; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaFree(a[d]));
    }
    printf("OK managed_multi %d\n", count);
    return 0;
}
