/* The compiled serving loop's door on the session's ZeroMQ socket (serve.c serves; server/sock_loop.py
 * drives it; server/worker.py decides when it may run): the way a client on another host reaches the
 * worker, where every message went through Python before.
 *
 * The loop takes the worker's ROUTER socket, the one pyzmq made, through the libzmq that pyzmq loaded
 * (rgpu_sock_init: the same library, opened by its path, never a second copy of it), while the worker
 * thread waits in this call without the GIL: Python touches the socket only once the call is back.
 * It serves a message whole only when nothing of Python's could apply to it:
 *   - from the session's client (its identity): a message of one part, or one whose data frames the
 *     loop serves (serve.c with_frames: a large H2D copy's piece, a step's or batch's async H2D
 *     copies), none of them a sealed record of the session's bulk channel (server/bulk.py);
 *   - a head shorter than RGPU_HEAD_DELTA_MIN and not empty: neither a delta nor a head the session's
 *     HeadTable keeps as a base (server/head_delta.py), whose slots must see every such head in order.
 * Anything else is handed to Python (RGPU_SERVE_HANDED) with its identity and first part held here;
 * Python copies them out (rgpu_sock_take) and receives the message's other parts itself, as frames,
 * in order: ZeroMQ gives a message's parts together. A reply is the identity, then the envelope's
 * common reply, as Python sends it. */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

#include "mpack.h"
#include "rgpu_envelope.h"

typedef struct rgpu_heads rgpu_heads; /* heads.c */
void rgpu_heads_keep(rgpu_heads *h, const unsigned char *head, uint64_t len);
const unsigned char *rgpu_heads_apply(rgpu_heads *h, const unsigned char *rec, size_t rec_len,
                                      const unsigned char *delta, size_t dlen, uint64_t *len, const char **why);
#include "rgpu_wire.h"
#include "serve.h"

/* The most data frames the door takes of a message (serve.c DOOR_FRAMES): a frame for each async call
 * of the fullest batch a client on another host sends (libhook session.c BATCH_MAX_CALLS), so that a
 * step whose batch holds many tensors is the door's too. */
#define SOCK_FRAMES 256

/* libzmq's calls, from the copy pyzmq loaded */
static struct {
    int (*msg_init)(zmq_msg_t *);
    int (*msg_init_size)(zmq_msg_t *, size_t);
    int (*msg_send)(zmq_msg_t *, void *, int);
    int (*msg_recv)(zmq_msg_t *, void *, int);
    int (*msg_close)(zmq_msg_t *);
    void *(*msg_data)(zmq_msg_t *);
    size_t (*msg_size)(const zmq_msg_t *);
    int (*msg_more)(const zmq_msg_t *);
    const char *(*msg_gets)(const zmq_msg_t *, const char *);
    int (*send)(void *, const void *, size_t, int);
    int (*getsockopt)(void *, int, void *, size_t *);
    int (*poll)(zmq_pollitem_t *, int, long);
    void (*version)(int *, int *, int *);
} Z;
static int z_ready;

/* The libzmq at `path`, which this process has loaded already (RTLD_NOLOAD: never a second copy, whose
 * sockets would not be pyzmq's), and of this version. 0, or why not: -1 not loaded, -2 a call missing,
 * -3 another version. */
int rgpu_sock_init(const char *path, int major, int minor, int patch) {
    if (z_ready) return 0;
    void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (!h) return -1;
#define SYM(field, name) if (!(*(void **)&Z.field = dlsym(h, name))) return -2
    SYM(msg_init, "zmq_msg_init");
    SYM(msg_init_size, "zmq_msg_init_size");
    SYM(msg_send, "zmq_msg_send");
    SYM(msg_recv, "zmq_msg_recv");
    SYM(msg_close, "zmq_msg_close");
    SYM(msg_data, "zmq_msg_data");
    SYM(msg_size, "zmq_msg_size");
    SYM(msg_more, "zmq_msg_more");
    SYM(msg_gets, "zmq_msg_gets");
    SYM(send, "zmq_send");
    SYM(getsockopt, "zmq_getsockopt");
    SYM(poll, "zmq_poll");
    SYM(version, "zmq_version");
#undef SYM
    int a, b, c;
    Z.version(&a, &b, &c);
    if (a != major || b != minor || c != patch) return -3;
    z_ready = 1;
    return 0;
}

