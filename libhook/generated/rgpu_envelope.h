/* generated from protocol/contract/envelope.toml by protocol/codegen/envelope.py — do not edit */
/* The data-path message envelope (protocol/contract/envelope.toml): its records and their codecs, the
 * client library's and the cuda backend's compiled loop's. Every function is static inline, so each
 * program that includes this links nothing more than its msgpack reader and writer (mpack.c).
 *
 * A record travels as a msgpack array of its fields; a tagged record (one variant of a one_of) as
 * [tag, fields...]. Readers check the whole record (types, bounds, nesting) and return 0, or -1 with
 * *why naming the record and field; they leave the reader past the record. Strings, byte strings and
 * arrays are not copied: they point into the message (an rgpu_env_list's elements are checked, and
 * read again with rgpu_env_read_<record>, or mp_rinit over [p, p + len) for args). Writers write a
 * list from `items` when it is set, else its encoded elements from [p, p + len). */
#ifndef RGPU_ENVELOPE_H
#define RGPU_ENVELOPE_H
#include <stddef.h>
#include <stdint.h>

#include "mpack.h"

#define RGPU_ENV_CALL_REGIONS 16
#define RGPU_ENV_REPLY_REGIONS 4096
#define RGPU_ENV_PIN_NAME 47
#define RGPU_ENV_PIN_NONCE 16
#define RGPU_ENV_SYNC_MAX 4
#define RGPU_ENV_REPLY_TEXT 16777216
#define RGPU_ENV_BULK_CHANNEL 16
#define RGPU_ENV_HEAD_BASE 16
#define RGPU_ENV_MAX_DEPTH 32
#define RGPU_ENV_SHM 1 /* shm's tag */
#define RGPU_ENV_STAGED 2 /* staged's tag */
#define RGPU_ENV_PINNED 3 /* pinned's tag */

typedef struct {
    const void *p; /* into the message (reading), or the caller's (writing) */
    uint32_t n;
} rgpu_env_bytes;

typedef struct {
    const uint8_t *at; /* reading: the array itself, its header included (to read it as a record) */
    const uint8_t *p;  /* the encoded elements */
    size_t len;
    uint32_t n;        /* how many */
    const void *items; /* writing only: n records to encode instead of [p, p + len) */
} rgpu_env_list;

/* Skips one value, refusing containers nested more than `depth` levels. */
static inline int rgpu_env_skip(mp_reader *r, int depth) {
    mp_obj o;
    if (mp_next(r, &o)) return -1;
    if (o.type != MP_ARRAY && o.type != MP_MAP) return 0;
    if (depth <= 0) return -1;
    uint64_t items = o.type == MP_ARRAY ? o.n : 2ull * o.n;
    if (items > (uint64_t)(r->end - r->p)) return -1; /* every element takes a byte at least */
    for (uint64_t i = 0; i < items; i++)
        if (rgpu_env_skip(r, depth - 1)) return -1;
    return 0;
}

/* region: A byte range of the session's shared segment: [offset, length]. */
typedef struct {
    uint64_t offset;
    uint64_t length;
} rgpu_env_region;

static inline void rgpu_env_write_region(mp_writer *w, const rgpu_env_region *v) {
    mp_array(w, 2);
    mp_uint(w, v->offset);
    mp_uint(w, v->length);
}

/* Reads one region record, all of it checked; 0, or -1 with *why naming the field that failed. */
static inline int rgpu_env_read_region(mp_reader *r, rgpu_env_region *v, const char **why) {
    mp_obj o;
    (void)o;
    if (mp_next(r, &o) || o.type != MP_ARRAY || o.n != 2) { *why = "region: expected an array of 2 elements"; return -1; }
    uint32_t count = o.n;
    (void)count;
    if (mp_next(r, &o) || o.type != MP_UINT) { *why = "region.offset: expected an unsigned integer"; return -1; }
    v->offset = o.v.u;
    if (mp_next(r, &o) || o.type != MP_UINT) { *why = "region.length: expected an unsigned integer"; return -1; }
    v->length = o.v.u;
    return 0;
}

