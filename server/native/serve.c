/* The worker's compiled serving loop on the same-host call ring (server/ring.py, CallRing.serve, drives
 * it; server/worker.py decides when it may run), and on the session's socket across hosts
 * (sock_serve.c, server/sock_loop.py): one loop, two doors (serve.h, rgpu_chan). What follows says
 * "the ring"; on the socket a message Python serves is handed over held (RGPU_SERVE_HANDED, or
 * RGPU_SERVE_RING and _STEP for one the loop copied), and a message of async calls only is known by
 * its shape, there being no record flag.
 *
 * One call, without the GIL, that waits on the session's ring for the client's next message, serves it
 * itself when it is one of the hot calls whose Python path it reproduces exactly, answers on the ring,
 * and waits for the next — and returns to Python at the first thing it does not serve:
 *   - a ring message it does not serve (RGPU_SERVE_RING: Python serves it, from the loop's copy);
 *   - a message of the client's due on the socket (RGPU_SERVE_SOCKET);
 *   - nothing for timeout_s while it had served nothing (RGPU_SERVE_IDLE: the worker's housekeeping);
 *   - the housekeeping deadline `until` once it has served something (RGPU_SERVE_YIELD): Python then
 *     publishes the session's counts and runs its checks (lease end, supervisor's orders, migration),
 *     exactly as it does after a message it served itself when its deadline has come;
 *   - a wait it answered but whose reply or accounting is Python's (RGPU_SERVE_ANSWERED: the device's
 *     printf output to read into the reply, device time to charge the scheduler, a clock that refused
 *     to settle);
 *   - a step it served or began with the GPU held, whose rest is Python's (RGPU_SERVE_STEP);
 *   - a step it served whose give-back found someone waiting: Python wakes them (RGPU_SERVE_NOTIFY);
 *   - a record the ring cannot hold (RGPU_SERVE_BROKEN: the worker ends that session).
 * So Python stops the loop by not calling it: nothing of Python's runs while it runs, and it never runs
 * past `until`, so there is nothing to race with. Each message is copied out of the shared ring before
 * it is read: the client may write the ring at any time, and what is checked is then what runs (and
 * what Python gets, for the rest of a step).
 *
 * What it serves, on the cuda backend (server/backends/cuda/native/launches.c does the work, as for
 * Python's fast paths in worker._serve):
 *   - a message of one wait whose work is done: a stream or event query or synchronize, a device
 *     synchronize (rgpu_launcher_wait_alone, which also settles the kernel clock and checks the printf
 *     pipe as Python does at a message's end);
 *   - a message of launches (and async memsets, device-to-device copies, event records and copies from
 *     and to pinned memory the copier serves; a --failover session's copies into pinned memory, whose
 *     data is due before the next reply, only where the wait synchronises their stream) and then one
 *     such wait (rgpu_launcher_step_checked), while no other session of the GPU wants it: the GPU is taken and given back through the scheduler's uncontended path (sched.c),
 *     exactly as Session.hold_for_step and Session.stepped do; anything else is Python's to decide.
 *     A step that stops part way (a launch the driver refused, a wait on work not done) comes back
 *     as RGPU_SERVE_STEP with the GPU held and the launches run counted: Python serves the rest.
 *   - a message of such a step's calls and then one sync copy through the session segment or memset
 *     instead of the wait (copy_step: a kernel and its result read back with cudaMemcpy), the copy made
 *     once every stream is done within the launcher's poll (else Python copies, the GPU held);
 *   - a message of one copy through the session segment, memset, allocation or free
 *     (server/backends/cuda/native/copies.c, rgpu_copier_serve): the reply names the D2H data's region
 *     or carries the allocation's address, as Python's does; allocations are charged on the GPU's
 *     shared counters under their lock (quota.c), and logged (mem_addr, mem_size) for Python's tables,
 *     which it enters before anything reads them; a reply that must carry printf output, or a settle
 *     Python charges, comes back as RGPU_SERVE_COPIED;
 *   - on the socket, a message of one sync D2H copy too large for the reply's frame buffer, read from
 *     the device into the frames that carry it, in pieces where the client asked (d2h_out).
 * A wait on work not done within the launcher's short poll is Python's (server/backends/cuda/waits.py:
 * a long wait must keep the worker's checks running). Python lets the loop serve only while nothing
 * else could change the answer: no deferred or sticky error, no piece error, no late D2H data waiting
 * to go out, no migration under way, the session not reclaimed (worker.py). The counts Python keeps
 * per call (calls, messages, the last seq and face, the compiled launches and waits, the device time
 * charged) come back in the state and are added before anything reads them.
 *
 * The envelope: requests are read by the launcher's readers (launches.c: read_wait, read_launch, the
 * shapes of rgpu_launcher_wait_alone and rgpu_launcher_shape, on the generated rgpu_env_read_call); the reply is
 * the envelope's common one (success, nothing deferred, no message, no output), written by the
 * generated rgpu_env_write_reply (protocol/contract/envelope.toml). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "mpack.h"
#include "rgpu_envelope.h"
#include "ring.h"
#include "rgpu_wire.h"
#include "serve.h"

int rgpu_ring_next_in_place(void *ring, uint64_t sock_received, uint64_t *head, double spin_s, double timeout_s,
                            uint32_t *len, uint32_t *flags, unsigned char *out);
const unsigned char *rgpu_ring_held(void);
void rgpu_ring_settle(void);
void rgpu_ring_done(void);
int rgpu_ring_frames(const unsigned char *rec, uint32_t len, uint32_t max, uint32_t *head_len, uint64_t *off,
                     uint64_t *n);
int rgpu_ring_reply(void *ring, const char *msg, size_t len);
int rgpu_sched_take(rgpu_sched *s);
int rgpu_sched_give(rgpu_sched *s, double seconds, int64_t kernels);
int rgpu_sched_contended(rgpu_sched *s);

/* The reply to a wait the launcher answered, on the ring, unless it must carry printf output (output in
 * the pipe, or already drained into Python's buffer; -1: no capture, or a pipe that cannot say, which
 * Python looks at): 1 sent, 0 Python's. */
