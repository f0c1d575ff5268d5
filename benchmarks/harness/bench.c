/* The benchmark client: the same loops through librgpu (CUDA calls, as an application makes them)
 * and through raw libzmq (a DEALER to `bench rawserve`, a bare C ROUTER: the machine's ZeroMQ round
 * trip, the baseline every raw ratio is against; rgpu's worker answers the hot calls from its
 * compiled serving loop, so a Python echo would flatter it).
 *
 *   bench rgpu sync N            N x cudaStreamQuery(0)            -> {"us": per round trip}
 *   bench rgpu ssync N           N x cudaStreamSynchronize(0)      -> {"us": per round trip}
 *   bench rgpu launch_sync N     N x (empty kernel, cudaStreamSynchronize(0)) -> {"us": per pair}
 *   bench rgpu malloc_free N     N x (cudaMalloc 1 MiB, cudaFree)  -> {"us": per pair}
 *   bench rgpu free_after_launch N   N x (three buffers made, a kernel launched on a stream, one 4 MiB
 *                                buffer freed with cudaFreeAsync on that stream, then one of 4 MiB and
 *                                one of 64 KiB with cudaFree, no wait between) -> {"us": per round}
 *   bench rgpu clear_copy_launch_sync N   N x (cudaMemsetAsync 4 KiB, cudaMemcpyAsync 4 KiB device to
 *                                device, an empty kernel, cudaStreamSynchronize) -> {"us": per step}
 *   bench rgpu pinned_step N     N x (cudaMemcpyAsync 4 KiB in from pinned memory, an empty kernel,
 *                                cudaMemcpyAsync 4 KiB out to pinned memory, cudaStreamSynchronize, the
 *                                result read): a framework's step with `.item()` -> {"us": per step}
 *   bench rgpu pageable_step N [BYTES [M]]   N x (M (1) x cudaMemcpyAsync BYTES (4 KiB) in from pageable
 *                                memory, an empty kernel, cudaStreamSynchronize): a framework's step whose
 *                                input is not pinned (a DataLoader without pin_memory); each copy's bytes
 *                                the step's and the copy's number, each 4 KiB page stamped with its
 *                                number, the device's copy checked after each round (the last copy's)
 *                                -> {"us": per step}
 *   bench rgpu kernel_d2h N      N x (cudaMemsetAsync 4 KiB to the round's byte, an empty kernel, cudaMemcpy
 *                                4 KiB back to pageable memory, checked): a plain program's kernel and
 *                                read-back -> {"us": per step}
 *   bench rgpu managed N         N x (the host writes a byte of a 4 KiB managed buffer, a value that
 *                                byte did not hold, an empty kernel, cudaStreamSynchronize, the host
 *                                reads it back): the host's writes go to the
 *                                device before the launch and the device's copy comes back after the
 *                                synchronisation, as managed memory's coherence needs -> {"us": per step}
 *   bench rgpu async N           N x cudaMemsetAsync, one sync      -> {"rate": calls/s}
 *   bench rgpu launch N          N x empty kernel (driver API)      -> {"rate": launches/s}
 *   bench rgpu attr N            N x cudaDeviceGetAttribute         -> {"us": per query}
 *   bench rgpu default N         N x cudaMemcpyAsync device to device, cudaMemcpyDefault (the kind
 *                                from the pointers, as CuPy copies), one sync -> {"rate": copies/s}
 *   bench rgpu h2d|d2h BYTES N   N x cudaMemcpy of BYTES            -> {"gbps": GB/s}
 *   bench rgpu h2d_pinned|d2h_pinned BYTES N   the same from/to cudaMallocHost memory
 *   bench raw URL sync|async N / h2d|d2h BYTES N                    the same over bare ZeroMQ
 *   bench rawserve BIND_URL      the raw server: prints its endpoint, then serves until a 'q'
 * Prints one JSON object. Timings are CLOCK_MONOTONIC around the loop, after one warm-up. */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

