// CUDA IPC between two processes of one program (the CUDA samples' simpleIPC pattern, with the child
// exec'd rather than forked so that each process is a CUDA program of its own): the parent fills a
// buffer, exports it and an interprocess event, and runs the child; the child opens both, checks the
// bytes, adds to them in a kernel and closes; the parent sees the child's writes in its own buffer.
// Around that, what CUDA refuses: an interprocess event that keeps timing, exporting a timing
// event, opening one's own handle or a handle of zeros, freeing opened memory, copying past it,
// closing it once too often, and a handle whose allocation was freed. In `copy` mode copies stand for
// the two kernels (the null driver runs none).
//   ipc [copy]               the parent (prints IPC OK)
//   ipc child|childcopy MEM EVENT   the child (hex handles; prints CHILD OK)
//   ipc serve                export a buffer, print HANDLE hex, wait for a line on stdin
//   ipc open MEM             open a handle, print OPEN <error name> (and SUM of its words when it opens)
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime.h>
#include "check.h"

extern char **environ;

static const size_t N = (1u << 18) + 37;  // ~1 MiB of words, not a whole number of pages
static bool copies;  // copy mode: host copies instead of kernels
static uint32_t host[N];

__global__ void fill(uint32_t *d, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) d[i] = (uint32_t)(i * 3 + 1);
}

__global__ void add(uint32_t *d, size_t n, uint32_t v) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) d[i] += v;
}

static cudaError_t fill_words(uint32_t *d) {
    if (!copies) {
        fill<<<(unsigned)((N + 255) / 256), 256>>>(d, N);
        return cudaGetLastError();
    }
    for (size_t i = 0; i < N; i++) host[i] = (uint32_t)(i * 3 + 1);
    return cudaMemcpy(d, host, N * 4, cudaMemcpyHostToDevice);
}

static cudaError_t add_words(uint32_t *d, uint32_t v) {
    if (!copies) {
        add<<<(unsigned)((N + 255) / 256), 256>>>(d, N, v);
        return cudaGetLastError();
    }
    cudaError_t err = cudaMemcpy(host, d, N * 4, cudaMemcpyDeviceToHost);
    for (size_t i = 0; err == cudaSuccess && i < N; i++) host[i] += v;
    return err == cudaSuccess ? cudaMemcpy(d, host, N * 4, cudaMemcpyHostToDevice) : err;
}

static void to_hex(const void *p, size_t n, char *out) {
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", ((const unsigned char *)p)[i]);
}

static bool from_hex(const char *s, void *p, size_t n) {
    if (strlen(s) != 2 * n) return false;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return false;
        ((unsigned char *)p)[i] = (unsigned char)v;
    }
    return true;
}