typedef struct {
    rgpu_chan ch; /* first: the loop's view */
    void *sock;
    unsigned char peer[256];
    size_t peer_len;
    zmq_msg_t ident, head;
    zmq_msg_t rec, diff; /* a delta's record and differences */
    int held; /* 0 nothing, 1 the identity, 2 and the first part, 3 and a delta's record, 4 and its differences */
    /* the head of the message taken where the session's table took it (a delta made whole, in the
     * table; a head it keeps, the held part), which Python must not take again; or why a delta was
     * refused (the session ends) */
    const unsigned char *whole;
    uint64_t whole_len;
    const char *refused;
    rgpu_heads *heads;  /* the session's table of bases (heads.c), or NULL: no deltas (heads left to Python) */
    unsigned char *own; /* the state's own copy buffer, and its room */
    uint64_t own_cap;
    int more; /* the held message has parts after its first, still on the socket */
    uint64_t received; /* messages taken from the socket */
    /* where a step's late copies (OUT_LATER: PyTorch's .item() after a step) are made once its wait
     * is answered, to go ahead of its reply as Python sends them; cap 0: none, such steps Python's */
    unsigned char *late_buf;
    uint64_t late_cap;
    int frames; /* data frames may be taken (rgpu_sock_frames) */
    /* the session's bulk channel's name (len 0: none): a frame that is its `sealed` record stands for
     * data on that channel (server/bulk.py placeholder), which Python takes */
    unsigned char chan[64];
    size_t chan_len;
    /* the held message's data frames taken (serve.c with_frames), the door's until the next message,
     * and their data and sizes as the copier reads them (sock_rewind) */
    zmq_msg_t parts[SOCK_FRAMES];
    const void *part_p[SOCK_FRAMES];
    uint64_t part_n[SOCK_FRAMES];
    uint32_t nparts;
    /* a frame being filled to go after a reply (sock_out_buf: a large D2H copy's data, read from the
     * device into the message ZeroMQ sends, not copied again) */
    zmq_msg_t out;
    int out_live;
} sock_chan;

static void sock_out_drop(rgpu_chan *c) {
    sock_chan *s = (sock_chan *)c;
    if (s->out_live) Z.msg_close(&s->out);
    s->out_live = 0;
}

void rgpu_sock_release(void *c) {
    sock_chan *s = c;
    for (uint32_t i = 0; i < s->nparts; i++) Z.msg_close(&s->parts[i]);
    s->nparts = 0;
    sock_out_drop(&s->ch);
    if (s->held >= 4) Z.msg_close(&s->diff);
    if (s->held >= 3) Z.msg_close(&s->rec);
    if (s->held >= 2) Z.msg_close(&s->head);
    if (s->held >= 1) Z.msg_close(&s->ident);
    s->held = 0, s->more = 0;
    s->whole = NULL, s->whole_len = 0, s->refused = NULL;
}

static int readable(sock_chan *s) {
    int ev = 0;
    size_t n = sizeof ev;
    return Z.getsockopt(s->sock, ZMQ_EVENTS, &ev, &n) == 0 && (ev & ZMQ_POLLIN);
}

/* As the worker's Python loop waits: polls the socket's events for spin_s, yielding the CPU, then
 * blocks up to timeout_s. A signal ends the wait as a timeout does: Python's handlers run once back. */
