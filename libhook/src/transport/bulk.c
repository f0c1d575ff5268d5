/* A session's bulk channel: the large frames of a CURVE session whose worker is on another host go
 * on a second connection to the worker, sealed with AEGIS-256 here, in the thread that sends or
 * receives them, instead of through CURVE's cipher on ZeroMQ's one I/O thread (XSalsa20-Poly1305:
 * 1.4-2.5 GB/s a core on this project's VM, against 9-10 for AEGIS-256). The worker's end and the
 * why: server/bulk.py; the constants: protocol/contract/constants.toml (BULK_MIN) and envelope.toml
 * (`sealed`). The transport knows nothing of what the frames hold: every frame of a message after
 * its head is one, whichever call it belongs to.
 *
 * The key and the channel's name are drawn here (getrandom) and told the worker in the attach, over
 * the CURVE wire; the worker answers with the port it bound. libsodium is loaded at run time: the
 * copy build.sh places beside librgpu.so (pyzmq's wheel's, 1.0.22), else the system's; one without
 * AEGIS-256 (before 1.0.19), or none, leaves the frames on the CURVE wire, as RGPU_BULK=0 does. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <zmq.h>

#include "rgpu_call.h"
#include "rgpu_envelope.h"
#include "rgpu_wire.h"
#include "session_parts.h"

#define TAG_BYTES 32
enum { TO_WORKER = 0, TO_CLIENT = 1 };

typedef int (*seal_fn)(unsigned char *, unsigned char *, unsigned long long *, const unsigned char *,
                       unsigned long long, const unsigned char *, unsigned long long, const unsigned char *,
                       const unsigned char *, const unsigned char *);
typedef int (*open_fn)(unsigned char *, unsigned char *, const unsigned char *, unsigned long long,
                       const unsigned char *, const unsigned char *, unsigned long long, const unsigned char *,
                       const unsigned char *);
static seal_fn seal_detached;
static open_fn open_detached;
static pthread_once_t loaded = PTHREAD_ONCE_INIT;

static int try_sodium(const char *path) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return -1;
    int (*init)(void) = (int (*)(void))dlsym(h, "sodium_init");
    seal_fn s = (seal_fn)dlsym(h, "crypto_aead_aegis256_encrypt_detached");
    open_fn o = (open_fn)dlsym(h, "crypto_aead_aegis256_decrypt_detached");
    if (!init || !s || !o || init() < 0) {
        dlclose(h);
        return -1;
    }
    seal_detached = s, open_detached = o;
    return 0;
}

static void load_sodium(void) {
    Dl_info info;
    if (dladdr((void *)load_sodium, &info) && info.dli_fname) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", info.dli_fname);
        char *slash = strrchr(dir, '/');
        if (slash) {
            *slash = 0;
            DIR *d = opendir(dir);
            for (struct dirent *e; d && (e = readdir(d));) {
                if (strncmp(e->d_name, "libsodium", 9) || !strstr(e->d_name, ".so")) continue;
                char path[PATH_MAX + 256];
                snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
                if (try_sodium(path) == 0) break;
            }
            if (d) closedir(d);
        }
    }
    const char *names[] = {"libsodium.so.26", "libsodium.so.23", "libsodium.so"};
    for (size_t i = 0; !seal_detached && i < sizeof names / sizeof *names; i++) try_sodium(names[i]);
    if (!seal_detached)
        rgpu_log(RGPU_LOG_INFO, "no libsodium with AEGIS-256 (1.0.19 or later): large copies stay on the CURVE wire");
}

/* Buffers for sealed frames, kept for the next: a fresh 8 MiB buffer a piece faults in 2,048 pages
 * and glibc hands them back when it is freed, which cost more than sealing them (perf, 2-core VM).
 * A frame's buffer comes back from ZeroMQ's I/O thread once sent (put), or when the caller closes
 * a received frame. */
#define POOL_MAX 6
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static struct { void *p; size_t cap; } pool[POOL_MAX];
static int npool;

