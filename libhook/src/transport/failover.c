/* Failover (a lease reserved with --failover, RGPU_FAILOVER=<lease id>; docs/failover.md): the session's
 * last checkpoint and the log of what was sent since live here, in the client, so that when the
 * session's server dies the program carries on on another server with the same results.
 *
 * - At a synchronisation point (a sync call's reply), no more often than RGPU_FAILOVER_INTERVAL
 *   seconds (and RGPU_FAILOVER_BUDGET's stretch of it, below), the session sends CHECKPOINT: the worker
 *   answers with the session's checkpoint image (server/failover.py), and the log starts again empty.
 *   The first image is whole; the next ones are deltas on it (only the memory that changed since the
 *   image before: server/checkpoint/session.py Chain), kept after it, until they hold twice what a
 *   whole image would take now (the server says) or MAX_IMAGES: then a whole one replaces them all. A
 *   restore sends them all.
 * - Every message whose reply came is copied into the log, data included (a sync H2D copy's frames
 *   are the program's buffer, which it may reuse once the call returns); a message's head of 1 KiB or
 *   more as its differences from the last head of its length kept whole (log_delta.h: a training loop
 *   sends nearly the same head every step, a CNN's 212 KB kept as a few KB). What the program saw of each
 *   sync call since the checkpoint (result, outs, the data of a D2H copy) is kept as two digests, and
 *   the data of each async D2H copy into pinned memory (LATE_OUT, or written there by a worker on this
 *   host before its next reply: copy_late.c) as one.
 * - When the connection to the worker is lost, the controller is asked to place the vGPU on another
 *   server (`failover`), a session is opened there with the new token, RESTORE sends it the image,
 *   the log is sent again, and a barrier closes it. Each replayed reply must match the digests of
 *   what the program saw: a call whose result comes out otherwise (a timing, anything the device does
 *   not do the same way twice) cannot be replayed, and the session ends with an error that says so
 *   instead of letting the program go on with a wrong answer. Then the caller sends again what had no
 *   reply yet (session.c) and waits for its call's reply there.
 *
 * On the server's host such a session has the shared segment and the call ring as any other: a message
 * whose sync call moved its data through the segment is logged as it would have gone without it (its
 * call encoded anew, its data in frames), because the segment's contents change with the next call
 * and the server the log is replayed to may be on another host. A copy from its pinned memory names
 * the memory on the wire, and is logged with the bytes copied when it was queued (session.c's wire
 * twin): a reference would be read on replay as the program has changed it since. An async copy into
 * its pinned memory names it too, the worker writing the data there before its next reply, where it is
 * digested; the log keeps the copy without the name, so a replay brings the data (LATE_OUT) to compare. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "digest.h"
#include "failover.h"
#include "log_delta.h"
#include "rgpu_call.h"
#include "rgpu_envelope.h"
#include "rgpu_ids.h"
#include "session_parts.h"

typedef struct {
    zmq_msg_t *frames;
    size_t n;
    size_t key;      /* 1 + the log index of the message whose head frames[0] is the differences from; 0: whole */
    size_t head_len; /* the head's bytes, when kept as differences (log_delta.h) */
} fo_msg;

/* Heads of at least DELTA_MIN bytes are kept as their differences from the last head of the same length
 * kept whole (a key), when those take at most a quarter of them (log_delta.h); one that differs more
 * is kept whole and becomes its length's key. A training step's messages are a few lengths. */
#define DELTA_MIN 1024
#define MAX_KEYS 16

/* The log's memory: frames of up to SLAB_FRAME_MAX bytes are copied into slabs, which are kept and
 * filled again after each checkpoint empties the log. Kept by reference or in memory of their own, the
 * frames of a training step (a CNN's: 300 KB a step, most of it the head of a message of 55 calls,
 * AdamW's kernel parameters) were memory new to the process at every step, which the kernel maps page
 * by page: on the test bed 50-77 page faults a step, and none without --failover, whose message heads
 * are freed once sent and their memory taken again by the next. A slab is filled again only once no
 * frame in it is referenced (the log's, and a replay's copies on the socket: slab_unref may run on
 * ZeroMQ's I/O thread). The slabs stay for the session's life: at most what the log held at once, which
 * LOG_MAX_BYTES bounds, and drop_all gives back those no frame holds. */
#define SLAB_BYTES ((size_t)4 << 20)
#define SLAB_FRAME_MAX (SLAB_BYTES / 4)
#define SLAB_FRAME_MIN 64 /* smaller frames are ZeroMQ's own (kept inside the message, no allocation) */

typedef struct log_slab {
    struct log_slab *next;
    size_t used;
    int refs; /* frames that point into it */
    unsigned char data[];
} log_slab;

typedef struct {
    uint64_t seq;
    uint64_t head, data;
    int late;                /* an async D2H copy's data (LATE_OUT): no head to compare */
    const char *name;        /* the call's (a static string): the error names it */
} fo_seen;

