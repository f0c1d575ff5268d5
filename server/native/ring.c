/* The worker's end of the same-host call ring (layout and protocol: libhook/src/transport/ring.h;
 * server/ring.py drives it). Compiled so that the wait releases the GIL and blocks on the futex in the
 * shared segment: an idle session costs no CPU, and a busy one no Python per spin.
 *
 * Nothing the client writes is trusted: a record's header is read once and checked against the ring
 * and against what the client says it wrote before anything is copied, the worker keeps its own count
 * of what it took, and a record the worker cannot take is reported, not followed (the worker ends that
 * session; server/worker.py). */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ring.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void rgpu_ring_serve(void *ring) {
    rgpu_ring_head *h = ring;
    memset(h, 0, sizeof *h);
    __atomic_store_n(&h->magic, RGPU_RING_MAGIC, __ATOMIC_RELEASE);
}

/* The header's field offsets, for tests that write the client's part as a broken client would:
 * magic, doorbell, sock_sent, req_tail, req_head, rep_seq, rep_len, the request area, the ring's size,
 * the request area's size, and the longest message a record holds. */
void rgpu_ring_layout(uint64_t out[11]) {
    out[0] = offsetof(rgpu_ring_head, magic), out[1] = offsetof(rgpu_ring_head, doorbell);
    out[2] = offsetof(rgpu_ring_head, sock_sent), out[3] = offsetof(rgpu_ring_head, req_tail);
    out[4] = offsetof(rgpu_ring_head, req_head), out[5] = offsetof(rgpu_ring_head, rep_seq);
    out[6] = offsetof(rgpu_ring_head, rep_len), out[7] = RGPU_RING_HEAD, out[8] = RGPU_RING_BYTES;
    out[9] = RGPU_RING_REQ_CAP, out[10] = RGPU_RING_REQ_MAX;
}

/* A record's frame table (ring.h RGPU_RING_FRAMES) in `len` bytes at `rec`, read as rgpu_ring_frames
 * (below) tells, each field read once into the worker's memory before it is checked. With `copy`, the
 * head, each frame's length and the table are also copied to their places in `copy` (the frames' bytes
 * are not): a record taken in place, whose bytes the client may write over meanwhile, leaves in the
 * worker's copy a table that reads the same. `off` and `n` may be NULL (not wanted). */
static int walk_frames(const unsigned char *rec, uint32_t len, uint32_t max, unsigned char *copy, uint32_t *head_len,
                       uint64_t *off, uint64_t *n) {
    rgpu_ring_frames_tail t;
    if (len < sizeof t) return -1;
    uint64_t end = len - sizeof t;
    memcpy(&t, rec + end, sizeof t);
    if (t.nframes > max || t.head_len > end) return -1;
    if (copy) memcpy(copy + end, &t, sizeof t), memcpy(copy, rec, t.head_len);
    uint64_t at = RGPU_RING_PAD8(t.head_len);
    for (uint32_t i = 0; i < t.nframes; i++) {
        uint64_t k;
        if (at > end || end - at < 8) return -1;
        memcpy(&k, rec + at, 8);
        if (copy) memcpy(copy + at, &k, 8);
        at += 8;
        if (k > end - at || RGPU_RING_PAD8(k) > end - at) return -1;
        if (off) off[i] = at, n[i] = k;
        at += RGPU_RING_PAD8(k);
    }
    if (at != end) return -1;
    *head_len = t.head_len;
    return (int)t.nframes;
}

/* A record with data frames taken in place (rgpu_ring_next_in_place): its head and frame table are in
 * the worker's copy, its frames' bytes still in the area, which the client may not write over until
 * rgpu_ring_done hands it back. A same-host DataLoader batch goes in pieces of 240 KiB, each a record
 * copied by the client into the area, then out of it here, then to the device: the copy here was a
 * third pass over every byte. The bytes are data the worker only copies on (to the device, before the
 * call returns: cuda/native/copies.c frame_h2d_one), so a client scribbling over them changes only what
 * its own copy writes; the head and the frame table, which the worker reads and trusts, are its own
 * copy as before. One at a time: a worker serves one session, and it is done with a record before it
 * takes the next. */