/* shm: The call's bulk input is in the session segment (its regions come after any frames), and/or its
 * reply's bulk may be written there, up to `room` bytes (server/staging.py run_shm). */
typedef struct {
    rgpu_env_list regions; /* of region */
    uint64_t room;
} rgpu_env_shm;

static inline void rgpu_env_write_shm(mp_writer *w, const rgpu_env_shm *v) {
    mp_array(w, 3);
    mp_uint(w, RGPU_ENV_SHM);
    mp_array(w, v->regions.n);
    if (v->regions.items) for (uint32_t i = 0; i < v->regions.n; i++) rgpu_env_write_region(w, &((const rgpu_env_region *)v->regions.items)[i]);
    else mp_raw(w, v->regions.p, v->regions.len);
    mp_uint(w, v->room);
}

/* Reads one shm record, all of it checked; 0, or -1 with *why naming the field that failed. */
static inline int rgpu_env_read_shm(mp_reader *r, rgpu_env_shm *v, const char **why) {
    mp_obj o;
    (void)o;
    if (mp_next(r, &o) || o.type != MP_ARRAY || o.n != 3) { *why = "shm: expected an array of 3 elements"; return -1; }
    uint32_t count = o.n;
    (void)count;
    if (mp_next(r, &o) || o.type != MP_UINT || o.v.u != RGPU_ENV_SHM) { *why = "shm: expected tag 1"; return -1; }
    const uint8_t *at_regions = r->p;
    if (mp_next(r, &o) || o.type != MP_ARRAY || o.n > 16) { *why = "shm.regions: expected an array of at most 16 region"; return -1; }
    v->regions.at = at_regions; v->regions.n = o.n; v->regions.p = r->p; v->regions.items = NULL;
    for (uint32_t i = 0; i < o.n; i++) {
        rgpu_env_region item;
        if (rgpu_env_read_region(r, &item, why)) return -1;
    }
    v->regions.len = (size_t)(r->p - v->regions.p);
    if (mp_next(r, &o) || o.type != MP_UINT) { *why = "shm.room: expected an unsigned integer"; return -1; }
    v->room = o.v.u;
    return 0;
}

/* staged: A large sync copy staged chunk by chunk while the worker copies (server/staging.py run_staged):
 * H2D with one input region, or D2H with room and no regions; `seq` is the call's own, which the
 * progress word in the segment's first page names. */
typedef struct {
    rgpu_env_list regions; /* of region */
    uint64_t room;
    uint64_t seq;
} rgpu_env_staged;

static inline void rgpu_env_write_staged(mp_writer *w, const rgpu_env_staged *v) {
    mp_array(w, 4);
    mp_uint(w, RGPU_ENV_STAGED);
    mp_array(w, v->regions.n);
    if (v->regions.items) for (uint32_t i = 0; i < v->regions.n; i++) rgpu_env_write_region(w, &((const rgpu_env_region *)v->regions.items)[i]);
    else mp_raw(w, v->regions.p, v->regions.len);
    mp_uint(w, v->room);
    mp_uint(w, v->seq);
}

/* Reads one staged record, all of it checked; 0, or -1 with *why naming the field that failed. */
static inline int rgpu_env_read_staged(mp_reader *r, rgpu_env_staged *v, const char **why) {
    mp_obj o;
    (void)o;
    if (mp_next(r, &o) || o.type != MP_ARRAY || o.n != 4) { *why = "staged: expected an array of 4 elements"; return -1; }
    uint32_t count = o.n;
    (void)count;
    if (mp_next(r, &o) || o.type != MP_UINT || o.v.u != RGPU_ENV_STAGED) { *why = "staged: expected tag 2"; return -1; }
    const uint8_t *at_regions = r->p;
    if (mp_next(r, &o) || o.type != MP_ARRAY || o.n > 16) { *why = "staged.regions: expected an array of at most 16 region"; return -1; }
    v->regions.at = at_regions; v->regions.n = o.n; v->regions.p = r->p; v->regions.items = NULL;
    for (uint32_t i = 0; i < o.n; i++) {
        rgpu_env_region item;
        if (rgpu_env_read_region(r, &item, why)) return -1;
    }
    v->regions.len = (size_t)(r->p - v->regions.p);
    if (mp_next(r, &o) || o.type != MP_UINT) { *why = "staged.room: expected an unsigned integer"; return -1; }
    v->room = o.v.u;
    if (mp_next(r, &o) || o.type != MP_UINT) { *why = "staged.seq: expected an unsigned integer"; return -1; }
    v->seq = o.v.u;
    return 0;
}

