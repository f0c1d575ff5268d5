/* Page-locked ("pinned") host memory. The program can observe what it pinned: the flags it asked for
 * (cudaHostGetFlags), its type in cudaPointerGetAttributes, and CUDA's errors for freeing or
 * unregistering what was never pinned and for registering a range twice.
 *
 * Where it lives: each allocation (cudaMallocHost, cudaHostAlloc without Mapped, cuMemHostAlloc,
 * cuMemAllocHost) is a POSIX shared-memory segment of its own, /rgpu-PID-hRANDOM (0600, its pages
 * reserved, a random nonce in its first page, the program's memory after it). A copy whose host side
 * lies in one, to a session on this host (its session segment proved that: shm.c), names
 * [segment, nonce, offset, length] instead of carrying the data; the worker maps the segment the first
 * time a call names it and copies straight between it and the device — on a real GPU it registers it
 * with the driver, which DMAs from and to the program's buffer (server/pinned.py). So async copies
 * from and to pinned memory are truly asynchronous, as in CUDA: the buffer may not be touched until
 * the copy is synchronised. The name stays while the memory lives (any device's worker may need it:
 * pinned memory is portable); cudaFreeHost asks each worker it told to synchronise and unmap it, then
 * unlinks it; so does the exit, and a crash's names are swept by the next process that pins memory and
 * by the workers whose client died. Without shared memory (RGPU_SHM=0, a full /dev/shm) it is ordinary
 * page-aligned memory, and copies stage their data as for pageable memory; remote sessions do too.
 * Registered ranges (cudaHostRegister of the program's own memory) stay on the staged path: that
 * memory cannot be moved into a segment the worker could map.
 *
 * Mapped memory (cudaHostAllocMapped / CU_MEMHOSTALLOC_DEVICEMAP, cudaHostGetDevicePointer): on this
 * host the segment itself is mapped into the device's address space (MAP_HOST, server/pinned.py: the
 * cuda backend hands back the device pointer the driver gives for the registered mapping, the software
 * GPU maps the pages into its arena), so kernels read and write the program's own pages, zero copy.
 * Every pinned segment can be, as under CUDA's unified addressing; the device pointer differs from
 * the host pointer (the device's address space is the worker's). A range the program registers mapped
 * (cudaHostRegisterMapped / CU_MEMHOSTREGISTER_DEVICEMAP: numba's cuda.mapped) is moved into a segment
 * first: its pages are copied into one that replaces them at the same addresses (mremap), whole pages
 * (so no two mapped registrations may share a page), and they become private memory again at
 * unregister. Across hosts there is no shared memory: the device reports canMapHostMemory 0 (server/
 * api/device.py), a mapped registration is refused, and a mapped allocation is managed memory
 * (managed.c: one address on both sides, coherent at synchronisations, charged to the device's memory),
 * which keeps zero-copy programs that never asked the attribute running. */
#define _GNU_SOURCE /* mremap */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "addresses.h"
#include "rgpu_call.h"
#include "session.h"

#define ALREADY_REGISTERED cudaErrorHostMemoryAlreadyRegistered /* the same numbers in both faces */
#define NOT_REGISTERED cudaErrorHostMemoryNotRegistered
enum { ALLOC_FLAGS = cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined };
enum { REGISTER_FLAGS = cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterIoMemory |
                        cudaHostRegisterReadOnly };
#define MAPPED cudaHostAllocMapped
#define REGISTER_MAPPED cudaHostRegisterMapped
#define NOT_SUPPORTED cudaErrorNotSupported


/* The pinned ranges are the address registry's (addresses.c): registered there, looked up there. */
static int add(uintptr_t p, size_t n, unsigned flags, int registered, rgpu_pinseg *seg, size_t lead) {
    rgpu_host_range e = {p, n, flags, registered, seg, lead};
    return rgpu_pinned_add(&e);
}

/* Removes the range starting at p pinned the given way; 0 if there is none. Its segment, if any, in *seg. */
static int take(uintptr_t p, int registered, rgpu_pinseg **seg) {
    rgpu_host_range e;
    if (!rgpu_pinned_take(p, registered, &e)) return 0;
    if (seg) *seg = e.seg;
    return 1;
}

