// Stream-ordered allocation the way CuPy's and PyTorch's async allocators use it: the device's
// default pool with a release threshold, cudaMallocAsync/cudaFreeAsync around kernels on a stream,
// the pool's counters, a pool of the program's own with a maximum size, and the refusals CUDA makes.
#include <cstdint>
#include <cstdio>
#include "check.h"

__global__ void iota(int *p, int n, int base) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = base + i;
}

__global__ void add(const int *a, const int *b, int *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    cudaMemPool_t pool, current;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    CHECK(cudaDeviceGetMemPool(&current, 0));
    EXPECT(pool == current);
    uint64_t threshold = UINT64_MAX, got = 0;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &got));
    EXPECT(got == UINT64_MAX);
    int reuse = 0;
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &reuse));
    EXPECT(reuse == 1);

    const int n = 1000;
    int *a, *b, *c;
    for (int round = 0; round < 3; round++) {  // allocate, use, free in stream order, again
        CHECK(cudaMallocAsync((void **)&a, n * sizeof(int), s));
        CHECK(cudaMallocAsync((void **)&b, n * sizeof(int), s));
        CHECK(cudaMallocAsync((void **)&c, n * sizeof(int), s));
        iota<<<(n + 127) / 128, 128, 0, s>>>(a, n, round);
        iota<<<(n + 127) / 128, 128, 0, s>>>(b, n, 1000);
        add<<<(n + 127) / 128, 128, 0, s>>>(a, b, c, n);
        int host[n];
        CHECK(cudaMemcpyAsync(host, c, sizeof host, cudaMemcpyDeviceToHost, s));
        uint64_t used = 0;
        CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
        EXPECT(used >= 3 * n * sizeof(int));
        CHECK(cudaFreeAsync(a, s));
        CHECK(cudaFreeAsync(b, s));
        CHECK(cudaFreeAsync(c, s));
        CHECK(cudaStreamSynchronize(s));
        for (int i = 0; i < n; i++) EXPECT(host[i] == round + i + 1000 + i);
    }
    uint64_t used = 1, high = 0;
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high));
    EXPECT(used == 0 && high >= 3 * n * sizeof(int));

    // a pool of the program's own, with a maximum size
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    props.maxSize = 1 << 20;
    cudaMemPool_t mine;
    CHECK(cudaMemPoolCreate(&mine, &props));
    int *m = nullptr;
    CHECK(cudaMallocFromPoolAsync((void **)&m, 4096, mine, s));
    EXPECT(cudaMallocFromPoolAsync((void **)&a, 2 << 20, mine, s) == cudaErrorMemoryAllocation);
    iota<<<8, 128, 0, s>>>(m, 1024, 5);
    int first = 0;
    CHECK(cudaMemcpyAsync(&first, m + 3, sizeof first, cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(m, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(first == 8);
    CHECK(cudaMemPoolDestroy(mine));
    EXPECT(cudaMemPoolDestroy(pool) == cudaErrorInvalidValue);  // the default pool stays
    cudaGetLastError();
    CHECK(cudaStreamDestroy(s));
    printf("OK mempools\n");
    return 0;
}
