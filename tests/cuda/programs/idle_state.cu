// A program that leaves state on the device and goes idle between rounds (a notebook between cells):
// device buffers of three sizes (one of 24 MiB), a module variable written with cudaMemcpyToSymbol
// and read back both by symbol and through the address cudaGetSymbolAddress gave before the pause,
// a stream and an event made before the first pause and used after each, pinned host memory as a
// copy's destination. After every pause it checks every byte, then writes the next round's values.
// No kernel runs: the null driver's cuda backend runs it as the software GPU does. For idle-reclaim
// tests: it prints PAUSE r before each pause and ROUND r OK after its checks.
//   idle_state [pause ms] [rounds]
#include <cstdint>
#include <cstring>
#include <unistd.h>
#include <vector>
#include <cuda_runtime.h>
#include "check.h"

__device__ uint64_t tally[16];

static uint8_t value(int round, int buffer, size_t i) {
    return (uint8_t)((i * 2654435761u >> 11) + (size_t)round * 131 + (size_t)buffer * 17);
}

int main(int argc, char **argv) {
    const int pause_ms = argc > 1 ? atoi(argv[1]) : 100;
    const int rounds = argc > 2 ? atoi(argv[2]) : 2;
    const size_t sizes[3] = {4096, (1u << 20) + 3, 24u << 20};
    uint8_t *d[3];
    std::vector<uint8_t> host(sizes[2]), back(sizes[2]);
    cudaStream_t stream;
    cudaEvent_t done;
    uint8_t *pinned = nullptr;
    void *tally_at = nullptr;
    uint64_t t[16], u[16];
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CHECK(cudaMallocHost((void **)&pinned, sizes[1]));
    CHECK(cudaGetSymbolAddress(&tally_at, tally));
    for (int b = 0; b < 3; b++) CHECK(cudaMalloc((void **)&d[b], sizes[b]));

    for (int r = 0; r <= rounds; r++) {
        if (r > 0) {
            printf("PAUSE %d\n", r - 1);
            fflush(stdout);
            usleep((useconds_t)pause_ms * 1000);
            // every byte of the round before the pause, by each way of reading it
            for (int b = 0; b < 3; b += 2) {
                CHECK(cudaMemcpy(back.data(), d[b], sizes[b], cudaMemcpyDeviceToHost));
                for (size_t i = 0; i < sizes[b]; i++) EXPECT(back[i] == value(r - 1, b, i));
            }
            CHECK(cudaMemcpyAsync(pinned, d[1], sizes[1], cudaMemcpyDeviceToHost, stream));
            CHECK(cudaEventRecord(done, stream));
            CHECK(cudaEventSynchronize(done));
            for (size_t i = 0; i < sizes[1]; i++) EXPECT(pinned[i] == value(r - 1, 1, i));
            CHECK(cudaMemcpyFromSymbol(u, tally, sizeof u));
            for (int i = 0; i < 16; i++) EXPECT(u[i] == (uint64_t)(r - 1) * 1000003u + (uint64_t)i);
            memset(u, 0, sizeof u);
            CHECK(cudaMemcpy(u, tally_at, sizeof u, cudaMemcpyDeviceToHost));
            for (int i = 0; i < 16; i++) EXPECT(u[i] == (uint64_t)(r - 1) * 1000003u + (uint64_t)i);
            printf("ROUND %d OK\n", r - 1);
            fflush(stdout);
            if (r == rounds) break;
        }
        for (int b = 0; b < 3; b++) {
            for (size_t i = 0; i < sizes[b]; i++) host[i] = value(r, b, i);
            CHECK(cudaMemcpyAsync(d[b], host.data(), sizes[b], cudaMemcpyHostToDevice, stream));
            CHECK(cudaStreamSynchronize(stream));
        }
        for (int i = 0; i < 16; i++) t[i] = (uint64_t)r * 1000003u + (uint64_t)i;
        CHECK(cudaMemcpyToSymbol(tally, t, sizeof t));
    }
    for (int b = 0; b < 3; b++) CHECK(cudaFree(d[b]));
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaEventDestroy(done));
    CHECK(cudaStreamDestroy(stream));
    printf("OK idle_state %d rounds\n", rounds);
    return 0;
}