/* A whole image and at most MAX_IMAGES - 1 deltas after it. What bounds a chain is its bytes (twice a
 * whole image's, rgpu_fo_wants_delta): a restore's work is the bytes it decompresses and applies. The
 * count only keeps the array small: a training step's deltas are a few hundred KB against a whole image
 * of tens of MB, and a whole image is the one checkpoint that stalls the program for seconds across a
 * slow link (its memory crossing it), so with 16 a whole one came every 16 checkpoints (about a minute
 * at the budget's pace) where the bytes allow hundreds. */
#define MAX_IMAGES 256

/* A module variable's address the program was handed (cuModuleGetGlobal: cudaGetSymbolAddress, cuBLASLt's
 * deviceConstants) is the driver's placement, which another server's driver does not repeat: replayed
 * there, the call answers another address and the recovery is refused. The server keeps a handed address
 * across a restore (server/backends/cuda/aliases.py), so one handed before the last checkpoint is
 * answered again as the program saw it. A new one asks for a checkpoint at the next sync point, whatever
 * the interval and budget: the log then never holds its first answer for longer than that. Answers are
 * remembered by digest, so a program asking for the same variable every step asks for no more
 * checkpoints; past HANDED_MAX distinct ones the oldest is forgotten (asked again: one more checkpoint). */
#define HANDED_MAX 64

struct rgpu_failover {
    zmq_msg_t images[MAX_IMAGES]; /* the last checkpoint: a whole image and the deltas since (replies' bulk frames) */
    int nimages;
    size_t held_bytes;  /* the images' */
    size_t now_bytes;   /* what a whole image would take now, as the last reply said */
    fo_msg *log;
    size_t nlog, logcap, logbytes;
    fo_seen *seen;
    size_t nseen, seencap;
    double last_ckpt;
    double gap; /* seconds from the last checkpoint to the next: the interval, stretched by the budget */
    unsigned checkpoints, recoveries, refused;
    int off; /* the log passed LOG_MAX_BYTES with checkpoints refused: dropped, none kept until one is taken */
    struct log_slab *slabs, *cur; /* the log's memory (log_frame) */
    struct { size_t len, at; } keys[MAX_KEYS]; /* the heads kept whole, by length: f->log[at] */
    int nkeys;
    unsigned nextkey; /* the key a new length replaces once MAX_KEYS are taken */
    uint8_t *scratch; /* a delta being encoded */
    size_t scratchcap;
    size_t heads, delta_heads; /* since the checkpoint: heads of DELTA_MIN bytes or more, and those kept as deltas */
    uint64_t handed[HANDED_MAX]; /* the answers of cuModuleGetGlobal the program was given (head digests) */
    unsigned nhanded;
    int handed_new; /* one of them first given since the checkpoint: the next sync point takes one */
};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Read once: every sync call asks (rgpu_fo_due), and a program that never asked for failover must pay
 * nothing for it but this load. */
static pthread_once_t lease_once = PTHREAD_ONCE_INIT;
static char lease_id[128];
static void read_lease(void) {
    const char *e = getenv("RGPU_FAILOVER");
    if (!e || !*e || !strcmp(e, "0")) return;
    /* 1: an env-only lease of the program's own asked for failover; its id is known once reserved
     * (lease.c sets RGPU_LEASE_ID before any session opens) */
    const char *id = !strcmp(e, "1") ? getenv("RGPU_LEASE_ID") : e;
    if (id && *id) snprintf(lease_id, sizeof lease_id, "%s", id);
}

const char *rgpu_failover_lease(void) {
    pthread_once(&lease_once, read_lease);
    return lease_id[0] ? lease_id : NULL;
}

static double interval_s(void) {
    static double t = -1;
    if (t < 0) {
        const char *e = getenv("RGPU_FAILOVER_INTERVAL");
        t = e && atof(e) >= 0 && *e ? atof(e) : 1.0;
    }
    return t;
}

/* RGPU_FAILOVER_BUDGET (default 0.02): the share of the program's time checkpoints may take. A session
 * whose checkpoint took t seconds (a large memory: the server reads and digests it all, and compresses
 * and sends what changed) takes the next no sooner than t * (1 - budget) / budget after it, whatever the
 * interval: a training loop with 200 MB of memory is not stopped for its checkpoint every second. 2%,
 * not 5%: the whole cost of --failover is to stay within 5% (issue 43), and the log takes its share; the
 * price is a longer log to replay after a failure (a 0.2 s delta: one every 10 s). 1: the interval alone. */
static double budget(void) {
    static double b = -1;
    if (b < 0) {
        const char *e = getenv("RGPU_FAILOVER_BUDGET");
        b = e && *e && atof(e) > 0 && atof(e) <= 1 ? atof(e) : 0.02;
    }
    return b;
}

