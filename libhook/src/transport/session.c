/* The transport: hello to the supervisor, then DEALER <-> the session worker's ROUTER.
 *
 * A request is one multipart message: a msgpack header frame holding an array of calls
 * [seq, call id, sync flag, args, number of bulk frames] followed by the bulk frames of all of
 * them in order. Async calls queue in the session and travel with the next sync call (or when the
 * queue is full), so a stream of launches costs one message, not one round trip each. A reply is
 * [seq, result, outs, deferred error, message] plus bulk frames. ZMTP heartbeats and a socket
 * monitor tell a dead server (device unavailable) from a busy one.
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
#include <sys/mman.h>
#include <unistd.h>
#include <zmq.h>

#include "copies.h"
#include "failover.h"
#include "rgpu_envelope.h"
#include "rgpu_call.h"
#include "session.h"
#include "stats.h"

#define BATCH_MAX_CALLS 256
#define BATCH_MAX_BYTES (8u << 20)
#define HELLO_MAX_REPLY (1 << 20)
#define WORKER_MAX_FRAME (4ll << 30)  /* the server's reply frames are at most max(16 MiB, copy / 64) */
#define UNREACHABLE_S 10.0            /* no handshake with the server within this: it is not there */

static void *zctx;
/* The server's message for the last call of this thread that failed with one. */
static __thread char last_message[512];

const char *rgpu_last_server_message(void) { return last_message; }
static pthread_mutex_t ctx_mu = PTHREAD_MUTEX_INITIALIZER;
extern int rgpu_sessions_count_internal(void);
extern rgpu_session *rgpu_sessions_internal(void);

double rgpu_timeout_s(void) {
    static double t = -1;
    if (t < 0) {
        const char *e = getenv("RGPU_TIMEOUT");
        t = e && atof(e) > 0 ? atof(e) : 300.0;
    }
    return t;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *context(void) {
    pthread_mutex_lock(&ctx_mu);
    if (!zctx) zctx = zmq_ctx_new();
    pthread_mutex_unlock(&ctx_mu);
    return zctx;
}

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

static int next_event(void *mon) {
    zmq_msg_t ev;
    zmq_msg_init(&ev);
    int event = 0;
    if (zmq_msg_recv(&ev, mon, 0) >= 2) event = *(uint16_t *)zmq_msg_data(&ev);
    while (zmq_msg_more(&ev)) zmq_msg_recv(&ev, mon, 0);
    zmq_msg_close(&ev);
    return event;
}

/* RGPU_SPIN_US: how long a thread may spin for a reply before it blocks (default SPIN_US_DEFAULT). */
#define SPIN_US_DEFAULT 200
static double spin_window_s(void) {
    static double w = -1;
    if (w < 0) {
        const char *e = getenv("RGPU_SPIN_US");
        char *end = NULL;
        long us = e && *e ? strtol(e, &end, 10) : SPIN_US_DEFAULT;
        if (e && *e && (*end || us < 0)) {
            rgpu_log(RGPU_LOG_WARN, "RGPU_SPIN_US=%s is not a whole number >= 0: using %d", e, SPIN_US_DEFAULT);
            us = SPIN_US_DEFAULT;
        }
        w = us * 1e-6;
    }
    return w;
}

/* Before it blocks, a thread waits for its reply as the CUDA driver waits for the GPU, by its context's
 * scheduling flags (CU_CTX_SCHED_*, cudaSetDeviceFlags): spinning (SPIN), spinning and yielding the CPU
 * to other threads (YIELD, and AUTO: CUDA's AUTO spins unless the process has more contexts than CPUs,
 * and a yield costs nothing where no other thread wants the CPU), or not at all (BLOCKING_SYNC). A
 * blocked thread is woken through the kernel when the reply comes, which on a same-host round trip
 * costs more than the server's work. The spin lasts RGPU_SPIN_US at most, whatever the flags: longer
 * waits are a kernel's or the network's, and only cost a CPU. */
static int spin_for_reply(void *sock, double deadline) {
    int sched = rgpu_sched_flags();
    double w = spin_window_s();
    if (sched == CU_CTX_SCHED_BLOCKING_SYNC || w <= 0) return -1;
    double until = now_s() + w;
    if (until > deadline) until = deadline;
    zmq_pollitem_t item = {sock, 0, ZMQ_POLLIN, 0};
    do {
        if (zmq_poll(&item, 1, 0) > 0 && (item.revents & ZMQ_POLLIN)) return 0;
        if (sched != CU_CTX_SCHED_SPIN) sched_yield();
    } while (now_s() < until);
    return -1;
}

/* Waits for a message on `sock` (and a disconnect on `mon`); returns 0, -1 timeout, -2 disconnected.
 * Most replies come within a round trip: for the first QUICK_MS the socket is waited for alone, since
 * every zmq socket in a zmq_poll costs system calls of its own (libzmq drains each one's command
 * mailbox), about a tenth of a same-host round trip for the monitor's. A connection lost meanwhile
 * is noticed at most QUICK_MS later. */
#define QUICK_MS 2
static int wait_readable(void *sock, void *mon, double deadline) {
    if (mon && deadline - now_s() > QUICK_MS * 1e-3) {
        zmq_pollitem_t item = {sock, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&item, 1, QUICK_MS) > 0 && (item.revents & ZMQ_POLLIN)) return 0;
    }
    for (;;) {
        zmq_pollitem_t items[2] = {{sock, 0, ZMQ_POLLIN, 0}, {mon, 0, ZMQ_POLLIN, 0}};
        double left = deadline - now_s();
        if (left <= 0) return -1;
        int rc = zmq_poll(items, mon ? 2 : 1, (long)(left * 1000) + 1);
        if (rc < 0 && errno == EINTR) continue;
        if (rc < 0) return -2;
        if (items[0].revents & ZMQ_POLLIN) return 0;
        if (mon && (items[1].revents & ZMQ_POLLIN)) {
            int event = next_event(mon);
            if (event & (ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                         ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)) return -2;
        }
    }
}

/* Waits for the supervisor's reply, watching the handshake: a server with no handshake within
 * UNREACHABLE_S (or the timeout) is not there; one that refused ours says so at once; one that is
 * there may take up to the timeout (a burst of program starts). 0 readable, -1 failed (logged). */