int cudaMalloc(void **p, size_t n);
int cudaFree(void *p);
int cudaFreeAsync(void *p, void *stream);
int cudaStreamCreate(void **stream);
int cudaMallocManaged(void **p, size_t n, unsigned flags);
int cudaMallocHost(void **p, size_t n);
int cudaMemcpy(void *dst, const void *src, size_t n, int kind);
int cudaMemsetAsync(void *p, int v, size_t n, void *stream);
int cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *stream);
int cudaStreamQuery(void *stream);
int cudaStreamSynchronize(void *stream);
int cudaDeviceGetAttribute(int *value, int attr, int device);
int cudaDeviceSynchronize(void);
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
int cuModuleLoadData(CUmodule *m, const void *image);
int cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name);
int cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned shmem, void *stream, void **params, void **extra);

static const char EMPTY_PTX[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry empty()\n{\n\tret;\n}\n";

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* pageable_step's input for copy `round`: the round's byte, each 4 KiB page beginning with its number
 * and the round's, so that a piece written at another offset, or left from another round, shows */
static void stamp(unsigned char *p, size_t bytes, long round) {
    memset(p, (int)(round & 0xff), bytes);
    for (size_t off = 0; off + 16 <= bytes; off += 4096) {
        uint64_t w[2] = {off >> 12, (uint64_t)round};
        memcpy(p + off, w, sizeof w);
    }
}

#define CK(x) do { int r_ = (x); if (r_) { fprintf(stderr, "%s -> %d\n", #x, r_); exit(1); } } while (0)

static void *filled(size_t n) {
    char *p = malloc(n);
    for (size_t i = 0; i < n; i += 4096) p[i] = (char)i;  /* touch every page before timing */
    memset(p, 7, n);
    return p;
}

static int run_rgpu(int argc, char **argv) {
    const char *what = argv[2];
    if (!strcmp(what, "attr")) {  /* a device fact: the multiprocessor count (cudaDevAttrMultiProcessorCount) */
        long n = atol(argv[3]);
        int v = 0;
        CK(cudaDeviceGetAttribute(&v, 16, 0));
        double t0 = now();
        for (long i = 0; i < n; i++) CK(cudaDeviceGetAttribute(&v, 16, 0));
        printf("{\"us\": %.4f, \"n\": %ld}\n", (now() - t0) / n * 1e6, n);
        return 0;
    }
    if (!strcmp(what, "ssync") || !strcmp(what, "launch_sync") || !strcmp(what, "malloc_free") ||
        !strcmp(what, "clear_copy_launch_sync") || !strcmp(what, "pinned_step") || !strcmp(what, "kernel_d2h") ||
        !strcmp(what, "free_after_launch") || !strcmp(what, "item_step")) {
        long n = atol(argv[3]);
        CUfunction fn = NULL;
        void *buf = NULL;
        unsigned char *pin = NULL;
        unsigned char out[4096];
        if (what[0] == 'c' || what[0] == 'p' || what[0] == 'k' || what[0] == 'i') CK(cudaMalloc(&buf, 8192));
        if (what[0] == 'p' || what[0] == 'i') CK(cudaMallocHost((void **)&pin, 8192));
        if (what[0] == 'l' || what[0] == 'c' || what[0] == 'p' || what[0] == 'k' || what[0] == 'f' || what[0] == 'i') {
            CUmodule m;
            CK(cuModuleLoadData(&m, EMPTY_PTX));
            CK(cuModuleGetFunction(&fn, m, "empty"));
        }
        CK(cudaStreamSynchronize(0));
        for (int warm = 0; warm < 2; warm++) {
            long k = warm ? n : n / 10 + 1;
            double t0 = now();
            for (long i = 0; i < k; i++) {
                if (what[0] == 's') {
                    CK(cudaStreamSynchronize(0));
                } else if (what[0] == 'l') {
                    CK(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL));
                    CK(cudaStreamSynchronize(0));
                } else if (what[0] == 'p') { /* a batch in from pinned memory, a kernel, a result out to it, a wait */
                    pin[0] = (unsigned char)i;
                    CK(cudaMemcpyAsync(buf, pin, 4096, 1, 0));
                    CK(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL));
                    CK(cudaMemcpyAsync(pin + 4096, buf, 4096, 2, 0));
                    CK(cudaStreamSynchronize(0));
                    if (pin[4096] != (unsigned char)i) {
                        fprintf(stderr, "pinned memory reads %d after a round of %d\n", pin[4096], (int)(i & 0xff));
                        return 1;
                    }
                } else if (what[0] == 'k') { /* a buffer set, a kernel, then the result read back with
                                              * cudaMemcpy (a plain program's step), and checked */
                    CK(cudaMemsetAsync(buf, (int)(i & 0xff), 4096, 0));
                    CK(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL));
                    CK(cudaMemcpy(out, buf, 4096, 2 /* cudaMemcpyDeviceToHost */));
                    if (out[0] != (unsigned char)i || out[4095] != (unsigned char)i) {
                        fprintf(stderr, "cudaMemcpy read %d, %d after a memset to %d\n", out[0], out[4095], (int)(i & 0xff));
                        return 1;
                    }
                } else if (what[0] == 'i') { /* PyTorch's loss.item(): a buffer set, a kernel, 8 bytes
                                              * copied back to pinned memory without blocking, a wait */
                    unsigned char *item = pin;
                    item[0] = item[7] = (unsigned char)(i + 1);
                    CK(cudaMemsetAsync(buf, (int)(i & 0xff), 4096, 0));
                    CK(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL));
                    CK(cudaMemcpyAsync(item, buf, 8, 2 /* cudaMemcpyDeviceToHost */, 0));
                    CK(cudaStreamSynchronize(0));
                    if (item[0] != (unsigned char)i || item[7] != (unsigned char)i) {
                        fprintf(stderr, "the item read %d, %d after a memset to %d\n", item[0], item[7], (int)(i & 0xff));
                        return 1;
                    }
                } else if (what[0] == 'c') { /* a buffer cleared, copied on the device, a kernel, a wait */
                    CK(cudaMemsetAsync(buf, 0, 4096, 0));
                    CK(cudaMemcpyAsync((char *)buf + 4096, buf, 4096, 3 /* cudaMemcpyDeviceToDevice */, 0));
                    CK(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL));
                    CK(cudaStreamSynchronize(0));
                } else if (what[0] == 'f') { /* buffers freed right after a kernel, no wait between:
                                              * cudaFree waits for the device's work first */
                    static void *st;
                    void *big, *other, *small;
                    if (!st) CK(cudaStreamCreate(&st));
                    CK(cudaMalloc(&big, 4 << 20));
                    CK(cudaMalloc(&other, 4 << 20));
                    CK(cudaMalloc(&small, 64 << 10));
                    CK(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, st, NULL, NULL));
                    CK(cudaFreeAsync(other, st)); /* freed where the stream reaches it */
                    CK(cudaFree(big));
                    CK(cudaFree(small));
                } else {
                    void *p;
                    CK(cudaMalloc(&p, 1 << 20));
                    CK(cudaFree(p));
                }
            }
            if (warm) printf("{\"us\": %.3f, \"n\": %ld}\n", (now() - t0) / k * 1e6, k);
        }
        return 0;
    }
    if (!strcmp(what, "pageable_step")) {
        long n = atol(argv[3]);
        size_t bytes = argc > 4 ? (size_t)atol(argv[4]) : 4096;
        long m = argc > 5 ? atol(argv[5]) : 1;
        unsigned char *in = malloc(bytes), *back = malloc(bytes);
        void *buf;
        CUmodule mod;
        CUfunction fn;
        if (!in || !back || !bytes || m < 1) return 1;
        CK(cuModuleLoadData(&mod, EMPTY_PTX));
        CK(cuModuleGetFunction(&fn, mod, "empty"));
        CK(cudaMalloc(&buf, bytes));
        CK(cudaStreamSynchronize(0));
        for (int warm = 0; warm < 2; warm++) {
            long k = warm ? n : n / 10 + 1;
            double t0 = now();
            for (long i = 0; i < k; i++) {
                for (long j = 0; j < m; j++) { /* the buffer is the program's again at once */
                    stamp(in, bytes, i + j);
                    CK(cudaMemcpyAsync(buf, in, bytes, 1 /* cudaMemcpyHostToDevice */, 0));
                }
                CK(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL));
                CK(cudaStreamSynchronize(0));
            }
            double us = (now() - t0) / k * 1e6;
            CK(cudaMemcpy(back, buf, bytes, 2 /* cudaMemcpyDeviceToHost */));
            stamp(in, bytes, k - 1 + m - 1);
            for (size_t j = 0; j < bytes; j++)
                if (back[j] != in[j]) {
                    fprintf(stderr, "the device holds %d at %zu after a round of %ld, not %d\n", back[j], j, k, in[j]);
                    return 1;
                }
            if (warm) printf("{\"us\": %.3f, \"n\": %ld}\n", us, k);
        }
        return 0;
    }
    if (!strcmp(what, "managed")) {
        long n = atol(argv[3]);
        unsigned char *m;
        CUmodule mod;
        CUfunction fn;
        CK(cuModuleLoadData(&mod, EMPTY_PTX));
        CK(cuModuleGetFunction(&fn, mod, "empty"));
        CK(cudaMallocManaged((void **)&m, 4096, 1 /* cudaMemAttachGlobal */));
        CK(cudaStreamSynchronize(0));
        /* steps so far, the warm-up's too: step t writes byte t % 4096 a value it does not hold (never 0,
         * the fresh buffer's; not its last write's, 4096 steps before), so that every step pushes */
        long t = 0;
        for (int warm = 0; warm < 2; warm++) {
            long k = warm ? n : n / 10 + 1;
            double t0 = now();
            for (long i = 0; i < k; i++, t++) {
                unsigned char v = (unsigned char)(1 + (t + t / 4096) % 255);
                m[t % 4096] = v;
                CK(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL));
                CK(cudaStreamSynchronize(0));
                if (m[t % 4096] != v) { /* the device's copy, as the host wrote it */
                    fprintf(stderr, "managed memory reads %d where the host wrote %d\n", m[t % 4096], (int)v);
                    return 1;
                }
            }
            if (warm) printf("{\"us\": %.3f, \"n\": %ld}\n", (now() - t0) / k * 1e6, k);
        }
        return 0;
    }
    if (!strcmp(what, "sync") || !strcmp(what, "async") || !strcmp(what, "launch") || !strcmp(what, "default")) {
        long n = atol(argv[3]);
        void *d, *d2;
        CK(cudaMalloc(&d, 4096));
        CK(cudaMalloc(&d2, 4096));
        CUfunction fn = NULL;
        if (!strcmp(what, "launch")) {
            CUmodule m;
            CK(cuModuleLoadData(&m, EMPTY_PTX));
            CK(cuModuleGetFunction(&fn, m, "empty"));
        }
        CK(cudaStreamQuery(0));
        for (int warm = 0; warm < 2; warm++) {
            long k = warm ? n : n / 10 + 1;
            double t0 = now();
            for (long i = 0; i < k; i++) {
                if (what[0] == 's') CK(cudaStreamQuery(0));
                else if (what[0] == 'a') CK(cudaMemsetAsync(d, (int)i, 4, 0));
                else if (what[0] == 'd') CK(cudaMemcpyAsync(d2, d, 256, 4 /* cudaMemcpyDefault */, 0));
                else CK(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL));
            }
            /* the async loops' work done, as raw's async loop ends with one round trip; a sync loop's
             * calls each waited already, and one more round trip here counted k + 1 over k (a whole
             * relay round trip over 33 of them at 30 ms) */
            if (what[0] != 's') CK(cudaDeviceSynchronize());
            double t = now() - t0;
            if (warm && what[0] == 's') printf("{\"us\": %.3f, \"n\": %ld}\n", t / k * 1e6, k);
            else if (warm) printf("{\"rate\": %.1f, \"n\": %ld}\n", k / t, k);
        }
        return 0;
    }
    size_t bytes = strtoull(argv[3], NULL, 10);
    long n = atol(argv[4]);
    void *h = NULL, *d;
    if (strstr(what, "_pinned")) {
        CK(cudaMallocHost(&h, bytes));
        memset(h, 0x5a, bytes);
    } else {
        h = filled(bytes);
    }
    CK(cudaMalloc(&d, bytes));
    int kind = !strncmp(what, "h2d", 3) ? 1 : 2;
    CK(cudaMemcpy(kind == 1 ? d : h, kind == 1 ? h : d, bytes, kind));  /* warm-up */
    double t0 = now();
    for (long i = 0; i < n; i++) CK(cudaMemcpy(kind == 1 ? d : h, kind == 1 ? h : d, bytes, kind));
    double t = now() - t0;
    printf("{\"gbps\": %.4f, \"n\": %ld}\n", (double)bytes * n / t / 1e9, n);
    return 0;
}

