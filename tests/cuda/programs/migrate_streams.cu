// A program that keeps state on the device while it runs — buffers on several streams updated by
// kernels step after step, a module variable counting blocks, events ordering the streams, managed
// memory the host and the device both change, a large allocation written once — and checks every
// result against the same computation on the host at the end. For live-migration tests: it prints
// PROGRESS i as it goes (so a test can move it mid-run) and RESULT <digest> OK when all matched.
//   migrate_streams [iterations] [pause ms per iteration]
#include <cstdint>
#include <cstring>
#include <unistd.h>
#include <vector>
#include <cuda_runtime.h>
#include "check.h"

__device__ unsigned long long blocks_run;

__global__ void step(uint32_t *x, int n, int iter, int stream) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * 1103515245u + 12345u + (uint32_t)(iter * 31 + stream) + (uint32_t)i;
    if (threadIdx.x == 0) atomicAdd(&blocks_run, 1ull);
}

// reads stream s's buffer and folds it into stream s+1's: the event orders the two streams
__global__ void mix(const uint32_t *from, uint32_t *to, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) to[i] ^= from[(i * 7) % n] >> 3;
}

__global__ void bump(uint32_t *m, int n, int iter) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) m[i] = m[i] * 3u + (uint32_t)iter;
}

static uint64_t fnv(const void *p, size_t n, uint64_t h) {
    const uint8_t *b = (const uint8_t *)p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

int main(int argc, char **argv) {
    const int iters = argc > 1 ? atoi(argv[1]) : 40;
    const int pause_ms = argc > 2 ? atoi(argv[2]) : 50;
    const int S = 4, n = 1 << 14, block = 256, grid = (n + block - 1) / block;
    const size_t ballast_n = 24u << 20;
    cudaStream_t st[S];
    cudaEvent_t ev[S];
    uint32_t *d[S];
    std::vector<std::vector<uint32_t>> h(S, std::vector<uint32_t>(n));
    for (int s = 0; s < S; s++) {
        CHECK(cudaStreamCreateWithFlags(&st[s], cudaStreamNonBlocking));
        CHECK(cudaEventCreateWithFlags(&ev[s], cudaEventDisableTiming));
        CHECK(cudaMalloc((void **)&d[s], n * sizeof(uint32_t)));
        for (int i = 0; i < n; i++) h[s][i] = (uint32_t)(i * 2654435761u + s);
        CHECK(cudaMemcpyAsync(d[s], h[s].data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice, st[s]));
    }
    uint8_t *ballast;
    CHECK(cudaMalloc((void **)&ballast, ballast_n));
    std::vector<uint8_t> hb(ballast_n);
    for (size_t i = 0; i < ballast_n; i++) hb[i] = (uint8_t)(i * 131 + (i >> 12));
    CHECK(cudaMemcpy(ballast, hb.data(), ballast_n, cudaMemcpyHostToDevice));
    const int mn = 4096;
    uint32_t *managed;
    CHECK(cudaMallocManaged((void **)&managed, mn * sizeof(uint32_t)));
    std::vector<uint32_t> hm(mn, 0);
    unsigned long long zero = 0;
    CHECK(cudaMemcpyToSymbol(blocks_run, &zero, sizeof zero));
    CHECK(cudaDeviceSynchronize());
    printf("READY\n");
    fflush(stdout);

    for (int it = 0; it < iters; it++) {
        for (int s = 0; s < S; s++) {
            step<<<grid, block, 0, st[s]>>>(d[s], n, it, s);
            CHECK(cudaEventRecord(ev[s], st[s]));
            for (int i = 0; i < n; i++) h[s][i] = h[s][i] * 1103515245u + 12345u + (uint32_t)(it * 31 + s) + (uint32_t)i;
        }
        for (int s = 0; s < S; s++) {
            int t = (s + 1) % S;
            CHECK(cudaStreamWaitEvent(st[t], ev[s], 0));
            mix<<<grid, block, 0, st[t]>>>(d[s], d[t], n);
            CHECK(cudaEventRecord(ev[t], st[t]));
        }
        for (int s = 0; s < S; s++) {
            int t = (s + 1) % S;
            const std::vector<uint32_t> from = h[s];  // in queue order: s was mixed into already (but 0)
            for (int i = 0; i < n; i++) h[t][i] ^= from[(i * 7) % n] >> 3;
        }
        // managed memory (the device has no concurrent managed access: the host touches it only
        // while no device work is outstanding): the host changes it, a kernel changes it, the host
        // reads it back
        CHECK(cudaDeviceSynchronize());
        for (int i = 0; i < mn; i++) managed[i] += (uint32_t)i;
        for (int i = 0; i < mn; i++) hm[i] += (uint32_t)i;
        bump<<<(mn + block - 1) / block, block>>>(managed, mn, it);
        CHECK(cudaDeviceSynchronize());
        for (int i = 0; i < mn; i++) hm[i] = hm[i] * 3u + (uint32_t)it;
        if (memcmp(hm.data(), managed, mn * sizeof(uint32_t)) != 0) {
            printf("FAIL managed memory differs at iteration %d\n", it);
            return 1;
        }
        printf("PROGRESS %d\n", it);
        fflush(stdout);
        if (pause_ms) usleep(pause_ms * 1000);
    }

    uint64_t digest = 1469598103934665603ull;
    int ok = 1;
    for (int s = 0; s < S; s++) {
        std::vector<uint32_t> back(n);
        CHECK(cudaMemcpyAsync(back.data(), d[s], n * sizeof(uint32_t), cudaMemcpyDeviceToHost, st[s]));
        CHECK(cudaStreamSynchronize(st[s]));
        if (back != h[s]) {
            printf("FAIL stream %d buffer differs from the host's computation\n", s);
            ok = 0;
        }
        digest = fnv(back.data(), n * sizeof(uint32_t), digest);
    }
    std::vector<uint8_t> bb(ballast_n);
    CHECK(cudaMemcpy(bb.data(), ballast, ballast_n, cudaMemcpyDeviceToHost));
    if (bb != hb) {
        printf("FAIL the ballast changed\n");
        ok = 0;
    }
    unsigned long long ran = 0;
    CHECK(cudaMemcpyFromSymbol(&ran, blocks_run, sizeof ran));
    if (ran != (unsigned long long)iters * S * grid) {
        printf("FAIL blocks_run %llu, expected %llu\n", ran, (unsigned long long)iters * S * grid);
        ok = 0;
    }
    digest = fnv(&ran, sizeof ran, fnv(managed, mn * sizeof(uint32_t), digest));
    printf("RESULT %016llx %s\n", (unsigned long long)digest, ok ? "OK" : "MISMATCH");
    return ok ? 0 : 1;
}
