/* The session's connection: hello to the supervisor, then attach to the session worker it names
 * (after a hello, and after a move), with the waits both need. ZMTP heartbeats and a socket monitor
 * tell a dead server (device unavailable) from a busy one.
 *
 * A server URL may carry the server's public key, URL@KEY (64 hex digits; RGPU_SERVER entries
 * URL@KEY#N as `rgpu run` writes them): both connections are then CURVE — encrypted, and the server
 * proven — with one keypair made for this process, so the worker can tell the connection that said
 * hello from any other. Every socket bounds the size of what it accepts (ZMQ_MAXMSGSIZE). */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "copies.h"
#include "failover.h"
#include "liveness.h"
#include "rgpu_envelope.h"
#include "rgpu_call.h"
#include "session_parts.h"
#include "stats.h"

#define HELLO_MAX_REPLY (1 << 20)
#define WORKER_MAX_FRAME (4ll << 30)  /* the server's reply frames are at most max(16 MiB, copy / 64) */
#define UNREACHABLE_S 10.0            /* no handshake with the server within this: it is not there */

static void *zctx;
static pthread_mutex_t ctx_mu = PTHREAD_MUTEX_INITIALIZER;

double rgpu_timeout_s(void) {
    static double t = -1;
    if (t < 0) {
        const char *e = getenv("RGPU_TIMEOUT");
        t = e && atof(e) > 0 ? atof(e) : 300.0;
    }
    return t;
}

double rgpu_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *zmq_context(void) {
    pthread_mutex_lock(&ctx_mu);
    if (!zctx) zctx = zmq_ctx_new();
    pthread_mutex_unlock(&ctx_mu);
    return zctx;
}

void *rgpu_zmq_context(void) { return zmq_context(); }

static void set_int(void *sock, int opt, int v) { zmq_setsockopt(sock, opt, &v, sizeof v); }
static void set_max(void *sock, int64_t v) { zmq_setsockopt(sock, ZMQ_MAXMSGSIZE, &v, sizeof v); }

static pthread_once_t keys_once = PTHREAD_ONCE_INIT;
static char own_public[41], own_secret[41];
static int own_keys_ok;
static void make_keys(void) { own_keys_ok = zmq_curve_keypair(own_public, own_secret) == 0; }

/* The session's URL without a key into `url`, and whether it had one (then `key` holds it). */
static int split_key(const rgpu_session *s, char *url, size_t cap, uint8_t key[32]) {
    snprintf(url, cap, "%s", s->url);
    char *at = strrchr(url, '@');
    if (!at || strlen(at + 1) != 64) return 0;
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(at + 1 + 2 * i, "%2x", &v) != 1) return 0;
        key[i] = (uint8_t)v;
    }
    *at = 0;
    return 1;
}

/* Make `sock` (before connect) a CURVE client of the server whose public key is `key`. */
static int secure(void *sock, const uint8_t key[32]) {
    pthread_once(&keys_once, make_keys);
    if (!own_keys_ok) {
        rgpu_log(RGPU_LOG_ERROR, "this libzmq has no CURVE: cannot reach a server that requires it");
        return -1;
    }
    zmq_setsockopt(sock, ZMQ_CURVE_SERVERKEY, key, 32);
    zmq_setsockopt(sock, ZMQ_CURVE_PUBLICKEY, own_public, 41);
    zmq_setsockopt(sock, ZMQ_CURVE_SECRETKEY, own_secret, 41);
    return 0;
}

#define HANDSHAKE_EVENTS (ZMQ_EVENT_CONNECTED | ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_SUCCEEDED | \
                          ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | \
                          ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)

/* One event from a monitor: its number, and its value (a connection's file descriptor) in *value. */
static int next_event(void *mon, uint32_t *value) {
    zmq_msg_t ev;
    zmq_msg_init(&ev);
    int event = 0;
    if (zmq_msg_recv(&ev, mon, 0) >= 6) {
        const uint8_t *d = zmq_msg_data(&ev);
        event = *(const uint16_t *)d;
        if (value) memcpy(value, d + 2, 4);
    }
    while (zmq_msg_more(&ev)) zmq_msg_recv(&ev, mon, 0);
    zmq_msg_close(&ev);
    return event;
}

