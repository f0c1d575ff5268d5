/* The device allocations this program made, per device, so that "is this device memory, and
 * whose?" costs no round trip: cudaMemcpyDefault's direction (memcpy.c), whether a device-to-device
 * copy crosses devices (peer.c), cudaPointerGetAttributes (pointer.c) and which server a cudaFree
 * goes to (managed.c). Without it each of those asks the servers, one sync call per pointer and
 * device, and a program with two GPUs paid two round trips for every device-to-device copy.
 *
 * Entries come from the calls whose records say `allocates` (cudaMalloc, cuMemAlloc, the pitched
 * ones) and go with those that say `frees` (the async frees, cudaDeviceReset: every entry of the
 * device), and with cudaFree/cuMemFree (managed.c). Only a hit is an answer: memory made any other
 * way (pools, graphs, module globals, virtual memory, IPC) is not here, and a miss asks the servers
 * as before. Forgetting too much only costs a round trip; so a free forgets first, and an entry
 * that a new allocation of its device overlaps (freed some way the table did not see) goes.
 * RGPU_ALLOC_TABLE=0 turns the table off. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rgpu_call.h"
#include "session.h"

typedef struct { uint64_t base, end; } range;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static range *table[RGPU_MAX_DEVICES]; /* sorted by base, no overlaps */
static size_t count[RGPU_MAX_DEVICES], cap[RGPU_MAX_DEVICES];
static int state; /* 0 unread, 1 on, -1 off */

static int on(void) {
    int s = __atomic_load_n(&state, __ATOMIC_RELAXED);
    if (!s) {
        const char *v = getenv("RGPU_ALLOC_TABLE");
        s = v && !strcmp(v, "0") ? -1 : 1;
        __atomic_store_n(&state, s, __ATOMIC_RELAXED);
    }
    return s > 0;
}

/* The index of the first entry whose end is past p (count if none). */
static size_t first_after(int dev, uint64_t p) {
    size_t lo = 0, hi = count[dev];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (table[dev][mid].end <= p) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Another device whose live allocation overlaps [base, end) (-1: none). In one CUDA process every
 * device's memory has addresses of its own; rgpu's devices are other processes, often on other hosts,
 * and nothing but their servers' choices keeps their addresses apart (the software GPU spreads them
 * by server; a real GPU's driver by its own layout). */
static int overlapped_elsewhere(int dev, uint64_t base, uint64_t end) {
    for (int d = 0; d < RGPU_MAX_DEVICES; d++) {
        if (d == dev) continue;
        size_t i = first_after(d, base);
        if (i < count[d] && table[d][i].base < end) return d;
    }
    return -1;
}

void rgpu_allocs_note(int dev, uint64_t base, size_t size) {
    if (!on() || dev < 0 || dev >= RGPU_MAX_DEVICES || !size || base + size < base) return;
    pthread_mutex_lock(&mu);
    size_t i = first_after(dev, base), j = i;
    while (j < count[dev] && table[dev][j].base < base + size) j++; /* [i, j): stale, overlapped */
    if (i == j && count[dev] == cap[dev]) {
        size_t n = cap[dev] ? cap[dev] * 2 : 64;
        range *t = realloc(table[dev], n * sizeof *t);
        if (!t) { pthread_mutex_unlock(&mu); return; } /* not noted: the servers answer for it */
        table[dev] = t, cap[dev] = n;
    }
    range *t = table[dev];
    if (i == j) { /* nothing overlapped: room at i */
        memmove(t + i + 1, t + i, (count[dev] - i) * sizeof *t);
        count[dev]++;
    } else { /* the new entry takes slot i, the rest of [i, j) go */
        memmove(t + i + 1, t + j, (count[dev] - j) * sizeof *t);
        count[dev] -= j - i - 1;
    }
    t[i] = (range){base, base + size};
    int other = overlapped_elsewhere(dev, base, base + size);
    pthread_mutex_unlock(&mu);
    static int warned;
    if (other >= 0 && !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
        rgpu_log(RGPU_LOG_WARN, "devices %d and %d gave out the same addresses (0x%llx): their servers' address "
                 "spaces overlap, so copies between them and pointer queries cannot tell their memory apart "
                 "(each device's own memory is looked for on the current device first)", other, dev,
                 (unsigned long long)base);
}

/* 1 when p lies in an allocation of the table: its device (the current one's looked at first, as
 * the servers are asked) and the allocation's start. */
int rgpu_allocs_find(uint64_t p, int *dev, uint64_t *base) {
    if (!on()) return 0;
    int cur = rgpu_current_device(), n = rgpu_device_count();
    if (n > RGPU_MAX_DEVICES) n = RGPU_MAX_DEVICES;
    pthread_mutex_lock(&mu);
    for (int k = 0; k < n; k++) {
        int d = k == 0 ? cur : (k <= cur ? k - 1 : k);
        if (d < 0 || d >= RGPU_MAX_DEVICES) continue;
        size_t i = first_after(d, p);
        if (i < count[d] && table[d][i].base <= p) {
            if (dev) *dev = d;
            if (base) *base = table[d][i].base;
            pthread_mutex_unlock(&mu);
            return 1;
        }
    }
    pthread_mutex_unlock(&mu);
    return 0;
}

/* The allocation that starts at `base` on device dev (-1: on any device) is gone, or going. */
void rgpu_allocs_forget(int dev, uint64_t base) {
    if (!on()) return;
    pthread_mutex_lock(&mu);
    for (int d = 0; d < RGPU_MAX_DEVICES; d++) {
        if (dev >= 0 && d != dev) continue;
        size_t i = first_after(d, base);
        if (i < count[d] && table[d][i].base == base) {
            memmove(table[d] + i, table[d] + i + 1, (count[d] - i - 1) * sizeof *table[d]);
            count[d]--;
        }
    }
    pthread_mutex_unlock(&mu);
}

/* Every allocation of device dev is gone (cudaDeviceReset). */
void rgpu_allocs_drop(int dev) {
    if (dev < 0 || dev >= RGPU_MAX_DEVICES) return;
    pthread_mutex_lock(&mu);
    count[dev] = 0;
    pthread_mutex_unlock(&mu);
}
