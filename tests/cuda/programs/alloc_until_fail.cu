// Allocates CHUNK MiB at a time until the device says out of memory, then checks that every view of
// the device's memory agrees: properties, cudaMemGetInfo and what could be allocated. With a CAP (MiB)
// it stops there if the device has not refused first: a test that only needs to see that no quota
// stops it must not take a whole real GPU from the tests running beside it.
//   alloc_until_fail [CHUNK MiB] [CAP MiB]
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>
#include "check.h"

int main(int argc, char **argv) {
    size_t chunk = (size_t)(argc > 1 ? atoi(argv[1]) : 16) << 20;
    size_t cap = argc > 2 ? (size_t)atoi(argv[2]) << 20 : SIZE_MAX;
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    size_t free0 = 0, total = 0;
    CHECK(cudaMemGetInfo(&free0, &total));
    std::vector<void *> held;
    size_t got = 0;
    cudaError_t e = cudaSuccess;
    while (got + chunk <= cap) {
        void *d = nullptr;
        e = cudaMalloc(&d, chunk);
        if (e != cudaSuccess) break;
        held.push_back(d);
        got += chunk;
    }
    size_t free1 = 0, total1 = 0;
    CHECK(cudaMemGetInfo(&free1, &total1));
    bool capped = got + chunk > cap;
    printf("total %zu prop %zu free_before %zu allocated %zu free_after %zu error %s%s\n", total,
           (size_t)p.totalGlobalMem, free0, got, free1, capped ? "none" : cudaGetErrorName(e),
           capped ? " (stopped at the cap)" : "");
    EXPECT(total == p.totalGlobalMem && total1 == total);
    if (!capped) {
        EXPECT(e == cudaErrorMemoryAllocation);
        EXPECT(free1 < chunk && free1 == total - got);
    }
    for (void *d : held) CHECK(cudaFree(d));
    CHECK(cudaMemGetInfo(&free1, &total1));
    EXPECT(free1 == free0);
    printf("OK alloc_until_fail\n");
    return 0;
}