struct rgpu_failover *rgpu_fo_state(rgpu_session *s) {
    if (!s->fo && rgpu_failover_lease()) {
        s->fo = calloc(1, sizeof(struct rgpu_failover));
        if (s->fo) s->fo->last_ckpt = now_s(), s->fo->gap = interval_s();
    }
    return s->fo;
}

static uint64_t head_digest(const rgpu_env_reply *rep) {
    int64_t words[2] = {rep->result, rep->deferred};
    uint64_t h = rgpu_mix(RGPU_DIG_SEED, words, sizeof words);
    return rgpu_mix(h, rep->outs.p, rep->outs.len);
}

/* Entries are kept in seq order, as the replayed replies come (check_replies walks both once): a late
 * copy's data before the reply of the sync call sent after it. They come in that order but for a copy
 * whose data came on the socket ahead of the reply that settles an earlier one whose data the worker
 * wrote into its memory (copy_late.c): placed where its seq says. */
static void add_seen(struct rgpu_failover *f, fo_seen e) {
    if (f->nseen == f->seencap) {
        size_t cap = f->seencap ? f->seencap * 2 : 64;
        fo_seen *g = realloc(f->seen, cap * sizeof *g);
        if (!g) return;
        f->seen = g, f->seencap = cap;
    }
    size_t at = f->nseen++;
    for (; at > 0 && f->seen[at - 1].seq > e.seq; at--) f->seen[at] = f->seen[at - 1];
    f->seen[at] = e;
}

/* A stream or event query's answer (done, or not ready) is a timing, as on a GPU: replayed, the work
 * may be further along. It changes nothing on the device, and what the program did on "done" (read
 * memory a copy filled) is checked by that memory's own digests, so it is not compared. */
static int is_query(uint32_t id) {
    return id == RGPU_ID_cuStreamQuery || id == RGPU_ID_cuEventQuery || id == RGPU_ID_cudaStreamQuery ||
           id == RGPU_ID_cudaEventQuery;
}

void rgpu_fo_seen(rgpu_session *s, uint64_t seq, const rgpu_env_reply *rep, struct rgpu_call *c, size_t streamed) {
    struct rgpu_failover *f = s->fo;
    if (!f || f->off || c->id == RGPU_CHECKPOINT || c->id == RGPU_BARRIER || c->id == RGPU_RESTORE ||
        is_query(c->id))
        return;
    rgpu_dig d = rgpu_dig_start();
    if (streamed && c->shm_dst) rgpu_dig_add(&d, c->shm_dst, streamed);
    for (int i = 0; i < c->nout_bulk; i++)
        rgpu_dig_add(&d, zmq_msg_data((zmq_msg_t *)c->out_bulk[i]), zmq_msg_size((zmq_msg_t *)c->out_bulk[i]));
    uint64_t h = head_digest(rep);
    add_seen(f, (fo_seen){seq, h, rgpu_dig_end(&d), 0, c->name});
    if (c->id == RGPU_ID_cuModuleGetGlobal_v2 && rep->result == 0) {
        unsigned n = f->nhanded < HANDED_MAX ? f->nhanded : HANDED_MAX;
        for (unsigned i = 0; i < n; i++)
            if (f->handed[i] == h) return;
        f->handed[f->nhanded++ % HANDED_MAX] = h;
        f->handed_new = 1;
    }
}

static int (*late_known)(const void *data, size_t n, uint64_t *dig);

void rgpu_fo_late_digests(int (*known)(const void *data, size_t n, uint64_t *dig)) { late_known = known; }

void rgpu_fo_seen_late(rgpu_session *s, uint64_t seq, const void *data, size_t n) {
    if (!s->fo || s->fo->off) return;
    uint64_t dig;
    if (!late_known || !late_known(data, n, &dig)) {
        rgpu_dig d = rgpu_dig_start();
        rgpu_dig_add(&d, data, n);
        dig = rgpu_dig_end(&d);
    }
    add_seen(s->fo, (fo_seen){seq, 0, dig, 1, "an asynchronous copy's data"});
}

static void drop_all(struct rgpu_failover *f);

/* A message the log could not keep (out of memory): a log with it missing would replay something else,
 * so none is kept until a checkpoint is taken again. */
static void not_logged(rgpu_session *s) {
    drop_all(s->fo);
    rgpu_log(RGPU_LOG_WARN, "failover: a message of %s could not be logged (out of memory): this session has no "
             "failover until the server takes a checkpoint again", s->url);
}

static void slab_unref(void *data, void *hint) {
    (void)data;
    __atomic_sub_fetch(&((log_slab *)hint)->refs, 1, __ATOMIC_RELEASE);
}

static int slab_idle(log_slab *b) { return __atomic_load_n(&b->refs, __ATOMIC_ACQUIRE) == 0; }