static void *buf_get(size_t n, size_t *cap) {
    pthread_mutex_lock(&pool_mu);
    int best = -1;
    for (int i = 0; i < npool; i++)
        if (pool[i].cap >= n && (best < 0 || pool[i].cap < pool[best].cap)) best = i;
    void *p = NULL;
    if (best >= 0) {
        p = pool[best].p, *cap = pool[best].cap;
        pool[best] = pool[--npool];
    }
    pthread_mutex_unlock(&pool_mu);
    if (!p) {
        *cap = (n + (1u << 20) - 1) & ~(size_t)((1u << 20) - 1); /* whole MiB: pieces of one copy share them */
        p = malloc(*cap);
    }
    return p;
}

static void buf_put(void *data, void *hint) {
    size_t cap = (size_t)hint;
    pthread_mutex_lock(&pool_mu);
    if (npool == POOL_MAX) { /* the smallest goes */
        int small = 0;
        for (int i = 1; i < npool; i++)
            if (pool[i].cap < pool[small].cap) small = i;
        if (pool[small].cap < cap) {
            void *old = pool[small].p;
            pool[small].p = data, pool[small].cap = cap;
            data = old;
        }
    } else {
        pool[npool].p = data, pool[npool].cap = cap;
        npool++;
        data = NULL;
    }
    pthread_mutex_unlock(&pool_mu);
    free(data);
}

/* A message of n bytes in a pooled buffer; 0, or -1 out of memory. */
static int pooled_msg(zmq_msg_t *m, size_t n) {
    size_t cap;
    void *p = buf_get(n ? n : 1, &cap);
    if (!p) return -1;
    if (zmq_msg_init_data(m, p, n, buf_put, (void *)cap)) {
        buf_put(p, (void *)cap);
        return -1;
    }
    return 0;
}

static int bulk_wanted(void) {
    static int on = -1;
    return rgpu_switched_on("RGPU_BULK", &on);
}

int rgpu_bulk_offer(rgpu_session *s, int curve_wire, mp_writer *args) {
    rgpu_bulk_close(s);
    s->bulk_named = 0;
    if (!curve_wire || !bulk_wanted()) return 0;
    pthread_once(&loaded, load_sodium);
    if (!seal_detached) return 0;
    if (getrandom(s->bulk_key, sizeof s->bulk_key, 0) != (ssize_t)sizeof s->bulk_key ||
        getrandom(s->bulk_chan, sizeof s->bulk_chan, 0) != (ssize_t)sizeof s->bulk_chan)
        return 0;
    mp_array(args, 2);
    mp_bin(args, s->bulk_key, sizeof s->bulk_key);
    mp_bin(args, s->bulk_chan, sizeof s->bulk_chan);
    s->bulk_named = 1;
    return 1;
}

static void nonce_of(const rgpu_session *s, int dir, uint64_t counter, unsigned char out[32]) {
    memset(out, 0, 32);
    memcpy(out, s->bulk_chan, 16);
    out[16] = (unsigned char)dir;
    for (int i = 0; i < 8; i++) out[17 + i] = (unsigned char)(counter >> (8 * i));
}

static void head_of(const rgpu_session *s, int dir, uint64_t counter, uint64_t len, mp_writer *w) {
    rgpu_env_sealed rec = {.channel = {.p = s->bulk_chan, .n = 16}, .dir = (uint64_t)dir, .counter = counter,
                           .length = len};
    mp_init(w, RGPU_BULK_HEAD_MAX);
    rgpu_env_write_sealed(w, &rec);
}

/* A frame holding a copy of the record's bytes. */
static void head_msg(zmq_msg_t *h, const mp_writer *head) {
    zmq_msg_init_size(h, head->len);
    memcpy(zmq_msg_data(h), head->buf, head->len);
}