static int wait_hello(void *sup, void *mon, const char *url, int curve_wire) {
    double start = now_s(), t = rgpu_timeout_s();
    double unreachable = start + (t < UNREACHABLE_S ? t : UNREACHABLE_S), deadline = start + t;
    int up = 0;
    for (;;) {
        zmq_pollitem_t items[2] = {{sup, 0, ZMQ_POLLIN, 0}, {mon, 0, ZMQ_POLLIN, 0}};
        double until = up ? deadline : unreachable, left = until - now_s();
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
        int event = next_event(mon);
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
                rgpu_log(RGPU_LOG_ERROR, "server %s failed the CURVE handshake: it is not the server whose key "
                         "RGPU_SERVER gives, or it speaks a plain wire", url);
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
    void *sup = zmq_socket(context(), ZMQ_DEALER);
    set_int(sup, ZMQ_LINGER, 0);
    set_max(sup, HELLO_MAX_REPLY);
    if (curve_wire && secure(sup, server_key) != 0) {
        zmq_close(sup);
        return -1;
    }
    char monaddr[96];
    snprintf(monaddr, sizeof monaddr, "inproc://rgpu-hello-%d-%p", dev, (void *)s);
    zmq_socket_monitor(sup, monaddr, HANDSHAKE_EVENTS);
    void *mon = zmq_socket(context(), ZMQ_PAIR);
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
static int read_reply(zmq_msg_t *m, rgpu_env_reply *rep) {
    mp_reader r;
    const char *why = "";
    mp_rinit(&r, zmq_msg_data(m), zmq_msg_size(m));
    if (rgpu_env_read_reply(&r, rep, &why) == 0) return 0;
    rgpu_log(RGPU_LOG_WARN, "a malformed reply from the worker, ignored: %s", why);
    return -1;
}

/* A reply's outs as a reader over the array itself, to read them as a record. */
static mp_reader outs_record(const rgpu_env_reply *rep) {
    mp_reader r;
    mp_rinit(&r, rep->outs.at, (size_t)(rep->outs.p + rep->outs.len - rep->outs.at));
    return r;
}

/* Connects to the session worker at `endpoint` and attaches with (sid, key), offering a shared-memory
 * segment when the worker may be on this host: after a hello, and after a move (live migration). */
static int attach_worker(rgpu_session *s, int dev, const char *endpoint, const char *sid, const char *key) {
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
    s->sock = zmq_socket(context(), ZMQ_DEALER);
    set_int(s->sock, ZMQ_LINGER, 1000);
    set_max(s->sock, WORKER_MAX_FRAME);
    if (curve_wire && secure(s->sock, server_key) != 0) return -1;
    set_int(s->sock, ZMQ_HEARTBEAT_IVL, 1000);
    double t = rgpu_timeout_s();
    set_int(s->sock, ZMQ_HEARTBEAT_TIMEOUT, (int)((t < 10 ? t : 10) * 1000));
    set_int(s->sock, ZMQ_SNDHWM, 0);
    set_int(s->sock, ZMQ_RCVHWM, 0);
    static unsigned monitors;
    char monaddr[64];
    snprintf(monaddr, sizeof monaddr, "inproc://rgpu-monitor-%d-%u", dev, __atomic_add_fetch(&monitors, 1, __ATOMIC_RELAXED));
    zmq_socket_monitor(s->sock, monaddr, ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                       ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH);
    s->mon = zmq_socket(context(), ZMQ_PAIR);
    set_int(s->mon, ZMQ_LINGER, 0);
    zmq_connect(s->mon, monaddr);
    if (zmq_connect(s->sock, full) != 0) {
        rgpu_log(RGPU_LOG_ERROR, "cannot connect to session worker %s", full);
        return -1;
    }
    s->state = 1;
    /* attach: args [session, key(, shared-memory offer)]; proves we are the client the supervisor
     * admitted; outs [offer accepted, backend name] */
    mp_writer w, offer;
    mp_init(&w, 256);
    mp_init(&offer, 256);
    /* a --failover session moves its data in frames: its log keeps them (failover.c) */
    int offered = !rgpu_failover_lease() && rgpu_shm_offer(s, dev, &offer) == 0;
    mp_writer args;
    mp_init(&args, 256);
    mp_str(&args, sid);
    mp_str(&args, key);
    if (offered) mp_raw(&args, offer.buf, offer.len);
    mp_free(&offer);
    /* a request of one call record (protocol/contract/envelope.toml), seq 0 */
    rgpu_env_call attach = {.seq = 0, .call_id = RGPU_ATTACH, .sync = 1,
                            .args = {.p = args.buf, .len = args.len, .n = offered ? 3u : 2u}};
    mp_array(&w, 1);
    rgpu_env_write_call(&w, &attach);
    mp_free(&args);
    zmq_send(s->sock, w.buf, w.len, 0);
    mp_free(&w);
    rgpu_stats_wait(dev, RGPU_ATTACH, "attach");
    if (wait_readable(s->sock, s->mon, now_s() + 30) != 0) {
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
    int parsed = read_reply(&m, &rep) == 0;
    if (parsed) mp_rinit(&r, rep.outs.p, rep.outs.len);
    rgpu_env_list outs = rep.outs;
    if (parsed && outs.n >= 1 && !mp_next(&r, &o) && o.type == MP_BOOL) {
        accepted = o.v.b;
        if (outs.n >= 2 && !mp_next(&r, &o) && o.type == MP_STR)
            s->backend = o.n == 3 && !memcmp(o.p, "sim", 3) ? RGPU_BACKEND_SIM
                         : o.n == 4 && !memcmp(o.p, "cuda", 4) ? RGPU_BACKEND_CUDA : RGPU_BACKEND_UNKNOWN;
        if (outs.n >= 3) read_facts(s, &r);
    }
    rgpu_shm_answer(s, accepted);
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
    return attach_worker(s, dev, endpoint, sid, key);
}

int rgpu_session_reopen(rgpu_session *s, int dev, const char *server) {
    if (s->sock) {
        zmq_socket_monitor(s->sock, NULL, 0);
        zmq_close(s->sock);
    }
    if (s->mon) zmq_close(s->mon);
    s->sock = s->mon = NULL;
    rgpu_shm_unmap(s);
    snprintf(s->url, sizeof s->url, "%s", server);
    char *hash = strrchr(s->url, '#');
    s->gpu = hash ? atoi(hash + 1) : 0;
    if (hash) *hash = 0;
    return session_open(s, dev);
}

static int ensure_open(rgpu_session *s, int dev) {
    if (s->state == 0 && session_open(s, dev) != 0) s->state = -1;
    return s->state == 1 ? 0 : -1;
}

int rgpu_session_backend(rgpu_session *s, int dev) {
    pthread_mutex_lock(&s->mu);
    int b = ensure_open(s, dev) == 0 ? s->backend : RGPU_BACKEND_UNKNOWN;
    pthread_mutex_unlock(&s->mu);
    return b;
}

/* Facts need the session open once; after that they are read without the lock (they change only
 * when the session opens again, before facts_ready is set). */
static int facts(rgpu_session *s, int dev) {
    if (__atomic_load_n(&s->facts_ready, __ATOMIC_ACQUIRE)) return 0;
    pthread_mutex_lock(&s->mu);
    int ok = ensure_open(s, dev) == 0;
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

/* A large synchronous copy from pageable memory is staged in chunks after its call is sent: the
 * worker copies chunk i into the device while this thread copies chunk i+1 into the segment. The
 * segment's first page holds, after the nonce, the seq of the call being staged and how many of its
 * bytes are in place (server/staging.py waits on them). On unless RGPU_SHM_PIPELINE=0. On the software
 * GPU of a two-core machine this direction measures about even (both copies are the CPU's) and the
 * other faster in every run, typically by 20-35% at 16 MiB; on a GPU the DMA engine does the worker's
 * half of both, which leaves the client's copy alone on the clock: hence several threads copy each
 * chunk (rgpu_copy, copies.c), here and in the whole and the D2H copies through the segment. */
#define PIPE_CHUNK (4u << 20)
#define PIPE_SEQ 16
#define PIPE_DONE 24
/* The other way, a large sync D2H copy into pageable memory: the worker writes it into the segment a
 * chunk at a time and says so in these words (the call's seq, bytes in place), and this thread copies
 * each chunk out while the device writes the next (take_early; server/staging.py, _run_staged_out). */
#define PIPE_OUT_SEQ 32
#define PIPE_OUT_DONE 40

/* A switch that is on unless its variable says 0, read once. */
static int switched_on(const char *name, int *cache) {
    if (*cache < 0) {
        const char *e = getenv(name);
        *cache = !(e && !strcmp(e, "0"));
    }
    return *cache;
}

static int pipeline_on(void) {
    static int on = -1;
    return switched_on("RGPU_SHM_PIPELINE", &on);
}

/* How a sync call's data moves (shm_mode's answer, encode_call's `shm`). */
enum {
    SEG_NONE = 0,   /* frames */
    SEG_IN,         /* the call's bulk input is in the session segment */
    SEG_OUT,        /* its reply's bulk may go there */
    SEG_PINNED,     /* its host side is pinned memory the worker maps: no data either way */
    SEG_STAGED_IN,  /* its input is copied into the segment after the send, chunk by chunk */
    SEG_STAGED_OUT, /* its reply's bulk goes there a chunk at a time */
};

/* Whether a call sent so carries its bulk input as frames (the others put it in the segment, or
 * have none to carry). */
static int input_in_frames(int shm) { return shm == SEG_NONE || shm == SEG_OUT || shm == SEG_STAGED_OUT; }

/* One call record of a request (protocol/contract/envelope.toml; the generated writer). */
static void encode_call(mp_writer *w, uint64_t seq, struct rgpu_call *c, int sync, int shm, size_t shm_len) {
    rgpu_env_call e = {.seq = seq, .call_id = c->id, .sync = (uint64_t)sync,
                       .args = {.p = c->args.buf, .len = c->args.len, .n = (uint32_t)c->nargs},
                       .nbulk = input_in_frames(shm) ? (uint64_t)c->nbulk : 0};
    rgpu_env_region in = {.offset = RGPU_SHM_DATA, .length = shm_len};
    rgpu_env_list one_in = {.n = 1, .items = &in}, none = {.n = 0, .items = &in};
    if (shm == SEG_PINNED) {
        /* the program's pinned segment and the copy's range in it: no data either way */
        e.copy.tag = RGPU_ENV_PINNED;
        e.copy.u.pinned = (rgpu_env_pinned){.name = {c->pin->name, (uint32_t)strlen(c->pin->name)},
                                            .nonce = {c->pin->nonce, sizeof c->pin->nonce},
                                            .size = c->pin->size, .offset = c->pin_off, .length = c->pin_len};
    } else if (shm == SEG_STAGED_IN || shm == SEG_STAGED_OUT) {
        /* staged in: the input region, copied in while the worker copies what has arrived (the progress
         * word in the segment's first page, stage_progressive); staged out: room for the reply's bulk,
         * the worker saying how much of it is in place as it goes (PIPE_OUT_SEQ, PIPE_OUT_DONE) */
        e.copy.tag = RGPU_ENV_STAGED;
        e.copy.u.staged = (rgpu_env_staged){.regions = shm == SEG_STAGED_IN ? one_in : none,
                                            .room = shm == SEG_STAGED_IN ? 0 : shm_len, .seq = seq};
    } else if (shm) {
        /* the input in the segment, or room there for the reply's bulk */
        e.copy.tag = RGPU_ENV_SHM;
        e.copy.u.shm = (rgpu_env_shm){.regions = shm == SEG_IN ? one_in : none, .room = shm == SEG_IN ? 0 : shm_len};
    }
    rgpu_env_write_call(w, &e);
}

/* Whether (and how) a sync call's bulk data moves through the session's shared memory. */
static int shm_mode(rgpu_session *s, struct rgpu_call *c, size_t *len) {
    if (c) c->pin_used = c->shm_piped = 0;
    if (c && c->pin && s->shm_base && (c->flags & RGPU_F_SHM)) {
        c->pin_used = 1;
        __atomic_or_fetch(&c->pin->told, 1u << (s - rgpu_sessions_internal()), __ATOMIC_RELEASE);
        return SEG_PINNED;
    }
    if (!c || !c->shm || !s->shm_base || !(c->flags & RGPU_F_SHM)) return SEG_NONE; /* the record allows it, or frames */
    if (c->shm == 1) {
        size_t n = 0;
        for (int i = 0; i < c->nbulk; i++) n += c->bulk_len[i];
        if (rgpu_shm_reserve(s, n) != 0) return SEG_NONE;
        if (n >= 2 * PIPE_CHUNK && pipeline_on()) { /* copied in after the send, chunk by chunk */
            *len = n;
            return SEG_STAGED_IN;
        }
        for (size_t i = 0, off = 0; i < (size_t)c->nbulk; off += c->bulk_len[i++])
            rgpu_copy((char *)s->shm_base + RGPU_SHM_DATA + off, c->bulk[i], c->bulk_len[i]);
        *len = n;
        return SEG_IN;
    }
    if (rgpu_shm_reserve(s, c->shm_cap) != 0) return SEG_NONE;
    *len = c->shm_cap;
    if (c->shm_cap >= 2 * PIPE_CHUNK && pipeline_on()) {
        c->shm_piped = 1;
        return SEG_STAGED_OUT;
    }
    return SEG_OUT;
}

/* The chunks of a piped D2H copy (SEG_STAGED_OUT) the worker has put in the segment, copied out while it
 * writes the next, until its reply is readable (the rest is copied then), the connection has news
 * (a worker that died: the caller's wait says so), or the deadline passes. While the chunks come,
 * and for the first milliseconds (a copy with nothing queued before it starts at once), this only
 * yields between looks; a copy whose worker has not started on it by then (it may first run
 * minutes of queued kernels) is waited for asleep in the poll, a millisecond at a time. */
#define EAGER_S 0.003
static void take_early(rgpu_session *s, struct rgpu_call *c, uint64_t seq, double deadline) {
    const char *h = s->shm_base;
    size_t cap = c->shm_cap < s->shm_size ? c->shm_cap : s->shm_size;
    double eager_until = now_s() + EAGER_S;
    for (unsigned idle = 0;;) {
        int started = __atomic_load_n((const uint64_t *)(h + PIPE_OUT_SEQ), __ATOMIC_ACQUIRE) == seq;
        int eager = started || now_s() < eager_until;
        zmq_pollitem_t items[2] = {{s->sock, 0, ZMQ_POLLIN, 0}, {s->mon, 0, ZMQ_POLLIN, 0}};
        if (zmq_poll(items, s->mon ? 2 : 1, eager ? 0 : 1) > 0) return;
        uint64_t done = started ? __atomic_load_n((const uint64_t *)(h + PIPE_OUT_DONE), __ATOMIC_ACQUIRE) : 0;
        if (done > cap) done = cap;
        if (done > c->shm_early) {
            rgpu_copy((char *)c->shm_dst + c->shm_early, h + RGPU_SHM_DATA + c->shm_early, done - c->shm_early);
            c->shm_early = done;
            idle = 0;
            continue;
        }
        if ((!eager || ++idle % 1024 == 0) && now_s() > deadline) return;
        if (eager) sched_yield();
    }
}

static void free_bytes(void *data, void *hint) { (void)hint; free(data); }

static void stage_begin(rgpu_session *s, uint64_t seq) {
    char *h = s->shm_base;
    __atomic_store_n((uint64_t *)(h + PIPE_DONE), 0, __ATOMIC_RELEASE);
    __atomic_store_n((uint64_t *)(h + PIPE_SEQ), seq, __ATOMIC_RELEASE);
}

static void stage_progressive(rgpu_session *s, struct rgpu_call *c) {
    char *h = s->shm_base, *dst = h + RGPU_SHM_DATA;
    size_t done = 0;
    for (int i = 0; i < c->nbulk; i++) {
        for (size_t off = 0; off < c->bulk_len[i]; off += PIPE_CHUNK) {
            size_t k = c->bulk_len[i] - off < PIPE_CHUNK ? c->bulk_len[i] - off : PIPE_CHUNK;
            rgpu_copy(dst + done, (const char *)c->bulk[i] + off, k); /* all of it, before the progress word says so */
            done += k;
            __atomic_store_n((uint64_t *)(h + PIPE_DONE), (uint64_t)done, __ATOMIC_RELEASE);
        }
    }
}

/* Live migration: every message sent since the last reply is kept (its frames shared with the
 * sent copies, not duplicated) until a reply says the worker ran it. When the session moves, the old
 * worker's MOVED notice names the last call it ran; what came after is sent again, in order, to the
 * new worker. A message whose sync call moved its data through shared memory is rebuilt instead
 * (the new worker maps its own segment, or none): its async calls' encoding is kept for that. */
typedef struct {
    zmq_msg_t *frames;
    size_t n, cap, bytes;
    uint64_t last_seq;
    int shm;                 /* its sync call used the shared segment */
    uint8_t *async_hdr;      /* then: its async calls, encoded, and how many of its frames are theirs */
    size_t async_len, async_frames;
    uint32_t nasync;
} replay_msg;

#define REPLAY_MAX_BYTES (64u << 20) /* async data kept beyond this asks for a barrier (a sync no-op) */

static replay_msg *replay_new(rgpu_session *s) {
    if (s->nreplay == s->replaycap) {
        size_t cap = s->replaycap ? s->replaycap * 2 : 8;
        void *grown = realloc(s->replay, cap * sizeof(replay_msg));
        if (!grown) return NULL;
        s->replay = grown, s->replaycap = cap;
    }
    replay_msg *r = &((replay_msg *)s->replay)[s->nreplay++];
    memset(r, 0, sizeof *r);
    return r;
}

static void replay_keep(rgpu_session *s, replay_msg *r, zmq_msg_t *m) {
    if (!r) return;
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 4;
        zmq_msg_t *grown = realloc(r->frames, cap * sizeof(zmq_msg_t));
        if (!grown) return;
        r->frames = grown, r->cap = cap;
    }
    zmq_msg_init(&r->frames[r->n]);
    zmq_msg_copy(&r->frames[r->n], m);
    r->bytes += zmq_msg_size(m);
    s->replaybytes += zmq_msg_size(m);
    r->n++;
}

static void replay_free(replay_msg *r) {
    for (size_t i = 0; i < r->n; i++) zmq_msg_close(&r->frames[i]);
    free(r->frames);
    free(r->async_hdr);
}

/* A reply came: everything sent before it has run. */
static void replay_clear(rgpu_session *s) {
    for (size_t i = 0; i < s->nreplay; i++) replay_free(&((replay_msg *)s->replay)[i]);
    s->nreplay = 0;
    s->replaybytes = 0;
}

/* RGPU_PIECES=0: large copies go whole, as one message each way (for before/after measurements). */
static int pieces_on(void) {
    static int on = -1;
    return switched_on("RGPU_PIECES", &on);
}

/* The `sync` field of a sync call: a D2H copy that frames carry may be answered in pieces
 * (server/pieces.py). */
static int sync_field(const struct rgpu_call *c, int shm) {
    return c->shm == 2 && !shm && c->shm_cap >= RGPU_PIECE_MIN && pieces_on() ? RGPU_SYNC_PIECES_OUT : 1;
}

/* Sends the queued async calls plus (optionally) one more call, as one message. */
static int send_batch(rgpu_session *s, struct rgpu_call *c, uint64_t seq) {
    size_t shm_len = 0;
    int shm = shm_mode(s, c, &shm_len);
    mp_writer hdr;
    mp_init(&hdr, s->batch.len + 96 + (c ? c->args.len : 0));
    mp_array(&hdr, s->nbatch + (c ? 1 + c->nthen : 0));
    mp_raw(&hdr, s->batch.buf, s->batch.len);
    if (c) encode_call(&hdr, seq, c, sync_field(c, shm), shm, shm_len);
    for (int i = 0; c && i < c->nthen; i++) /* followers: seqs after c's, no bulk input, data back in frames */
        encode_call(&hdr, seq + 1 + (uint64_t)i, &c->then[i], 1, SEG_NONE, 0);
    if (hdr.oom) return -1;
    int cframes = c && input_in_frames(shm) ? c->nbulk : 0;
    size_t nframes = s->nbulk + (size_t)cframes;
    replay_msg *r = replay_new(s);
    if (r) {
        r->last_seq = s->seq;
        if (shm && (r->async_hdr = malloc(s->batch.len ? s->batch.len : 1)) != NULL) {
            r->shm = 1;
            memcpy(r->async_hdr, s->batch.buf, s->batch.len);
            r->async_len = s->batch.len, r->nasync = s->nbatch, r->async_frames = s->nbulk;
        }
    }
    if (shm == SEG_STAGED_IN) stage_begin(s, seq);
    zmq_msg_t head;
    zmq_msg_init_data(&head, hdr.buf, hdr.len, free_bytes, NULL);
    replay_keep(s, r, &head);
    /* A sync message of one frame whose reply comes whole goes on the call ring when there is one
     * (ring.c); the rest, and anything larger than its slot, on the socket, counted there. So do a
     * message whose sync call has followers (several replies) and one sent while async copies' data
     * is still to come (it comes on the socket ahead of the reply: take_late). */
    s->ring_wait = c && s->ring_on && !nframes && !c->nthen && !s->nlate &&
                   (shm == SEG_NONE || shm == SEG_IN || shm == SEG_OUT) &&
                   !c->shm_piped && sync_field(c, shm) == 1 && rgpu_ring_send(s, hdr.buf, hdr.len) == 0;
    if (s->ring_wait) {
        zmq_msg_close(&head);
        mp_reset(&s->batch);
        s->nbatch = 0;
        return 0;
    }
    int rc = zmq_msg_send(&head, s->sock, nframes ? ZMQ_SNDMORE : 0);
    zmq_msg_t *q = s->bulk;
    for (size_t i = 0; i < s->nbulk; i++) {
        size_t left = nframes - i - 1;
        replay_keep(s, r, &q[i]);
        if (rc >= 0) rc = zmq_msg_send(&q[i], s->sock, left ? ZMQ_SNDMORE : 0);
        else zmq_msg_close(&q[i]);
    }
    for (int i = 0; i < cframes; i++) {
        int more = i + 1 < cframes ? ZMQ_SNDMORE : 0;
        /* A sync call's buffers stay alive until its reply, which the server sends only after it
         * has received them: safe to send (and to keep for a resend) without a copy. */
        zmq_msg_t m;
        zmq_msg_init_data(&m, (void *)c->bulk[i], c->bulk_len[i], NULL, NULL);
        replay_keep(s, r, &m);
        if (rc >= 0) rc = zmq_msg_send(&m, s->sock, more);
        else zmq_msg_close(&m);
    }
    mp_reset(&s->batch);
    s->nbatch = 0;
    s->nbulk = 0;
    s->bulkbytes = 0;
    if (rc >= 0) rgpu_ring_sent_on_socket(s);
    if (rc >= 0 && shm == SEG_STAGED_IN) stage_progressive(s, c);
    if (!c) rgpu_stats_message((int)(s - rgpu_sessions_internal()));
    return rc >= 0 ? 0 : -1;
}

/* Set once the sessions are closed at exit. Libraries whose destructors run after rgpu's (the order
 * of unrelated libraries' destructors is the loader's) still call the driver — cuBLASLt unloads its
 * modules — and get CUDA_ERROR_DEINITIALIZED, as from a driver shutting down, instead of a reopened
 * session or a wait on a lock nobody will release. */
static int closed;

static void mark_dead(rgpu_session *s, const char *why) {
    if (s->state != -1)
        rgpu_log(RGPU_LOG_ERROR, "device on %s is unavailable: %s", s->url, why);
    s->state = -1;
}

/* Sends a kept message again (its frames shared, not copied). */
static int resend(rgpu_session *s, replay_msg *m) {
    int rc = 0;
    for (size_t i = 0; i < m->n && rc >= 0; i++) {
        zmq_msg_t copy;
        zmq_msg_init(&copy);
        zmq_msg_copy(&copy, &m->frames[i]);
        rc = zmq_msg_send(&copy, s->sock, i + 1 < m->n ? ZMQ_SNDMORE : 0);
        if (rc < 0) zmq_msg_close(&copy);
    }
    if (rc >= 0) rgpu_ring_sent_on_socket(s);
    return rc >= 0 ? 0 : -1;
}

/* Sends again a message whose sync call `c` (seq `seq`) moved its data through the old worker's
 * shared segment: its async calls as they were, the sync call encoded anew for the new worker's
 * segment (or frames). The kept message is replaced by the new one. */
static int resend_rebuilt(rgpu_session *s, replay_msg *m, struct rgpu_call *c, uint64_t seq) {
    size_t shm_len = 0;
    int shm = shm_mode(s, c, &shm_len);
    mp_writer hdr;
    mp_init(&hdr, m->async_len + 96 + c->args.len);
    mp_array(&hdr, m->nasync + 1);
    mp_raw(&hdr, m->async_hdr, m->async_len);
    encode_call(&hdr, seq, c, sync_field(c, shm), shm, shm_len);
    if (hdr.oom) return -1;
    replay_msg nm;
    memset(&nm, 0, sizeof nm);
    nm.last_seq = m->last_seq;
    if (shm) {
        nm.shm = 1;
        nm.async_hdr = m->async_hdr, nm.async_len = m->async_len, nm.nasync = m->nasync;
        nm.async_frames = m->async_frames;
        m->async_hdr = NULL;
    }
    int cframes = input_in_frames(shm) ? c->nbulk : 0;
    size_t nframes = m->async_frames + (size_t)cframes;
    if (shm == SEG_STAGED_IN) stage_begin(s, seq);
    zmq_msg_t head;
    zmq_msg_init_data(&head, hdr.buf, hdr.len, free_bytes, NULL);
    replay_keep(s, &nm, &head);
    int rc = zmq_msg_send(&head, s->sock, nframes ? ZMQ_SNDMORE : 0);
    for (size_t i = 0; i < m->async_frames && i + 1 < m->n; i++) {
        zmq_msg_t copy;
        zmq_msg_init(&copy);
        zmq_msg_copy(&copy, &m->frames[1 + i]);
        replay_keep(s, &nm, &copy);
        if (rc >= 0) rc = zmq_msg_send(&copy, s->sock, i + 1 < nframes ? ZMQ_SNDMORE : 0);
        else zmq_msg_close(&copy);
    }
    for (int i = 0; i < cframes; i++) {
        zmq_msg_t f;
        zmq_msg_init_data(&f, (void *)c->bulk[i], c->bulk_len[i], NULL, NULL);
        replay_keep(s, &nm, &f);
        if (rc >= 0) rc = zmq_msg_send(&f, s->sock, i + 1 < cframes ? ZMQ_SNDMORE : 0);
        else zmq_msg_close(&f);
    }
    replay_free(m);
    *m = nm;
    if (rc >= 0) rgpu_ring_sent_on_socket(s);
    if (rc >= 0 && shm == SEG_STAGED_IN) stage_progressive(s, c);
    return rc >= 0 ? 0 : -1;
}

/* The session moved (live migration): the old worker's MOVED notice (its outs a `moved` record:
 * URL@KEY#GPU, endpoint, session, key, seq of the last call it ran) is `rep`. Attach to the new worker and send again, in
 * order, the kept messages the old one did not run; `c` is the sync call in flight (seq `cseq`), or
 * NULL. 0 on success; the reply to `c` then comes from the new worker. */
static int follow(rgpu_session *s, int dev, const rgpu_env_reply *rep, struct rgpu_call *c, uint64_t cseq) {
    char url[sizeof s->url] = "", endpoint[300] = "", sid[64] = "", key[64] = "";
    char *fields[4] = {url, endpoint, sid, key};
    size_t caps[4] = {sizeof url, sizeof endpoint, sizeof sid, sizeof key};
    rgpu_env_moved mv;
    const char *why = "";
    mp_reader r = outs_record(rep);
    if (rgpu_env_read_moved(&r, &mv, &why)) {
        rgpu_log(RGPU_LOG_WARN, "a malformed notice of a move: %s", why);
        return -1;
    }
    const rgpu_env_bytes got[4] = {mv.url, mv.endpoint, mv.session, mv.key};
    for (int i = 0; i < 4; i++) {
        if (got[i].n >= caps[i]) return -1;
        memcpy(fields[i], got[i].p, got[i].n);
        fields[i][got[i].n] = 0;
    }
    uint64_t done = mv.last_seq;
    /* The old worker holds nothing now: close our end (and our shared segment: the new worker,
     * if it is on this host too, maps one of its own). */
    zmq_socket_monitor(s->sock, NULL, 0);
    zmq_close(s->mon);
    zmq_close(s->sock);
    s->sock = s->mon = NULL;
    rgpu_shm_unmap(s);
    char *hash = strrchr(url, '#');
    s->gpu = hash ? atoi(hash + 1) : 0;
    if (hash) *hash = 0;
    snprintf(s->url, sizeof s->url, "%s", url);
    if (attach_worker(s, dev, endpoint, sid, key) != 0) return -1;
    s->moves++;
    replay_msg *all = s->replay;
    size_t kept = 0, sent = 0;
    int rc = 0;
    s->replaybytes = 0;
    for (size_t i = 0; i < s->nreplay; i++) {
        replay_msg *m = &all[i];
        if (m->last_seq <= done) { /* the old worker ran it */
            replay_free(m);
            continue;
        }
        if (rc == 0) rc = m->shm && c && m->last_seq == cseq ? resend_rebuilt(s, m, c, cseq) : resend(s, m);
        s->replaybytes += m->bytes;
        all[kept++] = *m;
        sent++;
    }
    s->nreplay = kept;
    rgpu_log(RGPU_LOG_INFO, "device %d moved to %s (session %s): %zu message(s) sent again", dev, s->url, sid, sent);
    return rc;
}

/* A LATE_OUT message (its head read): the data of the async D2H copy `rseq` (RGPU_OUT_LATER), into the
 * pinned memory it was made for, whose entry goes. Its frames are read here in any case. */
static void take_late(rgpu_session *s, uint64_t rseq, zmq_msg_t *head) {
    int at = -1;
    for (int i = 0; i < s->nlate && at < 0; i++)
        if (s->late[i].seq == rseq) at = i;
    size_t got = 0;
    for (int more = zmq_msg_more(head); more;) {
        zmq_msg_t b;
        zmq_msg_init(&b);
        zmq_msg_recv(&b, s->sock, 0);
        more = zmq_msg_more(&b);
        size_t len = zmq_msg_size(&b);
        if (at >= 0 && got + len <= s->late[at].len) memcpy((char *)s->late[at].dst + got, zmq_msg_data(&b), len);
        got += len;
        zmq_msg_close(&b);
    }
    if (at < 0) return;
    if (got != s->late[at].len)
        rgpu_log(RGPU_LOG_ERROR, "an async copy of %zu bytes out of the device brought %zu", s->late[at].len, got);
    else if (s->fo) rgpu_fo_seen_late(s, rseq, s->late[at].dst, got); /* what the program will read */
    s->late_bytes -= s->late[at].len;
    s->late[at] = s->late[--s->nlate];
}

/* A reply to seq came: the copies sent before it whose data did not come failed (their error is the
 * session's deferred one), and theirs never will. */
static void late_settled(rgpu_session *s, uint64_t seq) {
    for (int i = 0; i < s->nlate;)
        if (s->late[i].seq < seq) {
            s->late_bytes -= s->late[i].len;
            s->late[i] = s->late[--s->nlate];
        } else {
            i++;
        }
}

/* Messages waiting before a send (nothing is owed a reply then): a MOVED notice the old worker sent
 * while the program was idle is followed; anything else is stale. -1 if a move could not be followed.
 * Within NOTICE_QUIET_S of a reply it does not look (the look is a zmq_poll: system calls at every call
 * of a program that calls in a loop): a notice that comes that soon after a reply is answered by the
 * reply wait anyway (sync_one follows a move and reports an ended session), as one that comes just
 * after this look always was. */
#define NOTICE_QUIET_S 0.001
static int take_notices(rgpu_session *s, int dev) {
    if (now_s() - s->replied_at < NOTICE_QUIET_S) return 0;
    for (;;) {
        zmq_pollitem_t item = {s->sock, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&item, 1, 0) <= 0 || !(item.revents & ZMQ_POLLIN)) return 0;
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, s->sock, 0) < 0) { zmq_msg_close(&m); return 0; }
        rgpu_env_reply rep;
        int parsed = read_reply(&m, &rep) == 0;
        if (parsed && rep.seq != 0 && rep.result == RGPU_LATE_OUT) { /* sent before a move's notice */
            take_late(s, rep.seq, &m);
            zmq_msg_close(&m);
            continue;
        }
        int notice = parsed && rep.seq == 0;
        int moved = notice && rep.result == RGPU_MOVED;
        int more = zmq_msg_more(&m);
        int ok = moved ? follow(s, dev, &rep, NULL, 0) : 0;
        if (notice && rep.result == RGPU_SESSION_ENDED) {
            /* the server ended the session while the program was idle, and says why (its lease
             * expired or was released): that is the cause the program hears, not a lost connection */
            char text[300] = "the server ended the session";
            if (rep.message.n)
                snprintf(text, sizeof text, "%.*s", (int)rep.message.n, (const char *)rep.message.p);
            mark_dead(s, text);
            ok = -1;
        }
        zmq_msg_close(&m);
        if (!moved && more) {
            while (more) { /* a stale reply's bulk frames */
                zmq_msg_t b;
                zmq_msg_init(&b);
                zmq_msg_recv(&b, s->sock, 0);
                more = zmq_msg_more(&b);
                zmq_msg_close(&b);
            }
        }
        if (ok != 0) return -1;
    }
}

