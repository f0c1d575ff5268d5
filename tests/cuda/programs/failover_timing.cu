// A program that reads, at every step, a result a device never gives twice alike: the time between
// two events around a memset (cudaEventElapsedTime). For failover tests: such a result, seen by the
// program after the session's last checkpoint, cannot be replayed on another server, and the program
// must fail with an error that says so rather than carry on with a replay that came out otherwise.
// It prints PROGRESS i as it goes and DONE at the end.
//   failover_timing [iterations] [pause ms per iteration]
#include <cstdint>
#include <unistd.h>
#include <cuda_runtime.h>
#include "check.h"

int main(int argc, char **argv) {
    const int iters = argc > 1 ? atoi(argv[1]) : 20;
    const int pause_ms = argc > 2 ? atoi(argv[2]) : 100;
    const size_t n = 4u << 20;
    uint8_t *d;
    cudaEvent_t a, b;
    CHECK(cudaMalloc((void **)&d, n));
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    printf("READY\n");
    fflush(stdout);
    for (int it = 0; it < iters; it++) {
        CHECK(cudaEventRecord(a, 0));
        CHECK(cudaMemset(d, it & 0xff, n));
        CHECK(cudaEventRecord(b, 0));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        printf("PROGRESS %d %.6f\n", it, ms);
        fflush(stdout);
        usleep(pause_ms * 1000);
    }
    printf("DONE\n");
    return 0;
}