/* A slab to fill from its start: one no frame holds (the one just filled too), or a new one. */
static log_slab *slab_next(struct rgpu_failover *f) {
    for (log_slab *b = f->slabs; b; b = b->next)
        if (slab_idle(b)) {
            b->used = 0;
            return b;
        }
    log_slab *b = malloc(sizeof *b + SLAB_BYTES);
    if (b) b->next = f->slabs, f->slabs = b, b->used = 0, b->refs = 0;
    return b;
}

/* m: a frame of the log holding a copy of p's n bytes. 0, or -1 out of memory. */
static int log_frame(struct rgpu_failover *f, zmq_msg_t *m, const void *p, size_t n) {
    size_t room = (n + 15) & ~(size_t)15;
    if (n >= SLAB_FRAME_MIN && n <= SLAB_FRAME_MAX) {
        if (!f->cur || f->cur->used + room > SLAB_BYTES) f->cur = slab_next(f);
        if (f->cur) {
            unsigned char *d = f->cur->data + f->cur->used;
            memcpy(d, p, n);
            __atomic_add_fetch(&f->cur->refs, 1, __ATOMIC_RELAXED);
            if (zmq_msg_init_data(m, d, n, slab_unref, f->cur) == 0) {
                f->cur->used += room;
                return 0;
            }
            __atomic_sub_fetch(&f->cur->refs, 1, __ATOMIC_RELAXED);
        }
    }
    if (zmq_msg_init_size(m, n)) return -1;
    memcpy(zmq_msg_data(m), p, n);
    return 0;
}

/* The key kept whole for heads of len bytes: the log's message at that index (1 + it), or 0. */
static size_t key_for(struct rgpu_failover *f, size_t len) {
    for (int k = 0; k < f->nkeys; k++)
        if (f->keys[k].len == len) return f->keys[k].at + 1;
    return 0;
}

static void key_set(struct rgpu_failover *f, size_t len, size_t at) {
    for (int k = 0; k < f->nkeys; k++)
        if (f->keys[k].len == len) {
            f->keys[k].at = at;
            return;
        }
    int k = f->nkeys < MAX_KEYS ? f->nkeys++ : (int)(f->nextkey++ % MAX_KEYS); /* the oldest length makes room */
    f->keys[k].len = len, f->keys[k].at = at;
}

/* m's head (frame, as sent) kept as its differences from its length's key, into m->frames[0]: 1. 0: it is
 * to be kept whole (small, no key yet, or too different: it becomes its length's key). */
static int log_head_delta(struct rgpu_failover *f, fo_msg *m, zmq_msg_t *frame) {
    size_t len = zmq_msg_size(frame), at = f->nlog - 1, key;
    if (len < DELTA_MIN) return 0;
    f->heads++;
    if ((key = key_for(f, len))) {
        size_t cap = rgpu_delta_cap(len);
        if (f->scratchcap < cap) {
            uint8_t *b = realloc(f->scratch, cap);
            if (b) f->scratch = b, f->scratchcap = cap;
        }
        size_t d = f->scratchcap >= cap ? rgpu_delta_encode(zmq_msg_data(&f->log[key - 1].frames[0]), zmq_msg_data(frame),
                                                            len, f->scratch, cap) : 0;
        if (d && log_frame(f, &m->frames[0], f->scratch, d) == 0) {
            m->key = key, m->head_len = len;
            f->delta_heads++;
            return 1;
        }
    }
    key_set(f, len, at);
    return 0;
}

/* The slabs no frame holds, given back (the log is off: nothing is kept until a checkpoint). */
static void slabs_release(struct rgpu_failover *f) {
    f->cur = NULL;
    for (log_slab **at = &f->slabs; *at;) {
        log_slab *b = *at;
        if (slab_idle(b)) {
            *at = b->next;
            free(b);
        } else {
            at = &b->next;
        }
    }
}

void rgpu_fo_logged(rgpu_session *s, zmq_msg_t *frames, size_t n, size_t owned) {
    struct rgpu_failover *f = s->fo;
    if (!f || f->off || !n) return;
    if (f->nlog == f->logcap) {
        size_t cap = f->logcap ? f->logcap * 2 : 16;
        fo_msg *g = realloc(f->log, cap * sizeof *g);
        if (!g) return;
        f->log = g, f->logcap = cap;
    }
    fo_msg *m = &f->log[f->nlog++];
    m->frames = malloc(n * sizeof(zmq_msg_t));
    m->n = n, m->key = 0, m->head_len = 0;
    if (!m->frames) {
        m->n = 0;
        not_logged(s);
        return;
    }
    size_t i = 0;
    if (log_head_delta(f, m, &frames[0])) {
        f->logbytes += zmq_msg_size(&m->frames[0]);
        i = 1;
    }
    for (; i < n; i++) {
        /* copied into the log's slabs (log_frame); a frame larger than that is shared (a reference, no
         * copy) where it owns its data, as the replay's own frames do, and copied where it is a sync
         * call's buffer, the program's, which it may reuse once it returns */
        size_t len = zmq_msg_size(&frames[i]);
        if (i < owned && len > SLAB_FRAME_MAX) {
            zmq_msg_init(&m->frames[i]);
            zmq_msg_copy(&m->frames[i], &frames[i]);
        } else if (log_frame(f, &m->frames[i], zmq_msg_data(&frames[i]), len)) {
            zmq_msg_init(&m->frames[i]); /* an empty frame: the replay of this message would be wrong */
            m->n = i + 1;
            not_logged(s);
            return;
        }
        f->logbytes += len; /* the log's bound is the memory it holds: a head kept as differences counts those */
    }
}

