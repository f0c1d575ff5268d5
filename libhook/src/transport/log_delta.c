/* A message head as its differences from an earlier one of the same length (log_delta.h). */
#include "log_delta.h"

#include <string.h>

static size_t nblocks(size_t len) { return (len + RGPU_DELTA_BLOCK - 1) / RGPU_DELTA_BLOCK; }

/* Block b's bytes (the last one may be short); *off: where it starts. */
static size_t block(size_t len, size_t b, size_t *off) {
    *off = b * RGPU_DELTA_BLOCK;
    return len - *off < RGPU_DELTA_BLOCK ? len - *off : RGPU_DELTA_BLOCK;
}

size_t rgpu_delta_encode(const uint8_t *key, const uint8_t *cur, size_t len, uint8_t *out, size_t cap) {
    size_t nb = nblocks(len), map = (nb + 7) / 8, at = map;
    if (!len || map > cap) return 0;
    memset(out, 0, map);
    for (size_t b = 0; b < nb; b++) {
        size_t off, n = block(len, b, &off);
        if (!memcmp(key + off, cur + off, n)) continue;
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
