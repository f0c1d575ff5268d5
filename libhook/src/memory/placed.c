/* cudaMalloc and cuMemAlloc (and the pitched ones) without a round trip (server/api/placed.py says the
 * worker's half).
 *
 * The session's device lends this process a range of device addresses no allocation the worker
 * chooses ever takes, and a spare of the quota charged ahead. An allocation is laid out here, in a
 * mirror of the worker's arena (arena.c itself, compiled in with nothing behind it: the same rules
 * the worker's rgpu_arena_place checks), and its address sent: without waiting (rgpuMemPlace) while
 * the spare covers its charge, with a wait (rgpuMemPlaceGrant) when it does not, so that a quota
 * exceeded is this cudaMalloc's own out-of-memory, as on a GPU. A free (sync, as cudaFree is) gives the
 * charge back to the spare, capped as the worker caps it; the worker is asked again after the session
 * moved (its spare there is its own) and after cudaDeviceReset. A range that is full, a device
 * that lends none (span 0) or RGPU_PLACE=0: the worker chooses, as before (the generated call).
 *
 * One lock per device orders its placements and placed frees, so that the spare both sides keep is
 * changed in the order the worker sees the messages (a free on one device waits for no other's). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "addresses.h"
#include "rgpu_call.h"
#include "session.h"

/* arena.c (server/backends/cuda/native), the worker's allocator, laid over this process's mirror */
struct rgpu_arena;
struct rgpu_arena *rgpu_arena_open(void *const f[7], int dev, uint64_t gran, uint64_t hint, uint64_t span,
                                   int shareable);
int rgpu_arena_alloc(struct rgpu_arena *a, uint64_t size, uint64_t *addr);
int rgpu_arena_free(struct rgpu_arena *a, uint64_t addr);
void rgpu_arena_close(struct rgpu_arena *a);

/* its driver calls: the range is taken where the worker says it lies, and nothing is backed here */
static int reserve(unsigned long long *p, size_t size, size_t align, unsigned long long at, unsigned long long f) {
    *p = at;
    return 0;
}
static int addr_free(unsigned long long p, size_t size) { return 0; }
static int create(unsigned long long *h, size_t size, const void *prop, unsigned long long f) { *h = 0; return 0; }
static int release(unsigned long long h) { return 0; }
static int map(unsigned long long p, size_t size, size_t off, unsigned long long h, unsigned long long f) { return 0; }
static int unmap(unsigned long long p, size_t size) { return 0; }
static int access(unsigned long long p, size_t size, const void *desc, size_t n) { return 0; }

typedef struct { uint64_t addr, size; } placed_entry; /* addr 0: empty */

typedef struct {
    int state;           /* 0 not asked, 1 placing, -1 the worker chooses */
    unsigned moves;      /* the session's moves when it was asked */
    uint64_t base, span, granule, guard, unit, cap, spare, pitch_align;
    uint64_t live;       /* the charges of the allocations placed */
    struct rgpu_arena *mirror;
    placed_entry *table; /* the allocations placed, by address (open addressing) */
    size_t used, cap_entries;
} placement;

static placement places[RGPU_MAX_DEVICES];
static pthread_mutex_t mus[RGPU_MAX_DEVICES] = {[0 ... RGPU_MAX_DEVICES - 1] = PTHREAD_MUTEX_INITIALIZER};

/* The slot an address hashes to (allocations are 256-byte aligned: the low bits say nothing). */
static size_t home(const placement *p, uint64_t addr) {
    return (size_t)((addr >> 8) * 0x9E3779B97F4A7C15ull) & (p->cap_entries - 1);
}

static size_t slot_of(const placement *p, uint64_t addr) {
    size_t i = home(p, addr);
    while (p->table[i].addr && p->table[i].addr != addr) i = (i + 1) & (p->cap_entries - 1);
    return i;
}

/* Room in the table for one more entry, made before the worker hears of the allocation: -1 none. */
static int room(placement *p) {
    if (2 * (p->used + 1) > p->cap_entries) {
        size_t n = p->cap_entries ? 2 * p->cap_entries : 64;
        placed_entry *old = p->table, *t = calloc(n, sizeof *t);
        if (!t) return -1;
        size_t old_n = p->cap_entries;
        p->table = t, p->cap_entries = n;
        for (size_t i = 0; i < old_n; i++)
            if (old[i].addr) p->table[slot_of(p, old[i].addr)] = old[i];
        free(old);
    }
    return 0;
}

