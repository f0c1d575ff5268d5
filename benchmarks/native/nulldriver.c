/* A CUDA driver that does no GPU work, for measuring what the cuda backend's server costs on the CPU
 * (benchmarks/native/run.py --device null): rgpu-server --device cuda loads it through RGPU_LIBCUDA,
 * and native_bench.cu's rows then time rgpu's own path to the driver (transport, worker, backend,
 * accounting, waits) with the driver's part near zero. On a GPU host the difference between a row
 * here and the same row on the real driver is the GPU's and the driver's share; on a host without a
 * GPU (CI, laptops) it is the only way to see the cuda backend's per-call cost.
 *
 * It presents one Hopper-like GPU (sm_90, 132 SMs). Device memory is host memory (a device address
 * is the host address), copies and memsets are memcpy and memset, kernels are read from their images
 * (nullmodule.c: names, parameter layouts, module variables), counted and not run (but one: the
 * cuda backend's own digest kernel, below), every stream and
 * event is complete at once, and an event's time is the host clock when it was recorded. With
 * RGPU_NULL_KERNEL_US=N a kernel takes N µs instead, one after another on one engine: until the
 * last one launched is done, streams and events recorded behind it are not ready (a query answers
 * CUDA_ERROR_NOT_READY, a synchronize waits), as on a GPU between a launch and its end; with
 * RGPU_NULL_COPY_GBPS=R an async copy between host and device memory occupies that engine for its
 * bytes at R GB/s too (its data lands at once), as a large DMA does. Calls it
 * does not define are absent: the backend names the first one it misses. The e2e suite runs the
 * project's programs whose checks need no kernel's result, NVIDIA's libraries and PyTorch through it
 * (tests/e2e/test_null_driver.py). Built by run.py with gcc against the generated driver
 * declarations (libhook/generated/rgpu_cuda.h) and error names (rgpu_errors.c).
 *
 * Device memory lives in a window of addresses of its own, as a real driver's does (it reserves
 * them): were it the server's heap, a device pointer could equal a host pointer of the client's
 * (the same heap layout in another process), and the client would take that host buffer for device
 * memory. Managed memory comes from the same window (the client maps its side at the same address),
 * and so do the VMM calls' reserved ranges (physical allocations are memory files mapped into them).
 * CUDA arrays are host buffers their 3D copies read and write. CUDA IPC shares an allocation with
 * another process of the same user as a memory file both map (the IPC section, after the VMM's).
 *
 * It also answers the driver's checkpoint calls (cuCheckpointProcess*) from another process, as the
 * cuda backend's idle reclaim asks them (server/backends/cuda/suspension.py): see the last section. */
#define _GNU_SOURCE  /* memfd_create, mremap */
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../../server/native/device_digest.h"
#include "nullmodule.h"
#include "rgpu_cuda.h"

#define INVALID_VALUE 1
#define OUT_OF_MEMORY 2
#define INVALID_HANDLE 400
#define NOT_FOUND 500
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* The process's checkpoint state (the last section). The real driver blocks every call of a locked or
 * checkpointed process until it is unlocked; here such a call ends the process with a message
 * instead, since a worker that made one would wait forever on a GPU: the helper that restores it is
 * started by that same worker. */
enum { RUNNING, LOCKED, CHECKPOINTED };
static int process_state = RUNNING;

static void called_while_held(const char *fn) {
    fprintf(stderr, "nulldriver: %s called while this process is %s: the real driver would block it until a "
            "restore\n", fn, __atomic_load_n(&process_state, __ATOMIC_ACQUIRE) == LOCKED ? "locked" : "checkpointed");
    abort();
}
#define ENTER()                                                                               \
    do {                                                                                      \
        if (__builtin_expect(__atomic_load_n(&process_state, __ATOMIC_ACQUIRE) != RUNNING, 0)) \
            called_while_held(__func__);                                                      \
    } while (0)

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

#define NOT_READY 600
/* RGPU_NULL_KERNEL_US: how long a kernel takes (0: none); the engine is busy until busy_until (ms). */
static double kernel_ms = -1, busy_until;
static pthread_mutex_t busy_mu = PTHREAD_MUTEX_INITIALIZER;

static void kernel_ran(void) {
    if (kernel_ms < 0) {
        const char *e = getenv("RGPU_NULL_KERNEL_US");
        kernel_ms = e ? atof(e) / 1e3 : 0;
    }
    if (kernel_ms <= 0) return;
    pthread_mutex_lock(&busy_mu);
    double t = now_ms();
    busy_until = (busy_until > t ? busy_until : t) + kernel_ms;
    pthread_mutex_unlock(&busy_mu);
}

/* RGPU_NULL_COPY_GBPS: an async host<->device copy of n bytes keeps the engine busy n / rate (0: none). */
static double copy_gbps = -1;

static void copy_ran(size_t n) {
    if (copy_gbps < 0) {
        const char *e = getenv("RGPU_NULL_COPY_GBPS");
        copy_gbps = e ? atof(e) : 0;
    }
    if (copy_gbps <= 0) return;
    pthread_mutex_lock(&busy_mu);
    double t = now_ms();
    busy_until = (busy_until > t ? busy_until : t) + (double)n / (copy_gbps * 1e6);
    pthread_mutex_unlock(&busy_mu);
}

static double done_at(void) {
    pthread_mutex_lock(&busy_mu);
    double t = busy_until;
    pthread_mutex_unlock(&busy_mu);
    return t;
}

/* Until `t` (ms), polling: the driver's own synchronize spins while its context schedules AUTO. */
static void wait_until_ms(double t) {
    while (now_ms() < t) {
    }
}

/* -- the device ----------------------------------------------------------------------------------- */

/* CUdevice_attribute values of an H100 SXM the backend and the client's properties read; the rest
 * of the enumeration (up to LAST_ATTRIBUTE) answers 0, past it INVALID_VALUE, as the driver does. */
static const struct { int a, v; } ATTRS[] = {
    {1, 1024}, {2, 1024}, {3, 1024}, {4, 64}, {5, 2147483647}, {6, 65535}, {7, 65535}, {8, 49152},
    {9, 65536}, {10, 32}, {11, 2147483647}, {12, 65536}, {13, 1980000}, {14, 512}, {15, 1}, {16, 132},
    {19, 1}, {20, 0}, {31, 1}, {33, 0}, {36, 5120}, {37, 2619000}, {38, 52428800}, {39, 2048},
    {40, 2}, {41, 1}, {75, 9}, {76, 0}, {78, 1}, {79, 1}, {80, 1}, {81, 233472}, {82, 65536},
    {83, 1}, {84, 0}, {85, 0}, {86, 1}, {87, 64}, {88, 1}, {89, 1}, {90, 1}, {91, 0}, {95, 1},
    {96, 1}, {97, 232448}, {98, 0}, {99, 1}, {100, 1}, {101, 1}, {102, 1}, {106, 32}, {111, 1024},
    {115, 1}, {116, 1}, {120, 1}, {121, 1},
};
#define LAST_ATTRIBUTE 150

/* RGPU_NULL_CC=MAJOR.MINOR: the GPU's compute capability (unset: 9.0, the H100 of ATTRS), so that
 * two servers on one host can be two GPU models (a move between them loads the modules again, and
 * an image without code for the target fails there: nullmodule.c). Returns the minor version. */
static int null_cc(int *major) {
    const char *e = getenv("RGPU_NULL_CC");
    int ma = 9, mi = 0;
    if (e && sscanf(e, "%d.%d", &ma, &mi) != 2) ma = 9, mi = 0;
    *major = ma;
    return mi;
}

void null_checkpoint_service(void);
CUresult cuInit(unsigned int flags) {
    ENTER();
    (void)flags;
    null_checkpoint_service();  /* answers cuCheckpointProcess* from other processes (below) */
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int *n) { ENTER(); *n = 1; return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice *d, int ordinal) {
    ENTER();
    if (ordinal != 0) return INVALID_VALUE;
    *d = 0;
    return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) { ENTER(); (void)d; *bytes = 80ull << 30; return CUDA_SUCCESS; }
CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
    ENTER();
    (void)d;
    int major, minor = null_cc(&major);
    if (getenv("RGPU_NULL_CC")) snprintf(name, len, "rgpu null driver sm_%d%d (no GPU work)", major, minor);
    else snprintf(name, len, "rgpu null driver (no GPU work)");
    return CUDA_SUCCESS;
}
/* RGPU_NULL_UUID: the GPU's UUID as 32 hex digits (dashes allowed), so that two servers on one host
 * are two GPUs to the pool (a pool refuses a second server reporting a GPU it already has); unset
 * (or not 32 hex digits), the same fixed UUID in every process. */