static int reply_data(rgpu_chan *ch, const rgpu_serve_state *st, const rgpu_launch_run *w, uint64_t out_len,
                      const uint64_t *value, const void *frame, size_t frame_len);

static int reply_ok(rgpu_chan *ch, const rgpu_serve_state *st, const rgpu_launch_run *w) {
    return reply_data(ch, st, w, 0, NULL, NULL, 0);
}

/* Whether the reply to the message `w` ended must carry printf output (output in the pipe, or already
 * drained into Python's buffer; -1: no capture, or a pipe that cannot say, which Python looks at): it
 * is then Python's. */
static int must_print(const rgpu_serve_state *st, const rgpu_launch_run *w) {
    return st->printf_buffered ? (w->pending != 0 || *st->printf_buffered) : w->pending > 0;
}

/* `reply` written into `out` (mp_init_inline'd by the caller), its outs [*value] (NULL: none). */
static void write_reply(mp_writer *out, rgpu_env_reply *reply, const uint64_t *value) {
    unsigned char outs[16];
    mp_writer o;
    if (value) {
        mp_init_inline(&o, outs, sizeof outs);
        mp_uint(&o, *value);
        reply->outs = (rgpu_env_list){.p = o.buf, .len = o.len, .n = 1};
    }
    rgpu_env_write_reply(out, reply);
    if (value) mp_free(&o);
}

/* reply_ok for a reply whose data (`out_len` bytes, 0: none) is in the session segment at
 * RGPU_SHM_DATA: the reply names that region, as Python's does once Segment.put wrote it there; and
 * whose outs are `*value` (an allocation's address; NULL: none); and, on the socket, whose data
 * (`frame`, NULL: none) goes in a frame after it. */
static int reply_data(rgpu_chan *ch, const rgpu_serve_state *st, const rgpu_launch_run *w, uint64_t out_len,
                      const uint64_t *value, const void *frame, size_t frame_len) {
    if (must_print(st, w)) return 0;
    unsigned char buf[48];
    mp_writer out;
    mp_init_inline(&out, buf, sizeof buf);
    rgpu_env_region region = {.offset = RGPU_SHM_DATA, .length = out_len};
    rgpu_env_reply reply = {.seq = w->last_seq};   /* success, no outs, nothing deferred, no text */
    if (out_len) reply.has_regions = 1, reply.regions = (rgpu_env_list){.n = 1, .items = &region};
    write_reply(&out, &reply, value);
    int sent = !out.oom && (frame ? ch->reply_frame(ch, (const char *)out.buf, out.len, frame, frame_len)
                                  : ch->reply(ch, (const char *)out.buf, out.len)) == 0;
    mp_free(&out);
    return sent;
}

/* An allocation made (size > 0) or freed (size < 0) for Python's tables. A free of one made since
 * Python last read the log takes it out instead: Python need never hear of either, and a program that
 * allocates and frees in a loop is served without yielding to Python for its tables. */
