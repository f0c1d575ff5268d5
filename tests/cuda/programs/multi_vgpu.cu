// Every device of the program at once (in a pool: one per vGPU, possibly on different servers):
// per-device memory, a kernel on each, results checked on the host, and data moved between
// devices through the host. Prints each device's total memory (its vGPU's quota).
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>
#include "check.h"

__global__ void fill(uint32_t *out, uint32_t seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = seed * 2654435761u + (uint32_t)i;
}

__global__ void add_one(uint32_t *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}

int main() {
    const int n = 1 << 16;
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    EXPECT(count >= 1);
    std::vector<uint32_t *> buf(count);
    for (int d = 0; d < count; d++) {
        CHECK(cudaSetDevice(d));
        size_t free_b = 0, total_b = 0;
        CHECK(cudaMemGetInfo(&free_b, &total_b));
        printf("device %d total %zu\n", d, total_b);
        CHECK(cudaMalloc(&buf[d], n * sizeof(uint32_t)));
        fill<<<(n + 255) / 256, 256>>>(buf[d], 1000u + d, n);
        CHECK(cudaGetLastError());
    }
    std::vector<uint32_t> host(n);
    for (int d = 0; d < count; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(host.data(), buf[d], n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++) EXPECT(host[i] == (1000u + d) * 2654435761u + (uint32_t)i);
    }
    // device d's data goes to device (d+1) % count through the host, then a kernel there.
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemcpy(host.data(), buf[0], n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    int to = 1 % count;
    CHECK(cudaSetDevice(to));
    CHECK(cudaMemcpy(buf[to], host.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    add_one<<<(n + 255) / 256, 256>>>(buf[to], n);
    CHECK(cudaMemcpy(host.data(), buf[to], n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(host[i] == 1000u * 2654435761u + (uint32_t)i + 1);
    for (int d = 0; d < count; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaFree(buf[d]));
    }
    printf("OK multi_vgpu %d\n", count);
    return 0;
}