CUresult cuDeviceGetUuid_v2(CUuuid *u, CUdevice d) {
    ENTER();
    (void)d;
    for (int i = 0; i < 16; i++) u->bytes[i] = (char)(0x40 + i);
    const char *e = getenv("RGPU_NULL_UUID");
    unsigned char b[16] = {0};
    int n = 0;
    for (; e && *e && n < 32; e++) {
        int v = *e >= '0' && *e <= '9' ? *e - '0' : (*e | 32) >= 'a' && (*e | 32) <= 'f' ? (*e | 32) - 'a' + 10 : -1;
        if (v < 0 && *e == '-') continue;
        if (v < 0) break;
        b[n / 2] = (unsigned char)(n % 2 ? b[n / 2] | v : v << 4);
        n++;
    }
    if (n == 32 && (!e || !*e)) memcpy(u->bytes, b, 16);
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
    ENTER();
    (void)d;
    if ((int)a < 1 || (int)a > LAST_ATTRIBUTE) return INVALID_VALUE;
    *v = 0;
    for (size_t i = 0; i < sizeof ATTRS / sizeof *ATTRS; i++)
        if (ATTRS[i].a == (int)a) *v = ATTRS[i].v;
    if (a == 75 || a == 76) {  /* COMPUTE_CAPABILITY_MAJOR / _MINOR */
        int major, minor = null_cc(&major);
        *v = a == 75 ? major : minor;
    }
    return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
    ENTER();
    (void)d;
    *c = (CUcontext)0xC0;
    return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { ENTER(); (void)d; return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext c) { ENTER(); (void)c; return CUDA_SUCCESS; }
CUresult cuCtxSynchronize(void) { ENTER(); wait_until_ms(done_at()); return CUDA_SUCCESS; }
CUresult cuCtxSetLimit(CUlimit limit, size_t value) { ENTER(); (void)limit; (void)value; return CUDA_SUCCESS; }

/* Every code by the driver's own name (the generated table, libhook/generated/rgpu_errors.c): the
 * backend turns a failure into the error its name says, so an unnamed one would reach the program as
 * CUDA_ERROR_UNKNOWN (cuBLAS probes cluster sizes until one is CUDA_ERROR_INVALID_CLUSTER_SIZE). */
const char *rgpu_error_name(int face, int code);

CUresult cuGetErrorName(CUresult rc, const char **name) {
    ENTER();
    *name = rgpu_error_name(1, (int)rc);
    return *name ? CUDA_SUCCESS : INVALID_VALUE;
}

/* -- memory: host memory standing for device memory ------------------------------------------------ */

/* Each allocation its own mapping in the window, at the next 2 MiB step; addresses are not reused
 * (the window holds 16 TiB); `maps` keeps each mapping's length for its free, the size asked for
 * (cuMemGetAddressRange's answer), whether cuMemAlloc made it (only that may be exported) and, once
 * exported, its memory file (the IPC section below). */
#define WINDOW_BASE 0x300000000000ull
#define WINDOW_SIZE 0x100000000000ull
#define STEP (2ull << 20)
static uint64_t next_free = WINDOW_BASE;
static struct { uint64_t addr; size_t len, size; int alloc, fd; unsigned serial; } maps[65536];
static int nmaps;

/* len bytes mapped at the window's next free address: fresh pages, or the memory file fd's (an IPC
 * handle opened); the address, or 0 when the window is full or the range was taken. */
static uint64_t window_map(size_t len, int fd) {
    if (next_free + len > WINDOW_BASE + WINDOW_SIZE) return 0;
    int flags = fd < 0 ? MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE : MAP_SHARED;
    void *m = mmap((void *)(uintptr_t)next_free, len, PROT_READ | PROT_WRITE, flags | MAP_FIXED_NOREPLACE, fd, 0);
    if (m == MAP_FAILED || (uint64_t)(uintptr_t)m != next_free) {
        if (m != MAP_FAILED) munmap(m, len);
        return 0;
    }
    uint64_t at = next_free;
    next_free += len;
    return at;
}

static CUresult window_alloc(CUdeviceptr *p, size_t n, int alloc) {
    size_t len = ((n ? n : 1) + STEP - 1) & ~(STEP - 1);
    uint64_t at = nmaps == (int)(sizeof maps / sizeof *maps) ? 0 : window_map(len, -1);
    if (!at) return OUT_OF_MEMORY;
    maps[nmaps].addr = at, maps[nmaps].len = len, maps[nmaps].size = n;
    maps[nmaps].alloc = alloc, maps[nmaps].fd = -1;
    nmaps++;
    *p = (CUdeviceptr)at;
    return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { ENTER(); return window_alloc(p, n, 1); }
CUresult cuMemAllocManaged(CUdeviceptr *p, size_t n, unsigned int flags) {
    ENTER();
    (void)flags;
    return window_alloc(p, n, 0);  /* the driver exports no managed memory */
}
CUresult cuMemFree_v2(CUdeviceptr p) {
    ENTER();
    wait_until_ms(done_at()); /* cudaFree waits for the device's work, as the driver's does */
    for (int i = 0; i < nmaps; i++)
        if (maps[i].addr == p) {
            munmap((void *)(uintptr_t)p, maps[i].len);
            if (maps[i].fd >= 0) close(maps[i].fd);  /* exported: an opener's mapping keeps the file */
            maps[i] = maps[--nmaps];
            return CUDA_SUCCESS;
        }
    return INVALID_VALUE;  /* as for what cuIpcOpenMemHandle mapped, which only cuIpcCloseMemHandle unmaps */
}
/* Virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap...: PyTorch's expandable
 * segments): a physical allocation is a memory file, a reserved range an inaccessible mapping in the
 * window, a mapping the file mapped shared over part of it (two mappings of one allocation see the
 * same bytes, as on a GPU), readable and writable once cuMemSetAccess grants it. rgpu's server keeps
 * the session's own tables and refusals (api/vmm.py); these calls only do what they name. The
 * checkpoint calls below take these mappings' bytes too and give them back at a restore, as they
 * take cuMemAlloc's (the arena of rgpu's cuda backend maps the session's memory so). */
#define GRANULARITY (2ull << 20)
typedef struct { int fd; size_t size; int holds, shared; } physical; /* shared: exported or imported */

static void physical_drop(physical *ph) {
    if (--ph->holds == 0) {
        close(ph->fd);
        free(ph);
    }
}

CUresult cuMemGetAllocationGranularity(size_t *g, const CUmemAllocationProp *prop,
                                       CUmemAllocationGranularity_flags option) {
    ENTER();
    (void)prop; (void)option;
    *g = GRANULARITY;
    return CUDA_SUCCESS;
}
CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t size, const CUmemAllocationProp *prop,
                     unsigned long long flags) {
    ENTER();
    (void)prop; (void)flags;
    if (!size || size % GRANULARITY) return INVALID_VALUE;
    physical *ph = malloc(sizeof *ph);
    if (!ph) return OUT_OF_MEMORY;
    ph->fd = memfd_create("nullcuda-physical", MFD_CLOEXEC);
    if (ph->fd < 0 || ftruncate(ph->fd, (off_t)size) != 0) {
        if (ph->fd >= 0) close(ph->fd);
        free(ph);
        return OUT_OF_MEMORY;
    }
    ph->size = size, ph->holds = 1, ph->shared = 0;
    *h = (CUmemGenericAllocationHandle)(uintptr_t)ph;
    return CUDA_SUCCESS;
}
/* A physical allocation as a file descriptor (its memory file's, duplicated: the caller's to close),
 * and one back from such a descriptor of another process's, passed over a socket: both see the same
 * bytes, as two processes mapping one allocation do. The driver asks that the allocation was made
 * with the handle type requested; this one takes any. */
CUresult cuMemExportToShareableHandle(void *out, CUmemGenericAllocationHandle h, CUmemAllocationHandleType type,
                                      unsigned long long flags) {
    ENTER();
    (void)flags;
    if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_NOT_SUPPORTED;
    physical *ph = (physical *)(uintptr_t)h;
    int fd = dup(ph->fd);
    if (fd < 0) return OUT_OF_MEMORY;
    ph->shared = 1;
    *(int *)out = fd;
    return CUDA_SUCCESS;
}
CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *h, void *os_handle,
                                        CUmemAllocationHandleType type) {
    ENTER();
    if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_NOT_SUPPORTED;
    struct stat st;
    int fd = (int)(intptr_t)os_handle;
    if (fstat(fd, &st) != 0 || st.st_size <= 0 || st.st_size % GRANULARITY) return INVALID_VALUE;
    physical *ph = malloc(sizeof *ph);
    if (!ph) return OUT_OF_MEMORY;
    if ((ph->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) {
        free(ph);
        return OUT_OF_MEMORY;
    }
    ph->size = (size_t)st.st_size, ph->holds = 1, ph->shared = 1;
    *h = (CUmemGenericAllocationHandle)(uintptr_t)ph;
    return CUDA_SUCCESS;
}
CUresult cuMemRelease(CUmemGenericAllocationHandle h) {
    ENTER();
    physical_drop((physical *)(uintptr_t)h);
    return CUDA_SUCCESS;
}
CUresult cuMemAddressReserve(CUdeviceptr *p, size_t size, size_t align, CUdeviceptr addr, unsigned long long flags) {
    ENTER();
    (void)flags;
    if (!size || size % GRANULARITY) return INVALID_VALUE;
    /* The address asked for is a hint, as the driver takes it: honoured when it is free and in the
     * window, else the range goes to the window's next free addresses, at the alignment asked. */
    for (int hinted = addr >= WINDOW_BASE && addr + size <= WINDOW_BASE + WINDOW_SIZE; ; hinted = 0) {
        uint64_t at = addr, a = align > STEP ? align : STEP;
        if (!hinted) {
            at = (next_free + a - 1) & ~(a - 1);
            if (at + size > WINDOW_BASE + WINDOW_SIZE) return OUT_OF_MEMORY;
        }
        void *m = mmap((void *)(uintptr_t)at, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
                       MAP_FIXED_NOREPLACE, -1, 0);
        if (m != MAP_FAILED && (uint64_t)(uintptr_t)m == at) {
            /* past a hinted range too: the driver never hands out an address it has reserved
             * (a session restored at its source's addresses allocates on after them) */
            if (at + size > next_free) next_free = at + size;
            *p = at;
            return CUDA_SUCCESS;
        }
        if (m != MAP_FAILED) munmap(m, size);
        if (!hinted) return OUT_OF_MEMORY;
    }
}
CUresult cuMemAddressFree(CUdeviceptr p, size_t size) {
    ENTER();
    munmap((void *)(uintptr_t)p, size);
    return CUDA_SUCCESS;
}
/* what each mapped start holds, for its unmap */
static struct { uint64_t addr; size_t len, offset; physical *ph; } mappings[4096];
static int nmappings;

CUresult cuMemMap(CUdeviceptr p, size_t size, size_t offset, CUmemGenericAllocationHandle h, unsigned long long flags) {
    ENTER();
    (void)flags;
    physical *ph = (physical *)(uintptr_t)h;
    if (offset + size > ph->size || nmappings == (int)(sizeof mappings / sizeof *mappings)) return INVALID_VALUE;
    if (p < WINDOW_BASE || p + size > WINDOW_BASE + WINDOW_SIZE) return INVALID_VALUE;  /* never reserved */
    if (mmap((void *)(uintptr_t)p, size, PROT_NONE, MAP_SHARED | MAP_FIXED, ph->fd, (off_t)offset) == MAP_FAILED)
        return OUT_OF_MEMORY;
    ph->holds++;
    mappings[nmappings].addr = p, mappings[nmappings].len = size, mappings[nmappings].ph = ph;
    mappings[nmappings].offset = offset;
    nmappings++;
    return CUDA_SUCCESS;
}
CUresult cuMemSetAccess(CUdeviceptr p, size_t size, const CUmemAccessDesc *desc, size_t count) {
    ENTER();
    int prot = PROT_NONE;
    for (size_t i = 0; i < count; i++)
        if (desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE) prot = PROT_READ | PROT_WRITE;
        else if (desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READ && prot == PROT_NONE) prot = PROT_READ;
    return mprotect((void *)(uintptr_t)p, size, prot) == 0 ? CUDA_SUCCESS : INVALID_VALUE;
}
/* Every mapping that starts in [p, p + size) goes; the range stays reserved (inaccessible). Unlike
 * cuMemFree, the driver's cuMemUnmap does not wait for the work queued before it (PyTorch's
 * expandable segments synchronise their stream first for that reason): a kernel still running over
 * the memory faults and ends the context. This driver cannot tell which memory a kernel reads, so an
 * unmap while any kernel runs (RGPU_NULL_KERNEL_US) is taken for that fault: it stops the process
 * with a message, as a call made while the process is checkpointed does. */
CUresult cuMemUnmap(CUdeviceptr p, size_t size) {
    ENTER();
    int mapped = 0;
    for (int i = 0; i < nmappings; i++) mapped |= mappings[i].addr >= p && mappings[i].addr < p + size;
    if (mapped && done_at() > now_ms()) {
        fprintf(stderr, "nulldriver: cuMemUnmap of [0x%llx, +%zu) while kernels still run: a kernel that "
                "reads it would fault on a GPU and end the context\n", (unsigned long long)p, size);
        abort();
    }
    for (int i = 0; i < nmappings;) {
        if (mappings[i].addr >= p && mappings[i].addr < p + size) {
            mmap((void *)(uintptr_t)mappings[i].addr, mappings[i].len, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
            physical_drop(mappings[i].ph);
            mappings[i] = mappings[--nmappings];
        } else {
            i++;
        }
    }
    return CUDA_SUCCESS;
}

/* CUDA IPC (cuIpc*): an allocation exported the first time becomes a memory file mapped shared where
 * it was, and a process that opens the handle maps the same file through /proc/<pid>/fd/<fd> (a
 * process of the same user, as the driver's IPC asks), so each sees the other's writes at once, as
 * two contexts mapping one allocation do. As with the driver, a handle names the whole allocation
 * (any pointer into it gives the same handle) and opening it gives the allocation's base: programs
 * that share part of one send its offset themselves (PyTorch, numba, tensorpipe do). A handle from
 * this same process is refused with CUDA_ERROR_INVALID_CONTEXT, as the driver's is. */
#define MEM_MAGIC 0x4d6c754eu  /* "NulM" */
#define EVENT_MAGIC 0x456c754eu  /* "NulE" */
typedef struct { uint32_t magic; int32_t pid, fd; uint32_t serial; uint64_t len, size; } ipc_mem;
typedef struct { uint32_t magic; int32_t pid; uint64_t event; } ipc_event;
_Static_assert(sizeof(ipc_mem) <= CU_IPC_HANDLE_SIZE && sizeof(ipc_event) <= CU_IPC_HANDLE_SIZE, "handles fit");

/* The memory file's name carries the export's serial: an opener checks it, so a handle whose
 * allocation was freed (its descriptor number since reused) opens nothing. */
static unsigned exports;
static void ipc_name(char *out, size_t n, unsigned serial) { snprintf(out, n, "nullcuda-ipc-%u", serial); }

/* Only pages holding a non-zero byte are copied: the file's other pages stay unallocated, as the
 * untouched pages of the anonymous mapping were. */
static void copy_nonzero(unsigned char *to, const unsigned char *from, size_t len) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t at = 0; at < len; at += page) {
        const uint64_t *w = (const uint64_t *)(from + at);
        for (size_t i = 0; i < page / 8; i++)
            if (w[i]) {
                memcpy(to + at, from + at, page);
                break;
            }
    }
}

