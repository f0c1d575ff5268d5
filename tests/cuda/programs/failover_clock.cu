// A program that reads back, at every step, data a device never writes twice alike: a kernel stores
// %globaltimer, and an asynchronous copy brings it into pinned memory before a stream synchronize, as
// PyTorch's `.item()` does. For failover tests: such data, seen by the program after the session's
// last checkpoint, cannot be replayed on another server (the replayed copy brings another time), and the
// program must fail with an error that says so rather than carry on. (The null driver runs no kernel
// code: there the stored word stays as it was, and a replay gives it again.)
// It prints READY, PROGRESS i <time> as it goes and DONE at the end.
//   failover_clock [iterations] [pause ms per iteration]
#include <cstdint>
#include <unistd.h>
#include <cuda_runtime.h>
#include "check.h"

__global__ void stamp(unsigned long long *out) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    *out = t;
}

int main(int argc, char **argv) {
    const int iters = argc > 1 ? atoi(argv[1]) : 20;
    const int pause_ms = argc > 2 ? atoi(argv[2]) : 100;
    unsigned long long *d, *seen;
    CHECK(cudaMalloc((void **)&d, sizeof *d));
    CHECK(cudaMemset(d, 0, sizeof *d));
    CHECK(cudaMallocHost((void **)&seen, sizeof *seen));
    printf("READY\n");
    fflush(stdout);
    for (int it = 0; it < iters; it++) {
        stamp<<<1, 1>>>(d);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(seen, d, sizeof *d, cudaMemcpyDeviceToHost, 0));
        CHECK(cudaStreamSynchronize(0));
        printf("PROGRESS %d %llu\n", it, *seen);
        fflush(stdout);
        usleep(pause_ms * 1000);
    }
    CHECK(cudaFreeHost(seen));
    printf("DONE\n");
    return 0;
}
