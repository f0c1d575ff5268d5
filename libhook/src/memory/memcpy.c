/* Copies between host and device. Host data travels as raw frames beside the call (no msgpack
 * copy); device-to-device copies never leave the server. H2D async copies return at once (the data
 * is copied into the message, so the caller may reuse its buffer, as with pageable memory in CUDA). */
#include <string.h>

#include "copies.h"
#include "graph.h"
#include "rgpu_call.h"
#include "session.h"

#define H2H cudaMemcpyHostToHost
#define H2D cudaMemcpyHostToDevice
#define D2H cudaMemcpyDeviceToHost
#define D2D cudaMemcpyDeviceToDevice
#define DEFAULT cudaMemcpyDefault
/* managed memory whose device copy copies use (not attached to the host) */
#define MANAGED(a) ((a)->kind == RGPU_ADDR_MANAGED && !(a)->host_side)


/* With cudaMemcpyDefault the runtime decides from the pointers (UVA): whether each side is device
 * memory, from the address registry's answer for it (addresses.c); where it has none, the servers
 * are asked, as cudaPointerGetAttributes asks them (peer.c). Managed memory is device memory unless
 * it is attached to the host. */
static int on_device(const rgpu_addr *a, const void *p) {
    if (a->kind == RGPU_ADDR_MANAGED) return !a->host_side;
    if (a->kind == RGPU_ADDR_PINNED) return 0;
    if (a->kind == RGPU_ADDR_DEVICE) return 1;
    return rgpu_device_of(p) >= 0;
}

/* The device whose memory p is, as cudaPointerGetAttributes says (-1: host memory). */
static int device_of(const rgpu_addr *a, const void *p) {
    if (a->kind == RGPU_ADDR_MANAGED || a->kind == RGPU_ADDR_DEVICE) return a->dev;
    if (a->kind == RGPU_ADDR_PINNED) return -1;
    return rgpu_device_of(p);
}

static int resolve(int kind, const rgpu_addr *da, void *dst, const rgpu_addr *sa, const void *src) {
    if (kind != DEFAULT) return kind;
    int d = on_device(da, dst), s = on_device(sa, src);
    return d && s ? D2D : d ? H2D : s ? D2H : H2H;
}

int rgpu_resolve_kind(int kind, void *dst, const void *src) {
    if (kind != DEFAULT) return kind;
    rgpu_addr da, sa;
    rgpu_addr_of(dst, 1, &da);
    rgpu_addr_of(src, 1, &sa);
    return resolve(kind, &da, dst, &sa, src);
}

/* A device-to-device copy between two devices' memory goes through the client (peer.c). */
static int cross_device(int face, const rgpu_addr *da, void *dst, const rgpu_addr *sa, const void *src, size_t n,
                        const void *stream, int async, int *rc) {
    if (rgpu_device_count() < 2) return 0;
    int sd = device_of(sa, src), dd = device_of(da, dst);
    return rgpu_cross_device_copy(face, dst, dd, src, sd, n, stream, async, rc);
}

/* Large copies travel as frames of at least RGPU_H2D_CHUNK bytes (at most RGPU_MAX_CHUNKS of them): the
 * server's allocator recycles buffers of that size instead of faulting in fresh pages for every copy,
 * and the server writes each into device memory as it goes. */

/* The call for bytes [off, off + len) of an H2D copy, made as the copy was: the session sends a
 * large copy in pieces where frames carry its data (copy_pieces.c, rgpu_sync_pieces and rgpu_async_pieces). */
static void h2d_piece(rgpu_call *p, const rgpu_call *whole, size_t off, size_t len) {
    uint64_t dst = whole->piece_dst + off;
    if (whole->face == RGPU_RUNTIME && whole->piece_async) rgpu_wire_cudaMemcpyAsync(p, dst, 0, len, H2D, whole->piece_stream);
    else if (whole->face == RGPU_RUNTIME) rgpu_wire_cudaMemcpy(p, dst, 0, len, H2D);
    else if (whole->piece_async) rgpu_wire_cuMemcpyHtoDAsync_v2(p, dst, len, whole->piece_stream);
    else rgpu_wire_cuMemcpyHtoD_v2(p, dst, len);
    p->dev = whole->dev;
    rgpu_put_bulk(p, (const char *)whole->piece_host + off, len);
}