static struct held {
    rgpu_ring_head *h;
    uint64_t head;            /* req_head once it is handed back */
    const unsigned char *msg; /* its message in the area */
    unsigned char *out;       /* the worker's copy of it */
    uint32_t len;
} held;
static uint64_t in_place_n, settled_n; /* records taken in place; of them, copied whole for Python after all */

/* The counts above (the worker's session_ended: ring_in_place, ring_in_place_settled). */
void rgpu_ring_in_place_counts(uint64_t out[2]) { out[0] = in_place_n, out[1] = settled_n; }

/* The record taken in place handed back to the client (none: nothing to do). */
void rgpu_ring_done(void) {
    if (!held.h) return;
    __atomic_store_n(&held.h->req_head, held.head, __ATOMIC_RELEASE);
    held.h = NULL;
}

/* The record taken in place, its frames' bytes copied into the worker's copy where a whole copy has
 * them (the head and table there are not read again), then handed back: Python reads the worker's copy,
 * as of every record. */
void rgpu_ring_settle(void) {
    if (!held.h) return;
    uint64_t off[RGPU_RING_FRAMES_MAX], n[RGPU_RING_FRAMES_MAX];
    uint32_t head_len;
    int k = walk_frames(held.out, held.len, RGPU_RING_FRAMES_MAX, NULL, &head_len, off, n);
    for (int i = 0; i < k; i++) memcpy(held.out + off[i], held.msg + off[i], n[i]);
    settled_n++;
    rgpu_ring_done();
}

/* What comes next, in the order the client sent it: the record at *head once the socket messages sent
 * before it are taken (2 until then), copied into `out` (RGPU_RING_REQ_MAX bytes), *head moved past it
 * and told to the client (1: *len bytes, *flags its RGPU_RING_ASYNC and RGPU_RING_FRAMES); else a
 * socket message (2) or nothing (0). *head is the worker's own count: what the client writes is read
 * once, checked, and never followed past the area. A record that cannot be (a length past the area or past what the client
 * wrote, a tail more than the area ahead or behind, a record naming socket messages never sent) is -1,
 * *len its length, or RGPU_RING_ON_SOCKET where the length is not what is wrong. With in_place, a
 * record with data frames whose table can be is held instead (above): only its head and table copied,
 * and *head not told to the client yet. */
static int check(rgpu_ring_head *h, uint64_t sock_received, uint64_t *head, uint32_t *len, uint32_t *flags,
                 unsigned char *out, int in_place) {
    uint64_t tail = __atomic_load_n(&h->req_tail, __ATOMIC_ACQUIRE);
    uint64_t sent = __atomic_load_n(&h->sock_sent, __ATOMIC_ACQUIRE);
    uint64_t at = *head;
    if (tail == at) return sent > sock_received ? 2 : 0;
    *len = RGPU_RING_ON_SOCKET;
    if (tail - at > RGPU_RING_REQ_CAP || tail < at) return -1;
    uint8_t *area = RGPU_RING_REQ(h);
    uint64_t pos = at % RGPU_RING_REQ_CAP;
    rgpu_ring_record r;
    memcpy(&r, area + pos, sizeof r.len);
    if (r.len == RGPU_RING_WRAP) { /* the rest of the area skipped: the record is at its beginning */
        if (tail - at < RGPU_RING_REQ_CAP - pos + sizeof r) return -1;
        at += RGPU_RING_REQ_CAP - pos, pos = 0;
    }
    if (RGPU_RING_REQ_CAP - pos < sizeof r || tail - at < sizeof r) return -1;
    memcpy(&r, area + pos, sizeof r);
    if (r.len > RGPU_RING_REQ_MAX || pos + RGPU_RING_RECORD_BYTES(r.len) > RGPU_RING_REQ_CAP ||
        tail - at < RGPU_RING_RECORD_BYTES(r.len)) {
        *len = r.len;
        return -1;
    }
    if (r.sock_before > sent) return -1;
    if (r.sock_before > sock_received) {
        *head = at; /* past a wrap marker: the record is where it is */
        return 2;
    }
    const unsigned char *msg = area + pos + sizeof r;
    *len = r.len;
    *flags = r.flags & (RGPU_RING_ASYNC | RGPU_RING_FRAMES);
    *head = at + RGPU_RING_RECORD_BYTES(r.len);
    uint32_t head_len;
    if (in_place && (*flags & RGPU_RING_FRAMES) &&
        walk_frames(msg, r.len, RGPU_RING_FRAMES_MAX, out, &head_len, NULL, NULL) >= 0) {
        held = (struct held){h, *head, msg, out, r.len}; /* the area not the client's until rgpu_ring_done */
        in_place_n++;
        return 1;
    }
    memcpy(out, msg, r.len);
    __atomic_store_n(&h->req_head, *head, __ATOMIC_RELEASE); /* copied out: the client may write there */
    return 1;
}

