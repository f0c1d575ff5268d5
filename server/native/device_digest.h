/* The digest of a chunk of device memory the checkpoint copier compares (server/checkpoint/memory.py):
 * the function the cuda backend's kernel rgpu_chunk_digests (PTX, in server/backends/cuda/digests.py)
 * takes on the GPU, written here for the host. Included by server/native/digest.c (rgpu_digest_chunk:
 * the copier's digest of the bytes it read; tests compare the kernel with it on the software GPU,
 * which runs the PTX) and by the null driver (benchmarks/native/nulldriver.c, which runs no kernel
 * but this one, so the cuda backend's code takes it end to end without a GPU).
 *
 * A GPU reads its memory fastest with many threads, each on its own words, coalesced. So a chunk is
 * 256 threads' work: thread t folds the chunk's 16-byte words t, t + 256, t + 512, ... into its own
 * 64-bit state in order, each word as the 128-bit product of (state ^ its first half) and (its second
 * half ^ a key), high and low halves xored; the thread after the last whole word takes the tail
 * zero-padded, and the 256 states are folded pairwise in a fixed tree (t with t + 128, then t + 64,
 * ...), so the result does not depend on how the GPU schedules the threads; the length is folded in
 * last. A change goes unnoticed only if it leaves the final 64-bit state equal (about 2^-64, far below
 * a GPU memory's own error rate). On the host, in memory's order (a thread's words still come to it
 * in its own order), about 14 GB/s here. */
#ifndef RGPU_DEVICE_DIGEST_H
#define RGPU_DEVICE_DIGEST_H

#include <stdint.h>
#include <string.h>

#define RGPU_DIGEST_THREADS 256

static inline uint64_t rgpu_dd_fold(uint64_t a, uint64_t b) {
    __uint128_t p = (__uint128_t)a * b;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
}

/* odd constants with mixed bits: the fractional parts of sqrt(2), sqrt(3), sqrt(5), sqrt(7) */
#define RGPU_DD_K0 0x6a09e667f3bcc909ull
#define RGPU_DD_K1 0xbb67ae8584caa73bull
#define RGPU_DD_K2 0x3c6ef372fe94f82bull
#define RGPU_DD_K3 0xa54ff53a5f1d36f1ull

static inline void rgpu_device_digest(const void *data, uint64_t n, uint64_t out[2]) {
    const uint8_t *p = data;
    uint64_t h[RGPU_DIGEST_THREADS];
    for (uint64_t t = 0; t < RGPU_DIGEST_THREADS; t++) h[t] = RGPU_DD_K0 ^ (t * RGPU_DD_K1);
    uint64_t words = n / 16, w[2];
    /* in memory's order: thread t's words come to it in its own order all the same */
    for (uint64_t j = 0; j < words; j++) {
        memcpy(w, p + 16 * j, 16);
        uint64_t t = j % RGPU_DIGEST_THREADS;
        h[t] = rgpu_dd_fold(h[t] ^ w[0], w[1] ^ RGPU_DD_K2);
    }
    if (n % 16) {
        memset(w, 0, sizeof w);
        memcpy(w, p + 16 * words, n % 16);
        uint64_t t = words % RGPU_DIGEST_THREADS;
        h[t] = rgpu_dd_fold(h[t] ^ w[0], w[1] ^ RGPU_DD_K2);
    }
    for (unsigned stride = RGPU_DIGEST_THREADS / 2; stride; stride /= 2)
        for (unsigned t = 0; t < stride; t++) h[t] = rgpu_dd_fold(h[t] ^ RGPU_DD_K0, h[t + stride] ^ RGPU_DD_K1);
    out[0] = rgpu_dd_fold(h[0] ^ RGPU_DD_K2, n ^ RGPU_DD_K3);
    out[1] = h[0];
}

#endif
