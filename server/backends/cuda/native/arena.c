/* A session's device memory at addresses every worker can give it again (server/backends/cuda/arena.py).
 *
 * With unified addressing the driver draws cuMemAlloc's addresses from the process's own address
 * space, where the host's mappings live too; another worker's process may hold any of them (on the
 * lent H200 the target of a move held the source's first allocation's range every time). So a
 * session's allocations come instead from one range reserved at the same address in every worker
 * (cuMemAddressReserve with a hint far below the host's mappings), backed by the VMM calls: a move,
 * a failover or a restore reserves that range in the new worker and maps each allocation back where
 * it was.
 *
 * The range is cut into granules (the driver's VMM granularity, 2 MiB). An allocation larger than
 * half a granule takes whole granules of its own and one physical allocation; a smaller one is cut
 * from a slab, a granule with one physical allocation, in 512-byte units (cudaMalloc aligns to 256),
 * and the slab's memory goes back to the driver with its last allocation. Sizes are the caller's to
 * charge (the session's quota counts what the program asked for, as with cuMemAlloc). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef unsigned long long CUmemGenericAllocationHandle;
enum { OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2 };

/* CUmemAllocationProp and CUmemAccessDesc, as cuda.h lays them out */
typedef struct {
    int type, requestedHandleTypes;
    struct { int type, id; } location;
    void *win32HandleMetaData;
    struct { unsigned char compressionType, gpuDirectRDMACapable; unsigned short usage; unsigned char reserved[4]; } allocFlags;
} alloc_prop;
typedef struct { struct { int type, id; } location; int flags; } access_desc;

typedef CUresult (*reserve_fn)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
typedef CUresult (*addr_free_fn)(CUdeviceptr, size_t);
typedef CUresult (*create_fn)(CUmemGenericAllocationHandle *, size_t, const alloc_prop *, unsigned long long);
typedef CUresult (*release_fn)(CUmemGenericAllocationHandle);
typedef CUresult (*map_fn)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
typedef CUresult (*unmap_fn)(CUdeviceptr, size_t);
typedef CUresult (*access_fn)(CUdeviceptr, size_t, const access_desc *, size_t);

#define UNIT 512u
enum { FREE = 0, SLAB, HEAD, TAIL };

typedef struct {
    uint8_t kind;
    uint32_t count;                     /* HEAD: granules in the run */
    CUmemGenericAllocationHandle handle; /* HEAD, SLAB: the physical allocation */
    uint64_t *used, *starts;            /* SLAB: a bit per unit in use, a bit per allocation's first unit */
    uint32_t free_units;                /* SLAB */
} granule;

typedef struct rgpu_arena {
    reserve_fn reserve; addr_free_fn addr_free; create_fn create; release_fn release;
    map_fn map; unmap_fn unmap; access_fn access;
    int dev;
    CUdeviceptr base;
    uint64_t gran, ngran, units; /* units: a slab's */
    uint64_t low;                /* no free granule below it */
    uint64_t limit;              /* rgpu_arena_alloc's granules lie below it; the rest is the client's to
                                  * choose from (rgpu_arena_place: server/api/placed.py) */
    granule *g;
    int shareable;               /* physical memory made exportable as a file descriptor (CUDA IPC) */
    uint64_t *slabs;             /* the granules that are slabs, in no order */
    size_t nslabs, cap;
    size_t empty;                /* slabs with nothing in them: one is kept for the next allocation */
} rgpu_arena;

/* Whether `addr` lies in the arena's range. */
static int within(const rgpu_arena *a, uint64_t addr) { return addr >= a->base && addr - a->base < a->ngran * a->gran; }

static int bit(const uint64_t *b, uint64_t i) { return (int)((b[i / 64] >> (i % 64)) & 1); }
/* Bits [i, i + n) are handled a word at a time (a 1 MiB allocation is 2,048 units, and a program
 * that allocates and frees one in a loop would pay a loop over each of them twice per pair): the mask
 * of those in the word holding bit i, *take of them. */
