/* The cuda backend's compiled copies: a host<->device copy through the session's shared segment, and a
 * memset, served by the worker's compiled serving loop (server/native/serve.c) exactly as the Python
 * path serves them (server/staging.py run_shm, server/api/memory.py _copy and _memset_2d,
 * server/backends/cuda/device.py copy_htod, copy_dtoh and memset), for the one shape that is common:
 * a message of one call, a copy with its data in one region of the segment (H2D) or room there for
 * it (D2H), or a memset, every argument one the Python path accepts; and a sync copy between device
 * memory and the program's pinned memory (server/staging.py run_pinned) of a segment the worker has
 * mapped and pinned here already, of up to PINNED_SYNC_MAX bytes. Anything else is Python's: more
 * calls in the message, bulk frames, staged copies, copies of REGISTER_MIN bytes or more through the
 * session segment (which register it with the device first), a range outside the allocations it knows, a
 * stream it does not know, a driver that refuses, and errors of every kind (their messages are
 * Python's). The calls before that one may be allocations the client placed (rgpuMemPlace, async:
 * server/api/placed.py), up to RGPU_PLACE_MAX of them: placed here, and undone if the last call is not one
 * the loop serves, so that Python then serves the whole message. Python keeps the policy (server/backends/cuda/copies.py): it says which call ids are
 * which, and tells the copier the device allocations the session makes and frees (device.py's
 * _allocs, a subset of what its range check knows: a range inside one of them is one Python accepts).
 *
 * A copy is served only while every stream of the session is done (rgpu_launcher_idle): the copy
 * queued then is the only work its wait waits for, so the wait here is as short as the copy, never
 * the long wait that Python's waiter makes while it keeps the worker's checks running. A copy that
 * fails once queued (a sticky error surfacing) comes back as Python's, which runs it again and
 * reports what the driver says: the data it moves is the same, and the client waits for the reply.
 *
 * The software GPU's worker uses the same copier while its device is idle (server/backends/sim/
 * idle_waits.py): no driver, its memory one mapping in the worker (rgpu_copier_flat), each copy and
 * memset a memcpy or memset there, into ranges inside one allocation its table holds. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"
#include "mpack.h"
#include "rgpu_envelope.h"
#include "rgpu_cuda.h"
#include "rgpu_wire.h"

typedef CUresult (*htod_fn)(CUdeviceptr, const void *, size_t, CUstream);
typedef CUresult (*dtoh_fn)(void *, CUdeviceptr, size_t, CUstream);
typedef CUresult (*set8_fn)(CUdeviceptr, unsigned char, size_t, CUstream);
typedef CUresult (*set16_fn)(CUdeviceptr, unsigned short, size_t, CUstream);
typedef CUresult (*set32_fn)(CUdeviceptr, unsigned int, size_t, CUstream);
typedef CUresult (*dtod_fn)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
typedef CUresult (*record_fn)(CUevent, CUstream);
typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);
typedef CUresult (*free_fn)(CUdeviceptr);

/* What a call id is (copies.py gives the table): its op, the memset's width in bytes, whether it
 * names a stream (its last argument), its face. */
enum { OP_H2D = 1, OP_D2H = 2, OP_RUNTIME_COPY = 3, OP_MEMSET = 4, OP_ALLOC = 5, OP_FREE = 6, OP_D2D = 7,
       OP_EVENT = 8, OP_EVENT_FLAGS = 9, OP_PLACE = 10 };
enum { PLAIN = 1, PLACED = 2 }; /* rgpu_copier_plain: what the loop may free, and how it is charged */
typedef struct {
    uint64_t id;
    uint32_t op, width, stream, runtime;
} rgpu_copy_call;

#define MAX_CALLS 32
#define LATE_COPIES 16 /* late copies a step the loop serves may end with (late_frame_one) */
#define PULLS 16       /* managed pulls a step's wait may carry (rgpu_copier_pull_call): managed.c's FOLLOWERS_MAX */
#define DIGEST 16      /* a pull's digest: api/managed.py's, 16 bytes of rgpu_digest_chunk's */
void rgpu_digest_chunk(const void *data, uint64_t n, uint64_t out[2]); /* server/native/digest.c */
void rgpu_copier_untrack(rgpu_copier *c, uint64_t start);
#define REGISTER_MIN (1u << 20) /* server/staging.py: copies this large register the segment first */
/* A sync pinned copy waited for here keeps the loop from the worker's checks for as long as its DMA
 * takes (the device was idle before it): 5 ms at an H200's 55 GB/s, 20 ms over PCIe 3. Larger ones
 * are Python's, whose waiter keeps the checks running. */
#define PINNED_SYNC_MAX (256ull << 20)
#define H2D_KIND 1
#define D2H_KIND 2
#define D2D_KIND 3

struct rgpu_copier {
    rgpu_launcher *l;
    htod_fn htod;
    dtoh_fn dtoh;
    set8_fn set8;
    set16_fn set16;
    set32_fn set32;
    dtod_fn dtod;               /* cuMemcpyDtoDAsync_v2 (rgpu_copier_dtod), or NULL: no D2D copy in a step */
    record_fn record;           /* cuEventRecord (rgpu_copier_events), or NULL: no event record in a step */
    alloc_fn alloc;             /* cuMemAlloc_v2 and cuMemFree_v2 (rgpu_copier_memory), or NULL */
    struct rgpu_arena *arena;   /* where the session's allocations come from (arena.c), or NULL: the driver's */
    free_fn free;
    /* the software GPU's memory (rgpu_copier_flat), or NULL: a driver's. Every device address of its
     * session lies at flat + (address - flat_base), within flat_span bytes, in the worker's own memory
     * (server/backends/sim/memory.py: one mapping). Its copies and memsets are memcpy and memset, run
     * while the device is idle (the loop serves it only then: sim/idle_waits.py); no function above. */
    unsigned char *flat;
    uint64_t flat_base, flat_span;
    rgpu_copy_call calls[MAX_CALLS];
    uint32_t ncalls;
    /* the device allocations (device.py _allocs): starts sorted, each with its size, and whether it is
     * plain (a cuMemAlloc or cudaMalloc nothing else has a part in: no pool, no IPC export, not placed
     * by a restore), which alone the loop frees: freeing one is cuMemFree and the charge given back */
    uint64_t *start, *size;
    uint8_t *plain;             /* 0, PLAIN, or PLACED: one the client placed, whose charge goes to the spare */
    size_t n, cap;
    /* the quota the session holds ahead for its client's placements (server/api/placed.py: Python's
     * device.spare is this), and the most it keeps after a free */
    int64_t spare, spare_cap;
    /* the program's pinned segments the worker has mapped (server/pinned.py, rgpu_copier_pin): a step's
     * async copies from and to them go straight between the mapping and the device, as Python's do;
     * pinned_bytes [in, out] is Python's count of what they moved (PinnedHost) */
    struct pin {
        char name[RGPU_ENV_PIN_NAME + 1];
        uint8_t nonce[RGPU_ENV_PIN_NONCE];
        uint64_t size, addr;
    } *pins;
    size_t npins, pins_cap, last_pin;
    uint64_t *pinned_bytes;
    /* the data frames of the socket message a step is read from (rgpu_copier_frames; none on the call
     * ring): an async H2D copy whose data came in a frame takes the next one (frame_h2d_one); frame_at
     * counts the frames taken in this pass over the message, frame_bytes the bytes copied from them,
     * pieces the large copies' pieces among those copies (piece_in_one) */
    const unsigned char *const *frame_p;
    const uint64_t *frame_n;
    uint32_t nframes, frame_at, pieces;
    uint64_t frame_bytes;
    /* the async D2H copies whose data goes back in frames before the next reply (OUT_LATER from
     * another host: PyTorch's `.item()`), the last calls of a step before its wait: read from the
     * device once the wait is answered, into late_buf (rgpu_copier_late_buffer; cap 0: none, as on the
     * call ring), for the worker's Python to send (late_frame_one, rgpu_copier_late_run) */
    unsigned char *late_buf;
    uint64_t late_cap, late_used;
    uint32_t late_n;
    struct late_copy {
        uint64_t seq, dev, count, off;
        void *stream;
    } late[LATE_COPIES];
    /* the managed pulls (rgpuManagedPull, call id pull_id; 0: none served) that follow a step's wait
     * from another host: a process whose libraries keep managed buffers (PyTorch's cuDNN keeps two of
     * 64 KiB) pulls each after every synchronisation. Read into late_buf after the late copies once
     * the wait is answered and the device is done, and digested as api/managed.py digests them
     * (rgpu_copier_pull_call, rgpu_copier_pull_run); the worker's Python sends the replies */
    uint64_t pull_id;
    struct pull {
        uint64_t seq, dev, count, off;
        uint32_t nknown;
        uint8_t known[DIGEST], digest[DIGEST];
    } pull[PULLS];
    uint32_t pull_n;
    /* held while the table changes and while the loop frees: a move's pre-copy, on its own thread,
     * holds it (rgpu_copier_hold) while it asks which pieces are still allocated and then reads them or
     * runs the digest kernel over them, so that nothing it reads is unmapped under it (a kernel that
     * reads unmapped memory ends the GPU's context; on the null driver a read is the host's) */
    pthread_mutex_t lock;
};

