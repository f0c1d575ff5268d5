// Large pageable copies at odd host offsets and lengths, both ways, each checked byte for byte with the
// bytes around it untouched (on the same host their data is copied by several threads: copies.c); then
// a fork after them: the child makes a large host-to-host copy of its own (rgpu's client copies it, as
// the driver does: with a pool the child must start afresh) while the parent goes on copying through its
// session, and both check their data.
//   copy_threads MiB
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime.h>
#include "check.h"

static const size_t PAD = 4096;  // around each destination: must stay as it was

static void fill(uint8_t *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)((i * 2654435761u + seed) >> 13);
}

// src[soff, soff + len) -> device -> back[doff, doff + len); every other byte of back stays 0xee.
static int roundtrip(void *dev, size_t soff, size_t doff, size_t len, unsigned seed) {
    std::vector<uint8_t> src(soff + len), back(doff + len + PAD, 0xee);
    fill(src.data() + soff, len, seed);
    CHECK(cudaMemcpy(dev, src.data() + soff, len, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(back.data() + doff, dev, len, cudaMemcpyDeviceToHost));
    EXPECT(memcmp(back.data() + doff, src.data() + soff, len) == 0);
    for (size_t i = 0; i < doff; i++) EXPECT(back[i] == 0xee);
    for (size_t i = doff + len; i < back.size(); i++) EXPECT(back[i] == 0xee);
    return 0;
}

static int host_copy(size_t soff, size_t doff, size_t len, unsigned seed) {
    std::vector<uint8_t> src(soff + len), dst(doff + len + PAD, 0xee);
    fill(src.data() + soff, len, seed);
    CHECK(cudaMemcpy(dst.data() + doff, src.data() + soff, len, cudaMemcpyHostToHost));
    EXPECT(memcmp(dst.data() + doff, src.data() + soff, len) == 0);
    for (size_t i = 0; i < doff; i++) EXPECT(dst[i] == 0xee);
    for (size_t i = doff + len; i < dst.size(); i++) EXPECT(dst[i] == 0xee);
    return 0;
}

int main(int argc, char **argv) {
    size_t n = (argc > 1 ? strtoull(argv[1], 0, 0) : 24) << 20;
    void *dev = nullptr;
    CHECK(cudaMalloc(&dev, n));
    // odd offsets and lengths that no slice or chunk size divides; a whole one; one just past a chunk
    const size_t cases[][3] = {{3, 5, n - 4093}, {0, 0, n}, {1, 4095, (4u << 20) + 7}, {64, 17, (8u << 20) + 65}};
    unsigned seed = 1;
    for (auto &c : cases)
        if (roundtrip(dev, c[0], c[1], c[2], seed++)) return 1;
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) {
        printf("FAIL fork\n");
        return 1;
    }
    if (child == 0) {
        // no CUDA work through the parent's session here (CUDA forbids it in a child too): a host copy,
        // then out without the parent's exit handlers. A child left waiting on the parent's copy threads
        // would wait for ever: the alarm ends it, and the parent's check below fails.
        alarm(60);
        int rc = host_copy(7, 3, n - 4093, 100) || host_copy(0, 0, n, 101);
        printf("%s child %d\n", rc ? "FAIL" : "OK", (int)getpid());
        fflush(stdout);
        _exit(rc);
    }
    int rc = roundtrip(dev, 5, 3, n - 4093, 200) || host_copy(9, 1, n - 1, 201);
    int status = 0;
    EXPECT(waitpid(child, &status, 0) == child);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (rc) return 1;
    CHECK(cudaFree(dev));
    printf("OK copy_threads %zu MiB parent %d child %d\n", n >> 20, (int)getpid(), (int)child);
    return 0;
}
