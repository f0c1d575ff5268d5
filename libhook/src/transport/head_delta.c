/* A message's head sent as its differences from the last head of the same length (envelope.toml's
 * `head_delta`; the worker's end: server/head_delta.py).
 *
 * Across hosts a training loop sends, every step, nearly the head it sent the step before: the same
 * launches with the same parameters (the caching allocator hands the same addresses back), only the
 * calls' seqs and a few scalars differ, and nothing shifts, since seqs are written 4 bytes wide at least.
 * A CNN's step put 332 kB on the link, 230 kB of it kernel parameters in its head, most of it sent the
 * step before (benchmarks/results/wire-bytes-2026-12-03.md). The failover log keeps heads the same way
 * (log_delta.h), whose encoder this uses.
 *
 * Both ends keep the last head of each of the HEAD_DELTA_SLOTS lengths from HEAD_DELTA_MIN to
 * HEAD_DELTA_MAX bytes used most recently: the client every such head it sends on the session's
 * socket, the worker every one it receives there, in the same order and by the same rule (`slot_for`,
 * server/head_delta.py's), so the worker holds the base the client names. Not one slot per length %
 * HEAD_DELTA_SLOTS, as before: a step's heads of lengths that shared a slot took turns in it and went
 * whole every step (a loop's two heads a step, failover_launches.cu with RGPU_BATCH_CALLS=16). Every
 * head the client sends there after the attach goes through rgpu_send_head; the tables start empty at
 * each attach (a move or a failover reaches a new worker, whose table is empty too). The delta names
 * its base's first 16 bytes, which hold the seq of the base's first call: a worker whose slot holds
 * another head refuses the message, never runs calls it did not get. Only where the worker does not
 * share the client's memory (on one host the head is a copy through shared memory, and the CPU a
 * delta takes is all it would cost); RGPU_HEAD_DELTA=0 turns it off. */
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "log_delta.h"
#include "rgpu_envelope.h"
#include "session_parts.h"

static int wanted(void) {
    static int on = -1;
    return rgpu_switched_on("RGPU_HEAD_DELTA", &on);
}

void rgpu_heads_reset(rgpu_session *s, int across) {
    for (int i = 0; i < RGPU_HEAD_DELTA_SLOTS; i++) {
        free(s->heads[i].buf);
        s->heads[i].buf = NULL, s->heads[i].len = 0, s->heads[i].used = 0;
    }
    s->heads_clock = 0;
    s->heads_on = across && wanted();
}

/* The slot of a head of `len` bytes: the one that holds that length, else the one used least
 * recently (an empty one first: its `used` is 0), whose length it takes. Marked used now. */
static struct rgpu_head_slot *slot_for(rgpu_session *s, size_t len) {
    struct rgpu_head_slot *k = &s->heads[0];
    for (int i = 0; i < RGPU_HEAD_DELTA_SLOTS; i++) {
        if (s->heads[i].len == len) {
            k = &s->heads[i];
            break;
        }
        if (s->heads[i].used < k->used) k = &s->heads[i];
    }
    if (k->len != len) {
        free(k->buf);
        k->buf = NULL, k->len = len;
    }
    k->used = ++s->heads_clock;
    return k;
}

/* The head kept as its slot's base (a copy: the message's own buffer is zmq's once sent). Out of
 * memory the slot keeps its length with no base: the next head of that length goes whole, and both
 * ends' slots stay the same. */
static void keep(struct rgpu_head_slot *k, const uint8_t *head, size_t len) {
    if (!k->buf && !(k->buf = malloc(len))) return;
    memcpy(k->buf, head, len);
}

static void free_buf(void *data, void *hint) {
    (void)hint;
    free(data);
}

/* Called by rgpu_send_head (session_parts.h) for a head of a length the table keeps, across hosts. */
int rgpu_send_head_delta(rgpu_session *s, zmq_msg_t *head, int flags) {
    size_t len = zmq_msg_size(head);
    const uint8_t *cur = zmq_msg_data(head);
    struct rgpu_head_slot *k = slot_for(s, len);
    size_t cap = rgpu_delta_cap(len), n = 0;
    uint8_t *delta = k->buf ? malloc(cap) : NULL;
    if (delta) n = rgpu_delta_encode(k->buf, cur, len, delta, cap);
    if (!n) { /* no base of this length, or too different from it: whole, and the base from now on */
        free(delta);
        keep(k, cur, len);
        return zmq_msg_send(head, s->sock, flags);
    }
    uint8_t recbuf[64];
    mp_writer w;
    mp_init_inline(&w, recbuf, sizeof recbuf);
    rgpu_env_head_delta rec = {.length = len, .base = {.p = k->buf, .n = RGPU_ENV_HEAD_BASE}};
    rgpu_env_write_head_delta(&w, &rec);
    keep(k, cur, len);
    zmq_msg_t empty, d;
    zmq_msg_init(&empty);
    int rc = zmq_msg_send(&empty, s->sock, ZMQ_SNDMORE);
    if (rc < 0) zmq_msg_close(&empty);
    if (rc >= 0) rc = zmq_send(s->sock, w.buf, w.len, ZMQ_SNDMORE);
    mp_free(&w);
    zmq_msg_init_data(&d, delta, n, free_buf, NULL);
    if (rc >= 0) rc = zmq_msg_send(&d, s->sock, flags);
    else zmq_msg_close(&d);
    if (rc < 0) return -1;
    zmq_msg_close(head); /* as a sent message is: its bytes went as the delta */
    zmq_msg_init(head);
    return (int)len;
}
