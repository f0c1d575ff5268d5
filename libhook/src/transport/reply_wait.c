/* The wait for a sync call's reply: on the call ring or the socket; the data a D2H copy streams back
 * (frames, pieces, or regions of the session segment); an earlier async copy's late data; a move
 * followed or an ended session; the sticky error of earlier async work; and the replies of the calls
 * that followed it in its message. */
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
#include "rgpu_call.h"
#include "session_parts.h"
#include "stats.h"

/* The server's message for the last call of this thread that failed with one. */
static __thread char rgpu_last_message[512];

const char *rgpu_last_server_message(void) { return rgpu_last_message; }

static void take_followers(rgpu_session *s, int dev, struct rgpu_call *c, uint64_t seq, double deadline);

int rgpu_sync_one(rgpu_session *s, int dev, struct rgpu_call *c) {
    uint64_t seq = ++s->seq;
    s->seq += (uint64_t)c->nthen; /* the followers' */
    int followers = c->nthen;
    rgpu_stats_wait(dev, c->id, c->name);
    /* a --failover session whose send failed has lost its server: the message is kept (replay.c),
     * and the wait below starts with the recovery that sends it again */
    int lost = rgpu_send_batch(s, c, seq) != 0;
    if (lost && !rgpu_fo_state(s)) {
        rgpu_mark_dead(s, "send failed");
        return RGPU_DEVICE_UNAVAILABLE;
    }
    double deadline = rgpu_now_s() + rgpu_timeout_s();
    /* a copy through shared memory: its reply comes once the DMA is done (rgpu_reply_spin_s) */
    size_t copying = 0;
    if (s->shm_base && c->pin_used) copying = c->pin_len;
    else if (s->shm_base && c->shm == 2) copying = c->shm_cap;
    else if (s->shm_base && c->shm == 1)
        for (int i = 0; i < c->nbulk; i++) copying += c->bulk_len[i];
    double spin = rgpu_reply_spin_s(copying);
    c->shm_early = 0;
    if (c->shm_piped) rgpu_take_early(s, c, seq, deadline);
    size_t streamed = 0; /* of a D2H copy's data, in the caller's buffer */
    int pieces_ok = 1;
    for (;;) {
        zmq_msg_t *head = malloc(sizeof(zmq_msg_t));
        int w = lost ? -2 : 1; /* 3: the reply came on the ring, in head; 0: the socket has a message; 1: wait */
        lost = 0;
        if (w == 1 && s->ring_wait) {
            int mode = rgpu_wait_mode();
            int rw = rgpu_ring_wait(s, deadline, mode == RGPU_WAIT_BLOCK ? 0 : spin,
                                    mode != RGPU_WAIT_SPIN, (struct zmq_msg_t *)head);
            if (rw == 1 || rw == 2) s->ring_wait = 0; /* 2: the worker put this reply on the socket */
            w = rw == 1 ? 3 : rw == 2 ? 1 : rw;
        }
        if (w == 1) w = rgpu_spin_for_reply(s->sock, deadline, spin) == 0 ? 0 : rgpu_wait_readable(s->sock, s, deadline);
        if (w == -2) {
            /* the connection dropped: a move's notice may be waiting behind it */
            zmq_pollitem_t item = {s->sock, 0, ZMQ_POLLIN, 0};
            if (zmq_poll(&item, 1, 0) > 0 && (item.revents & ZMQ_POLLIN)) w = 0;
        }
        if (w == -2 && rgpu_fo_state(s)) {
            /* a --failover session lost its server: resume on another (failover.c), then send again
             * what had no reply yet, this call's message included, and wait there */
            char why[700] = "";
            int ok = rgpu_fo_recover(s, dev, why, sizeof why) == 0, rebuilt = 0;
            if (ok) {
                rebuilt = rgpu_replay_resend_all(s, c, seq);
                ok = rebuilt >= 0;
            }
            if (ok) {
                if (rebuilt) followers = 0, c->shm_early = 0; /* as after a move (below) */
                free(head);
                deadline = rgpu_now_s() + rgpu_timeout_s();
                streamed = 0, pieces_ok = 1;
                continue;
            }
            free(head);
            char failed[760];
            snprintf(failed, sizeof failed, "failover failed: %s", why);
            rgpu_mark_dead(s, failed);
            return RGPU_DEVICE_UNAVAILABLE;
        }
        if (w != 0 && w != 3) {
            free(head);
            rgpu_mark_dead(s, w == -1 ? "no reply within RGPU_TIMEOUT" : "connection lost");
            return RGPU_DEVICE_UNAVAILABLE;
        }
        if (w == 0) {
            zmq_msg_init(head);
            zmq_msg_recv(head, s->sock, 0);
        }
        rgpu_env_reply rep;
        int parsed = rgpu_read_reply(head, &rep) == 0;
        uint64_t rseq = parsed ? rep.seq : 0;
        int rc = parsed ? (int)rep.result : RGPU_DEVICE_UNAVAILABLE;
        if (rseq == 0 && rc == RGPU_MOVED) {
            /* the session moved while this call was on its way: follow it, and wait for the reply
             * there (the call is sent again unless the old worker ran it) */
            int ok = rgpu_session_follow(s, dev, &rep, c, seq) == 0;
            zmq_msg_close(head);
            free(head);
            if (!ok) {
                rgpu_mark_dead(s, "it moved, and its new server cannot be reached");
                return RGPU_DEVICE_UNAVAILABLE;
            }
            deadline = rgpu_now_s() + rgpu_timeout_s();
            streamed = 0, pieces_ok = 1;
            c->shm_early = 0; /* the new worker's segment holds the reply's data, all of it */
            followers = 0; /* a message rebuilt for the new worker carries none: the caller does without */
            continue;
        }
        if (rseq != 0 && rc == RGPU_LATE_OUT) { /* an earlier async copy's data, before this reply */
            rgpu_take_late(s, rseq, head);
            zmq_msg_close(head);
            free(head);
            continue;
        }
        if (rseq == seq && rc == RGPU_PIECE_OUT) {
            /* a piece of a D2H copy's data (server/pieces.py): into the caller's buffer now, while
             * the network carries the next; they come in order */
            rgpu_env_piece_out piece;
            mp_reader pr = rgpu_outs_record(&rep);
            const char *why = "";
            pieces_ok = pieces_ok && c->shm == 2 && rgpu_env_read_piece_out(&pr, &piece, &why) == 0 &&
                        piece.offset == streamed;
            for (int more = zmq_msg_more(head); more;) {
                zmq_msg_t b;
                zmq_msg_init(&b);
                size_t into = 0, room = pieces_ok && streamed < c->shm_cap ? c->shm_cap - streamed : 0;
                more = rgpu_recv_part_into(s, &b, room ? (char *)c->shm_dst + streamed : NULL, room, &into);
                size_t len = zmq_msg_size(&b);
                if (into) streamed += into; /* it came sealed, and opened where it goes */
                else if (pieces_ok && streamed + len <= c->shm_cap) {
                    memcpy((char *)c->shm_dst + streamed, zmq_msg_data(&b), len);
                    streamed += len;
                } else pieces_ok = 0;
                zmq_msg_close(&b);
            }
            zmq_msg_close(head);
            free(head);
            deadline = rgpu_now_s() + rgpu_timeout_s();
            /* The next piece comes at the network's pace, a piece's time from now (1.5 ms for 4 MiB
             * at 2.8 GB/s), not within a spin: waited for blocked, the CPU is left to the threads that
             * receive it (ZeroMQ's I/O thread). On this project's 2-core VM, 64 MiB D2H copies across
             * TCP loopback, six alternating rounds: 2.40 against 2.10 GB/s and 0.91 against 1.02 CPU
             * seconds for 40 copies (medians; the rounds overlap). */
            spin = 0;
            continue;
        }
        /* A copy's reply data goes straight into the caller's buffer frame by frame, each frame
         * freed before the next is taken: holding them all (16 MiB as four 4 MiB frames) makes
         * glibc hand the pages back after every copy and fault them in again on the next. */
        int stream_out = c->shm == 2 && rseq == seq && rc == 0 && pieces_ok;
        c->nout_bulk = 0;
        for (int more = zmq_msg_more(head); more;) {
            zmq_msg_t *b = malloc(sizeof(zmq_msg_t));
            zmq_msg_init(b);
            int direct = stream_out && c->nout_bulk == 0;
            size_t into = 0, room = direct && streamed < c->shm_cap ? c->shm_cap - streamed : 0;
            more = rgpu_recv_part_into(s, b, room ? (char *)c->shm_dst + streamed : NULL, room, &into);
            size_t len = zmq_msg_size(b);
            if (into || (direct && streamed + len <= c->shm_cap)) {
                if (!into) memcpy((char *)c->shm_dst + streamed, zmq_msg_data(b), len);
                streamed += into ? into : len;
                zmq_msg_close(b);
                free(b);
                continue;
            }
            stream_out = 0; /* anything unexpected: keep the frames for the caller to judge */
            if (c->nout_bulk < RGPU_MAX_OUT_BULK) c->out_bulk[c->nout_bulk++] = b;
            else { zmq_msg_close(b); free(b); }
        }
        if (streamed && rseq == seq) c->shm_got = pieces_ok ? streamed : 0; /* 0: the copy fails, its data incomplete */
        if (s->bulk_failed) { /* a frame of this reply did not come, or did not open, on the bulk channel */
            c->reply = head;
            rgpu_end(c);
            return RGPU_DEVICE_UNAVAILABLE; /* the session is marked dead (bulk.c); the caller unlocks */
        }
        if (parsed && rseq == 0 && rc == RGPU_SESSION_ENDED) {
            /* no call's reply: the server is ending the session and says why (the lease expired) */
            char text[300] = "the server ended the session";
            if (rep.message.n)
                snprintf(text, sizeof text, "%.*s", (int)rep.message.n, (const char *)rep.message.p);
            c->reply = head;
            rgpu_end(c);
            rgpu_mark_dead(s, text);
            return RGPU_DEVICE_UNAVAILABLE; /* the caller unlocks */
        }
        if (rseq != seq) { /* a stale reply (e.g. to a malformed request); not ours */
            c->reply = head;
            rgpu_end(c);
            continue;
        }
        if (s->fo) /* a --failover session's log keeps them until the next checkpoint (failover.c) */
            for (size_t i = 0; i < s->nreplay; i++) {
                rgpu_replay_msg *m = &((rgpu_replay_msg *)s->replay)[i];
                /* only the last can hold a sync call, this one; its data may have gone through the segment */
                if (m->shm && i + 1 == s->nreplay) rgpu_fo_logged_rebuilt(s, m, c, seq);
                else rgpu_fo_logged(s, m->frames, m->n, m->owned);
            }
        rgpu_replay_clear(s); /* the worker ran everything sent before this reply */
        if (s->nlate) rgpu_late_settled(s, seq, (int)rep.deferred);
        s->replied_at = rgpu_now_s();
        c->reply = head;
        mp_rinit(&c->outs, rep.outs.p, rep.outs.len);
        c->nouts = rep.outs.n;
        int d = (int)rep.deferred;
        rgpu_env_bytes msg = rep.message;
        if (rep.output.n) {
            /* device printf: the program's own stdout, in launch order, at this synchronisation */
            fflush(stdout);
            fwrite(rep.output.p, 1, rep.output.n, stdout);
            fflush(stdout);
        }
        if (rep.has_regions && c->shm == 2 && s->shm_base) {
            /* the reply's bulk data is in the segment: region records, checked by the reader */
            size_t got = 0;
            mp_reader rr;
            mp_rinit(&rr, rep.regions.p, rep.regions.len);
            for (uint32_t i = 0; i < rep.regions.n; i++) {
                rgpu_env_region g;
                const char *why = "";
                if (rgpu_env_read_region(&rr, &g, &why)) break;
                uint64_t off = g.offset, len = g.length;
                if (off < RGPU_SHM_DATA || off + len > RGPU_SHM_DATA + s->shm_size || got + len > c->shm_cap) break;
                /* what rgpu_take_early copied out already is not copied again */
                size_t skip = c->shm_early > got ? (c->shm_early - got < len ? c->shm_early - got : len) : 0;
                rgpu_copy((char *)c->shm_dst + got + skip, (char *)s->shm_base + off + skip, len - skip);
                got += len;
            }
            c->shm_got = got;
            streamed = got; /* what the program saw of it, in its buffer */
        }
        if (s->fo) rgpu_fo_seen(s, seq, &rep, c, streamed);
        /* CUDA reports errors of asynchronous work at the next synchronisation: the calls whose
         * records say `deferred` return it (the Synchronize calls, and the synchronous copies and
         * memsets the generator marks so: records.py). The server sends the error with whichever
         * reply comes next; one that reaches another call (a query, a module load the runtime makes
         * on the program's behalf) is kept here for the next call that reports it, the first first. */
        if (d != 0) {
            rgpu_set_last_error(c->face, d);
            /* what the device cannot do (CUDA_ERROR_NOT_SUPPORTED: the software GPU lacks something the
             * program's code needs) is said by default: the program's own message names only the code */
            rgpu_log(d == CUDA_ERROR_NOT_SUPPORTED ? RGPU_LOG_WARN : RGPU_LOG_INFO,
                     "an earlier asynchronous call failed (%d): %.*s", d, (int)msg.n, (const char *)msg.p);
            if (!s->pending) s->pending = d;
        }
        if ((c->flags & RGPU_F_DEFERRED) && rc == 0 && s->pending) {
            rc = s->pending;
            s->pending = 0;
        }
        if (d == 0 && rc != 0 && msg.n) {
            rgpu_log(RGPU_LOG_INFO, "%s failed (%d): %.*s", c->name, rc, (int)msg.n, (const char *)msg.p);
            snprintf(rgpu_last_message, sizeof rgpu_last_message, "%.*s", (int)msg.n, (const char *)msg.p);
        }
        if (followers) take_followers(s, dev, c, seq, deadline);
        return rc;
    }
}

