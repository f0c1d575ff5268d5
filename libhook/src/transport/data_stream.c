/* A session's data stream: the large frames of a plain-wire session whose worker is on another host go
 * as raw bytes on a TCP connection of their own beside the session socket, written by the thread that
 * sends them straight from the program's buffer and read by the thread that waits straight into it.
 * Through ZeroMQ, a 4 MiB piece crosses two I/O threads and a fresh message buffer at each end: on
 * the bed's veth pair 64 MiB copies ran at 0.52-0.66x a raw TCP stream (benchmarks/results/
 * landing-2026-12-05.md). The worker's end and the rules that keep both ends from waiting on each
 * other: server/data_stream.py.
 *
 * Framing is the bulk channel's (bulk.c): in the message, a `sealed` record stands where the data frame
 * was (the channel's name, the direction, the sender's count of such frames, the length); the stream
 * carries the data, in that order, after the message that names it. Nothing is sealed: the wire itself
 * is plain. The stream is the session's by its name, 16 random bytes told the worker in the attach
 * and written as the connection's first bytes. A frame the stream cannot carry (it failed to connect,
 * RGPU_DATA_STREAM=0) goes on the session socket, as without a stream. */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zmq.h>

#include "rgpu_call.h"
#include "rgpu_envelope.h"
#include "rgpu_wire.h"
#include "session_parts.h"

enum { TO_WORKER = 0, TO_CLIENT = 1 };
#define CONNECT_WAIT_MS 2000

static int stream_wanted(void) {
    static int on = -1;
    return rgpu_switched_on("RGPU_DATA_STREAM", &on);
}

int rgpu_stream_offer(rgpu_session *s, const char *endpoint, mp_writer *args) {
    /* a --failover session keeps its frames on the session socket: its recovery follows that socket's
     * loss (reply_wait.c, failover.c), where a stream's failure would end the session instead */
    if (strncmp(endpoint, "tcp://", 6) || !stream_wanted() || s->fo) return 0;
    if (getrandom(s->bulk_chan, sizeof s->bulk_chan, 0) != (ssize_t)sizeof s->bulk_chan) return 0;
    mp_array(args, 1);
    mp_bin(args, s->bulk_chan, sizeof s->bulk_chan);
    s->bulk_named = 1;
    return 1;
}

/* Waits until fd is ready for `events`: 0 ready, -1 the deadline passed, -2 the connection is lost (closed,
 * or the worker silent on the session socket: its pings stopped, as reply waits look for them each
 * second, liveness.c). A worker that is only slow to read, its GPU busy, still pings: that is waited for. */
static int ready(rgpu_session *s, int fd, short events, double until, rgpu_watch *watch) {
    for (;;) {
        double left = until - rgpu_now_s();
        if (left <= 0) return -1;
        struct pollfd p = {fd, events, 0};
        int n = poll(&p, 1, left > 1.0 ? 1000 : (int)(left * 1000) + 1);
        if (n > 0) return p.revents & events ? 0 : -2;
        if (n < 0 && errno != EINTR) return -2;
        if (s && s->tcp_fd >= 0 && rgpu_worker_silent(s, watch)) return -2;
    }
}

/* Sends (`out`) or receives all n bytes at p on the stream: 0, or ready()'s -1 / -2 (a receive that
 * meets the worker's close: -2). */
static int move_all(rgpu_session *s, char *p, size_t n, double until, int out) {
    rgpu_watch watch;
    rgpu_watch_begin(&watch, rgpu_now_s());
    while (n) {
        ssize_t k = out ? send(s->stream_fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT) : recv(s->stream_fd, p, n, MSG_DONTWAIT);
        if (k > 0) {
            p += k, n -= (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int w = ready(s, s->stream_fd, out ? POLLOUT : POLLIN, until, &watch);
            if (w == 0) continue;
            return w;
        }
        return -2;
    }
    return 0;
}

void rgpu_stream_connect(rgpu_session *s, const char *control, int port) {
    /* the worker's host as the control connection names it ("tcp://HOST:PORT", HOST maybe [v6]) */
    const char *colon = strrchr(control, ':');
    if (!colon || strncmp(control, "tcp://", 6) || port <= 0 || port > 65535) return;
    char host[300], service[8];
    const char *h = control + 6;
    size_t hl = (size_t)(colon - h);
    if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') h++, hl -= 2;
    if (hl >= sizeof host) return;
    memcpy(host, h, hl);
    host[hl] = 0;
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(host, service, &hints, &res) != 0) return;
    int fd = -1;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0) continue;
        int rc = connect(fd, a->ai_addr, a->ai_addrlen);
        int err = 0;
        socklen_t el = sizeof err;
        if (rc != 0 && (errno != EINPROGRESS || ready(NULL, fd, POLLOUT, rgpu_now_s() + CONNECT_WAIT_MS * 1e-3, NULL) ||
                        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0 || err != 0)) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    /* its name first: the worker takes no other connection's bytes as the session's (a fresh
     * connection's buffer takes 16 bytes at once) */
    if (fd >= 0 && send(fd, s->bulk_chan, sizeof s->bulk_chan, MSG_NOSIGNAL) != (ssize_t)sizeof s->bulk_chan) {
        close(fd);
        fd = -1;
    }
    if (fd < 0) {
        rgpu_log(RGPU_LOG_INFO, "the data stream to %s:%d did not connect: large frames go on the session socket", host, port);
        return;
    }
    /* a frame's last partial segment goes at once, not after the previous one's ACK (Nagle) */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    s->stream_fd = fd, s->stream_up = 1;
    s->bulk_sent = 0;
    s->stream_got = 0;
    s->bulk_failed = 0;
    rgpu_log(RGPU_LOG_INFO, "data stream %s:%d", host, port);
}