/* raw: frame 0 is one letter ('s' sync, 'a' async, 'h' bulk in, 'd' bulk out) plus 8 bytes of size */
static void *raw_sock;

static void raw_send(char op, uint64_t size, const void *bulk, size_t blen) {
    char hdr[9];
    hdr[0] = op;
    memcpy(hdr + 1, &size, 8);
    zmq_send(raw_sock, hdr, sizeof hdr, bulk ? ZMQ_SNDMORE : 0);
    if (bulk) {
        zmq_msg_t m;
        zmq_msg_init_data(&m, (void *)bulk, blen, NULL, NULL);  /* zero-copy, as rgpu sends */
        zmq_msg_send(&m, raw_sock, 0);
    }
}

/* Waits for a reply as rgpu's client does by default (libhook session.c, spin_for_reply: a context of
 * CUDA's default scheduling spins, yielding, for RGPU_SPIN_US, 200 µs unless set, then blocks), so
 * that a round trip's ratio compares the same wait. */
static void raw_wait(void) {
    static double spin_s = -1;
    if (spin_s < 0) {
        const char *e = getenv("RGPU_SPIN_US");
        spin_s = (e && *e ? atol(e) : 200) * 1e-6;
    }
    zmq_msg_t m;
    zmq_msg_init(&m);
    for (int more = 1; more;) {
        zmq_pollitem_t it = {raw_sock, 0, ZMQ_POLLIN, 0};
        for (double until = now() + spin_s; spin_s > 0 && now() < until; sched_yield())
            if (zmq_poll(&it, 1, 0) > 0) break;
        zmq_poll(&it, 1, 30000);  /* rgpu polls with a timeout too */
        if (zmq_msg_recv(&m, raw_sock, 0) < 0) { fprintf(stderr, "raw recv failed\n"); exit(1); }
        more = zmq_msg_more(&m);
    }
    zmq_msg_close(&m);
}

