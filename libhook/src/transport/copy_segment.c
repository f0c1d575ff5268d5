/* The same-host copy paths through shared memory: the call's data in the session segment (whole, or
 * staged chunk by chunk after the send, either way), or the program's pinned segment named instead
 * of moved; and how each is written into the call's record (the envelope's copy variants). */
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
#include "rgpu_call.h"
#include "session_parts.h"
#include "stats.h"

/* A large synchronous copy from pageable memory is staged in chunks after its call is sent: the
 * worker copies chunk i into the device while this thread copies chunk i+1 into the segment. The
 * segment's first page holds, after the nonce, the seq of the call being staged and how many of its
 * bytes are in place (server/staging.py waits on them). On unless RGPU_SHM_PIPELINE=0. On the software
 * GPU of a two-core machine this direction measures about even (both copies are the CPU's) and the
 * other faster in every run, typically by 20-35% at 16 MiB; on a GPU the DMA engine does the worker's
 * half of both, which leaves the client's copy alone on the clock: hence several threads copy each
 * chunk (rgpu_copy, copies.c), here and in the whole and the D2H copies through the segment. */
#define PIPE_CHUNK (4u << 20)
#define PIPE_SEQ 16
#define PIPE_DONE 24
/* The other way, a large sync D2H copy into pageable memory: the worker writes it into the segment a
 * chunk at a time and says so in these words (the call's seq, bytes in place), and this thread copies
 * each chunk out while the device writes the next (rgpu_take_early; server/staging.py, _run_staged_out). */
#define PIPE_OUT_SEQ 32
#define PIPE_OUT_DONE 40

/* A switch that is on unless its variable says 0, read once. */
int rgpu_switched_on(const char *name, int *cache) {
    if (*cache < 0) {
        const char *e = getenv(name);
        *cache = !(e && !strcmp(e, "0"));
    }
    return *cache;
}

/* A variable's whole number of at least `min`, read now; `dflt` when it is unset, and, said in the
 * log, when it is not such a number (a `dflt` below `min` stands for a default the caller chooses). */
long rgpu_env_whole(const char *name, long min, long dflt) {
    const char *e = getenv(name);
    if (!e || !*e) return dflt;
    char *end = NULL;
    long v = strtol(e, &end, 10);
    if (*end || v < min) {
        if (dflt >= min) rgpu_log(RGPU_LOG_WARN, "%s=%s is not a whole number >= %ld: using %ld", name, e, min, dflt);
        else rgpu_log(RGPU_LOG_WARN, "%s=%s is not a whole number >= %ld: using the default", name, e, min);
        return dflt;
    }
    return v;
}

static int pipeline_on(void) {
    static int on = -1;
    return rgpu_switched_on("RGPU_SHM_PIPELINE", &on);
}

/* Whether a call sent so carries its bulk input as frames (the others put it in the segment, or
 * have none to carry). */
int rgpu_input_in_frames(int shm) { return shm == SEG_NONE || shm == SEG_OUT || shm == SEG_STAGED_OUT; }

/* One call record of a request (protocol/contract/envelope.toml; the generated writer). */
void rgpu_encode_call(mp_writer *w, uint64_t seq, struct rgpu_call *c, int sync, int shm, size_t shm_len) {
    rgpu_env_call e = {.seq = seq, .call_id = c->id, .sync = (uint64_t)sync,
                       .args = {.p = c->args.buf, .len = c->args.len, .n = (uint32_t)c->nargs},
                       .nbulk = rgpu_input_in_frames(shm) ? (uint64_t)c->nbulk : 0};
    rgpu_env_region in = {.offset = RGPU_SHM_DATA, .length = shm_len};
    rgpu_env_list one_in = {.n = 1, .items = &in}, none = {.n = 0, .items = &in};
    if (shm == SEG_PINNED) {
        /* the program's pinned segment and the copy's range in it: no data either way */
        e.copy.tag = RGPU_ENV_PINNED;
        e.copy.u.pinned = (rgpu_env_pinned){.name = {c->pin->name, (uint32_t)strlen(c->pin->name)},
                                            .nonce = {c->pin->nonce, sizeof c->pin->nonce},
                                            .size = c->pin->size, .offset = c->pin_off, .length = c->pin_len};
    } else if (shm == SEG_STAGED_IN || shm == SEG_STAGED_OUT) {
        /* staged in: the input region, copied in while the worker copies what has arrived (the progress
         * word in the segment's first page, stage_progressive); staged out: room for the reply's bulk,
         * the worker saying how much of it is in place as it goes (PIPE_OUT_SEQ, PIPE_OUT_DONE) */
        e.copy.tag = RGPU_ENV_STAGED;
        e.copy.u.staged = (rgpu_env_staged){.regions = shm == SEG_STAGED_IN ? one_in : none,
                                            .room = shm == SEG_STAGED_IN ? 0 : shm_len, .seq = seq};
    } else if (shm) {
        /* the input in the segment, or room there for the reply's bulk */
        e.copy.tag = RGPU_ENV_SHM;
        e.copy.u.shm = (rgpu_env_shm){.regions = shm == SEG_IN ? one_in : none, .room = shm == SEG_IN ? 0 : shm_len};
    }
    rgpu_env_write_call(w, &e);
}

/* A request's head: the queued async calls as they were encoded (`async`, `nasync` of them), then c
 * (seq `seq`, its data moving as `shm` says), then, if `followers`, c's followers after it. */
