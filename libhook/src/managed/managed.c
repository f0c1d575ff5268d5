/* Managed (unified) memory: one pointer valid on the host and on the device.
 *
 * The server allocates device memory tagged managed, aligned to host pages (server/api/managed.py),
 * and this file maps the host copy at exactly that address, so the program's pointer works on both
 * sides. Coherence is that of a GPU with concurrentManagedAccess = 0 (which the server reports):
 * the host may touch managed memory only while no device work is outstanding. So
 *   - before the first device work after a synchronisation (a launch, copy or memset), the pages the
 *     host changed are pushed to the device; and
 *   - after a call that completes device work (device/stream/event synchronize, a blocking copy,
 *     cudaFree), the device's contents are pulled back — only if device work happened since.
 * What the host changed is found by comparing with a shadow copy of the device's contents as of the
 * last push or pull, page by page. Unlike write-protecting the pages and catching the faults, that
 * needs no signal handler (nothing to chain with the program's own) and sees writes the kernel makes
 * on the program's behalf (read(2) into managed memory), at the price of a second host copy and a
 * compare of all managed memory once per synchronisation cycle — small beside the pull itself.
 *
 * An allocation attached to the host (cudaMemAttachHost, at allocation or by cudaStreamAttachMemAsync)
 * is the host's even while kernels run, so its pulls merge instead of overwriting: a granule the device
 * changed since the last push or pull comes back, one only the host changed stays the host's (and goes
 * to the device at the next push, which happens only while no device work is outstanding). A memset or
 * copy the program makes on it through the API is then seen on the host after the synchronisation, as
 * on a GPU, and host writes made while kernels ran are not lost.
 *
 * Costs: a pull copies every managed allocation of the device back (the device does not say what
 * it wrote), but across hosts one the device did not change since the last pull does not cross
 * again: the pull (rgpuManagedPull) names the digest the worker gave of what the shadow holds, and
 * the worker sends the data only when the contents' digest differs (tok). A synchronous copy into
 * device memory counts as device work followed by a
 * synchronisation, so it too pulls managed memory back (a copy out of the device does not). The pull
 * after a synchronising call travels with it: its copies follow the call in the call's message and
 * their replies come right after the call's, in the same round trip (rgpu_call.then, reply_wait.c). A
 * training step of cuDNN (which keeps two managed allocations) paid a round trip per allocation at
 * every synchronisation before. On the call ring (a worker on this host), which carries one reply a
 * message, a synchronisation of the legacy stream takes its pull ahead of it instead: async copies on
 * that stream into the shadows, which then live in pinned memory the worker writes straight into, so
 * that the data is there when the synchronisation's reply comes (plan_ahead). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "digest.h"
#include "failover.h"
#include "rgpu_call.h"
#include "session.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define PAGE 4096          /* compare granule; pushes are runs of changed granules */
#define GAP (16 * PAGE)    /* clean bytes a run may span */
#define H2D cudaMemcpyHostToDevice
#define D2H cudaMemcpyDeviceToHost /* copy kinds of rgpu_copy_call */
#define ATTACH_GLOBAL cudaMemAttachGlobal
#define ATTACH_HOST cudaMemAttachHost
#define ATTACH_SINGLE cudaMemAttachSingle

typedef struct region {
    uint64_t addr;    /* device address == host address */
    size_t mapped;    /* bytes mapped (the server's allocation, a multiple of host pages); of a
                       * module's variable, its size: no whole pages, nor its own */
    int dev;
    int var;          /* a module's managed variable (rgpu_managed_adopt): its pages may hold the
                       * module's other variables and stay mapped for the whole run */
    int host_only;    /* attached to the host (cudaMemAttachHost): the host's while kernels run; pulls merge */
    uint8_t *shadow;  /* the device's contents as of the last push or pull */
    int shadow_pinned; /* 1: the shadow is pinned memory (rgpu_pinned_own), made at its first pull ahead;
                        * -1: none could be made */
    uint8_t tok[16];  /* the worker's digest of the device's contents the shadow holds, while tok_ok
                       * (rgpuManagedPull: a pull across hosts sends the data only when it changed) */
    int tok_ok;
    uint64_t dig;     /* the failover digest of the shadow's contents, while dig_ok (pulled_digest) */
    int dig_ok;
    int same;         /* of a pull ahead: 1 the device's copy came back as the host's view already is,
                       * 0 it differs, -1 not heard (no failover digest was asked of it) */
    struct region *next;
} region;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static region *regions;
static int nregions;                  /* read without the lock: 0 keeps every hook free */
static int busy[RGPU_MAX_DEVICES];    /* device work sent since the last pull */
static __thread int inside;           /* the pushes' and pulls' own calls are not hooked */
static __thread int ahead = -1;       /* the device whose pull ahead this thread holds mu for, or -1 */

static region *find(uint64_t p) {
    for (region *r = regions; r; r = r->next)
        if (p >= r->addr && p < r->addr + r->mapped) return r;
    return NULL;
}

/* ---- push and pull ------------------------------------------------------------------------ */

static void shadow_free(region *r) {
    if (r->shadow_pinned == 1) rgpu_pinned_own_free(r->shadow);
    else munmap(r->shadow, r->mapped);
}

/* The compare granule at off: a whole one, or a variable's last part. */
static size_t granule(const region *r, size_t off) { return r->mapped - off < PAGE ? r->mapped - off : PAGE; }

/* `makes_busy`: the call that pushes makes the device busy, so the push may copy from a pinned
 * shadow (below). */