static int run_raw(int argc, char **argv) {
    void *ctx = zmq_ctx_new();
    raw_sock = zmq_socket(ctx, ZMQ_DEALER);
    int zero = 0;
    zmq_setsockopt(raw_sock, ZMQ_SNDHWM, &zero, sizeof zero);
    zmq_setsockopt(raw_sock, ZMQ_RCVHWM, &zero, sizeof zero);
    zmq_connect(raw_sock, argv[2]);
    const char *what = argv[3];
    raw_send('s', 0, NULL, 0);
    raw_wait();
    if (!strcmp(what, "sync") || !strcmp(what, "async")) {
        long n = atol(argv[4]);
        for (int warm = 0; warm < 2; warm++) {
            long k = warm ? n : n / 10 + 1;
            double t0 = now();
            for (long i = 0; i < k; i++) {
                if (what[0] == 's') { raw_send('s', 0, NULL, 0); raw_wait(); }
                else raw_send('a', 0, NULL, 0);
            }
            if (what[0] == 'a') { raw_send('s', 0, NULL, 0); raw_wait(); }
            double t = now() - t0;
            if (warm && what[0] == 's') printf("{\"us\": %.3f, \"n\": %ld}\n", t / k * 1e6, k);
            else if (warm) printf("{\"rate\": %.1f, \"n\": %ld}\n", k / t, k);
        }
    } else {
        size_t bytes = strtoull(argv[4], NULL, 10);
        long n = atol(argv[5]);
        void *h = filled(bytes);
        int in = !strcmp(what, "h2d");
        for (long i = -1; i < n; i++) {
            static double t0;
            if (i == 0) t0 = now();
            if (in) raw_send('h', bytes, h, bytes);
            else raw_send('d', bytes, NULL, 0);
            raw_wait();
            if (i == n - 1) printf("{\"gbps\": %.4f, \"n\": %ld}\n", (double)bytes * n / (now() - t0) / 1e9, n);
        }
    }
    zmq_close(raw_sock);
    zmq_ctx_term(ctx);
    return 0;
}