static uint64_t word_mask(uint64_t i, uint64_t n, uint64_t *take) {
    uint64_t lo = i % 64;
    *take = 64 - lo < n ? 64 - lo : n;
    return (*take == 64 ? ~0ull : ((1ull << *take) - 1)) << lo;
}

static void set_bits(uint64_t *b, uint64_t i, uint64_t n, int on) {
    for (uint64_t take; n; i += take, n -= take) {
        uint64_t mask = word_mask(i, n, &take);
        if (on) b[i / 64] |= mask;
        else b[i / 64] &= ~mask;
    }
}

/* Whether any of units [i, i + n) is in use. */
static int any_used(const uint64_t *used, uint64_t i, uint64_t n) {
    for (uint64_t take; n; i += take, n -= take)
        if (used[i / 64] & word_mask(i, n, &take)) return 1;
    return 0;
}

/* The first unit at or past `u` that is free or starts an allocation (a->units when none): where
 * the allocation whose units run through u - 1 ends. */
static uint64_t run_end(const uint64_t *used, const uint64_t *starts, uint64_t u, uint64_t units) {
    while (u < units) {
        uint64_t w = u / 64, stop = (~used[w] | starts[w]) >> (u % 64);
        if (stop) {
            u += (uint64_t)__builtin_ctzll(stop);
            return u < units ? u : units;
        }
        u = (w + 1) * 64;
    }
    return units;
}

/* `f` is the driver's cuMemAddressReserve, cuMemAddressFree, cuMemCreate, cuMemRelease, cuMemMap,
 * cuMemUnmap, cuMemSetAccess; the range of `span` bytes goes at `hint` when it is free there, else
 * where the driver puts it (rgpu_arena_base says which); shareable: its memory made exportable as a file
 * descriptor where the driver allows it. NULL: the driver refused the range. */
rgpu_arena *rgpu_arena_open(void *const f[7], int dev, uint64_t gran, uint64_t hint, uint64_t span, int shareable) {
    if (!gran || gran % UNIT || span < gran) return NULL;
    rgpu_arena *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->reserve = (reserve_fn)f[0], a->addr_free = (addr_free_fn)f[1], a->create = (create_fn)f[2];
    a->release = (release_fn)f[3], a->map = (map_fn)f[4], a->unmap = (unmap_fn)f[5], a->access = (access_fn)f[6];
    a->dev = dev, a->gran = gran, a->ngran = span / gran, a->units = gran / UNIT, a->shareable = shareable;
    a->limit = a->ngran;
    a->g = calloc(a->ngran, sizeof *a->g);
    if (!a->g || a->reserve(&a->base, a->ngran * gran, gran, hint, 0) != OK) {
        free(a->g);
        free(a);
        return NULL;
    }
    return a;
}

uint64_t rgpu_arena_base(const rgpu_arena *a) { return a->base; }
uint64_t rgpu_arena_span(const rgpu_arena *a) { return a->ngran * a->gran; }

/* rgpu_arena_alloc chooses from the first `n` granules only: the granules past them are placed by the
 * session's client (at the addresses it chose, rgpu_arena_place), which must never find one of them
 * taken by an allocation the arena chose. */
void rgpu_arena_limit(rgpu_arena *a, uint64_t n) { a->limit = n < a->ngran ? n : a->ngran; }