/* A log past this asks for a checkpoint whatever the interval: it is held in the program's memory. When
 * the server refuses checkpoints (a session it cannot capture: docs/failover.md), a log past it is
 * dropped instead of growing for as long as the program runs: until a checkpoint is taken again the
 * session has no failover, and a lost server ends it as without --failover (saying why). */
static size_t log_max_bytes(void) { /* RGPU_FAILOVER_LOG_MAX, default 256 MiB */
    static size_t n;
    if (!n) {
        const char *e = getenv("RGPU_FAILOVER_LOG_MAX");
        long long v = e && *e ? atoll(e) : 0;
        n = v > 0 ? (size_t)v : (size_t)256 << 20;
    }
    return n;
}
#define LOG_MAX_BYTES log_max_bytes()

static void log_clear(struct rgpu_failover *f) {
    for (size_t i = 0; i < f->nlog; i++) {
        for (size_t k = 0; k < f->log[i].n; k++) zmq_msg_close(&f->log[i].frames[k]);
        free(f->log[i].frames);
    }
    f->nlog = 0, f->logbytes = 0, f->nseen = 0;
    f->nkeys = 0, f->heads = 0, f->delta_heads = 0; /* keys are the log's messages */
}

/* Nothing to resume from: the log and the image dropped, none kept until a checkpoint is taken again. */
static void drop_images(struct rgpu_failover *f) {
    for (int i = 0; i < f->nimages; i++) zmq_msg_close(&f->images[i]);
    f->nimages = 0, f->held_bytes = 0, f->now_bytes = 0;
}

static void drop_all(struct rgpu_failover *f) {
    log_clear(f);
    drop_images(f);
    slabs_release(f);
    free(f->scratch);
    f->scratch = NULL, f->scratchcap = 0;
    f->off = 1;
}

void rgpu_fo_logged_rebuilt(rgpu_session *s, const rgpu_replay_msg *m, struct rgpu_call *c, uint64_t seq) {
    struct rgpu_failover *f = s->fo;
    if (!f || f->off) return;
    mp_writer hdr;
    rgpu_encode_head(&hdr, m->async_hdr, m->async_len, m->nasync, c, seq, SEG_NONE, 0, 1); /* as rgpu_send_batch */
    size_t n = 1 + m->async_frames + (size_t)c->nbulk;
    zmq_msg_t *frames = hdr.oom ? NULL : malloc(n * sizeof *frames);
    if (!frames || m->n < 1 + m->async_frames) {
        free(frames);
        mp_free(&hdr);
        not_logged(s); /* a log with a message missing would replay something else: none instead */
        return;
    }
    zmq_msg_init_data(&frames[0], hdr.buf, hdr.len, rgpu_free_bytes, NULL);
    for (size_t i = 0; i < m->async_frames; i++) { /* the async calls' data, shared with the kept message */
        zmq_msg_init(&frames[1 + i]);
        zmq_msg_copy(&frames[1 + i], &m->frames[1 + i]);
    }
    for (int i = 0; i < c->nbulk; i++) /* the call's input, the program's buffer: rgpu_fo_logged copies it */
        zmq_msg_init_data(&frames[1 + m->async_frames + (size_t)i], (void *)c->bulk[i], c->bulk_len[i], NULL, NULL);
    rgpu_fo_logged(s, frames, n, m->owned);
    for (size_t i = 0; i < n; i++) zmq_msg_close(&frames[i]);
    free(frames);
}

int rgpu_fo_wants_delta(rgpu_session *s) {
    struct rgpu_failover *f = s->fo;
    /* the chain is kept within twice what a whole image would take (and its headers' slack) */
    return f && f->nimages > 0 && f->nimages < MAX_IMAGES && f->held_bytes <= 2 * f->now_bytes + ((size_t)1 << 20);
}