/* The replies to the calls that followed c in its message (c->then), which the worker sends right
 * after c's: they come within the same round trip. Each follower's frames are kept for its caller, its
 * result in then_rc. Anything else ends the wait, the followers not taken left at -1: a notice (the
 * session moved: followed, as between calls; or ended), a lost connection. A follower's reply that
 * comes later is a stale reply to the next call, which drops it. */
static void take_followers(rgpu_session *s, int dev, struct rgpu_call *c, uint64_t seq, double deadline) {
    for (int i = 0; i < c->nthen;) {
        struct rgpu_call *f = &c->then[i];
        int w = rgpu_spin_for_reply(s->sock, deadline, rgpu_spin_window_s()) == 0 ? 0
                                                                             : rgpu_wait_readable(s->sock, s, deadline);
        if (w == -2 && s->fo) {
            /* a --failover session lost its server between its call's reply and its followers': the
             * message, followers included, is in the log; after the recovery the followers not taken
             * are left at -1, as after a move */
            char why[700] = "";
            if (rgpu_fo_recover(s, dev, why, sizeof why) == 0) return;
            char failed[760];
            snprintf(failed, sizeof failed, "failover failed: %s", why);
            rgpu_mark_dead(s, failed);
            return;
        }
        if (w != 0) {
            rgpu_mark_dead(s, w == -1 ? "no reply within RGPU_TIMEOUT" : "connection lost");
            return;
        }
        zmq_msg_t *head = malloc(sizeof(zmq_msg_t));
        zmq_msg_init(head);
        zmq_msg_recv(head, s->sock, 0);
        rgpu_env_reply rep;
        int ok = rgpu_read_reply(head, &rep) == 0;
        uint64_t rseq = ok ? rep.seq : 0;
        int rc = ok ? (int)rep.result : RGPU_DEVICE_UNAVAILABLE;
        if (rseq != 0 && ok && rc == RGPU_LATE_OUT) {
            rgpu_take_late(s, rseq, head);
            zmq_msg_close(head);
            free(head);
            continue;
        }
        f->nout_bulk = 0;
        for (int more = zmq_msg_more(head); more;) {
            zmq_msg_t *b = malloc(sizeof(zmq_msg_t));
            zmq_msg_init(b);
            more = rgpu_recv_part(s, b);
            if (rseq == seq + 1 + (uint64_t)i && f->nout_bulk < RGPU_MAX_OUT_BULK) f->out_bulk[f->nout_bulk++] = b;
            else { zmq_msg_close(b); free(b); }
        }
        if (rseq == 0 && ok) {
            int moved = rc == RGPU_MOVED && rgpu_session_follow(s, dev, &rep, NULL, 0) == 0;
            if (!moved) rgpu_mark_dead(s, rc == RGPU_MOVED ? "it moved, and its new server cannot be reached"
                                                      : "the server ended the session");
            zmq_msg_close(head);
            free(head);
            return;
        }
        if (!ok || rseq != seq + 1 + (uint64_t)i) { /* stale: not ours */
            zmq_msg_close(head);
            free(head);
            continue;
        }
        int d = (int)rep.deferred;
        if (d != 0 && !s->pending) s->pending = d; /* for the next call that reports it, as in rgpu_sync_one */
        if (rep.output.n) {
            fflush(stdout);
            fwrite(rep.output.p, 1, rep.output.n, stdout);
            fflush(stdout);
        }
        f->reply = head;
        mp_rinit(&f->outs, rep.outs.p, rep.outs.len);
        f->nouts = rep.outs.n;
        f->then_rc = rc;
        if (s->fo) rgpu_fo_seen(s, rseq, &rep, f, 0); /* checked when replayed, as c's is (failover.c) */
        i++;
    }
}