/* Physical memory for granules [i, i + n), mapped there and made readable and writable. */
static CUresult back(rgpu_arena *a, uint64_t i, uint64_t n, CUmemGenericAllocationHandle *h) {
    alloc_prop prop;
    memset(&prop, 0, sizeof prop);
    prop.type = 1, prop.location.type = 1, prop.location.id = a->dev; /* PINNED, on this device */
    /* exportable as a POSIX file descriptor, so that CUDA IPC can share it (the driver's cuIpcGetMemHandle
     * exports only cuMemAlloc's memory); a driver that refuses that gets memory without it */
    prop.requestedHandleTypes = a->shareable ? 1 : 0;
    CUdeviceptr at = a->base + i * a->gran;
    size_t len = n * a->gran;
    CUresult rc = a->create(h, len, &prop, 0);
    if (rc != OK && a->shareable) {
        prop.requestedHandleTypes = 0;
        if ((rc = a->create(h, len, &prop, 0)) == OK) a->shareable = 0;
    }
    if (rc != OK) return rc;
    if ((rc = a->map(at, len, 0, *h, 0)) != OK) {
        a->release(*h);
        return rc;
    }
    access_desc d = {{1, a->dev}, 3}; /* CU_MEM_ACCESS_FLAGS_PROT_READWRITE */
    if ((rc = a->access(at, len, &d, 1)) != OK) {
        a->unmap(at, len);
        a->release(*h);
    }
    return rc;
}

static void unback(rgpu_arena *a, uint64_t i, uint64_t n, CUmemGenericAllocationHandle h) {
    a->unmap(a->base + i * a->gran, n * a->gran);
    a->release(h);
}

static CUresult take_run(rgpu_arena *a, uint64_t i, uint64_t n) {
    CUmemGenericAllocationHandle h;
    CUresult rc = back(a, i, n, &h);
    if (rc != OK) return rc;
    a->g[i].kind = HEAD, a->g[i].count = (uint32_t)n, a->g[i].handle = h;
    for (uint64_t k = 1; k < n; k++) a->g[i + k].kind = TAIL;
    return OK;
}

static CUresult make_slab(rgpu_arena *a, uint64_t i) {
    granule *s = &a->g[i];
    uint64_t words = (a->units + 63) / 64;
    s->used = calloc(words, sizeof *s->used);
    s->starts = calloc(words, sizeof *s->starts);
    CUresult rc = s->used && s->starts ? back(a, i, 1, &s->handle) : OUT_OF_MEMORY;
    if (rc != OK) {
        free(s->used), free(s->starts);
        s->used = s->starts = NULL;
        return rc;
    }
    if (a->nslabs == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 16;
        uint64_t *more = realloc(a->slabs, cap * sizeof *more);
        if (!more) {
            unback(a, i, 1, s->handle);
            free(s->used), free(s->starts);
            s->used = s->starts = NULL;
            return OUT_OF_MEMORY;
        }
        a->slabs = more, a->cap = cap;
    }
    a->slabs[a->nslabs++] = i;
    s->kind = SLAB, s->free_units = (uint32_t)a->units;
    a->empty++;
    return OK;
}

static void drop_slab(rgpu_arena *a, uint64_t i) {
    granule *s = &a->g[i];  /* an empty one, counted in a->empty or never claimed */
    unback(a, i, 1, s->handle);
    free(s->used), free(s->starts);
    memset(s, 0, sizeof *s);
    for (size_t k = 0; k < a->nslabs; k++)
        if (a->slabs[k] == i) {
            a->slabs[k] = a->slabs[--a->nslabs];
            break;
        }
    if (i < a->low) a->low = i;
}

/* The first unit of a run of `n` free units in slab `s`, or -1. A word of 64 units all in use or all
 * free is passed at once (a slab is 4,096 units: a program with many small live buffers would
 * otherwise pay a scan of each partly used slab bit by bit per allocation). */
static int64_t fit(const rgpu_arena *a, const granule *s, uint64_t n) {
    if (s->free_units < n) return -1;
    uint64_t run = 0; /* free units ending where the scan is */
    for (uint64_t u = 0; u < a->units;) {
        uint64_t word = s->used[u / 64];
        if (u % 64 == 0 && a->units - u >= 64 && (word == ~0ull || word == 0)) {
            if (word == ~0ull) {
                run = 0;
            } else if (run + 64 >= n) {
                return (int64_t)(u - run);
            } else {
                run += 64;
            }
            u += 64;
            continue;
        }
        run = (word >> (u % 64)) & 1 ? 0 : run + 1;
        if (run == n) return (int64_t)(u + 1 - n);
        u++;
    }
    return -1;
}