/* pinned: The copy's host side is the program's pinned memory (server/pinned.py): no data travels. The
 * segment's /dev/shm name, its nonce and size, and the copy's [offset, +length) in it. */
typedef struct {
    rgpu_env_bytes name;
    rgpu_env_bytes nonce;
    uint64_t size;
    uint64_t offset;
    uint64_t length;
} rgpu_env_pinned;

static inline void rgpu_env_write_pinned(mp_writer *w, const rgpu_env_pinned *v) {
    mp_array(w, 6);
    mp_uint(w, RGPU_ENV_PINNED);
    mp_strn(w, (const char *)v->name.p, v->name.n);
    mp_bin(w, v->nonce.p, v->nonce.n);
    mp_uint(w, v->size);
    mp_uint(w, v->offset);
    mp_uint(w, v->length);
}

/* Reads one pinned record, all of it checked; 0, or -1 with *why naming the field that failed. */
static inline int rgpu_env_read_pinned(mp_reader *r, rgpu_env_pinned *v, const char **why) {
    mp_obj o;
    (void)o;
    if (mp_next(r, &o) || o.type != MP_ARRAY || o.n != 6) { *why = "pinned: expected an array of 6 elements"; return -1; }
    uint32_t count = o.n;
    (void)count;
    if (mp_next(r, &o) || o.type != MP_UINT || o.v.u != RGPU_ENV_PINNED) { *why = "pinned: expected tag 3"; return -1; }
    if (mp_next(r, &o) || o.type != MP_STR || o.n > 47) { *why = "pinned.name: expected a string of at most 47 bytes"; return -1; }
    v->name.p = o.p; v->name.n = o.n;
    if (mp_next(r, &o) || o.type != MP_BIN || o.n != 16) { *why = "pinned.nonce: expected 16 bytes"; return -1; }
    v->nonce.p = o.p; v->nonce.n = o.n;
    if (mp_next(r, &o) || o.type != MP_UINT) { *why = "pinned.size: expected an unsigned integer"; return -1; }
    v->size = o.v.u;
    if (mp_next(r, &o) || o.type != MP_UINT) { *why = "pinned.offset: expected an unsigned integer"; return -1; }
    v->offset = o.v.u;
    if (mp_next(r, &o) || o.type != MP_UINT) { *why = "pinned.length: expected an unsigned integer"; return -1; }
    v->length = o.v.u;
    return 0;
}

/* call.copy: tag 0 (absent) or one of RGPU_ENV_SHM, RGPU_ENV_STAGED, RGPU_ENV_PINNED */
typedef struct {
    uint64_t tag;
    union {
        rgpu_env_shm shm;
        rgpu_env_staged staged;
        rgpu_env_pinned pinned;
    } u;
} rgpu_env_call_copy;

/* call: One call of a request (client DEALER -> worker ROUTER; a request's first frame is an array of
 * them, its bulk frames follow, each call claiming the next `nbulk`). `sync`: 0 async, 1 sync, or one of
 * the copy kinds PIECE_IN, SYNC_PIECES_OUT, OUT_LATER (constants.toml). `copy`: how a same-host copy's data
 * moves instead of in frames. `seq` is written 4 bytes wide at least by the client library (uint(wide)):
 * a loop's successive messages then differ in their seqs' bytes alone, not in where everything after
 * them lies, and a --failover session's log keeps each head as its differences from an earlier one
 * (libhook/src/transport/log_delta.h); any msgpack unsigned integer is read. */