static CUresult share(int i) {
    char name[32];
    ipc_name(name, sizeof name, exports + 1);
    int fd = memfd_create(name, MFD_CLOEXEC);
    void *file = MAP_FAILED, *at = (void *)(uintptr_t)maps[i].addr;
    if (fd < 0 || ftruncate(fd, (off_t)maps[i].len) != 0 ||
        (file = mmap(NULL, maps[i].len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        if (fd >= 0) close(fd);
        return OUT_OF_MEMORY;
    }
    copy_nonzero(file, at, maps[i].len);
    /* moved over the allocation in one step: its address never lacks a mapping */
    if (mremap(file, maps[i].len, maps[i].len, MREMAP_MAYMOVE | MREMAP_FIXED, at) == MAP_FAILED) {
        munmap(file, maps[i].len);
        close(fd);
        return CUDA_ERROR_MAP_FAILED;
    }
    maps[i].fd = fd, maps[i].serial = ++exports;
    return CUDA_SUCCESS;
}

static int map_holding(CUdeviceptr p) {
    for (int i = 0; i < nmaps; i++)
        if (p >= maps[i].addr && p < maps[i].addr + (maps[i].size ? maps[i].size : 1)) return i;
    return -1;
}

CUresult cuIpcGetMemHandle(CUipcMemHandle *h, CUdeviceptr p) {
    ENTER();
    int i = map_holding(p);
    if (!h || i < 0 || !maps[i].alloc) return INVALID_VALUE;
    if (maps[i].fd < 0) {
        CUresult rc = share(i);
        if (rc != CUDA_SUCCESS) return rc;
    }
    ipc_mem m = {MEM_MAGIC, (int32_t)getpid(), maps[i].fd, maps[i].serial, maps[i].len, maps[i].size};
    memset(h, 0, sizeof *h);
    memcpy(h->reserved, &m, sizeof m);
    return CUDA_SUCCESS;
}

/* What this process opened, by exporter and export: opening a handle again gives the same address
 * and one more reference, as the driver counts them; the mapping goes when the last is closed. */
static struct { int32_t pid; unsigned serial; int refs; uint64_t addr; size_t len, size; } opened[4096];
static int nopened;

CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *p, CUipcMemHandle h, unsigned int flags) {
    ENTER();
    ipc_mem m;
    memcpy(&m, h.reserved, sizeof m);
    if (!p || m.magic != MEM_MAGIC) return INVALID_VALUE;
    if (m.pid == (int32_t)getpid()) return CUDA_ERROR_INVALID_CONTEXT;
    if (flags & ~(unsigned)CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) return INVALID_VALUE;
    for (int i = 0; i < nopened; i++)
        if (opened[i].pid == m.pid && opened[i].serial == m.serial) {
            opened[i].refs++;
            *p = opened[i].addr;
            return CUDA_SUCCESS;
        }
    if (nopened == (int)(sizeof opened / sizeof *opened) || next_free + m.len > WINDOW_BASE + WINDOW_SIZE)
        return OUT_OF_MEMORY;  /* a full window; a range window_map cannot take is a failed mapping */
    /* the exporter's file, if it still has it: else the exporter is gone or freed the allocation */
    char path[64], link[96], want[48];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", m.pid, m.fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return INVALID_HANDLE;
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, link, sizeof link - 1);
    link[n > 0 ? n : 0] = 0;
    ipc_name(want, sizeof want, m.serial);
    size_t w = strlen(want);
    if (strncmp(link, "/memfd:", 7) || strncmp(link + 7, want, w) || (link[7 + w] && link[7 + w] != ' ')) {
        close(fd);
        return INVALID_HANDLE;
    }
    uint64_t at = window_map(m.len, fd);
    close(fd);  /* the mapping keeps the file */
    if (!at) return CUDA_ERROR_MAP_FAILED;
    opened[nopened].pid = m.pid, opened[nopened].serial = m.serial, opened[nopened].refs = 1;
    opened[nopened].addr = at, opened[nopened].len = m.len, opened[nopened].size = m.size;
    nopened++;
    *p = at;
    return CUDA_SUCCESS;
}
CUresult cuIpcCloseMemHandle(CUdeviceptr p) {
    ENTER();
    for (int i = 0; i < nopened; i++)
        if (opened[i].addr == p) {
            if (--opened[i].refs == 0) {
                munmap((void *)(uintptr_t)p, opened[i].len);
                opened[i] = opened[--nopened];
            }
            return CUDA_SUCCESS;
        }
    return INVALID_VALUE;
}