/* The raw server: a ROUTER with the session worker's options and nothing else. Frame 0 is an op letter
 * and a little-endian u64: 's' reply now, 'a' no reply, 'h' (a bulk frame follows) reply now, 'd' reply
 * with that many bytes (zero-copy, as the worker sends its data), 'q' quit. It receives and replies as
 * the worker does (the identity, then the parts; a reply without data as two sends) and polls for the
 * next message, yielding, for the worker's default --spin-us (200 us) before it blocks. */
static void no_free(void *data, void *hint) { (void)data, (void)hint; }

static int run_rawserve(const char *bind) {
    void *ctx = zmq_ctx_new();
    void *sock = zmq_socket(ctx, ZMQ_ROUTER);
    int zero = 0;
    zmq_setsockopt(sock, ZMQ_SNDHWM, &zero, sizeof zero);
    zmq_setsockopt(sock, ZMQ_RCVHWM, &zero, sizeof zero);
    if (zmq_bind(sock, bind) != 0) {
        fprintf(stderr, "bind %s: %s\n", bind, zmq_strerror(zmq_errno()));
        return 1;
    }
    char endpoint[256];
    size_t elen = sizeof endpoint;
    zmq_getsockopt(sock, ZMQ_LAST_ENDPOINT, endpoint, &elen);
    printf("%s\n", endpoint);
    fflush(stdout);
    unsigned char *payload = NULL;
    uint64_t have = 0;
    for (;;) {
        double until = now() + 200e-6;
        int ev = 0;
        size_t evlen = sizeof ev;
        while (zmq_getsockopt(sock, ZMQ_EVENTS, &ev, &evlen) == 0 && !(ev & ZMQ_POLLIN) && now() < until)
            sched_yield();
        zmq_msg_t ident, part;
        zmq_msg_init(&ident);
        zmq_msg_init(&part);
        if (zmq_msg_recv(&ident, sock, 0) < 0 || zmq_msg_recv(&part, sock, 0) < 0) return 1;
        unsigned char hdr[9] = {0};
        memcpy(hdr, zmq_msg_data(&part), zmq_msg_size(&part) < 9 ? zmq_msg_size(&part) : 9);
        while (zmq_msg_more(&part)) { /* the bulk frame of 'h' */
            zmq_msg_close(&part);
            zmq_msg_init(&part);
            zmq_msg_recv(&part, sock, 0);
        }
        zmq_msg_close(&part);
        char op = (char)hdr[0];
        if (op == 'a' || op == 'q') {
            zmq_msg_close(&ident);
            if (op == 'q') break;
            continue;
        }
        zmq_msg_send(&ident, sock, ZMQ_SNDMORE);
        if (op == 'd') {
            uint64_t size;
            memcpy(&size, hdr + 1, 8);
            if (size != have) {
                free(payload);
                payload = calloc(1, size ? size : 1);
                have = size;
            }
            zmq_send(sock, "ok", 2, ZMQ_SNDMORE);
            zmq_msg_t data;
            zmq_msg_init_data(&data, payload, size, no_free, NULL);
            zmq_msg_send(&data, sock, 0);
        } else {
            zmq_send(sock, "ok", 2, 0);
        }
    }
    zmq_close(sock);
    zmq_ctx_term(ctx);
    free(payload);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "rawserve")) return run_rawserve(argv[2]);
    if (argc >= 4 && !strcmp(argv[1], "rgpu")) return run_rgpu(argc, argv);
    if (argc >= 5 && !strcmp(argv[1], "raw")) return run_raw(argc, argv);
    fprintf(stderr, "usage: bench rgpu sync|async|launch N | rgpu h2d|d2h BYTES N | raw URL ...\n");
    return 2;
}