void rgpu_encode_head(mp_writer *w, const uint8_t *async, size_t alen, uint32_t nasync, struct rgpu_call *c,
                      uint64_t seq, int shm, size_t shm_len, int followers) {
    int nthen = c && followers ? c->nthen : 0;
    mp_init(w, alen + 96 + (c ? c->args.len : 0));
    mp_array(w, nasync + (c ? 1 + (uint32_t)nthen : 0));
    mp_raw(w, async, alen);
    if (c) rgpu_encode_call(w, seq, c, rgpu_sync_field(c, shm), shm, shm_len);
    for (int i = 0; i < nthen; i++) /* followers: seqs after c's, no bulk input, data back in frames */
        rgpu_encode_call(w, seq + 1 + (uint64_t)i, &c->then[i], 1, SEG_NONE, 0);
}

/* Whether (and how) a sync call's bulk data moves through the session's shared memory. */
int rgpu_shm_mode(rgpu_session *s, struct rgpu_call *c, size_t *len) {
    if (c) c->pin_used = c->shm_piped = 0;
    /* a --failover session's pinned memory is named for the device to read (its data goes in the log as
     * in frames: session.c), and for an async copy's data the worker writes there before its next reply
     * (RGPU_OUT_LATER: the client digests it then, copy_late.c); what the device writes there at any other
     * time the log could not check (failover.c) */
    if (c && c->pin && s->shm_base && (c->flags & RGPU_F_SHM) && (!s->fo || !c->device_reads || c->late_dst)) {
        c->pin_used = 1;
        __atomic_or_fetch(&c->pin->told, 1u << (s - rgpu_sessions_internal()), __ATOMIC_RELEASE);
        return SEG_PINNED;
    }
    if (!c || !c->shm || !s->shm_base || !(c->flags & RGPU_F_SHM)) return SEG_NONE; /* the record allows it, or frames */
    if (c->shm == 1) {
        size_t n = 0;
        for (int i = 0; i < c->nbulk; i++) n += c->bulk_len[i];
        if (rgpu_shm_reserve(s, n) != 0) return SEG_NONE;
        if (n >= 2 * PIPE_CHUNK && pipeline_on()) { /* copied in after the send, chunk by chunk */
            *len = n;
            return SEG_STAGED_IN;
        }
        for (size_t i = 0, off = 0; i < (size_t)c->nbulk; off += c->bulk_len[i++])
            rgpu_copy((char *)s->shm_base + RGPU_SHM_DATA + off, c->bulk[i], c->bulk_len[i]);
        *len = n;
        return SEG_IN;
    }
    if (rgpu_shm_reserve(s, c->shm_cap) != 0) return SEG_NONE;
    *len = c->shm_cap;
    if (c->shm_cap >= 2 * PIPE_CHUNK && pipeline_on()) {
        c->shm_piped = 1;
        return SEG_STAGED_OUT;
    }
    return SEG_OUT;
}

/* The chunks of a piped D2H copy (SEG_STAGED_OUT) the worker has put in the segment, copied out while it
 * writes the next, until its reply is readable (the rest is copied then), the connection has news
 * (a worker that died: the caller's wait says so), or the deadline passes. While the chunks come,
 * and for the first milliseconds (a copy with nothing queued before it starts at once), this only
 * yields between looks; a copy whose worker has not started on it by then (it may first run
 * minutes of queued kernels) is waited for asleep in the poll, a millisecond at a time. */
#define EAGER_S 0.003
void rgpu_take_early(rgpu_session *s, struct rgpu_call *c, uint64_t seq, double deadline) {
    const char *h = s->shm_base;
    size_t cap = c->shm_cap < s->shm_size ? c->shm_cap : s->shm_size;
    double eager_until = rgpu_now_s() + EAGER_S;
    for (unsigned idle = 0;;) {
        int started = __atomic_load_n((const uint64_t *)(h + PIPE_OUT_SEQ), __ATOMIC_ACQUIRE) == seq;
        int eager = started || rgpu_now_s() < eager_until;
        zmq_pollitem_t items[2] = {{s->sock, 0, ZMQ_POLLIN, 0}, {s->mon, 0, ZMQ_POLLIN, 0}};
        if (zmq_poll(items, s->mon ? 2 : 1, eager ? 0 : 1) > 0) return;
        uint64_t done = started ? __atomic_load_n((const uint64_t *)(h + PIPE_OUT_DONE), __ATOMIC_ACQUIRE) : 0;
        if (done > cap) done = cap;
        if (done > c->shm_early) {
            rgpu_copy((char *)c->shm_dst + c->shm_early, h + RGPU_SHM_DATA + c->shm_early, done - c->shm_early);
            c->shm_early = done;
            idle = 0;
            continue;
        }
        if ((!eager || ++idle % 1024 == 0) && rgpu_now_s() > deadline) return;
        if (eager) sched_yield();
    }
}

void rgpu_free_bytes(void *data, void *hint) { (void)hint; free(data); }

void rgpu_stage_begin(rgpu_session *s, uint64_t seq) {
    char *h = s->shm_base;
    __atomic_store_n((uint64_t *)(h + PIPE_DONE), 0, __ATOMIC_RELEASE);
    __atomic_store_n((uint64_t *)(h + PIPE_SEQ), seq, __ATOMIC_RELEASE);
}

void rgpu_stage_progressive(rgpu_session *s, struct rgpu_call *c) {
    char *h = s->shm_base, *dst = h + RGPU_SHM_DATA;
    size_t done = 0;
    for (int i = 0; i < c->nbulk; i++) {
        for (size_t off = 0; off < c->bulk_len[i]; off += PIPE_CHUNK) {
            size_t k = c->bulk_len[i] - off < PIPE_CHUNK ? c->bulk_len[i] - off : PIPE_CHUNK;
            rgpu_copy(dst + done, (const char *)c->bulk[i] + off, k); /* all of it, before the progress word says so */
            done += k;
            __atomic_store_n((uint64_t *)(h + PIPE_DONE), (uint64_t)done, __ATOMIC_RELEASE);
        }
    }
}