/* The allocation, or the opened one, that holds p: its base and the size it was asked with. */
CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr p) {
    ENTER();
    int i = map_holding(p);
    if (i >= 0) {
        if (base) *base = maps[i].addr;
        if (size) *size = maps[i].size;
        return CUDA_SUCCESS;
    }
    for (i = 0; i < nopened; i++)
        if (p >= opened[i].addr && p < opened[i].addr + (opened[i].size ? opened[i].size : 1)) {
            if (base) *base = opened[i].addr;
            if (size) *size = opened[i].size;
            return CUDA_SUCCESS;
        }
    return NOT_FOUND;
}

/* Registered host ranges, kept as the driver keeps them: a range that overlaps one still registered is
 * refused (CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED), and so is unregistering anything but a
 * registered range's start (CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED). A worker that registered one
 * region twice, or forgot one it unmapped and mapped again, fails here as it would on a GPU. Nothing
 * is page-locked: the memory is the device's here. */
#define HOST_REG_MAX 4096
static struct { uintptr_t start, end; } host_reg[HOST_REG_MAX];
static int nhost_reg;
static pthread_mutex_t host_reg_mu = PTHREAD_MUTEX_INITIALIZER;

CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned int flags) {
    ENTER();
    (void)flags;
    if (!p || !n) return CUDA_ERROR_INVALID_VALUE;
    uintptr_t a = (uintptr_t)p, b = a + n;
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&host_reg_mu);
    for (int i = 0; i < nhost_reg && rc == CUDA_SUCCESS; i++)
        if (a < host_reg[i].end && host_reg[i].start < b) rc = CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    if (rc == CUDA_SUCCESS && nhost_reg == HOST_REG_MAX) rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (rc == CUDA_SUCCESS) host_reg[nhost_reg].start = a, host_reg[nhost_reg++].end = b;
    pthread_mutex_unlock(&host_reg_mu);
    return rc;
}

CUresult cuMemHostUnregister(void *p) {
    ENTER();
    CUresult rc = CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    pthread_mutex_lock(&host_reg_mu);
    for (int i = 0; i < nhost_reg; i++)
        if (host_reg[i].start == (uintptr_t)p) {
            host_reg[i] = host_reg[--nhost_reg];
            rc = CUDA_SUCCESS;
            break;
        }
    pthread_mutex_unlock(&host_reg_mu);
    return rc;
}
/* mapped host memory: a device address is the host address here (the worker's, where it mapped it); as
 * the driver, only for host memory registered with it (any other pointer: CUDA_ERROR_INVALID_VALUE) */
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *d, void *p, unsigned int flags) {
    ENTER();
    if (!d || !p || flags) return CUDA_ERROR_INVALID_VALUE;
    int known = 0;
    pthread_mutex_lock(&host_reg_mu);
    for (int i = 0; i < nhost_reg && !known; i++)
        known = (uintptr_t)p >= host_reg[i].start && (uintptr_t)p < host_reg[i].end;
    pthread_mutex_unlock(&host_reg_mu);
    if (!known) return CUDA_ERROR_INVALID_VALUE;
    *d = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
    ENTER();
    (void)s;
    memcpy((void *)(uintptr_t)dst, src, n);
    copy_ran(n);
    return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s) {
    ENTER();
    (void)s;
    memcpy(dst, (const void *)(uintptr_t)src, n);
    copy_ran(n);
    return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
    ENTER();
    (void)s;
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream s) {
    ENTER();
    (void)s;
    memset((void *)(uintptr_t)dst, v, n);
    return CUDA_SUCCESS;
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n, CUstream s) {
    ENTER();
    (void)s;
    for (size_t i = 0; i < n; i++) ((unsigned short *)(uintptr_t)dst)[i] = v;
    return CUDA_SUCCESS;
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, CUstream s) {
    ENTER();
    (void)s;
    for (size_t i = 0; i < n; i++) ((unsigned int *)(uintptr_t)dst)[i] = v;
    return CUDA_SUCCESS;
}

/* -- CUDA arrays, texture and surface objects ------------------------------------------------------
 * An array is its elements packed row by row, slice by slice (layers and cube faces are slices): a
 * real GPU's layout is its own and never seen, since every copy to or from an array goes through
 * cuMemcpy3D. Texture and surface objects are numbers; no kernel samples them here. */
typedef struct { size_t row, height, depth; unsigned char *bytes; } array;

static size_t format_bytes(CUarray_format f) {
    switch ((int)f) {
    case CU_AD_FORMAT_UNSIGNED_INT8: case CU_AD_FORMAT_SIGNED_INT8: return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16: case CU_AD_FORMAT_SIGNED_INT16: case CU_AD_FORMAT_HALF: return 2;
    default: return 4;
    }
}

static array *array_new(size_t width, size_t height, size_t depth, CUarray_format f, unsigned channels) {
    array *a = malloc(sizeof *a);
    if (!a) return NULL;
    a->row = width * format_bytes(f) * channels;
    a->height = height ? height : 1, a->depth = depth ? depth : 1;
    if (!(a->bytes = calloc(a->depth * a->height, a->row))) {
        free(a);
        return NULL;
    }
    return a;
}

CUresult cuArray3DCreate_v2(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d) {
    ENTER();
    array *a = array_new(d->Width, d->Height, d->Depth, d->Format, d->NumChannels);
    if (!a) return OUT_OF_MEMORY;
    *out = (CUarray)a;
    return CUDA_SUCCESS;
}
CUresult cuArrayDestroy(CUarray h) {
    ENTER();
    array *a = (array *)h;
    free(a->bytes);
    free(a);
    return CUDA_SUCCESS;
}

typedef struct { int levels; array *level[16]; } mipmap;
CUresult cuMipmappedArrayDestroy(CUmipmappedArray h);

