/* The failover digests (digest.h). A D2H copy's data is digested as the program receives it, so the
 * digest is on the copy's path: one FNV-1a chain is a multiply per 8 bytes, each waiting for the one
 * before; four lanes over the stream's words in turn (word i to lane i % 4) let the multiplies overlap,
 * several GB/s, where one chain kept a 4 MiB copy to a third of its speed. */
#include "digest.h"

#include <string.h>

#define PRIME 0x100000001b3ull
#define LANES RGPU_DIG_LANES

uint64_t rgpu_mix(uint64_t h, const void *p, size_t n) {
    const uint8_t *b = p;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * PRIME;
    }
    for (; i < n; i++) h = (h ^ b[i]) * PRIME;
    return h;
}

rgpu_dig rgpu_dig_start(void) {
    return (rgpu_dig){{RGPU_DIG_SEED, RGPU_DIG_SEED ^ 1, RGPU_DIG_SEED ^ 2, RGPU_DIG_SEED ^ 3}, 0, 0, 0};
}

static inline void word(rgpu_dig *d, uint64_t w) {
    uint64_t *h = &d->h[d->words++ % LANES];
    *h = (*h ^ w) * PRIME;
}

void rgpu_dig_add(rgpu_dig *d, const void *p, size_t n) {
    const uint8_t *b = p;
    while (n && d->npend) { /* complete the word a part before left open */
        d->pend |= (uint64_t)*b++ << (8 * d->npend++);
        n--;
        if (d->npend == 8) word(d, d->pend), d->pend = 0, d->npend = 0;
    }
    for (; n >= 8 && d->words % LANES; b += 8, n -= 8) { /* to lane 0 */
        uint64_t w;
        memcpy(&w, b, 8);
        word(d, w);
    }
    uint64_t h0 = d->h[0], h1 = d->h[1], h2 = d->h[2], h3 = d->h[3];
    size_t blocks = n / (8 * LANES);
    for (size_t i = 0; i < blocks; i++, b += 8 * LANES) {
        uint64_t w[LANES];
        memcpy(w, b, sizeof w);
        h0 = (h0 ^ w[0]) * PRIME, h1 = (h1 ^ w[1]) * PRIME;
        h2 = (h2 ^ w[2]) * PRIME, h3 = (h3 ^ w[3]) * PRIME;
    }
    d->h[0] = h0, d->h[1] = h1, d->h[2] = h2, d->h[3] = h3;
    d->words += blocks * LANES;
    n -= blocks * 8 * LANES;
    for (; n >= 8; b += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, b, 8);
        word(d, w);
    }
    for (; n; n--) d->pend |= (uint64_t)*b++ << (8 * d->npend++); /* the open word: fewer than 8 bytes */
}

uint64_t rgpu_dig_end(const rgpu_dig *d) {
    /* the lanes, and the length: a stream and the same stream with zero bytes more differ */
    uint64_t all[LANES + 3] = {d->h[0], d->h[1], d->h[2], d->h[3], d->words, d->pend, d->npend};
    return rgpu_mix(RGPU_DIG_SEED, all, sizeof all);
}