static int sock_next(rgpu_chan *c, rgpu_serve_state *st, double spin_s, double timeout_s) {
    sock_chan *s = (sock_chan *)c;
    rgpu_sock_release(s);
    if (!readable(s)) {
        if (spin_s > 0) {
            double until = rgpu_now_s() + spin_s;
            while (!readable(s) && rgpu_now_s() < until) sched_yield();
        }
        if (!readable(s)) {
            zmq_pollitem_t it = {.socket = s->sock, .events = ZMQ_POLLIN};
            long ms = (long)(timeout_s * 1000.0) + 1;
            if (Z.poll(&it, 1, ms) <= 0) return 0;
        }
    }
    Z.msg_init(&s->ident);
    if (Z.msg_recv(&s->ident, s->sock, ZMQ_DONTWAIT) < 0) {
        Z.msg_close(&s->ident);
        return 0;
    }
    s->held = 1;
    Z.msg_init(&s->head);
    if (!Z.msg_more(&s->ident) || Z.msg_recv(&s->head, s->sock, ZMQ_DONTWAIT) < 0) {
        /* a ROUTER gives an identity and at least one part together: cannot be; dropped */
        Z.msg_close(&s->head);
        rgpu_sock_release(s);
        return 0;
    }
    s->held = 2;
    s->more = Z.msg_more(&s->head);
    s->received++;
    size_t n = Z.msg_size(&s->head);
    if (Z.msg_size(&s->ident) != s->peer_len || memcmp(Z.msg_data(&s->ident), s->peer, s->peer_len) != 0)
        return RGPU_SERVE_HANDED; /* not the session's client: Python's to refuse, or a move's source */
    const unsigned char *msg = Z.msg_data(&s->head);
    if (s->heads && n == 0) {
        /* a head sent as its differences (head_delta.py): its record and differences taken, the head
         * made whole in the session's table; a message of fewer parts is refused as Python refuses it */
        if (!s->more || (Z.msg_init(&s->rec), Z.msg_recv(&s->rec, s->sock, ZMQ_DONTWAIT) < 0)) {
            s->refused = "head_delta: an empty first frame without a record and differences";
            return RGPU_SERVE_HANDED;
        }
        s->held = 3;
        if (!Z.msg_more(&s->rec) || (Z.msg_init(&s->diff), Z.msg_recv(&s->diff, s->sock, ZMQ_DONTWAIT) < 0)) {
            s->more = 0;
            s->refused = "head_delta: an empty first frame without a record and differences";
            return RGPU_SERVE_HANDED;
        }
        s->held = 4;
        s->more = Z.msg_more(&s->diff);
        uint64_t whole;
        const unsigned char *p = rgpu_heads_apply(s->heads, Z.msg_data(&s->rec), Z.msg_size(&s->rec),
                                                  Z.msg_data(&s->diff), Z.msg_size(&s->diff), &whole, &s->refused);
        if (!p) return RGPU_SERVE_HANDED;
        s->whole = p, s->whole_len = whole;
        msg = p, n = whole;
    } else if (s->heads && n >= RGPU_HEAD_DELTA_MIN && n <= RGPU_HEAD_DELTA_MAX) {
        /* a head of a length the table keeps: its slot's base now, as Python's take keeps it */
        rgpu_heads_keep(s->heads, msg, n);
        s->whole = msg, s->whole_len = n; /* (the held part: Python's copy of the head comes from it) */
    }
    if (n == 0 || (!s->whole && n >= RGPU_HEAD_DELTA_MIN) || n > UINT32_MAX) return RGPU_SERVE_HANDED;
    /* data frames follow: the loop looks at the head (a piece?) before it takes any (sock_take_frames) */
    if (s->more && !s->frames) return RGPU_SERVE_HANDED;
    st->parts = s->more;
    if (n <= s->own_cap) {
        /* copied: the loop's copy is what it reads, as the ring's */
        memcpy(s->own, msg, n);
        st->copy = s->own;
    } else {
        st->copy = (unsigned char *)msg; /* the table's base or the held part: nothing writes either meanwhile */
    }
    st->len = (uint32_t)n;
    st->req_flags = 0;
    return 1;
}

static void sock_rewind(rgpu_chan *c, rgpu_serve_state *st) {
    sock_chan *s = (sock_chan *)c;
    if (!st->copier) return;
    rgpu_copier_late_buffer(st->copier, s->late_buf, s->late_cap);
    /* each pass reads the frames from the first (none: a message without, whose calls take none) */
    rgpu_copier_frames(st->copier, s->nparts ? s->part_p : NULL, s->nparts ? s->part_n : NULL, s->nparts);
}