void rgpu_fo_checkpointed(rgpu_session *s, struct rgpu_call *c, int rc, double took_s) {
    struct rgpu_failover *f = s->fo;
    f->last_ckpt = now_s(); /* a refused one too: it is asked again after the interval, not at every call */
    f->handed_new = 0;
    int delta = 0;
    size_t now = 0;
    if (rc == 0 && c->nout_bulk == 1) {
        int said = c->nouts >= 4; /* outs [its bytes, the memory it holds, delta, a whole image's bytes now] */
        (void)rgpu_out_u(c), (void)rgpu_out_u(c);
        delta = said && rgpu_out_u(c) == 1;
        now = said ? (size_t)rgpu_out_u(c) : 0;
        if (delta && !rgpu_fo_wants_delta(s)) { /* a delta on a chain this session does not hold: useless */
            rgpu_log(RGPU_LOG_WARN, "failover: %s answered a checkpoint with a delta that was not asked for; "
                     "kept the one before", s->url);
            rc = -1;
        }
    }
    if (rc != 0 || c->nout_bulk != 1) {
        if (!f->refused++)
            rgpu_log(RGPU_LOG_WARN, "failover: the server keeps no checkpoint of this session (%d: %s); its log "
                     "grows until one is taken", rc, rgpu_last_server_message());
        if (!f->off && f->logbytes > LOG_MAX_BYTES) {
            drop_all(f);
            rgpu_log(RGPU_LOG_WARN, "failover: the log of %s passed %zu bytes with no checkpoint taken: dropped; this "
                     "session has no failover until the server takes one", s->url, LOG_MAX_BYTES);
        }
        return;
    }
    f->refused = 0, f->off = 0;
    double stretched = took_s * (1 - budget()) / budget();
    f->gap = stretched > interval_s() ? stretched : interval_s();
    if (!delta) drop_images(f);
    zmq_msg_t *kept = &f->images[f->nimages++];
    zmq_msg_init(kept);
    zmq_msg_move(kept, (zmq_msg_t *)c->out_bulk[0]);
    f->held_bytes += zmq_msg_size(kept);
    f->now_bytes = now ? now : zmq_msg_size(kept);
    f->checkpoints++;
    rgpu_log(RGPU_LOG_DEBUG, "failover: checkpoint %u of %s (%s), %zu bytes in %.4f s; the next in %.1f s at the earliest; "
             "the log it empties held %zu messages in %zu bytes, %zu of %zu heads as differences",
             f->checkpoints, s->url, delta ? "a delta" : "whole", zmq_msg_size(kept), took_s, f->gap, f->nlog,
             f->logbytes, f->delta_heads, f->heads);
    log_clear(f); /* everything before the checkpoint is in the images, the checkpoint's own message too */
}

int rgpu_fo_due(rgpu_session *s) {
    return s->fo && s->state == 1 &&
           (now_s() - s->fo->last_ckpt >= s->fo->gap || (s->fo->handed_new && !s->fo->refused) ||
            (s->fo->logbytes > LOG_MAX_BYTES && !s->fo->refused));
}

/* Sends one message of a single call record (seq, id, sync) and nbulk bulk frames. */
static int send_one(rgpu_session *s, uint64_t seq, uint32_t id, zmq_msg_t *bulk, int nbulk) {
    mp_writer w;
    mp_init(&w, 64);
    mp_array(&w, 1);
    uint8_t empty[4];
    mp_writer args;
    mp_init_inline(&args, empty, sizeof empty);
    rgpu_env_call call = {.seq = seq, .call_id = id, .sync = 1, .args = {.p = args.buf, .len = 0, .n = 0},
                          .nbulk = (uint64_t)nbulk};
    rgpu_env_write_call(&w, &call);
    int rc = zmq_send(s->sock, w.buf, w.len, nbulk ? ZMQ_SNDMORE : 0);
    mp_free(&w);
    for (int i = 0; rc >= 0 && i < nbulk; i++) {
        zmq_msg_t copy;
        zmq_msg_init(&copy);
        zmq_msg_copy(&copy, &bulk[i]);
        rc = rgpu_send_part(s, &copy, i + 1 < nbulk ? ZMQ_SNDMORE : 0);
        if (rc < 0) zmq_msg_close(&copy);
    }
    if (rc >= 0) rgpu_ring_sent_on_socket(s); /* a new server on this host waits on its ring's doorbell */
    return rc >= 0 ? 0 : -1;
}

/* Receives one message (head and frames); 0, or -1 when none came within the timeout or the connection
 * dropped (the socket's monitor: a server that dies during the recovery is noticed at once, not after
 * RGPU_TIMEOUT). */
static int recv_all(rgpu_session *s, zmq_msg_t *head, zmq_msg_t *frames, int cap, int *n) {
    if (rgpu_wait_readable(s->sock, s, rgpu_now_s() + rgpu_timeout_s()) != 0) return -1;
    zmq_msg_init(head);
    zmq_msg_recv(head, s->sock, 0);
    *n = 0;
    for (int more = zmq_msg_more(head); more;) {
        zmq_msg_t b;
        zmq_msg_init(&b);
        more = rgpu_recv_part(s, &b);
        if (*n < cap) {
            zmq_msg_init(&frames[*n]);
            zmq_msg_move(&frames[(*n)++], &b);
        }
        zmq_msg_close(&b);
    }
    return 0;
}

