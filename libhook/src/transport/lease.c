/* Env-only leases: a program started with RGPU_CONTROLLER and a request (RGPU_MEM, RGPU_COMPUTE,
 * RGPU_LIMIT, RGPU_VGPUS, RGPU_SHARE_ONLY) but no RGPU_SERVER — a Jupyter kernel, a container —
 * reserves its own lease at its first CUDA call, renews it from a thread of its own, and releases it
 * at exit, as `rgpu run` does around a program (OrionX's env-only mode).
 *
 * It authenticates as the user, with the credential the `rgpu` CLI reads (client/credentials.py):
 * RGPU_CREDENTIAL, else <config>/credential (config: RGPU_CONFIG_DIR, else $XDG_CONFIG_HOME/rgpu,
 * else ~/.config/rgpu) — a CURVE secret certificate in CZMQ's text format. The controller's public
 * key: RGPU_CONTROLLER_KEY (Z85, hex or a certificate file), else the credential's controller-key,
 * else <config>/controller.key. The wire is the controller's: one msgpack map per request on a CURVE
 * DEALER (controller/handlers.py), a socket per request. RGPU_CONTROLLER may list the replicas of one
 * cluster, comma-separated (docs/cluster.md): each request goes first to the replica that answered
 * last; one silent for ATTEMPT_MS is skipped for the next; a follower's `not_leader` names the leader
 * to ask next (or none yet, during an election: look again shortly), as client/controller_client.py
 * does, for FAILOVER_MS in all. Everything here has a ZeroMQ context of its own, so closing the
 * sessions at exit never cuts off the release. RGPU_LEASE_TTL (seconds, default 30) is the lease's
 * TTL: a program killed with SIGKILL leaves its lease to expire that long after. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zmq.h>

#include "failover.h"
#include "rgpu_call.h"
#include "session.h"

#define CONTROLLER_TIMEOUT_MS 5000   /* how long a lone controller may take to answer */
#define ATTEMPT_MS 1500              /* how long one replica of several may stay silent before the next */
#define FAILOVER_MS 15000            /* how long a request to replicas keeps trying (an election: ~10 s) */
#define MAX_REPLY (4 << 20)
#define MAX_REPLICAS 16

static void *lctx;
/* The replicas (the list, then leaders they named) and the one that answered last, the request ids
 * and the context: ctl_mu guards them and is held for a whole request (ask_leader), because the
 * renewer's renew and a failover's request (rgpu_lease_failover, from whichever thread lost its
 * server) may both be under way in an env-only lease. Reserve runs before either can be. */
static pthread_mutex_t ctl_mu = PTHREAD_MUTEX_INITIALIZER;
static char replicas[MAX_REPLICAS][256];
static int n_replicas, current;
static char own_pub[41], own_sec[41], ctl_key[41];
static char lease_id[64];
static double lease_ttl = 30.0;
static pthread_t renewer;
static int renewing;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int stopping;
static uint64_t next_id = 1;
/* The lease's token as of its last renew (tokens live minutes; a renew brings a fresh one) */
static char lease_token[8192];
static pthread_mutex_t token_mu = PTHREAD_MUTEX_INITIALIZER;

/* The same token in ~/.cache/rgpu/leases/<lease> (as `rgpu run` keeps it: client/lease_token_file.py),
 * named by RGPU_LEASE_FILE, for the programs this one starts: they share its lease and open their
 * sessions with its latest token. Written whole and renamed; "" when it cannot be kept. */
static char token_path[512];

static void token_file_for(const char *lease) {
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char dir[400];
    token_path[0] = 0;
    for (const char *c = lease; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-')) return;
    if (xdg && *xdg) snprintf(dir, sizeof dir, "%s", xdg);
    else if (home && *home) snprintf(dir, sizeof dir, "%s/.cache", home);
    else return;
    mkdir(dir, 0700);
    strncat(dir, "/rgpu", sizeof dir - strlen(dir) - 1);
    mkdir(dir, 0700);
    strncat(dir, "/leases", sizeof dir - strlen(dir) - 1);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) return;
    snprintf(token_path, sizeof token_path, "%s/%s", dir, lease);
}

