/* The transport's session: calls sent to the session worker (DEALER <-> its ROUTER) and queued.
 *
 * A request is one multipart message: a msgpack header frame holding an array of calls
 * [seq, call id, sync flag, args, number of bulk frames] followed by the bulk frames of all of
 * them in order. Async calls queue in the session and travel with the next sync call (or when the
 * queue is full), so a stream of launches costs one message, not one round trip each. A reply is
 * [seq, result, outs, deferred error, message] plus bulk frames (reply_wait.c). Opening the
 * connection is connection.c's; following a move, replay.c's; each copy path has its file
 * (copy_segment.c, copy_pieces.c, copy_late.c). */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "copies.h"
#include "rgpu_envelope.h"
#include "failover.h"
#include "ring.h"
#include "rgpu_call.h"
#include "session_parts.h"
#include "stats.h"

#define BATCH_MAX_CALLS 256
#define BATCH_MAX_BYTES (8u << 20)

/* RGPU_BATCH_CALLS: the most async calls one message carries (at most BATCH_MAX_CALLS). A GPU runs a
 * launch as soon as the program makes it; the calls held here run only once their message goes, at
 * the latest with the program's next synchronisation, so with all of a training step's calls held (a
 * transformer's 166) its kernels ran after the program's work on the step instead of beside it (the
 * H200, 2026-12-04: 1.21x native). Smaller messages start the device sooner: by default DEFAULT_BATCH
 * at a time. Beside the worker such a message takes the call ring (ring.c) and the worker's compiled
 * loop runs it; across hosts it is a socket message, which the worker's compiled launcher runs too
 * before Python decodes it, and which the program does not wait for. On the null driver (2-core VM),
 * 16 against all held: beside the worker, 5 us kernels, the transformer's step 4.00-4.29 -> 2.88-3.15
 * ms and the decode loop's 256-270 -> 220-228 us (benchmarks/results/async-ring-2026-12-04.md); on the
 * test bed across hosts (CURVE, relay at 0.05 ms), 5 us kernels, a CNN's step 2836-3097 -> 2357-2542
 * us, 50 us kernels, the transformer's 13.6-13.7 -> 9.8-9.9 ms, the decode loop's no slower
 * (ring-records-2026-12-05.md). A
 * --failover session holds them (BATCH_MAX_CALLS): its log and resend after a move are tested so.
 * Counted, not timed: a loop's messages split the same way every step, so across hosts their heads
 * cross as their differences from the last step's (head_delta.c keeps the heads of the 8 lengths used
 * most recently). */
#define DEFAULT_BATCH 16

static uint32_t batch_calls(const rgpu_session *s) {
    static long n = -1;
    if (n < 0) {
        long v = rgpu_env_whole("RGPU_BATCH_CALLS", 1, 0); /* 0: not set (or malformed): by the session */
        n = v > BATCH_MAX_CALLS ? BATCH_MAX_CALLS : v;
    }
    if (n) return (uint32_t)n;
    return s->fo ? BATCH_MAX_CALLS : DEFAULT_BATCH;
}

