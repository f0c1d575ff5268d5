/* The same-host call ring: the layout both ends share (the client's ring.c, the worker's
 * server/native/ring.c through server/ring.py).
 *
 * It lives at the end of the session's shared segment (shm.c: the 0600 segment whose nonce the worker
 * checked), RGPU_RING_BYTES long, offered in the attach as "ring": its offset. The worker writes
 * RGPU_RING_MAGIC in it before it answers the attach when it serves the ring; the client uses it only
 * then. One record each way: the client has one synchronous message in flight at a time (the session's
 * lock), so a slot for the request and one for the reply are the whole ring.
 *
 * The worker waits on one futex word, the doorbell, which the client rings for every message it sends
 * after the attach, on the ring or on the socket (sock_sent counts the latter, so the worker knows to
 * take them first, in order): an idle worker blocks there, not in zmq. The client waits on rep_seq,
 * and the worker rings it for a reply on the ring, or with rep_len RGPU_RING_ON_SOCKET when the reply
 * (too large, with bulk frames, or pieces) went on the socket. Each side spins first, for the time
 * RGPU_SPIN_US / --spin-us give, and sets its `sleeping` word before it blocks, so that the other
 * makes the futex system call only when someone sleeps (FUTEX_WAIT without FUTEX_PRIVATE: the
 * mapping is shared between processes). */
#ifndef RGPU_RING_H
#define RGPU_RING_H
#include <stdint.h>

#define RGPU_RING_MAGIC 0x474e4952u /* "RING" */
#define RGPU_RING_HEAD 4096u
#define RGPU_RING_REQ_CAP (64u << 10)
#define RGPU_RING_REP_CAP (64u << 10)
#define RGPU_RING_BYTES (RGPU_RING_HEAD + RGPU_RING_REQ_CAP + RGPU_RING_REP_CAP)
#define RGPU_RING_ON_SOCKET 0xffffffffu

typedef struct {
    _Alignas(64) uint32_t magic;  /* the worker's: it serves this ring */
    _Alignas(64) uint32_t doorbell;        /* the client's: bumped per message sent, either way */
    uint32_t worker_sleeping;              /* the worker's: blocked on the doorbell */
    uint64_t sock_sent;                    /* the client's: messages sent on the socket since the attach */
    uint32_t req_seq;                      /* the client's: bumped when a request is in place */
    uint32_t req_len;
    _Alignas(64) uint32_t rep_seq;         /* the worker's: bumped per reply (or its marker) */
    uint32_t client_sleeping;              /* the client's: blocked on rep_seq */
    uint32_t rep_len;                      /* RGPU_RING_ON_SOCKET: this call's reply is on the socket */
} rgpu_ring_head;

#define RGPU_RING_REQ(ring) ((uint8_t *)(ring) + RGPU_RING_HEAD)
#define RGPU_RING_REP(ring) ((uint8_t *)(ring) + RGPU_RING_HEAD + RGPU_RING_REQ_CAP)
#endif