/* Seals n bytes at p as the sender's frame `counter` and sends it on the channel; *head gets the record. */
static int seal_send(rgpu_session *s, const void *p, size_t n, uint64_t counter, mp_writer *head) {
    head_of(s, TO_WORKER, counter, n, head);
    zmq_msg_t h, ct;
    if (pooled_msg(&ct, n + TAG_BYTES)) return -1;
    unsigned char nonce[32];
    nonce_of(s, TO_WORKER, counter, nonce);
    unsigned char *out = zmq_msg_data(&ct);
    seal_detached(out, out + n, NULL, p, n, head->buf, head->len, NULL, nonce, s->bulk_key);
    head_msg(&h, head);
    if (zmq_msg_send(&h, s->bulk_sock, ZMQ_SNDMORE) < 0) {
        zmq_msg_close(&h);
        zmq_msg_close(&ct);
        return -1;
    }
    if (zmq_msg_send(&ct, s->bulk_sock, 0) < 0) {
        zmq_msg_close(&ct);
        return -1;
    }
    return 0;
}

void rgpu_bulk_connect(rgpu_session *s, const char *control, int port) {
    /* the worker's host as the control connection names it, the channel's port */
    const char *colon = strrchr(control, ':');
    if (!colon || strncmp(control, "tcp://", 6) || port <= 0 || port > 65535) return;
    char url[400];
    snprintf(url, sizeof url, "%.*s:%d", (int)(colon - control), control, port);
    void *sock = zmq_socket(rgpu_zmq_context(), ZMQ_DEALER);
    if (!sock) return;
    /* an identity nobody can guess: the worker's ROUTER takes the first connection that holds it */
    unsigned char id[16];
    if (getrandom(id, sizeof id, 0) != (ssize_t)sizeof id) {
        zmq_close(sock);
        return;
    }
    id[0] |= 1; /* an identity beginning with a zero byte is ZeroMQ's own */
    int zero = 0;
    int64_t max = (int64_t)1 << 40;
    zmq_setsockopt(sock, ZMQ_ROUTING_ID, id, sizeof id);
    /* the worker admits the channel's name, in hex, as a PLAIN password (server/bulk.py, password) */
    char pass[2 * sizeof s->bulk_chan + 1];
    for (size_t i = 0; i < sizeof s->bulk_chan; i++) snprintf(pass + 2 * i, 3, "%02x", s->bulk_chan[i]);
    zmq_setsockopt(sock, ZMQ_PLAIN_USERNAME, "rgpu-bulk", 9);
    zmq_setsockopt(sock, ZMQ_PLAIN_PASSWORD, pass, 2 * sizeof s->bulk_chan);
    zmq_setsockopt(sock, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(sock, ZMQ_SNDHWM, &zero, sizeof zero);
    zmq_setsockopt(sock, ZMQ_RCVHWM, &zero, sizeof zero);
    zmq_setsockopt(sock, ZMQ_MAXMSGSIZE, &max, sizeof max);
    /* its handshake watched: until it succeeds (a firewall that drops the port, a worker that refuses
     * the password) the frames go on the session socket, as without a channel */
    static unsigned monitors;
    char monaddr[80];
    snprintf(monaddr, sizeof monaddr, "inproc://rgpu-bulk-monitor-%u", __atomic_add_fetch(&monitors, 1, __ATOMIC_RELAXED));
    zmq_socket_monitor(sock, monaddr, ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                       ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_DISCONNECTED);
    s->bulk_mon = zmq_socket(rgpu_zmq_context(), ZMQ_PAIR);
    zmq_setsockopt(s->bulk_mon, ZMQ_LINGER, &zero, sizeof zero);
    zmq_connect(s->bulk_mon, monaddr);
    s->bulk_sock = sock;
    if (zmq_connect(sock, url) != 0) {
        rgpu_bulk_close(s);
        return;
    }
    s->bulk_sent = 0;
    s->bulk_failed = 0;
    s->bulk_up = 0;
    s->bulk_waited = 0;
    /* the hello: an empty frame, count 0, so the worker knows this connection before it sends to it */
    mp_writer head;
    if (seal_send(s, "", 0, 0, &head) != 0) rgpu_bulk_close(s);
    mp_free(&head);
    if (s->bulk_sock) rgpu_log(RGPU_LOG_INFO, "bulk channel %s", url);
}

void rgpu_bulk_close(rgpu_session *s) {
    rgpu_stream_close(s);
    /* the monitor stops at its source before its PAIR closes (connection.c says why) */
    if (s->bulk_sock) zmq_socket_monitor(s->bulk_sock, NULL, 0);
    if (s->bulk_mon) zmq_close(s->bulk_mon);
    if (s->bulk_sock) zmq_close(s->bulk_sock);
    s->bulk_sock = s->bulk_mon = NULL;
    s->bulk_up = 0;
}

/* Whether frames may go on the channel now: its handshake succeeded and it has not dropped since.
 * One that failed or dropped is closed: the frames go on the session socket from then on (the worker
 * sends its own there once it cannot reach the channel). */
#define HANDSHAKE_WAIT_MS 2000
static int bulk_ready(rgpu_session *s) {
    /* The first large frame, often a program's first copy right after the attach, waits for the
     * handshake's outcome (a round trip or two; HANDSHAKE_WAIT_MS at most, once): sent on the socket
     * instead, it would go at CURVE's speed, and its reply's data too (the worker seals only after
     * the client's hello). Later frames look without waiting. */
    int wait = !s->bulk_waited && s->bulk_up == 0;
    s->bulk_waited = 1;
    double until = rgpu_now_s() + HANDSHAKE_WAIT_MS * 1e-3;
    for (;;) {
        if (wait && s->bulk_up == 0) {
            zmq_pollitem_t item = {s->bulk_mon, 0, ZMQ_POLLIN, 0};
            double left = until - rgpu_now_s();
            if (left <= 0 || zmq_poll(&item, 1, (long)(left * 1000) + 1) <= 0) break;
        }
        zmq_msg_t ev;
        zmq_msg_init(&ev);
        if (zmq_msg_recv(&ev, s->bulk_mon, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&ev);
            if (wait && s->bulk_up == 0) continue;
            break;
        }
        int event = zmq_msg_size(&ev) >= 2 ? *(uint16_t *)zmq_msg_data(&ev) : 0;
        while (zmq_msg_more(&ev)) zmq_msg_recv(&ev, s->bulk_mon, 0);
        zmq_msg_close(&ev);
        if (event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) s->bulk_up = 1;
        else if (event) s->bulk_up = -1;
    }
    if (s->bulk_up < 0) {
        rgpu_log(RGPU_LOG_INFO, "the bulk channel refused or dropped the connection: large frames go on the session socket");
        rgpu_bulk_close(s);
    }
    return s->bulk_up == 1;
}

int rgpu_send_part(rgpu_session *s, zmq_msg_t *m, int flags) {
    if (s->stream_up) return rgpu_stream_send_part(s, m, flags);
    size_t n = zmq_msg_size(m);
    if (!s->bulk_sock || n < RGPU_BULK_MIN || !bulk_ready(s)) return zmq_msg_send(m, s->sock, flags);
    mp_writer head;
    if (seal_send(s, zmq_msg_data(m), n, ++s->bulk_sent, &head) != 0) {
        mp_free(&head);
        return -1;
    }
    zmq_msg_t h;
    head_msg(&h, &head);
    mp_free(&head);
    if (zmq_msg_send(&h, s->sock, flags) < 0) {
        zmq_msg_close(&h);
        return -1;
    }
    /* as a sent message is: the caller's frame is done with (its data was sealed from it) */
    zmq_msg_close(m);
    zmq_msg_init(m);
    return (int)n;
}

/* A frame of the worker's that does not open, or that does not come: the session ends, and the call
 * whose reply it was fails (reply_wait.c looks at bulk_failed). */
static int broken(rgpu_session *s, zmq_msg_t *m, int more, const char *why) {
    char text[200];
    snprintf(text, sizeof text, "its bulk channel failed: %s", why);
    rgpu_mark_dead(s, text);
    s->bulk_failed = 1;
    zmq_msg_close(m);
    zmq_msg_init(m);
    return more;
}

/* A frame of the worker's: one on the session socket as it came, or the data of one it sealed on the
 * channel. A sealed frame of at most `room` bytes opens straight into dst (*into = its length, m left
 * empty): the caller's copy of it is done, and a D2H copy's data is not written twice on the way to the
 * program. Anything else opens into a frame of its own. */
int rgpu_recv_part_into(rgpu_session *s, zmq_msg_t *m, void *dst, size_t room, size_t *into) {
    if (into) *into = 0;
    int rc = zmq_msg_recv(m, s->sock, 0);
    int more = zmq_msg_more(m);
    if (rc < 0 || !s->bulk_named) return more;
    size_t n = zmq_msg_size(m);
    if (n > RGPU_BULK_HEAD_MAX || !memmem(zmq_msg_data(m), n, s->bulk_chan, sizeof s->bulk_chan)) return more;
    mp_reader r;
    mp_rinit(&r, zmq_msg_data(m), n);
    rgpu_env_sealed rec;
    const char *why = "";
    if (rgpu_env_read_sealed(&r, &rec, &why) || rec.channel.n != 16 || memcmp(rec.channel.p, s->bulk_chan, 16) ||
        rec.dir != TO_CLIENT)
        return more; /* not a record of this channel: the frame is data that looks like one */
    if (s->stream_up) { /* a plain wire's data stream (data_stream.c) */
        if (rgpu_stream_take(s, m, &rec, dst, room, into)) {
            zmq_msg_close(m);
            zmq_msg_init(m);
        }
        return more;
    }
    if (!s->bulk_sock) return broken(s, m, more, "the worker sealed a frame after the channel dropped");
    /* the session socket's monitor too: a connection that drops ends the wait at once, as a reply's does */
    int w = rgpu_wait_readable(s->bulk_sock, s, rgpu_now_s() + rgpu_timeout_s());
    if (w != 0)
        return broken(s, m, more, w == -1 ? "a sealed frame did not come within RGPU_TIMEOUT" : "connection lost");
    zmq_msg_t h, ct;
    zmq_msg_init(&h);
    zmq_msg_init(&ct);
    int ok = zmq_msg_recv(&h, s->bulk_sock, 0) >= 0 && zmq_msg_more(&h) && zmq_msg_recv(&ct, s->bulk_sock, 0) >= 0 &&
             !zmq_msg_more(&ct) && zmq_msg_size(&h) == n && !memcmp(zmq_msg_data(&h), zmq_msg_data(m), n) &&
             zmq_msg_size(&ct) == rec.length + TAG_BYTES;
    int direct = ok && dst && rec.length && rec.length <= room;
    zmq_msg_t out;
    zmq_msg_init(&out);
    if (ok && !direct) ok = pooled_msg(&out, rec.length) == 0;
    if (ok) {
        unsigned char nonce[32];
        nonce_of(s, TO_CLIENT, rec.counter, nonce);
        const unsigned char *c = zmq_msg_data(&ct);
        /* libsodium writes nothing it could not verify where it opens: on a bad tag it clears it */
        ok = open_detached(direct ? dst : zmq_msg_data(&out), NULL, c, rec.length, c + rec.length, zmq_msg_data(m),
                           n, nonce, s->bulk_key) == 0;
    }
    zmq_msg_close(&h);
    zmq_msg_close(&ct);
    if (!ok) {
        zmq_msg_close(&out);
        return broken(s, m, more, "a frame did not open under the session's key, or was not the one named");
    }
    zmq_msg_close(m);
    zmq_msg_init(m);
    if (direct) *into = rec.length;
    else zmq_msg_move(m, &out);
    zmq_msg_close(&out);
    return more;
}

int rgpu_recv_part(rgpu_session *s, zmq_msg_t *m) { return rgpu_recv_part_into(s, m, NULL, 0, NULL); }
