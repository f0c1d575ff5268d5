// Managed memory and the server's memory accounting. `managed_hold exhaust MIB`: allocates MIB MiB
// at a time until the device is full, touching each on the host, and checks the device agrees;
// `managed_hold leak MIB`: allocates, writes it through a kernel and exits without freeing;
// `managed_hold hold MIB`: allocates, says READY, then synchronises until a call fails.
#include <cstring>
#include <unistd.h>
#include <vector>
#include "check.h"

__global__ void fill(char *p, size_t n) {
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) p[i] = 1;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "hold";
    size_t bytes = (size_t)(argc > 2 ? atoi(argv[2]) : 16) << 20;
    if (!strcmp(mode, "exhaust")) {
        size_t free0, total, free1;
        CHECK(cudaMemGetInfo(&free0, &total));
        std::vector<char *> held;
        cudaError_t e;
        for (;;) {
            char *p = nullptr;
            e = cudaMallocManaged(&p, bytes);
            if (e != cudaSuccess) break;
            memset(p, 2, bytes);
            held.push_back(p);
        }
        CHECK(cudaMemGetInfo(&free1, &total));
        printf("allocated %zu free_after %zu error %s\n", held.size() * bytes, free1, cudaGetErrorName(e));
        EXPECT(e == cudaErrorMemoryAllocation);
        EXPECT(free1 == free0 - held.size() * bytes && free1 < bytes);
        for (char *p : held) CHECK(cudaFree(p));
        CHECK(cudaMemGetInfo(&free1, &total));
        EXPECT(free1 == free0);
        printf("OK managed_hold exhaust\n");
        return 0;
    }
    char *p = nullptr;
    CHECK(cudaMallocManaged(&p, bytes));
    fill<<<64, 256>>>(p, bytes);
    CHECK(cudaDeviceSynchronize());
    EXPECT(p[0] == 1 && p[bytes - 1] == 1);
    if (!strcmp(mode, "leak")) {
        printf("OK managed_hold leak\n");
        return 0;  // no cudaFree: the session's end must give it back
    }
    printf("READY %zu\n", bytes >> 20);
    fflush(stdout);
    for (;;) {
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            printf("ERROR %d %s\n", (int)e, cudaGetErrorName(e));
            return 3;
        }
        usleep(20000);
    }
}
