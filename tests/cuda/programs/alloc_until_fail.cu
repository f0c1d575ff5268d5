// Allocates CHUNK MiB at a time until the device says out of memory, then checks that every view of
// the device's memory agrees: properties, cudaMemGetInfo and what could be allocated.
#include <vector>
#include <cuda_runtime.h>
#include "check.h"

int main(int argc, char **argv) {
    size_t chunk = (size_t)(argc > 1 ? atoi(argv[1]) : 16) << 20;
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    size_t free0 = 0, total = 0;
    CHECK(cudaMemGetInfo(&free0, &total));
    std::vector<void *> held;
    size_t got = 0;
    cudaError_t e;
    for (;;) {
        void *d = nullptr;
        e = cudaMalloc(&d, chunk);
        if (e != cudaSuccess) break;
        held.push_back(d);
        got += chunk;
    }
    size_t free1 = 0, total1 = 0;
    CHECK(cudaMemGetInfo(&free1, &total1));
    printf("total %zu prop %zu free_before %zu allocated %zu free_after %zu error %s\n", total, (size_t)p.totalGlobalMem,
           free0, got, free1, cudaGetErrorName(e));
    EXPECT(e == cudaErrorMemoryAllocation);
    EXPECT(total == p.totalGlobalMem && total1 == total);
    EXPECT(free1 < chunk && free1 == total - got);
    for (void *d : held) CHECK(cudaFree(d));
    CHECK(cudaMemGetInfo(&free1, &total1));
    EXPECT(free1 == free0);
    printf("OK alloc_until_fail\n");
    return 0;
}