/* A worker (its process, or its host) that sends nothing for this long is gone (RGPU_TIMEOUT if
 * smaller): liveness.c. */
#define SILENCE_S 10.0

#define LOST_EVENTS (ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | \
                     ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)

int rgpu_session_event(rgpu_session *s) {
    uint32_t fd = 0;
    int event = next_event(s->mon, &fd);
    if (event == ZMQ_EVENT_CONNECTED) s->tcp_fd = (int)fd;
    else if (event & LOST_EVENTS) s->tcp_fd = -1;
    return event & LOST_EVENTS ? -2 : 0;
}

static double silence_s(void) {
    double t = rgpu_timeout_s();
    return t < SILENCE_S ? t : SILENCE_S;
}

/* A look at whether the session's worker still sends anything (liveness.c), on the connection the
 * monitor named (ipc://: no verdict; ZeroMQ's heartbeats judge it, see attach). A verdict stands for
 * the rest of the connection: a copy's next part is not waited for again. */
int rgpu_worker_silent(rgpu_session *s, rgpu_watch *w) {
    if (s->worker_silent) return 1;
    double quiet = 0;
    if (!rgpu_watch_look(w, s->tcp_fd, rgpu_now_s(), silence_s(), &quiet)) return 0;
    rgpu_log(RGPU_LOG_WARN, "the worker sent nothing for %.1f s (it pings every second): its process or its host "
             "is gone", quiet);
    s->worker_silent = 1;
    return 1;
}

/* RGPU_SPIN_US: how long a thread may spin for a reply before it blocks (default SPIN_US_DEFAULT). */
#define SPIN_US_DEFAULT 200
double rgpu_spin_window_s(void) {
    static double w = -1;
    if (w < 0) w = rgpu_env_whole("RGPU_SPIN_US", 0, SPIN_US_DEFAULT) * 1e-6;
    return w;
}

/* A sync copy through shared memory takes about its size over the DMA's rate, all of which the worker
 * polls the GPU for (server/backends/cuda/waits.py copy_spin_s): the reply comes then, not within a
 * round trip. A client that blocked after RGPU_SPIN_US is woken through the kernel once it is done: on
 * an H200 host a 64 MiB pinned copy waited for blocking ran at 41-43 GB/s, spinning at 44-45 (55
 * native), and on this 2-core VM 16 MiB ones 10.0 against 11.5-12.7. The driver's own cudaMemcpy
 * spins for as long (CU_CTX_SCHED_AUTO, with fewer contexts than cores), so the wait for such a copy
 * spins for as long as its DMA can take too, at a slow link's rate and capped as the worker's is: a
 * CPU the program would spend in CUDA's copy. */
#define COPY_SPIN_RATE 8e9
#define COPY_SPIN_MAX_S 0.02
double rgpu_reply_spin_s(size_t copy_bytes) {
    double w = rgpu_spin_window_s();
    if (w <= 0 || copy_bytes == 0) return w;
    double more = (double)copy_bytes / COPY_SPIN_RATE;
    return w + (more < COPY_SPIN_MAX_S ? more : COPY_SPIN_MAX_S);
}

static int (*wait_policy)(void);

void rgpu_set_wait_policy(int (*mode)(void)) { __atomic_store_n(&wait_policy, mode, __ATOMIC_RELEASE); }

int rgpu_wait_mode(void) {
    int (*mode)(void) = __atomic_load_n(&wait_policy, __ATOMIC_ACQUIRE);
    return mode ? mode() : RGPU_WAIT_YIELD;
}