static void mem_log(rgpu_serve_state *st, uint64_t addr, int64_t size) {
    if (size < 0)
        for (uint32_t i = st->mem_n; i-- > 0;)
            if (st->mem_addr[i] == addr) {
                if (st->mem_size[i] < 0) break; /* freed twice in the log: cannot be, but Python's to see */
                memmove(st->mem_addr + i, st->mem_addr + i + 1, (st->mem_n - i - 1) * sizeof *st->mem_addr);
                memmove(st->mem_size + i, st->mem_size + i + 1, (st->mem_n - i - 1) * sizeof *st->mem_size);
                st->mem_n--;
                return;
            }
    st->mem_addr[st->mem_n] = addr, st->mem_size[st->mem_n] = size;
    st->mem_n++;
}

/* The calls in a message (its array's length), or 0. */
static uint32_t calls_in(const unsigned char *msg, uint32_t len) {
    mp_reader r;
    mp_obj calls;
    mp_rinit(&r, msg, len);
    return mp_next(&r, &calls) || calls.type != MP_ARRAY ? 0 : calls.n;
}

static void count(rgpu_serve_state *st, const rgpu_launch_run *w, uint32_t calls, uint32_t launches) {
    st->served++;
    st->calls += 1 + calls;
    st->launches += launches;
    st->last_seq = w->last_seq;
    st->runtime = w->runtime;
}

/* A step served whole, its reply sent (`n` calls, then its last): Session.stepped, the GPU given back
 * with the device time since the last charge, and the step counted. 0, or RGPU_SERVE_NOTIFY: the
 * give-back found a session waiting, which Python wakes. */
static int stepped(rgpu_serve_state *st, const rgpu_launch_run *w, uint32_t n) {
    int waiting = 0;
    if (st->sched) {
        double d = w->done - st->accounted;
        st->accounted = w->done;
        waiting = rgpu_sched_give(st->sched, d > 0 ? d : 0.0, w->kernels);
    }
    st->replied = 0;
    count(st, w, n, w->kernels);
    return waiting ? RGPU_SERVE_NOTIFY : 0;
}

/* A step (rgpu_launcher_shape found `n` calls then a wait) with the GPU taken:
 * Session.hold_for_step, _step and Session.stepped. 0: served whole, the loop goes on; else the code. */
static int step(rgpu_chan *ch, rgpu_launcher *l, rgpu_serve_state *st, uint32_t n) {
    rgpu_launch_run *w = &st->wait;
    if (st->sched && !rgpu_sched_take(st->sched)) return RGPU_SERVE_RING; /* Python decides, and waits */
    if (ch->rewind) ch->rewind(ch, st);
    /* a session that holds no scheduler settles its clock before the wait, as Python's settle does */
    int rc = rgpu_launcher_step_checked(l, st->copier, st->copy, st->len, n, st->sched == NULL, w);
    if (rc < 0) { /* cannot be (the copy was accepted): give the GPU back untouched */
        if (st->sched) rgpu_sched_give(st->sched, 0.0, 0);
        return RGPU_SERVE_RING;
    }
    st->steps = n;
    st->answered = rc == 1;
    if (!st->answered) return RGPU_SERVE_STEP; /* Python serves the rest, the GPU held */
    if (ch->before_reply && ch->before_reply(ch, st) != 0) return RGPU_SERVE_STEP; /* the reply Python's */
    st->replied = reply_ok(ch, st, w);
    uint32_t pulls = st->copier ? rgpu_copier_pull_n(st->copier) : 0;
    if (pulls && (!st->replied || !ch->after_reply || ch->after_reply(ch, st) != 0)) {
        st->pulls_due = pulls; /* Python answers them after the wait's reply */
        return RGPU_SERVE_STEP;
    }
    if (!st->replied || !w->settled) return RGPU_SERVE_STEP;
    return stepped(st, w, n); /* (the pulls, a call each, counted by Python: st->pulls, st->pull_seq) */
}

/* A step whose last call is a copy through the segment or a memset (rgpu_launcher_shape found `n` calls
 * then the copy), served as step() serves one: the copy's reply names its data
 * as a copy's alone does. Output the kernels printed goes in that reply, which is then Python's: such a
 * message is Python's while the device's capture holds some. 0: served whole; else the code. */