CUresult cuMipmappedArrayCreate(CUmipmappedArray *out, const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned int levels) {
    ENTER();
    mipmap *m = calloc(1, sizeof *m);
    if (!m || levels == 0 || levels > 16) {
        free(m);
        return INVALID_VALUE;
    }
    size_t w = d->Width, h = d->Height, z = d->Depth;
    for (unsigned i = 0; i < levels; i++, w = w > 1 ? w / 2 : 1, h = h > 1 ? h / 2 : h, z = z > 1 ? z / 2 : z) {
        array *a = array_new(w, h, z, d->Format, d->NumChannels);
        if (!a) {
            cuMipmappedArrayDestroy((CUmipmappedArray)m);  /* the levels made so far */
            return OUT_OF_MEMORY;
        }
        m->level[m->levels++] = a;
    }
    *out = (CUmipmappedArray)m;
    return CUDA_SUCCESS;
}
CUresult cuMipmappedArrayGetLevel(CUarray *out, CUmipmappedArray h, unsigned int level) {
    ENTER();
    mipmap *m = (mipmap *)h;
    if ((int)level >= m->levels) return INVALID_VALUE;
    *out = (CUarray)m->level[level];
    return CUDA_SUCCESS;
}
CUresult cuMipmappedArrayDestroy(CUmipmappedArray h) {
    ENTER();
    mipmap *m = (mipmap *)h;
    for (int i = 0; i < m->levels; i++) cuArrayDestroy((CUarray)m->level[i]);
    free(m);
    return CUDA_SUCCESS;
}

/* One side of a 3D copy: where its box starts, and the bytes between its rows and its slices. */
static unsigned char *side_of(CUmemorytype type, const void *host, CUdeviceptr dev, CUarray arr, size_t pitch,
                              size_t height, size_t x, size_t y, size_t z, size_t *row, size_t *slice) {
    unsigned char *base;
    if (type == CU_MEMORYTYPE_ARRAY) {
        const array *a = (const array *)arr;
        base = a->bytes, *row = a->row, *slice = a->row * a->height;
    } else {
        base = type == CU_MEMORYTYPE_HOST ? (unsigned char *)host : (unsigned char *)(uintptr_t)dev;
        *row = pitch, *slice = pitch * height;
    }
    return base + z * *slice + y * *row + x;
}

CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *c, CUstream s) {
    ENTER();
    (void)s;
    size_t srow, sslice, drow, dslice;
    const unsigned char *from = side_of(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, c->srcPitch,
                                        c->srcHeight, c->srcXInBytes, c->srcY, c->srcZ, &srow, &sslice);
    unsigned char *to = side_of(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, c->dstPitch, c->dstHeight,
                                c->dstXInBytes, c->dstY, c->dstZ, &drow, &dslice);
    for (size_t z = 0; z < (c->Depth ? c->Depth : 1); z++)
        for (size_t y = 0; y < (c->Height ? c->Height : 1); y++)
            memmove(to + z * dslice + y * drow, from + z * sslice + y * srow, c->WidthInBytes);
    return CUDA_SUCCESS;
}

/* Texture and surface objects are numbered as an H200's driver numbers them in a fresh context
 * (benchmarks/native/probes/object_values.cu): together, from 1, the lowest free value first. A
 * moved session's objects are made again at the values the program holds by that order
 * (server/backends/cuda/arrays.py object_restore). */
#define MAX_OBJECTS 65536
static unsigned char object_held[MAX_OBJECTS];
static pthread_mutex_t object_lock = PTHREAD_MUTEX_INITIALIZER;

static CUresult object_new(unsigned long long *out) {
    CUresult rc = CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&object_lock);
    for (unsigned long long v = 1; v < MAX_OBJECTS; v++)
        if (!object_held[v]) {
            object_held[v] = 1, *out = v, rc = CUDA_SUCCESS;
            break;
        }
    pthread_mutex_unlock(&object_lock);
    return rc;
}

static CUresult object_free(unsigned long long v) {
    pthread_mutex_lock(&object_lock);
    int held = v < MAX_OBJECTS && object_held[v];
    if (held) object_held[v] = 0;
    pthread_mutex_unlock(&object_lock);
    return held ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuTexObjectCreate(CUtexObject *out, const CUDA_RESOURCE_DESC *r, const CUDA_TEXTURE_DESC *t,
                           const CUDA_RESOURCE_VIEW_DESC *v) {
    ENTER();
    (void)r; (void)t; (void)v;
    return object_new(out);
}
CUresult cuTexObjectDestroy(CUtexObject t) { ENTER(); return object_free(t); }
CUresult cuSurfObjectCreate(CUsurfObject *out, const CUDA_RESOURCE_DESC *r) {
    ENTER();
    (void)r;
    return object_new(out);
}
CUresult cuSurfObjectDestroy(CUsurfObject o) { ENTER(); return object_free(o); }

/* -- streams and events: complete as soon as they are asked ------------------------------------- */

typedef struct { unsigned flags; int priority; } stream;
typedef struct { double at; unsigned flags; int recorded; } event;

CUresult cuStreamCreateWithPriority(CUstream *s, unsigned int flags, int priority) {
    ENTER();
    stream *st = malloc(sizeof *st);
    st->flags = flags;
    st->priority = priority;
    *s = (CUstream)st;
    return CUDA_SUCCESS;
}
CUresult cuStreamDestroy_v2(CUstream s) { ENTER(); free(s); return CUDA_SUCCESS; }
CUresult cuStreamGetFlags(CUstream s, unsigned int *flags) {
    ENTER();
    *flags = s ? ((stream *)s)->flags : 0;
    return CUDA_SUCCESS;
}
CUresult cuStreamGetPriority(CUstream s, int *p) { ENTER(); *p = s ? ((stream *)s)->priority : 0; return CUDA_SUCCESS; }
CUresult cuStreamQuery(CUstream s) { ENTER(); (void)s; return now_ms() < done_at() ? NOT_READY : CUDA_SUCCESS; }
CUresult cuStreamSynchronize(CUstream s) { ENTER(); (void)s; wait_until_ms(done_at()); return CUDA_SUCCESS; }
CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags) {
    ENTER();
    (void)s;
    (void)e;
    (void)flags;
    return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *e, unsigned int flags) {
    ENTER();
    /* the driver's rule: an event shared with other processes keeps no time */
    if ((flags & CU_EVENT_INTERPROCESS) && !(flags & CU_EVENT_DISABLE_TIMING)) return INVALID_VALUE;
    event *ev = calloc(1, sizeof *ev);
    ev->flags = flags;
    *e = (CUevent)ev;
    return CUDA_SUCCESS;
}
CUresult cuEventDestroy_v2(CUevent e) { ENTER(); free(e); return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent e, CUstream s) {
    ENTER();
    (void)s;
    double t = now_ms(), busy = done_at();
    ((event *)e)->at = busy > t ? busy : t;  /* it completes behind the kernels before it */
    ((event *)e)->recorded = 1;
    return CUDA_SUCCESS;
}
CUresult cuEventQuery(CUevent e) { ENTER(); return now_ms() < ((event *)e)->at ? NOT_READY : CUDA_SUCCESS; }
CUresult cuEventSynchronize(CUevent e) { ENTER(); wait_until_ms(((event *)e)->at); return CUDA_SUCCESS; }
CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b) {
    ENTER();
    const event *x = (const event *)a, *y = (const event *)b;
    /* as the driver answers: an event never recorded, or one made without timing, has no time */
    if (!x->recorded || !y->recorded || (x->flags & 0x2) || (y->flags & 0x2)) return INVALID_HANDLE;
    if (now_ms() < x->at || now_ms() < y->at) return NOT_READY;
    *ms = (float)(y->at - x->at);
    return CUDA_SUCCESS;
}
/* An event shared with another process (CUDA IPC): every event is complete at once here, so the
 * opener's is an event of its own, timeless as the driver makes it; the handle only says whose it is.
 * An event made without CU_EVENT_INTERPROCESS is CUDA_ERROR_INVALID_HANDLE to export, as on the driver. */
CUresult cuIpcGetEventHandle(CUipcEventHandle *h, CUevent e) {
    ENTER();
    if (!h || !e) return INVALID_VALUE;
    if (!(((event *)e)->flags & CU_EVENT_INTERPROCESS)) return INVALID_HANDLE;
    ipc_event m = {EVENT_MAGIC, (int32_t)getpid(), (uint64_t)(uintptr_t)e};
    memset(h, 0, sizeof *h);
    memcpy(h->reserved, &m, sizeof m);
    return CUDA_SUCCESS;
}
CUresult cuIpcOpenEventHandle(CUevent *e, CUipcEventHandle h) {
    ENTER();
    ipc_event m;
    memcpy(&m, h.reserved, sizeof m);
    if (!e || m.magic != EVENT_MAGIC) return INVALID_VALUE;
    if (m.pid == (int32_t)getpid()) return CUDA_ERROR_INVALID_CONTEXT;
    event *ev = calloc(1, sizeof *ev);
    if (!ev) return OUT_OF_MEMORY;
    ev->flags = CU_EVENT_DISABLE_TIMING;
    *e = (CUevent)ev;
    return CUDA_SUCCESS;
}

/* -- modules and kernels: read from the image (nullmodule.c), counted, not run ------------------------ */

