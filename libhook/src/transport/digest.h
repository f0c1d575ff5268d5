/* Digests that tell a failover replay's results from the ones the program saw (failover.c): 64-bit
 * FNV-1a, not a defence against anyone, only against a device that does not do the same thing twice. */
#ifndef RGPU_DIGEST_H
#define RGPU_DIGEST_H
#include <stddef.h>
#include <stdint.h>

#define RGPU_DIG_SEED 0xcbf29ce484222325ull
#define RGPU_DIG_LANES 4

/* FNV-1a over n bytes, 8-byte words then the tail a byte at a time, from h (a reply's head: small). */
uint64_t rgpu_mix(uint64_t h, const void *p, size_t n);

/* A digest of data that may come in several parts (a D2H copy's bytes in the program's buffer, or the
 * frames a replayed reply carries them in): the bytes as one stream, whatever the parts' lengths, so a
 * copy the program took through the same-host segment compares with the frames its replay gets from
 * another server. */
typedef struct {
    uint64_t h[RGPU_DIG_LANES], words, pend;
    unsigned npend;
} rgpu_dig;

rgpu_dig rgpu_dig_start(void);
void rgpu_dig_add(rgpu_dig *d, const void *p, size_t n);
uint64_t rgpu_dig_end(const rgpu_dig *d);
#endif
