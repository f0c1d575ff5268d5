/* The machine's own round trips, the floor rgpu's data path is set against (issue 38): built and run
 * by benchmarks/test_data_path.py in the same run as rgpu's figures.
 *
 *   baselines shm N [SPIN_US [PLACE]]
 *                               two processes ping-pong a counter in a MAP_SHARED mapping: each side
 *                               spins (yielding) for SPIN_US (default 200, as rgpu's RGPU_SPIN_US),
 *                               then blocks on a futex in the mapping, as a call ring would; PLACE
 *                               `any` (default: where the kernel puts them), `one` (both on the first
 *                               CPU this process may use) or `two` (each on a CPU of its own): a side
 *                               that blocks is woken on its own CPU only when the two share one
 *                                                           -> {"us": per round trip}
 *   baselines zmq URL N         a REQ in this process, a REP in a forked child bound at URL
 *                               (tcp://127.0.0.1:* or ipc://PATH), both C libzmq, blocking receives
 *                                                           -> {"us": per round trip}
 *   baselines driver LIB N      cuMemAlloc 1 MiB + cuMemFree N times, called in this process on the
 *                               driver at LIB (dlopen; its primary context): what an allocation
 *                               costs the driver itself, below any transport -> {"us": per pair}
 * Timings are CLOCK_MONOTONIC around the loop, after a warm-up of N/10 round trips. */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct {
    _Alignas(64) uint32_t turn;    /* odd: the child's move; even: the parent's */
    _Alignas(64) uint32_t sleeping[2];  /* a side blocked in FUTEX_WAIT: the other wakes it */
} pingpong;

static void futex_wait(uint32_t *w, uint32_t v) {
    syscall(SYS_futex, w, FUTEX_WAIT, v, NULL, NULL, 0);  /* shared mapping: not FUTEX_PRIVATE */
}

static void futex_wake(uint32_t *w) { syscall(SYS_futex, w, FUTEX_WAKE, 1, NULL, NULL, 0); }

/* Wait until pp->turn has the parity `want`: spin for spin_s, then block. */
static void await_turn(pingpong *pp, int side, uint32_t want, double spin_s) {
    uint32_t t = __atomic_load_n(&pp->turn, __ATOMIC_ACQUIRE);
    if ((t & 1) == want) return;
    for (double until = now() + spin_s; now() < until; sched_yield()) {
        t = __atomic_load_n(&pp->turn, __ATOMIC_ACQUIRE);
        if ((t & 1) == want) return;
    }
    for (;;) {
        __atomic_store_n(&pp->sleeping[side], 1, __ATOMIC_SEQ_CST);
        t = __atomic_load_n(&pp->turn, __ATOMIC_SEQ_CST);
        if ((t & 1) == want) break;
        futex_wait(&pp->turn, t);
    }
    __atomic_store_n(&pp->sleeping[side], 0, __ATOMIC_RELAXED);
}

static void pass_turn(pingpong *pp, int other) {
    __atomic_add_fetch(&pp->turn, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&pp->sleeping[other], __ATOMIC_SEQ_CST)) futex_wake(&pp->turn);
}

/* The first (k = 0) or second CPU this process may run on, as a set of one; 0, or -1 when it has no such CPU. */
static int nth_cpu(int k, cpu_set_t *one) {
    cpu_set_t all;
    if (sched_getaffinity(0, sizeof all, &all)) return -1;
    for (int c = 0, seen = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all) && seen++ == k) {
            CPU_ZERO(one);
            CPU_SET(c, one);
            return 0;
        }
    return -1;
}

