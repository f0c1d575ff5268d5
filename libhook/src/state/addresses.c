/* The address registry: "is this device memory, and whose? pinned host memory, in which segment?
 * managed memory, attached where?" answered in one lookup, with no round trip, from what the modules
 * that make each kind of memory register here. A copy (memcpy.c) asks once for each side; so do
 * cudaPointerGetAttributes (pointer.c), a cross-device copy (peer.c) and a free (managed.c).
 *
 * Device allocations, per device. Without them each of those asks the servers, one sync call per
 * pointer and device, and a program with two GPUs paid two round trips for every device-to-device
 * copy. Entries come from the calls whose records say `allocates` (cudaMalloc, cuMemAlloc, the pitched
 * ones) and go with those that say `frees` (the async frees, cudaDeviceReset: every entry of the
 * device), and with cudaFree/cuMemFree (managed.c). Only a hit is an answer: memory made any other
 * way (pools, graphs, module globals, virtual memory, IPC) is not here, and a miss asks the servers
 * as before. Forgetting too much only costs a round trip; so a free forgets first, and an entry
 * that a new allocation of its device overlaps (freed some way the table did not see) goes.
 * RGPU_ALLOC_TABLE=0 turns that table off.
 *
 * Pinned host ranges (hostmem.c): sorted by start, disjoint. Every copy looks its host side up, and a
 * program may pin thousands of buffers (a framework's caching host allocator), so lookups are a
 * binary search.
 *
 * Managed ranges (managed.c): few (each is a whole allocation), so a list, newest first. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addresses.h"
#include "rgpu_call.h"
#include "session.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* ---- what a program set or was told of an allocation (pointer.c) -------------------------- */

/* cuPointerSetAttribute's SYNC_MEMOPS, and the BUFFER_ID a query handed out, which CUDA keeps unique
 * for the life of the process: an allocation made later at a freed one's address is told a new one,
 * which is how registration caches (UCX, Open MPI) tell the two apart. Keyed by the allocation's
 * start; the frees this registry sees (device, managed and pinned memory, a device's reset) drop
 * the entry, before the server's answer, as they forget the rest. Few: only memory a program asked
 * about, so a sorted array. */
typedef struct {
    uint64_t base, id;
    int dev; /* -1: host memory */
    int sync_memops;
} fact;

static fact *facts;
static size_t nfacts, capfacts; /* nfacts read without the lock: 0 keeps every free's look free */
static uint64_t last_id;

static size_t fact_at(uint64_t base) { /* mu held: the first entry at or after base */
    size_t lo = 0, hi = nfacts;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (facts[mid].base < base) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* base's entry, made with the defaults when there is none (mu held); NULL: out of memory */
static fact *fact_of(uint64_t base, int dev) {
    size_t i = fact_at(base);
    if (i < nfacts && facts[i].base == base) return &facts[i];
    if (nfacts == capfacts) {
        size_t n = capfacts ? capfacts * 2 : 16;
        fact *f = realloc(facts, n * sizeof *f);
        if (!f) return NULL;
        facts = f, capfacts = n;
    }
    memmove(&facts[i + 1], &facts[i], (nfacts - i) * sizeof *facts);
    /* SYNC_MEMOPS reads 1 until set: rgpu's synchronous copies always complete before they return */
    facts[i] = (fact){base, ++last_id, dev, 1};
    __atomic_add_fetch(&nfacts, 1, __ATOMIC_RELEASE);
    return &facts[i];
}

/* The entry of the allocation at base goes (dev -2: every free the registry sees, so a search, not
 * a scan), or every entry of device dev (its reset). */
static void facts_drop(uint64_t base, int dev) {
    if (!__atomic_load_n(&nfacts, __ATOMIC_ACQUIRE)) return;
    pthread_mutex_lock(&mu);
    size_t kept = 0;
    if (dev == -2) {
        size_t i = fact_at(base);
        kept = nfacts;
        if (i < nfacts && facts[i].base == base) {
            memmove(&facts[i], &facts[i + 1], (nfacts - i - 1) * sizeof *facts);
            kept--;
        }
    } else {
        for (size_t i = 0; i < nfacts; i++)
            if (facts[i].dev != dev) facts[kept++] = facts[i];
    }
    __atomic_store_n(&nfacts, kept, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&mu);
}

uint64_t rgpu_addr_buffer_id(uint64_t base, int dev) {
    pthread_mutex_lock(&mu);
    fact *f = fact_of(base, dev);
    uint64_t id = f ? f->id : 0;
    pthread_mutex_unlock(&mu);
    return id;
}

int rgpu_addr_sync_memops(uint64_t base) {
    int on = 1;
    if (!__atomic_load_n(&nfacts, __ATOMIC_ACQUIRE)) return on;
    pthread_mutex_lock(&mu);
    size_t i = fact_at(base);
    if (i < nfacts && facts[i].base == base) on = facts[i].sync_memops;
    pthread_mutex_unlock(&mu);
    return on;
}

int rgpu_addr_set_sync_memops(uint64_t base, int dev, int on) {
    pthread_mutex_lock(&mu);
    fact *f = fact_of(base, dev);
    if (f) f->sync_memops = on;
    pthread_mutex_unlock(&mu);
    return f ? RGPU_SUCCESS : RGPU_OUT_OF_MEMORY;
}

/* ---- device allocations ------------------------------------------------------------------- */

typedef struct { uint64_t base, end; } range;

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
 * the servers are asked), the allocation's start and end. */