static int push_region(region *r, int makes_busy) {
    const uint8_t *host = (const uint8_t *)(uintptr_t)r->addr;
    size_t off = 0;
    while (off < r->mapped) {
        size_t n = granule(r, off);
        if (!memcmp(host + off, r->shadow + off, n)) { off += n; continue; }
        /* one copy per run, clean gaps of up to GAP included: rewriting what the device already
         * holds is cheaper than another message */
        size_t end = off + n, scan = end;
        while (scan < r->mapped && scan - end < GAP) {
            size_t m = granule(r, scan);
            scan += m;
            if (memcmp(host + scan - m, r->shadow + scan - m, m)) end = scan;
        }
        /* async on the legacy stream: the data is copied into the message, which goes ahead of
         * the device work that triggered the push, and the server copies before running it. A
         * pinned shadow (a worker on this host: plan_ahead) is the copy's source instead, the
         * host's bytes put there first: the copy names that memory, so the message carries no data
         * frame and keeps to the call ring (a frame sends it on the socket, a ZeroMQ round trip of
         * tens of microseconds against the ring's one or two). Nothing writes those bytes before
         * the device has read them: the call that pushes is device work that makes the device busy
         * (`makes_busy`), so the next push waits for a pull, and every pull reads the device after the
         * legacy stream's earlier work, this copy's too; the pull ahead's own copy into the shadow
         * is on that stream after this one. Should the call fail (the session lost, or holding an
         * error every later call reports), the shadow holds bytes the device may not have. */
        int from_shadow = makes_busy && r->shadow_pinned == 1;
        if (from_shadow) memcpy(r->shadow + off, host + off, end - off);
        const uint8_t *src = from_shadow ? r->shadow + off : host + off;
        int rc = rgpu_copy_call(RGPU_DRIVER, H2D, r->addr + off, 0, end - off, (void *)src, NULL, 1, r->dev);
        if (rc) return rc;
        if (!from_shadow) memcpy(r->shadow + off, host + off, end - off);
        r->dig_ok = r->tok_ok = 0;
        off = end;
    }
    return 0;
}

static int pull_range(region *r, size_t off, size_t n) {
    int rc = rgpu_copy_call(RGPU_DRIVER, D2H, 0, r->addr + off, n, r->shadow + off, NULL, 0, r->dev);
    if (rc == 0) memcpy((uint8_t *)(uintptr_t)r->addr + off, r->shadow + off, n);
    r->dig_ok = r->tok_ok = 0;
    return rc;
}

/* The reply of an rgpuManagedPull call c that named `known` (NULL: nothing): its data into dst (n
 * bytes), or none when the worker found the contents `known` is the digest of; their digest into tok.
 * 1: the data came, 0: unchanged, -1: no usable answer (dst may hold part of the data). */
static int pull_reply(rgpu_call *c, const void *known, void *dst, size_t n, uint8_t tok[16]) {
    memset(tok, 0, 16);
    rgpu_out_b(c, tok, 16);
    if (c->nout_bulk > 0) return rgpu_out_bulk_into(c, dst, n) == 0 ? 1 : -1;
    return known && !memcmp(tok, known, 16) ? 0 : -1;
}

/* r's token after a pull that named it: the contents' digest, or none (the pull is made again whole). */
static int took(region *r, rgpu_call *c) {
    uint8_t tok[16];
    int t = pull_reply(c, r->tok_ok ? r->tok : NULL, r->shadow, r->mapped, tok);
    r->tok_ok = t >= 0;
    if (t) r->dig_ok = 0; /* the shadow changed, or may hold part of the data */
    if (t >= 0) memcpy(r->tok, tok, sizeof tok);
    return t;
}

/* A sync pull of r (managed memory's pull after a call, a session across hosts): see the record
 * (protocol/contract/calls/managed.toml). On the call ring a copy through the session segment is a
 * microsecond or two and its data never crosses a network: pull_range. */
static int pull_whole(region *r) {
    if (rgpu_session_on_ring(r->dev)) return pull_range(r, 0, r->mapped);
    uint8_t tok[16];
    int rc = rgpuManagedPull(r->dev, r->addr, r->mapped, r->tok_ok ? r->tok : NULL, r->tok_ok ? sizeof r->tok : 0,
                             r->shadow, tok);
    r->dig_ok = 0, r->tok_ok = rc == 0;
    if (rc == 0) {
        memcpy(r->tok, tok, sizeof tok);
        memcpy((uint8_t *)(uintptr_t)r->addr, r->shadow, r->mapped);
    }
    return rc;
}

CUresult rgpuManagedPull(int dev, CUdeviceptr addr, size_t count, const void *known, size_t known_size, void *dst,
                         void *digest) {
    if (known && known_size != 16) return RGPU_INVALID_VALUE; /* the worker's digests are 16 bytes */
    rgpu_call c;
    rgpu_wire_rgpuManagedPull(&c, addr, count, known, known_size);
    c.dev = dev;
    int rc = rgpu_sync(&c);
    if (rc == 0 && pull_reply(&c, known, dst, count, digest) < 0) rc = RGPU_INVALID_VALUE;
    rgpu_end(&c);
    return rc;
}

/* A host-attached region's pull: only the granules the device changed (they differ from the shadow)
 * come back; the host's own changes stay for the next push. */
static int pull_merge(region *r) {
    uint8_t *now = malloc(r->mapped);
    if (!now) return RGPU_OUT_OF_MEMORY;
    int rc = rgpu_copy_call(RGPU_DRIVER, D2H, 0, r->addr, r->mapped, now, NULL, 0, r->dev);
    uint8_t *host = (uint8_t *)(uintptr_t)r->addr;
    for (size_t off = 0; rc == 0 && off < r->mapped; off += granule(r, off)) {
        size_t n = granule(r, off);
        if (memcmp(now + off, r->shadow + off, n)) {
            memcpy(host + off, now + off, n);
            memcpy(r->shadow + off, now + off, n);
            r->dig_ok = r->tok_ok = 0;
        }
    }
    free(now);
    return rc;
}

/* Both with mu held. `makes_busy`: the call that pushes makes the device busy (push_region). */
static int push(int dev, int makes_busy) {
    int rc = 0;
    inside = 1;
    for (region *r = regions; r && !rc; r = r->next)
        if (r->dev == dev) rc = push_region(r, makes_busy);
    inside = 0;
    return rc;
}

