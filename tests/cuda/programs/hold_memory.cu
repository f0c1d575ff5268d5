// Allocates, says so, then keeps calling the device until a call fails: for tests that kill the
// server (the failure must be device-unavailable, quickly) or the program (memory must return).
#include <unistd.h>
#include <cuda_runtime.h>
#include "check.h"

int main(int argc, char **argv) {
    size_t mib = argc > 1 ? atoi(argv[1]) : 64;
    void *d = nullptr;
    CHECK(cudaMalloc(&d, mib << 20));
    CHECK(cudaMemset(d, 1, mib << 20));
    CHECK(cudaDeviceSynchronize());
    printf("READY %zu\n", mib);
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