/* Before it blocks, a thread waits for its reply in the mode the policy gives it (RGPU_WAIT_*):
 * spinning, spinning and yielding the CPU to other threads, or not at all. A blocked thread is woken
 * through the kernel when the reply comes, which on a same-host round trip costs more than the
 * server's work. The spin lasts `w` at most, whatever the mode (RGPU_SPIN_US, or a copy's
 * rgpu_reply_spin_s): longer waits are a kernel's or the network's, and only cost a CPU. */
int rgpu_spin_for_reply(void *sock, double deadline, double w) {
    int mode = rgpu_wait_mode();
    if (mode == RGPU_WAIT_BLOCK || w <= 0) return -1;
    double until = rgpu_now_s() + w;
    if (until > deadline) until = deadline;
    zmq_pollitem_t item = {sock, 0, ZMQ_POLLIN, 0};
    do {
        if (zmq_poll(&item, 1, 0) > 0 && (item.revents & ZMQ_POLLIN)) return 0;
        if (mode != RGPU_WAIT_SPIN) sched_yield();
    } while (rgpu_now_s() < until);
    return -1;
}

/* Waits for a message on `sock` (and a disconnect on the session's monitor); returns 0, -1 timeout,
 * -2 disconnected or the worker silent (rgpu_worker_silent, looked at each second). Most replies come
 * within a round trip: for the first QUICK_MS the socket is waited for alone, since every zmq socket
 * in a zmq_poll costs system calls of its own (libzmq drains each one's command mailbox), about a
 * tenth of a same-host round trip for the monitor's. A connection lost meanwhile is noticed at most
 * QUICK_MS later. At the deadline the socket is looked at once more: a reply may have come while the
 * program was stopped (Ctrl-Z), with the clock running on. */
#define QUICK_MS 2
int rgpu_wait_readable(void *sock, rgpu_session *s, double deadline) {
    void *mon = s ? s->mon : NULL;
    if (s && s->worker_silent) return -2;
    if (mon && deadline - rgpu_now_s() > QUICK_MS * 1e-3) {
        zmq_pollitem_t item = {sock, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&item, 1, QUICK_MS) > 0 && (item.revents & ZMQ_POLLIN)) return 0;
    }
    rgpu_watch watch; /* past the quick phase: a reply within a round trip looks at no clock for it */
    rgpu_watch_begin(&watch, rgpu_now_s());
    for (;;) {
        zmq_pollitem_t items[2] = {{sock, 0, ZMQ_POLLIN, 0}, {mon, 0, ZMQ_POLLIN, 0}};
        double left = deadline - rgpu_now_s();
        if (left <= 0) {
            zmq_pollitem_t item = {sock, 0, ZMQ_POLLIN, 0};
            return zmq_poll(&item, 1, 0) > 0 && (item.revents & ZMQ_POLLIN) ? 0 : -1;
        }
        long ms = (long)(left * 1000) + 1;
        if (mon && s->tcp_fd >= 0 && ms > 1000) ms = 1000;
        int rc = zmq_poll(items, mon ? 2 : 1, ms);
        if (rc < 0 && errno == EINTR) continue;
        if (rc < 0) return -2;
        if (items[0].revents & ZMQ_POLLIN) return 0;
        if (mon && (items[1].revents & ZMQ_POLLIN) && rgpu_session_event(s) == -2) return -2;
        if (mon && rgpu_worker_silent(s, &watch)) return -2;
    }
}

/* Waits for the supervisor's reply, watching the handshake: a server with no handshake within
 * UNREACHABLE_S (or the timeout) is not there; one that refused ours says so at once; one that is
 * there may take up to the timeout (a burst of program starts). 0 readable, -1 failed (logged). */
