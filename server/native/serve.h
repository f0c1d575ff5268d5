/* The worker's compiled serving loop (serve.c), shared by its two doors: the same-host call ring
 * (rgpu_serve, ring.c) and the session's ZeroMQ socket across hosts (rgpu_serve_socket, sock_serve.c).
 * The loop is one; what differs is where a message comes from and where its reply goes (rgpu_chan). */
#ifndef RGPU_SERVE_H
#define RGPU_SERVE_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "../backends/cuda/native/launcher.h"

typedef struct rgpu_sched rgpu_sched; /* sched.c */

enum {
    RGPU_SERVE_IDLE = 0,
    RGPU_SERVE_RING = 1,
    RGPU_SERVE_SOCKET = 2,
    RGPU_SERVE_YIELD = 3,
    RGPU_SERVE_ANSWERED = 4,
    RGPU_SERVE_STEP = 5,
    RGPU_SERVE_NOTIFY = 6,
    RGPU_SERVE_COPIED = 7,
    /* the socket only: a message the loop does not serve, its identity and first part held for Python
     * (rgpu_sock_take), its other parts still on the socket */
    RGPU_SERVE_HANDED = 8,
    RGPU_SERVE_BROKEN = -1,
};

#define MEM_LOG 64

typedef struct {
    /* in */
    double spin_s;        /* spin before blocking, after a message (0: block at once for the first) */
    double next_spin_s;   /* the spin after a message the loop served (the worker's --spin-us) */
    double timeout_s;     /* the longest wait for a message while nothing was served (HOUSEKEEPING_S) */
    double until;         /* CLOCK_MONOTONIC seconds: once something is served, yield to Python then */
    double accounted;     /* in and out: Session._accounted, the device time the scheduler was charged */
    uint64_t sock_received;
    /* The device printf capture's flag (server/backends/cuda/printf.py): set while its drain thread
     * holds output that the next reply must carry. NULL: the device captures no printf output. */
    const volatile int *printf_buffered;
    rgpu_sched *sched;    /* the GPU's scheduler for this slot, or NULL: the session has none */
    unsigned char *copy;  /* RGPU_RING_REQ_MAX bytes: the message taken, copied out of the ring */
    /* out */
    uint32_t len;         /* the message's bytes (RGPU_SERVE_RING, _ANSWERED, _STEP: in `copy`) */
    uint32_t served;      /* messages served and answered here */
    uint64_t calls;       /* calls in them (launches and waits) */
    uint64_t launches;    /* launches in them */
    uint64_t last_seq;    /* the last of them's seq, and face (1: runtime) */
    int runtime;
    int replied;          /* _ANSWERED, _STEP: whether the reply went out */
    int answered;         /* _STEP: whether the wait was answered (else the launcher stopped at wait.served) */
    uint32_t steps;       /* _STEP: the message's calls before its wait */
    rgpu_launch_run wait; /* _ANSWERED, _STEP, _COPIED: what the launcher found */
    /* in: the copies and memsets it serves (copies.c; NULL: none), and the session segment their data
     * moves through (its address, and where its data regions end: the ring's start) */
    rgpu_copier *copier;
    unsigned char *seg;
    uint64_t seg_size;
    /* out: of the messages served, the copies and memsets, and the segment bytes they moved in and out;
     * _COPIED: the last one's (its reply sent unless `replied` is 0: Python's, with printf output) */
    uint32_t copies;
    uint64_t shm_in, shm_out;
    rgpu_copy_done copied;
    /* in: the session's memory charge (quota.c), or NULL: allocations and frees are Python's */
    rgpu_quota *quota;
    /* out: the allocations it made (size > 0) and freed (size < 0), in order, for Python's tables
     * (device.py); the loop yields once MEM_LOG are waiting */
    uint32_t mem_n;
    uint64_t mem_addr[MEM_LOG];
    int64_t mem_size[MEM_LOG];
    /* out, _STEP answered: the step's last call was a copy (copy_step), whose reply names its data */
    int copy_step;
    /* out: the flags of the ring's record taken (ring.h: RGPU_RING_ASYNC, it wants no reply, async calls
     * only; RGPU_RING_FRAMES, data frames after its head); of the messages served, the batches of async
     * calls (async_run) */
    uint32_t req_flags;
    uint32_t batches;
    /* out: the bytes of late copies' data (OUT_LATER) sent ahead of steps' replies (the socket's) */
    uint64_t late_bytes;
    /* in: where a sync D2H copy whose data goes back in a frame is made (the socket's: a step's last
     * call, or a message's only one; NULL: none, such messages Python's), and its room */
    unsigned char *frame;
    uint64_t frame_cap;
    /* out, _STEP answered: its last call was such a copy, of frame_len bytes in `frame`, its reply
     * Python's unless `replied`; and of the messages served, the bytes such copies sent */
    int frame_step;
    uint64_t frame_len, frame_out;
    /* out: of the steps served, the managed pulls answered after their waits (rgpuManagedPull, the
     * socket's) and the bytes of data they sent; _STEP answered: the pulls whose replies are Python's
     * (the wait's reply was, it carries printf output), still in the copier */
    uint32_t pulls, pulls_due;
    uint64_t pull_bytes, pull_seq; /* (pull_seq: the last one's) */
    /* out, from `next`: the message taken has data frames after its head (the socket's, still at the
     * door; the ring's, in its record after the head) */
    int parts;
    /* out: of the messages served, those that were a piece of a large H2D copy alone (PIECE_IN, a
     * message and a frame each: server/pieces.py); and of the messages the loop ran calls of, the
     * pieces and the bytes their copies took from data frames (the socket's), as Python counts them */
    uint32_t piece_msgs, frame_pieces;
    uint64_t frame_bytes_in;
    /* out: of the messages served, the pieces of large D2H copies sent before their replies (PIECE_OUT,
     * serve.c d2h_out); and for the message handed over, the bytes of its D2H copy already sent in
     * pieces (0: none), which Python sends the rest of from there (server/pieces.py run_d2h_pieces) */
    uint32_t out_pieces;
    uint64_t out_sent;
    /* out, from the ring's `next`: the bytes of the record taken (`len` is its head's; its frames
     * follow, rgpu_ring_frames reads them) */
    uint32_t rec_len;
} rgpu_serve_state;