/* How long to spin after a message: the caller's spin_s (rgpu-server --spin-us), or longer where this
 * session's client has lately come back later than that but within SPIN_GROWTH times it. A PyTorch
 * step's host work between two synchronisations is often 200 µs to 1 ms: with a fixed 200 µs the worker
 * blocked before most steps' messages and each one paid the client's futex wake and the worker's
 * wake-up (on a 2-core VM, a decode step's worker blocked before 85% of its messages). A program whose
 * messages come further apart than the longest spin gets the caller's spin_s, not a longer one for
 * nothing; an idle session (spin_s 0) never spins. `gap_s` is the session's recent gap (gap_after). */
#define SPIN_GROWTH 8

double rgpu_ring_spin_for(double spin_s, double gap_s) {
    double most = spin_s * SPIN_GROWTH, want = 2 * gap_s; /* twice the recent gap: one twice as long is caught */
    if (spin_s <= 0) return 0;
    if (gap_s > most) return spin_s;
    return want < spin_s ? spin_s : want > most ? most : want;
}

/* The recent gap with one more gap seen (an average of the last eight or so). A gap is clipped at twice
 * the longest spin, so that one long pause (the program's own work, a checkpoint) moves the average
 * past what spinning can catch only when such pauses are the rule. */
double rgpu_ring_gap_after(double gap_s, double seen_s, double spin_s) {
    double clip = 2 * spin_s * SPIN_GROWTH;
    if (seen_s > clip) seen_s = clip;
    return gap_s <= 0 ? seen_s : gap_s + (seen_s - gap_s) / 8;
}

/* The recent gap of the ring this worker waits on (a worker serves one session; another ring starts
 * afresh). The worker's own memory: nothing of it is in the segment, which the client can write. */
static const void *gap_ring;
static double gap_recent;

double rgpu_ring_gap_recent(void) { return gap_recent; }

/* Waits for the client's next message: spins (yielding) for spin_s, or longer where the client's recent
 * gaps ask for it (rgpu_ring_spin_for), then blocks on the doorbell for up to timeout_s. 1: a request
 * was taken, *len bytes copied into `out` (*head past it; *flags: the record's, check); 2: a message of
 * the client's is due on the socket first; 0: nothing in time; -1: a record that cannot be (check). */
static uint64_t spin_hits;  /* messages found without blocking: the worker's session_ended counts them */

uint64_t rgpu_ring_spin_hits(void) { return spin_hits; }

static int wait_next(rgpu_ring_head *h, uint64_t sock_received, uint64_t *head, double spin_s, double timeout_s,
                     uint32_t *len, uint32_t *flags, unsigned char *out, int in_place) {
    uint32_t seen = __atomic_load_n(&h->doorbell, __ATOMIC_ACQUIRE);
    int r = check(h, sock_received, head, len, flags, out, in_place);
    if (r) {
        spin_hits += r > 0 && spin_s > 0; /* as the socket's: only a worker that polls counts them */
        return r;
    }
    double start = now_s(), until = start + spin_s, deadline = start + timeout_s;
    for (unsigned i = 1; spin_s > 0; i++) {
        uint32_t d = __atomic_load_n(&h->doorbell, __ATOMIC_ACQUIRE);
        if (d != seen) {
            seen = d;
            if ((r = check(h, sock_received, head, len, flags, out, in_place))) {
                spin_hits += r > 0;
                return r;
            }
        }
        if (!(i & 31) && now_s() >= until) break;
        sched_yield();
    }
    for (;;) {
        __atomic_store_n(&h->worker_sleeping, 1, __ATOMIC_SEQ_CST);
        uint32_t d = __atomic_load_n(&h->doorbell, __ATOMIC_SEQ_CST);
        if (d == seen) {
            double left = deadline - now_s();
            if (left <= 0) {
                __atomic_store_n(&h->worker_sleeping, 0, __ATOMIC_RELAXED);
                return 0;
            }
            long ns = (long)(left * 1e9) + 1;
            struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
            syscall(SYS_futex, &h->doorbell, FUTEX_WAIT, seen, &ts, NULL, 0);
            d = __atomic_load_n(&h->doorbell, __ATOMIC_ACQUIRE);
        }
        __atomic_store_n(&h->worker_sleeping, 0, __ATOMIC_RELAXED);
        if (d != seen) {
            seen = d;
            if ((r = check(h, sock_received, head, len, flags, out, in_place))) return r;
        }
    }
}