static int pull(int dev) {
    int rc = 0;
    inside = 1;
    for (region *r = regions; r && !rc; r = r->next)
        if (r->dev == dev) rc = r->host_only ? pull_merge(r) : pull_whole(r);
    inside = 0;
    return rc;
}

/* ---- the hooks around every call (submit/call.c) ------------------------------------------- */

/* Which calls make the device read or write memory (the host's writes must be there first) and which
 * return once the device's work is done (the host may look again) are their records' flags
 * (device_work, sync: protocol/contract/calls/), read from the call, not from its name. A memset
 * counts as a synchronisation too: programs read managed memory right after one, and being more
 * synchronous than CUDA is always allowed. */

#define FOLLOWERS_MAX 16 /* regions pulled with the call; a device with more pulls them after it */

/* The pull of device dev's regions as followers of the sync call c (mu held, and kept held until
 * managed_after: the regions cannot change meanwhile). 0 when there are too many. */
static int plan_pull(rgpu_call *c, int dev) {
    /* On the call ring a sync call and each pull after it are round trips of a microsecond or two, and
     * the pulls' data comes through the session segment; followers would take the socket instead (the
     * ring carries one reply a message), a ZeroMQ round trip of tens of microseconds with the data in
     * frames. So there the pull goes after the call (managed_after), as when there are too many. */
    if (rgpu_session_on_ring(dev)) return 0;
    int n = 0;
    for (region *r = regions; r; r = r->next) n += r->dev == dev && !r->host_only;
    if (n == 0 || n > FOLLOWERS_MAX || !(c->then = calloc((size_t)n, sizeof *c->then))) return 0;
    int i = 0;
    for (region *r = regions; r; r = r->next) {
        if (r->dev != dev || r->host_only) continue;
        rgpu_call *f = &c->then[i++];
        rgpu_wire_rgpuManagedPull(f, r->addr, r->mapped, r->tok_ok ? r->tok : NULL, r->tok_ok ? sizeof r->tok : 0);
        f->dev = dev;
    }
    c->nthen = n;
    return 1;
}

/* The followers' data into the regions (mu held): 0 when every one came whole. */
static int take_pull(rgpu_call *c, int dev) {
    int ok = 1, i = 0;
    for (region *r = regions; r && ok; r = r->next) {
        if (r->dev != dev || r->host_only) continue;
        rgpu_call *f = &c->then[i++];
        int t = f->then_rc ? -1 : took(r, f);
        r->same = t < 0 ? -1 : !t;
        ok = t >= 0;
    }
    for (region *r = regions; r; r = r->next) { /* all or none: a failed pull is made again whole */
        if (r->dev != dev || r->host_only) continue;
        /* unchanged: the view is what the host saw last, as the shadow (the push made it so) */
        if (ok && r->same == 0) memcpy((uint8_t *)(uintptr_t)r->addr, r->shadow, r->mapped);
        r->same = -1;
    }
    return ok ? 0 : -1;
}

/* The host-attached regions' pulls, which merge and so never go with the call (mu held). */
static int pull_merges(int dev) {
    int rc = 0;
    inside = 1;
    for (region *r = regions; r && !rc; r = r->next)
        if (r->dev == dev && r->host_only) rc = pull_merge(r);
    inside = 0;
    return rc;
}

/* The pull ahead of a sync call c on the call ring (mu held, and kept held until managed_after): where
 * c synchronises the legacy stream, one async copy of each of device dev's regions on that stream,
 * queued ahead of c in its message. A copy on the legacy stream waits for all earlier work of every
 * blocking stream, as the sync copies of the pull after the call did, and c waits for the copies: so
 * the data is the same, and in the shadows when c's reply comes (the worker writes pinned memory it
 * names as the copy runs, and a --failover session's late copies before that reply: memcpy.c). Other
 * synchronisations (a device synchronize also waits for non-blocking streams, which a copy put ahead
 * of it would not) and too many or too large regions keep the pull after the call. 1: it went. */
#define AHEAD_MAX_BYTES (RGPU_LATE_MAX_BYTES / 2) /* within what a session holds of copies' late data */
static int plan_ahead(rgpu_call *c, int dev) {
    if (c->id != RGPU_ID_cudaStreamSynchronize && c->id != RGPU_ID_cuStreamSynchronize) return 0;
    mp_reader rd;
    mp_obj o;
    mp_rinit(&rd, c->args.buf, c->args.len);
    if (mp_next(&rd, &o) || o.type != MP_UINT || mp_as_uint(&o) > 1) return 0; /* 0 or CU_STREAM_LEGACY */
    uint64_t stream = mp_as_uint(&o);
    if (!rgpu_session_on_ring(dev)) return 0;
    int n = 0;
    size_t bytes = 0;
    for (region *r = regions; r; r = r->next)
        if (r->dev == dev && !r->host_only && (++n > FOLLOWERS_MAX || (bytes += r->mapped) > AHEAD_MAX_BYTES)) return 0;
    if (n == 0) return 0;
    for (region *r = regions; r; r = r->next) {
        if (r->dev != dev || r->host_only || r->shadow_pinned == 1) continue;
        uint8_t *pinned = r->shadow_pinned ? NULL : rgpu_pinned_own(r->mapped);
        if (!pinned) {
            r->shadow_pinned = -1;
            return 0;
        }
        memcpy(pinned, r->shadow, r->mapped);
        munmap(r->shadow, r->mapped);
        r->shadow = pinned, r->shadow_pinned = 1;
    }
    int rc = 0;
    inside = 1;
    for (region *r = regions; r && !rc; r = r->next)
        if (r->dev == dev && !r->host_only) {
            r->same = -1;
            rc = rgpu_copy_call(RGPU_DRIVER, D2H, 0, r->addr, r->mapped, r->shadow, (const void *)(uintptr_t)stream, 1, dev);
        }
    inside = 0;
    if (rc == 0) ahead = dev;
    /* a copy not sent (the session's earlier error): the pull after the call, which hears it too */
    return c->pull_ahead = rc == 0;
}