typedef struct {
    uint64_t seq;
    uint64_t call_id;
    uint64_t sync;
    rgpu_env_list args;
    uint64_t nbulk;
    rgpu_env_call_copy copy;
} rgpu_env_call;

static inline void rgpu_env_write_call(mp_writer *w, const rgpu_env_call *v) {
    mp_array(w, 5 + (v->copy.tag != 0));
    mp_uint_wide(w, v->seq);
    mp_uint(w, v->call_id);
    mp_uint(w, v->sync);
    mp_array(w, v->args.n);
    mp_raw(w, v->args.p, v->args.len);
    mp_uint(w, v->nbulk);
    if (v->copy.tag != 0) {
        switch (v->copy.tag) {
        case RGPU_ENV_SHM: rgpu_env_write_shm(w, &v->copy.u.shm); break;
        case RGPU_ENV_STAGED: rgpu_env_write_staged(w, &v->copy.u.staged); break;
        case RGPU_ENV_PINNED: rgpu_env_write_pinned(w, &v->copy.u.pinned); break;
        default: break;
        }
    }
}

/* Reads one call record, all of it checked; 0, or -1 with *why naming the field that failed. */
static inline int rgpu_env_read_call(mp_reader *r, rgpu_env_call *v, const char **why) {
    mp_obj o;
    (void)o;
    if (mp_next(r, &o) || o.type != MP_ARRAY || o.n < 5 || o.n > 6) { *why = "call: expected an array of 5 to 6 elements"; return -1; }
    uint32_t count = o.n;
    (void)count;
    if (mp_next(r, &o) || o.type != MP_UINT) { *why = "call.seq: expected an unsigned integer"; return -1; }
    v->seq = o.v.u;
    if (mp_next(r, &o) || o.type != MP_UINT) { *why = "call.call_id: expected an unsigned integer"; return -1; }
    v->call_id = o.v.u;
    if (mp_next(r, &o) || !((o.type == MP_UINT && o.v.u <= 4) || o.type == MP_BOOL)) { *why = "call.sync: expected an integer from 0 to 4"; return -1; }
    v->sync = o.type == MP_BOOL ? (uint64_t)o.v.b : o.v.u;
    const uint8_t *at_args = r->p;
    if (mp_next(r, &o) || o.type != MP_ARRAY) { *why = "call.args: expected an array"; return -1; }
    v->args.at = at_args; v->args.n = o.n; v->args.p = r->p; v->args.items = NULL;
    for (uint32_t i = 0; i < o.n; i++)
        if (rgpu_env_skip(r, RGPU_ENV_MAX_DEPTH - 2)) { *why = "call.args: torn, or nested deeper than the limit"; return -1; }
    v->args.len = (size_t)(r->p - v->args.p);
    if (mp_next(r, &o) || o.type != MP_UINT) { *why = "call.nbulk: expected an unsigned integer"; return -1; }
    v->nbulk = o.v.u;
    v->copy.tag = 0;
    if (count > 5) {
        {
            mp_reader peek = *r;
            if (mp_next(&peek, &o) || o.type != MP_ARRAY || o.n < 1 || mp_next(&peek, &o) || o.type != MP_UINT) { *why = "call.copy: expected a tagged array"; return -1; }
            v->copy.tag = o.v.u;
            switch (v->copy.tag) {
            case RGPU_ENV_SHM: if (rgpu_env_read_shm(r, &v->copy.u.shm, why)) return -1; break;
            case RGPU_ENV_STAGED: if (rgpu_env_read_staged(r, &v->copy.u.staged, why)) return -1; break;
            case RGPU_ENV_PINNED: if (rgpu_env_read_pinned(r, &v->copy.u.pinned, why)) return -1; break;
            default: *why = "call.copy: unknown tag"; return -1;
            }
        }
    }
    return 0;
}