static int find_alloc(uint64_t p, int *dev, uint64_t *base, uint64_t *end) {
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
            if (end) *end = table[d][i].end;
            pthread_mutex_unlock(&mu);
            return 1;
        }
    }
    pthread_mutex_unlock(&mu);
    return 0;
}

int rgpu_allocs_find(uint64_t p, int *dev, uint64_t *base) { return find_alloc(p, dev, base, NULL); }

/* The allocation that starts at `base` on device dev (-1: on any device) is gone, or going. */
void rgpu_allocs_forget(int dev, uint64_t base) {
    facts_drop(base, -2);
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
    facts_drop(0, dev);
    pthread_mutex_lock(&mu);
    count[dev] = 0;
    pthread_mutex_unlock(&mu);
    if (rgpu_placed_drop) rgpu_placed_drop(dev); /* and the placements' mirror: the worker is asked again */
}

/* ---- pinned host ranges ------------------------------------------------------------------- */

static rgpu_host_range *pins;
static size_t npins, pincap;

static uintptr_t end_of(const rgpu_host_range *e) { return e->p + (e->n ? e->n : 1); }

/* The first entry starting after p (mu held). */
static size_t pin_after(uintptr_t p) {
    size_t lo = 0, hi = npins;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pins[mid].p <= p) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Index of the range holding p, or -1 (mu held). */
static long pin_find(uintptr_t p) {
    size_t i = pin_after(p);
    return i > 0 && p < end_of(&pins[i - 1]) ? (long)(i - 1) : -1;
}

int rgpu_pinned_add(const rgpu_host_range *e) {
    pthread_mutex_lock(&mu);
    size_t i = pin_after(e->p);
    if ((i > 0 && e->p < end_of(&pins[i - 1])) || (i < npins && pins[i].p < e->p + (e->n ? e->n : 1))) {
        pthread_mutex_unlock(&mu);
        return cudaErrorHostMemoryAlreadyRegistered; /* part of it is pinned already */
    }
    if (npins == pincap) {
        size_t c = pincap ? pincap * 2 : 64;
        rgpu_host_range *t = realloc(pins, c * sizeof *t);
        if (!t) { pthread_mutex_unlock(&mu); return RGPU_OUT_OF_MEMORY; }
        pins = t, pincap = c;
    }
    memmove(&pins[i + 1], &pins[i], (npins - i) * sizeof *pins);
    pins[i] = *e;
    __atomic_add_fetch(&npins, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&mu);
    return RGPU_SUCCESS;
}

int rgpu_pinned_take(uintptr_t p, int registered, rgpu_host_range *out) {
    facts_drop(p, -2);
    pthread_mutex_lock(&mu);
    long i = pin_find(p);
    int ok = i >= 0 && pins[i].p == p && pins[i].registered == registered;
    if (ok) {
        if (out) *out = pins[i];
        memmove(&pins[i], &pins[i + 1], (npins - 1 - (size_t)i) * sizeof *pins);
        __atomic_sub_fetch(&npins, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&mu);
    return ok;
}

int rgpu_pinned_get(const void *p, rgpu_host_range *out) {
    if (!__atomic_load_n(&npins, __ATOMIC_RELAXED)) return 0;
    pthread_mutex_lock(&mu);
    long i = pin_find((uintptr_t)p);
    if (i >= 0 && out) *out = pins[i];
    pthread_mutex_unlock(&mu);
    return i >= 0;
}

int rgpu_pinned_pages_taken(uintptr_t lo, uintptr_t hi) {
    int hit = 0;
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < npins && !hit; i++) {
        const rgpu_pinseg *g = pins[i].seg;
        uintptr_t a = g && g->adopted ? (uintptr_t)g->adopted : pins[i].p;
        uintptr_t b = g && g->adopted ? a + g->adopted_len : end_of(&pins[i]);
        hit = a < hi && lo < b;
    }
    pthread_mutex_unlock(&mu);
    return hit;
}