/* The call that moves a copy, by face, direction and whether it is stream-ordered; its arguments are
 * its record's (protocol/contract/calls/memory.toml), put by the generated encoder. H2D data follows as
 * raw frames; D2H data comes back as frames. On the same host a sync copy's data moves through the
 * session's shared-memory segment instead (shm.c), same call, same errors. */
static int copy_call(int face, int kind, uint64_t dst, uint64_t src, size_t n, void *host, const rgpu_addr *h,
                     const void *stream, int async, int dev) {
    if (async && rgpu_capturing(stream)) {
        /* a copy node; host memory is read (or written) when the graph runs, as in CUDA */
        int rc;
        void *d = kind == D2H ? host : (void *)(uintptr_t)dst;
        const void *s = kind == H2D ? host : (const void *)(uintptr_t)src;
        if (rgpu_capture_copy(face, &rc, d, s, n, kind, (void *)stream)) return rc;
    }
    if (!async) { /* a synchronous copy runs on the legacy stream */
        int rc = rgpu_capture_guard(face, NULL, 1);
        if (rc) return rc;
    }
    /* Pinned memory an earlier async copy out of the device writes when its data comes (RGPU_OUT_LATER):
     * a copy that reads it, in stream order after that one, reads it once the data is in */
    if (kind == H2D && rgpu_sessions_late_overlap(host, n)) rgpu_sessions_drain_late();
    rgpu_call c;
    if (face == RGPU_RUNTIME && async) rgpu_wire_cudaMemcpyAsync(&c, dst, src, n, kind, stream);
    else if (face == RGPU_RUNTIME) rgpu_wire_cudaMemcpy(&c, dst, src, n, kind);
    else if (kind == H2D && async) rgpu_wire_cuMemcpyHtoDAsync_v2(&c, dst, n, stream);
    else if (kind == H2D) rgpu_wire_cuMemcpyHtoD_v2(&c, dst, n);
    else if (kind == D2H && async) rgpu_wire_cuMemcpyDtoHAsync_v2(&c, src, n, stream);
    else if (kind == D2H) rgpu_wire_cuMemcpyDtoH_v2(&c, src, n);
    else return async ? cuMemcpyDtoDAsync_v2(dst, src, n, (CUstream)stream) : cuMemcpyDtoD_v2(dst, src, n);
    if (dev >= 0) c.dev = dev;
    c.device_reads = kind == D2H;
    /* The program's pinned memory, to a worker on this host: the copy names it, no data moves
     * (hostmem.c); the data frames below are only the session's fallback (it moved elsewhere). */
    int pinned = (kind == H2D || kind == D2H) && h->kind == RGPU_ADDR_PINNED && h->within;
    /* A --failover session's worker reads it (the log keeping the data: session.c wire_twin), and writes
     * an async copy's data there before its next reply (below), which the client digests then. */
    int local = pinned && h->pinned.seg && rgpu_session_local(c.dev);
    int fo_beside = pinned && !local && h->pinned.seg && rgpu_session_beside_failover(c.dev);
    int fo_late = fo_beside && async && kind == D2H && n <= RGPU_LATE_COPY_MAX;
    if (local || (fo_beside && (kind == H2D || fo_late)))
        c.pin = h->pinned.seg, c.pin_off = h->seg_off, c.pin_len = n;
    if (kind == H2D) {
        c.piece = h2d_piece, c.piece_dst = dst, c.piece_host = host, c.piece_len = n;
        c.piece_stream = stream, c.piece_async = async;
        size_t chunk = n / RGPU_MAX_CHUNKS + 1 > RGPU_H2D_CHUNK ? n / RGPU_MAX_CHUNKS + 1 : RGPU_H2D_CHUNK;
        for (size_t off = 0; off < n; off += chunk)
            rgpu_put_bulk(&c, (const char *)host + off, n - off < chunk ? n - off : chunk);
    }
    /* Only H2D and D2D can be fire-and-forget; D2H must bring the data back, unless it lands in
     * pinned memory the worker maps (the program reads it after synchronising, as in CUDA), or in pinned
     * memory it does not map, whose data comes before the next reply (the program reads it after a
     * synchronisation, which has a reply): PyTorch's `.item()` is then one round trip across hosts. */
    /* A --failover session beside its worker names the memory too (fo_late): the worker writes the
     * data there before its next reply instead of sending it, so that reply keeps to the call ring
     * (PyTorch's `.item()` is one ring round trip, as without --failover), and the log, which keeps the
     * copy without the name (session.c wire_twin), checks the data's digest taken at that reply. */
    if (async && kind == D2H && (!c.pin || fo_late) && n <= RGPU_LATE_COPY_MAX && pinned && (fo_late || !fo_beside))
        c.late_dst = host, c.late_len = n;
    if (async && (kind != D2H || c.pin || c.late_dst)) return rgpu_async(&c);
    if (kind == H2D) c.shm = 1;
    if (kind == D2H) { c.shm = 2; c.shm_dst = host; c.shm_cap = n; }
    int rc = rgpu_sync(&c);
    if (rc == 0 && kind == D2H && !c.pin_used && c.shm_got != n && rgpu_out_bulk_into(&c, host, n) != 0)
        rc = rgpu_record(face, RGPU_INVALID_VALUE); /* the data came in frames: not all of it */
    rgpu_end(&c);
    return rc;
}