/* Sends the queued async calls plus (optionally) one more call, as one message. */
int rgpu_send_batch(rgpu_session *s, struct rgpu_call *c, uint64_t seq) {
    size_t shm_len = 0;
    int shm = rgpu_shm_mode(s, c, &shm_len);
    /* the wire twin (wire_twin) goes only with a sync call: the message is then the last kept, which
     * the log and a resend rebuild from `batch` (r->async_hdr) instead of sending what went */
    int wired = c && s->wire_on && s->wire_calls == s->nbatch && !s->nborrowed && !s->wire.oom;
    rgpu_replay_msg *r = rgpu_replay_new(s);
    if (r) {
        r->last_seq = s->seq;
        r->owned = 1 + s->nbulk - s->nborrowed; /* a borrowed frame is the caller's: failover's log copies it */
        if ((shm || wired) && (r->async_hdr = malloc(s->batch.len ? s->batch.len : 1)) != NULL) {
            r->shm = 1;
            memcpy(r->async_hdr, s->batch.buf, s->batch.len);
            r->async_len = s->batch.len, r->nasync = s->nbatch, r->async_frames = s->nbulk;
        }
    }
    if (wired && !(r && r->shm)) wired = 0; /* nothing to rebuild it from: `batch` goes, its data in frames */
    const mp_writer *calls = wired ? &s->wire : &s->batch;
    mp_writer hdr;
    rgpu_encode_head(&hdr, calls->buf, calls->len, s->nbatch, c, seq, shm, shm_len, 1);
    if (hdr.oom) {
        if (r) free(r->async_hdr), s->nreplay--; /* r is the last kept: as if never made */
        return -1;
    }
    /* the copies whose data comes late that go now: named to the worker only if their twin goes */
    for (int i = 0; i < s->nlate; i++)
        if (!s->late[i].sent) s->late[i].sent = 1, s->late[i].seg &= (uint8_t)wired;
    int cframes = c && rgpu_input_in_frames(shm) ? c->nbulk : 0;
    size_t async_sent = s->nbulk;
    if (wired)
        for (size_t i = 0; i < s->nbulk; i++) async_sent -= !s->wired[i];
    size_t nframes = async_sent + (size_t)cframes;
    if (shm == SEG_STAGED_IN) rgpu_stage_begin(s, seq);
    zmq_msg_t head;
    zmq_msg_init_data(&head, hdr.buf, hdr.len, rgpu_free_bytes, NULL);
    rgpu_replay_keep(s, r, &head);
    /* A sync message whose reply comes whole goes on the call ring when there is one (ring.c), its
     * async calls' data frames in its record (ring.h), a copy from or to pinned memory too (its data
     * moves by DMA: the worker's compiled loop serves it, copies.c pinned_sync_one); the rest, and
     * anything larger than a record, on the socket, counted there. So do a message whose sync call has
     * followers (several replies) and one sent while async copies' data is still to come (it comes on
     * the socket ahead of the reply: copy_late.c). A message of async calls only (no `c`) takes the ring on the same terms, when
     * there is room, and wants no reply; not a --failover session's, whose log and resend after a
     * move (replay.c) are tested with such messages on the socket only. */
    int ring = s->ring_on && !cframes && nframes <= RGPU_RING_FRAMES_MAX &&
               (!s->nlate || !rgpu_late_on_socket(s)) &&
               (c ? !c->nthen && (shm == SEG_NONE || shm == SEG_IN || shm == SEG_OUT || shm == SEG_PINNED) &&
                        !c->shm_piped && rgpu_sync_field(c, shm) == 1
                  : !s->fo);
    if (ring) {
        /* its async calls' data frames go in its record (an async copy's from pageable memory, taken at
         * the call), kept for the log below as on the socket (a sync call's own frames keep the socket:
         * they are the caller's, which the log keeps by reference there) */
        rgpu_ring_part parts[RGPU_RING_FRAMES_MAX];
        size_t np = 0;
        for (size_t i = 0; i < s->nbulk; i++)
            if (!wired || s->wired[i])
                parts[np].p = zmq_msg_data(&((zmq_msg_t *)s->bulk)[i]),
                parts[np++].n = zmq_msg_size(&((zmq_msg_t *)s->bulk)[i]);
        ring = rgpu_ring_send(s, hdr.buf, hdr.len, !c, parts, np) == 0;
    }
    s->ring_wait = ring && c;
    if (ring) {
        zmq_msg_close(&head);
        for (size_t i = 0; i < s->nbulk; i++) { /* in the record (a wired message's: not sent): for the log */
            rgpu_replay_keep(s, r, &((zmq_msg_t *)s->bulk)[i]);
            zmq_msg_close(&((zmq_msg_t *)s->bulk)[i]);
        }
        mp_reset(&s->batch);
        s->nbatch = 0, s->nbulk = 0, s->bulkbytes = 0, s->wire_on = 0;
        if (!c) rgpu_stats_message((int)(s - rgpu_sessions_internal()), 1);
        return 0;
    }
    int rc = rgpu_send_head(s, &head, nframes ? ZMQ_SNDMORE : 0);
    zmq_msg_t *q = s->bulk;
    for (size_t i = 0, sent = 0; i < s->nbulk; i++) {
        rgpu_replay_keep(s, r, &q[i]); /* every frame: a rebuild of a wired message needs them all */
        if (wired && !s->wired[i]) zmq_msg_close(&q[i]);
        else if (rc >= 0) rc = rgpu_send_part(s, &q[i], nframes - ++sent ? ZMQ_SNDMORE : 0);
        else zmq_msg_close(&q[i]);
    }
    for (int i = 0; i < cframes; i++) {
        int more = i + 1 < cframes ? ZMQ_SNDMORE : 0;
        /* A sync call's buffers stay alive until its reply, which the server sends only after it
         * has received them: safe to send (and to keep for a resend) without a copy. */
        zmq_msg_t m;
        zmq_msg_init_data(&m, (void *)c->bulk[i], c->bulk_len[i], NULL, NULL);
        rgpu_replay_keep(s, r, &m);
        if (rc >= 0) rc = rgpu_send_part(s, &m, more);
        else zmq_msg_close(&m);
    }
    mp_reset(&s->batch);
    s->nbatch = 0;
    s->nbulk = 0;
    s->nborrowed = 0;
    s->bulkbytes = 0;
    s->wire_on = 0;
    if (rc >= 0) rgpu_ring_sent_on_socket(s);
    if (rc >= 0 && shm == SEG_STAGED_IN) rgpu_stage_progressive(s, c);
    if (!c) rgpu_stats_message((int)(s - rgpu_sessions_internal()), 0);
    return rc >= 0 ? 0 : -1;
}

