/* The scheduler's uncontended path, for the worker's compiled serving loop (serve.c): taking the GPU
 * for a launch-and-wait step when no other session of the GPU wants it, and giving it back after,
 * on the same shared memory and under the same lock as server/sched.py's GpuScheduler.
 *
 * Policy stays Python's. This takes the GPU only where GpuScheduler.acquire would take it at once
 * and Session.hold_for_step would let the compiled step run: nobody else waiting or between two runs
 * of kernels (`contended`), nobody holding it, this session's group not throttled by its limit.
 * Anything else and it changes nothing and says no: the worker's Python path then decides, waits and
 * shares, as before. The give-back is GpuScheduler.release, whole; if someone started waiting
 * meanwhile, the caller has Python notify the condition (its wake-up is Python's). Each field is
 * GpuScheduler's and each step here follows its Python line (sched.py): change one, change both
 * (tests/unit/server/test_serve_sched.py runs them side by side). */
#define _GNU_SOURCE
#include <errno.h>
#include <semaphore.h>
#include <stdint.h>
#include <time.h>

typedef struct {
    sem_t *lock;           /* the condition's lock (a multiprocessing Lock: a POSIX semaphore) */
    int32_t *busy;
    int8_t *waiting;
    double *device_time;
    int64_t *kernels;
    double *last;
    int32_t *group;
    double *weight, *limit, *vtime, *ready_at;
    int32_t *members;
    int32_t *hi;
    int32_t slot;
    double idle_s, launch_cost_s; /* sched.py's IDLE_S and LAUNCH_COST_S */
} rgpu_sched;

static double mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* time.monotonic's clock */
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void lock(rgpu_sched *s) {
    while (sem_wait(s->lock) != 0 && errno == EINTR) {
    }
}

static void unlock(rgpu_sched *s) { sem_post(s->lock); }

/* GpuScheduler._floor(exclude) */
static double floor_of(rgpu_sched *s, int32_t exclude) {
    int hi = *s->hi, any = 0;
    double lo = 0;
    for (int i = 0; i < hi; i++) {
        int32_t g = s->group[i];
        if (g == exclude || g == -1 || s->members[g] <= 0 || !(s->waiting[i] || *s->busy == i)) continue;
        if (!any || s->vtime[g] < lo) lo = s->vtime[g];
        any = 1;
    }
    if (any) return lo;
    double most = 0;
    any = 0;
    for (int g = 0; g < hi; g++) {
        if (g == exclude) continue;
        if (!any || s->vtime[g] > most) most = s->vtime[g];
        any = 1;
    }
    return any ? most : 0.0;
}

/* GpuScheduler.contended(slot), read under the lock here */
static int contended(rgpu_sched *s, double now) {
    int hi = *s->hi;
    for (int i = 0; i < hi; i++)
        if (i != s->slot && s->group[i] >= 0 &&
            (s->waiting[i] || (s->kernels[i] && now - s->last[i] < s->idle_s)))
            return 1;
    return 0;
}

/* The GPU for this slot now, if GpuScheduler.acquire would give it at once and nobody else wants it
 * (Session.hold_for_step's test): 1 taken (busy is this slot), 0 not (nothing changed). */
int rgpu_sched_take(rgpu_sched *s) {
    lock(s);
    double now = mono();
    int32_t slot = s->slot, g = s->group[slot];
    if (g < 0 || *s->busy >= 0 || s->waiting[slot] || s->ready_at[g] > now || contended(s, now)) {
        unlock(s);
        return 0;
    }
    /* acquire: a slot not waiting that was idle re-enters at the others' level; then, the only
     * contender and eligible, _next names it: it runs */
    if (now - s->last[slot] > s->idle_s) {
        double f = floor_of(s, g);
        if (f > s->vtime[g]) s->vtime[g] = f;
    }
    *s->busy = slot;
    s->waiting[slot] = 0;
    unlock(s);
    return 1;
}

/* GpuScheduler.contended(slot) now, under the lock: before an async run's give-back, whose kernels may
 * still be running (a neighbour that wants the GPU is Python's: Session._release lets them finish). */
int rgpu_sched_contended(rgpu_sched *s) {
    lock(s);
    int c = contended(s, mono());
    unlock(s);
    return c;
}

/* GpuScheduler.release(slot, seconds, kernels): 1 when someone waits (Python notifies), else 0. */
int rgpu_sched_give(rgpu_sched *s, double seconds, int64_t kernels) {
    lock(s);
    int32_t slot = s->slot, g = s->group[slot];
    s->device_time[slot] += seconds;
    s->kernels[slot] += kernels;
    s->vtime[g] += (seconds + kernels * s->launch_cost_s) / s->weight[g];
    double lim = s->limit[g], now = mono();
    s->last[slot] = now;
    if (lim < 100.0) s->ready_at[g] = now + seconds * (100.0 / lim - 1.0);
    if (*s->busy == slot) *s->busy = -1;
    int waiting = 0, hi = *s->hi;
    for (int i = 0; i < hi; i++) waiting |= s->waiting[i] != 0;
    unlock(s);
    return waiting;
}