int rgpu_copy_call(int face, int kind, uint64_t dst, uint64_t src, size_t n, void *host, const void *stream,
                   int async, int dev) {
    rgpu_addr h;
    rgpu_addr_of(host, n, &h);
    return copy_call(face, kind, dst, src, n, host, &h, stream, async, dev);
}

/* The device whose memory a sync copy names, when the registry says it is another device's than the
 * current one: under unified addressing CUDA copies by address, whichever device is current, so the
 * copy goes to that device's server. -1: the current device's, as for memory the registry does not
 * know (and for async copies, which are ordered in a stream of the current device). */
static int owner_of(const rgpu_addr *a) {
    return rgpu_device_count() > 1 && a->kind == RGPU_ADDR_DEVICE && a->dev != rgpu_current_device() ? a->dev : -1;
}

static int runtime_copy(void *dst, const void *src, size_t n, int kind, const void *stream, int async) {
    if (n == 0) return RGPU_SUCCESS;
    if (kind < H2H || kind > DEFAULT || !dst || !src) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_addr da, sa; /* what each side is: asked once */
    rgpu_addr_of(dst, n, &da);
    rgpu_addr_of(src, n, &sa);
    /* Managed memory named as host memory is copied through its device copy, as the device's
     * earlier work left it, not from a host copy that is only made right at synchronisations. */
    if (MANAGED(&da) || MANAGED(&sa)) kind = DEFAULT;
    kind = resolve(kind, &da, dst, &sa, src);
    if (kind == H2H) {
        int rc;
        if (rgpu_sessions_late_overlap(src, n) || rgpu_sessions_late_overlap(dst, n)) rgpu_sessions_drain_late();
        if (async && rgpu_capture_copy(RGPU_RUNTIME, &rc, dst, src, n, H2H, (void *)stream)) return rc;
        if (!async && (rc = rgpu_capture_guard(RGPU_RUNTIME, NULL, 1))) return rc;
        /* the driver's host-to-host copy is a CPU copy too: a large one gets the copy threads */
        if ((const char *)dst + n <= (const char *)src || (const char *)src + n <= (const char *)dst) rgpu_copy(dst, src, n);
        else memmove(dst, src, n);
        return RGPU_SUCCESS;
    }
    int rc;
    if (kind == D2D && cross_device(RGPU_RUNTIME, &da, dst, &sa, src, n, stream, async, &rc)) return rc;
    void *host = kind == H2D ? (void *)src : kind == D2H ? dst : NULL;
    int dev = async || kind == D2D ? -1 : owner_of(kind == H2D ? &da : &sa);
    return copy_call(RGPU_RUNTIME, kind, kind == D2H ? 0 : (uint64_t)(uintptr_t)dst, kind == H2D ? 0 : (uint64_t)(uintptr_t)src,
                     n, host, kind == H2D ? &sa : &da, stream, async, dev);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind) { return runtime_copy(dst, src, n, kind, NULL, 0); }
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t stream) { return runtime_copy(dst, src, n, kind, stream, 1); }



