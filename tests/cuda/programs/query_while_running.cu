// A kernel that runs for about a second (it watches %globaltimer) and, while it runs, the stream
// and an event recorded behind it are queried: a GPU answers cudaErrorNotReady at once, and the
// program goes on with host work. Then synchronize succeeds and the kernel's result is right.
// Prints "running" when the query found the kernel running, "done-at-query" when it did not.
#include <cuda_runtime.h>
#include "check.h"

__global__ void spin_then_write(int *out, unsigned long long ns) {
    unsigned long long start;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    unsigned long long now = start;
    long spins = 0;
    while (now - start < ns) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        spins++;
    }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 3 * i + (spins > 0);
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    const int n = 64;
    int *out;
    cudaStream_t s;
    cudaEvent_t after;
    CHECK(cudaMalloc(&out, n * sizeof(int)));
    CHECK(cudaMemset(out, 0, n * sizeof(int)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&after, cudaEventDisableTiming));
    CHECK(cudaDeviceSynchronize());
    spin_then_write<<<2, 32, 0, s>>>(out, (unsigned long long)(seconds * 1e9));
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(after, s));
    cudaError_t q = cudaStreamQuery(s);
    cudaError_t e = cudaEventQuery(after);
    printf("stream query: %s, event query: %s\n", cudaGetErrorName(q), cudaGetErrorName(e));
    if (q != cudaErrorNotReady && q != cudaSuccess) { printf("FAIL stream query\n"); return 1; }
    if (e != cudaErrorNotReady && e != cudaSuccess) { printf("FAIL event query\n"); return 1; }
    printf(q == cudaErrorNotReady ? "running\n" : "done-at-query\n");
    // host work while the kernel runs: polling, as a program overlapping the GPU does
    long polls = 0;
    while (cudaStreamQuery(s) == cudaErrorNotReady) polls++;
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaEventQuery(after));
    int host[n];
    CHECK(cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        if (host[i] != 3 * i + 1) { printf("FAIL out[%d] = %d\n", i, host[i]); return 1; }
    }
    printf("polls %ld\n", polls);
    printf("OK query_while_running\n");
    return 0;
}
