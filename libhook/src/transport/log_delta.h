/* A failover log's message heads kept as their differences from an earlier head of the same length
 * (failover.c). A training loop sends nearly the same head every step: the same calls with the same
 * arguments (the caching allocator hands the same addresses back), only the calls' seqs and a few
 * scalars (an optimizer's step size) differ, and the bytes do not shift, since the seqs of a long run
 * are all encoded in the same width. A CNN step's 212 KB head is kept as a few KB. */
#ifndef RGPU_LOG_DELTA_H
#define RGPU_LOG_DELTA_H
#include <stddef.h>
#include <stdint.h>

#define RGPU_DELTA_BLOCK 32 /* bytes compared and kept as one: a seq (5 bytes) seldom spans two */

/* The bytes a delta of a len-byte head takes at most for it to be worth keeping: a quarter of the head. */
static inline size_t rgpu_delta_cap(size_t len) { return len / 4; }

/* cur's len bytes as their differences from key's len bytes, written to out (cap bytes at most): a bitmap
 * of the blocks that differ, then those blocks. The delta's bytes, or 0 when it would take more than cap
 * (keep cur whole then). */
size_t rgpu_delta_encode(const uint8_t *key, const uint8_t *cur, size_t len, uint8_t *out, size_t cap);

/* The head again: key's len bytes with the delta's blocks laid over them, into out (len bytes). */
void rgpu_delta_apply(const uint8_t *key, const uint8_t *delta, size_t len, uint8_t *out);
#endif