static void claim_units(rgpu_arena *a, granule *s, uint64_t u, uint64_t n) {
    if (s->free_units == a->units) a->empty--;
    set_bits(s->used, u, n, 1);
    set_bits(s->starts, u, 1, 1);
    s->free_units -= (uint32_t)n;
}

static int small(const rgpu_arena *a, uint64_t size) { return size <= a->gran / 2; }
CUresult rgpu_arena_alloc_aligned(rgpu_arena *a, uint64_t size, uint64_t align, uint64_t *addr);

/* As fit, for a run starting on a multiple of `step` units. */
static int64_t fit_aligned(const rgpu_arena *a, const granule *s, uint64_t n, uint64_t step) {
    if (s->free_units < n) return -1;
    for (uint64_t u = 0; u + n <= a->units; u += step)
        if (!any_used(s->used, u, n)) return (int64_t)u;
    return -1;
}

CUresult rgpu_arena_alloc(rgpu_arena *a, uint64_t size, uint64_t *addr) {
    return rgpu_arena_alloc_aligned(a, size, UNIT, addr);
}

/* An allocation whose address is a multiple of `align` (a power of two; UNIT and the granule always
 * are): managed memory starts on a host page the client maps it at (server/api/managed.py). */
CUresult rgpu_arena_alloc_aligned(rgpu_arena *a, uint64_t size, uint64_t align, uint64_t *addr) {
    if (!size || !align || (align & (align - 1)) || align > a->gran) return INVALID_VALUE;
    while (a->low < a->ngran && a->g[a->low].kind != FREE) a->low++;
    if (small(a, size)) {
        uint64_t n = (size + UNIT - 1) / UNIT, step = align > UNIT ? align / UNIT : 1;
        for (size_t k = 0; k < a->nslabs; k++) {
            uint64_t i = a->slabs[k];
            if (i >= a->limit) continue; /* the client's */
            int64_t u = step > 1 ? fit_aligned(a, &a->g[i], n, step) : fit(a, &a->g[i], n);
            if (u >= 0) {
                claim_units(a, &a->g[i], (uint64_t)u, n);
                *addr = a->base + i * a->gran + (uint64_t)u * UNIT;
                return OK;
            }
        }
        if (a->low >= a->limit) return OUT_OF_MEMORY;
        uint64_t fresh = a->low;
        CUresult rc = make_slab(a, fresh);
        if (rc != OK) return rc;
        claim_units(a, &a->g[fresh], 0, n);
        *addr = a->base + fresh * a->gran;
        return OK;
    }
    uint64_t n = (size + a->gran - 1) / a->gran, run = 0;
    for (uint64_t i = a->low; i < a->limit; i++) {
        run = a->g[i].kind == FREE ? run + 1 : 0;
        if (run == n) {
            uint64_t first = i + 1 - n;
            CUresult rc = take_run(a, first, n);
            if (rc == OK) *addr = a->base + first * a->gran;
            return rc;
        }
    }
    return OUT_OF_MEMORY;
}

/* An allocation of `size` at `addr` exactly, as the session had it where it ran before: INVALID_VALUE
 * when that place is taken here or is not one this arena hands out for that size. */
CUresult rgpu_arena_place(rgpu_arena *a, uint64_t addr, uint64_t size) {
    if (!size || !within(a, addr)) return INVALID_VALUE;
    uint64_t off = addr - a->base, i = off / a->gran;
    if (small(a, size)) {
        uint64_t u = (off % a->gran) / UNIT, n = (size + UNIT - 1) / UNIT;
        if (off % UNIT || u + n > a->units) return INVALID_VALUE;
        if (a->g[i].kind == FREE) {
            CUresult rc = make_slab(a, i);
            if (rc != OK) return rc;
        } else if (a->g[i].kind != SLAB) {
            return INVALID_VALUE;
        }
        if (any_used(a->g[i].used, u, n)) return INVALID_VALUE;
        claim_units(a, &a->g[i], u, n);
        return OK;
    }
    uint64_t n = (size + a->gran - 1) / a->gran;
    if (off % a->gran || i + n > a->ngran) return INVALID_VALUE;
    for (uint64_t k = i; k < i + n; k++)
        if (a->g[k].kind != FREE) return INVALID_VALUE;
    return take_run(a, i, n);
}