static int copy_step(rgpu_chan *ch, rgpu_launcher *l, rgpu_serve_state *st, uint32_t n) {
    rgpu_launch_run *w = &st->wait;
    if (st->printf_buffered && *st->printf_buffered) return RGPU_SERVE_RING;
    if (st->sched && !rgpu_sched_take(st->sched)) return RGPU_SERVE_RING; /* Python decides, and waits */
    int rc = rgpu_launcher_copy_step(l, st->copier, st->copy, st->len, n, st->sched == NULL, st->seg, st->seg_size,
                                     w, &st->copied);
    st->steps = n;
    st->answered = rc == 1;
    st->copy_step = 1;
    if (!st->answered) return RGPU_SERVE_STEP; /* Python serves the rest (the copy), the GPU held */
    st->replied = reply_data(ch, st, w, st->copied.out_len, NULL, NULL, 0);
    if (!st->replied || !w->settled) return RGPU_SERVE_STEP;
    st->copy_step = 0;
    st->copies++;
    st->shm_in += st->copied.shm_in, st->shm_out += st->copied.out_len;
    return stepped(st, w, n);
}

/* A step whose last call is a sync D2H copy whose data goes back in a frame (rgpu_launcher_shape found
 * RGPU_STEP_FRAME, `n` calls then the copy of `count` bytes; or a message of that copy alone, n 0), on
 * the socket: loop_steps.py _frame_step, the copy made into st->frame once the device is idle. 0: served
 * whole; else the code (RGPU_SERVE_STEP answered with frame_step set: the reply, or the settle, Python's). */
static int frame_step(rgpu_chan *ch, rgpu_launcher *l, rgpu_serve_state *st, uint32_t n, uint64_t count) {
    rgpu_launch_run *w = &st->wait;
    if (!ch->reply_frame || !st->frame || count > st->frame_cap) return RGPU_SERVE_RING;
    if (st->sched && !rgpu_sched_take(st->sched)) return RGPU_SERVE_RING; /* Python decides, and waits */
    if (ch->rewind) ch->rewind(ch, st);
    int rc = rgpu_launcher_frame_step(l, st->copier, st->copy, st->len, n, st->sched == NULL, st->frame, count, w);
    st->steps = n;
    st->answered = rc == 1;
    if (!st->answered) return RGPU_SERVE_STEP; /* Python serves the rest (the copy), the GPU held */
    st->frame_step = 1, st->frame_len = count;
    st->replied = reply_data(ch, st, w, 0, NULL, st->frame, count);
    if (!st->replied || !w->settled) return RGPU_SERVE_STEP;
    st->frame_step = 0;
    st->copies++;
    st->frame_out += count;
    return stepped(st, w, n);
}

/* A message of one sync D2H copy whose data goes back in a frame (cudaMemcpy after a synchronize, from
 * another host): its bytes in *count. */
static int frame_alone(rgpu_serve_state *st, uint64_t *count) {
    mp_reader r;
    mp_obj calls;
    mp_rinit(&r, st->copy, st->len);
    if (!st->copier || mp_next(&r, &calls) || calls.type != MP_ARRAY || calls.n != 1) return 0;
    return rgpu_copier_frame_d2h(st->copier, &r, st->copy + st->len, NULL, 0, 0, count, NULL);
}

/* A message of async calls only (rgpu_launcher_shape found RGPU_STEP_ASYNC, `n` calls; a batch the
 * client sent full), with the GPU taken: worker.py's _async_run. The calls run, the clock settled and
 * the GPU given back with its device time, no reply: 0, the loop goes on. Else RGPU_SERVE_STEP with the
 * GPU held and nothing answered (st->wait.served the calls that ran): a call the driver refused,
 * a settle it refused, or a neighbour that wants the GPU while these kernels may still run (Python's
 * release lets them finish first); Python serves the rest and settles, as at a message's end. */
static int async_run(rgpu_chan *ch, rgpu_launcher *l, rgpu_serve_state *st, uint32_t n) {
    rgpu_launch_run *w = &st->wait;
    if (st->sched && !rgpu_sched_take(st->sched)) return RGPU_SERVE_RING; /* Python decides, and waits */
    if (ch->rewind) ch->rewind(ch, st);
    rgpu_launcher_run_calls(l, st->copier, st->copy, st->len, n, w);
    st->steps = n;
    st->answered = 0;
    if (w->served < n) return RGPU_SERVE_STEP;
    rgpu_launcher_end(l, w);
    if (!w->settled || (st->sched && rgpu_sched_contended(st->sched))) return RGPU_SERVE_STEP;
    st->batches++;
    return stepped(st, w, n - 1); /* count() adds the message's last call */
}

/* The most data frames a message the loop serves may have (a step's DataLoader batch copied without
 * blocking: a frame a tensor; a full batch of async calls: one each, libhook session.c
 * BATCH_MAX_CALLS). The socket's channel holds as many (sock_serve.c SOCK_FRAMES). */
#define DOOR_FRAMES 256