/* -- pinned memory in shared segments ------------------------------------------------------------- */

static int shm_wanted(void) {
    const char *e = getenv("RGPU_SHM");
    return !(e && !strcmp(e, "0"));
}

/* Names of processes that died without unlinking their segments (this user's, this pid namespace's). */
static void sweep(void) {
    DIR *d = opendir("/dev/shm");
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int pid = 0;
        if (sscanf(e->d_name, "rgpu-%d-", &pid) != 1 || pid <= 0 || pid == getpid()) continue;
        if (kill(pid, 0) == 0 || errno != ESRCH) continue;
        char path[300];
        struct stat st;
        snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
        if (stat(path, &st) != 0 || st.st_uid != getuid()) continue;
        snprintf(path, sizeof path, "/%s", e->d_name);
        if (shm_unlink(path) == 0) rgpu_log(RGPU_LOG_INFO, "removed %s, left by process %d", path, pid);
    }
    closedir(d);
}

/* A new segment file of `data` bytes after the nonce page, its pages reserved (a full /dev/shm is
 * refused now, never a SIGBUS later): its descriptor and *out filled but for base, or -1. */
static int seg_file(size_t data, rgpu_pinseg **out) {
    static pthread_once_t swept = PTHREAD_ONCE_INIT;
    pthread_once(&swept, sweep);
    rgpu_pinseg *g = calloc(1, sizeof *g);
    if (!g) return -1;
    uint64_t rnd = 0;
    if (getrandom(&rnd, sizeof rnd, 0) != sizeof rnd || getrandom(g->nonce, sizeof g->nonce, 0) != sizeof g->nonce) {
        free(g);
        return -1;
    }
    snprintf(g->name, sizeof g->name, "/rgpu-%d-h%016llx", (int)getpid(), (unsigned long long)rnd);
    g->size = RGPU_SHM_DATA + data;
    g->owner = getpid();
    int fd = shm_open(g->name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) { free(g); return -1; }
    if (ftruncate(fd, (off_t)g->size) != 0 || posix_fallocate(fd, 0, (off_t)g->size) != 0) {
        close(fd);
        shm_unlink(g->name);
        free(g);
        return -1;
    }
    *out = g;
    return fd;
}

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

/* A segment of n bytes after the nonce page: its program-visible start, or NULL (use plain memory). */
static void *seg_create(size_t n, rgpu_pinseg **out) {
    size_t page = page_size();
    rgpu_pinseg *g = NULL;
    int fd = seg_file((n + page - 1) / page * page, &g);
    if (fd < 0) return NULL;
    void *base = mmap(NULL, g->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) {
        shm_unlink(g->name);
        free(g);
        return NULL;
    }
    memcpy(base, g->nonce, sizeof g->nonce);
    g->base = base;
    *out = g;
    return (char *)base + RGPU_SHM_DATA;
}

/* The pages holding [p, +n) of the program's own memory moved into a new segment, at the same
 * addresses: their bytes are copied into it and its mapping replaces them in one step (mremap). A
 * thread writing those pages meanwhile would lose its write (CUDA's registration touches no byte). */
static rgpu_pinseg *seg_adopt(void *p, size_t n, size_t *lead) {
    size_t page = page_size();
    uintptr_t lo = (uintptr_t)p / page * page, hi = ((uintptr_t)p + n + page - 1) / page * page;
    rgpu_pinseg *g = NULL;
    int fd = seg_file(hi - lo, &g);
    if (fd < 0) return NULL;
    void *base = mmap(NULL, RGPU_SHM_DATA, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    void *data = mmap(NULL, hi - lo, PROT_READ | PROT_WRITE, MAP_SHARED, fd, RGPU_SHM_DATA);
    close(fd);
    if (base != MAP_FAILED && data != MAP_FAILED) {
        memcpy(base, g->nonce, sizeof g->nonce);
        memcpy(data, (void *)lo, hi - lo);
        if (mremap(data, hi - lo, hi - lo, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)lo) == (void *)lo) {
            g->base = base;
            g->adopted = (void *)lo;
            g->adopted_len = hi - lo;
            *lead = (uintptr_t)p - lo;
            return g;
        }
        rgpu_log(RGPU_LOG_WARN, "mapped registration of %zu bytes: cannot move its pages (%s)", n, strerror(errno));
    }
    if (base != MAP_FAILED) munmap(base, RGPU_SHM_DATA);
    if (data != MAP_FAILED) munmap(data, hi - lo);
    shm_unlink(g->name);
    free(g);
    return NULL;
}