/* reply: The reply to a sync call (and the worker's notices, seq 0: SESSION_ENDED, MOVED; and PIECE_OUT,
 * LATE_OUT data): its result, outs, the deferred error of an earlier async call, the message, the device
 * printf text since the last reply, and `regions` where its bulk data is in the session segment instead
 * of in frames. */
typedef struct {
    uint64_t seq;
    int64_t result;
    rgpu_env_list outs;
    int64_t deferred;
    rgpu_env_bytes message;
    rgpu_env_bytes output;
    int has_regions;
    rgpu_env_list regions; /* of region */
} rgpu_env_reply;

static inline void rgpu_env_write_reply(mp_writer *w, const rgpu_env_reply *v) {
    mp_array(w, 6 + (v->has_regions != 0));
    mp_uint(w, v->seq);
    mp_int(w, v->result);
    mp_array(w, v->outs.n);
    mp_raw(w, v->outs.p, v->outs.len);
    mp_int(w, v->deferred);
    mp_strn(w, (const char *)v->message.p, v->message.n);
    mp_strn(w, (const char *)v->output.p, v->output.n);
    if (v->has_regions) {
        mp_array(w, v->regions.n);
        if (v->regions.items) for (uint32_t i = 0; i < v->regions.n; i++) rgpu_env_write_region(w, &((const rgpu_env_region *)v->regions.items)[i]);
        else mp_raw(w, v->regions.p, v->regions.len);
    }
}

/* Reads one reply record, all of it checked; 0, or -1 with *why naming the field that failed. */
static inline int rgpu_env_read_reply(mp_reader *r, rgpu_env_reply *v, const char **why) {
    mp_obj o;
    (void)o;
    if (mp_next(r, &o) || o.type != MP_ARRAY || o.n < 6 || o.n > 7) { *why = "reply: expected an array of 6 to 7 elements"; return -1; }
    uint32_t count = o.n;
    (void)count;
    if (mp_next(r, &o) || o.type != MP_UINT) { *why = "reply.seq: expected an unsigned integer"; return -1; }
    v->seq = o.v.u;
    if (mp_next(r, &o) || (o.type != MP_INT && !(o.type == MP_UINT && o.v.u <= INT64_MAX))) { *why = "reply.result: expected an integer"; return -1; }
    v->result = o.type == MP_INT ? o.v.i : (int64_t)o.v.u;
    const uint8_t *at_outs = r->p;
    if (mp_next(r, &o) || o.type != MP_ARRAY) { *why = "reply.outs: expected an array"; return -1; }
    v->outs.at = at_outs; v->outs.n = o.n; v->outs.p = r->p; v->outs.items = NULL;
    for (uint32_t i = 0; i < o.n; i++)
        if (rgpu_env_skip(r, RGPU_ENV_MAX_DEPTH - 2)) { *why = "reply.outs: torn, or nested deeper than the limit"; return -1; }
    v->outs.len = (size_t)(r->p - v->outs.p);
    if (mp_next(r, &o) || (o.type != MP_INT && !(o.type == MP_UINT && o.v.u <= INT64_MAX))) { *why = "reply.deferred: expected an integer"; return -1; }
    v->deferred = o.type == MP_INT ? o.v.i : (int64_t)o.v.u;
    if (mp_next(r, &o) || o.type != MP_STR || o.n > 16777216) { *why = "reply.message: expected a string of at most 16777216 bytes"; return -1; }
    v->message.p = o.p; v->message.n = o.n;
    if (mp_next(r, &o) || o.type != MP_STR || o.n > 16777216) { *why = "reply.output: expected a string of at most 16777216 bytes"; return -1; }
    v->output.p = o.p; v->output.n = o.n;
    v->has_regions = 0;
    if (count > 6) {
        v->has_regions = 1;
        const uint8_t *at_regions = r->p;
        if (mp_next(r, &o) || o.type != MP_ARRAY || o.n > 4096) { *why = "reply.regions: expected an array of at most 4096 region"; return -1; }
        v->regions.at = at_regions; v->regions.n = o.n; v->regions.p = r->p; v->regions.items = NULL;
        for (uint32_t i = 0; i < o.n; i++) {
            rgpu_env_region item;
            if (rgpu_env_read_region(r, &item, why)) return -1;
        }
        v->regions.len = (size_t)(r->p - v->regions.p);
    }
    return 0;
}