/* A --failover session's log digests the data of every copy out of the device, the pull ahead's
 * too, as it lands in the shadows (copy_late.c, before the synchronisation's reply). A training loop
 * whose libraries keep a few small managed buffers the device seldom writes (mapped host memory is
 * managed memory in a --failover session) would digest all of them, and copy them into the host's
 * view, at every step. So a shadow that came back as the view already is (what the host saw last,
 * which it may not write while device work is outstanding, and which the push made the shadow before
 * that work) keeps the digest it had, and the view is not copied over (managed_after). Its digest was
 * taken of those bytes when they last came, unless the shadow changed otherwise since (a push, a pull
 * of another kind: dig_ok). A host that wrote the view while kernels ran (which CUDA forbids here)
 * could at worst log the digest of what it wrote over: a replay then compares unequal and the session
 * refuses to carry on, never a wrong answer. 0: not a shadow this thread's pull ahead is taking. */
static int pulled_digest(const void *data, size_t n, uint64_t *dig) {
    if (ahead < 0) return 0; /* mu is this thread's: the regions hold still */
    for (region *r = regions; r; r = r->next) {
        if (r->dev != ahead || r->host_only || r->shadow != data || r->mapped != n) continue;
        r->same = !memcmp(data, (const void *)(uintptr_t)r->addr, n);
        if (!r->same || !r->dig_ok) {
            rgpu_dig d = rgpu_dig_start();
            rgpu_dig_add(&d, data, n);
            r->dig = rgpu_dig_end(&d), r->dig_ok = 1;
        }
        *dig = r->dig;
        return 1;
    }
    return 0;
}

static void end_pull(rgpu_call *c) {
    for (int i = 0; i < c->nthen; i++) {
        rgpu_end(&c->then[i]);
        mp_free(&c->then[i].args);
    }
    free(c->then);
    c->then = NULL;
    c->nthen = 0;
}

static int managed_before(rgpu_call *c, int waits) {
    if (inside || !__atomic_load_n(&nregions, __ATOMIC_ACQUIRE) || c->dev < 0 || c->dev >= RGPU_MAX_DEVICES ||
        !(c->flags & (RGPU_F_DEVICE_WORK | RGPU_F_SYNC)))
        return 0;
    int rc = 0;
    pthread_mutex_lock(&mu);
    if (c->flags & RGPU_F_DEVICE_WORK) {
        /* While device work is outstanding the host may not write managed memory: nothing to push. */
        if (!busy[c->dev]) rc = push(c->dev, !c->device_reads);
        /* a copy out of the device changes nothing there: no pull after it */
        if (!c->device_reads) busy[c->dev] = 1;
    }
    if (rc == 0 && waits && (c->flags & RGPU_F_SYNC) && busy[c->dev] && c->id != RGPU_ID_cudaDeviceReset &&
        (plan_ahead(c, c->dev) || plan_pull(c, c->dev)))
        return 0; /* mu stays held until managed_after */
    pthread_mutex_unlock(&mu);
    return rc;
}

static void drop_all(int dev);

static void managed_after(rgpu_call *c, int rc) {
    if (c->pull_ahead) { /* its pull went ahead of it (mu held since managed_before) */
        c->pull_ahead = 0;
        ahead = -1;
        int prc = 0;
        for (region *r = regions; r; r = r->next) {
            if (r->dev != c->dev || r->host_only) continue;
            if (rc == 0 && r->same != 1) memcpy((uint8_t *)(uintptr_t)r->addr, r->shadow, r->mapped);
            if (rc || r->same == -1) r->dig_ok = 0; /* the shadow changed unheard */
            r->same = -1;
        }
        if (rc == 0) prc = pull_merges(c->dev);
        if (prc) rgpu_log(RGPU_LOG_ERROR, "managed memory: pulling device %d's copy failed (%d)", c->dev, prc);
        else if (rc == 0) busy[c->dev] = 0;
        pthread_mutex_unlock(&mu);
        return;
    }
    if (c->then) { /* its pull went with it (mu held since managed_before) */
        int prc = rc ? 0 : take_pull(c, c->dev);
        end_pull(c);
        if (rc == 0 && prc) prc = pull(c->dev); /* a follower did not come back: the pull after it, as before */
        else if (rc == 0) prc = pull_merges(c->dev);
        if (prc) rgpu_log(RGPU_LOG_ERROR, "managed memory: pulling device %d's copy failed (%d)", c->dev, prc);
        else if (rc == 0) busy[c->dev] = 0;
        pthread_mutex_unlock(&mu);
        return;
    }
    if (rc || inside || !__atomic_load_n(&nregions, __ATOMIC_ACQUIRE) || c->dev < 0 || c->dev >= RGPU_MAX_DEVICES)
        return; /* a call whose before found no managed memory stops here (a program without any never gets here) */
    if (c->id == RGPU_ID_cudaDeviceReset) { drop_all(c->dev); return; } /* the server freed them */
    if (!(c->flags & RGPU_F_SYNC)) return;
    pthread_mutex_lock(&mu);
    if (busy[c->dev]) {
        int prc = pull(c->dev);
        if (prc) rgpu_log(RGPU_LOG_ERROR, "managed memory: pulling device %d's copy failed (%d)", c->dev, prc);
        else busy[c->dev] = 0;
    }
    pthread_mutex_unlock(&mu);
}

/* Coherence of managed memory around each call (before: may push the host's writes; after: may pull
 * the device's copy), by the call's flags. Every call: cudaDeviceReset, whose record has none of them,
 * frees the device's regions too. */
static const rgpu_call_hooks coherence = {.live = &nregions, .flags = 0, .before = managed_before,
                                          .after = managed_after};

__attribute__((constructor)) static void register_coherence(void) {
    rgpu_call_hooks_add(&coherence);
    rgpu_fo_late_digests(pulled_digest);
}