/* The sessions, one per device, in the order the configuration names the devices (state.c adds them
 * once, before any call): the transport's own table, which every floor above reaches through it. */
static rgpu_session sessions[RGPU_MAX_DEVICES];
static int nsessions;

rgpu_session *rgpu_session_add(const char *url, int gpu) {
    if (nsessions >= RGPU_MAX_DEVICES) return NULL;
    rgpu_session *s = &sessions[nsessions];
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    s->gpu = gpu;
    snprintf(s->url, sizeof s->url, "%s", url);
    mp_init(&s->batch, 4096);
    nsessions++;
    return s;
}

rgpu_session *rgpu_session_at(int dev) { return dev >= 0 && dev < nsessions ? &sessions[dev] : NULL; }
int rgpu_sessions_count_internal(void) { return nsessions; }
rgpu_session *rgpu_sessions_internal(void) { return sessions; }

/* Set once the sessions are closed at exit. Libraries whose destructors run after rgpu's (the order
 * of unrelated libraries' destructors is the loader's) still call the driver — cuBLASLt unloads its
 * modules — and get CUDA_ERROR_DEINITIALIZED, as from a driver shutting down, instead of a reopened
 * session or a wait on a lock nobody will release. */
static int closed;

int rgpu_sessions_closed(void) { return __atomic_load_n(&closed, __ATOMIC_ACQUIRE); }

void rgpu_mark_dead(rgpu_session *s, const char *why) {
    if (s->state != -1)
        rgpu_log(RGPU_LOG_ERROR, "device on %s is unavailable: %s", s->url, why);
    s->state = -1;
}

/* Messages waiting before a send (nothing is owed a reply then): a MOVED notice the old worker sent
 * while the program was idle is followed; anything else is stale. -1 if a move could not be followed.
 * Within NOTICE_QUIET_S of a reply it does not look (the look is a zmq_poll: system calls at every call
 * of a program that calls in a loop): a notice that comes that soon after a reply is answered by the
 * reply wait anyway (rgpu_sync_one follows a move and reports an ended session), as one that comes just
 * after this look always was. */