/* The Driver's copies: each side asked of the registry once. As in runtime_copy, a managed "host" side
 * is copied through its device copy. */
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
    if (n == 0) return RGPU_SUCCESS;
    if (!src) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_addr sa, da;
    rgpu_addr_of(src, n, &sa);
    if (MANAGED(&sa)) return cuMemcpyDtoD_v2(dst, (uint64_t)(uintptr_t)src, n);
    rgpu_addr_of((const void *)(uintptr_t)dst, n, &da);
    return copy_call(RGPU_DRIVER, H2D, dst, 0, n, (void *)src, &sa, NULL, 0, owner_of(&da));
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream stream) {
    if (n == 0) return RGPU_SUCCESS;
    if (!src) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_addr sa;
    rgpu_addr_of(src, n, &sa);
    if (MANAGED(&sa)) return cuMemcpyDtoDAsync_v2(dst, (uint64_t)(uintptr_t)src, n, stream);
    return copy_call(RGPU_DRIVER, H2D, dst, 0, n, (void *)src, &sa, stream, 1, -1);
}
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
    if (n == 0) return RGPU_SUCCESS;
    if (!dst) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_addr da, sa;
    rgpu_addr_of(dst, n, &da);
    if (MANAGED(&da)) return cuMemcpyDtoD_v2((uint64_t)(uintptr_t)dst, src, n);
    rgpu_addr_of((const void *)(uintptr_t)src, n, &sa);
    return copy_call(RGPU_DRIVER, D2H, 0, src, n, dst, &da, NULL, 0, owner_of(&sa));
}
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream stream) {
    if (n == 0) return RGPU_SUCCESS;
    if (!dst) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_addr da;
    rgpu_addr_of(dst, n, &da);
    if (MANAGED(&da)) return cuMemcpyDtoDAsync_v2((uint64_t)(uintptr_t)dst, src, n, stream);
    return copy_call(RGPU_DRIVER, D2H, 0, src, n, dst, &da, stream, 1, -1);
}

/* cuMemcpy(Async) with unified addressing: the runtime's Default kind, driver error numbering. */

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) {
    rgpu_addr da, sa;
    rgpu_addr_of((const void *)(uintptr_t)dst, n, &da);
    rgpu_addr_of((const void *)(uintptr_t)src, n, &sa);
    int kind = resolve(DEFAULT, &da, (void *)(uintptr_t)dst, &sa, (const void *)(uintptr_t)src), rc;
    if (kind == H2D) return cuMemcpyHtoD_v2(dst, (const void *)(uintptr_t)src, n);
    if (kind == D2H) return cuMemcpyDtoH_v2((void *)(uintptr_t)dst, src, n);
    if (kind == D2D && cross_device(RGPU_DRIVER, &da, (void *)(uintptr_t)dst, &sa, (const void *)(uintptr_t)src, n,
                                              NULL, 0, &rc))
        return rc;
    if (kind == D2D) return cuMemcpyDtoD_v2(dst, src, n);
    if (rgpu_sessions_late_overlap((const void *)(uintptr_t)src, n) || rgpu_sessions_late_overlap((void *)(uintptr_t)dst, n))
        rgpu_sessions_drain_late(); /* as runtime_copy's host-to-host copy */
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return RGPU_SUCCESS;
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream stream) {
    rgpu_addr da, sa;
    rgpu_addr_of((const void *)(uintptr_t)dst, n, &da);
    rgpu_addr_of((const void *)(uintptr_t)src, n, &sa);
    int kind = resolve(DEFAULT, &da, (void *)(uintptr_t)dst, &sa, (const void *)(uintptr_t)src), rc;
    if (kind == H2D) return cuMemcpyHtoDAsync_v2(dst, (const void *)(uintptr_t)src, n, stream);
    if (kind == D2H) return cuMemcpyDtoHAsync_v2((void *)(uintptr_t)dst, src, n, stream);
    if (kind == D2D && cross_device(RGPU_DRIVER, &da, (void *)(uintptr_t)dst, &sa, (const void *)(uintptr_t)src, n,
                                              stream, 1, &rc))
        return rc;
    if (kind == D2D) return cuMemcpyDtoDAsync_v2(dst, src, n, stream);
    if (rgpu_sessions_late_overlap((const void *)(uintptr_t)src, n) || rgpu_sessions_late_overlap((void *)(uintptr_t)dst, n))
        rgpu_sessions_drain_late(); /* as runtime_copy's host-to-host copy */
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return RGPU_SUCCESS;
}