static int wait_hello(void *sup, void *mon, const char *url, int curve_wire) {
    double start = rgpu_now_s(), t = rgpu_timeout_s();
    double unreachable = start + (t < UNREACHABLE_S ? t : UNREACHABLE_S), deadline = start + t;
    int up = 0;
    for (;;) {
        zmq_pollitem_t items[2] = {{sup, 0, ZMQ_POLLIN, 0}, {mon, 0, ZMQ_POLLIN, 0}};
        double until = up ? deadline : unreachable, left = until - rgpu_now_s();
        if (left <= 0) {
            if (up) rgpu_log(RGPU_LOG_ERROR, "server %s did not answer the hello within %.0f s", url, t);
            else rgpu_log(RGPU_LOG_ERROR, "server %s does not answer (unreachable for %.0f s%s)", url, until - start,
                          curve_wire ? ", or it is not the server whose key RGPU_SERVER gives" : "");
            return -1;
        }
        int rc = zmq_poll(items, 2, (long)(left * 1000) + 1);
        if (rc < 0 && errno == EINTR) continue;
        if (rc < 0) return -1;
        if (items[0].revents & ZMQ_POLLIN) return 0;
        if (!(items[1].revents & ZMQ_POLLIN)) continue;
        int event = next_event(mon, NULL);
        if (event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) up = 1;
        else if (event == ZMQ_EVENT_DISCONNECTED) up = 0;
        else if (event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) {
            rgpu_log(RGPU_LOG_ERROR, "server %s refused this client's connection", url);
            return -1;
        } else if (event & (ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL)) {
            if (!curve_wire)
                rgpu_log(RGPU_LOG_ERROR, "server %s speaks an encrypted wire: give its key, RGPU_SERVER=URL@KEY (a "
                         "direct-mode server prints that URL at start); a pool's server opens sessions only for "
                         "lease holders: `rgpu run --controller URL -- ...`", url);
            else
                /* a key that does not match and a server killed mid-handshake look alike from here */
                rgpu_log(RGPU_LOG_ERROR, "server %s failed the CURVE handshake: it is not the server whose key "
                         "RGPU_SERVER gives, it speaks a plain wire, or it went away during the handshake", url);
            return -1;
        }
    }
}

/* The lease token a hello sends: the renewed one where there is one (tokens live minutes, each
 * renew brings a fresh one: issue 39, attack 7). An env-only lease's renewer keeps its own; `rgpu
 * run` and `rgpu reserve` keep theirs in RGPU_LEASE_FILE; else RGPU_LEASE as the program started
 * with it. NULL without any. */
static const char *current_token(char *buf, size_t cap) {
    if (rgpu_env_lease_token(buf, cap)) return buf;
    const char *path = getenv("RGPU_LEASE_FILE");
    if (path && *path) {
        FILE *f = fopen(path, "re");
        if (f) {
            size_t n = fread(buf, 1, cap - 1, f);
            fclose(f);
            while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\r')) n--;
            buf[n] = 0;
            if (n && n < cap - 1) return buf;
        }
    }
    return getenv("RGPU_LEASE");
}

