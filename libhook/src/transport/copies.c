/* Large host copies shared out among a few persistent threads: the caller copies the first slice,
 * each worker one of the others, and the caller returns once all are in place. The same-host path
 * (copy_segment.c) copies every pageable byte of a large copy once, through the session segment, with
 * nothing else to do meanwhile; one thread's memcpy (6-8 GB/s on a GPU host) was what held it under the
 * driver's own pageable copies.
 *
 * One copy at a time: a caller that finds the pool busy (another session's thread) copies alone
 * rather than queue behind it. Workers start on the first large copy, sleep on a condition variable
 * when idle, and do not survive fork(): the child's pool starts afresh (pthread_atfork below), since
 * programs fork after using CUDA (PyTorch's DataLoader) and a child waiting on threads it does not have
 * would hang. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "copies.h"
#include "rgpu_call.h"

#define MAX_THREADS 16
/* Below this one thread is done about as soon as others would be awake. */
#define MIN_SPLIT (2u << 20)
/* Slices start on page boundaries of the destination: no page (nor cache line) written by two threads. */
#define SLICE_ALIGN 4096u
/* After a copy, workers (and a caller waiting for them) look for the next for this long before they
 * sleep: waking a sleeping thread can take tens of microseconds on a host whose idle cores sleep deep,
 * against ~130 µs for a 1 MiB slice of a 4 MiB pipelined chunk, and the chunks of one large copy follow
 * each other closely. They yield while they look, so that more threads than free cores (the session
 * worker copies too) cost little: on a two-core VM, 3 threads copying 64 MiB in 4 MiB chunks moved
 * 11.5-12.3 GB/s yielding, 7.7-8.4 spinning on `pause` (2 threads: 14-15, one: 8.5-9). There the spin
 * itself measured no better than sleeping at once; it is for hosts where waking costs more. Bounded, so
 * an idle pool costs nothing after it. */
#define SPIN_NS 100000

static struct {
    pthread_mutex_t use; /* held by the caller whose copy the pool is doing */
    pthread_mutex_t mu;  /* sleeping and waking */
    pthread_cond_t go, done;
    int workers;         /* started; 0 not yet, -1 none could be */
    uint64_t gen;        /* one more for each copy (atomic; written under mu) */
    int left;            /* workers yet to finish the current copy (atomic) */
    char *dst;
    const char *src;
    size_t cut[MAX_THREADS + 1]; /* slice i is [cut[i], cut[i + 1]); the caller's is 0 */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER};