/* Whether [addr, addr + span) lies in the granules the client places in (past the limit). */
int rgpu_arena_lent(const rgpu_arena *a, uint64_t addr, uint64_t span) {
    uint64_t lo = a->base + a->limit * a->gran, hi = a->base + a->ngran * a->gran;
    return addr >= lo && addr < hi && span <= hi - addr;
}

/* Whether `addr` is the start of an allocation of this arena's. */
int rgpu_arena_holds(const rgpu_arena *a, uint64_t addr) {
    if (!within(a, addr)) return 0;
    uint64_t off = addr - a->base, i = off / a->gran;
    const granule *s = &a->g[i];
    if (s->kind == HEAD) return off % a->gran == 0;
    return s->kind == SLAB && off % UNIT == 0 && bit(s->starts, (off % a->gran) / UNIT);
}

CUresult rgpu_arena_free(rgpu_arena *a, uint64_t addr) {
    if (!rgpu_arena_holds(a, addr)) return INVALID_VALUE;
    uint64_t off = addr - a->base, i = off / a->gran;
    granule *s = &a->g[i];
    if (s->kind == HEAD) {
        uint64_t n = s->count;
        unback(a, i, n, s->handle);
        for (uint64_t k = i; k < i + n; k++) memset(&a->g[k], 0, sizeof a->g[k]);
        if (i < a->low) a->low = i;
        return OK;
    }
    /* a slab's allocation: its units run to the next allocation's first unit or the first free one */
    uint64_t u = (off % a->gran) / UNIT, end = run_end(s->used, s->starts, u + 1, a->units);
    set_bits(s->used, u, end - u, 0);
    set_bits(s->starts, u, 1, 0);
    s->free_units += (uint32_t)(end - u);
    if (s->free_units == a->units) {
        /* one empty slab stays mapped: a program that allocates and frees one small buffer over and
         * over (a benchmark, a loop's scratch) would otherwise pay the driver's four calls each time */
        if (a->empty) drop_slab(a, i);
        else a->empty++;
    }
    return OK;
}

/* The physical allocation holding `addr` (an address inside an allocation of this arena's): its driver
 * handle, where it is mapped, and its length; INVALID_VALUE for an address no allocation holds. */
CUresult rgpu_arena_physical(const rgpu_arena *a, uint64_t addr, uint64_t *handle, uint64_t *start, uint64_t *len) {
    if (!within(a, addr)) return INVALID_VALUE;
    uint64_t i = (addr - a->base) / a->gran;
    while (i > 0 && a->g[i].kind == TAIL) i--;
    const granule *s = &a->g[i];
    if (s->kind != HEAD && s->kind != SLAB) return INVALID_VALUE;
    *handle = s->handle, *start = a->base + i * a->gran, *len = (s->kind == HEAD ? s->count : 1) * a->gran;
    return OK;
}

int rgpu_arena_shareable(const rgpu_arena *a) { return a->shareable; }

/* Everything unmapped and released, and the range given back to the driver. */
void rgpu_arena_close(rgpu_arena *a) {
    if (!a) return;
    for (uint64_t i = 0; i < a->ngran; i++) {
        if (a->g[i].kind == HEAD) unback(a, i, a->g[i].count, a->g[i].handle);
        else if (a->g[i].kind == SLAB) unback(a, i, 1, a->g[i].handle);
        free(a->g[i].used), free(a->g[i].starts);
    }
    a->addr_free(a->base, a->ngran * a->gran);
    free(a->slabs);
    free(a->g);
    free(a);
}
