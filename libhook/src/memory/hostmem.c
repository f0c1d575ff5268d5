/* Page-locked ("pinned") host memory. Here it is ordinary page-aligned memory — the data crosses the
 * network anyway — but the program can observe what it pinned: the flags it asked for
 * (cudaHostGetFlags), its type in cudaPointerGetAttributes, and CUDA's errors for freeing or
 * unregistering what was never pinned and for registering a range twice.
 *
 * Mapped memory (cudaHostAllocMapped, for kernels to read and write host memory directly) is managed
 * memory (managed.c): one address on both sides, made coherent at synchronisations, which is what a
 * zero-copy program relies on. It takes device memory (the vGPU's quota) besides host memory.
 * Memory pinned otherwise has no device address (cudaHostGetDevicePointer says not supported). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "rgpu_call.h"

#define ALREADY_REGISTERED cudaErrorHostMemoryAlreadyRegistered /* the same numbers in both faces */
#define NOT_REGISTERED cudaErrorHostMemoryNotRegistered
enum { ALLOC_FLAGS = cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined };
enum { REGISTER_FLAGS = cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterIoMemory |
                        cudaHostRegisterReadOnly };
#define MAPPED cudaHostAllocMapped
#define NOT_SUPPORTED cudaErrorNotSupported


typedef struct { uintptr_t p; size_t n; unsigned flags; int registered; } pinned;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pinned *table;
static size_t count, cap;

/* Index of the range holding p (mu held), or -1. */
static long find(uintptr_t p) {
    for (size_t i = 0; i < count; i++)
        if (p >= table[i].p && p < table[i].p + (table[i].n ? table[i].n : 1)) return (long)i;
    return -1;
}

static int add(uintptr_t p, size_t n, unsigned flags, int registered) {
    pthread_mutex_lock(&mu);
    if (count == cap) {
        size_t c = cap ? cap * 2 : 64;
        pinned *t = realloc(table, c * sizeof *t);
        if (!t) { pthread_mutex_unlock(&mu); return RGPU_OUT_OF_MEMORY; }
        table = t, cap = c;
    }
    table[count++] = (pinned){p, n, flags, registered};
    pthread_mutex_unlock(&mu);
    return RGPU_SUCCESS;
}

/* Removes the range starting at p pinned the given way; 0 if there is none. */
static int take(uintptr_t p, int registered) {
    pthread_mutex_lock(&mu);
    long i = find(p);
    int ok = i >= 0 && table[i].p == p && table[i].registered == registered;
    if (ok) table[i] = table[--count];
    pthread_mutex_unlock(&mu);
    return ok;
}

int rgpu_pinned(const void *p, unsigned *flags) {
    if (!__atomic_load_n(&count, __ATOMIC_RELAXED)) return 0;
    pthread_mutex_lock(&mu);
    long i = find((uintptr_t)p);
    if (i >= 0 && flags) *flags = table[i].flags;
    pthread_mutex_unlock(&mu);
    return i >= 0;
}

/* The pinned range holding p: its start and size (cuPointerGetAttribute's range attributes). */
int rgpu_pinned_range(const void *p, CUdeviceptr *base, size_t *size) {
    pthread_mutex_lock(&mu);
    long i = find((uintptr_t)p);
    if (i >= 0) *base = table[i].p, *size = table[i].n;
    pthread_mutex_unlock(&mu);
    return i >= 0 ? RGPU_SUCCESS : RGPU_INVALID_VALUE;
}

static int host_alloc(int face, void **p, size_t n, unsigned flags) {
    if (!p || (flags & ~(unsigned)ALLOC_FLAGS)) return rgpu_invalid_value(face);
    if (flags & MAPPED) {
        int rc = cudaMallocManaged(p, n ? n : 1, cudaMemAttachGlobal);
        if (rc) return rgpu_record(face, rc);
    } else if (posix_memalign(p, 4096, n ? n : 1) != 0) {
        return rgpu_record(face, RGPU_OUT_OF_MEMORY);
    }
    if (add((uintptr_t)*p, n, flags, 0)) {
        if (flags & MAPPED) cudaFree(*p);
        else free(*p);
        *p = NULL;
        return rgpu_record(face, RGPU_OUT_OF_MEMORY);
    }
    return RGPU_SUCCESS;
}

static int host_free(int face, void *p) {
    if (!p) return RGPU_SUCCESS;
    unsigned flags = 0;
    if (!rgpu_pinned(p, &flags) || !take((uintptr_t)p, 0)) return rgpu_invalid_value(face);
    if (flags & MAPPED) return cudaFree(p);
    free(p);
    return RGPU_SUCCESS;
}

/* The device address of mapped memory is its host address (one managed allocation). */
static int device_pointer(int face, void **dev, void *host, unsigned flags) {
    if (!dev || !host || flags) return rgpu_invalid_value(face);
    pthread_mutex_lock(&mu);
    long i = find((uintptr_t)host);
    int mapped = i >= 0 && !table[i].registered && (table[i].flags & MAPPED);
    pthread_mutex_unlock(&mu);
    if (i < 0) return rgpu_invalid_value(face);
    if (!mapped) {
        rgpu_log(RGPU_LOG_WARN, "host memory has a device address through rgpu only when allocated with "
                                "cudaHostAllocMapped / CU_MEMHOSTALLOC_DEVICEMAP");
        return rgpu_record(face, NOT_SUPPORTED);
    }
    *dev = host;
    return RGPU_SUCCESS;
}

static int host_register(int face, void *p, size_t n, unsigned flags) {
    if (!p || !n || (flags & ~(unsigned)REGISTER_FLAGS)) return rgpu_invalid_value(face);
    pthread_mutex_lock(&mu);
    int taken = find((uintptr_t)p) >= 0 || find((uintptr_t)p + n - 1) >= 0;
    pthread_mutex_unlock(&mu);
    if (taken) return rgpu_record(face, ALREADY_REGISTERED);
    int rc = add((uintptr_t)p, n, flags, 1);
    return rc ? rgpu_record(face, rc) : RGPU_SUCCESS;
}

static int host_unregister(int face, void *p) {
    if (!p) return rgpu_invalid_value(face);
    return take((uintptr_t)p, 1) ? RGPU_SUCCESS : rgpu_record(face, NOT_REGISTERED);
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