static int run_shm(long n, double spin_s, const char *place) {
    cpu_set_t mine, childs;
    int pin = strcmp(place, "any") != 0;
    if (pin && (nth_cpu(0, &mine) || nth_cpu(!strcmp(place, "two") ? 1 : 0, &childs))) {
        fprintf(stderr, "shm: no CPUs for placement %s\n", place);
        return 1;
    }
    if (pin && sched_setaffinity(0, sizeof mine, &mine)) return 1;
    pingpong *pp = mmap(NULL, sizeof *pp, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (pp == MAP_FAILED) return 1;
    memset(pp, 0, sizeof *pp);
    long warm = n / 10 + 1, total = warm + n;
    pid_t child = fork();
    if (child == 0) {
        if (pin && sched_setaffinity(0, sizeof childs, &childs)) _exit(1);
        for (long i = 0; i < total; i++) {
            await_turn(pp, 1, 1, spin_s);
            pass_turn(pp, 0);
        }
        _exit(0);
    }
    double t0 = 0;
    for (long i = 0; i < total; i++) {
        if (i == warm) t0 = now();
        pass_turn(pp, 1);
        await_turn(pp, 0, 0, spin_s);
    }
    double t = now() - t0;
    waitpid(child, NULL, 0);
    printf("{\"us\": %.4f, \"n\": %ld}\n", t / n * 1e6, n);
    return 0;
}

static int run_zmq(const char *url, long n) {
    int fds[2];
    if (pipe(fds)) return 1;
    long warm = n / 10 + 1, total = warm + n;
    pid_t child = fork();
    if (child == 0) {
        void *ctx = zmq_ctx_new(), *rep = zmq_socket(ctx, ZMQ_REP);
        char ep[512] = "";
        size_t len = sizeof ep;
        if (zmq_bind(rep, url) != 0) _exit(1);
        zmq_getsockopt(rep, ZMQ_LAST_ENDPOINT, ep, &len);
        if (write(fds[1], ep, strlen(ep) + 1) < 0) _exit(1);
        char buf[64];
        for (long i = 0; i < total; i++) {
            int got = zmq_recv(rep, buf, sizeof buf, 0);
            if (got < 0 || zmq_send(rep, buf, (size_t)got, 0) < 0) _exit(1);
        }
        zmq_close(rep);
        zmq_ctx_term(ctx);
        _exit(0);
    }
    char ep[512] = "";
    ssize_t got = read(fds[0], ep, sizeof ep - 1);
    if (got <= 0) { kill(child, SIGKILL); return 1; }
    void *ctx = zmq_ctx_new(), *req = zmq_socket(ctx, ZMQ_REQ);
    if (zmq_connect(req, ep) != 0) { kill(child, SIGKILL); return 1; }
    char msg[16] = "ping", buf[64];
    double t0 = 0;
    for (long i = 0; i < total; i++) {
        if (i == warm) t0 = now();
        if (zmq_send(req, msg, sizeof msg, 0) < 0 || zmq_recv(req, buf, sizeof buf, 0) < 0) {
            kill(child, SIGKILL);
            return 1;
        }
    }
    double t = now() - t0;
    zmq_close(req);
    zmq_ctx_term(ctx);
    waitpid(child, NULL, 0);
    printf("{\"us\": %.4f, \"n\": %ld}\n", t / n * 1e6, n);
    return 0;
}

/* The driver's own allocation and free: the floor under rgpu's cudaMalloc + cudaFree, whatever the
 * transport (the null driver maps and unmaps 1 MiB of address space; a GPU's driver does its own). */
static int run_driver(const char *lib, long n) {
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
    int (*dev_get)(int *, int) = (int (*)(int *, int))dlsym(h, "cuDeviceGet");
    int (*retain)(void **, int) = (int (*)(void **, int))dlsym(h, "cuDevicePrimaryCtxRetain");
    int (*set_ctx)(void *) = (int (*)(void *))dlsym(h, "cuCtxSetCurrent");
    int (*alloc)(uint64_t *, size_t) = (int (*)(uint64_t *, size_t))dlsym(h, "cuMemAlloc_v2");
    int (*release)(uint64_t) = (int (*)(uint64_t))dlsym(h, "cuMemFree_v2");
    int dev;
    void *ctx;
    if (!init || !dev_get || !retain || !set_ctx || !alloc || !release || init(0) || dev_get(&dev, 0) ||
        retain(&ctx, dev) || set_ctx(ctx)) {
        fprintf(stderr, "driver %s: no usable context\n", lib);
        return 1;
    }
    long warm = n / 10 + 1, total = warm + n;
    double t0 = 0;
    for (long i = 0; i < total; i++) {
        if (i == warm) t0 = now();
        uint64_t p;
        if (alloc(&p, 1 << 20) || release(p)) { fprintf(stderr, "driver: allocation failed\n"); return 1; }
    }
    printf("{\"us\": %.4f, \"n\": %ld}\n", (now() - t0) / n * 1e6, n);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "shm"))
        return run_shm(atol(argv[2]), (argc >= 4 ? atof(argv[3]) : 200) * 1e-6, argc >= 5 ? argv[4] : "any");
    if (argc >= 4 && !strcmp(argv[1], "zmq")) return run_zmq(argv[2], atol(argv[3]));
    if (argc >= 4 && !strcmp(argv[1], "driver")) return run_driver(argv[2], atol(argv[3]));
    fprintf(stderr, "usage: baselines shm N [SPIN_US [any|one|two]] | baselines zmq URL N | baselines driver LIB N\n");
    return 2;
}