/* piece_out: The outs of a PIECE_OUT reply: where the piece's data (its one frame) goes in the copy. */
typedef struct {
    uint64_t offset;
} rgpu_env_piece_out;

static inline void rgpu_env_write_piece_out(mp_writer *w, const rgpu_env_piece_out *v) {
    mp_array(w, 1);
    mp_uint(w, v->offset);
}

/* Reads one piece_out record, all of it checked; 0, or -1 with *why naming the field that failed. */
static inline int rgpu_env_read_piece_out(mp_reader *r, rgpu_env_piece_out *v, const char **why) {
    mp_obj o;
    (void)o;
    if (mp_next(r, &o) || o.type != MP_ARRAY || o.n != 1) { *why = "piece_out: expected an array of 1 elements"; return -1; }
    uint32_t count = o.n;
    (void)count;
    if (mp_next(r, &o) || o.type != MP_UINT) { *why = "piece_out.offset: expected an unsigned integer"; return -1; }
    v->offset = o.v.u;
    return 0;
}

/* moved: The outs of a MOVED notice (seq 0): where the session went (server/migration) and the seq of the
 * last call the old worker ran; the client attaches there and resends what came after. */
typedef struct {
    rgpu_env_bytes url;
    rgpu_env_bytes endpoint;
    rgpu_env_bytes session;
    rgpu_env_bytes key;
    uint64_t last_seq;
} rgpu_env_moved;

static inline void rgpu_env_write_moved(mp_writer *w, const rgpu_env_moved *v) {
    mp_array(w, 5);
    mp_strn(w, (const char *)v->url.p, v->url.n);
    mp_strn(w, (const char *)v->endpoint.p, v->endpoint.n);
    mp_strn(w, (const char *)v->session.p, v->session.n);
    mp_strn(w, (const char *)v->key.p, v->key.n);
    mp_uint(w, v->last_seq);
}

/* Reads one moved record, all of it checked; 0, or -1 with *why naming the field that failed. */
static inline int rgpu_env_read_moved(mp_reader *r, rgpu_env_moved *v, const char **why) {
    mp_obj o;
    (void)o;
    if (mp_next(r, &o) || o.type != MP_ARRAY || o.n != 5) { *why = "moved: expected an array of 5 elements"; return -1; }
    uint32_t count = o.n;
    (void)count;
    if (mp_next(r, &o) || o.type != MP_STR || o.n > 4096) { *why = "moved.url: expected a string of at most 4096 bytes"; return -1; }
    v->url.p = o.p; v->url.n = o.n;
    if (mp_next(r, &o) || o.type != MP_STR || o.n > 4096) { *why = "moved.endpoint: expected a string of at most 4096 bytes"; return -1; }
    v->endpoint.p = o.p; v->endpoint.n = o.n;
    if (mp_next(r, &o) || o.type != MP_STR || o.n > 4096) { *why = "moved.session: expected a string of at most 4096 bytes"; return -1; }
    v->session.p = o.p; v->session.n = o.n;
    if (mp_next(r, &o) || o.type != MP_STR || o.n > 4096) { *why = "moved.key: expected a string of at most 4096 bytes"; return -1; }
    v->key.p = o.p; v->key.n = o.n;
    if (mp_next(r, &o) || o.type != MP_UINT) { *why = "moved.last_seq: expected an unsigned integer"; return -1; }
    v->last_seq = o.v.u;
    return 0;
}

