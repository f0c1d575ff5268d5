/* The copy path where frames carry a large copy's data: pieces, each a message of its own, so the
 * worker writes one to the device while the network carries the next (server/pieces.py). */
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
#include "ring.h"
#include "session_parts.h"
#include "stats.h"

/* RGPU_PIECES=0: large copies go whole, as one message each way (for before/after measurements). */
int rgpu_pieces_on(void) {
    static int on = -1;
    return rgpu_switched_on("RGPU_PIECES", &on);
}

/* The `sync` field of a sync call: a D2H copy that frames carry may be answered in pieces
 * (server/pieces.py). */
int rgpu_sync_field(const struct rgpu_call *c, int shm) {
    return c->shm == 2 && !shm && c->shm_cap >= RGPU_PIECE_MIN && rgpu_pieces_on() ? RGPU_SYNC_PIECES_OUT : 1;
}

/* The size of a copy's pieces (server/pieces.py, piece_size: the same rule). */
static size_t piece_size(size_t n) {
    size_t k = (n + RGPU_PIECE_COUNT - 1) / RGPU_PIECE_COUNT;
    return k > RGPU_PIECE_MAX ? RGPU_PIECE_MAX : k < RGPU_PIECE_MIN / 2 ? RGPU_PIECE_MIN / 2 : k;
}

/* A large sync H2D copy where frames carry the data: each piece but one goes as a message of its own,
 * one PIECE_IN call, so the worker writes it to the device while the network carries the next; the
 * last sent is the sync call, whose reply is the copy's (server/pieces.py). The piece at the end of
 * the range goes first: a copy past the end of its allocation fails there, with nothing written, as
 * CUDA's does. The pieces' frames are the caller's buffer, which lives until the reply, as a sync
 * call's frames do. */
int rgpu_sync_pieces(rgpu_session *s, int dev, struct rgpu_call *c) {
    size_t n = c->piece_len, size = piece_size(n), count = (n + size - 1) / size;
    for (size_t i = 0; i + 1 < count; i++) {
        size_t k = i ? i - 1 : count - 1, off = k * size, len = n - off < size ? n - off : size;
        struct rgpu_call p;
        c->piece(&p, c, off, len);
        rgpu_encode_call(&s->batch, ++s->seq, &p, RGPU_PIECE_IN, 0, 0);
        mp_free(&p.args);
        s->nbatch++;
        if (s->nbulk == s->bulkcap) {
            s->bulkcap = s->bulkcap ? s->bulkcap * 2 : 8;
            s->bulk = realloc(s->bulk, s->bulkcap * sizeof(zmq_msg_t));
        }
        zmq_msg_init_data(&((zmq_msg_t *)s->bulk)[s->nbulk++], (void *)p.bulk[0], len, NULL, NULL);
        s->nborrowed++; /* the program's buffer, live only until the copy returns: never shared past it */
        s->bulkbytes += len;
        if (rgpu_send_batch(s, NULL, 0) != 0 && !s->fo) {
            rgpu_mark_dead(s, "send failed");
            return RGPU_DEVICE_UNAVAILABLE;
        } /* a --failover session's piece is kept (replay.c) as the rest are: the last's wait recovers, sending all again */
    }
    struct rgpu_call last;
    c->piece(&last, c, (count - 2) * size, size);
    int rc = rgpu_sync_one(s, dev, &last);
    /* the reply is the copy's: the caller reads and ends it */
    c->reply = last.reply, c->outs = last.outs, c->nouts = last.nouts, c->nout_bulk = last.nout_bulk;
    memcpy(c->out_bulk, last.out_bulk, sizeof c->out_bulk);
    mp_free(&last.args);
    return rc;
}

/* 1 when an async H2D copy of n bytes from pageable memory goes in pieces a call-ring record holds
 * (RGPU_RING_PIECE): a session beside its worker serving the ring (not a --failover one's, whose
 * async messages keep the socket: session.c rgpu_send_batch), the copy larger than one record holds. */
int rgpu_ring_pieces(const rgpu_session *s, size_t n) {
    return s->ring_on && !s->fo && n > RGPU_RING_PIECE && rgpu_pieces_on();
}

/* A large async H2D copy whose data frames carry: pieces, each sent at once as a message of its own,
 * so the worker writes one to the device while the network carries the next instead of receiving
 * the whole copy first; on the call ring, pieces a record holds (rgpu_ring_pieces), which the
 * worker's compiled loop copies from the ring (serve.c piece) where the whole copy would take the
 * socket. All but the last are PIECE_IN calls, the last answering for them; the end of the range
 * goes first, so a copy past its allocation's end fails there with nothing written, and that is the
 * copy's failure, reported as any async copy's is (server/pieces.py). The lock is held throughout:
 * no other thread's call comes between the pieces. */
int rgpu_async_pieces(rgpu_session *s, int dev, struct rgpu_call *c) {
    size_t n = c->piece_len, size = rgpu_ring_pieces(s, n) ? RGPU_RING_PIECE : piece_size(n);
    size_t count = (n + size - 1) / size;
    for (size_t i = 0; i < count; i++) {
        size_t k = i ? i - 1 : count - 1, off = k * size, len = n - off < size ? n - off : size;
        struct rgpu_call p;
        c->piece(&p, c, off, len);
        int rc = rgpu_queue_async(s, dev, &p, 0, i + 1 < count ? RGPU_PIECE_IN : 0, 1);
        mp_free(&p.args);
        if (rc) return rc;
    }
    return 0;
}

