/* Buffers for the frames an async call's data is copied into when it is queued (session.c
 * rgpu_queue_async: the program may reuse its buffer at once). From malloc, a frame of 128 KiB or more
 * is past its mmap threshold, and smaller ones that add up go back to the system too (glibc trims
 * its heap's top once a step has freed them): either way the copy faulted in fresh pages every step.
 * A step copying a 1.5 MiB DataLoader batch from pageable memory, in ring pieces, took 1,433 µs a step
 * on a two-core VM (pieces of 112 KiB: 1,038 µs); 246 µs with malloc told to keep its memory (which a
 * library must not tell it: the program's allocations too); 256 µs from here. So frames of POOL_MIN
 * and more come from buffers kept once freed, up to POOL_BYTES, handed out again to a frame they fit
 * without wasting more than half. ZeroMQ frees a frame sent on the socket on its I/O thread, hence the
 * lock; a forked child (PyTorch's DataLoader) starts with an empty pool and a fresh lock. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "rgpu_wire.h" /* RGPU_RING_PIECE */
#include "session_parts.h"

#define POOL_MIN (32u << 10)   /* below this, the heap's pages are shared by many frames */
#define POOL_BYTES (32u << 20) /* the most kept while unused: a few steps' batches */
/* As many as POOL_BYTES of the call ring's pieces (RGPU_RING_PIECE, 136 of them) and some: a step's
 * 32 MiB pageable copy goes in 137 pieces whose frames the session keeps until its synchronize
 * (replay.c), so they all come back at once. With 64 slots, 73 of them were fresh pages every step:
 * 7.1-14.6 ms a step (median 10.8) against 6.2-11.3 (median 7.0) with 160, twelve runs each on the
 * null driver; 8 MiB unchanged. */
#define POOL_SLOTS (POOL_BYTES / RGPU_RING_PIECE + 24)
#define HEAD 64u                /* before each buffer: its capacity (and the data 64-byte aligned) */

static struct {
    pthread_mutex_t mu;
    void *free[POOL_SLOTS];     /* kept buffers (their heads) */
    int n;
    size_t bytes;
} pool = {PTHREAD_MUTEX_INITIALIZER};

static size_t cap_of(void *head) {
    size_t c;
    memcpy(&c, head, sizeof c);
    return c;
}

static void give_back(void *data, void *hint) {
    (void)hint;
    void *head = (uint8_t *)data - HEAD;
    size_t cap = cap_of(head);
    pthread_mutex_lock(&pool.mu);
    if (pool.n < POOL_SLOTS && pool.bytes + cap <= POOL_BYTES) {
        pool.free[pool.n++] = head;
        pool.bytes += cap;
        head = NULL;
    }
    pthread_mutex_unlock(&pool.mu);
    free(head);
}

/* A kept buffer of at least n bytes and at most 2n, the smallest; NULL when none is. */
static void *take(size_t n) {
    pthread_mutex_lock(&pool.mu);
    int best = -1;
    for (int i = 0; i < pool.n; i++) {
        size_t c = cap_of(pool.free[i]);
        if (c >= n && c / 2 <= n && (best < 0 || c < cap_of(pool.free[best]))) best = i;
    }
    void *head = NULL;
    if (best >= 0) {
        head = pool.free[best];
        pool.free[best] = pool.free[--pool.n];
        pool.bytes -= cap_of(head);
    }
    pthread_mutex_unlock(&pool.mu);
    return head;
}

/* m: a frame of n bytes, its data to be written by the caller: 0, or -1 out of memory. */
int rgpu_frame_init(zmq_msg_t *m, size_t n) {
    if (n < POOL_MIN) return zmq_msg_init_size(m, n);
    void *head = take(n);
    if (!head) {
        size_t cap = (n + 4095u) & ~(size_t)4095u;
        if (posix_memalign(&head, HEAD, HEAD + cap) != 0) return -1;
        memcpy(head, &cap, sizeof cap);
    }
    return zmq_msg_init_data(m, (uint8_t *)head + HEAD, n, give_back, NULL);
}

static void forked_child(void) {
    pool.mu = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    pool.n = 0;
    pool.bytes = 0;
}

__attribute__((constructor)) static void at_fork(void) { pthread_atfork(NULL, NULL, forked_child); }