rgpu_copier *rgpu_copier_new(rgpu_launcher *l, void *htod, void *dtoh, void *set8, void *set16, void *set32,
                             const rgpu_copy_call *calls, uint32_t ncalls) {
    if (ncalls > MAX_CALLS) return NULL;
    rgpu_copier *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->l = l;
    c->htod = (htod_fn)htod, c->dtoh = (dtoh_fn)dtoh;
    c->set8 = (set8_fn)set8, c->set16 = (set16_fn)set16, c->set32 = (set32_fn)set32;
    memcpy(c->calls, calls, ncalls * sizeof *calls);
    c->ncalls = ncalls;
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

void rgpu_copier_free(rgpu_copier *c) {
    if (!c) return;
    free(c->pins);
    free(c->start);
    free(c->size);
    free(c->plain);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* The software GPU's memory: device address base at host, span bytes (host NULL: a driver's again). */
void rgpu_copier_flat(rgpu_copier *c, uint64_t base, void *host, uint64_t span) {
    c->flat = host, c->flat_base = base, c->flat_span = host ? span : 0;
}

/* Where [dev, +n) lies in the software GPU's mapping, or NULL: outside it (never touched). */
static unsigned char *flat_at(const rgpu_copier *c, uint64_t dev, uint64_t n) {
    uint64_t off = dev - c->flat_base;
    if (dev < c->flat_base || off > c->flat_span || n > c->flat_span - off) return NULL;
    return c->flat + off;
}

/* The copies and memsets, through the driver's calls or in the software GPU's mapping. */
static CUresult to_dev(const rgpu_copier *c, uint64_t dev, const void *src, uint64_t n, void *stream) {
    if (!c->flat) return c->htod(dev, src, n, stream);
    unsigned char *p = flat_at(c, dev, n);
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    memcpy(p, src, n);
    return CUDA_SUCCESS;
}

static CUresult from_dev(const rgpu_copier *c, void *dst, uint64_t dev, uint64_t n, void *stream) {
    if (!c->flat) return c->dtoh(dst, dev, n, stream);
    const unsigned char *p = flat_at(c, dev, n);
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    memcpy(dst, p, n);
    return CUDA_SUCCESS;
}

static CUresult dev_to_dev(const rgpu_copier *c, uint64_t dst, uint64_t src, uint64_t n, void *stream) {
    if (!c->flat) return c->dtod(dst, src, n, stream);
    unsigned char *d = flat_at(c, dst, n), *s = flat_at(c, src, n);
    if (!d || !s) return CUDA_ERROR_INVALID_VALUE;
    memmove(d, s, n); /* overlapping ranges as the software GPU copies them (device.py copy_dtod) */
    return CUDA_SUCCESS;
}

/* Whether memsets of `width` bytes a value are served. */
static int can_set(const rgpu_copier *c, uint32_t width) {
    if (c->flat) return width == 1 || width == 2 || width == 4;
    return (width == 1 && c->set8) || (width == 2 && c->set16) || (width == 4 && c->set32);
}

static CUresult set_dev(const rgpu_copier *c, uint64_t dst, uint32_t value, uint32_t width, uint64_t count, void *stream) {
    if (!c->flat) {
        switch (width) {
        case 1: return c->set8 ? c->set8(dst, (unsigned char)value, count, stream) : CUDA_ERROR_INVALID_VALUE;
        case 2: return c->set16 ? c->set16(dst, (unsigned short)value, count, stream) : CUDA_ERROR_INVALID_VALUE;
        case 4: return c->set32 ? c->set32(dst, value, count, stream) : CUDA_ERROR_INVALID_VALUE;
        default: return CUDA_ERROR_INVALID_VALUE;
        }
    }
    unsigned char *p = count <= UINT64_MAX / width ? flat_at(c, dst, count * width) : NULL;
    if (!p || (width != 1 && width != 2 && width != 4)) return CUDA_ERROR_INVALID_VALUE;
    if (width == 1) {
        memset(p, (int)(value & 0xff), count);
        return CUDA_SUCCESS;
    }
    /* (an address of any alignment, as the software GPU's memset takes it: stored byte by byte) */
    unsigned char v[4];
    memcpy(v, &value, 4); /* (a little-endian host, as the software GPU's: its low `width` bytes first) */
    for (uint64_t i = 0; i < count; i++) memcpy(p + i * width, v, width);
    return CUDA_SUCCESS;
}

void rgpu_copier_hold(rgpu_copier *c) { pthread_mutex_lock(&c->lock); }
void rgpu_copier_let_go(rgpu_copier *c) { pthread_mutex_unlock(&c->lock); }

/* The index of the first start >= addr. */
static size_t lower(const rgpu_copier *c, uint64_t addr) {
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->start[mid] < addr) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The allocation [start, +size) exists now, not plain (a start known already takes the new size). 0, or
 * -1 out of memory. */
static int track(rgpu_copier *c, uint64_t start, uint64_t size) {
    size_t i = lower(c, start);
    if (i < c->n && c->start[i] == start) {
        c->size[i] = size, c->plain[i] = 0;
        return 0;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        uint64_t *s = realloc(c->start, cap * sizeof *s);
        if (!s) return -1;
        c->start = s;
        uint64_t *z = realloc(c->size, cap * sizeof *z);
        if (!z) return -1;
        c->size = z;
        uint8_t *p = realloc(c->plain, cap);
        if (!p) return -1;
        c->plain = p, c->cap = cap;
    }
    memmove(c->start + i + 1, c->start + i, (c->n - i) * sizeof *c->start);
    memmove(c->size + i + 1, c->size + i, (c->n - i) * sizeof *c->size);
    memmove(c->plain + i + 1, c->plain + i, c->n - i);
    c->start[i] = start, c->size[i] = size, c->plain[i] = 0;
    c->n++;
    return 0;
}

int rgpu_copier_track(rgpu_copier *c, uint64_t start, uint64_t size) {
    pthread_mutex_lock(&c->lock);
    int rc = track(c, start, size);
    pthread_mutex_unlock(&c->lock);
    return rc;
}

/* Whether the allocation at `start` is plain (1) or not (0), as Python's handlers say (copies.py). */
void rgpu_copier_plain(rgpu_copier *c, uint64_t start, int plain) {
    size_t i = lower(c, start);
    if (i < c->n && c->start[i] == start) c->plain[i] = plain == PLACED ? PLACED : plain != 0;
}

int64_t rgpu_copier_spare(const rgpu_copier *c) { return c->spare; }
void rgpu_copier_set_spare(rgpu_copier *c, int64_t spare, int64_t cap) { c->spare = spare, c->spare_cap = cap; }

/* The driver's cuMemAlloc_v2 and cuMemFree_v2: allocations and frees the loop may serve, charged
 * through rgpu_quota_reserve (server/native/quota.c). */
void rgpu_copier_memory(rgpu_copier *c, void *alloc, void *free_) { c->alloc = (alloc_fn)alloc, c->free = (free_fn)free_; }

/* The session's arena (arena.c): allocations and frees the loop serves go to it instead of the driver. */
struct rgpu_arena;
int rgpu_arena_alloc(struct rgpu_arena *a, uint64_t size, uint64_t *addr);
int rgpu_arena_free(struct rgpu_arena *a, uint64_t addr);
int rgpu_arena_place(struct rgpu_arena *a, uint64_t addr, uint64_t size);
int rgpu_arena_lent(const struct rgpu_arena *a, uint64_t addr, uint64_t span);
void rgpu_copier_arena(rgpu_copier *c, struct rgpu_arena *a) { c->arena = a; }

static void untrack(rgpu_copier *c, uint64_t start) {
    size_t i = lower(c, start);
    if (i == c->n || c->start[i] != start) return;
    memmove(c->start + i, c->start + i + 1, (c->n - i - 1) * sizeof *c->start);
    memmove(c->size + i, c->size + i + 1, (c->n - i - 1) * sizeof *c->size);
    memmove(c->plain + i, c->plain + i + 1, c->n - i - 1);
    c->n--;
}

void rgpu_copier_untrack(rgpu_copier *c, uint64_t start) {
    pthread_mutex_lock(&c->lock);
    untrack(c, start);
    pthread_mutex_unlock(&c->lock);
}

void rgpu_copier_clear(rgpu_copier *c) {
    pthread_mutex_lock(&c->lock);
    c->n = 0;
    pthread_mutex_unlock(&c->lock);
}

/* Whether [addr, +n) lies in one allocation the copier knows (n > 0). */
static int inside(const rgpu_copier *c, uint64_t addr, uint64_t n) {
    size_t i = lower(c, addr + 1); /* the first start past addr: the one before it holds addr, if any */
    if (i == 0 || addr + n < addr) return 0;
    i--;
    return addr - c->start[i] < c->size[i] && n <= c->size[i] - (addr - c->start[i]);
}

/* live[k]: whether ranges[2k], +ranges[2k + 1] lies in one allocation (the caller holds the copier). */
void rgpu_copier_live(const rgpu_copier *c, const uint64_t *ranges, size_t n, uint8_t *live) {
    for (size_t k = 0; k < n; k++) live[k] = ranges[2 * k + 1] > 0 && inside(c, ranges[2 * k], ranges[2 * k + 1]);
}

static int read_uint(mp_reader *r, uint64_t *v) {
    mp_obj o;
    if (mp_next(r, &o)) return -1;
    if (o.type == MP_UINT) *v = o.v.u;
    else if (o.type == MP_INT && o.v.i >= 0) *v = (uint64_t)o.v.i;
    else return -1;
    return 0;
}

/* A call's arguments, exactly `n` non-negative integers, into a: 0, or -1. */
static int read_args(const rgpu_env_call *call, uint32_t n, uint64_t *a) {
    mp_reader args;
    if (call->args.n != n) return -1;
    mp_rinit(&args, call->args.p, call->args.len);
    for (uint32_t i = 0; i < n; i++)
        if (read_uint(&args, &a[i])) return -1;
    return 0;
}

static const rgpu_copy_call *call_of(const rgpu_copier *c, uint64_t id) {
    for (uint32_t i = 0; i < c->ncalls; i++)
        if (c->calls[i].id == id) return &c->calls[i];
    return NULL;
}

/* A memset: [dst, value, count(, stream)]. The runtime's takes an int whose low byte is set (only a
 * non-negative one here); the driver's a value of its width. No wait: Python's queues it and replies.
 * run 0: only whether it is one the loop serves (nothing queued). */
static int memset_one(rgpu_copier *c, const rgpu_copy_call *k, const uint64_t *a, int run) {
    uint64_t dst = a[0], value = a[1], count = a[2];
    uint32_t width = k->runtime ? 1 : k->width;
    if (k->runtime ? value > 0x7fffffffu : (width < 4 && value >> (8 * width)) || value > 0xffffffffu) return 0;
    if (k->runtime) value &= 0xff;
    if (count == 0 || count > (1ull << 40) || !inside(c, dst, count * width)) return 0;
    void *stream = NULL;
    if (k->stream && rgpu_launcher_stream(c->l, a[3], &stream)) return 0;
    if (!run) return can_set(c, width);
    /* a memset the driver refused was not queued: Python's reports it */
    return set_dev(c, dst, (uint32_t)value, width, count, stream) == CUDA_SUCCESS;
}

/* A copy between host and device memory, read from its arguments: cudaMemcpy(Async) [dst, src, count,
 * kind(, stream)], the device side by the kind, or cuMemcpyHtoD/DtoH(Async)_v2 [device address,
 * count(, stream)]. *stream_arg: where its stream argument is, if it has one. 0: not such a copy. */
static int host_copy(const rgpu_copy_call *k, const uint64_t *a, int *h2d, uint64_t *dev, uint64_t *count,
                     int *stream_arg) {
    if (k->op == OP_RUNTIME_COPY) {
        if (a[3] != H2D_KIND && a[3] != D2H_KIND) return 0;
        *h2d = a[3] == H2D_KIND;
        *dev = *h2d ? a[0] : a[1], *count = a[2], *stream_arg = 4;
        return 1;
    }
    if (k->op != OP_H2D && k->op != OP_D2H) return 0;
    *h2d = k->op == OP_H2D;
    *dev = a[0], *count = a[1], *stream_arg = 2;
    return 1;
}

/* A copy through the segment `seg` (seg_size: where its data regions end). */
static int copy_one(rgpu_copier *c, const rgpu_copy_call *k, const uint64_t *a, uint32_t nargs,
                    const rgpu_env_call *call, unsigned char *seg, uint64_t seg_size, int run, rgpu_copy_done *done) {
    int h2d, unused;
    uint64_t dev, count;
    if (!host_copy(k, a, &h2d, &dev, &count, &unused)) return 0;
    const rgpu_env_shm *shm = &call->copy.u.shm;
    if (call->sync != 1 || call->copy.tag != RGPU_ENV_SHM || count == 0 || count >= REGISTER_MIN) return 0;
    uint64_t off = RGPU_SHM_DATA;
    if (h2d) { /* its data in the one region it names, of its count */
        if (shm->regions.n != 1) return 0;
        mp_reader rr;
        rgpu_env_region region;
        const char *why;
        mp_rinit(&rr, shm->regions.p, shm->regions.len);
        if (rgpu_env_read_region(&rr, &region, &why) || region.length != count) return 0;
        off = region.offset;
        if (off < RGPU_SHM_DATA || off > seg_size || count > seg_size - off) return 0;
    } else if (shm->regions.n != 0 || count > shm->room || count > seg_size - RGPU_SHM_DATA) {
        return 0;
    }
    if (!inside(c, dev, count)) return 0;
    void *stream = NULL;
    if (k->stream && rgpu_launcher_stream(c->l, a[nargs - 1], &stream)) return 0;
    if (!run) return 1;
    if (!rgpu_launcher_idle(c->l)) return 0; /* work queued: Python waits for it without going deaf */
    CUresult rc = h2d ? to_dev(c, dev, seg + off, count, stream) : from_dev(c, seg + off, dev, count, stream);
    if (rc != CUDA_SUCCESS || !rgpu_launcher_finish(c->l, stream, count)) return 0;
    if (h2d) done->shm_in = count;
    else done->out_len = count;
    return 1;
}

int rgpu_quota_reserve(rgpu_quota *q, int64_t delta); /* server/native/quota.c */

/* cuMemAlloc_v2 / cudaMalloc [size], as device.py mem_alloc: charged first, given back if the driver
 * refuses (then Python's, which says why); tracked, plain. A size Python refuses (0: the runtime's
 * null pointer, more than the quota) is Python's. */
static int alloc_one(rgpu_copier *c, rgpu_quota *q, uint64_t size, rgpu_copy_done *done) {
    if (!c->alloc || !q || size == 0 || size > INT64_MAX) return 0;
    if (!rgpu_quota_reserve(q, (int64_t)size)) return 0;
    CUdeviceptr p = 0;
    uint64_t at = 0;
    int rc = c->arena ? rgpu_arena_alloc(c->arena, size, &at) : c->alloc(&p, size);
    if (c->arena) p = at;
    if (rc != CUDA_SUCCESS) {
        rgpu_quota_reserve(q, -(int64_t)size);
        return 0;
    }
    if (rgpu_copier_track(c, p, size)) { /* out of memory here: the allocation undone, Python's */
        if (c->arena) rgpu_arena_free(c->arena, p);
        else c->free(p);
        rgpu_quota_reserve(q, -(int64_t)size);
        return 0;
    }
    rgpu_copier_plain(c, p, 1);
    done->addr = p, done->size = (int64_t)size;
    return 1;
}

/* cuMemFree_v2 / cudaFree [addr] of a plain allocation, as api/memory.py mem_free and device.py
 * mem_free: the driver's free, then the charge given back. Anything else (NULL, an address inside one,
 * memory of a pool, exported, opened or placed) is Python's. Only while every stream is done: cudaFree
 * waits for the device's work, and the arena's free unmaps, which the driver does not wait for (a
 * kernel still reading the memory would fault); Python's free waits without going deaf. */
static int free_one(rgpu_copier *c, rgpu_quota *q, uint64_t addr, rgpu_copy_done *done) {
    if (!c->free || !q || addr == 0) return 0;
    size_t i = lower(c, addr);
    if (i == c->n || c->start[i] != addr || !c->plain[i] || (c->plain[i] == PLACED && !c->arena)) return 0;
    if (!rgpu_launcher_idle(c->l)) return 0; /* asked last: it queries every stream of the session */
    uint64_t size = c->size[i];
    int placed = c->plain[i] == PLACED;
    pthread_mutex_lock(&c->lock);
    if ((c->arena ? rgpu_arena_free(c->arena, addr) : c->free(addr)) != CUDA_SUCCESS) {
        pthread_mutex_unlock(&c->lock);
        return 0; /* nothing freed: Python's free reports why */
    }
    untrack(c, addr);
    pthread_mutex_unlock(&c->lock);
    if (placed) { /* its charge to the spare, the spare past its cap to the quota (api/placed.py freed) */
        c->spare += (int64_t)size;
        if (c->spare > c->spare_cap) {
            rgpu_quota_reserve(q, c->spare_cap - c->spare);
            c->spare = c->spare_cap;
        }
    } else {
        rgpu_quota_reserve(q, -(int64_t)size);
    }
    done->addr = addr, done->size = -(int64_t)size;
    return 1;
}

/* A device-to-device copy: [dst, src, count(, stream)] of the driver's cuMemcpyDtoDAsync_v2, or the
 * runtime's cudaMemcpyAsync [dst, src, count, kind, stream] of kind cudaMemcpyDeviceToDevice (the
 * client resolves cudaMemcpyDefault to a kind before it sends), both ranges inside allocations the
 * copier knows (device.py copy_dtod's checks). run 0: only whether it is one the loop serves. */
/* rgpuMemPlace [addr, size, span] (async), as api/placed.py place: its charge (its size, as cuMemAlloc's)
 * from the spare, the quota charged for what the spare lacks; placed in the arena's lent half, tracked,
 * PLACED. Undone by unplace. Anything it refuses (the quota, a place taken) is Python's, which says so. */
typedef struct { uint64_t addr, size; int64_t lack; } placed_rec;

static int place_one(rgpu_copier *c, rgpu_quota *q, const uint64_t *a, placed_rec *p) {
    uint64_t addr = a[0], size = a[1], span = a[2];
    if (!c->arena || !q || !size || size > INT64_MAX || span < size || !rgpu_arena_lent(c->arena, addr, span)) return 0;
    int64_t lack = (int64_t)size > c->spare ? (int64_t)size - c->spare : 0;
    if (lack && !rgpu_quota_reserve(q, lack)) return 0;
    int ok = rgpu_arena_place(c->arena, addr, size) == CUDA_SUCCESS;
    if (ok && rgpu_copier_track(c, addr, size)) {
        rgpu_arena_free(c->arena, addr);
        ok = 0;
    }
    if (!ok) {
        if (lack) rgpu_quota_reserve(q, -lack);
        return 0;
    }
    rgpu_copier_plain(c, addr, PLACED);
    c->spare += lack - (int64_t)size;
    p->addr = addr, p->size = size, p->lack = lack;
    return 1;
}

static void unplace(rgpu_copier *c, rgpu_quota *q, const placed_rec *p) {
    pthread_mutex_lock(&c->lock);
    untrack(c, p->addr);
    rgpu_arena_free(c->arena, p->addr);
    pthread_mutex_unlock(&c->lock);
    c->spare += (int64_t)p->size - p->lack;
    if (p->lack) rgpu_quota_reserve(q, -p->lack);
}

static int dtod_one(rgpu_copier *c, const rgpu_copy_call *k, const uint64_t *a, int run) {
    uint64_t dst = a[0], src = a[1], count = a[2];
    if (k->op == OP_RUNTIME_COPY && a[3] != D2D_KIND) return 0;
    if ((!c->dtod && !c->flat) || count == 0 || !inside(c, src, count) || !inside(c, dst, count)) return 0;
    void *stream = NULL;
    if (k->stream && rgpu_launcher_stream(c->l, a[k->op == OP_RUNTIME_COPY ? 4 : 3], &stream)) return 0;
    return !run || dev_to_dev(c, dst, src, count, stream) == CUDA_SUCCESS; /* refused: not queued, Python's reports it */
}

static int pinned_one(rgpu_copier *c, const rgpu_copy_call *k, const uint64_t *a, const rgpu_env_pinned *pin,
                      int run, void **late_stream);
static uint64_t pinned_region(rgpu_copier *c, const rgpu_env_pinned *pin);

/* A sync copy between device memory and the program's pinned memory: cuMemcpyHtoD_v2 [dst, count],
 * cuMemcpyDtoH_v2 [src, count] or cudaMemcpy [dst, src, count, kind] of either kind (a program's plain
 * cudaMemcpy from cudaMallocHost memory), with its pinned record, as server/staging.py run_pinned and
 * device.py copy_htod_host / copy_dtoh_host serve it: queued on the legacy stream once the device is
 * idle, waited for until done (the wait as short as the DMA), counted as Python counts it. The data
 * lies in the program's memory either way: the reply carries none. run 0: whether it is one. */
static int pinned_sync_one(rgpu_copier *c, const rgpu_copy_call *k, const uint64_t *a, const rgpu_env_pinned *pin,
                           int run) {
    int h2d, unused;
    uint64_t dev, count;
    if (k->stream) return 0; /* the async forms are a step's (pinned_one) */
    if (!host_copy(k, a, &h2d, &dev, &count, &unused)) return 0;
    if (count == 0 || count > PINNED_SYNC_MAX || pin->length != count || !c->pinned_bytes || !inside(c, dev, count))
        return 0;
    uint64_t host = pinned_region(c, pin);
    if (!host) return 0;
    if (!run) return 1;
    if (!rgpu_launcher_idle(c->l)) return 0; /* work queued: Python waits for it without going deaf */
    CUresult rc = h2d ? to_dev(c, dev, (const void *)(uintptr_t)host, count, NULL)
                      : from_dev(c, (void *)(uintptr_t)host, dev, count, NULL);
    if (rc != CUDA_SUCCESS || !rgpu_launcher_finish(c->l, NULL, count)) return 0;
    c->pinned_bytes[h2d ? 0 : 1] += count;
    return 1;
}

/* An event record: [event, stream(, flags)], an event and a stream the session made (api/stream.py
 * event_record, which records with cuEventRecord whatever the flags). run 0: only whether it is one the
 * loop serves. */
static int record_one(rgpu_copier *c, const uint64_t *a, int run) {
    void *event, *stream;
    if (!c->record || rgpu_launcher_event(c->l, a[0], &event) || rgpu_launcher_stream(c->l, a[1], &stream)) return 0;
    return !run || c->record((CUevent)event, (CUstream)stream) == CUDA_SUCCESS;
}

/* The data frames of the socket message whose calls the next pass (rgpu_launcher_shape, or a run) reads:
 * p[i], n[i] bytes, in the message's order (count 0: none, as on the call ring). Each pass starts from
 * the first frame again, so the caller sets them before each; they are the caller's, live until it
 * sets others. */
void rgpu_copier_frames(rgpu_copier *c, const void *const *p, const uint64_t *n, uint32_t count) {
    c->frame_p = (const unsigned char *const *)p, c->frame_n = n;
    c->nframes = p && n ? count : 0;
    c->frame_at = 0, c->frame_bytes = 0, c->pieces = 0;
}

/* The frames the pass did not take (a message whose calls take fewer frames than it has is Python's,
 * whose decoder refuses it), and the bytes copied from those it took. */
uint32_t rgpu_copier_frames_left(const rgpu_copier *c) { return c->nframes - c->frame_at; }
uint64_t rgpu_copier_frame_bytes(const rgpu_copier *c) { return c->frame_bytes; }
uint32_t rgpu_copier_pieces(const rgpu_copier *c) { return c->pieces; }

/* An async H2D copy whose data is the message's next frame (from another host, or RGPU_SHM=0: a
 * DataLoader's pinned batch copied without blocking is one a step): cuMemcpyHtoDAsync_v2 [dst, count,
 * stream] or cudaMemcpyAsync [dst, src, count, H2D, stream] with one frame of `count` bytes, as
 * api/memory.py _copy and device.py copy_htod serve it: queued once every stream is done, then waited
 * for until done, the frame being the worker's only until the call returns. Python's copy_htod waits for
 * a busy stream first; here a busy device stops the run at this call, which Python then serves with the
 * rest. run 0: only whether it is one (the frame taken all the same, so that the pass counts them). */
static int frame_h2d_one(rgpu_copier *c, const rgpu_copy_call *k, const uint64_t *a, int run) {
    int h2d, at;
    uint64_t dev, count;
    if (c->frame_at >= c->nframes || !host_copy(k, a, &h2d, &dev, &count, &at) || !h2d) return 0;
    const void *data = c->frame_p[c->frame_at];
    if (count == 0 || c->frame_n[c->frame_at] != count || !inside(c, dev, count)) return 0;
    void *stream = NULL; /* a sync copy's piece (piece_in_one): the legacy stream, as copy_htod's None */
    if (k->stream && rgpu_launcher_stream(c->l, a[at], &stream)) return 0;
    if (run) {
        if (!rgpu_launcher_idle(c->l)) return 0; /* work queued: Python waits for it without going deaf */
        if (to_dev(c, dev, data, count, stream) != CUDA_SUCCESS || !rgpu_launcher_finish(c->l, stream, count))
            return 0;
        c->frame_bytes += count;
    }
    c->frame_at++;
    return 1;
}

/* A piece of a large H2D copy whose data frames carry (sync field PIECE_IN, server/pieces.py
 * run_piece_in; the client's libhook/src/transport/copy_pieces.c): a sync copy's piece is its call
 * without a stream (cuMemcpyHtoD_v2 [dst, count], cudaMemcpy [dst, src, count, H2D]), an async one's
 * names its stream, each with one frame of `count` bytes, run at once from its frame as
 * frame_h2d_one runs an async copy's (as Python's run of the piece does: device.py copy_htod). A
 * piece the loop does not run (past its allocation, the device busy, the driver refusing it) is
 * Python's, which makes its failure the copy's (session.piece_error), answered by the copy's last
 * call; the worker hands the loop no piece of a copy that has failed (loop_steps.py loop_may_serve).
 * Its copy call (for its face), or NULL: not one the loop runs. */
static const rgpu_copy_call *piece_in_one(rgpu_copier *c, const rgpu_env_call *call, int run) {
    const rgpu_copy_call *k = call_of(c, call->call_id);
    uint64_t a[5];
    if (call->nbulk != 1 || call->copy.tag != 0 || !k || (k->op != OP_H2D && k->op != OP_RUNTIME_COPY)) return NULL;
    uint32_t nargs = (k->op == OP_RUNTIME_COPY ? 4 : 2) + (k->stream ? 1 : 0);
    if (read_args(call, nargs, a) || !frame_h2d_one(c, k, a, run)) return NULL;
    c->pieces += run != 0;
    return k;
}

/* Whether `header` is a message of one call and nothing else, read into *call. */
static int one_call(const void *header, size_t len, rgpu_env_call *call) {
    mp_reader r;
    mp_obj calls;
    const char *why;
    mp_rinit(&r, header, len);
    return !(mp_next(&r, &calls) || calls.type != MP_ARRAY || calls.n != 1 || rgpu_env_read_call(&r, call, &why) ||
             r.p != (const uint8_t *)header + len);
}

/* A message of one sync H2D copy whose data is its one frame, from a client on another host whose copy
 * is too small for pieces: cuMemcpyHtoD_v2 [dst, count] or cudaMemcpy [dst, src, count, H2D], sync 1,
 * one bulk frame of `count` bytes, no copy record, as api/memory.py's handler copies it from its bulk
 * frame (device.py copy_htod: the legacy stream). Run now from the frame rgpu_copier_frames set, the
 * device idle, as frame_h2d_one runs a step's copy (its checks: inside one allocation, the frame's
 * length the count). 1: run (out: its seq and face, the message's end made); 0: Python's. */
int rgpu_copier_h2d_frame(rgpu_copier *c, const void *header, size_t len, rgpu_launch_run *out) {
    rgpu_env_call call = {0};
    const rgpu_copy_call *k;
    uint64_t a[4];
    if (!one_call(header, len, &call) || call.sync != 1 || call.nbulk != 1 || call.copy.tag != 0) return 0;
    if (!(k = call_of(c, call.call_id)) || k->stream || (k->op != OP_H2D && k->op != OP_RUNTIME_COPY)) return 0;
    if (read_args(&call, k->op == OP_H2D ? 2 : 4, a) || c->nframes != 1 || c->frame_at != 0) return 0;
    if (!frame_h2d_one(c, k, a, 1)) return 0;
    out->served = 1, out->last_seq = call.seq, out->runtime = (int)k->runtime, out->kernels = 0;
    rgpu_launcher_end(c->l, out);
    return 1;
}

/* Whether `header` is a message of one PIECE_IN call and nothing else, read into *call. */
static int piece_header(const void *header, size_t len, rgpu_env_call *call) {
    return one_call(header, len, call) && call->sync == RGPU_PIECE_IN;
}

/* Whether a message's head is one piece of a large H2D copy the loop may run (its data frame still to
 * be taken: the socket's door, server/native/serve.c): its call, its one frame, its copy's face. */
int rgpu_copier_is_piece(const rgpu_copier *c, const void *header, size_t len) {
    rgpu_env_call call = {0};
    const rgpu_copy_call *k;
    return piece_header(header, len, &call) && call.nbulk == 1 && call.copy.tag == 0 &&
           (k = call_of(c, call.call_id)) != NULL && (k->op == OP_H2D || k->op == OP_RUNTIME_COPY);
}

/* A message that is one piece of a large H2D copy and nothing else (`header`: its calls, one
 * PIECE_IN copy; `data`: its one frame, `n` bytes): the piece copied (piece_in_one), its seq in *seq:
 * 1. 0: nothing ran, the message is Python's (decoded and refused there if malformed). The message a
 * piece most often is, read once without the step machinery's passes; *runtime its face. */
int rgpu_copier_piece(rgpu_copier *c, const void *header, size_t len, const void *data, uint64_t n, uint64_t *seq,
                      int *runtime) {
    rgpu_env_call call = {0};
    if (!piece_header(header, len, &call)) return 0;
    const void *p[1] = {data};
    uint64_t size[1] = {n};
    rgpu_copier_frames(c, p, size, 1);
    const rgpu_copy_call *k = piece_in_one(c, &call, 1);
    rgpu_copier_frames(c, NULL, NULL, 0);
    if (k) *seq = call.seq, *runtime = (int)k->runtime;
    return k != NULL;
}

/* Where the late copies of the next pass (a step's last calls before its wait: late_frame_one) put
 * their data: `cap` bytes at `buf`, the caller's until it sets another (cap 0: none are served). Each
 * pass starts empty, so the caller sets it before each, as the frames. */
void rgpu_copier_late_buffer(rgpu_copier *c, void *buf, uint64_t cap) {
    c->late_buf = buf, c->late_cap = buf ? cap : 0;
    c->late_used = 0, c->late_n = 0, c->pull_n = 0;
}

/* The late copies the pass took, and the `i`th's seq, place in the buffer and bytes. */
uint32_t rgpu_copier_late_n(const rgpu_copier *c) { return c->late_n; }
void rgpu_copier_late_get(const rgpu_copier *c, uint32_t i, uint64_t *seq, uint64_t *off, uint64_t *count) {
    *seq = c->late[i].seq, *off = c->late[i].off, *count = c->late[i].count;
}

/* An async D2H copy whose data goes back in a frame before the next reply (wire.OUT_LATER without a
 * pinned region: from another host, PyTorch's `.item()`), one of a step's last calls before its wait,
 * which the shape makes cover its stream: nothing runs now; once the wait is answered, every call
 * before it is done, so the copy made then (rgpu_copier_late_run) reads what it would have read in
 * stream order, nothing but other such copies following it. Taken in every pass, to count them. */
static int late_frame_one(rgpu_copier *c, const rgpu_copy_call *k, const uint64_t *a, uint64_t seq,
                          void **stream) {
    int h2d, at;
    uint64_t dev, count;
    if (c->late_n >= LATE_COPIES || !host_copy(k, a, &h2d, &dev, &count, &at) || h2d) return 0;
    if (count == 0 || count > c->late_cap - c->late_used || !inside(c, dev, count)) return 0;
    if (rgpu_launcher_stream(c->l, a[at], stream)) return 0;
    c->late[c->late_n++] = (struct late_copy){seq, dev, count, c->late_used, *stream};
    c->late_used += count;
    return 1;
}

/* The late copies of a step whose wait was answered, made into the buffer once every stream is done
 * (a wait on one stream leaves others running, behind which a copy on the legacy stream would wait
 * here, deaf): 1, or 0 when the device is busy or a copy failed (the worker's Python then runs them,
 * waiting as it waits, and reports what the driver says). */
int rgpu_copier_late_run(rgpu_copier *c) {
    if (!rgpu_launcher_idle(c->l)) return 0;
    for (uint32_t i = 0; i < c->late_n; i++) {
        struct late_copy *k = &c->late[i];
        if (from_dev(c, c->late_buf + k->off, k->dev, k->count, k->stream) != CUDA_SUCCESS ||
            !rgpu_launcher_finish(c->l, k->stream, k->count))
            return 0;
    }
    return 1;
}

/* rgpuManagedPull's call id (copies.py gives it; 0: no pull is the loop's). */
void rgpu_copier_pulls(rgpu_copier *c, uint64_t id) { c->pull_id = id; }

/* A managed pull after a step's wait, at `r`: rgpuManagedPull [addr, count, known] (sync, no frame, no
 * copy record), a range inside one allocation, read as api/managed.py reads it into one frame (up to
 * D2H_CHUNK bytes: these are within the buffer). Nothing runs: recorded for rgpu_copier_pull_run, in
 * every pass, as the late copies are. 1: taken; 0: the message is Python's. */
int rgpu_copier_pull_call(rgpu_copier *c, mp_reader *r) {
    rgpu_env_call call = {0};
    const char *why;
    mp_reader args;
    mp_obj known;
    uint64_t addr, count;
    if (!c->pull_id || c->pull_n >= PULLS || rgpu_env_read_call(r, &call, &why)) return 0;
    if (call.call_id != c->pull_id || call.sync != 1 || call.nbulk || call.copy.tag != 0 || call.args.n != 3) return 0;
    mp_rinit(&args, call.args.p, call.args.len);
    /* known: the digest of the client's copy, or nil where it holds none it can name (right after it
     * pushed the host's writes, managed.c push_region): then the data goes back whole */
    if (read_uint(&args, &addr) || read_uint(&args, &count) || mp_next(&args, &known) ||
        (known.type != MP_BIN && known.type != MP_NIL))
        return 0;
    if (known.type == MP_NIL) known.n = 0;
    if (count == 0 || count > c->late_cap - c->late_used || count > RGPU_D2H_CHUNK || !inside(c, addr, count))
        return 0;
    struct pull *p = &c->pull[c->pull_n++];
    *p = (struct pull){call.seq, addr, count, c->late_used, known.n, {0}, {0}};
    if (known.n == DIGEST) memcpy(p->known, known.p, DIGEST);
    c->late_used += count;
    return 1;
}

/* The pulls the pass took, made once the step's wait is answered, after its late copies: each read on
 * the legacy stream once every stream is done, as cuMemcpyDtoH reads it, and digested. 1, or 0 when the
 * device is busy or a read failed (Python then serves them, from the wait on). */
int rgpu_copier_pull_run(rgpu_copier *c) {
    if (c->pull_n && !rgpu_launcher_idle(c->l)) return 0;
    for (uint32_t i = 0; i < c->pull_n; i++) {
        struct pull *p = &c->pull[i];
        uint64_t d[2];
        if (from_dev(c, c->late_buf + p->off, p->dev, p->count, NULL) != CUDA_SUCCESS ||
            !rgpu_launcher_finish(c->l, NULL, p->count))
            return 0;
        rgpu_digest_chunk(c->late_buf + p->off, p->count, d);
        memcpy(p->digest, d, DIGEST);
    }
    return 1;
}

/* How many pulls the pass took, and the `i`th's seq, place in the buffer, bytes and digest; `same`:
 * the digest is the one the client named, so its reply carries no data. */
uint32_t rgpu_copier_pull_n(const rgpu_copier *c) { return c->pull_n; }
void rgpu_copier_pull_get(const rgpu_copier *c, uint32_t i, uint64_t *seq, uint64_t *off, uint64_t *count,
                          uint8_t *digest, int *same) {
    const struct pull *p = &c->pull[i];
    *seq = p->seq, *off = p->off, *count = p->count;
    memcpy(digest, p->digest, DIGEST);
    *same = p->nknown == DIGEST && !memcmp(p->known, p->digest, DIGEST);
}

int rgpu_copier_step_call(rgpu_copier *c, mp_reader *r, int run, uint64_t *seq, int *runtime, rgpu_step_late *late) {
    rgpu_env_call call = {0};
    const char *why;
    if (rgpu_env_read_call(r, &call, &why)) return 0;
    /* the copies late_frame_one takes: the step's last calls, with another late copy the only thing after one */
    int deferred = call.sync == RGPU_OUT_LATER && late && call.copy.tag == 0 && call.nbulk == 0 && c->late_cap;
    if (c->late_n && !deferred) return 0;
    if (call.sync == RGPU_PIECE_IN) {
        const rgpu_copy_call *k = piece_in_one(c, &call, run);
        if (!k) return 0;
        if (seq) *seq = call.seq;
        if (runtime) *runtime = (int)k->runtime;
        return 1;
    }
    /* one data frame: an async H2D copy's (frame_h2d_one) */
    if (call.nbulk > 1 || (call.nbulk == 1 && (call.copy.tag != 0 || call.sync != 0))) return 0;
    if (call.copy.tag != 0 && call.copy.tag != RGPU_ENV_PINNED) return 0;
    /* a D2H copy into pinned memory the worker fills before its next reply (worker.py, OUT_LATER) */
    int later = call.sync == RGPU_OUT_LATER && late && (call.copy.tag == RGPU_ENV_PINNED || deferred);
    if (call.sync != 0 && !later) return 0;
    void *stream = NULL;
    const rgpu_copy_call *k = call_of(c, call.call_id);
    if (!k || !k->stream) return 0; /* a step's calls are the async ones: each names its stream */
    uint32_t nargs = k->op == OP_RUNTIME_COPY ? 5 : k->op == OP_MEMSET || k->op == OP_D2D ? 4
                   : k->op == OP_H2D || k->op == OP_D2H || k->op == OP_EVENT_FLAGS ? 3 : k->op == OP_EVENT ? 2 : 0;
    uint64_t a[5];
    if (!nargs || read_args(&call, nargs, a)) return 0;
    int ok;
    if (call.copy.tag == RGPU_ENV_PINNED) ok = pinned_one(c, k, a, &call.copy.u.pinned, run, later ? &stream : NULL);
    else if (deferred) ok = (k->op == OP_D2H || k->op == OP_RUNTIME_COPY) && late_frame_one(c, k, a, call.seq, &stream);
    else if (call.nbulk) ok = (k->op == OP_H2D || k->op == OP_RUNTIME_COPY) && frame_h2d_one(c, k, a, run);
    else if (k->op == OP_MEMSET) ok = memset_one(c, k, a, run);
    else if (k->op == OP_EVENT || k->op == OP_EVENT_FLAGS) ok = record_one(c, a, run);
    else if (k->op == OP_D2D || k->op == OP_RUNTIME_COPY) ok = dtod_one(c, k, a, run);
    else ok = 0; /* an H2D or D2H copy without a pinned record or a frame: its data travels, Python's */
    if (!ok) return 0;
    if (later) {
        late->one = late->n == 0 || (late->one && late->stream == stream);
        late->stream = stream;
        late->n++;
    }
    if (seq && !deferred) *seq = call.seq; /* a late copy runs after the wait, if at all */
    if (runtime && !deferred) *runtime = (int)k->runtime;
    return 1;
}

/* The pinned segment `name` mapped at `addr` in this process (server/pinned.py: mapped, its nonce
 * checked, registered with the device), whose copies a step may serve, counting their bytes into
 * bytes[0] (in) and bytes[1] (out). 0, or -1 (out of memory: its copies stay Python's). */
int rgpu_copier_pin(rgpu_copier *c, const char *name, const uint8_t *nonce, uint64_t size, uint64_t addr,
                    uint64_t *bytes) {
    if (strlen(name) > RGPU_ENV_PIN_NAME) return -1;
    if (c->npins == c->pins_cap) {
        size_t cap = c->pins_cap ? c->pins_cap * 2 : 8;
        struct pin *p = realloc(c->pins, cap * sizeof *p);
        if (!p) return -1;
        c->pins = p, c->pins_cap = cap;
    }
    struct pin *p = &c->pins[c->npins++];
    strcpy(p->name, name);
    memcpy(p->nonce, nonce, sizeof p->nonce);
    p->size = size, p->addr = addr;
    c->pinned_bytes = bytes;
    return 0;
}

/* The segment is being unmapped (cudaFreeHost, the session's end): its copies are Python's again. */
void rgpu_copier_unpin(rgpu_copier *c, const char *name) {
    for (size_t i = 0; i < c->npins; i++)
        if (!strcmp(c->pins[i].name, name)) {
            c->pins[i] = c->pins[--c->npins];
            c->last_pin = 0;
            return;
        }
}

/* The mapped pinned region a copy's record names, as PinnedHost.region checks it (a segment mapped
 * under that name, with that nonce and size; the region inside its data), or 0: Python's, which maps
 * a segment the first time and words the refusal of anything else. */
static uint64_t pinned_region(rgpu_copier *c, const rgpu_env_pinned *pin) {
    struct pin *p = NULL;
    if (c->last_pin < c->npins) {
        struct pin *q = &c->pins[c->last_pin];
        if (strlen(q->name) == pin->name.n && !memcmp(q->name, pin->name.p, pin->name.n)) p = q;
    }
    for (size_t i = 0; !p && i < c->npins; i++)
        if (strlen(c->pins[i].name) == pin->name.n && !memcmp(c->pins[i].name, pin->name.p, pin->name.n))
            p = &c->pins[i], c->last_pin = i;
    if (!p || pin->nonce.n != RGPU_ENV_PIN_NONCE || memcmp(p->nonce, pin->nonce.p, RGPU_ENV_PIN_NONCE) ||
        pin->size != p->size || pin->offset < RGPU_SHM_DATA || pin->offset > p->size ||
        pin->length > p->size - pin->offset)
        return 0;
    return p->addr + pin->offset;
}

/* An async copy between the program's pinned memory and the device: cuMemcpyHtoDAsync_v2 [dst, count,
 * stream], cuMemcpyDtoHAsync_v2 [src, count, stream], or cudaMemcpyAsync [dst, src, count, kind, stream]
 * of either kind, with a pinned record of `count` bytes (staging.py run_pinned, api/memory.py _copy's
 * checks). run 0: only whether it is one the loop serves. late_stream: a D2H copy only (OUT_LATER), its
 * stream put there. */
static int pinned_one(rgpu_copier *c, const rgpu_copy_call *k, const uint64_t *a, const rgpu_env_pinned *pin,
                      int run, void **late_stream) {
    int h2d, at;
    uint64_t dev, count;
    if (!host_copy(k, a, &h2d, &dev, &count, &at)) return 0;
    uint64_t sh = a[at];
    if (late_stream && h2d) return 0;
    uint64_t host = pinned_region(c, pin);
    if (!host || !c->pinned_bytes || pin->length != count || count == 0 || !inside(c, dev, count)) return 0;
    void *stream = NULL;
    if (rgpu_launcher_stream(c->l, sh, &stream)) return 0;
    if (late_stream) *late_stream = stream;
    if (!run) return 1;
    CUresult rc = h2d ? to_dev(c, dev, (const void *)(uintptr_t)host, count, stream)
                      : from_dev(c, (void *)(uintptr_t)host, dev, count, stream);
    if (rc != CUDA_SUCCESS) return 0; /* not queued: Python's reports it */
    c->pinned_bytes[h2d ? 0 : 1] += count;
    return 1;
}

/* cuMemcpyDtoDAsync_v2 and cuEventRecord: the device-to-device copies and event records a step may
 * hold (NULL: none). */
void rgpu_copier_dtod(rgpu_copier *c, void *dtod) { c->dtod = (dtod_fn)dtod; }
void rgpu_copier_events(rgpu_copier *c, void *record) { c->record = (record_fn)record; }

/* The last call of a message the loop serves, at `r` (nothing may follow it: `end`): a sync copy through
 * the segment or a memset; with `memory`, also an allocation or a free (only alone in a message: after
 * a step's launches, a free waits for them, which is Python's). run 0: whether it is one; nothing runs.
 * run 1: served (out: its seq and face; done: what its reply and counts need), or 0: Python's, nothing
 * having run that Python's run of the same call would not redo. */
static int last_call(rgpu_copier *c, mp_reader *r, const uint8_t *end, unsigned char *seg, uint64_t seg_size,
                     rgpu_quota *quota, int memory, int run, rgpu_launch_run *out, rgpu_copy_done *done) {
    rgpu_env_call call = {0}; /* (the copy record read only when its tag says so) */
    const char *why;
    uint64_t a[5];
    /* the whole call is read and checked before anything runs: no trailing bytes either */
    if (rgpu_env_read_call(r, &call, &why) || r->p != end || call.nbulk != 0) return 0;
    const rgpu_copy_call *k = call_of(c, call.call_id);
    if (!k || call.sync != 1 || k->op >= OP_D2D) return 0; /* the ring carries sync messages only: an async call is a broken client */
    if (!memory && k->op >= OP_ALLOC) return 0;
    uint32_t nargs = (k->op == OP_RUNTIME_COPY ? 4 : k->op == OP_MEMSET ? 3 : k->op >= OP_ALLOC ? 1 : 2) +
                     (k->stream != 0);
    if (read_args(&call, nargs, a)) return 0;
    int ok;
    if (k->op == OP_MEMSET || k->op >= OP_ALLOC) {
        if (call.copy.tag != 0) return 0;
        ok = k->op == OP_MEMSET ? memset_one(c, k, a, run)
           : k->op == OP_ALLOC  ? alloc_one(c, quota, a[0], done)
                                : free_one(c, quota, a[0], done);
    } else if (call.copy.tag == RGPU_ENV_PINNED) {
        ok = pinned_sync_one(c, k, a, &call.copy.u.pinned, run);
    } else {
        ok = seg && copy_one(c, k, a, nargs, &call, seg, seg_size, run, done);
    }
    if (!ok || !run) return ok;
    done->sync = 1;
    out->served = 1;
    out->last_seq = call.seq;
    out->runtime = (int)k->runtime;
    return 1;
}

/* A sync device-to-host copy on the legacy stream whose data goes back in frames (no copy record, no
 * data frames): cuMemcpyDtoH_v2 [src, count] or cudaMemcpy [dst, src, count, D2H], its source and
 * bytes inside one allocation. Its copy call, or NULL: not one. (The caller checks its `sync`.) */
static const rgpu_copy_call *d2h_in_frames(const rgpu_copier *c, const rgpu_env_call *call, uint64_t *dev,
                                           uint64_t *n) {
    uint64_t a[4];
    if (call->nbulk != 0 || call->copy.tag != 0) return NULL;
    const rgpu_copy_call *k = call_of(c, call->call_id);
    if (!k || k->stream || (k->op != OP_D2H && k->op != OP_RUNTIME_COPY)) return NULL;
    if (read_args(call, k->op == OP_RUNTIME_COPY ? 4 : 2, a)) return NULL;
    if (k->op == OP_RUNTIME_COPY && a[3] != D2H_KIND) return NULL;
    *dev = k->op == OP_RUNTIME_COPY ? a[1] : a[0], *n = k->op == OP_RUNTIME_COPY ? a[2] : a[1];
    return *n != 0 && inside(c, *dev, *n) ? k : NULL;
}

/* A sync device-to-host copy whose data goes back in a frame (no copy record: the client is on another
 * host, or its segment is off), the last call of a step on the socket (launches.c
 * rgpu_launcher_frame_step): cuMemcpyDtoH_v2 [src, count] or cudaMemcpy [dst, src, count, D2H]. run 0:
 * whether it is one, its count in *count. run 1: copied into `buf` (`cap` bytes) once the device is
 * idle, as Python's run of it copies (out: its seq and face), or 0: Python's, nothing copied. */
int rgpu_copier_frame_d2h(rgpu_copier *c, mp_reader *r, const void *end, void *buf, uint64_t cap, int run,
                          uint64_t *count, rgpu_launch_run *out) {
    rgpu_env_call call = {0};
    const char *why;
    uint64_t dev, n;
    if (rgpu_env_read_call(r, &call, &why) || r->p != (const uint8_t *)end || call.sync != 1) return 0;
    const rgpu_copy_call *k = d2h_in_frames(c, &call, &dev, &n);
    if (!k || n >= REGISTER_MIN) return 0;
    *count = n;
    if (!run) return 1;
    if (n > cap || !rgpu_launcher_idle(c->l)) return 0;
    if (!rgpu_copier_d2h(c, buf, dev, n)) return 0;
    out->served = 1;
    out->last_seq = call.seq;
    out->runtime = (int)k->runtime;
    return 1;
}

/* A message of one sync device-to-host copy and nothing else whose data goes back in frames (no copy
 * record: the client is on another host, or its segment is off), the loop's when it is too large for
 * rgpu_copier_frame_d2h's buffer (server/native/serve.c d2h_out): cuMemcpyDtoH_v2 [src, count] or
 * cudaMemcpy [dst, src, count, D2H], with `sync` 1 or SYNC_PIECES_OUT (the client takes it in pieces),
 * inside one allocation (as api/memory.py's handler and pieces.py run_d2h_pieces check it). 1: one, its
 * source, bytes, whether in pieces, seq and face in *d; 0: Python's. Always Python's on the software
 * GPU: its handler sends the mapping's bytes as they lie (a view, sim/device.py copy_dtoh), where the
 * loop would copy them into ZeroMQ's messages first (slower for such reads: 2.3-2.4 GB/s against
 * 2.5-2.6 for 64 MiB over TCP loopback). */
int rgpu_copier_d2h_alone(const rgpu_copier *c, const void *header, size_t len, rgpu_d2h *d) {
    rgpu_env_call call = {0};
    const rgpu_copy_call *k;
    if (c->flat) return 0;
    if (!one_call(header, len, &call) || (call.sync != 1 && call.sync != RGPU_SYNC_PIECES_OUT) ||
        !(k = d2h_in_frames(c, &call, &d->dev, &d->count)))
        return 0;
    d->pieces = call.sync == RGPU_SYNC_PIECES_OUT;
    d->seq = call.seq, d->runtime = (int)k->runtime;
    return 1;
}

/* `n` bytes of device memory at `dev` copied into `buf` on the legacy stream, as Python's run of such a
 * copy reads them (the device idle: the caller checked): 1, or 0 the driver refused it. */
int rgpu_copier_d2h(rgpu_copier *c, void *buf, uint64_t dev, uint64_t n) {
    return from_dev(c, buf, dev, n, NULL) == CUDA_SUCCESS && rgpu_launcher_finish(c->l, NULL, n);
}

/* A step's last call (launches.c rgpu_launcher_copy_step): a sync copy through the segment or a memset,
 * at `r`, the message ending at `end`. run 0: whether it is one. run 1: served once the device is idle
 * (out, done as rgpu_copier_serve's), or 0: Python's. */
int rgpu_copier_last(rgpu_copier *c, mp_reader *r, const void *end, unsigned char *seg, uint64_t seg_size, int run,
                     rgpu_launch_run *out, rgpu_copy_done *done) {
    if (run) memset(done, 0, sizeof *done);
    return last_call(c, r, (const uint8_t *)end, seg, seg_size, NULL, 0, run, out, done);
}

int rgpu_copier_serve(rgpu_copier *c, const void *header, size_t len, unsigned char *seg, uint64_t seg_size,
                      rgpu_quota *quota, rgpu_launch_run *out, rgpu_copy_done *done) {
    mp_reader r;
    mp_obj calls;
    const char *why;
    placed_rec placed[RGPU_PLACE_MAX];
    uint32_t np = 0;
    uint64_t a[5];
    memset(done, 0, sizeof *done);
    out->served = 0;
    mp_rinit(&r, header, len);
    if (mp_next(&r, &calls) || calls.type != MP_ARRAY || calls.n < 1 || calls.n > RGPU_PLACE_MAX + 1) return 0;
    /* the allocations the client placed, before the call: placed now, undone below if it is Python's */
    for (uint32_t i = 0; i + 1 < calls.n; i++) {
        rgpu_env_call pc = {0};
        const rgpu_copy_call *pk;
        if (rgpu_env_read_call(&r, &pc, &why) || pc.nbulk != 0 || pc.sync != 0 || pc.copy.tag != 0 ||
            !(pk = call_of(c, pc.call_id)) || pk->op != OP_PLACE || read_args(&pc, 3, a))
            goto undo;
        if (!place_one(c, quota, a, &placed[np])) goto undo;
        np++;
    }
    if (!last_call(c, &r, (const uint8_t *)header + len, seg, seg_size, quota, 1, 1, out, done)) goto undo;
    for (uint32_t i = 0; i < np; i++) done->placed_addr[i] = placed[i].addr, done->placed_size[i] = (int64_t)placed[i].size;
    done->nplaced = np;
    rgpu_launcher_end(c->l, out); /* what Python makes at the message's end: the settle, the printf check */
    return 1;
undo:
    while (np) unplace(c, quota, &placed[--np]);
    return 0;
}