/* A message that is one piece of a large H2D copy (PIECE_IN, a frame of the copy's data:
 * server/pieces.py), copied from its frame as worker.py _serve's launcher.piece copies it, with no
 * reply (a piece has none) and the message's settle. Behind work still running it is Python's before
 * its frame is taken (Python waits for the device without going deaf). 0: served; else the code
 * (RGPU_SERVE_COPIED: its settle or charge Python's, st->copied saying there is no reply). */
static int piece(rgpu_chan *ch, rgpu_launcher *l, rgpu_serve_state *st) {
    rgpu_launch_run *w = &st->wait;
    uint64_t n, seq;
    int runtime;
    if (!rgpu_launcher_idle(l)) return RGPU_SERVE_RING;
    if (ch->take_frames(ch, 1) != 0) return RGPU_SERVE_RING; /* a frame after it: malformed, Python's */
    const void *data = ch->frame(ch, 0, &n);
    if (!rgpu_copier_piece(st->copier, st->copy, st->len, data, n, &seq, &runtime)) return RGPU_SERVE_RING;
    w->served = 1, w->last_seq = seq, w->runtime = runtime, w->kernels = 0;
    rgpu_launcher_end(l, w);
    count(st, w, 0, 0);
    st->piece_msgs++, st->frame_pieces++;
    st->frame_bytes_in += n;
    memset(&st->copied, 0, sizeof st->copied); /* no reply: a piece's copy is answered by its last call */
    if (!w->settled || w->done > st->accounted) return RGPU_SERVE_COPIED; /* Python settles, charges */
    return 0;
}

/* A sync H2D copy from its one frame, run (rgpu_copier_h2d_frame): counted and answered as a copy alone
 * is (the rgpu_copier_serve branch of rgpu_serve_on), its bytes as a piece's. 0: served whole; else the
 * code. */
static int frame_copied(rgpu_chan *ch, rgpu_serve_state *st) {
    rgpu_launch_run *w = &st->wait;
    count(st, w, 0, 0);
    st->copies++;
    st->frame_bytes_in += rgpu_copier_frame_bytes(st->copier);
    memset(&st->copied, 0, sizeof st->copied);
    st->copied.sync = 1;
    st->replied = reply_ok(ch, st, w);
    if (!st->replied) return RGPU_SERVE_COPIED; /* its reply carries printf output: Python's */
    if (!w->settled || w->done > st->accounted) return RGPU_SERVE_COPIED; /* Python settles, charges */
    st->replied = 0;
    return 0;
}

/* A message with data frames after its head (st->parts: the socket's, a client on another host; or a
 * ring record's, an async copy from pageable memory on the same host, whose record may want no reply): a
 * sync H2D copy's one frame, a piece of a large H2D copy, or a step or batch of async calls whose async H2D copies take the frames
 * (a DataLoader's batch copied with the step, frame_h2d_one), as loop_steps.py step serves them (a reply
 * frame after data frames, or a copy step, is Python's there too). The frames are taken first, so any
 * message the loop then declines or begins is Python's with them held for it. 0: served whole; else the
 * code; the bytes the copies took from the frames counted either way, as _step counts them. */
static int with_frames(rgpu_chan *ch, rgpu_launcher *l, rgpu_serve_state *st) {
    if (!ch->take_frames || !st->copier) return RGPU_SERVE_RING;
    if (rgpu_copier_is_piece(st->copier, st->copy, st->len)) return piece(ch, l, st);
    if (ch->take_frames(ch, DOOR_FRAMES) != 0) return RGPU_SERVE_RING; /* more than it holds: Python's */
    int kind = 0, no_reply = (st->req_flags & RGPU_RING_ASYNC) != 0; /* a ring record of async calls only */
    uint64_t unused = 0;
    if (ch->rewind) ch->rewind(ch, st);
    if (!no_reply && rgpu_copier_h2d_frame(st->copier, st->copy, st->len, &st->wait)) return frame_copied(ch, st);
    uint32_t n = rgpu_launcher_shape(l, st->copier, st->copy, st->len, st->seg, st->seg_size, &kind, &unused);
    if (!n || (kind != RGPU_STEP_WAIT && kind != RGPU_STEP_ASYNC) || (no_reply && kind != RGPU_STEP_ASYNC))
        return RGPU_SERVE_RING;
    int rc = kind == RGPU_STEP_WAIT ? step(ch, l, st, n) : async_run(ch, l, st, n);
    st->frame_bytes_in += rgpu_copier_frame_bytes(st->copier); /* (the run's: a pass that did not run adds 0) */
    st->frame_pieces += rgpu_copier_pieces(st->copier);
    return rc;
}