#define NOTICE_QUIET_S 0.001
static int take_notices(rgpu_session *s, int dev) {
    if (rgpu_now_s() - s->replied_at < NOTICE_QUIET_S) return 0;
    for (;;) {
        zmq_pollitem_t item = {s->sock, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&item, 1, 0) <= 0 || !(item.revents & ZMQ_POLLIN)) return 0;
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, s->sock, 0) < 0) { zmq_msg_close(&m); return 0; }
        rgpu_env_reply rep;
        int parsed = rgpu_read_reply(&m, &rep) == 0;
        if (parsed && rep.seq != 0 && rep.result == RGPU_LATE_OUT) { /* sent before a move's notice */
            rgpu_take_late(s, rep.seq, &m);
            zmq_msg_close(&m);
            continue;
        }
        int notice = parsed && rep.seq == 0;
        int moved = notice && rep.result == RGPU_MOVED;
        int more = zmq_msg_more(&m);
        int ok = moved ? rgpu_session_follow(s, dev, &rep, NULL, 0) : 0;
        if (notice && rep.result == RGPU_SESSION_ENDED) {
            /* the server ended the session while the program was idle, and says why (its lease
             * expired or was released): that is the cause the program hears, not a lost connection */
            char text[300] = "the server ended the session";
            if (rep.message.n)
                snprintf(text, sizeof text, "%.*s", (int)rep.message.n, (const char *)rep.message.p);
            rgpu_mark_dead(s, text);
            ok = -1;
        }
        zmq_msg_close(&m);
        if (!moved && more) {
            while (more) { /* a stale reply's bulk frames */
                zmq_msg_t b;
                zmq_msg_init(&b);
                more = rgpu_recv_part(s, &b);
                zmq_msg_close(&b);
            }
        }
        if (ok != 0) return -1;
    }
}

int rgpu_sync_locked(rgpu_session *s, int dev, struct rgpu_call *c);

int rgpu_session_barrier(rgpu_session *s, int dev) {
    struct rgpu_call bar;
    memset(&bar, 0, sizeof bar);
    bar.id = RGPU_BARRIER;
    bar.name = "rgpu_session_barrier";
    mp_init(&bar.args, 16);
    int rc = rgpu_sync_locked(s, dev, &bar);
    rgpu_end(&bar);
    mp_free(&bar.args);
    return rc;
}

/* Take the session's lock with its connection open: 0 (locked), or the error (unlocked). */
static int lock_open(rgpu_session *s) {
    pthread_mutex_lock(&s->mu);
    if (__atomic_load_n(&closed, __ATOMIC_ACQUIRE)) { /* the process is exiting: see rgpu_sessions_close */
        pthread_mutex_unlock(&s->mu);
        return CUDA_ERROR_DEINITIALIZED;
    }
    /* open (state 1): every call after the first; connection.c only to open one, or to say it cannot */
    if (s->state != 1 && rgpu_session_ensure_open(s, (int)(s - rgpu_sessions_internal())) != 0) {
        pthread_mutex_unlock(&s->mu);
        return RGPU_DEVICE_UNAVAILABLE;
    }
    return 0;
}

