// Where DMA between host memory and a GPU is fast: cuMemcpyHtoD / DtoH of SIZE bytes between device
// memory and host memory of each kind the driver can copy from without staging. rgpu's pinned copies
// DMA from the program's own pages, a POSIX shared-memory segment the worker maps and registers
// (server/pinned.py); native programs DMA from cudaMallocHost's memory. This says which kinds of
// host memory reach the driver's own pinned speed on this host (issue 38's pinned copies).
//
//   nvcc -O2 -o host_memory host_memory.cu -lcuda && ./host_memory [SIZE_MiB]
// One line per kind: "kind h2d_GBps d2h_GBps" (best of 5 rounds of 10 copies), or "kind error ...".
#include <cuda.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#ifndef MFD_HUGETLB
#define MFD_HUGETLB 4U
#endif

static double now() {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static size_t size;
static CUdeviceptr dev;
static CUstream stream;

// How a copy is waited for: the driver's synchronous copy, or an async copy on a stream and then
// cuStreamSynchronize, a cuStreamQuery poll (what rgpu's worker does first), or a blocking-sync event
// (what it does when the wait goes on).
enum { WAIT_SYNC_API, WAIT_STREAM_SYNC, WAIT_POLL, WAIT_EVENT };

static CUresult copy(int dir, char *h, int wait, CUevent ev) {
    CUresult rc;
    if (wait == WAIT_SYNC_API) return dir == 0 ? cuMemcpyHtoD(dev, h, size) : cuMemcpyDtoH(h, dev, size);
    rc = dir == 0 ? cuMemcpyHtoDAsync(dev, h, size, stream) : cuMemcpyDtoHAsync(h, dev, size, stream);
    if (rc) return rc;
    if (wait == WAIT_STREAM_SYNC) return cuStreamSynchronize(stream);
    if (wait == WAIT_POLL) {
        while ((rc = cuStreamQuery(stream)) == CUDA_ERROR_NOT_READY) {
        }
        return rc;
    }
    if ((rc = cuEventRecord(ev, stream))) return rc;
    return cuEventSynchronize(ev);
}

static void measure_how(const char *kind, char *h, int registered, unsigned flags, int wait) {
    CUresult rc;
    if (!h || h == MAP_FAILED) {
        printf("%-36s error allocation failed\n", kind);
        return;
    }
    memset(h, 7, size);
    if (registered && (rc = cuMemHostRegister(h, size, flags)) != CUDA_SUCCESS) {
        const char *n;
        cuGetErrorName(rc, &n);
        printf("%-36s error register %s\n", kind, n);
        return;
    }
    CUevent ev;
    cuEventCreate(&ev, CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING);
    double best[2] = {1e9, 1e9};
    for (int dir = 0; dir < 2; dir++) {
        for (int r = 0; r < 6; r++) {  // the first round warms up
            double t0 = now();
            for (int i = 0; i < 10; i++)  // one copy at a time, waited for: a program's cudaMemcpy
                if ((rc = copy(dir, h, wait, ev)) != CUDA_SUCCESS) break;
            if (rc != CUDA_SUCCESS) {
                printf("%-36s error copy %d\n", kind, (int)rc);
                return;
            }
            double t = now() - t0;
            if (r && t < best[dir]) best[dir] = t;
        }
    }
    cuEventDestroy(ev);
    printf("%-36s %6.2f %6.2f\n", kind, 10.0 * size / best[0] / 1e9, 10.0 * size / best[1] / 1e9);
    if (registered) cuMemHostUnregister(h);
}

static void measure(const char *kind, char *h, int registered, unsigned flags) {
    measure_how(kind, h, registered, flags, WAIT_STREAM_SYNC);
}

static char *shm(const char *name, int huge) {
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) return NULL;
    shm_unlink(name);
    if (ftruncate(fd, size)) return NULL;
    char *p = (char *)mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p != MAP_FAILED && huge) madvise(p, size, MADV_HUGEPAGE);
    return p == MAP_FAILED ? NULL : p;
}