/* The supervisor says where this session's worker listens. */
static int hello(rgpu_session *s, int dev, char *endpoint, size_t eplen, char *sid, char *key) {
    char url[sizeof s->url];
    uint8_t server_key[32];
    int curve_wire = split_key(s, url, sizeof url, server_key);
    void *sup = zmq_socket(zmq_context(), ZMQ_DEALER);
    set_int(sup, ZMQ_LINGER, 0);
    set_max(sup, HELLO_MAX_REPLY);
    if (curve_wire && secure(sup, server_key) != 0) {
        zmq_close(sup);
        return -1;
    }
    char monaddr[96];
    snprintf(monaddr, sizeof monaddr, "inproc://rgpu-hello-%d-%p", dev, (void *)s);
    zmq_socket_monitor(sup, monaddr, HANDSHAKE_EVENTS);
    void *mon = zmq_socket(zmq_context(), ZMQ_PAIR);
    set_int(mon, ZMQ_LINGER, 0);
    zmq_connect(mon, monaddr);
    if (zmq_connect(sup, url) != 0) {
        rgpu_log(RGPU_LOG_ERROR, "bad server URL %s: %s", url, zmq_strerror(errno));
        zmq_close(mon);
        zmq_close(sup);
        return -1;
    }
    mp_writer w;
    mp_init(&w, 256);
    char token[8192];
    const char *lease = current_token(token, sizeof token);
    char client[128], host[64] = "?";
    gethostname(host, sizeof host);
    snprintf(client, sizeof client, "%s:%d", host, (int)getpid());
    mp_map(&w, 8);
    mp_str(&w, "op"); mp_str(&w, "hello");
    mp_str(&w, "proto"); mp_uint(&w, RGPU_PROTOCOL_VERSION);
    mp_str(&w, "client"); mp_str(&w, client);
    mp_str(&w, "cuda"); mp_uint(&w, RGPU_CUDA_VERSION);
    mp_str(&w, "lease"); mp_str(&w, lease ? lease : "");
    mp_str(&w, "gpu"); mp_uint(&w, (uint64_t)s->gpu);
    mp_str(&w, "vgpu"); mp_uint(&w, (uint64_t)dev); /* device i of the program is vGPU i of its lease */
    /* Device i's memory in address window i (the software GPU's; a real driver places its own):
     * distinct windows keep the pointers of this program's devices apart under unified addressing,
     * which servers that each know only their own sessions cannot promise. */
    mp_str(&w, "window"); mp_uint(&w, (uint64_t)dev);
    zmq_send(sup, w.buf, w.len, 0);
    mp_free(&w);
    rgpu_stats_wait(dev, RGPU_STATS_HELLO, "hello");
    int rc = -1;
    if (wait_hello(sup, mon, url, curve_wire) != 0) {
        zmq_socket_monitor(sup, NULL, 0);
        zmq_close(mon);
        zmq_close(sup);
        return -1;
    }
    zmq_socket_monitor(sup, NULL, 0);
    zmq_close(mon);
    zmq_msg_t m;
    zmq_msg_init(&m);
    zmq_msg_recv(&m, sup, 0);
    mp_reader r;
    mp_obj o, map;
    const char *keys[] = {"ok", "endpoint", "session", "key", "message"};
    char msg[512] = "";
    int ok = 0;
    for (int k = 0; k < 5; k++) {
        mp_rinit(&r, zmq_msg_data(&m), zmq_msg_size(&m));
        if (mp_next(&r, &map) || map.type != MP_MAP || mp_find_key(&r, map.n, keys[k]) || mp_next(&r, &o)) continue;
        if (k == 0) ok = o.type == MP_BOOL && o.v.b;
        char *dst = k == 1 ? endpoint : k == 2 ? sid : k == 3 ? key : msg;
        size_t cap = k == 1 ? eplen : k == 4 ? sizeof msg : 64;
        if (k > 0 && o.type == MP_STR) snprintf(dst, cap, "%.*s", (int)o.n, (const char *)o.p);
    }
    if (ok) rc = 0;
    else rgpu_log(RGPU_LOG_ERROR, "server %s refused the session: %s", url, msg[0] ? msg : "malformed reply");
    zmq_msg_close(&m);
    zmq_close(sup);
    return rc;
}

/* The attach reply's facts: {attrs: {attribute: value}, props: bytes} (server/worker.py _facts). */
static void read_facts(rgpu_session *s, mp_reader *r) {
    mp_obj map, k, v;
    if (mp_next(r, &map) || map.type != MP_MAP) return;
    for (uint32_t i = 0; i < map.n; i++) {
        if (mp_next(r, &k) || k.type != MP_STR) return;
        if (k.n == 5 && !memcmp(k.p, "attrs", 5)) {
            mp_obj attrs;
            if (mp_next(r, &attrs) || attrs.type != MP_MAP) return;
            for (uint32_t j = 0; j < attrs.n; j++) {
                if (mp_next(r, &k) || mp_next(r, &v) || (k.type != MP_INT && k.type != MP_UINT) ||
                    (v.type != MP_INT && v.type != MP_UINT)) return;
                int64_t a = mp_as_int(&k);
                if (a >= 0 && a < RGPU_MAX_ATTRS) {
                    s->attr[a] = (int)mp_as_int(&v);
                    s->attr_known[a] = 1;
                }
            }
        } else if (k.n == 5 && !memcmp(k.p, "props", 5)) {
            if (mp_next(r, &v) || v.type != MP_BIN) return;
            if (v.n <= RGPU_MAX_PROPS) {
                memcpy(s->props, v.p, v.n);
                s->props_len = v.n;
            }
        } else if (mp_skip(r)) {
            return;
        }
    }
}