/* After every worker it was named to has unmapped it. */
static void seg_destroy(rgpu_pinseg *g) {
    if (g->adopted) {
        /* the program keeps its registered pages, private again: their bytes into fresh memory that
         * replaces the segment's mapping at the same addresses */
        void *mem = mmap(NULL, g->adopted_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mem != MAP_FAILED) {
            memcpy(mem, g->adopted, g->adopted_len);
            if (mremap(mem, g->adopted_len, g->adopted_len, MREMAP_MAYMOVE | MREMAP_FIXED, g->adopted) != g->adopted)
                munmap(mem, g->adopted_len); /* the segment's pages stay: the same bytes, only shared */
        }
        munmap(g->base, RGPU_SHM_DATA);
    } else {
        munmap(g->base, g->size);
    }
    if (g->owner == getpid()) shm_unlink(g->name);
    free(g);
}

/* UNPIN: device dev's worker synchronises and unmaps the pinned segment `name` (cudaFreeHost). */
static int unpin_on(int dev, const char *name) {
    rgpu_session *s = rgpu_session_get(dev);
    if (!s) return RGPU_INVALID_DEVICE;
    struct rgpu_call c;
    memset(&c, 0, sizeof c);
    c.id = RGPU_UNPIN;
    c.name = "unpin";
    c.dev = dev;
    mp_init(&c.args, 64);
    mp_str(&c.args, name);
    c.nargs = 1;
    int rc = rgpu_session_sync(s, &c);
    rgpu_end(&c);
    mp_free(&c.args);
    return rc;
}

/* MAP_HOST: device dev's worker maps the pinned segment into the device's address space (mapped host
 * memory); 0 and *devptr, the device address of its first data byte, or the error. */
static int map_host_on(int dev, rgpu_pinseg *seg, uint64_t *devptr) {
    rgpu_session *s = rgpu_session_get(dev);
    if (!s) return RGPU_INVALID_DEVICE;
    rgpu_call c;
    rgpu_begin(&c, RGPU_MAP_HOST, "cuMemHostGetDevicePointer", RGPU_DRIVER, 0);
    c.dev = dev;
    rgpu_put_s(&c, seg->name);
    rgpu_put_b(&c, seg->nonce, sizeof seg->nonce);
    rgpu_put_u(&c, seg->size);
    /* the worker maps it now (the table it unmaps from at UNPIN): told before, so a failure is undone too */
    __atomic_or_fetch(&seg->told, 1u << dev, __ATOMIC_RELEASE);
    int rc = rgpu_sync(&c);
    if (rc == 0 && c.nouts >= 1) *devptr = rgpu_out_u(&c);
    else if (rc == 0) rc = RGPU_INVALID_VALUE;
    rgpu_end(&c);
    return rc;
}


/* Every worker it was named to (copies, MAP_HOST) synchronises and unmaps it, then it goes:
 * cudaFreeHost and cudaHostUnregister synchronise, as CUDA's do. 0 or the first error. */
static int seg_release(rgpu_pinseg *g) {
    int rc = RGPU_SUCCESS;
    unsigned told = __atomic_load_n(&g->told, __ATOMIC_ACQUIRE);
    for (int dev = 0; dev < RGPU_MAX_DEVICES; dev++) {
        if (!(told & (1u << dev))) continue;
        int r = unpin_on(dev, g->name);
        /* a session that is gone holds no mapping; an error of earlier work is the program's to hear */
        if (r && r != RGPU_DEVICE_UNAVAILABLE && r != CUDA_ERROR_DEINITIALIZED && !rc) rc = r;
    }
    seg_destroy(g);
    return rc;
}