static void remember(placement *p, uint64_t addr, uint64_t size) {
    p->table[slot_of(p, addr)] = (placed_entry){addr, size};
    p->used++;
}

/* The size of the allocation placed at addr (0: none), taken out of the table when `take`. */
static uint64_t recall(placement *p, uint64_t addr, int take) {
    if (!p->cap_entries || !addr) return 0;
    size_t i = slot_of(p, addr);
    uint64_t size = p->table[i].size;
    if (!p->table[i].addr || !take) return p->table[i].addr ? size : 0;
    /* backward-shift deletion: the entries after it in its run move up into the hole */
    size_t mask = p->cap_entries - 1, j = i;
    p->table[i].addr = 0;
    for (;;) {
        j = (j + 1) & mask;
        if (!p->table[j].addr) break;
        if (((j - home(p, p->table[j].addr)) & mask) >= ((j - i) & mask)) {
            p->table[i] = p->table[j];
            p->table[j].addr = 0;
            i = j;
        }
    }
    p->used--;
    return size;
}

static void forget(placement *p) {
    if (p->mirror) rgpu_arena_close(p->mirror);
    free(p->table);
    *p = (placement){0};
}

static uint64_t charge_of(const placement *p, uint64_t size) {
    uint64_t c = (size + p->unit - 1) / p->unit * p->unit;
    return c < p->unit ? p->unit : c;
}

/* The three calls of the contract's records (protocol/contract/calls/memory.toml): face says whose
 * error a refusal is (cudaMalloc's or cuMemAlloc's). */
CUresult rgpuMemPlacement(int dev, cuuint64_t *base, cuuint64_t *span, cuuint64_t *granule,
                          cuuint64_t *guard, cuuint64_t *charge_unit, cuuint64_t *spare_cap,
                          cuuint64_t *spare, cuuint64_t *pitch_align) {
    rgpu_call c;
    rgpu_wire_rgpuMemPlacement(&c);
    c.dev = dev;
    int rc = rgpu_sync(&c);
    if (rc == 0)
        rgpu_wire_out_rgpuMemPlacement(&c, base, span, granule, guard, charge_unit, spare_cap, spare, pitch_align);
    rgpu_end(&c);
    return rc;
}

CUresult rgpuMemPlace(int face, int dev, CUdeviceptr addr, size_t size, size_t span) {
    rgpu_call c;
    rgpu_wire_rgpuMemPlace(&c, addr, size, span);
    c.dev = dev, c.face = face;
    return rgpu_async(&c);
}

CUresult rgpuMemPlaceGrant(int face, int dev, CUdeviceptr addr, size_t size, size_t span, size_t want,
                           cuuint64_t *spare) {
    rgpu_call c;
    rgpu_wire_rgpuMemPlaceGrant(&c, addr, size, span, want);
    c.dev = dev, c.face = face;
    int rc = rgpu_sync(&c);
    if (rc == 0) rgpu_wire_out_rgpuMemPlaceGrant(&c, spare);
    rgpu_end(&c);
    return rc;
}

/* Asks the worker where this device's session places (its lock held): after a move the range and the
 * spare are the new worker's; a range that moved elsewhere ends placing (the mirror's allocations lie
 * in the old one). */
static void ask(placement *p, int dev, rgpu_session *s) {
    cuuint64_t base = 0, span = 0, granule = 0, guard = 0, unit = 0, cap = 0, spare = 0, pitch_align = 0;
    int rc = rgpuMemPlacement(dev, &base, &span, &granule, &guard, &unit, &cap, &spare, &pitch_align);
    p->moves = __atomic_load_n(&s->moves, __ATOMIC_ACQUIRE);
    if (rc || !span || !granule || !unit || (p->mirror && (base != p->base || span != p->span))) {
        p->state = -1;
        return;
    }
    if (!p->mirror) {
        void *const f[7] = {(void *)reserve, (void *)addr_free, (void *)create, (void *)release,
                            (void *)map,     (void *)unmap,     (void *)access};
        p->mirror = rgpu_arena_open(f, dev, granule, base, span, 0);
        if (!p->mirror) {
            p->state = -1;
            return;
        }
    }
    p->base = base, p->span = span, p->granule = granule, p->guard = guard, p->unit = unit, p->cap = cap;
    p->spare = spare, p->pitch_align = pitch_align;
    p->state = 1;
}

