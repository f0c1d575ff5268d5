/* A message head as its differences from an earlier one of the same length (log_delta.h). */
#include "log_delta.h"

#include <string.h>

static size_t nblocks(size_t len) { return (len + RGPU_DELTA_BLOCK - 1) / RGPU_DELTA_BLOCK; }

/* Block b's bytes (the last one may be short); *off: where it starts. */
static size_t block(size_t len, size_t b, size_t *off) {
    *off = b * RGPU_DELTA_BLOCK;
    return len - *off < RGPU_DELTA_BLOCK ? len - *off : RGPU_DELTA_BLOCK;
}

/* Comparing a head with its key was the largest item of the log's cost in a profile of CNN steps (a
 * 212 KB head that differs from its key in about 5 KB): spans of SPAN blocks compared word by word,
 * inline, and a span that differs block by block. A call to memcmp for every 32 bytes took 13.9 us
 * against 9.5 for such a head (benchmarks/test_log_delta.py), 27 against 7.5 in a C loop over a hot one. */
#define SPAN 8

static uint64_t word(const uint8_t *p) {
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

/* Whether the n bytes at a and b differ (n a multiple of 8, or a short last block). */
static int differ(const uint8_t *a, const uint8_t *b, size_t n) {
    if (n % 8) return memcmp(a, b, n) != 0;
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i += 8) acc |= word(a + i) ^ word(b + i);
    return acc != 0;
}

size_t rgpu_delta_encode(const uint8_t *key, const uint8_t *cur, size_t len, uint8_t *out, size_t cap) {
    size_t nb = nblocks(len), map = (nb + 7) / 8, at = map;
    if (!len || map > cap) return 0;
    memset(out, 0, map);
    for (size_t b = 0; b < nb; b++) {
        size_t off, n = block(len, b, &off);
        if (b % SPAN == 0 && off + SPAN * RGPU_DELTA_BLOCK <= len &&
            !differ(key + off, cur + off, SPAN * RGPU_DELTA_BLOCK)) {
            b += SPAN - 1;
            continue;
        }
        if (!differ(key + off, cur + off, n)) continue;
        if (at + n > cap) return 0;
        out[b / 8] |= (uint8_t)(1u << (b % 8));
        memcpy(out + at, cur + off, n);
        at += n;
    }
    return at;
}

void rgpu_delta_apply(const uint8_t *key, const uint8_t *delta, size_t len, uint8_t *out) {
    size_t nb = nblocks(len);
    const uint8_t *blocks = delta + (nb + 7) / 8;
    memcpy(out, key, len);
    for (size_t b = 0; b < nb; b++) {
        if (!(delta[b / 8] & (1u << (b % 8)))) continue;
        size_t off, n = block(len, b, &off);
        memcpy(out + off, blocks, n);
        blocks += n;
    }
}