/* ---- allocation and free ------------------------------------------------------------------ */

static int free_on_server(int face, int dev, uint64_t addr) {
    rgpu_call c;
    int rc;
    if (rgpu_placed_free(face, dev, addr, &rc)) return rc; /* one this process placed (placed.c) */
    if (face == RGPU_RUNTIME) rgpu_wire_cudaFree(&c, addr);
    else rgpu_wire_cuMemFree_v2(&c, addr);
    c.dev = dev;
    rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* One managed allocation from the server, with its host pages mapped here at its address: 0, or
 * -1 when this process has something of its own there (the allocation is left on the server), or the
 * server's error. */
static int alloc_once(int face, int *dev, uint64_t *addr, uint64_t *mapped, void **host, void **shadow, size_t size,
                      unsigned flags) {
    rgpu_call c;
    if (face == RGPU_RUNTIME) rgpu_wire_cudaMallocManaged(&c, size, flags);
    else rgpu_wire_cuMemAllocManaged(&c, size, flags);
    *dev = c.dev;
    int rc = rgpu_sync(&c);
    if (rc == 0 && face == RGPU_RUNTIME) rgpu_wire_out_cudaMallocManaged(&c, addr, mapped);
    else if (rc == 0) rgpu_wire_out_cuMemAllocManaged(&c, addr, mapped);
    rgpu_end(&c);
    if (rc) return rc;
    long page = sysconf(_SC_PAGESIZE);
    *host = *shadow = MAP_FAILED;
    if (*addr % page || *mapped % page || *mapped % PAGE) return -1;
    *host = mmap((void *)(uintptr_t)*addr, *mapped, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (*host != MAP_FAILED && *host != (void *)(uintptr_t)*addr) { /* a kernel that took it as a hint */
        munmap(*host, *mapped);
        *host = MAP_FAILED;
    }
    if (*host != MAP_FAILED) *shadow = mmap(NULL, *mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (*shadow != MAP_FAILED) return 0;
    if (*host != MAP_FAILED) munmap(*host, *mapped);
    return -1;
}

/* A server's driver chooses managed addresses in its own address space (the cuda backend's come from
 * the region where this process has its libraries and mappings too): an address this process already
 * uses is kept allocated while the server is asked again, so that it gives another, and is freed once
 * one fits (or the tries are spent). */
#define MAP_TRIES 8
static int alloc_managed(int face, uint64_t *out, size_t size, unsigned flags) {
    uint64_t addr = 0, mapped = 0, taken[MAP_TRIES];
    void *host = MAP_FAILED, *shadow = MAP_FAILED;
    int dev = -1, ntaken = 0, rc;
    while ((rc = alloc_once(face, &dev, &addr, &mapped, &host, &shadow, size, flags)) == -1) {
        taken[ntaken++] = addr;
        if (ntaken == MAP_TRIES) break;
        rgpu_log(RGPU_LOG_DEBUG, "managed allocation at 0x%llx: in use in this process, asking for another",
                 (unsigned long long)addr);
    }
    inside = 1;
    for (int i = 0; i < ntaken; i++) free_on_server(face, dev, taken[i]);
    inside = 0;
    region *r = rc == 0 ? calloc(1, sizeof *r) : NULL;
    if (rc == 0 && !r) {
        munmap(host, mapped);
        munmap(shadow, mapped);
        inside = 1;
        free_on_server(face, dev, addr);
        inside = 0;
        return rgpu_record(face, RGPU_OUT_OF_MEMORY);
    }
    if (rc == -1) {
        rgpu_log(RGPU_LOG_ERROR, "managed allocation of %zu bytes: this process cannot map host memory at any of the "
                 "%d addresses the server gave (the last 0x%llx); freed them", size, MAP_TRIES,
                 (unsigned long long)addr);
        return rgpu_record(face, RGPU_OUT_OF_MEMORY);
    }
    if (rc) return rc;
    /* Host pages, shadow and device copy all start zeroed (the server clears the allocation). */
    r->addr = addr;
    r->mapped = mapped;
    r->dev = dev;
    r->host_only = flags == ATTACH_HOST;
    r->shadow = shadow;
    pthread_mutex_lock(&mu);
    r->next = regions;
    regions = r;
    __atomic_add_fetch(&nregions, 1, __ATOMIC_RELEASE);
    rgpu_managed_note(r->addr, r->mapped, r->dev, r->host_only); /* the address registry answers for it */
    pthread_mutex_unlock(&mu);
    *out = addr;
    return RGPU_SUCCESS;
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags) {
    if (!devPtr) return rgpu_invalid_value(RGPU_RUNTIME);
    uint64_t addr = 0;
    int rc = alloc_managed(RGPU_RUNTIME, &addr, size, flags);
    if (rc == 0) *devPtr = (void *)(uintptr_t)addr;
    return rc;
}

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t size, unsigned int flags) {
    if (!dptr) return rgpu_invalid_value(RGPU_DRIVER);
    uint64_t addr = 0;
    int rc = alloc_managed(RGPU_DRIVER, &addr, size, flags);
    if (rc == 0) *dptr = addr;
    return rc;
}

/* A managed pointer leaves the table before the free goes out, so the pull that follows the free (a
 * synchronisation) does not read it; it comes back if the server refuses. */
static int free_any(int face, uint64_t addr) {
    region *r = NULL, **link;
    pthread_mutex_lock(&mu);
    for (link = &regions; *link; link = &(*link)->next)
        if ((*link)->addr == addr) {
            if ((*link)->var) { /* a module's variable: only its module's unload frees it */
                pthread_mutex_unlock(&mu);
                return rgpu_invalid_value(face);
            }
            r = *link;
            *link = r->next;
            __atomic_sub_fetch(&nregions, 1, __ATOMIC_RELEASE);
            rgpu_managed_forget(r->addr);
            break;
        }
    pthread_mutex_unlock(&mu);
    /* Device memory is freed by its own device's server, whichever device is current, as CUDA
     * finds the allocation from the address (the table knows, or with several devices the servers
     * are asked); and forgotten first (the address registry, addresses.c), a miss costing only a round trip. */
    int dev = rgpu_current_device(), known;
    uint64_t base;
    if (r) dev = r->dev;
    else if (rgpu_allocs_find(addr, &known, &base)) dev = base == addr ? known : dev;
    else if (addr && rgpu_device_count() > 1 && (known = rgpu_device_of((const void *)(uintptr_t)addr)) >= 0)
        dev = known;
    if (!r) rgpu_allocs_forget(dev, addr);
    int rc = free_on_server(face, dev, addr);
    if (r && rc == 0) {
        /* With the device's last region gone there is nothing left to pull: a region made later
         * starts clean, or its host writes would never be pushed (busy means "the device's copy
         * is newer", which only a pull clears, and no pull runs without regions). */
        pthread_mutex_lock(&mu);
        int others = 0;
        for (region *o = regions; o && !others; o = o->next) others = o->dev == r->dev;
        if (!others) busy[r->dev] = 0;
        pthread_mutex_unlock(&mu);
        munmap((void *)(uintptr_t)r->addr, r->mapped);
        inside = 1; /* a pinned shadow's release asks the workers it was named to */
        shadow_free(r);
        inside = 0;
        rgpu_advice_forget(r->addr);
        free(r);
    } else if (r) {
        pthread_mutex_lock(&mu);
        r->next = regions;
        regions = r;
        __atomic_add_fetch(&nregions, 1, __ATOMIC_RELEASE);
        rgpu_managed_note(r->addr, r->mapped, r->dev, r->host_only);
        pthread_mutex_unlock(&mu);
    }
    return rc;
}

/* cudaDeviceReset freed the device's allocations: their host mappings go too. */
static void drop_all(int dev) {
    pthread_mutex_lock(&mu);
    for (region **link = &regions; *link;) {
        region *r = *link;
        if (r->dev != dev) { link = &r->next; continue; }
        *link = r->next;
        __atomic_sub_fetch(&nregions, 1, __ATOMIC_RELEASE);
        rgpu_managed_forget(r->addr);
        if (!r->var) munmap((void *)(uintptr_t)r->addr, r->mapped); /* a variable's pages may be shared */
        inside = 1;
        shadow_free(r);
        inside = 0;
        rgpu_advice_forget(r->addr);
        free(r);
    }
    busy[dev] = 0;
    pthread_mutex_unlock(&mu);
}

/* Graph memory is released by its graphs (graph_mem.c), and a free is illegal while a stream
 * captures: those checks come first (capture = "hook" in their records), as in the generated stubs
 * of other capture-aware calls. */
cudaError_t cudaFree(void *devPtr) {
    int rc;
    if (rgpu_capture_cudaFree(&rc, devPtr)) return rc;
    return free_any(RGPU_RUNTIME, (uint64_t)(uintptr_t)devPtr);
}
CUresult cuMemFree_v2(CUdeviceptr dptr) {
    int rc;
    if (rgpu_capture_cuMemFree_v2(&rc, dptr)) return rc;
    return free_any(RGPU_DRIVER, dptr);
}

/* ---- a module's managed variables ---------------------------------------------------------- */

/* Whether some variable's region has host pages mapped over [p, p+page) (mu held). */
static int var_page(uint64_t p, long page) {
    for (region *r = regions; r; r = r->next)
        if (r->var && p < (r->addr + r->mapped + page - 1) / page * page && p + page > r->addr / page * page)
            return 1;
    return 0;
}

/* __managed__ variables live where the device's module put them (the server's module memory, the
 * driver's managed segment): this process maps host pages over that range, at the same address, and
 * keeps exactly the variable's bytes coherent, pushed and pulled like an allocation's. Variables of
 * one module often share a page: each is its own region, the page mapped once. */
/* Unmap the pages of [addr, end) this variable mapped itself (those no other variable holds). */
static void unmap_own(uint64_t addr, uint64_t end, long page) {
    for (uint64_t p = addr / page * page; p < end; p += page)
        if (!var_page(p, page)) munmap((void *)(uintptr_t)p, page);
}

int rgpu_managed_adopt(int dev, uint64_t addr, size_t size) {
    long page = sysconf(_SC_PAGESIZE);
    int rc = 0;
    uint64_t p;
    if (!size) return RGPU_INVALID_VALUE;
    pthread_mutex_lock(&mu);
    if (find(addr)) goto out; /* adopted already (another translation unit's registration) */
    for (p = addr / page * page; p < addr + size; p += page) {
        if (var_page(p, page)) continue;
        void *m = mmap((void *)(uintptr_t)p, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                       -1, 0);
        if (m != (void *)(uintptr_t)p) {
            if (m != MAP_FAILED) munmap(m, page);
            rgpu_log(RGPU_LOG_ERROR, "managed variable at 0x%llx: this process has something of its own there",
                     (unsigned long long)addr);
            unmap_own(addr, p, page);
            rc = RGPU_OUT_OF_MEMORY;
            goto out;
        }
    }
    region *r = calloc(1, sizeof *r);
    void *shadow = r ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;
    if (shadow == MAP_FAILED) {
        free(r);
        unmap_own(addr, addr + size, page);
        rc = RGPU_OUT_OF_MEMORY;
        goto out;
    }
    r->addr = addr, r->mapped = size, r->dev = dev, r->var = 1, r->shadow = shadow;
    inside = 1;
    rc = pull_range(r, 0, size); /* its initial value, or what kernels wrote before the host looked */
    inside = 0;
    if (rc) {
        munmap(shadow, size);
        free(r);
        unmap_own(addr, addr + size, page);
        goto out;
    }
    r->next = regions;
    regions = r;
    __atomic_add_fetch(&nregions, 1, __ATOMIC_RELEASE);
    rgpu_managed_note(r->addr, r->mapped, r->dev, r->host_only);
out:
    pthread_mutex_unlock(&mu);
    return rc;
}

/* ---- attaching to streams ------------------------------------------------------------------ */

/* Attached to the host, an allocation is the host's to touch even while kernels run (that is what
 * the flag is for on a device without concurrent managed access): it leaves the protocol, after
 * bringing back what the device's earlier work wrote. Attached to the device again (globally or to
 * a stream), what the host wrote meanwhile goes to the device before any later work. The server
 * checks the arguments. */
static int attach(int face, void *stream, uint64_t p, size_t length, unsigned flags) {
    rgpu_call c;
    if (face == RGPU_RUNTIME) rgpu_wire_cudaStreamAttachMemAsync(&c, stream, p, length, flags);
    else rgpu_wire_cuStreamAttachMemAsync(&c, stream, p, length, flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    if (rc) return rc;
    pthread_mutex_lock(&mu);
    region *r = find(p);
    if (r) {
        int was = r->host_only;
        r->host_only = flags == ATTACH_HOST;
        rgpu_managed_attached(r->addr, r->host_only);
        inside = 1;
        if (was && !r->host_only) rc = push_region(r, 0);
        else if (!was && r->host_only && busy[r->dev]) rc = pull_range(r, 0, r->mapped);
        inside = 0;
    }
    pthread_mutex_unlock(&mu);
    return rc ? rgpu_record(face, rc) : RGPU_SUCCESS;
}

/* Attach and prefetch are stream-ordered work a graph cannot hold yet: refused on a capturing
 * stream (capture.c), as their records' capture rules say (RGPU_GUARD_*, generated). */
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length, unsigned int flags) {
    int rc = RGPU_GUARD_cudaStreamAttachMemAsync(stream);
    if (rc) return rgpu_record(RGPU_RUNTIME, rc);
    return attach(RGPU_RUNTIME, stream, (uint64_t)(uintptr_t)devPtr, length, flags);
}
CUresult cuStreamAttachMemAsync(CUstream stream, CUdeviceptr dptr, size_t length, unsigned int flags) {
    int rc = RGPU_GUARD_cuStreamAttachMemAsync(stream);
    if (rc) return rgpu_record(RGPU_DRIVER, rc);
    return attach(RGPU_DRIVER, stream, dptr, length, flags);
}

/* ---- prefetch and advice ------------------------------------------------------------------- */

/* CUmemLocation is the Runtime's cudaMemLocation under the Driver's name (same layout and numbers). */
typedef struct cudaMemLocation mem_location;
_Static_assert(sizeof(CUmemLocation) == sizeof(mem_location), "CUmemLocation is cudaMemLocation");
#define LOC_DEVICE cudaMemLocationTypeDevice
#define LOC_HOST cudaMemLocationTypeHost
#define LOC_HOST_NUMA cudaMemLocationTypeHostNuma
#define LOC_HOST_NUMA_CURRENT cudaMemLocationTypeHostNumaCurrent
#define CPU_DEVICE_ID cudaCpuDeviceId

static int is_host(mem_location l) {
    return (l.type == LOC_DEVICE && l.id == CPU_DEVICE_ID) || l.type == LOC_HOST || l.type == LOC_HOST_NUMA ||
           l.type == LOC_HOST_NUMA_CURRENT;
}
static int is_device(mem_location l) { return l.type == LOC_DEVICE && l.id >= 0 && l.id < rgpu_device_count(); }

/* The managed region holding [p, p+n), or NULL (mu held). */
static region *range_of(uint64_t p, size_t n) {
    region *r = find(p);
    return r && n && p + n <= r->addr + r->mapped ? r : NULL;
}

int rgpu_managed_bounds(uint64_t p, size_t n, uint64_t *base, size_t *size) {
    pthread_mutex_lock(&mu);
    region *r = range_of(p, n);
    if (r) *base = r->addr, *size = r->mapped;
    pthread_mutex_unlock(&mu);
    return r ? 0 : -1;
}

/* A location as advice.c keeps it: a device ordinal, or cudaCpuDeviceId for the host. */
static int where_of(mem_location l) { return is_host(l) ? CPU_DEVICE_ID : l.id; }

/* To a device: the host's writes go now (the device copy is where they will be read). To the host:
 * the device's copy of the range comes back now if device work may have changed it. Stream order
 * needs nothing more: the push goes ahead of all later work, the pull waits for earlier work. */
static int prefetch(int face, uint64_t p, size_t n, mem_location loc, unsigned flags) {
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(face, rc);
    if (flags || !(is_host(loc) || is_device(loc))) return rgpu_invalid_value(face);
    pthread_mutex_lock(&mu);
    region *r = range_of(p, n);
    if (!r) rc = RGPU_INVALID_VALUE;
    else if (r->host_only) {
        /* the host's: nothing moves */
    } else if (is_device(loc) && !busy[r->dev]) {
        inside = 1;
        rc = push_region(r, 0);
        inside = 0;
    } else if (is_host(loc) && busy[r->dev]) {
        size_t off = (p - r->addr) / PAGE * PAGE, end = p - r->addr + n;
        inside = 1;
        rc = pull_range(r, off, end - off);
        inside = 0;
    }
    uint64_t base = r ? r->addr : 0;
    size_t size = r ? r->mapped : 0;
    pthread_mutex_unlock(&mu);
    if (rc == 0) rgpu_advice_prefetched(base, size, p, n, where_of(loc));
    return rc ? rgpu_record(face, rc) : RGPU_SUCCESS;
}

cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location, unsigned int flags, cudaStream_t stream) {
    int rc = RGPU_GUARD_cudaMemPrefetchAsync(stream);
    if (rc) return rgpu_record(RGPU_RUNTIME, rc);
    return prefetch(RGPU_RUNTIME, (uint64_t)(uintptr_t)devPtr, count, location, flags);
}
CUresult cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags, CUstream stream) {
    int rc = RGPU_GUARD_cuMemPrefetchAsync_v2(stream);
    if (rc) return rgpu_record(RGPU_DRIVER, rc);
    return prefetch(RGPU_DRIVER, devPtr, count, (mem_location){(enum cudaMemLocationType)location.type, location.id},
                    flags);
}

