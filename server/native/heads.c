/* A session's heads sent as deltas, the worker's end (server/head_delta.py drives it, and the serving
 * loop's socket door, sock_serve.c, uses the same table): the client (libhook/src/transport/head_delta.c)
 * sends a message's head of RGPU_HEAD_DELTA_MIN to RGPU_HEAD_DELTA_MAX bytes as its differences from
 * the last head of the same length, and both ends keep the last head of each of the
 * RGPU_HEAD_DELTA_SLOTS lengths used most recently, every head of such a length the worker receives,
 * in order, by the client's rule (slot_for). One table per session, whichever of Python and the loop
 * takes a message: the two never run at once (the loop runs only while Python waits for it).
 *
 * A delta is checked whole before anything is laid over its base (its record, its base's first 16
 * bytes against the base kept, its bitmap within the head's blocks, its blocks exactly those the bitmap
 * names); one that is not right is refused with why, changing nothing: the worker ends the session,
 * whose later heads would lean on the head it lost. */
#include <stdlib.h>
#include <string.h>

#include "mpack.h"
#include "rgpu_envelope.h"
#include "rgpu_wire.h"

#define BLOCK 32 /* log_delta.h's RGPU_DELTA_BLOCK */
#define SLOTS RGPU_HEAD_DELTA_SLOTS

typedef struct rgpu_heads {
    uint64_t lengths[SLOTS]; /* what the client's slots hold (0: nothing yet) */
    uint64_t used[SLOTS];
    uint64_t clock;
    unsigned char *base[SLOTS]; /* lengths[i] bytes, or NULL: no base (yet, or out of memory) */
    uint64_t deltas;            /* messages whose head came as a delta */
    uint64_t bytes_saved;       /* the heads' bytes less the deltas' (the record and the differences) */
} rgpu_heads;

rgpu_heads *rgpu_heads_new(void) { return calloc(1, sizeof(rgpu_heads)); }

void rgpu_heads_free(rgpu_heads *h) {
    if (!h) return;
    for (int i = 0; i < SLOTS; i++) free(h->base[i]);
    free(h);
}

/* The slot of a head of `len` bytes, as the client chooses it: the one that holds that length, else
 * the one used least recently (an empty one first; the first of equals), which takes the length (its
 * base gone). Marked used now. */
static int slot_for(rgpu_heads *h, uint64_t len) {
    int k = 0;
    for (int i = 0; i < SLOTS; i++) {
        if (h->lengths[i] == len) {
            k = i;
            break;
        }
        if (h->used[i] < h->used[k]) k = i;
    }
    if (h->lengths[k] != len) {
        free(h->base[k]);
        h->base[k] = NULL, h->lengths[k] = len;
    }
    h->used[k] = ++h->clock;
    return k;
}

/* A head received whole: its slot's base from now on, when its length is one the table keeps. */
void rgpu_heads_keep(rgpu_heads *h, const unsigned char *head, uint64_t len) {
    if (len < RGPU_HEAD_DELTA_MIN || len > RGPU_HEAD_DELTA_MAX) return;
    int k = slot_for(h, len);
    if (!h->base[k] && !(h->base[k] = malloc(len))) return; /* no base: a delta against it is refused */
    memcpy(h->base[k], head, len);
}

/* A head sent as a delta (`rec`: its head_delta record's bytes, `delta`: the differences) made whole in
 * its slot's base, which is returned, its length in *len: valid until the table next takes a head.
 * NULL, and *why, when it cannot be made whole: the table is as it was. */
const unsigned char *rgpu_heads_apply(rgpu_heads *h, const unsigned char *rec, size_t rec_len,
                                      const unsigned char *delta, size_t dlen, uint64_t *len, const char **why) {
    mp_reader r;
    rgpu_env_head_delta d;
    mp_rinit(&r, rec, rec_len);
    if (rgpu_env_read_head_delta(&r, &d, why)) return NULL;
    if (r.p != rec + rec_len) {
        *why = "head_delta: bytes after its record";
        return NULL;
    }
    uint64_t n = d.length;
    if (n < RGPU_HEAD_DELTA_MIN || n > RGPU_HEAD_DELTA_MAX) {
        *why = "head_delta: a head of that length is not sent as a delta";
        return NULL;
    }
    int k = -1;
    for (int i = 0; i < SLOTS && k < 0; i++)
        if (h->lengths[i] == n) k = i;
    if (k < 0 || !h->base[k] || d.base.n != 16 || memcmp(h->base[k], d.base.p, 16) != 0) {
        *why = "head_delta: its base is not the head this worker kept for its length";
        return NULL;
    }
    uint64_t blocks = (n + BLOCK - 1) / BLOCK, bitmap = (blocks + 7) / 8, tail = n % BLOCK;
    if (dlen < bitmap) {
        *why = "head_delta: the differences are shorter than their bitmap";
        return NULL;
    }
    uint64_t set = 0;
    for (uint64_t b = 0; b < bitmap * 8; b++)
        if (delta[b / 8] >> (b % 8) & 1) {
            if (b >= blocks) {
                *why = "head_delta: the bitmap names blocks past the head's end";
                return NULL;
            }
            set++;
        }
    int short_last = tail && (delta[(blocks - 1) / 8] >> ((blocks - 1) % 8) & 1);
    if (dlen - bitmap != set * BLOCK - (short_last ? BLOCK - tail : 0)) {
        *why = "head_delta: its blocks are not the ones its bitmap names";
        return NULL;
    }
    unsigned char *base = h->base[k];
    const unsigned char *data = delta + bitmap;
    for (uint64_t b = 0; b < blocks; b++)
        if (delta[b / 8] >> (b % 8) & 1) {
            uint64_t m = b == blocks - 1 && tail ? tail : BLOCK;
            memcpy(base + b * BLOCK, data, m);
            data += m;
        }
    h->deltas++;
    h->bytes_saved += n - dlen - rec_len;
    slot_for(h, n); /* marked used only once made whole: a refused delta changes nothing */
    *len = n;
    return base;
}

/* What the table holds, for logs and tests: slot i's length (0: none), its base (NULL: none) and when
 * it was used last; and the counts. */
uint64_t rgpu_heads_slot(const rgpu_heads *h, int i, const unsigned char **base, uint64_t *used) {
    *base = h->base[i], *used = h->used[i];
    return h->lengths[i];
}

void rgpu_heads_counts(const rgpu_heads *h, uint64_t *deltas, uint64_t *bytes_saved) {
    *deltas = h->deltas, *bytes_saved = h->bytes_saved;
}