/* A function: its name, its kernel's facts when the module's image was read (else none), and its
 * module (cuFuncGetModule). */
typedef struct { char *name; const null_kernel *kernel; const null_module *module; } function;

CUresult cuModuleLoadData(CUmodule *m, const void *image) {
    ENTER();
    null_module *mod = calloc(1, sizeof *mod);
    int major, minor = null_cc(&major);
    int rc = mod ? null_module_read(image, mod, major * 10 + minor) : -1;
    if (rc != 0) {
        free(mod);
        return rc == NULL_NO_BINARY ? CUDA_ERROR_NO_BINARY_FOR_GPU
             : rc == NULL_PTX_TOO_NEW ? CUDA_ERROR_INVALID_PTX : OUT_OF_MEMORY;
    }
    *m = (CUmodule)mod;
    return CUDA_SUCCESS;
}
/* A module's functions stay valid after it is unloaded here (the backend forgets them with it). */
CUresult cuModuleUnload(CUmodule m) { ENTER(); (void)m; return CUDA_SUCCESS; }

static function *function_of(const null_module *mod, const char *name) {
    const null_kernel *k = mod->read ? null_module_kernel(mod, name) : NULL;
    if (mod->read && !k) return NULL;
    function *fn = malloc(sizeof *fn);  /* one per lookup: the backend keeps what it was handed */
    if (!fn || !(fn->name = strdup(name))) {
        free(fn);
        return NULL;
    }
    fn->kernel = k;
    fn->module = mod;
    return fn;
}

CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
    ENTER();
    function *fn = function_of((const null_module *)m, name);
    if (!fn) return NOT_FOUND;  /* as the driver: the image has no such kernel */
    *f = (CUfunction)fn;
    return CUDA_SUCCESS;
}
CUresult cuModuleGetFunctionCount(unsigned int *count, CUmodule m) {
    ENTER();
    *count = (unsigned)((const null_module *)m)->nkernels;
    return CUDA_SUCCESS;
}
CUresult cuModuleEnumerateFunctions(CUfunction *out, unsigned int n, CUmodule m) {
    ENTER();
    const null_module *mod = (const null_module *)m;
    if (n != (unsigned)mod->nkernels) return INVALID_VALUE;
    for (unsigned i = 0; i < n; i++)
        if (!(out[i] = (CUfunction)function_of(mod, mod->kernels[i].name))) return OUT_OF_MEMORY;
    return CUDA_SUCCESS;
}
/* The linker (the cuda backend links the client's link images with it: numba's kernels, CuPy's
 * RawModule with jitify). Nothing is compiled: the linked image is the PTX inputs' texts one after
 * the other (their .entry declarations are what nullmodule.c reads), or, with no PTX, the first input
 * as it came (a cubin or fatbin). */
typedef struct { char *ptx; size_t nptx; void *first; size_t nfirst; } link_state;

CUresult cuLinkCreate_v2(unsigned int n, CUjit_option *options, void **values, CUlinkState *out) {
    ENTER();
    (void)n; (void)options; (void)values;
    link_state *l = calloc(1, sizeof *l);
    if (!l) return OUT_OF_MEMORY;
    *out = (CUlinkState)l;
    return CUDA_SUCCESS;
}
CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data, size_t size, const char *name,
                          unsigned int n, CUjit_option *options, void **values) {
    ENTER();
    (void)name; (void)n; (void)options; (void)values;
    link_state *l = (link_state *)state;
    if (type == CU_JIT_INPUT_PTX) {
        size_t len = strnlen(data, size);
        char *p = realloc(l->ptx, l->nptx + len + 2);
        if (!p) return OUT_OF_MEMORY;
        memcpy(p + l->nptx, data, len);
        l->nptx += len;
        p[l->nptx++] = '\n';
        p[l->nptx] = 0;
        l->ptx = p;
    } else if (!l->first) {
        if (!(l->first = malloc(size ? size : 1))) return OUT_OF_MEMORY;
        memcpy(l->first, data, size);
        l->nfirst = size;
    }
    return CUDA_SUCCESS;
}
CUresult cuLinkComplete(CUlinkState state, void **image, size_t *size) {
    ENTER();
    link_state *l = (link_state *)state;
    if (l->ptx) *image = l->ptx, *size = l->nptx + 1;
    else if (l->first) *image = l->first, *size = l->nfirst;
    else return INVALID_VALUE;
    return CUDA_SUCCESS;
}
CUresult cuLinkDestroy(CUlinkState state) {
    ENTER();
    link_state *l = (link_state *)state;
    free(l->ptx);
    free(l->first);
    free(l);
    return CUDA_SUCCESS;
}

/* The driver's own data, placed before the first module variable: a real driver places a module's
 * variables wherever its own allocations leave room, so the same module loaded in another process
 * (a session moved to another worker) finds them elsewhere. Its size differs by GPU (RGPU_NULL_UUID)
 * or, without one, by process: 1 to 61 steps of the window. */
static void driver_data_once(void) {
    static int done;
    if (done) return;
    done = 1;
    const char *e = getenv("RGPU_NULL_UUID");
    char pid[24];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    uint64_t h = 1469598103934665603ull;
    for (const char *c = e && *e ? e : pid; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    uint64_t skip = (1 + h % 61) * STEP;  /* left unmapped: the window's bump allocator never comes back */
    if (next_free + skip < WINDOW_BASE + WINDOW_SIZE) next_free += skip;
}

/* Placed in the window the first time it is asked for, with its initial bytes. */
CUresult cuModuleGetGlobal_v2(CUdeviceptr *p, size_t *n, CUmodule m, const char *name) {
    ENTER();
    null_global *g = null_module_global((null_module *)m, name);
    if (!g) return NOT_FOUND;
    if (!g->addr) {
        driver_data_once();
        CUdeviceptr at;
        CUresult rc = window_alloc(&at, g->size, 0);
        if (rc != CUDA_SUCCESS) return rc;
        if (g->init) memcpy((void *)(uintptr_t)at, g->init, g->size);
        g->addr = at;
    }
    if (p) *p = g->addr;
    if (n) *n = g->size;
    return CUDA_SUCCESS;
}
CUresult cuFuncGetName(const char **name, CUfunction f) { ENTER(); *name = ((function *)f)->name; return CUDA_SUCCESS; }
CUresult cuFuncGetModule(CUmodule *m, CUfunction f) {
    ENTER();
    *m = (CUmodule)((function *)f)->module;
    return CUDA_SUCCESS;
}
CUresult cuFuncGetParamInfo(CUfunction f, size_t i, size_t *offset, size_t *size) {
    ENTER();
    const null_kernel *k = ((function *)f)->kernel;
    if (!k || i >= (size_t)k->nparams) return INVALID_VALUE;  /* past the last (or not known) */
    *offset = k->params[i].offset, *size = k->params[i].size;
    return CUDA_SUCCESS;
}
CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f) {
    ENTER();
    (void)f;
    switch ((int)a) {
    case 0: *v = 1024; break;  /* MAX_THREADS_PER_BLOCK */
    case 4: *v = 16; break;    /* NUM_REGS */
    case 5: case 6: *v = 90; break;  /* PTX_VERSION, BINARY_VERSION */
    case 8: *v = 232448; break;  /* MAX_DYNAMIC_SHARED_SIZE_BYTES */
    default: *v = 0;
    }
    return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
    ENTER();
    (void)f;
    (void)a;
    (void)v;
    return CUDA_SUCCESS;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, CUfunction f, int block, size_t dyn,
                                                              unsigned int flags) {
    ENTER();
    (void)f; (void)dyn; (void)flags;
    *n = block > 0 ? (2048 / block < 32 ? 2048 / block : 32) : 0;
    return CUDA_SUCCESS;
}

/* The SM's shared memory (228 KiB) shared by `blocks` resident blocks, each at most the opt-in maximum */
CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *bytes, CUfunction f, int blocks, int block_size) {
    ENTER();
    (void)f;
    if (blocks <= 0 || block_size <= 0) return INVALID_VALUE;
    size_t each = 233472 / (size_t)blocks;
    *bytes = each < 232448 ? each : 232448;
    return CUDA_SUCCESS;
}

/* Clusters of up to 16 blocks (8 portable, 16 when a kernel allows non-portable sizes: the driver
 * checks that; this does not), as many as 132 SMs hold with one block of a cluster each */