/* A reply of `result` to call `seq` (outs: [*offset], or none) and the frame the door's out_buf holds
 * after it: 0 sent, else not (the frame let go). */
static int send_out(rgpu_chan *ch, uint64_t seq, int64_t result, const uint64_t *offset) {
    unsigned char buf[48];
    mp_writer out;
    mp_init_inline(&out, buf, sizeof buf);
    rgpu_env_reply reply = {.seq = seq, .result = result};
    write_reply(&out, &reply, offset);
    int sent = !out.oom && ch->send_out(ch, (const char *)out.buf, out.len) == 0;
    if (!sent && out.oom) ch->out_drop(ch);
    mp_free(&out);
    return sent ? 0 : -1;
}

/* A message of one sync D2H copy too large for st->frame (a tensor or a checkpoint read back with
 * cudaMemcpy from another host: 256 KiB and more; copies.c rgpu_copier_d2h_alone), its data read from
 * the device straight into the frames that carry it (the door's out_buf: no copy of Python's, no
 * buffer of its own): in pieces where the client asked for them (SYNC_PIECES_OUT), as
 * server/pieces.py run_d2h_pieces sends them, each a PIECE_OUT reply with its offset and one frame,
 * then the reply with the last; else in the reply's one frame (at most D2H_CHUNK bytes: Python's
 * handler sends more as several). As Python's handler copies it, the device idle (a busy one is
 * Python's, which waits without going deaf), no GPU taken (a copy alone holds none there either).
 * Nothing sent: the message is Python's whole. Pieces sent and then one not (the driver refused it,
 * the reply must carry printf output, the peer gone): st->out_sent says how far, and Python sends the
 * rest from there. 0: served; else the code. */
static int d2h_out(rgpu_chan *ch, rgpu_launcher *l, rgpu_serve_state *st, const rgpu_d2h *d) {
    rgpu_launch_run *w = &st->wait;
    uint64_t size = d->count;
    if (d->pieces && d->count >= RGPU_PIECE_MIN) { /* pieces.py piece_size */
        size = (d->count + RGPU_PIECE_COUNT - 1) / RGPU_PIECE_COUNT;
        if (size > RGPU_PIECE_MAX) size = RGPU_PIECE_MAX;
        if (size < RGPU_PIECE_MIN / 2) size = RGPU_PIECE_MIN / 2;
    } else if (d->count > RGPU_D2H_CHUNK) {
        return RGPU_SERVE_RING;
    }
    if (st->printf_buffered && *st->printf_buffered) return RGPU_SERVE_RING; /* the reply Python's */
    if (!rgpu_launcher_idle(l)) return RGPU_SERVE_RING;
    uint64_t off = 0, k = 0;
    uint32_t sent = 0; /* pieces: each a call, as Python's run of each counts it */
    int last = 0; /* the last piece (or the whole) read, its frame held */
    for (;;) {
        k = d->count - off < size ? d->count - off : size;
        void *buf = ch->out_buf(ch, k);
        if (!buf) break;
        if (!rgpu_copier_d2h(st->copier, buf, d->dev + off, k)) {
            ch->out_drop(ch);
            break;
        }
        if (off + k == d->count) {
            last = 1;
            break;
        }
        if (send_out(ch, d->seq, RGPU_PIECE_OUT, &off) != 0) break;
        st->out_pieces++, sent++;
        st->frame_out += k;
        off += k;
    }
    if (last) {
        /* the message's end, as Python's: the settle, and the printf check its reply may have to carry */
        w->served = 1, w->last_seq = d->seq, w->runtime = d->runtime, w->kernels = 0;
        rgpu_launcher_end(l, w);
        if (!must_print(st, w) && send_out(ch, d->seq, 0, NULL) == 0) {
            st->frame_out += k;
            count(st, w, sent, 0);
            st->copies++;
            memset(&st->copied, 0, sizeof st->copied); /* its reply sent */
            if (!w->settled || w->done > st->accounted) return RGPU_SERVE_COPIED; /* Python settles, charges */
            return 0;
        }
        ch->out_drop(ch);
    }
    st->calls += sent;
    st->out_sent = off; /* Python's from there (nothing sent: all of it) */
    return RGPU_SERVE_RING;
}