static void write_token(const char *path, const char *token) {
    char tmp[sizeof token_path + 32];
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return;
    size_t n = strlen(token);
    ssize_t wrote = write(fd, token, n);
    close(fd);
    if (wrote != (ssize_t)n || rename(tmp, path) != 0) unlink(tmp);
}

static void keep_token(const char *token) {
    if (token_path[0]) write_token(token_path, token);
}

int rgpu_env_lease_token(char *out, size_t cap) {
    pthread_mutex_lock(&token_mu);
    int have = lease_token[0] != 0 && strlen(lease_token) < cap;
    if (have) memcpy(out, lease_token, strlen(lease_token) + 1);
    pthread_mutex_unlock(&token_mu);
    return have;
}

static void config_path(char *out, size_t cap, const char *name) {
    const char *dir = getenv("RGPU_CONFIG_DIR"), *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (dir && *dir) snprintf(out, cap, "%s/%s", dir, name);
    else if (xdg && *xdg) snprintf(out, cap, "%s/rgpu/%s", xdg, name);
    else snprintf(out, cap, "%s/.config/rgpu/%s", home ? home : "", name);
}

/* A key as ZeroMQ takes it (40 Z85 characters) from Z85 or 64 hex digits; 0 on success. */
static int z85_key(const char *text, char out[41]) {
    size_t n = strlen(text);
    if (n == 40) {
        memcpy(out, text, 41);
        return 0;
    }
    if (n != 64) return -1;
    uint8_t raw[32];
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(text + 2 * i, "%2x", &v) != 1) return -1;
        raw[i] = (uint8_t)v;
    }
    return zmq_z85_encode(out, raw, 32) ? 0 : -1;
}

/* Reads a CZMQ certificate: public-key, secret-key (may be NULL) and metadata controller-key. */
static int read_cert(const char *path, char pub[41], char sec[41], char ctl[41]) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[512], section[32] = "";
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        if (line[0] != ' ' && line[0] != '\t') {
            sscanf(line, "%31s", section);
            continue;
        }
        char key[64], value[128];
        /* name = "value" (Z85 keys hold '#': the value is what the quotes hold) */
        if (sscanf(line, " %63[A-Za-z0-9_-] = \"%127[^\"]\"", key, value) != 2) continue;
        if (!strcmp(section, "curve") && !strcmp(key, "public-key") && pub && !z85_key(value, pub)) found |= 1;
        if (!strcmp(section, "curve") && !strcmp(key, "secret-key") && sec && !z85_key(value, sec)) found |= 2;
        if (!strcmp(section, "metadata") && !strcmp(key, "controller-key") && ctl && !z85_key(value, ctl)) found |= 4;
    }
    fclose(f);
    return found;
}

/* Who this program is to the controller, and which controller it trusts; 0 or -1 (logged). */
static int credentials(void) {
    char path[1024];
    const char *given = getenv("RGPU_CREDENTIAL");
    if (given && *given) snprintf(path, sizeof path, "%s", given);
    else config_path(path, sizeof path, "credential");
    ctl_key[0] = 0;
    int got = read_cert(path, own_pub, own_sec, ctl_key);
    if (got < 0 || (got & 3) != 3) {
        rgpu_log(RGPU_LOG_ERROR, "env-only lease: no usable rgpu credential at %s (set RGPU_CREDENTIAL to the file "
                 "`rgpu user add NAME --out FILE` wrote)", path);
        return -1;
    }
    const char *key = getenv("RGPU_CONTROLLER_KEY");
    if (key && *key) {
        if (z85_key(key, ctl_key) != 0 && !(read_cert(key, ctl_key, NULL, NULL) & 1)) {
            rgpu_log(RGPU_LOG_ERROR, "env-only lease: RGPU_CONTROLLER_KEY is neither a key nor a certificate file");
            return -1;
        }
    } else if (!(got & 4)) {
        config_path(path, sizeof path, "controller.key");
        if (!(read_cert(path, ctl_key, NULL, NULL) & 1)) {
            rgpu_log(RGPU_LOG_ERROR, "env-only lease: the controller's public key is not known (RGPU_CONTROLLER_KEY, "
                     "the credential's controller-key or %s)", path);
            return -1;
        }
    }
    return 0;
}