static void close_all(zmq_msg_t *head, zmq_msg_t *frames, int n) {
    zmq_msg_close(head);
    for (int i = 0; i < n; i++) zmq_msg_close(&frames[i]);
}

#define MAX_FRAMES 64

/* How an attempt to resume on a server ends (resume_on): LOST when that server (or the way to it) went
 * too, so another may be asked for; REFUSED when a retry elsewhere would meet the same (the checkpoint
 * refused, a replayed answer that differs). */
enum { RESUMED = 0, REFUSED = -1, LOST = -2 };

/* A barrier after the logged message just sent, and every reply up to the barrier's checked against
 * what the program saw (the seen entries from *at on). RESUMED, or LOST or REFUSED and why. */
static int check_replies(rgpu_session *s, struct rgpu_failover *f, size_t *at, size_t checked[2], const char *server,
                         char *why, size_t cap) {
    zmq_msg_t head, frames[MAX_FRAMES];
    int n = 0;
    rgpu_env_reply rep = {0};
    const char *bad = "";
    mp_reader r;
    uint64_t bseq = ++s->seq;
    if (send_one(s, bseq, RGPU_BARRIER, NULL, 0) != 0) {
        snprintf(why, cap, "sending the log to %s failed", server);
        return LOST;
    }
    rgpu_dig data = rgpu_dig_start();
    uint64_t data_seq = 0;
    for (;;) {
        if (recv_all(s, &head, frames, MAX_FRAMES, &n) != 0) {
            snprintf(why, cap, "the new server %s did not answer the replayed calls", server);
            return LOST;
        }
        mp_rinit(&r, zmq_msg_data(&head), zmq_msg_size(&head));
        if (rgpu_env_read_reply(&r, &rep, &bad) != 0) {
            close_all(&head, frames, n);
            continue;
        }
        if (rep.seq == bseq) {
            close_all(&head, frames, n);
            return 0;
        }
        if (rep.seq != data_seq) data = rgpu_dig_start(), data_seq = rep.seq;
        for (int i = 0; i < n; i++) rgpu_dig_add(&data, zmq_msg_data(&frames[i]), zmq_msg_size(&frames[i]));
        if (rep.result == RGPU_PIECE_OUT || rep.seq == 0) {
            close_all(&head, frames, n);
            continue;
        }
        int late = rep.result == RGPU_LATE_OUT;
        while (*at < f->nseen && f->seen[*at].seq < rep.seq) (*at)++;
        fo_seen *e = *at < f->nseen && f->seen[*at].seq == rep.seq && f->seen[*at].late == late ? &f->seen[*at] : NULL;
        int answer = e && !late && e->head != head_digest(&rep);
        if (e) checked[late]++;
        if (e && (answer || e->data != rgpu_dig_end(&data))) {
            snprintf(why, cap, "call %llu (%s) since the last checkpoint gives another %s when it is run again on "
                     "%s than the program already saw (result %lld): work whose result the program saw cannot be "
                     "replayed exactly (a timing, or anything the device does not do alike twice), so the program "
                     "cannot carry on; its results since the checkpoint are not the ones a replay would give",
                     (unsigned long long)rep.seq, e->name ? e->name : "?", answer ? "answer" : "data", server,
                     (long long)rep.result);
            close_all(&head, frames, n);
            return REFUSED;
        }
        close_all(&head, frames, n);
    }
}

/* One attempt at resuming on `server`: the session opened there, the checkpoint restored, the log
 * replayed a message at a time and checked. RESUMED, or LOST or REFUSED and why. */