int rgpu_session_sync(rgpu_session *s, struct rgpu_call *c) {
    int rc0 = lock_open(s);
    if (rc0) return rc0;
    int dev = (int)(s - rgpu_sessions_internal());
    if (take_notices(s, dev) != 0) {
        rgpu_mark_dead(s, "it moved, and its new server cannot be reached");
        pthread_mutex_unlock(&s->mu);
        return RGPU_DEVICE_UNAVAILABLE;
    }
    int rc = rgpu_sync_locked(s, dev, c);
    if (rgpu_fo_due(s)) {
        /* a --failover session at a synchronisation point: a checkpoint now (failover.c) */
        struct rgpu_call ck;
        memset(&ck, 0, sizeof ck);
        ck.id = RGPU_CHECKPOINT;
        ck.name = "checkpoint";
        mp_init(&ck.args, 16);
        mp_uint(&ck.args, (uint64_t)rgpu_fo_wants_delta(s));
        ck.nargs = 1;
        double t0 = rgpu_now_s();
        int ckrc = rgpu_sync_locked(s, dev, &ck);
        if (ckrc != RGPU_DEVICE_UNAVAILABLE) rgpu_fo_checkpointed(s, &ck, ckrc, rgpu_now_s() - t0);
        rgpu_end(&ck);
        mp_free(&ck.args);
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* Sends `c` with the queued async calls and waits for its reply (the session's lock held). A large
 * H2D copy the session segment will not carry (another host, or larger than the segment) goes in pieces. */
int rgpu_sync_locked(rgpu_session *s, int dev, struct rgpu_call *c) {
    int segment = s->shm_base && (c->flags & RGPU_F_SHM) && c->piece_len <= s->shm_size;
    if (c->piece && c->piece_len >= RGPU_PIECE_MIN && !segment && rgpu_pieces_on())
        return rgpu_sync_pieces(s, dev, c);
    return rgpu_sync_one(s, dev, c);
}

/* One more queued frame's place in `wired` (rgpu_session): 0, or -1 out of memory. */
static int wired_room(rgpu_session *s) {
    if (s->nbulk < s->wiredcap) return 0;
    size_t cap = s->bulkcap > s->nbulk ? s->bulkcap : s->nbulk + 8;
    uint8_t *g = realloc(s->wired, cap);
    if (!g) return -1;
    s->wired = g, s->wiredcap = cap;
    return 0;
}

/* A --failover session's async copy from pinned memory, to a worker on this host: the wire names the
 * memory, so that the message needs no frame and a sync call after it takes the call ring (a training
 * step's batch, every step), while `batch` encodes it with its data copied now, as it would go in
 * frames: what the log keeps (failover.c) and what a resend to another worker sends (replay.c). The
 * program may not touch the buffer until the copy is synchronised, as in CUDA, so the bytes copied
 * now are the ones the device reads. So too an async copy into pinned memory (RGPU_OUT_LATER): the wire
 * names the memory, which the worker fills before its next reply, while `batch` asks for the data back
 * (LATE_OUT), which is what a replay compares with the digest taken here (copy_late.c). 1 when the wire
 * twin of the batch is on (and stays so). */
static int wire_twin(rgpu_session *s) {
    if (s->wire_on) return 1;
    if (!s->wire.buf) mp_init(&s->wire, 256);
    mp_reset(&s->wire);
    mp_raw(&s->wire, s->batch.buf, s->batch.len);
    for (size_t i = 0; i < s->nbulk; i++) {
        if (wired_room(s) != 0) return 0;
        s->wired[i] = 1;
    }
    if (s->wire.oom) return 0;
    s->wire_calls = s->nbatch, s->wire_on = 1;
    return 1;
}

static int send_failed(rgpu_session *s) {
    rgpu_mark_dead(s, "send failed");
    return RGPU_DEVICE_UNAVAILABLE;
}

static size_t call_frames(const struct rgpu_call *c) {
    size_t n = 0;
    for (int i = 0; i < c->nbulk; i++) n += c->bulk_len[i];
    return n;
}

/* Queues an async call (the lock held), its `sync` field `sync`; sends the batch when it is full, or
 * at once if `flush`. */
int rgpu_queue_async(rgpu_session *s, int dev, struct rgpu_call *c, int pin, int sync, int flush) {
    rgpu_stats_async(dev, c->id, c->name);
    /* A ring session's queued data frames and this call's together past what a record holds: the
     * queued ones go first, so that each message keeps to the ring (a step copying several tensors
     * from pageable memory) */
    if (s->nbulk && s->ring_on && !s->fo && !pin) {
        size_t frames = call_frames(c);
        if (frames && s->bulkbytes + frames > RGPU_RING_PIECE && rgpu_send_batch(s, NULL, 0) != 0)
            return send_failed(s);
    }
    uint64_t seq = ++s->seq;
    int twin = pin && s->fo && !s->nborrowed && wire_twin(s);
    if (pin && s->fo && !twin) pin = 0; /* then as on another host: its data in frames */
    if (s->wire_on) {
        rgpu_encode_call(&s->wire, seq, c, sync, twin ? SEG_PINNED : SEG_NONE, 0);
        s->wire_calls++;
    }
    rgpu_encode_call(&s->batch, seq, c, sync, pin && !twin ? SEG_PINNED : SEG_NONE, 0);
    s->nbatch++;
    for (int i = 0; i < c->nbulk && (!pin || twin); i++) {
        /* The caller may reuse its buffer as soon as we return: copy it into the message. */
        if (s->nbulk == s->bulkcap) {
            s->bulkcap = s->bulkcap ? s->bulkcap * 2 : 8;
            s->bulk = realloc(s->bulk, s->bulkcap * sizeof(zmq_msg_t));
        }
        if (s->wire_on && wired_room(s) != 0) s->wire_calls = 0; /* the twin no longer stands for `batch` */
        else if (s->wire_on) s->wired[s->nbulk] = !twin;
        zmq_msg_t *m = &((zmq_msg_t *)s->bulk)[s->nbulk++];
        if (rgpu_frame_init(m, c->bulk_len[i]) != 0) zmq_msg_init_size(m, c->bulk_len[i]);
        memcpy(zmq_msg_data(m), c->bulk[i], c->bulk_len[i]);
        s->bulkbytes += c->bulk_len[i];
    }
    /* A --failover session's queued calls wait for a sync call while its wire twin stands for them:
     * sent alone they would carry pinned data as frames and leave the call ring */
    uint32_t most = s->wire_on ? BATCH_MAX_CALLS : batch_calls(s);
    if (flush || s->nbatch >= most || s->bulkbytes >= BATCH_MAX_BYTES || s->batch.len >= BATCH_MAX_BYTES) {
        /* (a --failover session's batch is kept, replay.c: the next sync call recovers and sends it again) */
        if (rgpu_send_batch(s, NULL, 0) != 0 && !s->fo) return send_failed(s);
        if (s->replaybytes > REPLAY_MAX_BYTES && rgpu_session_barrier(s, dev) == RGPU_DEVICE_UNAVAILABLE)
            /* async calls are kept until a reply says they ran (a move sends them again): a
             * program that only queues work gets a barrier now and then, so they do not pile up */
            return RGPU_DEVICE_UNAVAILABLE;
    }
    return 0;
}

int rgpu_session_async(rgpu_session *s, struct rgpu_call *c) {
    int rc0 = lock_open(s);
    if (rc0) return rc0;
    int dev = (int)(s - rgpu_sessions_internal());
    if (s->nbatch == 0 && take_notices(s, dev) != 0) {
        rgpu_mark_dead(s, "it moved, and its new server cannot be reached");
        pthread_mutex_unlock(&s->mu);
        return RGPU_DEVICE_UNAVAILABLE;
    }
    int pin = 0;
    if (c->pin) {
        size_t unused;
        pin = rgpu_shm_mode(s, c, &unused) == SEG_PINNED;
        if (!pin && c->device_reads && !c->late_dst) { /* it moved to another host since the copy was made: no way back */
            pthread_mutex_unlock(&s->mu);
            return RGPU_NOT_SUPPORTED;
        }
    }
    int rc;
    if (c->late_dst) {
        /* as many copies' data awaited as the session keeps: past that, a barrier brings theirs first */
        rc = s->nlate == RGPU_LATE_MAX_COPIES || s->late_bytes + c->late_len > RGPU_LATE_MAX_BYTES ? rgpu_session_barrier(s, dev) : 0;
        /* a --failover session's copy naming its memory to a worker here: the wire twin names it */
        int twin = pin && s->fo && !s->nborrowed;
        if (rc == 0) rc = rgpu_queue_async(s, dev, c, twin, RGPU_OUT_LATER, 0);
        if (rc == 0) {
            s->late[s->nlate].seq = s->seq, s->late[s->nlate].dst = c->late_dst, s->late[s->nlate].len = c->late_len;
            /* sent already (the batch was full): as any other, without the name */
            s->late[s->nlate].sent = s->nbatch == 0;
            s->late[s->nlate].seg = twin && s->nbatch && s->wire_on;
            s->nlate++;
            s->late_bytes += c->late_len;
        }
    } else {
        size_t n = c->piece_len;
        int pieces = c->piece && (n >= RGPU_PIECE_MIN ? rgpu_pieces_on() : rgpu_ring_pieces(s, n));
        rc = !pin && pieces ? rgpu_async_pieces(s, dev, c) : rgpu_queue_async(s, dev, c, pin, 0, 0);
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* 1 when device dev's session is open and its worker mapped the session segment; *fo says whether it
 * is a --failover session's, *ring whether the worker serves the call ring. */
static int beside_worker(int dev, int *fo, int *ring) {
    rgpu_session *s = rgpu_session_at(dev);
    if (!s) return 0;
    pthread_mutex_lock(&s->mu);
    int beside = !__atomic_load_n(&closed, __ATOMIC_ACQUIRE) && rgpu_session_ensure_open(s, dev) == 0 &&
                 s->shm_base != NULL;
    *fo = s->fo != NULL;
    *ring = s->ring_on;
    pthread_mutex_unlock(&s->mu);
    return beside;
}

int rgpu_session_local(int dev) {
    /* a --failover session's host memory is never the worker's to map: its log could not replay reads of it */
    int fo, ring;
    return beside_worker(dev, &fo, &ring) && !fo;
}

int rgpu_session_beside_failover(int dev) {
    if (!rgpu_failover_lease()) return 0; /* the common case, on every small D2H copy into pinned memory: no lock */
    int fo, ring;
    return beside_worker(dev, &fo, &ring) && fo;
}

int rgpu_session_on_ring(int dev) {
    int fo, ring;
    return beside_worker(dev, &fo, &ring) && ring;
}

void rgpu_sessions_close(void) {
    int n = rgpu_sessions_count_internal();
    rgpu_session *all = rgpu_sessions_internal();
    for (int i = 0; i < n; i++) {
        rgpu_session *s = &all[i];
        /* At exit other threads may still be in a call on this session: wait for it (bounded by
         * RGPU_TIMEOUT); calls after this one see `closed` and never touch the socket again. */
        pthread_mutex_lock(&s->mu);
        __atomic_store_n(&closed, 1, __ATOMIC_RELEASE);
        if (s->state == 1) {
            /* Queued async work and a goodbye so the server ends the session now; the goodbye
             * carries the session's counts (its round trips, async calls and the messages that
             * carried only those) for the worker's session_ended line. */
            struct rgpu_call bye;
            memset(&bye, 0, sizeof bye);
            bye.id = RGPU_GOODBYE;
            bye.name = "goodbye";
            mp_init(&bye.args, 64);
            uint64_t counts[3];
            rgpu_stats_session(i, counts);
            for (int k = 0; k < 3; k++) mp_uint(&bye.args, counts[k]);
            bye.nargs = 3;
            rgpu_encode_call(&s->batch, ++s->seq, &bye, 0, 0, 0);
            s->nbatch++;
            mp_free(&bye.args);
            rgpu_send_batch(s, NULL, 0);
        }
        rgpu_shm_unmap(s);
        rgpu_bulk_close(s);
        if (s->mon) zmq_close(s->mon);
        if (s->sock) zmq_close(s->sock);
        s->sock = s->mon = NULL;
        s->tcp_fd = -1;
        rgpu_replay_clear(s);
        free(s->replay);
        s->replay = NULL;
        s->replaycap = 0;
        s->state = -1;
        pthread_mutex_unlock(&s->mu);
    }
    __atomic_store_n(&closed, 1, __ATOMIC_RELEASE);
    rgpu_connections_end();
}

