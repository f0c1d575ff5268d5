/* What the files of the session share (transport/ only): session.c sends and queues calls,
 * connection.c opens the connection (hello, attach, waits), reply_wait.c waits for a sync call's
 * reply, replay.c keeps what was sent and follows a move, and each copy path has its file:
 * copy_segment.c (the same-host segment: whole, staged, pinned), copy_pieces.c (large copies in
 * pieces where frames carry them) and copy_late.c (async copies into pinned memory whose data comes
 * before the next reply). None of these is part of the library's interface (session.h is). */
#ifndef RGPU_SESSION_PARTS_H
#define RGPU_SESSION_PARTS_H
#include <stddef.h>
#include <stdint.h>
#include <zmq.h>

#include "liveness.h"
#include "rgpu_envelope.h"
#include "session.h"

struct rgpu_call;
extern int rgpu_sessions_count_internal(void);
extern rgpu_session *rgpu_sessions_internal(void);

/* connection.c */
double rgpu_now_s(void);
double rgpu_spin_window_s(void);
double rgpu_reply_spin_s(size_t copy_bytes); /* a sync copy of that many bytes: the spin its reply is waited for with */
int rgpu_wait_mode(void); /* RGPU_WAIT_* of the calling thread, as the policy registered from above says */
int rgpu_spin_for_reply(void *sock, double deadline, double w); /* 0: readable within w seconds of spinning */
int rgpu_wait_readable(void *sock, rgpu_session *s, double deadline); /* 0, -1 timeout, -2 lost */
int rgpu_session_event(rgpu_session *s); /* one monitor event taken: -2 the connection is lost, else 0 */
int rgpu_worker_silent(rgpu_session *s, rgpu_watch *w); /* a look (liveness.c): 1 the worker is gone, logged */
int rgpu_read_reply(zmq_msg_t *m, rgpu_env_reply *rep);            /* 0, or -1 (logged) when malformed */
mp_reader rgpu_outs_record(const rgpu_env_reply *rep);
int rgpu_attach_worker(rgpu_session *s, int dev, const char *endpoint, const char *sid, const char *key);
int rgpu_session_ensure_open(rgpu_session *s, int dev);            /* the lock held: 0 open, -1 not */
void rgpu_connections_end(void);

/* bulk.c: the bulk channel beside a CURVE wire. offer: writes [key, name] into an attach's args
 * (1) or nothing (0: RGPU_BULK=0, a plain wire, no libsodium with AEGIS-256); connect: to the port
 * the worker answered, on the host `control` names. send_part/recv_part stand for zmq_msg_send/recv
 * on the session socket for every frame after a message's head: large ones travel sealed on the
 * channel; recv_part returns the frame's `more` flag. */
void *rgpu_zmq_context(void);
int rgpu_bulk_offer(rgpu_session *s, int curve_wire, mp_writer *args);
void rgpu_bulk_connect(rgpu_session *s, const char *control, int port);
void rgpu_bulk_close(rgpu_session *s);
int rgpu_send_part(rgpu_session *s, zmq_msg_t *m, int flags);
/* data_stream.c: the data stream beside a plain wire to another host (server/data_stream.py). offer:
 * writes [name] into an attach's args (1) or nothing (0: RGPU_DATA_STREAM=0, not TCP); connect: to the
 * port the worker answered; send_part: rgpu_send_part's, while the stream is up; take: the data of a
 * frame the worker's record names (0, or -1 with the session ended), as rgpu_recv_part_into's. */
int rgpu_stream_offer(rgpu_session *s, const char *endpoint, mp_writer *args);
void rgpu_stream_connect(rgpu_session *s, const char *control, int port);
void rgpu_stream_close(rgpu_session *s);
int rgpu_stream_send_part(rgpu_session *s, zmq_msg_t *m, int flags);
int rgpu_stream_take(rgpu_session *s, zmq_msg_t *m, const rgpu_env_sealed *rec, void *dst, size_t room,
                     size_t *into);
/* head_delta.c: a message's head on the session socket, as its differences from the last of its length
 * when that is smaller (as zmq_msg_send: the bytes, or -1); the table emptied at each attach, and used
 * only across hosts (`across`: the worker did not map the client's segment). A head the table does not
 * keep goes as it is without a call into head_delta.c (a macro: a copy's path visits no more files). */
int rgpu_send_head_delta(rgpu_session *s, zmq_msg_t *head, int flags);
void rgpu_heads_reset(rgpu_session *s, int across);
#define rgpu_send_head(s, head, flags)                                                                 \
    ((s)->heads_on && zmq_msg_size(head) >= RGPU_HEAD_DELTA_MIN && zmq_msg_size(head) <= RGPU_HEAD_DELTA_MAX \
         ? rgpu_send_head_delta((s), (head), (flags))                                                    \
         : zmq_msg_send((head), (s)->sock, (flags)))
int rgpu_recv_part(rgpu_session *s, zmq_msg_t *m);
/* As rgpu_recv_part; a frame that came sealed on the bulk channel, of at most `room` bytes, opens straight
 * into dst, *into its length (0: the frame is in m, to be copied as any other). */