/* A reply's first frame through the generated reader (protocol/contract/envelope.toml's reply record,
 * all of it checked); -1, and why in the log, when it does not check out. Its fields point into `m`. */
int rgpu_read_reply(zmq_msg_t *m, rgpu_env_reply *rep) {
    mp_reader r;
    const char *why = "";
    mp_rinit(&r, zmq_msg_data(m), zmq_msg_size(m));
    if (rgpu_env_read_reply(&r, rep, &why) == 0) return 0;
    rgpu_log(RGPU_LOG_WARN, "a malformed reply from the worker, ignored: %s", why);
    return -1;
}

/* A reply's outs as a reader over the array itself, to read them as a record. */
mp_reader rgpu_outs_record(const rgpu_env_reply *rep) {
    mp_reader r;
    mp_rinit(&r, rep->outs.at, (size_t)(rep->outs.p + rep->outs.len - rep->outs.at));
    return r;
}

/* Connects to the session worker at `endpoint` and attaches with (sid, key), offering a shared-memory
 * segment when the worker may be on this host: after a hello, and after a move (live migration). */
int rgpu_attach_worker(rgpu_session *s, int dev, const char *endpoint, const char *sid, const char *key) {
    char url[sizeof s->url];
    uint8_t server_key[32];
    int curve_wire = split_key(s, url, sizeof url, server_key);
    /* A wildcard endpoint (tcp://\*:PORT) from the server means "the host you reached me on". */
    char full[400];
    const char *star = strstr(endpoint, "://*:");
    if (star && strncmp(url, "tcp://", 6) == 0) {
        const char *colon = strrchr(url, ':');
        snprintf(full, sizeof full, "%.*s%s", (int)(colon - url), url, star + 4);
    } else {
        snprintf(full, sizeof full, "%s", endpoint);
    }
    s->sock = zmq_socket(zmq_context(), ZMQ_DEALER);
    set_int(s->sock, ZMQ_LINGER, 1000);
    set_max(s->sock, WORKER_MAX_FRAME);
    if (curve_wire && secure(s->sock, server_key) != 0) return -1;
    /* Pings every second, which the worker answers; over TCP, rgpu_worker_silent judges by what comes
     * (the heartbeat's own timeout, 0, is off: it would end a stopped program's connection as it
     * continues); over ipc://, the heartbeat's timeout. Not TCP_USER_TIMEOUT (ZMQ_TCP_MAXRT): it would
     * also end the connection to a live worker that stopped reading, its queue of messages full while
     * its serving thread waits out a long kernel. */
    set_int(s->sock, ZMQ_HEARTBEAT_IVL, 1000);
    set_int(s->sock, ZMQ_HEARTBEAT_TIMEOUT, strncmp(full, "tcp://", 6) == 0 ? 0 : (int)(silence_s() * 1000));
    set_int(s->sock, ZMQ_SNDHWM, 0);
    set_int(s->sock, ZMQ_RCVHWM, 0);
    static unsigned monitors;
    char monaddr[64];
    snprintf(monaddr, sizeof monaddr, "inproc://rgpu-monitor-%d-%u", dev, __atomic_add_fetch(&monitors, 1, __ATOMIC_RELAXED));
    s->tcp_fd = -1; /* until the monitor says CONNECTED, with the descriptor (rgpu_worker_silent) */
    s->worker_silent = 0;
    zmq_socket_monitor(s->sock, monaddr, ZMQ_EVENT_CONNECTED | LOST_EVENTS);
    s->mon = zmq_socket(zmq_context(), ZMQ_PAIR);
    set_int(s->mon, ZMQ_LINGER, 0);
    zmq_connect(s->mon, monaddr);
    if (zmq_connect(s->sock, full) != 0) {
        rgpu_log(RGPU_LOG_ERROR, "cannot connect to session worker %s", full);
        return -1;
    }
    s->state = 1;
    /* attach: args [session, key(, shared-memory offer(, bulk offer))]; proves we are the client the
     * supervisor admitted; outs [offer accepted, backend name, facts(, bulk channel's port)] */
    mp_writer w, offer;
    mp_init(&w, 256);
    mp_init(&offer, 256);
    /* a --failover session has the segment and ring too: its log keeps each message in frames (failover.c) */
    int offered = rgpu_shm_offer(s, dev, &offer) == 0;
    mp_writer args;
    mp_init(&args, 256);
    mp_str(&args, sid);
    mp_str(&args, key);
    mp_writer bulk;
    mp_init(&bulk, 64);
    /* the worker takes either only across hosts: sealed beside a CURVE wire, a raw stream beside a plain one */
    int bulk_offered = rgpu_bulk_offer(s, curve_wire, &bulk);
    int stream_offered = !bulk_offered && !curve_wire && rgpu_stream_offer(s, full, &bulk);
    bulk_offered |= stream_offered;
    if (offered) mp_raw(&args, offer.buf, offer.len);
    else if (bulk_offered) mp_nil(&args);
    if (bulk_offered) mp_raw(&args, bulk.buf, bulk.len);
    mp_free(&offer);
    mp_free(&bulk);
    /* a request of one call record (protocol/contract/envelope.toml), seq 0 */
    rgpu_env_call attach = {.seq = 0, .call_id = RGPU_ATTACH, .sync = 1,
                            .args = {.p = args.buf, .len = args.len, .n = bulk_offered ? 4u : offered ? 3u : 2u}};
    mp_array(&w, 1);
    rgpu_env_write_call(&w, &attach);
    mp_free(&args);
    zmq_send(s->sock, w.buf, w.len, 0);
    mp_free(&w);
    rgpu_stats_wait(dev, RGPU_ATTACH, "attach");
    if (rgpu_wait_readable(s->sock, s, rgpu_now_s() + 30) != 0) {
        rgpu_log(RGPU_LOG_ERROR, "session worker %s did not answer the attach", full);
        rgpu_shm_answer(s, 0);
        return -1;
    }
    zmq_msg_t m;
    zmq_msg_init(&m);
    zmq_msg_recv(&m, s->sock, 0);
    mp_reader r;
    mp_obj o;
    int accepted = 0;
    /* a reply record: outs[0] true when the worker mapped our segment, outs[1] its backend */
    rgpu_env_reply rep = {0};
    int parsed = rgpu_read_reply(&m, &rep) == 0;
    if (parsed) mp_rinit(&r, rep.outs.p, rep.outs.len);
    rgpu_env_list outs = rep.outs;
    if (parsed && outs.n >= 1 && !mp_next(&r, &o) && o.type == MP_BOOL) {
        accepted = o.v.b;
        if (outs.n >= 2 && !mp_next(&r, &o) && o.type == MP_STR)
            s->backend = o.n == 3 && !memcmp(o.p, "sim", 3) ? RGPU_BACKEND_SIM
                         : o.n == 4 && !memcmp(o.p, "cuda", 4) ? RGPU_BACKEND_CUDA : RGPU_BACKEND_UNKNOWN;
        if (outs.n >= 3) read_facts(s, &r);
    }
    if (parsed && outs.n >= 4 && bulk_offered) { /* the bulk channel's port, or nil: declined */
        mp_reader r4;
        mp_rinit(&r4, outs.p, outs.len);
        int skipped = rgpu_env_skip(&r4, RGPU_ENV_MAX_DEPTH) == 0 && rgpu_env_skip(&r4, RGPU_ENV_MAX_DEPTH) == 0 &&
                      rgpu_env_skip(&r4, RGPU_ENV_MAX_DEPTH) == 0;
        if (skipped && !mp_next(&r4, &o) && o.type == MP_UINT)
            (stream_offered ? rgpu_stream_connect : rgpu_bulk_connect)(s, full, (int)o.v.u);
    }
    rgpu_shm_answer(s, accepted);
    rgpu_heads_reset(s, !accepted); /* a new worker's table is empty; across hosts only (head_delta.c) */
    __atomic_store_n(&s->facts_ready, 1, __ATOMIC_RELEASE);
    zmq_msg_close(&m);
    rgpu_log(RGPU_LOG_INFO, "device %d: session %s on %s", dev, sid, full);
    return 0;
}

