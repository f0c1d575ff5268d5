"""Compute shares on a real GPU, without one: two sessions whose clients each launch runs of
kernels and wait for them (spin_kernels, as the e2e QoS tests run it) share one stand-in GPU by
their guarantees, and their device time counts each moment of the GPU once.

The stand-in is a GPU in real time that the sessions' contexts share, as the worker processes of one
GPU do: it runs all the work it is given in the order given, each kernel taking `duration` of wall
time after the one before; an event is reached when the GPU gets to it; synchronizing sleeps until
the calling context's work is done. Kernels therefore run long after their launch returned, and the
GPU runs one session's beside the other's whenever both have some queued — which is what made the
25/75 split come out 50/50 on a real GPU while the scheduler only ordered the launches.

Each session is a thread with its own CudaDevice and context (the stand-in tells contexts apart by
the thread's current one); the scheduler is the one the workers share."""
from __future__ import annotations

import multiprocessing as mp
import threading
import time

import pytest

from rgpu.server.backends.cuda import device as cuda_device
from rgpu.server.sched import GpuScheduler
from rgpu.server.session import Session
from tests.support import fakecuda

FAKE = r"""
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include "rgpu_cuda.h"

#define MAX_EVENTS 65536
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static double duration = 0.002;   /* of each kernel, in seconds of wall time */
static double gpu_free;           /* when the GPU is through all the work given so far */
static double ctx_done[16];       /* per context: when its last work is done */
static int contexts;
static __thread int cur;          /* the calling thread's current context */
static double ev_at[MAX_EVENTS];  /* when the GPU reaches each event */
static int nev, spun;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
static void sleep_until(double t) {
    for (double left; (left = t - now()) > 0;) {
        struct timespec d = {(time_t)left, (long)((left - (time_t)left) * 1e9)};
        nanosleep(&d, NULL);
    }
}
static double reached_at(void) {  /* a zero-length item: the GPU gets to it after all given before */
    double t = now();
    return gpu_free > t ? gpu_free : t;
}
void fake_set_duration(double s) { duration = s; }
int fake_spun(void) { return spun; }

CUresult cuInit(unsigned int f) { return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice *d, int ordinal) { *d = ordinal; return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {  /* a context per session (per worker) */
    pthread_mutex_lock(&mu);
    *c = (CUcontext)(uintptr_t)(0xC0 + contexts++);
    pthread_mutex_unlock(&mu);
    return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext c) { cur = (int)((uintptr_t)c - 0xC0); return CUDA_SUCCESS; }
CUresult cuDeviceGetName(char *n, int len, CUdevice d) { strncpy(n, "Fake GPU", len); return CUDA_SUCCESS; }
CUresult cuDeviceGetUuid_v2(CUuuid *u, CUdevice d) { memset(u->bytes, 0xAB, 16); return CUDA_SUCCESS; }
CUresult cuDeviceTotalMem_v2(size_t *b, CUdevice d) { *b = 1ull << 32; return CUDA_SUCCESS; }
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) { *v = a == 75 ? 9 : 0; return CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult e, const char **s) { *s = "CUDA_ERROR_INVALID_VALUE"; return CUDA_SUCCESS; }

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shmem, CUstream s, void **params, void **extra) {
    pthread_mutex_lock(&mu);
    gpu_free = reached_at() + duration;
    ctx_done[cur] = gpu_free;
    pthread_mutex_unlock(&mu);
    return CUDA_SUCCESS;
}
CUresult cuEventCreate(CUevent *e, unsigned int f) {
    pthread_mutex_lock(&mu);
    int i = nev++;
    pthread_mutex_unlock(&mu);
    if (i >= MAX_EVENTS) return CUDA_ERROR_OUT_OF_MEMORY;
    *e = (CUevent)(uintptr_t)(0x10000 + 16 * i);
    return CUDA_SUCCESS;
}
static int evi(CUevent e) { return (int)(((uintptr_t)e - 0x10000) / 16); }
CUresult cuEventDestroy_v2(CUevent e) { return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent e, CUstream s) {
    pthread_mutex_lock(&mu);
    ev_at[evi(e)] = reached_at();
    pthread_mutex_unlock(&mu);
    return CUDA_SUCCESS;
}
CUresult cuEventQuery(CUevent e) { return now() >= ev_at[evi(e)] ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY; }
CUresult cuEventSynchronize(CUevent e) { sleep_until(ev_at[evi(e)]); return CUDA_SUCCESS; }
CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b) {
    *ms = (float)((ev_at[evi(b)] - ev_at[evi(a)]) * 1000.0);
    return CUDA_SUCCESS;
}
CUresult cuStreamQuery(CUstream s) { return now() >= ctx_done[cur] ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY; }
CUresult cuStreamSynchronize(CUstream s) {
    if (now() < ctx_done[cur]) spun++;
    sleep_until(ctx_done[cur]);
    return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize(void) {
    if (now() < ctx_done[cur]) spun++;
    sleep_until(ctx_done[cur]);
    return CUDA_SUCCESS;
}
"""