/* A step's late copies, made (rgpu_copier_late_run) once its wait was answered: each a message of the
 * identity, a LATE_OUT reply naming its seq, and its data, in order, ahead of the step's reply (worker.py
 * _step_of, _send_late). */
static int sock_late(rgpu_chan *c, rgpu_serve_state *st) {
    sock_chan *s = (sock_chan *)c;
    uint32_t n = st->copier ? rgpu_copier_late_n(st->copier) : 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t seq, off, count;
        rgpu_copier_late_get(st->copier, i, &seq, &off, &count);
        unsigned char buf[48];
        mp_writer out;
        mp_init_inline(&out, buf, sizeof buf);
        rgpu_env_reply reply = {.seq = seq, .result = RGPU_LATE_OUT};
        rgpu_env_write_reply(&out, &reply);
        int bad = out.oom || Z.send(s->sock, s->peer, s->peer_len, ZMQ_SNDMORE) < 0 ||
                  Z.send(s->sock, out.buf, out.len, ZMQ_SNDMORE) < 0 ||
                  Z.send(s->sock, s->late_buf + off, count, 0) < 0;
        mp_free(&out);
        if (bad) return -1;
        st->late_bytes += count;
    }
    return 0;
}

/* A step's managed pulls (rgpuManagedPull from another host), made after its late copies once its wait
 * was answered (rgpu_copier_pull_run): each a reply naming the data's digest, with the data in a frame
 * unless the client's copy has that digest already, after the wait's reply (loop_steps.py _step_of). */
static int sock_pulls(rgpu_chan *c, rgpu_serve_state *st) {
    sock_chan *s = (sock_chan *)c;
    uint32_t n = st->copier ? rgpu_copier_pull_n(st->copier) : 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t seq, off, count;
        uint8_t digest[16];
        int same;
        rgpu_copier_pull_get(st->copier, i, &seq, &off, &count, digest, &same);
        unsigned char buf[64], outs[24];
        mp_writer out, o;
        mp_init_inline(&o, outs, sizeof outs);
        mp_bin(&o, digest, sizeof digest);
        mp_init_inline(&out, buf, sizeof buf);
        rgpu_env_reply reply = {.seq = seq, .outs = (rgpu_env_list){.p = o.buf, .len = o.len, .n = 1}};
        rgpu_env_write_reply(&out, &reply);
        int bad = out.oom || o.oom || Z.send(s->sock, s->peer, s->peer_len, ZMQ_SNDMORE) < 0 ||
                  Z.send(s->sock, out.buf, out.len, same ? 0 : ZMQ_SNDMORE) < 0 ||
                  (!same && Z.send(s->sock, s->late_buf + off, count, 0) < 0);
        mp_free(&out);
        mp_free(&o);
        if (bad) return -1;
        st->pulls++;
        st->pull_seq = seq;
        if (!same) st->pull_bytes += count;
    }
    return 0;
}

static int sock_reply(rgpu_chan *c, const char *msg, size_t len) {
    sock_chan *s = (sock_chan *)c;
    /* a ROUTER takes or refuses a message at its first part (a peer gone, ROUTER_MANDATORY): the
     * second is not refused once the first went */
    if (Z.send(s->sock, s->peer, s->peer_len, ZMQ_SNDMORE) < 0) return -1;
    return Z.send(s->sock, msg, len, 0) < 0 ? -1 : 0;
}

static int sock_reply_frame(rgpu_chan *c, const char *msg, size_t len, const void *data, size_t dlen) {
    sock_chan *s = (sock_chan *)c;
    if (Z.send(s->sock, s->peer, s->peer_len, ZMQ_SNDMORE) < 0) return -1;
    if (Z.send(s->sock, msg, len, ZMQ_SNDMORE) < 0) return -1;
    return Z.send(s->sock, data, dlen, 0) < 0 ? -1 : 0; /* copied into the message: the buffer is the loop's again */
}