static int run_child(const char *self, const char *mode, const char *a, const char *b) {
    char *argv[] = {(char *)self, (char *)mode, (char *)a, (char *)b, nullptr};
    pid_t pid;
    if (posix_spawn(&pid, self, nullptr, nullptr, argv, environ) != 0) return -1;
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

static int child(const char *mem_hex, const char *event_hex) {
    cudaIpcMemHandle_t h;
    cudaIpcEventHandle_t eh;
    EXPECT(from_hex(mem_hex, &h, sizeof h) && from_hex(event_hex, &eh, sizeof eh));
    uint32_t *p = nullptr, *again = nullptr;
    CHECK(cudaIpcOpenMemHandle((void **)&p, h, cudaIpcMemLazyEnablePeerAccess));
    CHECK(cudaIpcOpenMemHandle((void **)&again, h, cudaIpcMemLazyEnablePeerAccess));
    EXPECT(again == p);  // opened twice in one context: the same pointer, counted
    cudaEvent_t ev;
    CHECK(cudaIpcOpenEventHandle(&ev, eh));
    CHECK(cudaStreamWaitEvent(0, ev, 0));  // the parent's fill is ordered before what follows
    CHECK(cudaMemcpy(host, p, N * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < N; i++)
        if (host[i] != (uint32_t)(i * 3 + 1)) { printf("FAIL child read word %zu = %u\n", i, host[i]); return 1; }
    CHECK(add_words(p, 1000000));
    CHECK(cudaDeviceSynchronize());
    EXPECT(cudaMemcpy(host, p, N * 4 + 4096, cudaMemcpyDeviceToHost) != cudaSuccess);  // past the allocation
    cudaGetLastError();
    EXPECT(cudaFree(p) != cudaSuccess);  // opened memory is released by cudaIpcCloseMemHandle
    cudaGetLastError();
    CHECK(cudaEventDestroy(ev));
    CHECK(cudaIpcCloseMemHandle(p));
    CHECK(cudaIpcCloseMemHandle(p));
    EXPECT(cudaIpcCloseMemHandle(p) != cudaSuccess);  // closed as often as opened: nothing left to close
    cudaGetLastError();
    printf("CHILD OK\n");
    return 0;
}

static int open_only(const char *mem_hex) {
    cudaIpcMemHandle_t h;
    EXPECT(from_hex(mem_hex, &h, sizeof h));
    uint32_t *p = nullptr;
    cudaError_t err = cudaIpcOpenMemHandle((void **)&p, h, cudaIpcMemLazyEnablePeerAccess);
    printf("OPEN %s\n", cudaGetErrorName(err));
    if (err == cudaSuccess) {
        CHECK(cudaMemcpy(host, p, N * 4, cudaMemcpyDeviceToHost));
        uint64_t sum = 0;
        for (size_t i = 0; i < N; i++) sum += host[i];
        printf("SUM %llu\n", (unsigned long long)sum);
        CHECK(cudaIpcCloseMemHandle(p));
    }
    cudaGetLastError();
    return 0;
}

static int serve() {
    uint32_t *d;
    CHECK(cudaMalloc((void **)&d, N * 4));
    CHECK(fill_words(d));
    CHECK(cudaDeviceSynchronize());
    cudaIpcMemHandle_t h;
    CHECK(cudaIpcGetMemHandle(&h, d));
    char hex[2 * sizeof h + 1];
    to_hex(&h, sizeof h, hex);
    printf("HANDLE %s\n", hex);
    fflush(stdout);
    char line[16];
    if (!fgets(line, sizeof line, stdin)) return 1;
    CHECK(cudaFree(d));
    printf("SERVE OK\n");
    return 0;
}

int main(int argc, char **argv) {
    copies = argc > 1 && (!strcmp(argv[1], "copy") || !strcmp(argv[1], "childcopy"));
    if (argc == 4 && (!strcmp(argv[1], "child") || !strcmp(argv[1], "childcopy"))) return child(argv[2], argv[3]);
    if (argc == 3 && !strcmp(argv[1], "open")) return open_only(argv[2]);
    if (argc == 2 && !strcmp(argv[1], "serve")) return serve();

    // neighbours on both sides: the shared buffer's pages may hold some of theirs
    uint32_t *before, *d, *after;
    CHECK(cudaMalloc((void **)&before, 1000));
    CHECK(cudaMalloc((void **)&d, N * 4));
    CHECK(cudaMalloc((void **)&after, 1000));
    CHECK(cudaMemset(before, 0x11, 1000));
    CHECK(cudaMemset(after, 0x22, 1000));
    CHECK(fill_words(d));

    cudaEvent_t ev, timed;
    EXPECT(cudaEventCreateWithFlags(&ev, cudaEventInterprocess) == cudaErrorInvalidValue);  // must not time
    cudaGetLastError();
    CHECK(cudaEventCreateWithFlags(&ev, cudaEventInterprocess | cudaEventDisableTiming));
    CHECK(cudaEventCreate(&timed));
    CHECK(cudaEventRecord(ev, 0));
    cudaIpcEventHandle_t eh;
    EXPECT(cudaIpcGetEventHandle(&eh, timed) != cudaSuccess);  // not an interprocess event
    cudaGetLastError();
    CHECK(cudaIpcGetEventHandle(&eh, ev));

    cudaIpcMemHandle_t h, h2, zeros;
    CHECK(cudaIpcGetMemHandle(&h, d));
    CHECK(cudaIpcGetMemHandle(&h2, d));
    void *mine = nullptr;
    EXPECT(cudaIpcOpenMemHandle(&mine, h, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess);  // one's own
    cudaGetLastError();
    memset(&zeros, 0, sizeof zeros);
    EXPECT(cudaIpcOpenMemHandle(&mine, zeros, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess);
    cudaGetLastError();

    char mem_hex[2 * sizeof h + 1], event_hex[2 * sizeof eh + 1];
    to_hex(&h2, sizeof h2, mem_hex);
    to_hex(&eh, sizeof eh, event_hex);
    int rc = run_child(argv[0], copies ? "childcopy" : "child", mem_hex, event_hex);
    if (rc != 0) { printf("FAIL child exited %d\n", rc); return 1; }

    CHECK(cudaMemcpy(host, d, N * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < N; i++)
        if (host[i] != (uint32_t)(i * 3 + 1 + 1000000)) { printf("FAIL word %zu = %u after the child\n", i, host[i]); return 1; }
    unsigned char side[1000];
    CHECK(cudaMemcpy(side, before, 1000, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 1000; i++) EXPECT(side[i] == 0x11);
    CHECK(cudaMemcpy(side, after, 1000, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 1000; i++) EXPECT(side[i] == 0x22);

    // freed: the handle opens nothing any more
    CHECK(cudaFree(d));
    rc = run_child(argv[0], "open", mem_hex, nullptr);
    if (rc != 0) { printf("FAIL open child exited %d\n", rc); return 1; }
    CHECK(cudaEventDestroy(ev));
    CHECK(cudaEventDestroy(timed));
    printf("IPC OK\n");
    return 0;
}