static char *memfd(unsigned flags) {
    int fd = (int)syscall(SYS_memfd_create, "probe", flags);
    if (fd < 0) return NULL;
    if (ftruncate(fd, size)) return NULL;
    char *p = (char *)mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

static void show(const char *path) {
    char line[256];
    FILE *f = fopen(path, "r");
    if (!f) { printf("# %s: absent\n", path); return; }
    while (fgets(line, sizeof line, f)) printf("# %s: %s", path, line);
    fclose(f);
}

int main(int argc, char **argv) {
    size = (size_t)(argc > 1 ? atoi(argv[1]) : 64) << 20;
    CUdevice d;
    CUcontext ctx;
    if (cuInit(0) || cuDeviceGet(&d, 0) || cuDevicePrimaryCtxRetain(&ctx, d) || cuCtxSetCurrent(ctx) ||
        cuMemAlloc(&dev, size) || cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING)) {
        fprintf(stderr, "no device\n");
        return 1;
    }
    show("/sys/kernel/mm/transparent_hugepage/enabled");
    show("/sys/kernel/mm/transparent_hugepage/shmem_enabled");
    FILE *m = fopen("/proc/mounts", "r");
    char line[512];
    while (m && fgets(line, sizeof line, m))
        if (strstr(line, "/dev/shm")) printf("# mount: %s", line);
    if (m) fclose(m);
    printf("# %zu MiB, GB/s: kind h2d d2h\n", size >> 20);
    void *a = NULL;
    cuMemAllocHost(&a, size);
    measure("cuMemAllocHost", (char *)a, 0, 0);
    if (a) cuMemFreeHost(a);
    a = NULL;
    cuMemHostAlloc(&a, size, CU_MEMHOSTALLOC_PORTABLE);
    measure("cuMemHostAlloc portable", (char *)a, 0, 0);
    if (a) cuMemFreeHost(a);
    measure("malloc+register", (char *)aligned_alloc(4096, size), 1, CU_MEMHOSTREGISTER_PORTABLE);
    char *p = (char *)aligned_alloc(2 << 20, size);
    if (p) madvise(p, size, MADV_HUGEPAGE);
    measure("malloc thp+register", p, 1, CU_MEMHOSTREGISTER_PORTABLE);
    char name[64];
    snprintf(name, sizeof name, "/probe-%d-a", (int)getpid());
    measure("shm+register (rgpu)", shm(name, 0), 1, CU_MEMHOSTREGISTER_PORTABLE);
    snprintf(name, sizeof name, "/probe-%d-b", (int)getpid());
    measure("shm thp+register", shm(name, 1), 1, CU_MEMHOSTREGISTER_PORTABLE);
    snprintf(name, sizeof name, "/probe-%d-c", (int)getpid());
    measure("shm+register devicemap", shm(name, 0), 1, CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP);
    measure("memfd+register", memfd(0), 1, CU_MEMHOSTREGISTER_PORTABLE);
    measure("memfd hugetlb+register", memfd(MFD_HUGETLB), 1, CU_MEMHOSTREGISTER_PORTABLE);
    measure("anon shared+register",
            (char *)mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0), 1,
            CU_MEMHOSTREGISTER_PORTABLE);
    char *l = (char *)mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
    measure("anon shared locked+register", l, 1, CU_MEMHOSTREGISTER_PORTABLE);
    measure("pageable malloc", (char *)malloc(size), 0, 0);
    // rgpu's pinned copy: from a registered segment, 4 KiB past its start (the segment's first page
    // is its header), waited for each way
    const char *how[] = {"sync API", "stream sync", "query poll", "blocking event"};
    for (int w = 0; w < 4; w++) {
        char label[64];
        snprintf(name, sizeof name, "/probe-%d-w%d", (int)getpid(), w);
        size_t n = size;
        size += 4096;
        char *seg = shm(name, 0);
        size = n;
        if (seg && cuMemHostRegister(seg, size + 4096, CU_MEMHOSTREGISTER_PORTABLE) != CUDA_SUCCESS) seg = NULL;
        snprintf(label, sizeof label, "shm +4KiB, %s", how[w]);
        measure_how(label, seg ? seg + 4096 : NULL, 0, 0, w);
        snprintf(label, sizeof label, "cuMemAllocHost, %s", how[w]);
        a = NULL;
        cuMemAllocHost(&a, size);
        measure_how(label, (char *)a, 0, 0, w);
        if (a) cuMemFreeHost(a);
    }
    return 0;
}
