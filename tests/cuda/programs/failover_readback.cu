// A program that writes a buffer and reads it straight back, step after step, each step's data new:
// cudaMemcpy host to device, then device to host into another buffer, checked and folded into a
// digest. For failover tests: replayed on another server, the read of step i must give what the
// program saw then, not what step i+1's write left in the same device memory (a replay that sends
// the log back to back lets the server run the next write while the read's reply is still going
// out, and a reply sent without a copy of device memory then carries the new data).
// Each step also reads a few words back asynchronously into pinned memory and synchronises, as
// PyTorch's `.item()` does (a --failover session beside its worker names that memory, which the
// worker fills before its next reply; elsewhere the data comes ahead of that reply), after an asynchronous copy of a
// batch from pinned memory, as from a DataLoader with pin_memory, whose buffer the next step refills
// (a --failover session beside its worker names the pinned memory, its log keeping the bytes).
// It prints READY, PROGRESS i as it goes, and RESULT <digest> OK at the end.
//   failover_readback [iterations] [pause ms per iteration]
#include <cstdint>
#include <cstring>
#include <unistd.h>
#include <vector>
#include <cuda_runtime.h>
#include "check.h"

int main(int argc, char **argv) {
    const int iters = argc > 1 ? atoi(argv[1]) : 20;
    const int pause_ms = argc > 2 ? atoi(argv[2]) : 50;
    const size_t n = 2u << 20; // 8 MiB of words: its reply takes a while to go out, in pieces
    uint32_t *d;
    CHECK(cudaMalloc((void **)&d, n * sizeof(uint32_t)));
    std::vector<uint32_t> h(n), back(n);
    const size_t few = 64;
    uint32_t *pinned;
    CHECK(cudaMallocHost((void **)&pinned, few * sizeof(uint32_t)));
    const size_t batch_words = 16384; // 64 KiB
    uint32_t *batch, *d_batch;
    CHECK(cudaMallocHost((void **)&batch, batch_words * sizeof(uint32_t)));
    CHECK(cudaMalloc((void **)&d_batch, batch_words * sizeof(uint32_t)));
    std::vector<uint32_t> batch_back(batch_words);
    printf("READY\n");
    fflush(stdout);
    uint64_t digest = 1469598103934665603ull;
    for (int it = 0; it < iters; it++) {
        for (size_t i = 0; i < n; i++) h[i] = (uint32_t)(i * 2654435761u) ^ (uint32_t)(it * 40503u + 1);
        CHECK(cudaMemcpy(d, h.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(back.data(), d, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        if (memcmp(back.data(), h.data(), n * sizeof(uint32_t)) != 0) {
            printf("FAIL step %d read back other data than it wrote\n", it);
            return 1;
        }
        for (size_t i = 0; i < batch_words; i++) batch[i] = (uint32_t)(i * 40503u) ^ (uint32_t)(it * 2654435761u + 7);
        CHECK(cudaMemcpyAsync(d_batch, batch, batch_words * sizeof(uint32_t), cudaMemcpyHostToDevice, 0));
        const size_t at = (size_t)it * 7919 % (n - few);
        CHECK(cudaMemcpyAsync(pinned, d + at, few * sizeof(uint32_t), cudaMemcpyDeviceToHost, 0));
        CHECK(cudaStreamSynchronize(0));
        if (memcmp(pinned, h.data() + at, few * sizeof(uint32_t)) != 0) {
            printf("FAIL step %d read back other data into pinned memory than it wrote\n", it);
            return 1;
        }
        CHECK(cudaMemcpy(batch_back.data(), d_batch, batch_words * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        if (memcmp(batch_back.data(), batch, batch_words * sizeof(uint32_t)) != 0) {
            printf("FAIL step %d read back another batch than it copied from pinned memory\n", it);
            return 1;
        }
        digest = (digest ^ back[(size_t)it * 7919 % n] ^ pinned[few - 1] ^ batch_back[(size_t)it % batch_words]) *
                 1099511628211ull;
        printf("PROGRESS %d\n", it);
        fflush(stdout);
        if (pause_ms) usleep(pause_ms * 1000);
    }
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFreeHost(batch));
    printf("RESULT %016llx OK\n", (unsigned long long)digest);
    return 0;
}