static int sync_locked(rgpu_session *s, int dev, struct rgpu_call *c);

static int barrier(rgpu_session *s, int dev) {
    struct rgpu_call bar;
    memset(&bar, 0, sizeof bar);
    bar.id = RGPU_BARRIER;
    bar.name = "barrier";
    mp_init(&bar.args, 16);
    int rc = sync_locked(s, dev, &bar);
    rgpu_end(&bar);
    mp_free(&bar.args);
    return rc;
}

/* Take the session's lock with its connection open: 0 (locked), or the error (unlocked). */
static int lock_open(rgpu_session *s) {
    pthread_mutex_lock(&s->mu);
    if (__atomic_load_n(&closed, __ATOMIC_ACQUIRE)) { /* the process is exiting: see rgpu_sessions_close */
        pthread_mutex_unlock(&s->mu);
        return CUDA_ERROR_DEINITIALIZED;
    }
    if (ensure_open(s, (int)(s - rgpu_sessions_internal())) != 0) {
        pthread_mutex_unlock(&s->mu);
        return RGPU_DEVICE_UNAVAILABLE;
    }
    return 0;
}

int rgpu_session_sync(rgpu_session *s, struct rgpu_call *c) {
    int rc0 = lock_open(s);
    if (rc0) return rc0;
    int dev = (int)(s - rgpu_sessions_internal());
    if (take_notices(s, dev) != 0) {
        mark_dead(s, "it moved, and its new server cannot be reached");
        pthread_mutex_unlock(&s->mu);
        return RGPU_DEVICE_UNAVAILABLE;
    }
    int rc = sync_locked(s, dev, c);
    if (rgpu_fo_due(s)) {
        /* a --failover session at a synchronisation point: a checkpoint now (failover.c) */
        struct rgpu_call ck;
        memset(&ck, 0, sizeof ck);
        ck.id = RGPU_CHECKPOINT;
        ck.name = "checkpoint";
        mp_init(&ck.args, 16);
        int ckrc = sync_locked(s, dev, &ck);
        if (ckrc != RGPU_DEVICE_UNAVAILABLE) rgpu_fo_checkpointed(s, &ck, ckrc);
        rgpu_end(&ck);
        mp_free(&ck.args);
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

static int sync_one(rgpu_session *s, int dev, struct rgpu_call *c);
static void take_followers(rgpu_session *s, int dev, struct rgpu_call *c, uint64_t seq, double deadline);

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
static int sync_pieces(rgpu_session *s, int dev, struct rgpu_call *c) {
    size_t n = c->piece_len, size = piece_size(n), count = (n + size - 1) / size;
    for (size_t i = 0; i + 1 < count; i++) {
        size_t k = i ? i - 1 : count - 1, off = k * size, len = n - off < size ? n - off : size;
        struct rgpu_call p;
        c->piece(&p, c, off, len);
        encode_call(&s->batch, ++s->seq, &p, RGPU_PIECE_IN, 0, 0);
        mp_free(&p.args);
        s->nbatch++;
        if (s->nbulk == s->bulkcap) {
            s->bulkcap = s->bulkcap ? s->bulkcap * 2 : 8;
            s->bulk = realloc(s->bulk, s->bulkcap * sizeof(zmq_msg_t));
        }
        zmq_msg_init_data(&((zmq_msg_t *)s->bulk)[s->nbulk++], (void *)p.bulk[0], len, NULL, NULL);
        s->bulkbytes += len;
        if (send_batch(s, NULL, 0) != 0) {
            mark_dead(s, "send failed");
            return RGPU_DEVICE_UNAVAILABLE;
        }
    }
    struct rgpu_call last;
    c->piece(&last, c, (count - 2) * size, size);
    int rc = sync_one(s, dev, &last);
    /* the reply is the copy's: the caller reads and ends it */
    c->reply = last.reply, c->outs = last.outs, c->nouts = last.nouts, c->nout_bulk = last.nout_bulk;
    memcpy(c->out_bulk, last.out_bulk, sizeof c->out_bulk);
    mp_free(&last.args);
    return rc;
}

/* Sends `c` with the queued async calls and waits for its reply (the session's lock held). A large
 * H2D copy the session segment will not carry (another host, or larger than the segment) goes in pieces. */
static int sync_locked(rgpu_session *s, int dev, struct rgpu_call *c) {
    int segment = s->shm_base && (c->flags & RGPU_F_SHM) && c->piece_len <= s->shm_size;
    if (c->piece && c->piece_len >= RGPU_PIECE_MIN && !segment && pieces_on())
        return sync_pieces(s, dev, c);
    return sync_one(s, dev, c);
}

static int sync_one(rgpu_session *s, int dev, struct rgpu_call *c) {
    uint64_t seq = ++s->seq;
    s->seq += (uint64_t)c->nthen; /* the followers' */
    int followers = c->nthen;
    rgpu_stats_wait(dev, c->id, c->name);
    if (send_batch(s, c, seq) != 0) {
        mark_dead(s, "send failed");
        return RGPU_DEVICE_UNAVAILABLE;
    }
    double deadline = now_s() + rgpu_timeout_s();
    c->shm_early = 0;
    if (c->shm_piped) take_early(s, c, seq, deadline);
    size_t streamed = 0; /* of a D2H copy's data, in the caller's buffer */
    int pieces_ok = 1;
    for (;;) {
        zmq_msg_t *head = malloc(sizeof(zmq_msg_t));
        int w = 1; /* 3: the reply came on the ring, in head; 0: the socket has a message; 1: wait for one */
        if (s->ring_wait) {
            int sched = rgpu_sched_flags();
            int rw = rgpu_ring_wait(s, deadline, sched == CU_CTX_SCHED_BLOCKING_SYNC ? 0 : spin_window_s(),
                                    sched != CU_CTX_SCHED_SPIN, (struct zmq_msg_t *)head);
            if (rw == 1 || rw == 2) s->ring_wait = 0; /* 2: the worker put this reply on the socket */
            w = rw == 1 ? 3 : rw == 2 ? 1 : rw;
        }
        if (w == 1) w = spin_for_reply(s->sock, deadline) == 0 ? 0 : wait_readable(s->sock, s->mon, deadline);
        if (w == -2) {
            /* the connection dropped: a move's notice may be waiting behind it */
            zmq_pollitem_t item = {s->sock, 0, ZMQ_POLLIN, 0};
            if (zmq_poll(&item, 1, 0) > 0 && (item.revents & ZMQ_POLLIN)) w = 0;
        }
        if (w == -2 && rgpu_fo_state(s)) {
            /* a --failover session lost its server: resume on another (failover.c), then send again
             * what had no reply yet, this call's message included, and wait there */
            char why[700] = "";
            int ok = rgpu_fo_recover(s, dev, why, sizeof why) == 0;
            for (size_t i = 0; ok && i < s->nreplay; i++) ok = resend(s, &((replay_msg *)s->replay)[i]) == 0;
            if (ok) {
                free(head);
                deadline = now_s() + rgpu_timeout_s();
                streamed = 0, pieces_ok = 1;
                continue;
            }
            free(head);
            snprintf(last_message, sizeof last_message, "failover failed: %s", why);
            mark_dead(s, last_message);
            return RGPU_DEVICE_UNAVAILABLE;
        }
        if (w != 0 && w != 3) {
            free(head);
            mark_dead(s, w == -1 ? "no reply within RGPU_TIMEOUT" : "connection lost");
            return RGPU_DEVICE_UNAVAILABLE;
        }
        if (w == 0) {
            zmq_msg_init(head);
            zmq_msg_recv(head, s->sock, 0);
        }
        rgpu_env_reply rep;
        int parsed = read_reply(head, &rep) == 0;
        uint64_t rseq = parsed ? rep.seq : 0;
        int rc = parsed ? (int)rep.result : RGPU_DEVICE_UNAVAILABLE;
        if (rseq == 0 && rc == RGPU_MOVED) {
            /* the session moved while this call was on its way: follow it, and wait for the reply
             * there (the call is sent again unless the old worker ran it) */
            int ok = follow(s, dev, &rep, c, seq) == 0;
            zmq_msg_close(head);
            free(head);
            if (!ok) {
                mark_dead(s, "it moved, and its new server cannot be reached");
                return RGPU_DEVICE_UNAVAILABLE;
            }
            deadline = now_s() + rgpu_timeout_s();
            streamed = 0, pieces_ok = 1;
            c->shm_early = 0; /* the new worker's segment holds the reply's data, all of it */
            followers = 0; /* a message rebuilt for the new worker carries none: the caller does without */
            continue;
        }
        if (rseq != 0 && rc == RGPU_LATE_OUT) { /* an earlier async copy's data, before this reply */
            take_late(s, rseq, head);
            zmq_msg_close(head);
            free(head);
            continue;
        }
        if (rseq == seq && rc == RGPU_PIECE_OUT) {
            /* a piece of a D2H copy's data (server/pieces.py): into the caller's buffer now, while
             * the network carries the next; they come in order */
            rgpu_env_piece_out piece;
            mp_reader pr = outs_record(&rep);
            const char *why = "";
            pieces_ok = pieces_ok && c->shm == 2 && rgpu_env_read_piece_out(&pr, &piece, &why) == 0 &&
                        piece.offset == streamed;
            for (int more = zmq_msg_more(head); more;) {
                zmq_msg_t b;
                zmq_msg_init(&b);
                zmq_msg_recv(&b, s->sock, 0);
                more = zmq_msg_more(&b);
                size_t len = zmq_msg_size(&b);
                if (pieces_ok && streamed + len <= c->shm_cap) {
                    memcpy((char *)c->shm_dst + streamed, zmq_msg_data(&b), len);
                    streamed += len;
                } else pieces_ok = 0;
                zmq_msg_close(&b);
            }
            zmq_msg_close(head);
            free(head);
            deadline = now_s() + rgpu_timeout_s();
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
            zmq_msg_recv(b, s->sock, 0);
            more = zmq_msg_more(b);
            size_t len = zmq_msg_size(b);
            if (stream_out && c->nout_bulk == 0 && streamed + len <= c->shm_cap) {
                memcpy((char *)c->shm_dst + streamed, zmq_msg_data(b), len);
                streamed += len;
                zmq_msg_close(b);
                free(b);
                continue;
            }
            stream_out = 0; /* anything unexpected: keep the frames for the caller to judge */
            if (c->nout_bulk < RGPU_MAX_OUT_BULK) c->out_bulk[c->nout_bulk++] = b;
            else { zmq_msg_close(b); free(b); }
        }
        if (streamed && rseq == seq) c->shm_got = pieces_ok ? streamed : 0; /* 0: the copy fails, its data incomplete */
        if (parsed && rseq == 0 && rc == RGPU_SESSION_ENDED) {
            /* no call's reply: the server is ending the session and says why (the lease expired) */
            char text[300] = "the server ended the session";
            if (rep.message.n)
                snprintf(text, sizeof text, "%.*s", (int)rep.message.n, (const char *)rep.message.p);
            c->reply = head;
            rgpu_end(c);
            mark_dead(s, text);
            return RGPU_DEVICE_UNAVAILABLE; /* the caller unlocks */
        }
        if (rseq != seq) { /* a stale reply (e.g. to a malformed request); not ours */
            c->reply = head;
            rgpu_end(c);
            continue;
        }
        if (s->fo) /* a --failover session's log keeps them until the next checkpoint (failover.c) */
            for (size_t i = 0; i < s->nreplay; i++)
                rgpu_fo_logged(s, ((replay_msg *)s->replay)[i].frames, ((replay_msg *)s->replay)[i].n);
        replay_clear(s); /* the worker ran everything sent before this reply */
        if (s->nlate) late_settled(s, seq);
        s->replied_at = now_s();
        c->reply = head;
        mp_rinit(&c->outs, rep.outs.p, rep.outs.len);
        c->nouts = rep.outs.n;
        if (s->fo) rgpu_fo_seen(s, seq, &rep, c, streamed);
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
                /* what take_early copied out already is not copied again */
                size_t skip = c->shm_early > got ? (c->shm_early - got < len ? c->shm_early - got : len) : 0;
                rgpu_copy((char *)c->shm_dst + got + skip, (char *)s->shm_base + off + skip, len - skip);
                got += len;
            }
            c->shm_got = got;
        }
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
            snprintf(last_message, sizeof last_message, "%.*s", (int)msg.n, (const char *)msg.p);
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
        int w = spin_for_reply(s->sock, deadline) == 0 ? 0 : wait_readable(s->sock, s->mon, deadline);
        if (w != 0) {
            mark_dead(s, w == -1 ? "no reply within RGPU_TIMEOUT" : "connection lost");
            return;
        }
        zmq_msg_t *head = malloc(sizeof(zmq_msg_t));
        zmq_msg_init(head);
        zmq_msg_recv(head, s->sock, 0);
        rgpu_env_reply rep;
        int ok = read_reply(head, &rep) == 0;
        uint64_t rseq = ok ? rep.seq : 0;
        int rc = ok ? (int)rep.result : RGPU_DEVICE_UNAVAILABLE;
        if (rseq != 0 && ok && rc == RGPU_LATE_OUT) {
            take_late(s, rseq, head);
            zmq_msg_close(head);
            free(head);
            continue;
        }
        f->nout_bulk = 0;
        for (int more = zmq_msg_more(head); more;) {
            zmq_msg_t *b = malloc(sizeof(zmq_msg_t));
            zmq_msg_init(b);
            zmq_msg_recv(b, s->sock, 0);
            more = zmq_msg_more(b);
            if (rseq == seq + 1 + (uint64_t)i && f->nout_bulk < RGPU_MAX_OUT_BULK) f->out_bulk[f->nout_bulk++] = b;
            else { zmq_msg_close(b); free(b); }
        }
        if (rseq == 0 && ok) {
            int moved = rc == RGPU_MOVED && follow(s, dev, &rep, NULL, 0) == 0;
            if (!moved) mark_dead(s, rc == RGPU_MOVED ? "it moved, and its new server cannot be reached"
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
        if (d != 0 && !s->pending) s->pending = d; /* for the next call that reports it, as in sync_one */
        if (rep.output.n) {
            fflush(stdout);
            fwrite(rep.output.p, 1, rep.output.n, stdout);
            fflush(stdout);
        }
        f->reply = head;
        mp_rinit(&f->outs, rep.outs.p, rep.outs.len);
        f->nouts = rep.outs.n;
        f->then_rc = rc;
        i++;
    }
}

/* Queues an async call (the lock held), its `sync` field `sync`; sends the batch when it is full, or
 * at once if `flush`. */
static int queue_async(rgpu_session *s, int dev, struct rgpu_call *c, int pin, int sync, int flush) {
    rgpu_stats_async(dev, c->id, c->name);
    encode_call(&s->batch, ++s->seq, c, sync, pin ? SEG_PINNED : SEG_NONE, 0);
    s->nbatch++;
    for (int i = 0; i < c->nbulk && !pin; i++) {
        /* The caller may reuse its buffer as soon as we return: copy it into the message. */
        if (s->nbulk == s->bulkcap) {
            s->bulkcap = s->bulkcap ? s->bulkcap * 2 : 8;
            s->bulk = realloc(s->bulk, s->bulkcap * sizeof(zmq_msg_t));
        }
        zmq_msg_t *m = &((zmq_msg_t *)s->bulk)[s->nbulk++];
        zmq_msg_init_size(m, c->bulk_len[i]);
        memcpy(zmq_msg_data(m), c->bulk[i], c->bulk_len[i]);
        s->bulkbytes += c->bulk_len[i];
    }
    if (flush || s->nbatch >= BATCH_MAX_CALLS || s->bulkbytes >= BATCH_MAX_BYTES || s->batch.len >= BATCH_MAX_BYTES) {
        if (send_batch(s, NULL, 0) != 0) {
            mark_dead(s, "send failed");
            return RGPU_DEVICE_UNAVAILABLE;
        }
        if (s->replaybytes > REPLAY_MAX_BYTES && barrier(s, dev) == RGPU_DEVICE_UNAVAILABLE)
            /* async calls are kept until a reply says they ran (a move sends them again): a
             * program that only queues work gets a barrier now and then, so they do not pile up */
            return RGPU_DEVICE_UNAVAILABLE;
    }
    return 0;
}

/* A large async H2D copy whose data frames carry: pieces, each sent at once as a message of its own,
 * so the worker writes one to the device while the network carries the next instead of receiving
 * the whole copy first. All but the last are PIECE_IN calls, the last answering for them; the end
 * of the range goes first, so a copy past its allocation's end fails there with nothing written,
 * and that is the copy's failure, reported as any async copy's is (server/pieces.py). The lock is
 * held throughout: no other thread's call comes between the pieces. */
static int async_pieces(rgpu_session *s, int dev, struct rgpu_call *c) {
    size_t n = c->piece_len, size = piece_size(n), count = (n + size - 1) / size;
    for (size_t i = 0; i < count; i++) {
        size_t k = i ? i - 1 : count - 1, off = k * size, len = n - off < size ? n - off : size;
        struct rgpu_call p;
        c->piece(&p, c, off, len);
        int rc = queue_async(s, dev, &p, 0, i + 1 < count ? RGPU_PIECE_IN : 0, 1);
        mp_free(&p.args);
        if (rc) return rc;
    }
    return 0;
}

int rgpu_session_async(rgpu_session *s, struct rgpu_call *c) {
    int rc0 = lock_open(s);
    if (rc0) return rc0;
    int dev = (int)(s - rgpu_sessions_internal());
    if (s->nbatch == 0 && take_notices(s, dev) != 0) {
        mark_dead(s, "it moved, and its new server cannot be reached");
        pthread_mutex_unlock(&s->mu);
        return RGPU_DEVICE_UNAVAILABLE;
    }
    int pin = 0;
    if (c->pin) {
        size_t unused;
        pin = shm_mode(s, c, &unused) == SEG_PINNED;
        if (!pin && c->device_reads) { /* it moved to another host since the copy was made: no way back */
            pthread_mutex_unlock(&s->mu);
            return RGPU_NOT_SUPPORTED;
        }
    }
    int rc;
    if (c->late_dst) {
        /* as many copies' data awaited as the session keeps: past that, a barrier brings theirs first */
        rc = s->nlate == RGPU_LATE_MAX_COPIES || s->late_bytes + c->late_len > RGPU_LATE_MAX_BYTES ? barrier(s, dev) : 0;
        if (rc == 0) rc = queue_async(s, dev, c, 0, RGPU_OUT_LATER, 0);
        if (rc == 0) {
            s->late[s->nlate].seq = s->seq, s->late[s->nlate].dst = c->late_dst, s->late[s->nlate].len = c->late_len;
            s->nlate++;
            s->late_bytes += c->late_len;
        }
    } else {
        rc = !pin && c->piece && c->piece_len >= RGPU_PIECE_MIN && pieces_on() ? async_pieces(s, dev, c)
                                                                              : queue_async(s, dev, c, pin, 0, 0);
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

int rgpu_sessions_drain_late(void) {
    int rc = 0, n = rgpu_sessions_count_internal();
    rgpu_session *all = rgpu_sessions_internal();
    for (int i = 0; i < n; i++) {
        rgpu_session *s = &all[i];
        if (!__atomic_load_n(&s->nlate, __ATOMIC_RELAXED)) continue;
        pthread_mutex_lock(&s->mu);
        int r = s->nlate && s->state == 1 && !__atomic_load_n(&closed, __ATOMIC_ACQUIRE) ? barrier(s, i) : 0;
        pthread_mutex_unlock(&s->mu);
        if (r && !rc) rc = r;
    }
    return rc;
}

int rgpu_sessions_late_overlap(const void *p, size_t n) {
    int hit = 0, count = rgpu_sessions_count_internal();
    rgpu_session *all = rgpu_sessions_internal();
    for (int i = 0; i < count && !hit; i++) {
        rgpu_session *s = &all[i];
        if (!__atomic_load_n(&s->nlate, __ATOMIC_RELAXED)) continue;
        pthread_mutex_lock(&s->mu);
        for (int k = 0; k < s->nlate && !hit; k++)
            hit = (const char *)p < (const char *)s->late[k].dst + s->late[k].len &&
                  (const char *)s->late[k].dst < (const char *)p + n;
        pthread_mutex_unlock(&s->mu);
    }
    return hit;
}

int rgpu_session_local(int dev) {
    rgpu_session *s = rgpu_session_get(dev);
    if (!s) return 0;
    pthread_mutex_lock(&s->mu);
    int local = !__atomic_load_n(&closed, __ATOMIC_ACQUIRE) && ensure_open(s, dev) == 0 && s->shm_base != NULL;
    pthread_mutex_unlock(&s->mu);
    return local;
}

int rgpu_session_unpin(int dev, const char *name) {
    rgpu_session *s = rgpu_session_get(dev);
    if (!s) return RGPU_INVALID_DEVICE;
    struct rgpu_call c;
    memset(&c, 0, sizeof c);
    c.id = RGPU_UNPIN;
    c.name = "unpin";
    c.dev = dev;
    mp_init(&c.args, 64);
    mp_str(&c.args, name);
    c.nargs = 1;
    int rc = rgpu_session_sync(s, &c);
    rgpu_end(&c);
    mp_free(&c.args);
    return rc;
}

int rgpu_session_map_host(int dev, rgpu_pinseg *seg, uint64_t *devptr) {
    rgpu_session *s = rgpu_session_get(dev);
    if (!s) return RGPU_INVALID_DEVICE;
    rgpu_call c;
    rgpu_begin(&c, RGPU_MAP_HOST, "cuMemHostGetDevicePointer", RGPU_DRIVER, 0);
    c.dev = dev;
    rgpu_put_s(&c, seg->name);
    rgpu_put_b(&c, seg->nonce, sizeof seg->nonce);
    rgpu_put_u(&c, seg->size);
    /* the worker maps it now (the table it unmaps from at UNPIN): told before, so a failure is undone too */
    __atomic_or_fetch(&seg->told, 1u << dev, __ATOMIC_RELEASE);
    int rc = rgpu_sync(&c);
    if (rc == 0 && c.nouts >= 1) *devptr = rgpu_out_u(&c);
    else if (rc == 0) rc = RGPU_INVALID_VALUE;
    rgpu_end(&c);
    return rc;
}

void rgpu_sessions_close(void) {
    int n = rgpu_sessions_count_internal();
    rgpu_session *all = rgpu_sessions_internal();
    for (int i = 0; i < n; i++) {
        rgpu_session *s = &all[i];
        /* At exit other threads may still be in a call on this session: wait for it (bounded by
         * RGPU_TIMEOUT); calls after this one see `closed` and never touch the socket again. */
        pthread_mutex_lock(&s->mu);
        __atomic_store_n(&closed, 1, __ATOMIC_RELEASE);
        if (s->state == 1) {
            /* Queued async work and a goodbye so the server ends the session now; the goodbye
             * carries the session's counts (its round trips, async calls and the messages that
             * carried only those) for the worker's session_ended line. */
            struct rgpu_call bye;
            memset(&bye, 0, sizeof bye);
            bye.id = RGPU_GOODBYE;
            bye.name = "goodbye";
            mp_init(&bye.args, 64);
            uint64_t counts[3];
            rgpu_stats_session(i, counts);
            for (int k = 0; k < 3; k++) mp_uint(&bye.args, counts[k]);
            bye.nargs = 3;
            encode_call(&s->batch, ++s->seq, &bye, 0, 0, 0);
            s->nbatch++;
            mp_free(&bye.args);
            send_batch(s, NULL, 0);
        }
        rgpu_shm_unmap(s);
        if (s->mon) zmq_close(s->mon);
        if (s->sock) zmq_close(s->sock);
        s->sock = s->mon = NULL;
        replay_clear(s);
        free(s->replay);
        s->replay = NULL;
        s->replaycap = 0;
        s->state = -1;
        pthread_mutex_unlock(&s->mu);
    }
    __atomic_store_n(&closed, 1, __ATOMIC_RELEASE);
    if (zctx) zmq_ctx_term(zctx);
    zctx = NULL;
}
