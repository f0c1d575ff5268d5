// A training step's shape for the failover log: every step queues the same kernels with large
// parameters (as a foreach optimizer's: a list of tensors' addresses and a scalar each, kilobytes a
// launch), then reads a few words back. Its messages' heads are nearly the same every step (only the
// calls' seqs and the step's scalar differ), so a --failover session's log keeps them as their
// differences from the first (libhook/src/transport/log_delta.c). Replayed on another server, the
// heads laid back must run the same kernels with the same scalars: the digest at the end tells.
// With a width below 96 each launch writes that many of its tensors: a step that changes little of
// the memory (a checkpoint's delta of a few KB).
// It prints READY, PROGRESS i as it goes, and RESULT <digest> OK at the end.
//   failover_launches [steps] [pause ms per step] [tensors each launch writes: width, 1-96]
#include <cstdint>
#include <cstring>
#include <unistd.h>
#include <cuda_runtime.h>
#include "check.h"

constexpr int TENSORS = 96;  // a launch's list: 96 addresses and weights, 1.2 KB of parameters
constexpr int LAUNCHES = 24; // a step's: 29 KB of heads
constexpr int WORDS = 256;   // each tensor's

struct List {
    float *t[TENSORS];
    float weight[TENSORS];
    float step; // the step's scalar (a learning rate's schedule, an optimizer's bias correction)
    int n;
};

__global__ void scale_add(List l) {
    const int k = blockIdx.x, i = threadIdx.x;
    if (k < l.n && i < WORDS) l.t[k][i] = l.t[k][i] * 0.75f + l.weight[k] * l.step;
}

int main(int argc, char **argv) {
    const int steps = argc > 1 ? atoi(argv[1]) : 16;
    const int pause_ms = argc > 2 ? atoi(argv[2]) : 0;
    const int width = argc > 3 ? atoi(argv[3]) : TENSORS;
    if (width < 1 || width > TENSORS) {
        fprintf(stderr, "width: 1 to %d tensors\n", TENSORS);
        return 2;
    }
    float *mem;
    CHECK(cudaMalloc((void **)&mem, (size_t)LAUNCHES * TENSORS * WORDS * sizeof(float)));
    CHECK(cudaMemset(mem, 0, (size_t)LAUNCHES * TENSORS * WORDS * sizeof(float)));
    printf("READY\n");
    fflush(stdout);
    uint64_t digest = 1469598103934665603ull;
    float back[4];
    for (int step = 0; step < steps; step++) {
        for (int l = 0; l < LAUNCHES; l++) {
            List list;
            list.n = width;
            list.step = 1.0f / (float)(step * 7 + l + 1);
            for (int k = 0; k < TENSORS; k++) {
                list.t[k] = mem + ((size_t)l * TENSORS + k) * WORDS;
                list.weight[k] = 1.0f / (float)(l * 3 + k + 1);
            }
            scale_add<<<TENSORS, WORDS>>>(list);
            CHECK(cudaGetLastError());
        }
        const size_t at = ((size_t)step * 4099) % ((size_t)LAUNCHES * TENSORS * WORDS - 4);
        CHECK(cudaMemcpy(back, mem + at, sizeof back, cudaMemcpyDeviceToHost));
        uint32_t words[4];
        memcpy(words, back, sizeof words);
        for (uint32_t w : words) digest = (digest ^ w) * 1099511628211ull;
        printf("PROGRESS %d\n", step);
        fflush(stdout);
        if (pause_ms) usleep(pause_ms * 1000);
    }
    float all[64];
    CHECK(cudaMemcpy(all, mem + (size_t)(LAUNCHES - 1) * TENSORS * WORDS, sizeof all, cudaMemcpyDeviceToHost));
    for (float f : all) {
        uint32_t w;
        memcpy(&w, &f, sizeof w);
        digest = (digest ^ w) * 1099511628211ull;
    }
    CHECK(cudaFree(mem));
    printf("RESULT %016llx OK\n", (unsigned long long)digest);
    return 0;
}
