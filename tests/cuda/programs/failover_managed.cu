// Managed buffers that the device seldom writes, read by the host after every synchronisation of the
// legacy stream, as the small managed buffers a training loop's libraries keep: for failover tests of
// the pull's digests. Each step the device writes a word of `busy` (a memset) and the host writes
// another; `quiet` is written by the device only every fourth step and by the host every seventh, so
// most steps' pulls bring `quiet` back as the host last saw it (a --failover session's log keeps
// the digest it took when those bytes last came, libhook/src/managed/managed.c) and some bring back
// what the host wrote, pushed before the step's work. The host checks both whole after each
// synchronisation and folds words of both into a digest. Memsets only: the null driver (which runs
// no kernel) gives the same results as a GPU.
// It prints READY, PROGRESS i as it goes, and RESULT <digest> OK at the end.
//   failover_managed [iterations] [pause ms per iteration]
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>
#include "check.h"

static int same(const char *what, const uint32_t *got, const std::vector<uint32_t> &want, int it) {
    if (!memcmp(got, want.data(), want.size() * sizeof(uint32_t))) return 1;
    for (size_t i = 0; i < want.size(); i++)
        if (got[i] != want[i]) {
            printf("FAIL step %d: %s[%zu] is %08x, not %08x\n", it, what, i, got[i], want[i]);
            break;
        }
    return 0;
}

int main(int argc, char **argv) {
    const int iters = argc > 1 ? atoi(argv[1]) : 20;
    const int pause_ms = argc > 2 ? atoi(argv[2]) : 50;
    const int n = 16384;  // 64 KiB each, as the buffers cuDNN keeps
    uint32_t *busy, *quiet;
    CHECK(cudaMallocManaged(&busy, n * sizeof(uint32_t)));
    CHECK(cudaMallocManaged(&quiet, n * sizeof(uint32_t)));
    std::vector<uint32_t> rb(n, 0), rq(n, 0);
    printf("READY\n");
    fflush(stdout);
    uint64_t digest = 1469598103934665603ull;
    for (int it = 0; it < iters; it++) {
        int k = (it * 97) % n, j = (it * 131 + 5) % n;
        busy[k] = (uint32_t)it * 2654435761u + 1;  // the host's write, pushed before the device's work
        rb[k] = busy[k];
        if (it % 7 == 3) {
            quiet[(it * 389) % n] = (uint32_t)it ^ 0xa5a5a5a5u;
            rq[(it * 389) % n] = quiet[(it * 389) % n];
        }
        CHECK(cudaMemsetAsync(busy + j, it & 0xff, sizeof(uint32_t), 0));
        rb[j] = 0x01010101u * (uint32_t)(it & 0xff);
        if (it % 4 == 1) {
            int w = (it * 211 + 17) % n;
            CHECK(cudaMemsetAsync(quiet + w, (it * 5 + 3) & 0xff, sizeof(uint32_t), 0));
            rq[w] = 0x01010101u * (uint32_t)((it * 5 + 3) & 0xff);
        }
        CHECK(cudaStreamSynchronize(0));
        if (!same("busy", busy, rb, it) || !same("quiet", quiet, rq, it)) return 1;
        digest = (digest ^ busy[j] ^ quiet[(it * 211 + 17) % n] ^ quiet[(it * 389) % n]) * 1099511628211ull;
        printf("PROGRESS %d\n", it);
        fflush(stdout);
        if (pause_ms) usleep(pause_ms * 1000);
    }
    CHECK(cudaFree(busy));
    CHECK(cudaFree(quiet));
    printf("RESULT %016llx OK\n", (unsigned long long)digest);
    return 0;
}