int rgpu_serve_on(rgpu_chan *ch, rgpu_launcher *l, rgpu_serve_state *st) {
    st->copy_step = 0, st->batches = 0;
    st->served = 0, st->calls = 0, st->launches = 0;
    st->replied = 0, st->answered = 0, st->steps = 0;
    st->copies = 0, st->shm_in = 0, st->shm_out = 0, st->mem_n = 0, st->late_bytes = 0;
    st->frame_step = 0, st->frame_out = 0, st->pulls = 0, st->pulls_due = 0, st->pull_bytes = 0;
    st->piece_msgs = 0, st->frame_pieces = 0, st->frame_bytes_in = 0;
    st->out_pieces = 0, st->out_sent = 0;
    double spin = st->spin_s;
    for (;;) {
        double timeout = st->timeout_s;
        if (st->served) {
            if (st->mem_n + RGPU_PLACE_MAX + 1 > MEM_LOG) return RGPU_SERVE_YIELD; /* Python's tables first */
            double left = st->until - rgpu_now_s();
            if (left <= 0) return RGPU_SERVE_YIELD;
            if (left < timeout) timeout = left;
        }
        /* the message is copied out of where it came before it is read (ring.c check) */
        st->parts = 0;
        int got = ch->next(ch, st, spin, timeout);
        if (got < 0) return RGPU_SERVE_BROKEN;
        if (got == 0) return st->served ? RGPU_SERVE_YIELD : RGPU_SERVE_IDLE;
        if (got != 1) return got;
        if (l == NULL) return RGPU_SERVE_RING; /* (on the socket: the message held, as RGPU_SERVE_HANDED's) */
        rgpu_launch_run *w = &st->wait;
        uint32_t n;
        int kind = 0;
        uint64_t frame_bytes = 0;
        rgpu_d2h big;
        if (st->parts) {
            int rc = with_frames(ch, l, st);
            if (rc) return rc;
        } else if (st->req_flags & RGPU_RING_ASYNC) { /* no reply goes to the ring for it: only a batch of async calls is served here */
            if (ch->rewind) ch->rewind(ch, st);
            n = rgpu_launcher_shape(l, st->copier, st->copy, st->len, st->seg, st->seg_size, &kind, &frame_bytes);
            if (!n || kind != RGPU_STEP_ASYNC) return RGPU_SERVE_RING;
            int rc = async_run(ch, l, st, n);
            if (rc) return rc;
        } else if (rgpu_launcher_wait_alone(l, st->copy, st->len, w)) {
            if (!reply_ok(ch, st, w)) return RGPU_SERVE_ANSWERED;
            st->replied = 1;
            if (!w->settled || w->done > st->accounted) return RGPU_SERVE_ANSWERED; /* Python settles, charges */
            st->replied = 0;
            count(st, w, 0, 0);
        } else if (st->copier && rgpu_copier_serve(st->copier, st->copy, st->len, st->seg, st->seg_size,
                                                   st->quota, w, &st->copied)) {
            /* a copy, memset, allocation or free, served whole: counted now, whoever sends its reply */
            rgpu_copy_done *d = &st->copied;
            count(st, w, d->nplaced, 0);
            st->copies++;
            st->shm_in += d->shm_in, st->shm_out += d->out_len;
            for (uint32_t i = 0; i < d->nplaced; i++) /* in order: before the call's own */
                mem_log(st, d->placed_addr[i], d->placed_size[i]);
            if (d->addr) mem_log(st, d->addr, d->size);
            st->replied = d->sync && reply_data(ch, st, w, d->out_len, d->size > 0 ? &d->addr : NULL, NULL, 0);
            if (d->sync && !st->replied) return RGPU_SERVE_COPIED; /* its reply carries printf output */
            if (!w->settled || w->done > st->accounted) return RGPU_SERVE_COPIED; /* Python settles, charges */
            st->replied = 0;
        } else if ((ch->rewind ? ch->rewind(ch, st) : (void)0),
                   (n = rgpu_launcher_shape(l, st->copier, st->copy, st->len, st->seg, st->seg_size, &kind, &frame_bytes)) != 0 &&
                   (kind == RGPU_STEP_WAIT || kind == RGPU_STEP_COPY) &&
                   /* a wait with managed pulls after it: their replies follow the wait's (after_reply) */
                   !(kind == RGPU_STEP_WAIT && !ch->after_reply && calls_in(st->copy, st->len) != n + 1)) {
            int rc = kind == RGPU_STEP_WAIT ? step(ch, l, st, n) : copy_step(ch, l, st, n);
            if (rc) return rc;
        } else if (n != 0 && kind == RGPU_STEP_ASYNC && ch->async_by_shape) {
            int rc = async_run(ch, l, st, n); /* no reply: none is waited for */
            if (rc) return rc;
        } else if (ch->reply_frame && ((n != 0 && kind == RGPU_STEP_FRAME) ||
                                       (n == 0 && frame_alone(st, &frame_bytes) && frame_bytes <= st->frame_cap))) {
            int rc = frame_step(ch, l, st, n, frame_bytes);
            if (rc) return rc;
        } else if (n == 0 && ch->out_buf && st->copier && rgpu_copier_d2h_alone(st->copier, st->copy, st->len, &big) &&
                   (!st->frame || big.count > st->frame_cap)) {
            int rc = d2h_out(ch, l, st, &big); /* (one frame_step's buffer cannot hold) */
            if (rc) return rc;
        } else {
            return RGPU_SERVE_RING;
        }
        spin = st->next_spin_s;
    }
}