static int session_open(rgpu_session *s, int dev) {
    char endpoint[300] = "", sid[64] = "", key[64] = "";
    __atomic_store_n(&s->facts_ready, 0, __ATOMIC_RELEASE);
    memset(s->attr_known, 0, sizeof s->attr_known);
    s->props_len = 0;
    rgpu_fo_state(s); /* a --failover lease's sessions log from their first message */
    if (hello(s, dev, endpoint, sizeof endpoint, sid, key) != 0) return -1;
    return rgpu_attach_worker(s, dev, endpoint, sid, key);
}

int rgpu_session_reopen(rgpu_session *s, int dev, const char *server) {
    rgpu_bulk_close(s);
    if (s->sock) {
        zmq_socket_monitor(s->sock, NULL, 0);
        zmq_close(s->sock);
    }
    if (s->mon) zmq_close(s->mon);
    s->sock = s->mon = NULL;
    s->tcp_fd = -1;
    rgpu_shm_unmap(s);
    snprintf(s->url, sizeof s->url, "%s", server);
    char *hash = strrchr(s->url, '#');
    s->gpu = hash ? atoi(hash + 1) : 0;
    if (hash) *hash = 0;
    return session_open(s, dev);
}

int rgpu_session_ensure_open(rgpu_session *s, int dev) {
    if (s->state == 0 && session_open(s, dev) != 0) s->state = -1;
    return s->state == 1 ? 0 : -1;
}