static int wanted(void) {
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("RGPU_PLACE");
        on = !(e && e[0] == '0');
    }
    return on;
}

/* The calling thread's device's placement with its lock held, the worker asked where it places if it has
 * not been since the session last changed workers; NULL where the worker chooses (*dev: the device). */
static placement *placing(int face, int *dev) {
    if (!wanted() || rgpu_ensure_init()) return NULL;
    int d = rgpu_current_device();
    if (d < 0 || d >= RGPU_MAX_DEVICES) return NULL;
    if (face == RGPU_RUNTIME) rgpu_bind_runtime_context(d, 0);
    rgpu_session *s = rgpu_session_get(d);
    if (!s) return NULL;
    pthread_mutex_lock(&mus[d]);
    placement *p = &places[d];
    if (p->state == 0 || (p->state == 1 && __atomic_load_n(&s->moves, __ATOMIC_ACQUIRE) != p->moves)) ask(p, d, s);
    if (p->state != 1) {
        pthread_mutex_unlock(&mus[d]);
        return NULL;
    }
    *dev = d;
    return p;
}

/* `size` bytes placed (the lock held): 0 and *out, the call's error, or -1 where the range is full. */
static int place_locked(placement *p, int face, int dev, uint64_t size, uint64_t *out) {
    uint64_t addr, need = size + p->guard;
    if (need < size || room(p) || rgpu_arena_alloc(p->mirror, need, &addr) != 0) return -1;
    /* what of the range it takes: its units in a slab, or its whole granules (arena.c) */
    uint64_t step = need <= p->granule / 2 ? 512 : p->granule, span = (need + step - 1) / step * step;
    uint64_t charge = charge_of(p, size);
    int rc;
    if (charge <= p->spare) {
        rc = rgpuMemPlace(face, dev, addr, size, span);
        if (rc == 0) p->spare -= charge;
    } else {
        /* more spare, as much as the allocations placed so far (up to its cap): a program that
         * allocates once is charged exactly, one that allocates often soon sends without waiting */
        cuuint64_t spare = 0;
        rc = rgpuMemPlaceGrant(face, dev, addr, size, span, p->live < p->cap ? p->live : p->cap, &spare);
        if (rc == 0) p->spare = spare;
    }
    if (rc) {
        rgpu_arena_free(p->mirror, addr);
        return rc;
    }
    remember(p, addr, size);
    p->live += charge;
    *out = addr;
    return 0;
}

/* cudaMalloc / cuMemAlloc (face) of `size` bytes placed here: 0 and *out, the call's error, or -1 where
 * the worker chooses instead. */
static int place(int face, uint64_t size, uint64_t *out) {
    int dev;
    placement *p = size ? placing(face, &dev) : NULL;
    if (!p) return -1;
    int rc = place_locked(p, face, dev, size, out);
    pthread_mutex_unlock(&mus[dev]);
    if (rc == 0) rgpu_allocs_note(dev, *out, size);
    return rc;
}

/* cudaMallocPitch / cuMemAllocPitch of `height` rows of `width` bytes, each row rounded to the pitch
 * the worker's cudaMallocPitch rounds to (server/api/placed.py PITCH_ALIGN): as place, and *pitch. */
static int place_pitched(int face, uint64_t width, uint64_t height, uint64_t *out, uint64_t *pitch) {
    int dev;
    placement *p = width && height ? placing(face, &dev) : NULL; /* a zero size is the worker's refusal */
    if (!p) return -1;
    uint64_t a = p->pitch_align, row = a ? (width + a - 1) / a * a : 0;
    int rc = row < width || !row || height > UINT64_MAX / row ? -1 : place_locked(p, face, dev, row * height, out);
    pthread_mutex_unlock(&mus[dev]);
    if (rc == 0) {
        *pitch = row;
        rgpu_allocs_note(dev, *out, row * height);
    }
    return rc;
}