int rgpu_recv_part_into(rgpu_session *s, zmq_msg_t *m, void *dst, size_t room, size_t *into);

/* session.c */
int rgpu_sessions_closed(void);
void rgpu_mark_dead(rgpu_session *s, const char *why);
int rgpu_send_batch(rgpu_session *s, struct rgpu_call *c, uint64_t seq);
int rgpu_queue_async(rgpu_session *s, int dev, struct rgpu_call *c, int pin, int sync, int flush);
int rgpu_sync_locked(rgpu_session *s, int dev, struct rgpu_call *c);
int rgpu_session_barrier(rgpu_session *s, int dev);

/* reply_wait.c: sends c (the lock held) and waits for its reply */
int rgpu_sync_one(rgpu_session *s, int dev, struct rgpu_call *c);

/* copy_segment.c */
/* How a sync call's data moves (shm_mode's answer, encode_call's `shm`). */
enum {
    SEG_NONE = 0,   /* frames */
    SEG_IN,         /* the call's bulk input is in the session segment */
    SEG_OUT,        /* its reply's bulk may go there */
    SEG_PINNED,     /* its host side is pinned memory the worker maps: no data either way */
    SEG_STAGED_IN,  /* its input is copied into the segment after the send, chunk by chunk */
    SEG_STAGED_OUT, /* its reply's bulk goes there a chunk at a time */
};
int rgpu_switched_on(const char *name, int *cache);
long rgpu_env_whole(const char *name, long min, long dflt);
int rgpu_input_in_frames(int shm);
void rgpu_encode_call(mp_writer *w, uint64_t seq, struct rgpu_call *c, int sync, int shm, size_t shm_len);
void rgpu_encode_head(mp_writer *w, const uint8_t *async, size_t alen, uint32_t nasync, struct rgpu_call *c,
                      uint64_t seq, int shm, size_t shm_len, int followers);
int rgpu_shm_mode(rgpu_session *s, struct rgpu_call *c, size_t *len);
void rgpu_take_early(rgpu_session *s, struct rgpu_call *c, uint64_t seq, double deadline);
void rgpu_free_bytes(void *data, void *hint);
void rgpu_stage_begin(rgpu_session *s, uint64_t seq);
void rgpu_stage_progressive(rgpu_session *s, struct rgpu_call *c);

/* frame_pool.c: a frame of n bytes whose data the caller writes, large ones from buffers kept for reuse */
int rgpu_frame_init(zmq_msg_t *m, size_t n);

/* copy_pieces.c */
int rgpu_pieces_on(void);
int rgpu_sync_field(const struct rgpu_call *c, int shm);
int rgpu_sync_pieces(rgpu_session *s, int dev, struct rgpu_call *c);
int rgpu_async_pieces(rgpu_session *s, int dev, struct rgpu_call *c);
int rgpu_ring_pieces(const rgpu_session *s, size_t n);

/* copy_late.c */
void rgpu_take_late(rgpu_session *s, uint64_t rseq, zmq_msg_t *head);
void rgpu_late_settled(rgpu_session *s, uint64_t seq, int deferred);
int rgpu_late_on_socket(const rgpu_session *s);

/* replay.c */
/* Live migration: every message sent since the last reply is kept (its frames shared with the
 * sent copies, not duplicated) until a reply says the worker ran it. When the session moves, the old
 * worker's MOVED notice names the last call it ran; what came after is sent again, in order, to the
 * new worker. A message whose sync call moved its data through shared memory is rebuilt instead
 * (the new worker maps its own segment, or none): its async calls' encoding is kept for that. */
typedef struct {
    zmq_msg_t *frames;
    size_t n, cap, bytes;
    size_t owned;            /* its first frames that own their data (the head, async data copied at
                              * queueing); the rest are a sync call's own buffers, the program's */
    uint64_t last_seq;
    int shm;                 /* its sync call used the shared segment */
    uint8_t *async_hdr;      /* then: its async calls, encoded, and how many of its frames are theirs */
    size_t async_len, async_frames;
    uint32_t nasync;
} rgpu_replay_msg;

#define REPLAY_MAX_BYTES (64u << 20) /* async data kept beyond this asks for a barrier (a sync no-op) */
rgpu_replay_msg *rgpu_replay_new(rgpu_session *s);
void rgpu_replay_keep(rgpu_session *s, rgpu_replay_msg *r, zmq_msg_t *m);
/* Sends a kept message again (its frames shared, not copied): 0, or -1 when the socket refused it. */
int rgpu_replay_resend(rgpu_session *s, rgpu_replay_msg *m);
void rgpu_replay_clear(rgpu_session *s);
int rgpu_replay_resend_all(rgpu_session *s, struct rgpu_call *c, uint64_t cseq);
int rgpu_session_follow(rgpu_session *s, int dev, const rgpu_env_reply *rep, struct rgpu_call *c, uint64_t cseq);
#endif