void rgpu_pinned_each_segment(void (*fn)(rgpu_pinseg *)) {
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < npins; i++)
        if (pins[i].seg) fn(pins[i].seg);
    pthread_mutex_unlock(&mu);
}

/* The pinned answer for [p, +n) (mu held): 1 when p is pinned. */
static int pinned_at(uintptr_t p, size_t n, rgpu_addr *a) {
    long i = pin_find(p);
    if (i < 0) return 0;
    a->kind = RGPU_ADDR_PINNED;
    a->pinned = pins[i];
    a->base = pins[i].p, a->size = pins[i].n;
    a->within = p + n <= pins[i].p + pins[i].n;
    if (a->within && pins[i].seg) a->seg_off = RGPU_SHM_DATA + pins[i].lead + (p - pins[i].p);
    return 1;
}

int rgpu_pinned_whole(const void *p, size_t n) {
    if (!__atomic_load_n(&npins, __ATOMIC_RELAXED)) return 0;
    rgpu_addr a = {0};
    pthread_mutex_lock(&mu);
    int ok = pinned_at((uintptr_t)p, n, &a) && a.within;
    pthread_mutex_unlock(&mu);
    return ok;
}

/* ---- managed ranges ----------------------------------------------------------------------- */

typedef struct managed_range {
    uint64_t base;
    size_t size;
    int dev, host_side;
    struct managed_range *next;
} managed_range;

static managed_range *managed;
static int nmanaged; /* read without the lock: 0 keeps every copy's look free */

void rgpu_managed_note(uint64_t base, size_t size, int dev, int host_side) {
    managed_range *m = malloc(sizeof *m);
    if (!m) return;
    *m = (managed_range){base, size, dev, host_side, NULL};
    pthread_mutex_lock(&mu);
    m->next = managed;
    managed = m;
    __atomic_add_fetch(&nmanaged, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&mu);
}

void rgpu_managed_attached(uint64_t base, int host_side) {
    pthread_mutex_lock(&mu);
    for (managed_range *m = managed; m; m = m->next)
        if (m->base == base) { m->host_side = host_side; break; }
    pthread_mutex_unlock(&mu);
}

void rgpu_managed_forget(uint64_t base) {
    facts_drop(base, -2);
    pthread_mutex_lock(&mu);
    for (managed_range **link = &managed; *link; link = &(*link)->next)
        if ((*link)->base == base) {
            managed_range *m = *link;
            *link = m->next;
            free(m);
            __atomic_sub_fetch(&nmanaged, 1, __ATOMIC_RELEASE);
            break;
        }
    pthread_mutex_unlock(&mu);
}

/* The managed answer for [p, +n) (mu held): 1 when p is managed memory. */
static int managed_at(uint64_t p, size_t n, rgpu_addr *a) {
    for (managed_range *m = managed; m; m = m->next)
        if (p >= m->base && p < m->base + m->size) {
            a->kind = RGPU_ADDR_MANAGED;
            a->dev = m->dev, a->base = m->base, a->size = m->size;
            a->within = p + n <= m->base + m->size;
            a->host_side = m->host_side;
            return 1;
        }
    return 0;
}

int rgpu_managed_side(const void *p) {
    if (!__atomic_load_n(&nmanaged, __ATOMIC_ACQUIRE)) return 0;
    rgpu_addr a = {0};
    pthread_mutex_lock(&mu);
    int hit = managed_at((uint64_t)(uintptr_t)p, 1, &a);
    pthread_mutex_unlock(&mu);
    return !hit ? 0 : a.host_side ? 2 : 1;
}

/* ---- the one question --------------------------------------------------------------------- */

void rgpu_addr_of(const void *p, size_t n, rgpu_addr *a) {
    memset(a, 0, sizeof *a);
    a->dev = -1;
    uintptr_t u = (uintptr_t)p;
    int any_managed = __atomic_load_n(&nmanaged, __ATOMIC_ACQUIRE), any_pinned = __atomic_load_n(&npins, __ATOMIC_RELAXED);
    if (any_managed || any_pinned) {
        pthread_mutex_lock(&mu);
        int hit = (any_managed && managed_at(u, n, a)) || (any_pinned && pinned_at(u, n, a));
        pthread_mutex_unlock(&mu);
        if (hit) return;
    }
    int dev;
    uint64_t base, end;
    if (find_alloc(u, &dev, &base, &end)) {
        a->kind = RGPU_ADDR_DEVICE;
        a->dev = dev, a->base = base, a->size = end - base;
        a->within = u + n <= end;
    }
}