/* A DEALER to one replica over CURVE as this user. */
static void *controller_socket(const char *url) {
    void *s = zmq_socket(lctx, ZMQ_DEALER);
    int zero = 0;
    int64_t max = MAX_REPLY;
    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &max, sizeof max);
    zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, ctl_key, 41);
    zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, own_pub, 41);
    zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, own_sec, 41);
    if (zmq_connect(s, url) != 0) {
        rgpu_log(RGPU_LOG_ERROR, "env-only lease: bad RGPU_CONTROLLER entry %s: %s", url, zmq_strerror(errno));
        zmq_close(s);
        return NULL;
    }
    return s;
}

/* Sends the request in `w` and waits for its reply (into `m`); 0, or -1 when none came. */
static int exchange(void *s, mp_writer *w, zmq_msg_t *m, int timeout_ms) {
    if (zmq_send(s, w->buf, w->len, 0) < 0) return -1;
    zmq_pollitem_t it = {s, 0, ZMQ_POLLIN, 0};
    int rc;
    do rc = zmq_poll(&it, 1, timeout_ms);
    while (rc < 0 && errno == EINTR);
    if (rc <= 0) return -1;
    zmq_msg_init(m);
    if (zmq_msg_recv(m, s, 0) >= 0) return 0;
    zmq_msg_close(m);
    return -1;
}

/* The string field `k` of the reply map into dst ("" if absent); returns whether "ok" was true. */
static int reply_str(zmq_msg_t *m, const char *k, char *dst, size_t cap) {
    mp_reader r;
    mp_obj map, o;
    dst[0] = 0;
    mp_rinit(&r, zmq_msg_data(m), zmq_msg_size(m));
    if (!mp_next(&r, &map) && map.type == MP_MAP && !mp_find_key(&r, map.n, k) && !mp_next(&r, &o) &&
        o.type == MP_STR)
        snprintf(dst, cap, "%.*s", (int)o.n, (const char *)o.p);
    mp_rinit(&r, zmq_msg_data(m), zmq_msg_size(m));
    return !mp_next(&r, &map) && map.type == MP_MAP && !mp_find_key(&r, map.n, "ok") && !mp_next(&r, &o) &&
           o.type == MP_BOOL && o.v.b;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void pause_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
}

/* The replica at `url` (a leader a follower named may be none of the list); its index. */
static int replica(const char *url) {
    for (int i = 0; i < n_replicas; i++)
        if (!strcmp(replicas[i], url)) return i;
    if (n_replicas == MAX_REPLICAS) return (current + 1) % n_replicas;
    snprintf(replicas[n_replicas], sizeof replicas[0], "%s", url);
    return n_replicas++;
}

/* Sends the request in `w` to the replica that leads; 0 with its reply (ok or not) in `m`, or -1
 * with why none did (naming the replicas tried). A request no reply came for is sent again to the
 * next replica: the Python client's way, whose leader may have died before answering. */
static int ask_leader(mp_writer *w, zmq_msg_t *m, char *why, size_t cap) {
    double start = now_ms();
    char tried[1024] = "", said[512] = "", error[64] = "";   /* the last reply's error and message */
    unsigned asked = 0;      /* a bit per replica */
    int limit;
    for (;;) {
        const char *url = replicas[current];
        /* a lone controller has the whole (shorter) time, and is not sent the request twice; a
         * list, or a lone URL that named its leader, has an election's time */
        limit = n_replicas > 1 ? FAILOVER_MS : CONTROLLER_TIMEOUT_MS;
        double left = start + limit - now_ms();
        if (left <= 0) break;
        asked |= 1u << current;
        int wait = n_replicas > 1 && left > ATTEMPT_MS ? ATTEMPT_MS : (int)left;
        void *s = controller_socket(url);
        int rc = s ? exchange(s, w, m, wait) : -1;
        if (s) zmq_close(s);
        if (rc != 0) {                                      /* dead or unreachable: the next */
            error[0] = 0;
            if (!s) pause_ms(100);
            current = (current + 1) % n_replicas;
            continue;
        }
        char leader[256];
        reply_str(m, "error", error, sizeof error);
        reply_str(m, "message", said, sizeof said);
        if (!strcmp(error, "unavailable")) {                /* the leader could not store it: nothing done */
            zmq_msg_close(m);
            pause_ms(100);
            continue;
        }
        if (strcmp(error, "not_leader")) return 0;
        reply_str(m, "leader", leader, sizeof leader);
        zmq_msg_close(m);
        if (leader[0] && strcmp(leader, url)) {
            current = replica(leader);
        } else {                                            /* an election is under way: look again shortly */
            pause_ms(100);
            current = (current + 1) % n_replicas;
        }
    }
    size_t used = 0;
    for (int i = 0; i < n_replicas; i++)
        if (asked & 1u << i && used < sizeof tried)
            used += snprintf(tried + used, sizeof tried - used, "%s%s", used ? ", " : "", replicas[i]);
    if (!strcmp(error, "not_leader")) snprintf(why, cap, "no rgpu-controller of %s leads (%s)", tried, said);
    else if (error[0]) snprintf(why, cap, "rgpu-controller at %s: %s (%s)", tried, error, said);
    else snprintf(why, cap, "rgpu-controller at %s did not answer within %d s", tried, limit / 1000);
    return -1;
}

