/* The client's end of the same-host call ring (ring.h has the layout and the protocol): a sync
 * message, its data frames with it, goes into the request ring instead of the socket, and its reply
 * comes back in the reply slot; so does a message of async calls only, when there is room, without a
 * reply. Everything else, and everything across hosts, stays on ZeroMQ. RGPU_RING=0 (or RGPU_SHM=0,
 * which has no segment) keeps every message on the socket. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "ring.h"
#include "rgpu_call.h"
#include "session.h"
#include "session_parts.h"

/* How long a blocked client sleeps on the futex before it looks at the socket and the connection:
 * a worker that died mid-call is noticed within this (and the connection's own disconnect event). */
#define SLICE_MS 20

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#else
#define cpu_relax() ((void)0)
#endif

/* How long an async record with data frames waits for room before it takes the socket: a 240 KiB
 * piece takes the worker tens of microseconds (its copy out of the ring and to the device) */
#define RING_ROOM_WAIT_S 0.002

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int rgpu_ring_wanted(void) {
    const char *e = getenv("RGPU_RING");
    return !(e && !strcmp(e, "0"));
}

void rgpu_ring_attached(rgpu_session *s) {
    rgpu_ring_head *h = s->ring;
    s->ring_on = h && __atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) == RGPU_RING_MAGIC;
    if (s->ring_on) {
        s->ring_rep_seen = s->ring_want = __atomic_load_n(&h->rep_seq, __ATOMIC_ACQUIRE);
        rgpu_log(RGPU_LOG_INFO, "calls to %s travel through the call ring in shared memory", s->url);
    }
}

static void ring_doorbell(rgpu_ring_head *h) {
    __atomic_add_fetch(&h->doorbell, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&h->worker_sleeping, __ATOMIC_SEQ_CST))
        syscall(SYS_futex, &h->doorbell, FUTEX_WAKE, 1, NULL, NULL, 0);
}

void rgpu_ring_sent_on_socket(rgpu_session *s) {
    if (!s->ring_on) return;
    rgpu_ring_head *h = s->ring;
    __atomic_store_n(&h->sock_sent, h->sock_sent + 1, __ATOMIC_RELEASE);
    ring_doorbell(h);
}

/* Whether a record of `size` bytes, with `skip` bytes of the area's end passed over before it, finds
 * no room behind the worker's `head` */
static int no_room(uint64_t tail, uint64_t head, uint64_t skip, uint64_t size) {
    return tail - head + skip + size > RGPU_RING_REQ_CAP;
}

/* Appends a message to the request ring, with its `nparts` data frames after its head (ring.h,
 * RGPU_RING_FRAMES): 0, or -1 when it must go on the socket (no ring, larger than a record holds, more
 * frames than one takes, or not room enough left while the worker takes the records before it: the
 * client does not wait for a busy worker, as a socket send does not, but for a while where the record
 * is async data for the device). `async`: it wants no reply. */
int rgpu_ring_send(rgpu_session *s, const void *msg, size_t len, int async, const rgpu_ring_part *parts,
                   size_t nparts) {
    if (!s->ring_on || len > RGPU_RING_REQ_MAX || nparts > RGPU_RING_FRAMES_MAX) return -1;
    uint64_t body = len;
    if (nparts) {
        body = RGPU_RING_PAD8(len) + sizeof(rgpu_ring_frames_tail);
        for (size_t i = 0; i < nparts && body <= RGPU_RING_REQ_MAX; i++) body += 8 + RGPU_RING_PAD8(parts[i].n);
        if (body > RGPU_RING_REQ_MAX) return -1;
    }
    rgpu_ring_head *h = s->ring;
    uint64_t tail = h->req_tail, head = __atomic_load_n(&h->req_head, __ATOMIC_ACQUIRE);
    uint64_t size = RGPU_RING_RECORD_BYTES(body), at = tail % RGPU_RING_REQ_CAP;
    uint64_t skip = at + size > RGPU_RING_REQ_CAP ? RGPU_RING_REQ_CAP - at : 0; /* to the beginning */
    if (tail - head > RGPU_RING_REQ_CAP) return -1;
    if (no_room(tail, head, skip, size) && async && nparts) {
        /* Data for the device, no reply wanted (a large copy's pieces, one after another): the worker
         * frees room as it takes records, and on the socket each would cost it a ZeroMQ receive
         * more. Wait for it a while, yielding (a two-core host's worker may need this CPU), then go
         * on the socket as a busy worker's records do. */
        double until = now_s() + RING_ROOM_WAIT_S;
        for (unsigned i = 1; no_room(tail, head, skip, size); i++) {
            if (!(i & 15) && now_s() >= until) break;
            sched_yield();
            head = __atomic_load_n(&h->req_head, __ATOMIC_ACQUIRE);
        }
    }
    if (no_room(tail, head, skip, size)) return -1;
    uint8_t *area = RGPU_RING_REQ(h);
    if (skip) ((rgpu_ring_record *)(area + at))->len = RGPU_RING_WRAP, at = 0;
    rgpu_ring_record *r = (rgpu_ring_record *)(area + at);
    r->len = (uint32_t)body;
    r->flags = (async ? RGPU_RING_ASYNC : 0) | (nparts ? RGPU_RING_FRAMES : 0);
    r->sock_before = h->sock_sent;
    uint8_t *p = (uint8_t *)(r + 1);
    memcpy(p, msg, len);
    if (nparts) {
        uint64_t o = RGPU_RING_PAD8(len);
        for (size_t i = 0; i < nparts; i++) {
            uint64_t n = parts[i].n;
            memcpy(p + o, &n, 8);
            if (n) memcpy(p + o + 8, parts[i].p, n);
            o += 8 + RGPU_RING_PAD8(n);
        }
        rgpu_ring_frames_tail t = {(uint32_t)len, (uint32_t)nparts};
        memcpy(p + o, &t, sizeof t);
    }
    __atomic_store_n(&h->req_tail, tail + skip + size, __ATOMIC_RELEASE);
    if (!async) s->ring_want++;
    ring_doorbell(h);
    return 0;
}