int rgpu_copy_threads(void) {
    static int cached;
    int n = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (n) return n;
    const char *e = getenv("RGPU_COPY_THREADS");
    char *end = NULL;
    long t = e && *e ? strtol(e, &end, 10) : 0;
    if (e && *e && (*end || t < 1)) {
        rgpu_log(RGPU_LOG_WARN, "RGPU_COPY_THREADS=%s is not a whole number >= 1: using the default", e);
        t = 0;
    }
    if (t < 1) {
        /* a quarter of the CPUs this process may run on, at most 4: a CI machine of two cores copies
         * alone, a 16-core GPU host with 4 threads (memory bandwidth, not cores, is the limit past that) */
        cpu_set_t set;
        long cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
        t = cpus / 4;
        if (t > 4) t = 4;
        if (t < 1) t = 1;
    }
    if (t > MAX_THREADS) t = MAX_THREADS;
    __atomic_store_n(&cached, (int)t, __ATOMIC_RELAXED);
    return (int)t;
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Whether a copy after copy `seen` is posted within SPIN_NS. */
static int posted_soon(uint64_t seen) {
    uint64_t until = now_ns() + SPIN_NS;
    for (unsigned i = 1; __atomic_load_n(&pool.gen, __ATOMIC_ACQUIRE) == seen; i++) {
        if (i % 64 == 0 && now_ns() > until) return 0;
        sched_yield();
    }
    return 1;
}

/* Whether every worker is done with the current copy within SPIN_NS. */
static int done_soon(void) {
    uint64_t until = now_ns() + SPIN_NS;
    for (unsigned i = 1; __atomic_load_n(&pool.left, __ATOMIC_ACQUIRE); i++) {
        if (i % 64 == 0 && now_ns() > until) return 0;
        sched_yield();
    }
    return 1;
}

static void *worker(void *arg) {
    int w = (int)(intptr_t)arg;
    /* Workers start before the first copy of their process (rgpu_copy, under `use`), when gen is 0:
     * a worker that runs only after that copy was posted still sees it as new. */
    uint64_t seen = 0;
    for (;;) {
        if (!posted_soon(seen)) {
            pthread_mutex_lock(&pool.mu);
            while (__atomic_load_n(&pool.gen, __ATOMIC_ACQUIRE) == seen) pthread_cond_wait(&pool.go, &pool.mu);
            pthread_mutex_unlock(&pool.mu);
        }
        seen = __atomic_load_n(&pool.gen, __ATOMIC_ACQUIRE);
        memcpy(pool.dst + pool.cut[w], pool.src + pool.cut[w], pool.cut[w + 1] - pool.cut[w]);
        if (__atomic_sub_fetch(&pool.left, 1, __ATOMIC_ACQ_REL) == 0) {
            pthread_mutex_lock(&pool.mu);
            pthread_cond_signal(&pool.done);
            pthread_mutex_unlock(&pool.mu);
        }
    }
    return NULL;
}

/* In a forked child: only the forking thread exists, so no worker, and no copy in progress whatever
 * the locks' copied state says. */
static void forked_child(void) {
    pool.use = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    pool.mu = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    pool.go = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
    pool.done = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
    pool.workers = 0;
    pool.gen = 0;
    pool.left = 0;
}

static void at_fork(void) { pthread_atfork(NULL, NULL, forked_child); }

static void start(int threads) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, at_fork); /* handlers are inherited: a child's pool is reset by the same one */
    /* the program's signals stay with the program's threads */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&a, 256u << 10);
    int made = 0;
    for (pthread_t t; made < threads - 1; made++) {
        if (pthread_create(&t, &a, worker, (void *)(intptr_t)(made + 1)) != 0) break;
        pthread_setname_np(t, "rgpu-copy");
    }
    pthread_attr_destroy(&a);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pool.workers = made ? made : -1;
    rgpu_log(RGPU_LOG_INFO, "copy pool: %d threads copy large host buffers (RGPU_COPY_THREADS)", made + 1);
}

void rgpu_copy(void *dst, const void *src, size_t n) {
    int threads = n >= MIN_SPLIT ? rgpu_copy_threads() : 1;
    if (threads < 2 || pthread_mutex_trylock(&pool.use) != 0) {
        memcpy(dst, src, n);
        return;
    }
    if (pool.workers == 0) start(threads);
    int k = pool.workers;
    if (k < 1) {
        pthread_mutex_unlock(&pool.use);
        memcpy(dst, src, n);
        return;
    }
    uintptr_t d = (uintptr_t)dst;
    size_t per = n / (size_t)(k + 1);
    pool.cut[0] = 0;
    for (int i = 1; i <= k; i++) {
        size_t c = ((d + per * (size_t)i + SLICE_ALIGN - 1) & ~(uintptr_t)(SLICE_ALIGN - 1)) - d;
        pool.cut[i] = c > n ? n : c < pool.cut[i - 1] ? pool.cut[i - 1] : c;
    }
    pool.cut[k + 1] = n;
    pool.dst = dst;
    pool.src = src;
    __atomic_store_n(&pool.left, k, __ATOMIC_RELAXED);
    pthread_mutex_lock(&pool.mu);
    __atomic_store_n(&pool.gen, pool.gen + 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&pool.go);
    pthread_mutex_unlock(&pool.mu);
    memcpy(dst, src, pool.cut[1]);
    if (!done_soon()) {
        pthread_mutex_lock(&pool.mu);
        while (__atomic_load_n(&pool.left, __ATOMIC_ACQUIRE)) pthread_cond_wait(&pool.done, &pool.mu);
        pthread_mutex_unlock(&pool.mu);
    }
    pthread_mutex_unlock(&pool.use);
}