static unsigned cluster_blocks(const CUlaunchConfig *c) {
    for (unsigned i = 0; i < c->numAttrs; i++)
        if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
            return c->attrs[i].value.clusterDim.x * c->attrs[i].value.clusterDim.y * c->attrs[i].value.clusterDim.z;
    return 1;
}
CUresult cuOccupancyMaxActiveClusters(int *n, CUfunction f, const CUlaunchConfig *c) {
    ENTER();
    (void)f;
    unsigned blocks = cluster_blocks(c);
    if (blocks == 0 || blocks > 16) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    *n = (int)(132 / blocks);
    return CUDA_SUCCESS;
}
CUresult cuOccupancyMaxPotentialClusterSize(int *n, CUfunction f, const CUlaunchConfig *c) {
    ENTER();
    (void)f; (void)c;
    *n = 8;
    return CUDA_SUCCESS;
}

static unsigned long long launched;
unsigned long long null_launches(void) { return launched; }  /* for a debugger or a test */

/* The one kernel run here: the cuda backend's digests of a session's memory for its checkpoints
 * (server/backends/cuda/digests.py, whose PTX tests/unit/sim/test_device_digest.py runs on the
 * software GPU against this same function), so that a checkpoint on this driver takes the path it
 * takes on a GPU. Block b digests ranges[b] = {address, length} into out[b]. 0: another kernel; 1:
 * run; -1: launched otherwise than the backend launches it (kernelParams, 256 threads). */
static int digest_kernel(const function *fn, unsigned gx, unsigned bx, unsigned by, unsigned bz, void **params) {
    if (!fn || strcmp(fn->name, "rgpu_chunk_digests") != 0) return 0;
    if (bx != RGPU_DIGEST_THREADS || by != 1 || bz != 1 || !params) return -1;
    const uint64_t *ranges = (const uint64_t *)(uintptr_t)*(const uint64_t *)params[0];
    uint64_t *out = (uint64_t *)(uintptr_t)*(const uint64_t *)params[1];
    uint32_t count = *(const uint32_t *)params[2];
    for (uint32_t b = 0; b < gx && b < count; b++)
        rgpu_device_digest((const void *)(uintptr_t)ranges[2 * b], ranges[2 * b + 1], out + 2 * b);
    return 1;
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **params, void **extra) {
    ENTER();
    (void)c; (void)f; (void)params; (void)extra;
    launched++;
    kernel_ran();
    return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                        unsigned int by, unsigned int bz, unsigned int shared, CUstream s, void **params,
                        void **extra) {
    ENTER();
    (void)gy; (void)gz; (void)shared; (void)s; (void)extra;
    if (digest_kernel((const function *)f, gx, bx, by, bz, params) < 0) return INVALID_VALUE;
    launched++;
    kernel_ran();
    return CUDA_SUCCESS;
}

/* -- graphs of kernel, memset and copy nodes (the cuda backend builds a client's executable graph of
 * them: server/backends/cuda/graphs.py) --
 * A graph is its nodes in the order they were added, each a copy of its parameters as the driver keeps
 * them; an executable graph is a copy of a graph (changing the graph after instantiation changes
 * nothing it runs); a launch runs its nodes in order, as the calls would: kernels count, memsets and
 * copies change memory. */
enum { NODE_KERNEL, NODE_MEMSET, NODE_COPY };
typedef struct {
    int kind;
    CUDA_MEMSET_NODE_PARAMS set;
    CUdeviceptr dst, src;
    size_t bytes;
} null_node;
typedef struct { null_node *nodes; size_t n, cap; int exec; } null_graph;

CUresult cuGraphCreate(CUgraph *g, unsigned int flags) {
    ENTER();
    if (!g || flags) return INVALID_VALUE;
    null_graph *ng = calloc(1, sizeof *ng);
    if (!ng) return OUT_OF_MEMORY;
    *g = (CUgraph)ng;
    return CUDA_SUCCESS;
}

static CUresult add_node(CUgraphNode *node, CUgraph g, const CUgraphNode *deps, size_t ndeps, null_node n) {
    null_graph *ng = (null_graph *)g;
    if (!node || !ng || ng->exec || (ndeps && !deps)) return INVALID_VALUE;
    if (ng->n == ng->cap) {
        size_t cap = ng->cap ? 2 * ng->cap : 16;
        null_node *nodes = realloc(ng->nodes, cap * sizeof *nodes);
        if (!nodes) return OUT_OF_MEMORY;
        ng->nodes = nodes, ng->cap = cap;
    }
    ng->nodes[ng->n++] = n;
    *node = (CUgraphNode)(uintptr_t)ng->n;  /* a number, never dereferenced */
    return CUDA_SUCCESS;
}

CUresult cuGraphAddKernelNode_v2(CUgraphNode *node, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                                 const CUDA_KERNEL_NODE_PARAMS *p) {
    ENTER();
    if (!p || !p->func || !p->gridDimX || !p->gridDimY || !p->gridDimZ || !p->blockDimX || !p->blockDimY ||
        !p->blockDimZ)
        return INVALID_VALUE;
    const null_kernel *k = ((const function *)p->func)->kernel;
    if (!p->kernelParams && !p->extra && k && k->nparams) return INVALID_VALUE;
    return add_node(node, g, deps, ndeps, (null_node){.kind = NODE_KERNEL});
}

CUresult cuGraphAddMemsetNode(CUgraphNode *node, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                              const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx) {
    ENTER();
    (void)ctx;
    if (!p || !p->dst || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) || !p->height ||
        (p->height > 1 && p->pitch < p->width * p->elementSize))
        return INVALID_VALUE;
    return add_node(node, g, deps, ndeps, (null_node){.kind = NODE_MEMSET, .set = *p});
}

CUresult cuGraphAddMemcpyNode(CUgraphNode *node, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                              const CUDA_MEMCPY3D *p, CUcontext ctx) {
    ENTER();
    (void)ctx;
    /* the copies the backend makes: device to device, one row */
    if (!p || p->srcMemoryType != CU_MEMORYTYPE_DEVICE || p->dstMemoryType != CU_MEMORYTYPE_DEVICE ||
        p->Height > 1 || p->Depth > 1 || p->srcXInBytes || p->dstXInBytes)
        return CUDA_ERROR_NOT_SUPPORTED;
    return add_node(node, g, deps, ndeps,
                    (null_node){.kind = NODE_COPY, .dst = p->dstDevice, .src = p->srcDevice, .bytes = p->WidthInBytes});
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec *e, CUgraph g, unsigned long long flags) {
    ENTER();
    null_graph *ng = (null_graph *)g, *x;
    if (!e || !ng || ng->exec || (flags & ~15ull)) return INVALID_VALUE;
    if (!(x = calloc(1, sizeof *x)) || (ng->n && !(x->nodes = malloc(ng->n * sizeof *x->nodes)))) {
        free(x);
        return OUT_OF_MEMORY;
    }
    if (ng->n) memcpy(x->nodes, ng->nodes, ng->n * sizeof *x->nodes);
    x->n = x->cap = ng->n;
    x->exec = 1;
    *e = (CUgraphExec)x;
    return CUDA_SUCCESS;
}

static CUresult graph_free(null_graph *ng, int exec) {
    if (!ng || ng->exec != exec) return INVALID_VALUE;
    free(ng->nodes);
    free(ng);
    return CUDA_SUCCESS;
}
CUresult cuGraphDestroy(CUgraph g) { ENTER(); return graph_free((null_graph *)g, 0); }
CUresult cuGraphExecDestroy(CUgraphExec e) { ENTER(); return graph_free((null_graph *)e, 1); }

static unsigned long long graph_launches;
unsigned long long null_graph_launches(void) { return graph_launches; }  /* for a debugger or a test */

CUresult cuGraphLaunch(CUgraphExec e, CUstream s) {
    ENTER();
    null_graph *x = (null_graph *)e;
    if (!x || !x->exec) return INVALID_VALUE;
    graph_launches++;
    for (size_t i = 0; i < x->n; i++) {
        const null_node *n = &x->nodes[i];
        if (n->kind == NODE_KERNEL) {
            launched++;
            kernel_ran();
        } else if (n->kind == NODE_COPY) {
            cuMemcpyDtoDAsync_v2(n->dst, n->src, n->bytes, s);
        } else { /* row by row, as the memset calls would */
            const CUDA_MEMSET_NODE_PARAMS *p = &n->set;
            for (size_t r = 0; r < p->height; r++) {
                CUdeviceptr row = p->dst + r * p->pitch;
                if (p->elementSize == 1) cuMemsetD8Async(row, (unsigned char)p->value, p->width, s);
                else if (p->elementSize == 2) cuMemsetD16Async(row, (unsigned short)p->value, p->width, s);
                else cuMemsetD32Async(row, p->value, p->width, s);
            }
        }
    }
    return CUDA_SUCCESS;
}