KERNEL_S = 0.002
RUN = 8  # kernels a message, then the client waits for them (spin_kernels)


@pytest.fixture
def shared_gpu(tmp_path, monkeypatch):
    lib = fakecuda.build(tmp_path, FAKE)  # afresh for each test: the GPU's timeline starts idle
    monkeypatch.setenv("RGPU_LIBCUDA", str(lib))
    monkeypatch.setattr(cuda_device, "_lib", None)
    cuda_device.lib()
    return lib


def _client(sched, slot, stop, opened, errors):
    """What a worker does for spin_kernels: a message of RUN launches (the scheduler's turn taken at
    the first), the settle before the sync call, then cudaDeviceSynchronize."""
    try:
        dev = cuda_device.CudaDevice(0, 1 << 30)  # in this thread: its context is current here
        s = Session(dev)
        s.sched, s.slot = sched, slot
        opened.release()
        while not stop.is_set():
            for _ in range(RUN):
                s.run_kernel(lambda: dev.launch(cuda_device.ffi().NULL, (16, 1, 1), (256, 1, 1), 0, None, b""))
            s.settle()
            dev.synchronize()
        s.settle()
        dev.close()
    except BaseException as e:  # pragma: no cover - reported by the test
        errors.append(e)
        opened.release()


def _compete(guarantees, seconds=1.5):
    sched = GpuScheduler(mp.get_context("fork"), 4)
    for slot, g in enumerate(guarantees):
        sched.configure(slot, g, 100)
    stop, opened, errors = threading.Event(), threading.Semaphore(0), []
    threads = [threading.Thread(target=_client, args=(sched, slot, stop, opened, errors), daemon=True)
               for slot in range(len(guarantees))]
    for t in threads:
        t.start()
    for _ in threads:
        opened.acquire()
    time.sleep(0.2)  # both at work
    before, t0 = list(sched.device_time[:len(guarantees)]), time.monotonic()
    time.sleep(seconds)
    after, wall = list(sched.device_time[:len(guarantees)]), time.monotonic() - t0
    stop.set()
    for t in threads:
        t.join(10)
    assert not errors, errors
    return [a - b for a, b in zip(after, before)], wall


@pytest.mark.parametrize("guarantees", [(25, 75), (50, 50)])
def test_sessions_on_one_gpu_get_its_time_by_guarantee(shared_gpu, guarantees):
    got, wall = _compete(guarantees)
    total = sum(got)
    share = 100 * got[0] / total
    assert abs(share - guarantees[0]) <= 6, f"{guarantees[0]}/{guarantees[1]} split gave {share:.1f}/{100 - share:.1f}"
    # the GPU was busy nearly all along, and no moment of it was counted for both sessions
    assert 0.8 * wall <= total <= 1.05 * wall + 2 * RUN * KERNEL_S, (total, wall)