/* 1: a reply is in the slot (copied into `out`, initialised here); 2: the worker said this call's
 * reply is on the socket; 0: the socket has a message; -1: the deadline passed; -2: the connection
 * dropped. */
static int take_reply(rgpu_session *s, rgpu_ring_head *h, uint32_t seq, zmq_msg_t *out) {
    s->ring_rep_seen = seq;
    uint32_t len = __atomic_load_n(&h->rep_len, __ATOMIC_ACQUIRE);
    if (len == RGPU_RING_ON_SOCKET) return 2;
    if (len > RGPU_RING_REP_CAP) len = 0; /* never from a worker: an empty reply reads as malformed */
    zmq_msg_init_size(out, len);
    memcpy(zmq_msg_data(out), RGPU_RING_REP(h), len);
    return 1;
}

static int socket_or_gone(rgpu_session *s) {
    zmq_pollitem_t items[2] = {{s->sock, 0, ZMQ_POLLIN, 0}, {s->mon, 0, ZMQ_POLLIN, 0}};
    if (zmq_poll(items, s->mon ? 2 : 1, 0) <= 0) return 1;
    if (items[0].revents & ZMQ_POLLIN) return 0;
    if (s->mon && (items[1].revents & ZMQ_POLLIN) && rgpu_session_event(s) == -2) return -2;
    return 1;
}

int rgpu_ring_wait(rgpu_session *s, double deadline, double spin_s, int yield, zmq_msg_t *out) {
    rgpu_ring_head *h = s->ring;
    /* The worker bumps rep_seq once per sync request taken from the ring: with the reply, or with the
     * marker that says it went on the socket. So the reply to the request in flight is the bump that
     * makes rep_seq equal ring_want (the client's own count of them), not merely a change: a marker
     * this loop did not take (its reply read from the socket first, when the spin below looked there)
     * must not be taken for the next request's, which would then wait on the socket for a reply in the
     * ring. */
    uint32_t want = s->ring_want, v;
    /* spin: the reply usually comes within a round trip; the socket is looked at now and then (a
     * zmq_poll is system calls), for a notice the worker sent there */
    if (spin_s > 0) {
        double until = now_s() + spin_s;
        if (until > deadline) until = deadline;
        for (unsigned i = 1;; i++) {
            if ((v = __atomic_load_n(&h->rep_seq, __ATOMIC_ACQUIRE)) == want) return take_reply(s, h, v, out);
            if (!(i & 31) && now_s() >= until) break;
            if (!(i & 255) && zmq_poll(&(zmq_pollitem_t){s->sock, 0, ZMQ_POLLIN, 0}, 1, 0) > 0) return 0;
            if (yield) sched_yield();
            else cpu_relax();
        }
    }
    rgpu_watch watch;
    rgpu_watch_begin(&watch, rgpu_now_s());
    if (s->worker_silent) return -2;
    for (;;) {
        __atomic_store_n(&h->client_sleeping, 1, __ATOMIC_SEQ_CST);
        v = __atomic_load_n(&h->rep_seq, __ATOMIC_SEQ_CST);
        if (v != want) {
            double left = deadline - now_s();
            if (left <= 0) {
                __atomic_store_n(&h->client_sleeping, 0, __ATOMIC_RELAXED);
                return -1;
            }
            long ns = left < SLICE_MS * 1e-3 ? (long)(left * 1e9) + 1 : SLICE_MS * 1000000L;
            struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
            syscall(SYS_futex, &h->rep_seq, FUTEX_WAIT, v, &ts, NULL, 0);
            v = __atomic_load_n(&h->rep_seq, __ATOMIC_ACQUIRE);
        }
        __atomic_store_n(&h->client_sleeping, 0, __ATOMIC_RELAXED);
        if (v == want) return take_reply(s, h, v, out);
        int w = socket_or_gone(s);
        if (w != 1) return w;
        if (rgpu_worker_silent(s, &watch)) return -2;
    }
}