/* One request {cmd, id, lease} and its reply; 0 ok, else -1 with the controller's message in why. */
static int lease_cmd(const char *cmd, char *why, size_t cap, char *token, size_t tcap) {
    mp_writer w;
    mp_init(&w, 128);
    mp_map(&w, 3);
    mp_str(&w, "cmd"); mp_str(&w, cmd);
    mp_str(&w, "id"); mp_uint(&w, next_id++);
    mp_str(&w, "lease"); mp_str(&w, lease_id);
    zmq_msg_t m;
    int rc = ask_leader(&w, &m, why, cap);
    mp_free(&w);
    if (rc != 0) return -1;
    int ok = reply_str(&m, "message", why, cap);
    if (ok && token) reply_str(&m, "token", token, tcap);   /* a renew brings a fresh token */
    zmq_msg_close(&m);
    return ok ? 0 : -1;
}

static int lease_cmd_locked(const char *cmd, char *why, size_t cap, char *token, size_t tcap) {
    pthread_mutex_lock(&ctl_mu);
    int rc = lease_cmd(cmd, why, cap, token, tcap);
    pthread_mutex_unlock(&ctl_mu);
    return rc;
}

static void *renew_loop(void *arg) {
    (void)arg;
    pthread_mutex_lock(&mu);
    while (!stopping) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        double period = lease_ttl / 3 > 0.5 ? lease_ttl / 3 : 0.5;
        until.tv_sec += (time_t)period;
        until.tv_nsec += (long)((period - (time_t)period) * 1e9);
        if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
        if (pthread_cond_timedwait(&wake, &mu, &until) != ETIMEDOUT || stopping) continue;
        pthread_mutex_unlock(&mu);
        char why[1536], fresh[sizeof lease_token] = "";
        if (lease_cmd_locked("renew", why, sizeof why, fresh, sizeof fresh) != 0) {
            rgpu_log(RGPU_LOG_WARN, "env-only lease %s: renew failed: %s", lease_id, why);
            if (strstr(why, "already") || strstr(why, "no lease")) { /* it ended: renewing is over */
                pthread_mutex_lock(&mu);
                break;
            }
        } else {
            rgpu_log(RGPU_LOG_DEBUG, "env-only lease %s renewed", lease_id);
            if (fresh[0]) {   /* the sessions this program opens from now on send it */
                pthread_mutex_lock(&token_mu);
                memcpy(lease_token, fresh, sizeof lease_token);
                pthread_mutex_unlock(&token_mu);
                keep_token(fresh);
            }
        }
        pthread_mutex_lock(&mu);
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

static void put_int_env(mp_writer *w, const char *key, const char *var, uint32_t *n) {
    const char *v = getenv(var);
    if (!v || !*v) return;
    mp_str(w, key);
    mp_int(w, atoll(v));
    (*n)++;
}

/* RGPU_CONTROLLER's replicas into `replicas`: URL,URL,...; each HOST:PORT means tcp://HOST:PORT, as the
 * CLI reads it. */
static void parse_replicas(const char *controller) {
    for (const char *p = controller; *p;) {
        char entry[256], *e = entry;
        size_t len = strcspn(p, ",");
        snprintf(entry, sizeof entry, "%.*s", (int)(len < 200 ? len : 200), p);
        e += strspn(e, " \t");
        for (size_t n = strlen(e); n && (e[n - 1] == ' ' || e[n - 1] == '\t'); n--) e[n - 1] = 0;
        if (*e && n_replicas < MAX_REPLICAS)
            snprintf(replicas[n_replicas++], sizeof replicas[0], "%s%s", strstr(e, "://") ? "" : "tcp://", e);
        p += len + (p[len] == ',');
    }
}

int rgpu_env_lease(char *servers, size_t cap) {
    const char *controller = getenv("RGPU_CONTROLLER");
    const char *vars[] = {"RGPU_MEM", "RGPU_COMPUTE", "RGPU_LIMIT", "RGPU_VGPUS", "RGPU_SHARE_ONLY"};
    int asked = 0;
    for (int i = 0; i < 5; i++) asked |= getenv(vars[i]) && *getenv(vars[i]);
    if (!controller || !*controller || !asked) return -1;
    parse_replicas(controller);
    if (!n_replicas) return -1;
    if (getenv("RGPU_LEASE_TTL") && atof(getenv("RGPU_LEASE_TTL")) >= 2) lease_ttl = atof(getenv("RGPU_LEASE_TTL"));
    if (credentials() != 0) return -2;
    lctx = zmq_ctx_new();
    /* reserve {memory, compute, limit, count, share_only, ttl, kept_while_used}: memory as the user
     * wrote it (the controller reads the size grammar: 512 is MiB, 8GiB, 0.5 of the GPU).
     * kept_while_used: the renewer below is a thread of the program, which a stop (Ctrl-Z, a
     * debugger's all-stop) halts with it; the controller then keeps the lease alive for as long as
     * its servers hold the program's sessions, which they end when the program dies */
    mp_writer w;
    mp_init(&w, 256);
    uint8_t body[256];
    mp_writer fields;
    mp_init_inline(&fields, body, sizeof body);
    uint32_t n = 4;
    mp_str(&fields, "kept_while_used"); mp_bool(&fields, 1);
    if (getenv("RGPU_MEM") && *getenv("RGPU_MEM")) { mp_str(&fields, "memory"); mp_str(&fields, getenv("RGPU_MEM")); n++; }
    put_int_env(&fields, "compute", "RGPU_COMPUTE", &n);
    put_int_env(&fields, "limit", "RGPU_LIMIT", &n);
    put_int_env(&fields, "count", "RGPU_VGPUS", &n);
    const char *failover = getenv("RGPU_FAILOVER"); /* 1: a --failover lease (failover.c) */
    if (failover && *failover && strcmp(failover, "0")) {
        mp_str(&fields, "failover"); mp_bool(&fields, 1); n++;
    }
    const char *share = getenv("RGPU_SHARE_ONLY");
    if (share && *share && strcmp(share, "0") && strcasecmp(share, "false")) {
        mp_str(&fields, "share_only"); mp_bool(&fields, 1); n++;
    }
    mp_map(&w, n);
    mp_str(&w, "cmd"); mp_str(&w, "reserve");
    mp_str(&w, "id"); mp_uint(&w, next_id++);
    mp_str(&w, "ttl"); mp_double(&w, lease_ttl);
    mp_raw(&w, fields.buf, fields.len);
    mp_free(&fields);
    zmq_msg_t m;
    char token[8192], msg[1536];
    int rc = ask_leader(&w, &m, msg, sizeof msg);
    mp_free(&w);
    if (rc != 0) {
        rgpu_log(RGPU_LOG_ERROR, "env-only lease: %s (is it running, and does it know this credential?)", msg);
        return -2;
    }
    if (!reply_str(&m, "token", token, sizeof token)) {
        reply_str(&m, "message", msg, sizeof msg);
        rgpu_log(RGPU_LOG_ERROR, "env-only lease refused by rgpu-controller at %s: %s", replicas[current], msg);
        zmq_msg_close(&m);
        return -2;
    }
    reply_str(&m, "lease", lease_id, sizeof lease_id);
    /* vgpus: [{server, index, server_key}] -> URL@KEY#N,... in device order */
    mp_reader r;
    mp_obj map, arr, o;
    size_t used = 0;
    servers[0] = 0;
    mp_rinit(&r, zmq_msg_data(&m), zmq_msg_size(&m));
    if (!mp_next(&r, &map) && map.type == MP_MAP && !mp_find_key(&r, map.n, "vgpus") && !mp_next(&r, &arr) &&
        arr.type == MP_ARRAY) {
        for (uint32_t i = 0; i < arr.n; i++) {
            mp_reader item = r;
            mp_obj vm;
            char url[256] = "", key[80] = "";
            long idx = 0;
            if (mp_next(&item, &vm) || vm.type != MP_MAP) break;
            const char *want[] = {"server", "server_key", "index"};
            for (int k = 0; k < 3; k++) {
                mp_reader f = item;
                if (mp_find_key(&f, vm.n, want[k]) || mp_next(&f, &o)) continue;
                if (k == 0 && o.type == MP_STR) snprintf(url, sizeof url, "%.*s", (int)o.n, (const char *)o.p);
                if (k == 1 && o.type == MP_STR) snprintf(key, sizeof key, "%.*s", (int)o.n, (const char *)o.p);
                if (k == 2) idx = (long)mp_as_int(&o);
            }
            used += snprintf(servers + used, used < cap ? cap - used : 0, "%s%s%s%s#%ld", i ? "," : "", url,
                             key[0] ? "@" : "", key, idx);
            mp_skip(&r);
        }
    }
    zmq_msg_close(&m);
    if (!servers[0] || used >= cap) {
        rgpu_log(RGPU_LOG_ERROR, "env-only lease %s: the controller's reply names no vGPU", lease_id);
        return -2;
    }
    /* The hello of each session sends RGPU_LEASE; programs this one starts share the lease. */
    setenv("RGPU_LEASE", token, 1);
    pthread_mutex_lock(&token_mu);
    snprintf(lease_token, sizeof lease_token, "%s", token);
    pthread_mutex_unlock(&token_mu);
    token_file_for(lease_id);
    keep_token(token);
    if (token_path[0]) setenv("RGPU_LEASE_FILE", token_path, 1);
    setenv("RGPU_LEASE_ID", lease_id, 1);
    setenv("RGPU_SERVER", servers, 1);
    rgpu_log(RGPU_LOG_INFO, "env-only lease %s from %s: %s", lease_id, replicas[current], servers);
    renewing = pthread_create(&renewer, NULL, renew_loop, NULL) == 0;
    return 0;
}

void rgpu_env_lease_release(void) {
    if (!lease_id[0] || !lctx) return;
    pthread_mutex_lock(&mu);
    stopping = 1;
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&mu);
    if (renewing) pthread_join(renewer, NULL);
    renewing = 0;
    char why[1536];
    pthread_mutex_lock(&token_mu);
    lease_token[0] = 0;
    pthread_mutex_unlock(&token_mu);
    if (token_path[0]) unlink(token_path);
    pthread_mutex_lock(&ctl_mu); /* a failover's request may be under way still: the context is ended below */
    if (lease_cmd("release", why, sizeof why, NULL, 0) != 0)
        rgpu_log(RGPU_LOG_WARN, "env-only lease %s: release failed (%s); it expires within %.0f s", lease_id, why,
                 lease_ttl);
    else
        rgpu_log(RGPU_LOG_INFO, "env-only lease %s released", lease_id);
    lease_id[0] = 0;
    zmq_ctx_term(lctx);
    lctx = NULL;
    pthread_mutex_unlock(&ctl_mu);
}