/* -- the driver's checkpoint of a process (cuCheckpointProcess*): idle reclaim on the cuda backend --
 *
 * A process that loaded this driver answers, on an abstract Unix socket named after its pid, the
 * requests that cuCheckpointProcess* calls from another process (the worker's helper,
 * server/backends/cuda/suspension.py) send it: a thread of its own serves them, as the real driver's
 * restore thread does. The states and their order are the driver's (running, locked, checkpointed;
 * a request out of order is CUDA_ERROR_ILLEGAL_STATE). A checkpoint copies each mapping of device
 * memory into host memory and unmaps it, so that a call touching device memory while checkpointed
 * faults instead of passing unnoticed; a restore maps each one again at its address. A call the
 * process itself makes while locked or checkpointed ends it with a message (ENTER, at the top). */
#define ILLEGAL_STATE 401
#define UNKNOWN 999
enum { ASK_STATE, ASK_LOCK, ASK_CHECKPOINT, ASK_RESTORE, ASK_UNLOCK };
static void *saved[sizeof maps / sizeof *maps];

static socklen_t control_address(struct sockaddr_un *a, int pid) {
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    int n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "rgpu-nullcuda-%d", pid);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static void *saved_vmm[sizeof mappings / sizeof *mappings];

static int checkpoint_memory(void) {
    /* cuda-checkpoint takes no IPC memory; here a restore would make an export private again */
    for (int i = 0; i < nmaps; i++)
        if (maps[i].fd >= 0) return CUDA_ERROR_NOT_SUPPORTED;
    if (nopened) return CUDA_ERROR_NOT_SUPPORTED;
    for (int i = 0; i < nmappings; i++)
        if (mappings[i].ph->shared) return CUDA_ERROR_NOT_SUPPORTED;
    for (int i = 0; i < nmaps + nmappings; i++) {
        int m = i < nmaps;
        size_t len = m ? maps[i].len : mappings[i - nmaps].len;
        void **into = m ? &saved[i] : &saved_vmm[i - nmaps];
        if (!(*into = malloc(len))) {
            while (i-- > 0) free(i < nmaps ? saved[i] : saved_vmm[i - nmaps]);
            return OUT_OF_MEMORY;
        }
        memcpy(*into, (void *)(uintptr_t)(m ? maps[i].addr : mappings[i - nmaps].addr), len);
    }
    for (int i = 0; i < nmaps; i++) munmap((void *)(uintptr_t)maps[i].addr, maps[i].len);
    /* a mapping's range stays reserved, inaccessible: a touch faults, as an unmapped one does */
    for (int i = 0; i < nmappings; i++)
        mmap((void *)(uintptr_t)mappings[i].addr, mappings[i].len, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    return CUDA_SUCCESS;
}

static int restore_memory(void) {
    for (int i = 0; i < nmaps; i++) {
        void *m = mmap((void *)(uintptr_t)maps[i].addr, maps[i].len, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
        if (m == MAP_FAILED || (uint64_t)(uintptr_t)m != maps[i].addr) {  /* its address is taken */
            if (m != MAP_FAILED) munmap(m, maps[i].len);
            while (i-- > 0) munmap((void *)(uintptr_t)maps[i].addr, maps[i].len);
            return OUT_OF_MEMORY;
        }
    }
    for (int i = 0; i < nmappings; i++)
        if (mmap((void *)(uintptr_t)mappings[i].addr, mappings[i].len, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_FIXED, mappings[i].ph->fd, (off_t)mappings[i].offset) == MAP_FAILED)
            return OUT_OF_MEMORY;
    for (int i = 0; i < nmaps; i++) {
        memcpy((void *)(uintptr_t)maps[i].addr, saved[i], maps[i].len);
        free(saved[i]);
    }
    for (int i = 0; i < nmappings; i++) {
        memcpy((void *)(uintptr_t)mappings[i].addr, saved_vmm[i], mappings[i].len);
        free(saved_vmm[i]);
    }
    return CUDA_SUCCESS;
}

/* RGPU_NULL_CHECKPOINT=stuck: a checkpoint fails and leaves the process locked (its unlock fails too),
 * as a driver in trouble may; for the tests of what rgpu does then. */
static int stuck;

static int answer(int ask) {
    static const int before[] = {[ASK_LOCK] = RUNNING, [ASK_CHECKPOINT] = LOCKED, [ASK_RESTORE] = CHECKPOINTED,
                                 [ASK_UNLOCK] = LOCKED};
    static const int after[] = {[ASK_LOCK] = LOCKED, [ASK_CHECKPOINT] = CHECKPOINTED, [ASK_RESTORE] = LOCKED,
                                [ASK_UNLOCK] = RUNNING};
    if (ask == ASK_STATE) return CUDA_SUCCESS;
    if (ask < ASK_STATE || ask > ASK_UNLOCK) return INVALID_VALUE;
    if (process_state != before[ask]) return ILLEGAL_STATE;
    if (stuck && (ask == ASK_CHECKPOINT || ask == ASK_UNLOCK)) return UNKNOWN;  /* left locked */
    int rc = ask == ASK_CHECKPOINT ? checkpoint_memory() : ask == ASK_RESTORE ? restore_memory() : CUDA_SUCCESS;
    if (rc == CUDA_SUCCESS) __atomic_store_n(&process_state, after[ask], __ATOMIC_RELEASE);
    return rc;
}

static void *serve_checkpoints(void *arg) {
    int listener = (int)(intptr_t)arg;
    for (;;) {
        int c = accept(listener, NULL, NULL);
        if (c < 0) {
            usleep(1000);
            continue;
        }
        /* An abstract socket has no file permissions: only the process's own user may ask, as only
         * it (or root) may checkpoint the process with the real driver. */
        struct ucred who;
        socklen_t n = sizeof who;
        int ask, reply[2], same = getsockopt(c, SOL_SOCKET, SO_PEERCRED, &who, &n) == 0 &&
                                  (who.uid == getuid() || who.uid == 0);
        if (read(c, &ask, sizeof ask) == (ssize_t)sizeof ask) {
            reply[0] = same ? answer(ask) : INVALID_VALUE;
            reply[1] = process_state;
            if (write(c, reply, sizeof reply) != (ssize_t)sizeof reply) { /* the asker is gone */ }
        }
        close(c);
    }
    return NULL;
}

static void start_checkpoint_service(void) {
    const char *how = getenv("RGPU_NULL_CHECKPOINT");
    stuck = how && !strcmp(how, "stuck");
    struct sockaddr_un a;
    socklen_t n = control_address(&a, (int)getpid());
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    pthread_t t;
    if (s < 0) return;
    if (bind(s, (struct sockaddr *)&a, n) != 0 || listen(s, 4) != 0 ||
        pthread_create(&t, NULL, serve_checkpoints, (void *)(intptr_t)s) != 0) {
        close(s);
        return;
    }
    pthread_detach(t);
}

static pthread_once_t checkpoint_service = PTHREAD_ONCE_INIT;
static pid_t service_pid;

/* Started at cuInit, once per process (again in a forked child, which has no thread of its parent's). */
void null_checkpoint_service(void) {
    if (service_pid != getpid()) {
        service_pid = getpid();
        checkpoint_service = (pthread_once_t)PTHREAD_ONCE_INIT;
    }
    pthread_once(&checkpoint_service, start_checkpoint_service);
}

static CUresult ask_process(int pid, int ask, int *state) {
    struct sockaddr_un a;
    socklen_t n = control_address(&a, pid);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), reply[2];
    if (s < 0) return OUT_OF_MEMORY;
    if (connect(s, (struct sockaddr *)&a, n) != 0) {  /* no such process, or it never used this driver */
        close(s);
        return INVALID_VALUE;
    }
    ssize_t got = write(s, &ask, sizeof ask) == (ssize_t)sizeof ask ? read(s, reply, sizeof reply) : -1;
    close(s);
    if (got != (ssize_t)sizeof reply) return INVALID_VALUE;
    if (state) *state = reply[1];
    return (CUresult)reply[0];
}

CUresult cuCheckpointProcessGetState(int pid, CUprocessState *state) {
    ENTER();
    int s;
    CUresult rc = ask_process(pid, ASK_STATE, &s);
    if (rc == CUDA_SUCCESS) *state = (CUprocessState)s;
    return rc;
}
CUresult cuCheckpointProcessLock(int pid, CUcheckpointLockArgs *args) {
    ENTER();
    (void)args;
    return ask_process(pid, ASK_LOCK, NULL);
}
CUresult cuCheckpointProcessCheckpoint(int pid, CUcheckpointCheckpointArgs *args) {
    ENTER();
    (void)args;
    return ask_process(pid, ASK_CHECKPOINT, NULL);
}
CUresult cuCheckpointProcessRestore(int pid, CUcheckpointRestoreArgs *args) {
    ENTER();
    (void)args;
    return ask_process(pid, ASK_RESTORE, NULL);
}
CUresult cuCheckpointProcessUnlock(int pid, CUcheckpointUnlockArgs *args) {
    ENTER();
    (void)args;
    return ask_process(pid, ASK_UNLOCK, NULL);
}