/* The device address of the segment's first data byte on device dev, mapping it there the first time. */
static int seg_device_address(rgpu_pinseg *g, int dev, uint64_t *out) {
    if (dev < 0 || dev >= RGPU_MAX_DEVICES) return RGPU_INVALID_DEVICE;
    uint64_t d = __atomic_load_n(&g->devptr[dev], __ATOMIC_ACQUIRE);
    if (!d) {
        /* only a worker on this host can map it (the attribute queries ask without knowing) */
        if (!rgpu_session_local(dev)) return NOT_SUPPORTED;
        int rc = map_host_on(dev, g, &d);
        if (rc) return rc;
        __atomic_store_n(&g->devptr[dev], d, __ATOMIC_RELEASE);
    }
    *out = d;
    return RGPU_SUCCESS;
}

/* At exit: the names go (the workers keep their mappings while they need them). */
static void unlink_own(rgpu_pinseg *g) {
    if (g->owner == getpid()) shm_unlink(g->name);
}

void rgpu_pinned_close(void) { rgpu_pinned_each_segment(unlink_own); }

int rgpu_pinned(const void *p, unsigned *flags) {
    rgpu_host_range e;
    if (!rgpu_pinned_get(p, &e)) return 0;
    if (flags) *flags = e.flags;
    return 1;
}

/* Whether the pinned range holding p lives in a shared segment. */
static int in_segment(const void *p) {
    rgpu_host_range e;
    return rgpu_pinned_get(p, &e) && e.seg != NULL;
}

/* The pinned range holding p: its start and size (cuPointerGetAttribute's range attributes). */
int rgpu_pinned_range(const void *p, CUdeviceptr *base, size_t *size) {
    rgpu_host_range e;
    if (!rgpu_pinned_get(p, &e)) return RGPU_INVALID_VALUE;
    *base = e.p, *size = e.n;
    return RGPU_SUCCESS;
}

static int host_free(int face, void *p);

/* Pinned memory for the library's own buffers (managed.c's shadows, which a worker on this host then
 * writes straight into): a segment as cudaMallocHost makes, no error recorded for the program; NULL
 * where none can be made (no shared memory: RGPU_SHM=0, a full /dev/shm). */
void *rgpu_pinned_own(size_t n) {
    rgpu_pinseg *seg = NULL;
    void *p = n && shm_wanted() ? seg_create(n, &seg) : NULL;
    if (p && add((uintptr_t)p, n, 0, 0, seg, 0)) {
        seg_destroy(seg);
        p = NULL;
    }
    return p;
}

/* Frees what rgpu_pinned_own made, as cudaFreeHost does: data still to come into it first, then every
 * worker it was named to unmaps it. */
void rgpu_pinned_own_free(void *p) {
    rgpu_host_range e;
    rgpu_pinseg *seg = NULL;
    if (rgpu_pinned_get(p, &e) && rgpu_sessions_late_overlap(p, e.n)) rgpu_sessions_drain_late();
    if (take((uintptr_t)p, 0, &seg) && seg) seg_release(seg);
}

/* Whether the current device's worker shares this host's memory (mapped host memory is possible). */
static int device_local(int *dev) {
    *dev = rgpu_current_device();
    return shm_wanted() && rgpu_session_local(*dev);
}

static int host_alloc(int face, void **p, size_t n, unsigned flags) {
    if (!p || (flags & ~(unsigned)ALLOC_FLAGS)) return rgpu_invalid_value(face);
    rgpu_pinseg *seg = NULL;
    int dev = -1, managed = 0;
    if ((flags & MAPPED) && !(n && device_local(&dev))) {
        int rc = cudaMallocManaged(p, n ? n : 1, cudaMemAttachGlobal); /* across hosts: see the top */
        if (rc) return rgpu_record(face, rc);
        managed = 1;
    } else if (!(n && shm_wanted() && (*p = seg_create(n, &seg)) != NULL) && posix_memalign(p, 4096, n ? n : 1) != 0) {
        return rgpu_record(face, RGPU_OUT_OF_MEMORY);
    }
    if (add((uintptr_t)*p, n, flags, 0, seg, 0)) {
        if (managed) cudaFree(*p);
        else if (seg) seg_destroy(seg);
        else free(*p);
        *p = NULL;
        return rgpu_record(face, RGPU_OUT_OF_MEMORY);
    }
    if ((flags & MAPPED) && !managed) {
        /* mapped now, into the current device (CUDA maps it at the allocation; a failure is the call's) */
        uint64_t d;
        int rc = seg ? seg_device_address(seg, dev, &d) : NOT_SUPPORTED;
        if (rc) {
            rgpu_log(RGPU_LOG_WARN, "mapped host allocation of %zu bytes: device %d cannot map it (error %d): %s",
                     n, dev, rc, rgpu_last_server_message());
            host_free(face, *p);
            *p = NULL;
            return rgpu_record(face, rc);
        }
    }
    return RGPU_SUCCESS;
}