static void drop_pending(rgpu_session *s) {
    for (size_t i = 0; i < s->stream_npend; i++) zmq_msg_close(&((zmq_msg_t *)s->stream_pend)[i]);
    s->stream_npend = 0;
}

void rgpu_stream_close(rgpu_session *s) {
    drop_pending(s);
    free(s->stream_pend);
    s->stream_pend = NULL;
    s->stream_pendcap = 0;
    if (s->stream_up) close(s->stream_fd);
    s->stream_up = 0;
}

/* The stream's failure: nothing after it can be trusted to be in its place, so the session ends. */
static int broken(rgpu_session *s, const char *why, int w) {
    char text[200];
    snprintf(text, sizeof text, "its data stream failed: %s%s", why,
             w == -1 ? " (not within RGPU_TIMEOUT)" : w == -2 ? " (connection lost)" : "");
    rgpu_mark_dead(s, text);
    s->bulk_failed = 1;
    if (s->stream_up) close(s->stream_fd);
    s->stream_up = 0;
    drop_pending(s);
    return -1;
}

/* The data of the message just sent, in order: the worker reads it once it has the whole message,
 * so it is written only after the message's last frame (written before, a frame larger than the
 * socket's buffers would wait for a worker that waits for the message). */
static int flush(rgpu_session *s) {
    double until = rgpu_now_s() + rgpu_timeout_s();
    for (size_t i = 0; i < s->stream_npend; i++) {
        zmq_msg_t *m = &((zmq_msg_t *)s->stream_pend)[i];
        int w = move_all(s, zmq_msg_data(m), zmq_msg_size(m), until, 1);
        if (w) return broken(s, "the worker did not take a frame's data", w);
    }
    drop_pending(s);
    return 0;
}

int rgpu_stream_send_part(rgpu_session *s, zmq_msg_t *m, int flags) {
    size_t n = zmq_msg_size(m);
    int rc;
    if (n < RGPU_STREAM_MIN) {
        rc = zmq_msg_send(m, s->sock, flags);
    } else {
        rgpu_env_sealed rec = {.channel = {.p = s->bulk_chan, .n = 16}, .dir = TO_WORKER, .counter = ++s->bulk_sent,
                               .length = n};
        mp_writer head;
        mp_init(&head, RGPU_BULK_HEAD_MAX);
        rgpu_env_write_sealed(&head, &rec);
        zmq_msg_t h;
        zmq_msg_init_size(&h, head.len);
        memcpy(zmq_msg_data(&h), head.buf, head.len);
        mp_free(&head);
        if (zmq_msg_send(&h, s->sock, flags) < 0) {
            zmq_msg_close(&h);
            return -1;
        }
        if (s->stream_npend == s->stream_pendcap) {
            size_t cap = s->stream_pendcap ? 2 * s->stream_pendcap : 8;
            void *p = realloc(s->stream_pend, cap * sizeof(zmq_msg_t));
            if (!p) return broken(s, "out of memory", 0);
            s->stream_pend = p, s->stream_pendcap = cap;
        }
        /* the frame is kept until its data is written: as a sent message's, the caller's is done with */
        zmq_msg_t *keep = &((zmq_msg_t *)s->stream_pend)[s->stream_npend++];
        zmq_msg_init(keep);
        zmq_msg_move(keep, m);
        rc = (int)n;
    }
    if (rc >= 0 && !(flags & ZMQ_SNDMORE) && s->stream_npend && flush(s)) return -1;
    return rc;
}

int rgpu_stream_take(rgpu_session *s, zmq_msg_t *m, const rgpu_env_sealed *rec, void *dst, size_t room,
                     size_t *into) {
    if (rec->counter != s->stream_got + 1) return broken(s, "the worker named a frame out of its order", 0);
    s->stream_got++;
    double until = rgpu_now_s() + rgpu_timeout_s();
    if (dst && rec->length && rec->length <= room) { /* straight where the caller copies it */
        int w = move_all(s, dst, rec->length, until, 0);
        if (w) return broken(s, "a frame's data did not come", w);
        zmq_msg_close(m);
        zmq_msg_init(m);
        *into = rec->length;
        return 0;
    }
    zmq_msg_t out;
    if (zmq_msg_init_size(&out, rec->length)) return broken(s, "out of memory", 0);
    int w = move_all(s, zmq_msg_data(&out), rec->length, until, 0);
    if (w) {
        zmq_msg_close(&out);
        return broken(s, "a frame's data did not come", w);
    }
    zmq_msg_close(m);
    zmq_msg_init(m);
    zmq_msg_move(m, &out);
    zmq_msg_close(&out);
    return 0;
}
