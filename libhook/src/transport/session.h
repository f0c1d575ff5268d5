/* One session per device of the program: a DEALER socket to the session worker on the server
 * that owns the GPU, opened lazily with a hello to that server's supervisor. */
#ifndef RGPU_SESSION_H
#define RGPU_SESSION_H
#include <pthread.h>
#include <stdint.h>

#include "mpack.h"
#include "rgpu_wire.h"

#define RGPU_MAX_DEVICES 16
#define RGPU_MAX_ATTRS 512     /* device attribute numbers the facts table holds (CUDA 13 has < 200) */
#define RGPU_MAX_PROPS 4096    /* bytes of cudaDeviceProp the facts keep (CUDA 13's is ~1 KiB) */
#define RGPU_LATE_COPY_MAX (16u << 20) /* a larger copy into pinned memory across hosts stays a sync one */

/* The device backend behind a session, as its worker says in the attach reply. */
enum { RGPU_BACKEND_UNKNOWN = 0, RGPU_BACKEND_SIM = 1, RGPU_BACKEND_CUDA = 2 };

typedef struct {
    char url[256];      /* the server's supervisor endpoint */
    int gpu;            /* GPU index on that server */
    pthread_mutex_t mu;
    void *sock, *mon;
    int tcp_fd;         /* the connection's descriptor, as the monitor named it; -1 unknown */
    int worker_silent;  /* its worker was found silent (rgpu_worker_silent): every wait on it fails at once */
    int state;          /* 0 not opened, 1 open, -1 unavailable */
    int backend;        /* RGPU_BACKEND_*: which calls its records say are not served there */
    uint64_t seq;
    mp_writer batch;    /* queued async calls, already encoded */
    uint32_t nbatch;
    void *bulk;         /* zmq_msg_t array of queued bulk frames */
    size_t nbulk, bulkcap, bulkbytes;
    size_t nborrowed;   /* the last of those frames that point into the caller's memory, not copied (a
                         * sync copy's pieces, copy_pieces.c): valid only until the call returns */
    /* A --failover session beside its worker: the queued calls as the wire carries them, where an async
     * copy from pinned memory names the memory (no frame: the message may take the call ring) while
     * `batch` carries its data, for the log and for a resend after a move or a failover
     * (rgpu_queue_async). It stands for `batch` only while it holds as many calls (wire_calls). */
    mp_writer wire;
    uint32_t wire_calls;
    int wire_on;
    uint8_t *wired;     /* per queued frame, while wire_on: 1 when the wire carries it too */
    size_t wiredcap;
    /* live migration: the messages sent since the last reply, kept until a reply says they ran,
     * so that they can be sent again, in order, to the worker the session moved to (replay.c) */
    void *replay;       /* replay_msg array */
    size_t nreplay, replaycap, replaybytes;
    unsigned moves;     /* how often the session went to another worker: a move it followed, a failover */
    struct rgpu_failover *fo; /* a --failover lease's checkpoint and log (failover.c), else NULL */
    double replied_at;  /* when the last reply to a call came (take_notices: none is looked for right after) */
    /* async D2H copies into pinned memory, sent with `sync` RGPU_OUT_LATER: their data comes before the
     * next reply (copy_late.c), each to dst; under mu. `seg`: a --failover session's, which named the
     * memory to a worker on this host, which writes it there before its next reply (no LATE_OUT comes);
     * cleared when the copy went without the name after all (rgpu_send_batch). `sent`: its message went. */
    struct { uint64_t seq; void *dst; size_t len; uint8_t seg, sent; } late[RGPU_LATE_MAX_COPIES];
    int nlate;
    size_t late_bytes;
    int pending;        /* an earlier asynchronous call's error that a reply brought to a call that does not
                         * report it: kept for the next call that does (reply_wait.c), under mu */
    /* same-host shared memory (shm.c); data starts at RGPU_SHM_DATA (rgpu_wire.h) */
    char shm_name[64];
    int shm_fd;
    void *shm_base;
    size_t shm_size, shm_ready;
    size_t ring_bytes;  /* RGPU_RING_BYTES past the data when the segment holds a call ring (ring.h), else 0 */
    void *ring;         /* the call ring, offered; ring_on once the worker serves it (ring.c) */
    int ring_on;
    int ring_wait;      /* the sync call in flight went on the ring: its reply comes there */
    uint32_t ring_rep_seen;
    uint32_t ring_want;  /* the sync requests sent on the ring: rep_seq equals it once the last is answered */
    /* the device's immutable facts from the attach reply (devfacts.c answers from them); published
     * by facts_ready (release/acquire), so readers need not take mu */
    int facts_ready;
    int attr[RGPU_MAX_ATTRS];
    uint8_t attr_known[RGPU_MAX_ATTRS];
    uint8_t props[RGPU_MAX_PROPS];
    size_t props_len;
    /* the bulk channel beside a CURVE wire to another host (bulk.c): its DEALER, key, name, and the
     * count of frames sealed to the worker (the nonce); bulk_failed once a frame of the worker's did
     * not open or come */
    void *bulk_sock, *bulk_mon;
    uint8_t bulk_key[32], bulk_chan[16];
    uint64_t bulk_sent;
    int bulk_failed;
    int bulk_up;        /* 1 once its handshake succeeded: frames go there only then */
    int bulk_waited;    /* the first large frame waited for the handshake's outcome (bulk.c, bulk_ready) */
    int bulk_named;     /* the worker was told bulk_chan (this attach): its sealed records are recognised */
    /* the data stream beside a plain wire to another host (data_stream.c): its socket (while stream_up),
     * the count of frames taken from it, and the frames of the message being sent whose data it
     * carries once the message's last frame is sent (stream_pend: zmq_msg_t) */
    int stream_up, stream_fd;
    uint64_t stream_got;
    void *stream_pend;
    size_t stream_npend, stream_pendcap;
    /* heads sent as deltas to a worker that does not share the client's memory (head_delta.c): the last
     * head of each of the RGPU_HEAD_DELTA_SLOTS lengths sent on the socket most recently since the attach */
    struct rgpu_head_slot { size_t len; uint8_t *buf; uint64_t used; } heads[RGPU_HEAD_DELTA_SLOTS];
    uint64_t heads_clock;
    int heads_on;
} rgpu_session;