static int host_free(int face, void *p) {
    if (!p) return RGPU_SUCCESS;
    unsigned flags = 0;
    rgpu_pinseg *seg = NULL;
    if (!rgpu_pinned(p, &flags)) return rgpu_invalid_value(face);
    int managed = (flags & MAPPED) && !in_segment(p);
    /* CUDA's cudaFreeHost synchronises: copies into it whose data is still to come come first */
    if (!managed) rgpu_sessions_drain_late();
    if (!take((uintptr_t)p, 0, &seg)) return rgpu_invalid_value(face);
    if (managed) return cudaFree(p);
    if (!seg) {
        free(p);
        return RGPU_SUCCESS;
    }
    /* CUDA's cudaFreeHost synchronises: every worker that mapped it finishes its copies, then unmaps */
    int rc = seg_release(seg);
    return rc ? rgpu_record(face, rc) : RGPU_SUCCESS;
}

/* The device address of pinned host memory. Memory in a segment has one on every device of this host
 * (mapped there the first time it is asked); a mapped allocation across hosts is managed memory, whose
 * device address is its host address. */
static int device_pointer(int face, void **dev, void *host, unsigned flags) {
    if (!dev || !host || flags) return rgpu_invalid_value(face);
    rgpu_host_range e;
    if (!rgpu_pinned_get(host, &e)) return rgpu_invalid_value(face);
    if (!e.seg && !e.registered && (e.flags & MAPPED)) {
        *dev = host;
        return RGPU_SUCCESS;
    }
    if (!e.seg || (e.registered && !(e.flags & REGISTER_MAPPED))) {
        rgpu_log(RGPU_LOG_WARN, "host memory has a device address through rgpu only when the program's worker is on "
                                "this host (it maps the memory) and the memory was pinned by cudaHostAlloc / "
                                "cuMemHostAlloc or registered with cudaHostRegisterMapped / CU_MEMHOSTREGISTER_DEVICEMAP");
        return rgpu_record(face, NOT_SUPPORTED);
    }
    uint64_t d;
    int rc = seg_device_address(e.seg, rgpu_current_device(), &d);
    if (rc) return rgpu_record(face, rc);
    *dev = (void *)(uintptr_t)(d + e.lead + ((uintptr_t)host - e.p));
    return RGPU_SUCCESS;
}

int rgpu_pinned_device_address(const void *p, uint64_t *out) {
    rgpu_host_range e = {0};
    rgpu_pinned_get(p, &e);
    if (!e.seg || (e.registered && !(e.flags & REGISTER_MAPPED))) return -1;
    uint64_t d;
    if (seg_device_address(e.seg, rgpu_current_device(), &d)) return -1;
    *out = d + e.lead + ((uintptr_t)p - e.p);
    return 0;
}