typedef struct rgpu_chan rgpu_chan;
struct rgpu_chan {
    /* The next message, copied into st->copy (st->len; st->req_flags: the ring record's): 1. 0: none
     * within timeout_s, after spinning spin_s. Another RGPU_SERVE_ code: returned as it is; < 0: broken. */
    int (*next)(rgpu_chan *c, rgpu_serve_state *st, double spin_s, double timeout_s);
    /* A reply to the message taken: 0 sent, else not (Python's, which then says why). */
    int (*reply)(rgpu_chan *c, const char *msg, size_t len);
    /* messages carry no flag for "no reply wanted" (the socket's): a message of async calls only is
     * known by its shape, and served as the ring's flagged batches are */
    int async_by_shape;
    /* Before each pass over a message (its shape, its run; NULL: none): the copier made ready as
     * Python's Launcher._rewind makes it (the socket's: the buffer late copies are made into). */
    void (*rewind)(rgpu_chan *c, rgpu_serve_state *st);
    /* A step answered, before its reply (NULL: nothing): what goes ahead of it (the socket's: the
     * late copies' data, each a message of its own, as loop_steps.py _step_of sends them). 0, or not sent. */
    int (*before_reply)(rgpu_chan *c, rgpu_serve_state *st);
    /* A step's reply sent: what follows it (NULL: nothing; the socket's: the managed pulls' replies,
     * as loop_steps.py _step_of sends them). 0, or not all sent. */
    int (*after_reply)(rgpu_chan *c, rgpu_serve_state *st);
    /* A reply and one data frame after it (NULL: the door sends none; the socket's). 0 sent. */
    int (*reply_frame)(rgpu_chan *c, const char *msg, size_t len, const void *data, size_t dlen);
    /* The message's data frames (st->parts), taken from the door, at most `max`, the door's until the
     * next message and given to the copier at each rewind: 0 when they were all; else parts are left
     * (the message Python's, with those taken held for it). NULL: the door takes no frames. */
    int (*take_frames)(rgpu_chan *c, uint32_t max);
    /* The i-th frame taken: its bytes in *n. */
    const void *(*frame)(rgpu_chan *c, uint32_t i, uint64_t *n);
    /* A frame of `n` bytes to send after a reply (NULL: the door sends none; the socket's): its data to
     * write, the door's until send_out sends it or out_drop lets it go (NULL: no memory). */
    void *(*out_buf)(rgpu_chan *c, uint64_t n);
    /* A reply (`msg`) and the frame out_buf gave after it: 0 sent, else not (the frame let go). */
    int (*send_out)(rgpu_chan *c, const char *msg, size_t len);
    void (*out_drop)(rgpu_chan *c);
};

int rgpu_serve_on(rgpu_chan *ch, rgpu_launcher *l, rgpu_serve_state *st);

/* CLOCK_MONOTONIC seconds: the loop's deadlines (`until`, time.monotonic's clock) and its spins. */
static inline double rgpu_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#endif