/* The call ring's door (ring.c): a record copied out of the shared ring, a reply posted to it. A
 * record's data frames are read where the client wrote them, in the ring (rgpu_ring_next_in_place: its
 * head and frame table are the worker's copy), until the next record; Python, which reads only the
 * worker's copy, gets them there (rgpu_serve settles before it returns). */
typedef struct {
    rgpu_chan ch;
    void *ring;
    uint64_t *head;
    uint32_t nframes;
    const void *frame_p[RGPU_RING_FRAMES_MAX];
    uint64_t frame_off[RGPU_RING_FRAMES_MAX], frame_n[RGPU_RING_FRAMES_MAX];
} ring_chan;

static int ring_next(rgpu_chan *c, rgpu_serve_state *st, double spin_s, double timeout_s) {
    ring_chan *r = (ring_chan *)c;
    r->nframes = 0;
    int got = rgpu_ring_next_in_place(r->ring, st->sock_received, r->head, spin_s, timeout_s, &st->len,
                                      &st->req_flags, st->copy);
    st->rec_len = st->len;
    if (got != 1 || !(st->req_flags & RGPU_RING_FRAMES)) return got;
    uint32_t head_len;
    int n = rgpu_ring_frames(st->copy, st->len, RGPU_RING_FRAMES_MAX, &head_len, r->frame_off, r->frame_n);
    if (n < 0) {
        st->len = RGPU_RING_WRAP; /* (ring.py: a frame table that cannot be) */
        return -1;
    }
    const unsigned char *at = rgpu_ring_held(); /* (the table's offsets are the same in the ring's record) */
    if (!at) at = st->copy;
    for (int i = 0; i < n; i++) r->frame_p[i] = at + r->frame_off[i];
    r->nframes = (uint32_t)n;
    st->len = head_len;
    st->parts = n > 0;
    return 1;
}

static int ring_reply(rgpu_chan *c, const char *msg, size_t len) {
    return rgpu_ring_reply(((ring_chan *)c)->ring, msg, len);
}

/* The copier reads this record's frames from the first (none: a record without), and makes no late
 * copies: the ring sends nothing ahead of a reply (copies.c; the socket's door, which a ring session
 * also uses for its socket messages, leaves its own frames and buffer in the copier). */
static void ring_rewind(rgpu_chan *c, rgpu_serve_state *st) {
    ring_chan *r = (ring_chan *)c;
    if (!st->copier) return;
    rgpu_copier_late_buffer(st->copier, NULL, 0);
    rgpu_copier_frames(st->copier, r->nframes ? r->frame_p : NULL, r->nframes ? r->frame_n : NULL, r->nframes);
}

static int ring_take_frames(rgpu_chan *c, uint32_t max) { return ((ring_chan *)c)->nframes > max ? -1 : 0; }

static const void *ring_frame(rgpu_chan *c, uint32_t i, uint64_t *n) {
    ring_chan *r = (ring_chan *)c;
    *n = r->frame_n[i];
    return r->frame_p[i];
}

int rgpu_serve(void *ring, rgpu_launcher *l, uint64_t *head, rgpu_serve_state *st) {
    ring_chan r = {.ch = {.next = ring_next, .reply = ring_reply, .async_by_shape = 0, .rewind = ring_rewind,
                          .take_frames = ring_take_frames, .frame = ring_frame},
                   .ring = ring, .head = head};
    int rc = rgpu_serve_on(&r.ch, l, st);
    /* A record Python goes on with (its message: RGPU_SERVE_RING, STEP, broken; or whose reply or
     * accounting is Python's) is all in st->copy; at the housekeeping deadline, or idle, the loop had
     * served every record it took, and nothing more is copied. */
    if (rc == RGPU_SERVE_YIELD || rc == RGPU_SERVE_IDLE)
        rgpu_ring_done();
    else
        rgpu_ring_settle();
    return rc;
}