static int resume_on(rgpu_session *s, struct rgpu_failover *f, int dev, const char *server, size_t checked[2],
                     char *why, size_t cap) {
    if (rgpu_session_reopen(s, dev, server) != 0) {
        snprintf(why, cap, "the session could not be opened again on %s", server);
        return LOST;
    }
    zmq_msg_t head, frames[MAX_FRAMES];
    int n = 0;
    rgpu_env_reply rep = {0};
    const char *bad = "";
    mp_reader r;
    if (f->nimages) {
        rgpu_log(RGPU_LOG_INFO, "failover: device %d restoring its checkpoint on %s (%d image%s, %zu bytes)", dev,
                 server, f->nimages, f->nimages == 1 ? "" : "s", f->held_bytes);
        uint64_t seq = ++s->seq;
        if (send_one(s, seq, RGPU_RESTORE, f->images, f->nimages) != 0 || recv_all(s, &head, frames, MAX_FRAMES, &n) != 0) {
            snprintf(why, cap, "the new server %s did not answer the restore", server);
            return LOST;
        }
        mp_rinit(&r, zmq_msg_data(&head), zmq_msg_size(&head));
        int ok = rgpu_env_read_reply(&r, &rep, &bad) == 0 && rep.seq == seq && rep.result == 0;
        if (!ok) snprintf(why, cap, "the new server %s refused the checkpoint: %.*s", server,
                          (int)(bad[0] ? strlen(bad) : rep.message.n), bad[0] ? bad : (const char *)rep.message.p);
        close_all(&head, frames, n);
        if (!ok) return REFUSED;
    }
    /* The log, a message at a time as the program sent it, each followed by a barrier whose reply
     * says the server ran it and sent every reply to it: the next is sent only then. Sent back to back
     * instead, the worker would run a message while the replies to the one before were still going
     * out, and a reply whose data the server sends without a copy (the software GPU's D2H data is a
     * view of device memory) would carry what the next message wrote there (an H2D copy) instead of
     * what the program saw. The program never sent past a message with a sync call before its replies
     * came, so neither does this (a barrier after an async batch too, for simplicity: a round trip). */
    size_t at = 0; /* the seen entries come in seq order, as the replies do */
    checked[0] = checked[1] = 0; /* replies compared with what the program saw: calls', async copies' data */
    for (size_t i = 0; i < f->nlog; i++) {
        fo_msg *m = &f->log[i];
        for (size_t k = 0; k < m->n; k++) {
            zmq_msg_t copy;
            if (k == 0 && m->key) { /* the head, from its key and its differences */
                if (zmq_msg_init_size(&copy, m->head_len)) {
                    snprintf(why, cap, "out of memory replaying the log");
                    return REFUSED;
                }
                rgpu_delta_apply(zmq_msg_data(&f->log[m->key - 1].frames[0]), zmq_msg_data(&m->frames[0]), m->head_len,
                                 zmq_msg_data(&copy));
            } else {
                zmq_msg_init(&copy);
                zmq_msg_copy(&copy, &m->frames[k]);
            }
            int more = k + 1 < m->n ? ZMQ_SNDMORE : 0; /* frame 0 is the head */
            if ((k ? rgpu_send_part(s, &copy, more) : rgpu_send_head(s, &copy, more)) < 0) {
                zmq_msg_close(&copy);
                snprintf(why, cap, "sending the log to %s failed", server);
                return LOST;
            }
        }
        rgpu_ring_sent_on_socket(s);
        int rc = check_replies(s, f, &at, checked, server, why, cap);
        if (rc != RESUMED) return rc;
    }
    return RESUMED;
}

/* The servers one recovery may try: the one placed on may die too before the session is resumed there
 * (a rack's power, a second failure while the first is handled), and each try may wait RGPU_TIMEOUT. */
#define MAX_TRIES 4

int rgpu_fo_recover(rgpu_session *s, int dev, char *why, size_t cap) {
    struct rgpu_failover *f = s->fo;
    const char *lease = rgpu_failover_lease();
    if (!f || !lease) return -1;
    if (f->off) {
        snprintf(why, cap, "the server took no checkpoint of this session for %zu bytes of its log (it refused: "
                 "see the warning before), so there is nothing to resume from", LOG_MAX_BYTES);
        return -1;
    }
    double t0 = now_s();
    char server[600], token[8192];
    char lost[MAX_TRIES][sizeof s->url];
    const char *avoid[MAX_TRIES];
    size_t checked[2] = {0, 0};
    rgpu_log(RGPU_LOG_WARN, "failover: device %d lost its server %s; asking the controller for another", dev, s->url);
    for (int tries = 0;; tries++) {
        /* s->url: the server lost last; those lost before it in this recovery are avoided too */
        snprintf(lost[tries], sizeof lost[tries], "%s", s->url);
        avoid[tries] = lost[tries];
        if (rgpu_lease_failover(lease, dev, s->url, avoid, tries, server, sizeof server, token, sizeof token, why,
                                cap) != 0)
            return -1;
        int rc = resume_on(s, f, dev, server, checked, why, cap);
        if (rc == RESUMED) break;
        if (rc == REFUSED || tries + 1 == MAX_TRIES) return -1;
        rgpu_log(RGPU_LOG_WARN, "failover: device %d lost %s too, before the session was resumed there (%s); "
                 "asking the controller for another", dev, server, why);
    }
    f->recoveries++;
    s->moves++; /* a new worker: what the client asked the old one once it asks again (memory/placed.c) */
    char from[96];
    if (f->nimages)
        snprintf(from, sizeof from, "its checkpoint (a whole image and %d delta%s)", f->nimages - 1,
                 f->nimages == 2 ? "" : "s");
    else
        snprintf(from, sizeof from, "the start (no checkpoint yet)");
    rgpu_log(RGPU_LOG_WARN, "failover: device %d resumed on %s from %s and %zu logged message(s) (%zu of their heads "
             "kept as differences) in %.3f s, replayed alike: %zu call result(s) and %zu asynchronous copies' data "
             "the program saw", dev, server, from, f->nlog, f->delta_heads, now_s() - t0, checked[0], checked[1]);
    return 0;
}