static void *sock_out_buf(rgpu_chan *c, uint64_t n) {
    sock_chan *s = (sock_chan *)c;
    sock_out_drop(c);
    /* a session with a bulk channel sends such frames sealed on it (server/bulk.py): Python's */
    if (s->chan_len || Z.msg_init_size(&s->out, n) != 0) return NULL;
    s->out_live = 1;
    return Z.msg_data(&s->out);
}

static int sock_send_out(rgpu_chan *c, const char *msg, size_t len) {
    sock_chan *s = (sock_chan *)c;
    if (!s->out_live || Z.send(s->sock, s->peer, s->peer_len, ZMQ_SNDMORE) < 0 ||
        Z.send(s->sock, msg, len, ZMQ_SNDMORE) < 0 || Z.msg_send(&s->out, s->sock, 0) < 0) {
        sock_out_drop(c);
        return -1;
    }
    s->out_live = 0; /* ZeroMQ's now */
    return 0;
}

/* Whether a frame is a `sealed` record of the session's bulk channel, as server/bulk.py placeholder
 * tells them: at most RGPU_BULK_HEAD_MAX bytes, the channel's name inside it past its first byte. */
static int sealed_record(const sock_chan *s, const unsigned char *p, uint64_t n) {
    if (!s->chan_len || n > RGPU_BULK_HEAD_MAX || n < s->chan_len + 1) return 0;
    for (uint64_t i = 1; i + s->chan_len <= n; i++)
        if (memcmp(p + i, s->chan, s->chan_len) == 0) return 1;
    return 0;
}

/* The held message's data frames, up to `max` in all: 0 when none is left on the socket and none is a
 * sealed record, -1 otherwise (the message Python's, with those taken held for it: rgpu_sock_frame). */
static int sock_take_frames(rgpu_chan *c, uint32_t max) {
    sock_chan *s = (sock_chan *)c;
    if (max > SOCK_FRAMES) max = SOCK_FRAMES;
    while (s->more && s->nparts < max) {
        zmq_msg_t *m = &s->parts[s->nparts];
        Z.msg_init(m);
        if (Z.msg_recv(m, s->sock, ZMQ_DONTWAIT) < 0) { /* cannot be: a message's parts come together */
            Z.msg_close(m);
            return -1;
        }
        s->part_p[s->nparts] = Z.msg_data(m), s->part_n[s->nparts] = Z.msg_size(m);
        s->nparts++;
        s->more = Z.msg_more(m);
        if (sealed_record(s, Z.msg_data(m), Z.msg_size(m))) return -1; /* its data on the bulk channel */
    }
    return s->more ? -1 : 0;
}

static const void *sock_frame(rgpu_chan *c, uint32_t i, uint64_t *n) {
    sock_chan *s = (sock_chan *)c;
    *n = s->part_n[i];
    return s->part_p[i];
}

/* The door for one session: pyzmq's socket (Socket.underlying) and its client's identity. NULL: libzmq
 * not opened (rgpu_sock_init), or an identity longer than ZeroMQ allows. */
void *rgpu_sock_open(void *sock, const unsigned char *peer, size_t peer_len) {
    if (!z_ready || peer_len > sizeof ((sock_chan *)0)->peer) return NULL;
    sock_chan *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->ch.next = sock_next, s->ch.reply = sock_reply, s->ch.async_by_shape = 1;
    s->ch.rewind = sock_rewind, s->ch.before_reply = sock_late, s->ch.after_reply = sock_pulls;
    s->ch.reply_frame = sock_reply_frame, s->ch.take_frames = sock_take_frames, s->ch.frame = sock_frame;
    s->ch.out_buf = sock_out_buf, s->ch.send_out = sock_send_out, s->ch.out_drop = sock_out_drop;
    s->sock = sock;
    memcpy(s->peer, peer, peer_len);
    s->peer_len = peer_len;
    return s;
}

