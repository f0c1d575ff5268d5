/* A session's device memory charged to its GPU and its lease's vGPU, for the worker's compiled serving
 * loop (serve.c, the cuda backend's allocations in copies.c): GpuShared.reserve (server/workers.py), line
 * for line, on the same shared arrays and under the same lock, so the supervisor, every session of the
 * GPU and every session of the lease see one counter, whichever side of a worker charged it. Change one,
 * change both (tests/unit/server/test_serve_quota.py runs them side by side, from processes at once). */
#define _GNU_SOURCE
#include <errno.h>
#include <semaphore.h>
#include <stdint.h>

typedef struct rgpu_quota {
    sem_t *lock;        /* GpuShared.lock (a multiprocessing Lock: a POSIX semaphore) */
    int64_t *usage;     /* bytes each slot's session holds */
    int64_t *peak;
    int64_t *quota;     /* per group: its vGPU's memory */
    int32_t *group;     /* the scheduler's: each slot's group, -1 none */
    int32_t slots, slot;
    int64_t capacity;   /* the worker's: what the GPU lends all its sessions */
} rgpu_quota;

/* GpuShared.reserve(slot, delta, capacity): 1 charged, 0 refused (it would exceed the GPU or the group's quota). */
int rgpu_quota_reserve(rgpu_quota *q, int64_t delta) {
    while (sem_wait(q->lock) != 0 && errno == EINTR) {
    }
    if (delta > 0) {
        int32_t g = q->group[q->slot];
        int64_t total = 0, used = 0;
        for (int32_t i = 0; i < q->slots; i++) {
            total += q->usage[i];
            if (q->group[i] == g) used += q->usage[i];
        }
        if (total + delta > q->capacity || (g >= 0 && used + delta > q->quota[g])) {
            sem_post(q->lock);
            return 0;
        }
    }
    q->usage[q->slot] += delta;
    if (q->usage[q->slot] > q->peak[q->slot]) q->peak[q->slot] = q->usage[q->slot];
    sem_post(q->lock);
    return 1;
}