/* Batched prefetches and discards (CUDA 13): each range of the batch prefetched as above, to the
 * location of the run it is in (locs[k] from op idxs[k] on); a discard leaves a range's contents as
 * they are, which is one of the values CUDA allows (they are undefined until written). Every range must
 * be managed memory; the whole batch is checked before any of it moves. */
static int batch(int face, const uint64_t *ptrs, const size_t *sizes, size_t count, const mem_location *locs,
                 const size_t *idxs, size_t nlocs, unsigned long long flags, int discard, int prefetching) {
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(face, rc);
    if (!count || !ptrs || !sizes || flags) return rgpu_invalid_value(face);
    if (prefetching) {
        if (!locs || !idxs || !nlocs || nlocs > count || idxs[0] != 0) return rgpu_invalid_value(face);
        for (size_t k = 0; k < nlocs; k++)
            if ((k && idxs[k] <= idxs[k - 1]) || idxs[k] >= count || !(is_host(locs[k]) || is_device(locs[k])))
                return rgpu_invalid_value(face);
    }
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < count && !rc; i++)
        if (!range_of(ptrs[i], sizes[i])) rc = RGPU_INVALID_VALUE;
    pthread_mutex_unlock(&mu);
    if (rc) return rgpu_record(face, rc);
    (void)discard;
    for (size_t i = 0, k = 0; prefetching && i < count && !rc; i++) {
        while (k + 1 < nlocs && idxs[k + 1] <= i) k++;
        rc = prefetch(face, ptrs[i], sizes[i], locs[k], 0);
    }
    return rc;
}

