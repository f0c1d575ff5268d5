// Managed memory the host reads after every synchronisation of the legacy stream, as a training loop
// reads the managed buffers its libraries keep after each step's `.item()`: every iteration the host
// writes a word of `a`, the device writes another (a memset) and copies a word of `a` into `b`, the
// legacy stream is synchronised (as 0, or every third iteration as cudaStreamLegacy), and the host
// checks both allocations whole. With `host`, a third allocation attached to the host
// (cudaMemAttachHost) is written by the host each iteration and by a memset through the API: after
// the synchronisation the host sees both. The end: a non-blocking stream's synchronisation and a
// device synchronisation, each after a memset of its own. Memsets and copies only, so that the null
// driver (which runs no kernel) gives the same results as a GPU.
//   managed_stream_sync [iterations] [host]
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "check.h"

static int same(const char *what, const uint32_t *got, const std::vector<uint32_t> &want, int it) {
    if (!memcmp(got, want.data(), want.size() * sizeof(uint32_t))) return 1;
    for (size_t i = 0; i < want.size(); i++)
        if (got[i] != want[i]) {
            printf("FAIL iteration %d: %s[%zu] is %08x, not %08x\n", it, what, i, got[i], want[i]);
            break;
        }
    return 0;
}

int main(int argc, char **argv) {
    const int iters = argc > 1 ? atoi(argv[1]) : 20;
    const bool host = argc > 2 && !strcmp(argv[2], "host");
    const int n = 16384;  // 64 KiB each, as the buffers cuDNN keeps
    uint32_t *a, *b, *h = nullptr;
    CHECK(cudaMallocManaged(&a, n * sizeof(uint32_t)));
    CHECK(cudaMallocManaged(&b, n * sizeof(uint32_t)));
    if (host) CHECK(cudaMallocManaged(&h, n * sizeof(uint32_t), cudaMemAttachHost));
    std::vector<uint32_t> ra(n, 0), rb(n, 0), rh(n, 0);
    for (int it = 0; it < iters; it++) {
        int k = (it * 97) % n, j = (it * 131 + 5) % n;
        a[k] = (uint32_t)it * 2654435761u + 1;  // the host's write, pushed before the device's work
        ra[k] = a[k];
        CHECK(cudaMemsetAsync(a + j, it & 0xff, sizeof(uint32_t), 0));
        ra[j] = 0x01010101u * (uint32_t)(it & 0xff);
        CHECK(cudaMemcpyAsync(b + it % n, a + k, sizeof(uint32_t), cudaMemcpyDefault, 0));
        rb[it % n] = ra[k];
        if (host) {
            h[j] = (uint32_t)it + 7;  // the host's while the device works: kept through the pull
            rh[j] = h[j];
            int w = (j + 2048) % n;   // another page, written through the API
            CHECK(cudaMemsetAsync(h + w, 0x5a, sizeof(uint32_t), 0));
            rh[w] = 0x5a5a5a5au;
        }
        CHECK(cudaStreamSynchronize(it % 3 == 2 ? cudaStreamLegacy : 0));
        if (!same("a", a, ra, it) || !same("b", b, rb, it) || (host && !same("h", h, rh, it))) return 1;
    }
    // synchronisations whose pull goes after them: a non-blocking stream's, the device's
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMemsetAsync(a, 0x11, 4 * sizeof(uint32_t), s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < 4; i++) ra[i] = 0x11111111u;
    CHECK(cudaMemsetAsync(b, 0x22, 4 * sizeof(uint32_t), s));
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < 4; i++) rb[i] = 0x22222222u;
    if (!same("a", a, ra, iters) || !same("b", b, rb, iters)) return 1;
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    if (h) CHECK(cudaFree(h));
    printf("OK managed_stream_sync %d%s\n", iters, host ? " host" : "");
    return 0;
}
