"""CUDA IPC on the null driver (benchmarks/native/nulldriver.c): a C program that loads it, exports an
allocation and an event, and runs itself again as the other processes a real driver's IPC needs
(an opener, an exporter that goes away, a checkpoint helper). What it checks is the driver's own
behaviour: the opener sees the exporter's bytes and the exporter the opener's writes, a handle names
the whole allocation and opens at its base, a second open is the same address with one more
reference, and the refusals carry the driver's codes (a handle of this same process:
CUDA_ERROR_INVALID_CONTEXT; no handle: CUDA_ERROR_INVALID_VALUE; an exporter gone or an allocation
freed: CUDA_ERROR_INVALID_HANDLE)."""
from __future__ import annotations

import subprocess

import pytest

from benchmarks.native import run as native
from rgpu.protocol.codegen import __main__ as codegen

PROGRAM = r"""
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "rgpu_cuda.h"

#define FNS(X) X(cuInit) X(cuMemAlloc_v2) X(cuMemAllocManaged) X(cuMemFree_v2) X(cuMemGetAddressRange_v2) \
    X(cuIpcGetMemHandle) X(cuIpcOpenMemHandle_v2) X(cuIpcCloseMemHandle) X(cuIpcGetEventHandle)          \
    X(cuIpcOpenEventHandle) X(cuEventCreate) X(cuEventDestroy_v2) X(cuEventRecord) X(cuEventQuery)        \
    X(cuEventElapsedTime_v2) X(cuCheckpointProcessLock) X(cuCheckpointProcessCheckpoint)                  \
    X(cuCheckpointProcessUnlock)
#define DECLARE(f) static __typeof__(f) *f##_;
FNS(DECLARE)

#define SIZE (1 << 20)
#define OFF 12345 /* the byte the parent exports through: the handle still names the whole allocation */
static const char *who = "parent";
#define EXPECT(call, want)                                                                            \
    do {                                                                                          \
        int r_ = (int)(call);                                                                     \
        if (r_ != (int)(want)) {                                                                  \
            printf("FAIL %s line %d: %s = %d, want %d\n", who, __LINE__, #call, r_, (int)(want)); \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)
#define TRUE(cond) EXPECT(!!(cond), 1)

static unsigned char pattern(size_t i, int gen) { return (unsigned char)(i * 7 + gen * 101 + 1); }
static int holds(CUdeviceptr p, int gen) {
    for (size_t i = 0; i < SIZE; i++)
        if (((unsigned char *)(uintptr_t)p)[i] != pattern(i, gen)) return 0;
    return 1;
}
static void fill(CUdeviceptr p, int gen) {
    for (size_t i = 0; i < SIZE; i++) ((unsigned char *)(uintptr_t)p)[i] = pattern(i, gen);
}
static void hex(char *out, const void *h) {
    for (int i = 0; i < 64; i++) sprintf(out + 2 * i, "%02x", ((const unsigned char *)h)[i]);
}
static void unhex(void *h, const char *s) {
    for (int i = 0; i < 64; i++) sscanf(s + 2 * i, "%2hhx", (unsigned char *)h + i);
}
/* this program again, as another process: its exit status */
static int again(char *const argv[]) {
    pid_t pid = fork();
    if (pid == 0) {
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* opens the parent's allocation and event, writes its own pattern over the allocation */
static int opener(const char *mem, const char *ev) {
    CUipcMemHandle h, bad;
    CUipcEventHandle eh;
    unhex(&h, mem);
    unhex(&eh, ev);
    memset(&bad, 0, sizeof bad);
    CUdeviceptr d, again_d, base;
    size_t size;
    EXPECT(cuIpcOpenMemHandle_v2_(&d, bad, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuIpcOpenMemHandle_v2_(&d, h, 2), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuIpcOpenMemHandle_v2_(&d, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_SUCCESS);
    TRUE(holds(d, 1));  /* the allocation's base, whichever of its bytes was exported */
    EXPECT(cuMemGetAddressRange_v2_(&base, &size, d + OFF), CUDA_SUCCESS);
    TRUE(base == d && size == SIZE);
    fill(d, 2);
    EXPECT(cuIpcOpenMemHandle_v2_(&again_d, h, 0), CUDA_SUCCESS);
    TRUE(again_d == d);
    EXPECT(cuMemFree_v2_(d), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuIpcCloseMemHandle_(d + 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuIpcCloseMemHandle_(d), CUDA_SUCCESS);
    TRUE(holds(d, 2));  /* one reference left: still mapped */
    EXPECT(cuIpcCloseMemHandle_(d), CUDA_SUCCESS);
    EXPECT(cuIpcCloseMemHandle_(d), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemGetAddressRange_v2_(&base, &size, d), CUDA_ERROR_NOT_FOUND);

    CUevent e, mine;
    CUipcEventHandle zero;
    memset(&zero, 0, sizeof zero);
    float ms;
    EXPECT(cuIpcOpenEventHandle_(&e, zero), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuIpcOpenEventHandle_(&e, eh), CUDA_SUCCESS);
    EXPECT(cuEventRecord_(e, NULL), CUDA_SUCCESS);
    EXPECT(cuEventQuery_(e), CUDA_SUCCESS);
    EXPECT(cuEventCreate_(&mine, 0), CUDA_SUCCESS);
    EXPECT(cuEventRecord_(mine, NULL), CUDA_SUCCESS);
    EXPECT(cuEventElapsedTime_v2_(&ms, mine, e), CUDA_ERROR_INVALID_HANDLE);  /* opened events keep no time */
    EXPECT(cuEventDestroy_v2_(e), CUDA_SUCCESS);
    puts("OK opener");
    return 0;
}

/* exports an allocation it then frees and one it keeps, prints both handles, and waits for its
 * input to close before it exits */
static int exporter(void) {
    CUdeviceptr a, b;
    CUipcMemHandle ha, hb;
    char s[129];
    EXPECT(cuMemAlloc_v2_(&a, SIZE), CUDA_SUCCESS);
    EXPECT(cuIpcGetMemHandle_(&ha, a), CUDA_SUCCESS);
    EXPECT(cuMemFree_v2_(a), CUDA_SUCCESS);
    EXPECT(cuMemAlloc_v2_(&b, SIZE), CUDA_SUCCESS);
    EXPECT(cuIpcGetMemHandle_(&hb, b), CUDA_SUCCESS);  /* likely the freed one's descriptor number */
    fill(b, 3);
    hex(s, &ha);
    printf("%s ", s);
    hex(s, &hb);
    printf("%s\n", s);
    fflush(stdout);
    while (getchar() != EOF) {}
    return 0;
}

/* the checkpoint of a process that exported memory is refused, and leaves it running */
static int checkpointer(int pid) {
    EXPECT(cuCheckpointProcessLock_(pid, NULL), CUDA_SUCCESS);
    EXPECT(cuCheckpointProcessCheckpoint_(pid, NULL), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuCheckpointProcessUnlock_(pid, NULL), CUDA_SUCCESS);
    puts("OK checkpointer");
    return 0;
}

static int parent(char *lib) {
    CUdeviceptr p, managed, base;
    CUipcMemHandle h, h_base;
    size_t size;
    EXPECT(cuMemAlloc_v2_(&p, SIZE), CUDA_SUCCESS);
    fill(p, 1);
    EXPECT(cuIpcGetMemHandle_(&h, p + OFF), CUDA_SUCCESS);
    EXPECT(cuIpcGetMemHandle_(&h_base, p), CUDA_SUCCESS);
    TRUE(memcmp(&h, &h_base, sizeof h) == 0);  /* one handle per allocation */
    TRUE(holds(p, 1));  /* the export kept its bytes */
    EXPECT(cuIpcGetMemHandle_(&h_base, p + SIZE), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocManaged_(&managed, SIZE, 1), CUDA_SUCCESS);
    EXPECT(cuIpcGetMemHandle_(&h_base, managed), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemGetAddressRange_v2_(&base, &size, p + OFF), CUDA_SUCCESS);
    TRUE(base == p && size == SIZE);
    CUdeviceptr own;
    EXPECT(cuIpcOpenMemHandle_v2_(&own, h, 0), CUDA_ERROR_INVALID_CONTEXT);

    CUevent timed, plain, shared, own_e;
    CUipcEventHandle eh;
    EXPECT(cuEventCreate_(&timed, CU_EVENT_INTERPROCESS), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuEventCreate_(&plain, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
    EXPECT(cuIpcGetEventHandle_(&eh, plain), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventCreate_(&shared, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
    EXPECT(cuIpcGetEventHandle_(&eh, shared), CUDA_SUCCESS);
    EXPECT(cuIpcOpenEventHandle_(&own_e, eh), CUDA_ERROR_INVALID_CONTEXT);

    char mem[129], ev[129], pid[16];
    hex(mem, &h);
    hex(ev, &eh);
    EXPECT(again((char *[]){"prog", "opener", lib, mem, ev, NULL}), 0);
    TRUE(holds(p, 2));  /* the opener's writes, here */

    snprintf(pid, sizeof pid, "%d", (int)getpid());
    EXPECT(again((char *[]){"prog", "checkpointer", lib, pid, NULL}), 0);
    TRUE(holds(p, 2));  /* still running, its memory where it was */

    /* an exporter that freed one allocation and then exits */
    int to[2], from[2];
    TRUE(pipe(to) == 0 && pipe(from) == 0);
    pid_t child = fork();
    if (child == 0) {
        dup2(to[0], 0), dup2(from[1], 1);
        close(to[1]), close(from[0]);
        execv("/proc/self/exe", (char *[]){"prog", "exporter", lib, NULL});
        _exit(127);
    }
    close(to[0]), close(from[1]);
    char line[300] = {0};
    FILE *in = fdopen(from[0], "r");
    TRUE(fgets(line, sizeof line, in) != NULL && strlen(line) == 258);  /* two handles, a space, a newline */
    CUipcMemHandle freed, kept;
    unhex(&freed, line);
    unhex(&kept, line + 129);
    CUdeviceptr d;
    EXPECT(cuIpcOpenMemHandle_v2_(&d, freed, 0), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuIpcOpenMemHandle_v2_(&d, kept, 0), CUDA_SUCCESS);
    TRUE(holds(d, 3));
    EXPECT(cuIpcCloseMemHandle_(d), CUDA_SUCCESS);
    close(to[1]);
    int status;
    waitpid(child, &status, 0);
    TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT(cuIpcOpenMemHandle_v2_(&d, kept, 0), CUDA_ERROR_INVALID_HANDLE);  /* its exporter is gone */

    EXPECT(cuMemFree_v2_(p), CUDA_SUCCESS);  /* exported: unmapped, its file closed */
    EXPECT(cuMemFree_v2_(managed), CUDA_SUCCESS);
    puts("OK parent");
    return 0;
}

int main(int argc, char **argv) {
    void *lib = argc > 2 ? dlopen(argv[2], RTLD_NOW) : NULL;
    if (!lib) {
        printf("FAIL cannot load the null driver: %s\n", dlerror());
        return 1;
    }
#define LOAD(f) f##_ = (__typeof__(f) *)dlsym(lib, #f); if (!f##_) { printf("FAIL no %s\n", #f); return 1; }
    FNS(LOAD)
    who = argv[1];
    EXPECT(cuInit_(0), CUDA_SUCCESS);
    if (!strcmp(argv[1], "parent")) return parent(argv[2]);
    if (!strcmp(argv[1], "opener") && argc == 5) return opener(argv[3], argv[4]);
    if (!strcmp(argv[1], "exporter")) return exporter();
    if (!strcmp(argv[1], "checkpointer") && argc == 4) return checkpointer(atoi(argv[3]));
    printf("FAIL usage\n");
    return 2;
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    d = tmp_path_factory.mktemp("null_ipc")
    (d / "null_ipc.c").write_text(PROGRAM)
    exe = d / "null_ipc"
    subprocess.run(["gcc", "-O1", "-Wall", "-Werror", f"-I{codegen.C_OUT}", "-o", str(exe), str(d / "null_ipc.c"),
                    "-ldl"], check=True)
    return exe


def test_memory_and_events_shared_between_processes_as_the_driver_shares_them(program):
    p = subprocess.run([str(program), "parent", str(native.null_driver())], capture_output=True, text=True,
                       timeout=120)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    assert "OK opener" in out and "OK checkpointer" in out and "OK parent" in out, out