/* sealed: A frame of a message whose data travels beside the session socket instead: it stands in the
 * message where the data frame was. The channel's name (random, told the worker in the attach), the
 * direction (0 client to worker, 1 worker to client), the sender's count of such frames in that direction
 * and the data's length. Beside a CURVE wire, the bulk channel (server/bulk.py, libhook/src/transport/
 * bulk.c) carries the same bytes, then the data sealed with them as associated data, the count its AEAD
 * nonce (never used twice under the channel's key). Beside a plain wire, the data stream (server/
 * data_stream.py, libhook/src/transport/data_stream.c) carries the data alone, after the message, in the
 * order of the counts. */
typedef struct {
    rgpu_env_bytes channel;
    uint64_t dir;
    uint64_t counter;
    uint64_t length;
} rgpu_env_sealed;

static inline void rgpu_env_write_sealed(mp_writer *w, const rgpu_env_sealed *v) {
    mp_array(w, 4);
    mp_bin(w, v->channel.p, v->channel.n);
    mp_uint(w, v->dir);
    mp_uint(w, v->counter);
    mp_uint(w, v->length);
}

/* Reads one sealed record, all of it checked; 0, or -1 with *why naming the field that failed. */
static inline int rgpu_env_read_sealed(mp_reader *r, rgpu_env_sealed *v, const char **why) {
    mp_obj o;
    (void)o;
    if (mp_next(r, &o) || o.type != MP_ARRAY || o.n != 4) { *why = "sealed: expected an array of 4 elements"; return -1; }
    uint32_t count = o.n;
    (void)count;
    if (mp_next(r, &o) || o.type != MP_BIN || o.n != 16) { *why = "sealed.channel: expected 16 bytes"; return -1; }
    v->channel.p = o.p; v->channel.n = o.n;
    if (mp_next(r, &o) || !((o.type == MP_UINT && o.v.u <= 1) || o.type == MP_BOOL)) { *why = "sealed.dir: expected an integer from 0 to 1"; return -1; }
    v->dir = o.type == MP_BOOL ? (uint64_t)o.v.b : o.v.u;
    if (mp_next(r, &o) || o.type != MP_UINT) { *why = "sealed.counter: expected an unsigned integer"; return -1; }
    v->counter = o.v.u;
    if (mp_next(r, &o) || o.type != MP_UINT) { *why = "sealed.length: expected an unsigned integer"; return -1; }
    v->length = o.v.u;
    return 0;
}

/* head_delta: A message whose head travels as its differences from an earlier head (constants.toml,
 * HEAD_DELTA_MIN): the message's first frame is empty, this record is the second, the differences the
 * third (a bitmap of the head's 32-byte blocks that differ, then those blocks: libhook/src/transport/
 * log_delta.h), then the message's frames. `length` is the head's, which names the slot of the base;
 * `base` the base's first 16 bytes, which hold the seq of its first call (seqs are not used twice in a
 * session): a worker whose slot holds another head refuses the message instead of running wrong calls. */
typedef struct {
    uint64_t length;
    rgpu_env_bytes base;
} rgpu_env_head_delta;

static inline void rgpu_env_write_head_delta(mp_writer *w, const rgpu_env_head_delta *v) {
    mp_array(w, 2);
    mp_uint(w, v->length);
    mp_bin(w, v->base.p, v->base.n);
}

/* Reads one head_delta record, all of it checked; 0, or -1 with *why naming the field that failed. */
static inline int rgpu_env_read_head_delta(mp_reader *r, rgpu_env_head_delta *v, const char **why) {
    mp_obj o;
    (void)o;
    if (mp_next(r, &o) || o.type != MP_ARRAY || o.n != 2) { *why = "head_delta: expected an array of 2 elements"; return -1; }
    uint32_t count = o.n;
    (void)count;
    if (mp_next(r, &o) || o.type != MP_UINT) { *why = "head_delta.length: expected an unsigned integer"; return -1; }
    v->length = o.v.u;
    if (mp_next(r, &o) || o.type != MP_BIN || o.n != 16) { *why = "head_delta.base: expected 16 bytes"; return -1; }
    v->base.p = o.p; v->base.n = o.n;
    return 0;
}

#endif