/* The free of an allocation placed here (sync, as cudaFree): 1 and *rc, or 0 when `addr` is not one. */
int rgpu_placed_free(int face, int dev, uint64_t addr, int *rc) {
    if (dev < 0 || dev >= RGPU_MAX_DEVICES) return 0;
    pthread_mutex_lock(&mus[dev]);
    placement *p = &places[dev];
    uint64_t size = p->state == 1 ? recall(p, addr, 0) : 0;
    if (!size) {
        pthread_mutex_unlock(&mus[dev]);
        return 0;
    }
    rgpu_call c;
    if (face == RGPU_RUNTIME) rgpu_wire_cudaFree(&c, addr);
    else rgpu_wire_cuMemFree_v2(&c, addr);
    c.dev = dev;
    *rc = rgpu_sync(&c);
    rgpu_end(&c);
    if (*rc == 0) {
        recall(p, addr, 1);
        rgpu_arena_free(p->mirror, addr);
        p->live -= charge_of(p, size);
        p->spare += charge_of(p, size);
        if (p->spare > p->cap) p->spare = p->cap; /* the worker gives the rest back to the quota */
    }
    pthread_mutex_unlock(&mus[dev]);
    return 1;
}

/* Every allocation of device dev is gone (cudaDeviceReset): the worker is asked again. */
void rgpu_placed_drop(int dev) {
    if (dev < 0 || dev >= RGPU_MAX_DEVICES) return;
    pthread_mutex_lock(&mus[dev]);
    forget(&places[dev]);
    pthread_mutex_unlock(&mus[dev]);
}

static int malloc_on_server(int face, uint64_t size, uint64_t *out) {
    rgpu_call c;
    if (face == RGPU_RUNTIME) rgpu_wire_cudaMalloc(&c, size);
    else rgpu_wire_cuMemAlloc_v2(&c, size);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        if (face == RGPU_RUNTIME) rgpu_wire_out_cudaMalloc(&c, out);
        else rgpu_wire_out_cuMemAlloc_v2(&c, out);
        if (*out) rgpu_allocs_note(c.dev, *out, size);
    }
    rgpu_end(&c);
    return rc;
}

static int alloc_any(int face, uint64_t size, uint64_t *out) {
    int rc = rgpu_capture_guard(face, NULL, 0);
    if (rc) return rc;
    rc = place(face, size, out);
    return rc == -1 ? malloc_on_server(face, size, out) : rc;
}

cudaError_t cudaMalloc(void **devPtr, size_t size) {
    if (devPtr == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    uint64_t a = 0;
    int rc = alloc_any(RGPU_RUNTIME, size, &a);
    if (rc == 0) *devPtr = (void *)(uintptr_t)a;
    return rc;
}

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize) {
    if (dptr == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    uint64_t a = 0;
    int rc = alloc_any(RGPU_DRIVER, bytesize, &a);
    if (rc == 0) *dptr = (CUdeviceptr)a;
    return rc;
}

static int pitched_on_server(int face, uint64_t width, uint64_t height, unsigned elem, uint64_t *out, uint64_t *pitch) {
    rgpu_call c;
    if (face == RGPU_RUNTIME) rgpu_wire_cudaMallocPitch(&c, width, height);
    else rgpu_wire_cuMemAllocPitch_v2(&c, width, height, elem);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        if (face == RGPU_RUNTIME) rgpu_wire_out_cudaMallocPitch(&c, out, pitch);
        else rgpu_wire_out_cuMemAllocPitch_v2(&c, out, pitch);
        if (*out) rgpu_allocs_note(c.dev, *out, (size_t)(*pitch * height));
    }
    rgpu_end(&c);
    return rc;
}

static int pitched_any(int face, uint64_t width, uint64_t height, unsigned elem, uint64_t *out, uint64_t *pitch) {
    int rc = rgpu_capture_guard(face, NULL, 0);
    if (rc) return rc;
    rc = place_pitched(face, width, height, out, pitch);
    return rc == -1 ? pitched_on_server(face, width, height, elem, out, pitch) : rc;
}

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height) {
    if (devPtr == NULL || pitch == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    uint64_t a = 0, p = 0;
    int rc = pitched_any(RGPU_RUNTIME, width, height, 0, &a, &p);
    if (rc == 0) *devPtr = (void *)(uintptr_t)a, *pitch = (size_t)p;
    return rc;
}

CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height,
                            unsigned int ElementSizeBytes) {
    if (dptr == NULL || pPitch == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    uint64_t a = 0, p = 0;
    int rc = pitched_any(RGPU_DRIVER, WidthInBytes, Height, ElementSizeBytes, &a, &p);
    if (rc == 0) *dptr = (CUdeviceptr)a, *pPitch = (size_t)p;
    return rc;
}