/* cudaHostRegisterMapped: the range moved into a segment the current device's worker maps. */
static int register_mapped(int face, void *p, size_t n, unsigned flags) {
    int dev;
    if (!device_local(&dev)) {
        rgpu_log(RGPU_LOG_WARN, "cudaHostRegister / cuMemHostRegister mapped: the device cannot map this process's "
                                "memory (its server is on another host, or RGPU_SHM=0; the device reports "
                                "canMapHostMemory 0): register without the mapped flag and copy");
        return rgpu_record(face, NOT_SUPPORTED);
    }
    size_t page = page_size();
    uintptr_t lo = (uintptr_t)p / page * page, hi = ((uintptr_t)p + n + page - 1) / page * page;
    if (rgpu_pinned_pages_taken(lo, hi)) { /* another segment's pages (a registered range moved into one takes its pages whole) */
        if (rgpu_pinned_whole(p, 1)) return rgpu_record(face, ALREADY_REGISTERED);
        rgpu_log(RGPU_LOG_WARN, "cudaHostRegister mapped [%p, +%zu): a page of it holds other pinned memory; rgpu maps "
                 "registered memory in whole pages: register page-aligned buffers", p, n);
        return rgpu_record(face, NOT_SUPPORTED);
    }
    size_t lead = 0;
    rgpu_pinseg *seg = seg_adopt(p, n, &lead);
    if (!seg) return rgpu_record(face, RGPU_OUT_OF_MEMORY);
    int rc = add((uintptr_t)p, n, flags, 1, seg, lead);
    if (rc) {
        seg_destroy(seg);
        return rgpu_record(face, rc);
    }
    uint64_t d;
    rc = seg_device_address(seg, dev, &d);
    if (rc) {
        rgpu_log(RGPU_LOG_WARN, "cudaHostRegister mapped: device %d cannot map it (error %d): %s", dev, rc,
                 rgpu_last_server_message());
        rgpu_pinseg *back = NULL;
        if (take((uintptr_t)p, 1, &back) && back) seg_release(back);
        return rgpu_record(face, rc);
    }
    return RGPU_SUCCESS;
}

static int host_register(int face, void *p, size_t n, unsigned flags) {
    if (!p || !n || (flags & ~(unsigned)REGISTER_FLAGS)) return rgpu_invalid_value(face);
    if (flags & REGISTER_MAPPED) return register_mapped(face, p, n, flags);
    int rc = add((uintptr_t)p, n, flags, 1, NULL, 0); /* ALREADY_REGISTERED if any of it is */
    return rc ? rgpu_record(face, rc) : RGPU_SUCCESS;
}

static int host_unregister(int face, void *p) {
    if (!p) return rgpu_invalid_value(face);
    rgpu_sessions_drain_late(); /* the program may free the memory next: copies into it come first */
    rgpu_pinseg *seg = NULL;
    if (!take((uintptr_t)p, 1, &seg)) return rgpu_record(face, NOT_REGISTERED);
    int rc = seg ? seg_release(seg) : RGPU_SUCCESS;
    return rc ? rgpu_record(face, rc) : RGPU_SUCCESS;
}

static int host_flags(int face, unsigned *flags, void *p) {
    if (!flags || !p) return rgpu_invalid_value(face);
    return rgpu_pinned(p, flags) ? RGPU_SUCCESS : rgpu_invalid_value(face);
}

cudaError_t cudaMallocHost(void **p, size_t n) { return host_alloc(RGPU_RUNTIME, p, n, 0); }
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned int flags) { return host_alloc(RGPU_RUNTIME, p, n, flags); }
cudaError_t cudaFreeHost(void *p) { return host_free(RGPU_RUNTIME, p); }
cudaError_t cudaHostRegister(void *p, size_t n, unsigned int flags) { return host_register(RGPU_RUNTIME, p, n, flags); }
cudaError_t cudaHostUnregister(void *p) { return host_unregister(RGPU_RUNTIME, p); }
cudaError_t cudaHostGetFlags(unsigned int *flags, void *p) { return host_flags(RGPU_RUNTIME, flags, p); }
cudaError_t cudaHostGetDevicePointer(void **dev, void *host, unsigned int flags) { return device_pointer(RGPU_RUNTIME, dev, host, flags); }

CUresult cuMemAllocHost_v2(void **p, size_t n) { return host_alloc(RGPU_DRIVER, p, n, 0); }
CUresult cuMemHostAlloc(void **p, size_t n, unsigned int flags) { return host_alloc(RGPU_DRIVER, p, n, flags); }
CUresult cuMemFreeHost(void *p) { return host_free(RGPU_DRIVER, p); }
CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned int flags) { return host_register(RGPU_DRIVER, p, n, flags); }
CUresult cuMemHostUnregister(void *p) { return host_unregister(RGPU_DRIVER, p); }
CUresult cuMemHostGetFlags(unsigned int *flags, void *p) { return host_flags(RGPU_DRIVER, flags, p); }
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *dev, void *host, unsigned int flags) {
    void *d = NULL;
    int rc = device_pointer(RGPU_DRIVER, &d, host, flags);
    if (rc == 0) *dev = (uint64_t)(uintptr_t)d;
    return rc;
}