int rgpu_shm_offer(rgpu_session *s, int dev, mp_writer *w);
void rgpu_shm_answer(rgpu_session *s, int accepted);
int rgpu_shm_reserve(rgpu_session *s, size_t n);
void rgpu_shm_unmap(rgpu_session *s);
/* ring.c: the same-host call ring */
struct zmq_msg_t;
int rgpu_ring_wanted(void);
void rgpu_ring_attached(rgpu_session *s);
void rgpu_ring_sent_on_socket(rgpu_session *s);
/* a data frame a ring record carries (ring.c rgpu_ring_send) */
typedef struct {
    const void *p;
    size_t n;
} rgpu_ring_part;
int rgpu_ring_send(rgpu_session *s, const void *msg, size_t len, int async, const rgpu_ring_part *parts,
                   size_t nparts);
int rgpu_ring_wait(rgpu_session *s, double deadline, double spin_s, int yield, struct zmq_msg_t *out);

struct rgpu_call;
/* The table of sessions (session.c). add: the next device's (state.c, at configuration; NULL past
 * RGPU_MAX_DEVICES); at: device dev's, or NULL; get: the same once the configuration is read
 * (state.c), for the floors above. */
rgpu_session *rgpu_session_add(const char *url, int gpu);
rgpu_session *rgpu_session_at(int dev);
rgpu_session *rgpu_session_get(int dev);
int rgpu_session_sync(rgpu_session *s, struct rgpu_call *c);
int rgpu_session_async(rgpu_session *s, struct rgpu_call *c);
/* The session's backend (opening the session if it is not yet); RGPU_BACKEND_UNKNOWN if it cannot open. */
int rgpu_session_backend(rgpu_session *s, int dev);
/* The device's immutable facts, opening the session if it is not yet: 0 and the value when the
 * attach reply gave it, -1 when not (the caller asks the server). */
int rgpu_session_attr(rgpu_session *s, int dev, int attr, int *v);
/* 0 when the attach reply gave the cudaDeviceProp bytes and n of them were copied to dst. */
int rgpu_session_props(rgpu_session *s, int dev, void *dst, size_t n);
void rgpu_sessions_close(void);
/* 1 when device dev's session is open and its worker is on this host (it mapped the session segment):
 * copies from and to pinned memory may name it there (hostmem.c) */
int rgpu_session_local(int dev);
/* 1 when device dev's session is a --failover one whose worker is on this host (the session segment
 * and call ring, but not the program's pinned memory: failover.c) */
int rgpu_session_beside_failover(int dev);
/* 1 when device dev's session's sync calls go on the call ring (same host, RGPU_RING on): a round
 * trip of a microsecond or two, so one message with several replies saves nothing there (managed.c) */
int rgpu_session_on_ring(int dev);
/* Every session's async copies into pinned memory whose data has not come yet (RGPU_OUT_LATER) brought
 * in now, with a barrier each: before that memory is freed or unregistered. 0 or the first error. */
int rgpu_sessions_drain_late(void);
/* 1 when [p, +n) overlaps memory an async copy's data is still to come into: a copy that reads it
 * (stream-ordered after that copy) drains first (memcpy.c) */
int rgpu_sessions_late_overlap(const void *p, size_t n);
/* lease.c: a lease of the program's own from RGPU_CONTROLLER and RGPU_MEM/COMPUTE/LIMIT/VGPUS; fills
 * `servers` (RGPU_SERVER's form) and sets RGPU_LEASE. 0 ok, -1 not asked for, -2 failed (logged). */
int rgpu_env_lease(char *servers, size_t cap);
void rgpu_env_lease_release(void);
/* The env-only lease's token as of its last renew into out; 0 when this process holds none. */
int rgpu_env_lease_token(char *out, size_t cap);
double rgpu_timeout_s(void);
#endif