int rgpu_session_backend(rgpu_session *s, int dev) {
    pthread_mutex_lock(&s->mu);
    int b = rgpu_session_ensure_open(s, dev) == 0 ? s->backend : RGPU_BACKEND_UNKNOWN;
    pthread_mutex_unlock(&s->mu);
    return b;
}

/* Facts need the session open once; after that they are read without the lock (they change only
 * when the session opens again, before facts_ready is set). */
static int facts(rgpu_session *s, int dev) {
    if (__atomic_load_n(&s->facts_ready, __ATOMIC_ACQUIRE)) return 0;
    pthread_mutex_lock(&s->mu);
    int ok = rgpu_session_ensure_open(s, dev) == 0;
    pthread_mutex_unlock(&s->mu);
    return ok && __atomic_load_n(&s->facts_ready, __ATOMIC_ACQUIRE) ? 0 : -1;
}

int rgpu_session_attr(rgpu_session *s, int dev, int attr, int *v) {
    if (attr < 0 || attr >= RGPU_MAX_ATTRS || facts(s, dev) != 0 || !s->attr_known[attr]) return -1;
    *v = s->attr[attr];
    return 0;
}

int rgpu_session_props(rgpu_session *s, int dev, void *dst, size_t n) {
    if (facts(s, dev) != 0 || s->props_len != n) return -1;
    memcpy(dst, s->props, n);
    return 0;
}


/* At exit, after every session's sockets are closed: the zmq context goes. */
void rgpu_connections_end(void) {
    if (zctx) zmq_ctx_term(zctx);
    zctx = NULL;
}