_Static_assert(sizeof(CUdeviceptr) == sizeof(void *), "a device pointer is an address");

cudaError_t cudaMemPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count, struct cudaMemLocation *locs,
                                      size_t *idxs, size_t nlocs, unsigned long long flags, cudaStream_t stream) {
    int rc = RGPU_GUARD_cudaMemPrefetchBatchAsync(stream);
    return rc ? rgpu_record(RGPU_RUNTIME, rc)
              : batch(RGPU_RUNTIME, (const uint64_t *)dptrs, sizes, count, locs, idxs, nlocs, flags, 0, 1);
}
cudaError_t cudaMemDiscardBatchAsync(void **dptrs, size_t *sizes, size_t count, unsigned long long flags,
                                     cudaStream_t stream) {
    int rc = RGPU_GUARD_cudaMemDiscardBatchAsync(stream);
    return rc ? rgpu_record(RGPU_RUNTIME, rc)
              : batch(RGPU_RUNTIME, (const uint64_t *)dptrs, sizes, count, NULL, NULL, 0, flags, 1, 0);
}
cudaError_t cudaMemDiscardAndPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count,
                                                struct cudaMemLocation *locs, size_t *idxs, size_t nlocs,
                                                unsigned long long flags, cudaStream_t stream) {
    int rc = RGPU_GUARD_cudaMemDiscardAndPrefetchBatchAsync(stream);
    return rc ? rgpu_record(RGPU_RUNTIME, rc)
              : batch(RGPU_RUNTIME, (const uint64_t *)dptrs, sizes, count, locs, idxs, nlocs, flags, 1, 1);
}
CUresult cuMemPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *locs, size_t *idxs,
                                 size_t nlocs, unsigned long long flags, CUstream stream) {
    int rc = RGPU_GUARD_cuMemPrefetchBatchAsync(stream);
    return rc ? rgpu_record(RGPU_DRIVER, rc)
              : batch(RGPU_DRIVER, (const uint64_t *)dptrs, sizes, count, (const mem_location *)locs, idxs, nlocs, flags, 0, 1);
}
CUresult cuMemDiscardBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count, unsigned long long flags,
                                CUstream stream) {
    int rc = RGPU_GUARD_cuMemDiscardBatchAsync(stream);
    return rc ? rgpu_record(RGPU_DRIVER, rc) : batch(RGPU_DRIVER, (const uint64_t *)dptrs, sizes, count, NULL, NULL, 0, flags, 1, 0);
}
CUresult cuMemDiscardAndPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *locs,
                                           size_t *idxs, size_t nlocs, unsigned long long flags, CUstream stream) {
    int rc = RGPU_GUARD_cuMemDiscardAndPrefetchBatchAsync(stream);
    return rc ? rgpu_record(RGPU_DRIVER, rc)
              : batch(RGPU_DRIVER, (const uint64_t *)dptrs, sizes, count, (const mem_location *)locs, idxs, nlocs, flags, 1, 1);
}

/* Hints about placement change no result here (the host copy is made coherent at synchronisations
 * whatever they say); they are checked as CUDA checks them and accepted. */
static int advise(int face, uint64_t p, size_t n, int advice, mem_location loc) {
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(face, rc);
    if (advice < 1 || advice > 6) return rgpu_invalid_value(face);
    /* read-mostly (1, 2) ignores the location; the others name a processor */
    if (advice > 2 && !(is_host(loc) || is_device(loc))) return rgpu_invalid_value(face);
    pthread_mutex_lock(&mu);
    region *r = range_of(p, n);
    uint64_t base = r ? r->addr : 0;
    size_t size = r ? r->mapped : 0;
    pthread_mutex_unlock(&mu);
    if (!r) return rgpu_invalid_value(face);
    rgpu_advice_note(base, size, p, n, advice, where_of(loc));
    return RGPU_SUCCESS;
}

cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice, struct cudaMemLocation location) {
    return advise(RGPU_RUNTIME, (uint64_t)(uintptr_t)devPtr, count, advice, location);
}
CUresult cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUmemLocation location) {
    return advise(RGPU_DRIVER, devPtr, count, advice, (mem_location){(enum cudaMemLocationType)location.type, location.id});
}