/* The URL of a server as the controller knows it: without the client's @KEY (a session's URL holds no #GPU). */
static void controller_url(char *out, size_t cap, const char *url) {
    snprintf(out, cap, "%s", url);
    char *at = strrchr(out, '@');
    if (at) *at = 0;
}

/* failover {lease, vgpu, lost, avoid} (a --failover lease whose server died, failover.c): the vGPU's new place as
 * URL@KEY#N into server, the lease's new token into token; 0, or -1 and why. Under ctl_mu: the
 * replicas' state is shared with an env-only lease's renewer, and sessions of several devices may
 * lose their server at once. */
int rgpu_lease_failover(const char *lease, int vgpu, const char *lost, const char *const *avoid, int navoid,
                        char *server, size_t cap, char *token, size_t tcap, char *why, size_t wcap) {
    pthread_mutex_lock(&ctl_mu);
    int rc = -1;
    if (!n_replicas) {
        const char *controller = getenv("RGPU_CONTROLLER");
        if (controller && *controller) parse_replicas(controller);
    }
    if (!n_replicas) {
        snprintf(why, wcap, "RGPU_CONTROLLER is not set: no controller to ask for another server");
        goto out;
    }
    if (!own_pub[0] && credentials() != 0) {
        snprintf(why, wcap, "no usable rgpu credential to ask the controller with (RGPU_CREDENTIAL)");
        goto out;
    }
    if (!lctx) lctx = zmq_ctx_new();
    mp_writer w;
    mp_init(&w, 128);
    /* lost: the server's URL as the controller knows it (without @KEY): another process of the lease
     * that lost it first has moved the vGPU already, and it does not move again */
    char url[256];
    controller_url(url, sizeof url, lost);
    mp_map(&w, navoid ? 6 : 5);
    mp_str(&w, "cmd"); mp_str(&w, "failover");
    mp_str(&w, "id"); mp_uint(&w, next_id++);
    mp_str(&w, "lease"); mp_str(&w, lease);
    mp_str(&w, "vgpu"); mp_uint(&w, (uint64_t)vgpu);
    mp_str(&w, "lost"); mp_str(&w, url);
    if (navoid) {
        /* servers lost earlier in this recovery: the pool may not know yet that they are gone */
        mp_str(&w, "avoid");
        mp_array(&w, (uint32_t)navoid);
        for (int i = 0; i < navoid; i++) {
            char other[256];
            controller_url(other, sizeof other, avoid[i]);
            mp_str(&w, other);
        }
    }
    zmq_msg_t m;
    int asked = ask_leader(&w, &m, why, wcap);
    mp_free(&w);
    if (asked != 0) goto out;
    if (!reply_str(&m, "token", token, tcap)) {
        char said[512];
        reply_str(&m, "message", said, sizeof said);
        snprintf(why, wcap, "the controller refused: %s", said);
        zmq_msg_close(&m);
        goto out;
    }
    mp_reader r;
    mp_obj map, arr, o;
    server[0] = 0;
    mp_rinit(&r, zmq_msg_data(&m), zmq_msg_size(&m));
    if (!mp_next(&r, &map) && map.type == MP_MAP && !mp_find_key(&r, map.n, "vgpus") && !mp_next(&r, &arr) &&
        arr.type == MP_ARRAY && (uint32_t)vgpu < arr.n) {
        for (int i = 0; i < vgpu; i++) mp_skip(&r);
        mp_obj vm;
        char url[256] = "", key[80] = "";
        long idx = 0;
        mp_reader item = r;
        if (!mp_next(&item, &vm) && vm.type == MP_MAP) {
            const char *want[] = {"server", "server_key", "index"};
            for (int k = 0; k < 3; k++) {
                mp_reader f = item;
                if (mp_find_key(&f, vm.n, want[k]) || mp_next(&f, &o)) continue;
                if (k == 0 && o.type == MP_STR) snprintf(url, sizeof url, "%.*s", (int)o.n, (const char *)o.p);
                if (k == 1 && o.type == MP_STR) snprintf(key, sizeof key, "%.*s", (int)o.n, (const char *)o.p);
                if (k == 2) idx = (long)mp_as_int(&o);
            }
            snprintf(server, cap, "%s%s%s#%ld", url, key[0] ? "@" : "", key, idx);
        }
    }
    zmq_msg_close(&m);
    if (!server[0] || server[0] == '@' || server[0] == '#') {
        snprintf(why, wcap, "the controller's failover reply names no server for vGPU %d", vgpu);
        goto out;
    }
    /* the next hellos need the token that names the new placement: an env-only lease's own, else the
     * lease file `rgpu run` keeps (its renewals rewrite it, naming the new placement too) and RGPU_LEASE */
    if (lease_id[0]) {
        pthread_mutex_lock(&token_mu);
        snprintf(lease_token, sizeof lease_token, "%s", token);
        pthread_mutex_unlock(&token_mu);
        keep_token(token);
    } else {
        const char *path = getenv("RGPU_LEASE_FILE");
        if (path && *path && strlen(path) < sizeof token_path) write_token(path, token);
    }
    setenv("RGPU_LEASE", token, 1);
    rc = 0;
out:
    pthread_mutex_unlock(&ctl_mu);
    return rc;
}
