/* The same-host call ring: the layout both ends share (the client's ring.c, the worker's
 * server/native/ring.c through server/ring.py).
 *
 * It lives at the end of the session's shared segment (shm.c: the 0600 segment whose nonce the worker
 * checked), RGPU_RING_BYTES long, offered in the attach as "ring": its offset. The worker writes
 * RGPU_RING_MAGIC in it before it answers the attach when it serves the ring; the client uses it only
 * then.
 *
 * Requests: a ring of records in the request area. The client appends a record at req_tail (bytes
 * written in all) and the worker takes records in order, copying each out before it reads it, and says
 * how far it took them in req_head (its own count, kept in its memory: the copy here is for the
 * client, which writes a record only where the worker is done). A record is an rgpu_ring_record and
 * the message, padded to 8 bytes; one that would run past the area's end leaves a RGPU_RING_WRAP
 * marker there and starts at its beginning. A message with data frames (RGPU_RING_FRAMES: an async copy
 * in from pageable memory, whose data the client copied at the call, as a frame carries it on the
 * socket) holds them after its head in the same record: the head padded to 8 bytes, then each frame as
 * its length (8 bytes) and its data padded to 8, then rgpu_ring_frames_tail. The worker copies the
 * record out before it reads it, so the data is the worker's as a received frame is. A sync message
 * waits for its reply; a message of async calls only (RGPU_BATCH_CALLS's batches) wants none
 * (RGPU_RING_ASYNC), so several can be on the ring at once, each served as the worker comes to it. A message that does not fit in the room left goes on
 * the socket, and a record's sock_before (the client's socket messages sent before it) keeps the
 * order: the worker takes that many socket messages before the record.
 *
 * Replies: one slot. The client has one synchronous message in flight at a time (the session's lock),
 * so one reply is the most there is. The client waits on rep_seq, and the worker rings it for a reply
 * on the ring, or with rep_len RGPU_RING_ON_SOCKET when the reply (too large, with bulk frames, or
 * pieces) went on the socket: rep_seq counts the sync requests, which the client counts for itself
 * (ring_want).
 *
 * The worker waits on one futex word, the doorbell, which the client rings for every message it sends
 * after the attach, on the ring or on the socket (sock_sent counts the latter): an idle worker blocks
 * there, not in zmq. Each side spins first, for the time RGPU_SPIN_US / --spin-us give, and sets its
 * `sleeping` word before it blocks, so that the other makes the futex system call only when someone
 * sleeps (FUTEX_WAIT without FUTEX_PRIVATE: the mapping is shared between processes). */
#ifndef RGPU_RING_H
#define RGPU_RING_H
#include <stdint.h>

#include "rgpu_wire.h" /* RGPU_RING_ASYNC, _FRAMES, _WRAP, _FRAMES_MAX, _PIECE (protocol/contract/constants.toml) */

/* "RNG4": the ring of request records, 1 MiB of them, a record holding data frames too. A build that
 * knows another layout (the one request slot of "RING", the 128 KiB of "RNG2", "RNG3"'s records without
 * frames) finds another magic and keeps every call on the socket, whichever end it is. */
#define RGPU_RING_MAGIC 0x34474e52u
#define RGPU_RING_HEAD 4096u
/* 1 MiB: a record holds up to a quarter of it, so four of the largest queue together. PyTorch's
 * fused optimizer launches carry 24-27 KB of parameters each (multi_tensor_apply's tensor lists): a
 * transformer step's last message, five of them, the copy of the loss and its synchronize, is 124
 * KiB, which the 128 KiB of "RNG2" held only when empty and unwrapped, so every such step went on the
 * socket through the worker's Python. */
#define RGPU_RING_REQ_CAP (1u << 20)
#define RGPU_RING_REP_CAP (64u << 10)
#define RGPU_RING_BYTES (RGPU_RING_HEAD + RGPU_RING_REQ_CAP + RGPU_RING_REP_CAP)
#define RGPU_RING_ON_SOCKET 0xffffffffu

typedef struct {
    uint32_t len;         /* the message's bytes, or RGPU_RING_WRAP */
    uint32_t flags;
    uint64_t sock_before; /* the client's socket messages sent before this one */
} rgpu_ring_record;

/* the last 8 bytes of a record with frames: where its head ends and how many frames follow it */
typedef struct {
    uint32_t head_len;
    uint32_t nframes;
} rgpu_ring_frames_tail;

#define RGPU_RING_PAD8(n) (((uint64_t)(n) + 7u) & ~(uint64_t)7u)
#define RGPU_RING_RECORD_BYTES(len) (sizeof(rgpu_ring_record) + RGPU_RING_PAD8(len))
/* the longest message a record holds */
#define RGPU_RING_REQ_MAX (RGPU_RING_REQ_CAP / 4u - (uint32_t)sizeof(rgpu_ring_record))
/* a piece (RGPU_RING_PIECE) leaves 16 KiB of a record's quarter of the area for the message's head */
_Static_assert(RGPU_RING_PIECE + (16u << 10) <= RGPU_RING_REQ_CAP / 4u, "a ring piece must fit in a record");

typedef struct {
    _Alignas(64) uint32_t magic;  /* the worker's: it serves this ring */
    _Alignas(64) uint32_t doorbell;        /* the client's: bumped per message sent, either way */
    uint32_t worker_sleeping;              /* the worker's: blocked on the doorbell */
    uint64_t sock_sent;                    /* the client's: messages sent on the socket since the attach */
    uint64_t req_tail;                     /* the client's: bytes of records written */
    _Alignas(64) uint64_t req_head;        /* the worker's: bytes of records taken (copied out) */
    _Alignas(64) uint32_t rep_seq;         /* the worker's: bumped per reply (or its marker) */
    uint32_t client_sleeping;              /* the client's: blocked on rep_seq */
    uint32_t rep_len;                      /* RGPU_RING_ON_SOCKET: this call's reply is on the socket */
} rgpu_ring_head;

#define RGPU_RING_REQ(ring) ((uint8_t *)(ring) + RGPU_RING_HEAD)
#define RGPU_RING_REP(ring) ((uint8_t *)(ring) + RGPU_RING_HEAD + RGPU_RING_REQ_CAP)
#endif