void rgpu_sock_free(void *c) {
    if (!c) return;
    rgpu_sock_release(c);
    free(c);
}

/* The held message: its identity (*ident, *ident_len), whether parts follow on the socket (*more), whether
 * the session's table took its head (*kept), why its delta was refused (*refused, else NULL), and its
 * head (*head: the whole one where a delta was made whole), whose length is returned. */
size_t rgpu_sock_take(void *c, const char **ident, size_t *ident_len, const char **head, int *more, int *kept,
                      const char **refused) {
    sock_chan *s = c;
    *refused = s->refused, *kept = s->whole != NULL, *more = s->more;
    if (s->held < 2) {
        *ident = *head = NULL, *ident_len = 0;
        return 0;
    }
    *ident = Z.msg_data(&s->ident), *ident_len = Z.msg_size(&s->ident);
    if (s->whole) {
        *head = (const char *)s->whole;
        return s->whole_len;
    }
    *head = Z.msg_data(&s->head);
    return Z.msg_size(&s->head);
}

/* The session's table of bases (heads.c; NULL: none, every delta and kept head handed to Python). */
void rgpu_sock_heads(void *c, void *heads) { ((sock_chan *)c)->heads = heads; }

/* A property of the connection the held message came on (zmq_msg_gets: "User-Id", the ZAP handler's
 * word for it, which the worker's checks of a migration's source and of its client read), or NULL. */
const char *rgpu_sock_meta(void *c, const char *property) {
    sock_chan *s = c;
    return s->held >= 2 ? Z.msg_gets(&s->head, property) : NULL;
}

/* The buffer (`cap` bytes; NULL: none) a step's late copies are made into. */
void rgpu_sock_late_buffer(void *c, unsigned char *buf, uint64_t cap) {
    sock_chan *s = c;
    s->late_buf = buf, s->late_cap = buf ? cap : 0;
}

int rgpu_sock_more(void *c) { return ((sock_chan *)c)->more; }

/* Whether the door may take a message's data frames, and the session's bulk channel's name (`chan`,
 * `len` bytes; 0: none): a message with a sealed record among them is Python's, which opens it. 0, or
 * -1 for a name longer than the door keeps (frames then Python's). */
int rgpu_sock_frames(void *c, int on, const unsigned char *chan, size_t len) {
    sock_chan *s = c;
    if (len > sizeof s->chan) {
        s->frames = 0;
        return -1;
    }
    memcpy(s->chan, chan, len);
    s->chan_len = len, s->frames = on;
    return 0;
}

/* How many data frames the door took of the held message. */
uint32_t rgpu_sock_nframes(void *c) { return ((sock_chan *)c)->nparts; }

/* The i-th data frame the door took of the held message before handing it over (*data; its bytes
 * returned), or 0 and NULL: no more. They come after the head and before the parts still on the socket. */
size_t rgpu_sock_frame(void *c, uint32_t i, const char **data) {
    sock_chan *s = c;
    *data = i < s->nparts ? s->part_p[i] : NULL;
    return i < s->nparts ? s->part_n[i] : 0;
}

uint64_t rgpu_sock_received(void *c) { return ((sock_chan *)c)->received; }

int rgpu_serve_socket(void *c, rgpu_launcher *l, rgpu_serve_state *st, uint64_t copy_cap) {
    sock_chan *s = c;
    s->own = st->copy, s->own_cap = copy_cap;
    int got = rgpu_serve_on(&s->ch, l, st);
    st->copy = s->own; /* (a message served from the table's base or the held part pointed it there) */
    /* as Launcher.end leaves it; but pulls whose replies are Python's are read by Python first (its next
     * pass over a message sets the buffer again) */
    if (st->copier && !st->pulls_due) rgpu_copier_late_buffer(st->copier, NULL, 0);
    if (st->copier) rgpu_copier_frames(st->copier, NULL, NULL, 0); /* the held frames are let go with the message */
    /* a message the loop began or declined is Python's whole: held, as one it handed over */
    return got == RGPU_SERVE_RING ? RGPU_SERVE_HANDED : got;
}
