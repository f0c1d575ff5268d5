// Copies from and to pinned host memory (cudaMallocHost, cudaHostAlloc; with -cudart static NVIDIA's
// runtime makes them cuMemHostAlloc): synchronous and asynchronous, both directions, several streams,
// every device, cudaFreeHost right after asynchronous copies, and a registered range beside them.
// Usage: pinned_copies [MiB] [copy] — prints "OK pinned_copies" when every byte came out right
// (copy: no kernel between the asynchronous copies, for a driver that runs none: the null driver).
#include <cstdint>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include "check.h"

__global__ void add_one(uint8_t *p, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}

static uint8_t pattern(size_t i, unsigned salt) { return (uint8_t)((i * 2654435761u >> 13) + salt); }

static bool with_kernel = true;

static int one_device(int dev, size_t n) {
    CHECK(cudaSetDevice(dev));
    uint8_t *src = nullptr, *dst = nullptr;
    CHECK(cudaMallocHost((void **)&src, n));
    CHECK(cudaHostAlloc((void **)&dst, n, cudaHostAllocDefault));
    unsigned flags = 99;
    CHECK(cudaHostGetFlags(&flags, src));
    EXPECT(flags == 0);
    for (size_t i = 0; i < n; i++) src[i] = pattern(i, dev);
    void *d = nullptr;
    CHECK(cudaMalloc(&d, n));

    // synchronous, both directions
    memset(dst, 0, n);
    CHECK(cudaMemcpy(d, src, n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dst, d, n, cudaMemcpyDeviceToHost));
    EXPECT(memcmp(src, dst, n) == 0);
    // cudaMemcpyDefault and an offset inside the allocation
    memset(dst, 0, n);
    CHECK(cudaMemcpy((uint8_t *)d + 4096, src + 100, n / 2, cudaMemcpyDefault));
    CHECK(cudaMemcpy(dst + 7, (uint8_t *)d + 4096, n / 2, cudaMemcpyDefault));
    EXPECT(memcmp(src + 100, dst + 7, n / 2) == 0);

    // asynchronous on four streams: H2D, a kernel, D2H, each stream its quarter
    const int S = 4;
    cudaStream_t st[S];
    size_t q = n / S, k = !with_kernel ? 0 : q < 65536 ? q : 65536;  // the kernel: the first 64 KiB of each quarter
    memset(dst, 0, n);
    for (int s = 0; s < S; s++) {
        CHECK(cudaStreamCreate(&st[s]));
        uint8_t *dq = (uint8_t *)d + s * q;
        CHECK(cudaMemcpyAsync(dq, src + s * q, q, cudaMemcpyHostToDevice, st[s]));
        if (k) {
            add_one<<<(unsigned)((k + 255) / 256), 256, 0, st[s]>>>(dq, k);
            CHECK(cudaGetLastError());
        }
        CHECK(cudaMemcpyAsync(dst + s * q, dq, q, cudaMemcpyDeviceToHost, st[s]));
    }
    for (int s = 0; s < S; s++) CHECK(cudaStreamSynchronize(st[s]));
    for (int s = 0; s < S; s++)
        for (size_t i = 0; i < q; i++)
            EXPECT(dst[s * q + i] == (uint8_t)(src[s * q + i] + (i < k ? 1 : 0)));

    // cudaFreeHost right after asynchronous copies from and to it: it synchronises first
    uint8_t *tmp = nullptr, *back = nullptr;
    CHECK(cudaMallocHost((void **)&tmp, n));
    CHECK(cudaMallocHost((void **)&back, n));
    for (size_t i = 0; i < n; i++) tmp[i] = pattern(i, 77);
    CHECK(cudaMemcpyAsync(d, tmp, n, cudaMemcpyHostToDevice, st[1]));
    CHECK(cudaFreeHost(tmp));
    memset(back, 0, n);
    CHECK(cudaMemcpyAsync(back, d, n, cudaMemcpyDeviceToHost, st[2]));
    CHECK(cudaStreamSynchronize(st[2]));
    for (size_t i = 0; i < n; i++) EXPECT(back[i] == pattern(i, 77));
    CHECK(cudaMemcpyAsync(back, d, n / 2, cudaMemcpyDeviceToHost, st[3]));
    CHECK(cudaFreeHost(back));

    // a registered range of the program's own memory (the staged path) beside pinned allocations
    std::vector<uint8_t> own(n);
    CHECK(cudaHostRegister(own.data(), n, cudaHostRegisterDefault));
    CHECK(cudaMemcpy(d, src, n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyAsync(own.data(), d, n, cudaMemcpyDeviceToHost, st[0]));
    CHECK(cudaStreamSynchronize(st[0]));
    EXPECT(memcmp(own.data(), src, n) == 0);
    CHECK(cudaHostUnregister(own.data()));

    for (int s = 0; s < S; s++) CHECK(cudaStreamDestroy(st[s]));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(src));
    CHECK(cudaFreeHost(dst));
    EXPECT(cudaFreeHost(src) != cudaSuccess);  // freed twice: an error, as in CUDA
    cudaGetLastError();
    return 0;
}

int main(int argc, char **argv) {
    size_t n = (argc > 1 ? strtoull(argv[1], 0, 0) : 16) << 20;
    with_kernel = !(argc > 2 && !strcmp(argv[2], "copy"));
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    for (int dev = 0; dev < count; dev++)
        if (one_device(dev, n)) return 1;
    // one pinned buffer used by every device: pinned memory is portable
    uint8_t *shared = nullptr;
    CHECK(cudaMallocHost((void **)&shared, n));
    for (size_t i = 0; i < n; i++) shared[i] = pattern(i, 5);
    std::vector<void *> ds(count);
    for (int dev = 0; dev < count; dev++) {
        CHECK(cudaSetDevice(dev));
        CHECK(cudaMalloc(&ds[dev], n));
        CHECK(cudaMemcpyAsync(ds[dev], shared, n, cudaMemcpyHostToDevice, 0));
    }
    for (int dev = 0; dev < count; dev++) {
        CHECK(cudaSetDevice(dev));
        CHECK(cudaDeviceSynchronize());
    }
    memset(shared, 0, n);
    for (int dev = 0; dev < count; dev++) {
        CHECK(cudaSetDevice(dev));
        CHECK(cudaMemcpy(shared + dev * (n / count), (uint8_t *)ds[dev] + dev * (n / count), n / count,
                         cudaMemcpyDeviceToHost));
    }
    for (size_t i = 0; i < (size_t)count * (n / count); i++) EXPECT(shared[i] == pattern(i, 5));
    CHECK(cudaFreeHost(shared));
    printf("OK pinned_copies %d device(s) %zu MiB\n", count, n >> 20);
    return 0;
}