static int next(void *ring, uint64_t sock_received, uint64_t *head, double spin_s, double timeout_s, uint32_t *len,
                uint32_t *flags, unsigned char *out, int in_place) {
    rgpu_ring_done(); /* the worker is done with the record before: the client may write there (before any wait) */
    if (ring != gap_ring) gap_ring = ring, gap_recent = 0;
    if (spin_s <= 0) /* after a wait that timed out or a start: no gap to learn from */
        return wait_next(ring, sock_received, head, 0, timeout_s, len, flags, out, in_place);
    double start = now_s();
    int r = wait_next(ring, sock_received, head, rgpu_ring_spin_for(spin_s, gap_recent), timeout_s, len, flags, out,
                      in_place);
    /* nothing within the timeout: a gap at least that long */
    gap_recent = rgpu_ring_gap_after(gap_recent, r ? now_s() - start : timeout_s, spin_s);
    return r;
}

int rgpu_ring_next(void *ring, uint64_t sock_received, uint64_t *head, double spin_s, double timeout_s,
                   uint32_t *len, uint32_t *flags, unsigned char *out) {
    return next(ring, sock_received, head, spin_s, timeout_s, len, flags, out, 0);
}

/* As rgpu_ring_next, but a record with data frames leaves their bytes in the area (held, above): read
 * them there at rgpu_ring_frames' offsets from rgpu_ring_held (NULL: the record is wholly in `out`),
 * until the next call, rgpu_ring_done or rgpu_ring_settle. The compiled loop's (serve.c), which
 * settles before Python sees `out`. */
int rgpu_ring_next_in_place(void *ring, uint64_t sock_received, uint64_t *head, double spin_s, double timeout_s,
                            uint32_t *len, uint32_t *flags, unsigned char *out) {
    return next(ring, sock_received, head, spin_s, timeout_s, len, flags, out, 1);
}

const unsigned char *rgpu_ring_held(void) { return held.h ? held.msg : NULL; }

/* The data frames of a record taken with RGPU_RING_FRAMES (ring.h), in the worker's copy `rec` of `len`
 * bytes: their number, at most `max`, each frame's place in `rec` (off) and bytes (n), and the head's
 * length (*head_len; the head is at the start). -1: a table that cannot be (a length past the record,
 * more frames than `max`, bytes left over), which the client wrote over the ring. Nothing is read
 * outside the `len` bytes. */
int rgpu_ring_frames(const unsigned char *rec, uint32_t len, uint32_t max, uint32_t *head_len, uint64_t *off,
                     uint64_t *n) {
    return walk_frames(rec, len, max, NULL, head_len, off, n);
}

static void post(rgpu_ring_head *h, uint32_t len) {
    __atomic_store_n(&h->rep_len, len, __ATOMIC_RELAXED);
    __atomic_add_fetch(&h->rep_seq, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&h->client_sleeping, __ATOMIC_SEQ_CST))
        syscall(SYS_futex, &h->rep_seq, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* The reply to the request taken: 0, or -1 when it does not fit the slot (send it on the socket and
 * say so with rgpu_ring_reply_on_socket). */
int rgpu_ring_reply(void *ring, const char *msg, size_t len) {
    if (len > RGPU_RING_REP_CAP) return -1;
    memcpy(RGPU_RING_REP(ring), msg, len);
    post(ring, (uint32_t)len);
    return 0;
}

void rgpu_ring_reply_on_socket(void *ring) { post(ring, RGPU_RING_ON_SOCKET); }
