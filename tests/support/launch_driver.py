"""A stand-in CUDA driver that records every kernel launch it is handed, and a cuda-backend session
on it served message by message through the worker's own _serve: the compiled launch loop's tests
(tests/unit/server/test_cuda_launches.py) and its benchmark (benchmarks/test_launch_path.py)."""
from __future__ import annotations

import ctypes
import struct

import structlog
import zmq

from rgpu.protocol import wire
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.server.backends.cuda import device as cuda_device
from rgpu.server.dispatch import Dispatcher
from rgpu.server.session import Session
from rgpu.server.worker import _serve
from tests.support import fakecuda

FAKE = r"""
#include <stdio.h>
#include <string.h>
#include "rgpu_cuda.h"

typedef struct { uintptr_t f, s; unsigned dims[7]; size_t n; unsigned char p[8192]; unsigned cluster[4]; } launch_rec;
static launch_rec rec[4096];
static int nrec, records, nev, destroyed;
static struct { uintptr_t f; int attrib, value; } attrs[4096]; /* cuFuncSetAttribute's, below */
static int nattrs;
static uintptr_t refused;        /* launches of this function fail, as the driver refuses a launch */
static uintptr_t next_stream;
static uintptr_t odd_stream = 1; /* the stream whose query and synchronize answer odd_query, odd_sync */
static CUresult odd_query, odd_sync;
static uintptr_t ending_stream = 1; /* its work ends after ending_in more queries */
static int ending_in;
static int queries, syncs;
static float elapsed_ms; /* what every pair of events measures (fake_elapsed_ms) */

/* the order of event records, launches and function attribute sets: the stream's address (| 1 for a
 * record), or the function's | 2 for an attribute set (fake_attr says which and what) */
static uintptr_t ops[16384];
static int nops;
static void op(uintptr_t v) { if (nops < 16384) ops[nops++] = v; }
int fake_ops(void) { return nops; }
uintptr_t fake_op(int i) { return ops[i]; }

void fake_reset(void) {
    nrec = 0; records = 0; refused = 0; next_stream = 0x5100; nops = 0; odd_stream = 1; ending_stream = 1; queries = syncs = 0;
    nattrs = 0;
    elapsed_ms = 0;
}
void fake_elapsed_ms(float ms) { elapsed_ms = ms; }
void fake_refuse(uintptr_t f) { refused = f; }
int fake_launches(void) { return nrec; }
int fake_records(void) { return records; }
int fake_events_alive(void) { return nev - destroyed; }  /* made and not destroyed */
const launch_rec *fake_launch(int i) { return &rec[i]; }

/* cuFuncSetAttribute: recorded in order with the launches; a negative size is refused, as the driver
 * refuses one past the device's limit */
int fake_attrs(void) { return nattrs; }
void fake_attr(int i, uintptr_t *f, int *attrib, int *value) { *f = attrs[i].f, *attrib = attrs[i].attrib, *value = attrs[i].value; }
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute attrib, int value) {
    if (value < 0) return CUDA_ERROR_INVALID_VALUE;
    op((uintptr_t)f | 2);
    attrs[nattrs % 4096].f = (uintptr_t)f, attrs[nattrs % 4096].attrib = attrib, attrs[nattrs % 4096].value = value;
    nattrs++;
    return CUDA_SUCCESS;
}

""" + fakecuda.DEVICE + r"""
CUresult cuDeviceGet(CUdevice *d, int ordinal) { *d = ordinal; return CUDA_SUCCESS; }
CUresult cuDeviceTotalMem_v2(size_t *b, CUdevice d) { *b = 1ull << 32; return CUDA_SUCCESS; }
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) { *v = a == 75 ? 9 : 0; return CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult e, const char **s) {
    *s = e == 400 ? "CUDA_ERROR_INVALID_HANDLE" : "CUDA_ERROR_INVALID_VALUE";
    return CUDA_SUCCESS;
}
CUresult cuStreamCreateWithPriority(CUstream *s, unsigned int f, int p) {
    *s = (CUstream)(next_stream += 0x10);
    return CUDA_SUCCESS;
}
CUresult cuStreamDestroy_v2(CUstream s) { return CUDA_SUCCESS; }
/* every launch is over at once, unless a test says what one stream answers (fake_stream_rc) */
void fake_stream_rc(uintptr_t s, int query_rc, int sync_rc) { odd_stream = s, odd_query = query_rc, odd_sync = sync_rc; }
int fake_queries(void) { return queries; }
int fake_syncs(void) { return syncs; }
/* or that one stream's work ends after `queries` more queries of it (a kernel a few µs long) */
void fake_stream_ends_after(uintptr_t s, int queries) { ending_stream = s, ending_in = queries; }
CUresult cuStreamQuery(CUstream s) {
    queries++;
    if ((uintptr_t)s == ending_stream && ending_in > 0) return ending_in--, 600;
    return (uintptr_t)s == odd_stream ? odd_query : CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream s) { syncs++; return (uintptr_t)s == odd_stream ? odd_sync : CUDA_SUCCESS; }
CUresult cuEventCreate(CUevent *e, unsigned int f) { *e = (CUevent)(uintptr_t)(0x10000 + 16 * nev++); return CUDA_SUCCESS; }
CUresult cuEventDestroy_v2(CUevent e) { destroyed++; return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent e, CUstream s) { records++; op((uintptr_t)s | 1); return CUDA_SUCCESS; }
CUresult cuEventQuery(CUevent e) { return CUDA_SUCCESS; }
CUresult cuEventSynchronize(CUevent e) { return CUDA_SUCCESS; }
CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b) { *ms = elapsed_ms; return CUDA_SUCCESS; }
CUresult cuCtxSynchronize(void) { return CUDA_SUCCESS; }
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned sh, CUstream s, void **kp, void **extra) {
    if ((uintptr_t)f == refused) return CUDA_ERROR_INVALID_VALUE;
    if (kp || !extra || (uintptr_t)extra[0] != 1 || (uintptr_t)extra[2] != 2 || extra[4]) return CUDA_ERROR_INVALID_VALUE;
    op((uintptr_t)s);
    launch_rec *r = &rec[nrec++ % 4096];
    unsigned d[7] = {gx, gy, gz, bx, by, bz, sh};
    r->f = (uintptr_t)f, r->s = (uintptr_t)s;
    memcpy(r->dims, d, sizeof d);
    r->n = *(size_t *)extra[3];
    memcpy(r->p, extra[1], r->n < sizeof r->p ? r->n : sizeof r->p);
    memset(r->cluster, 0, sizeof r->cluster);
    return CUDA_SUCCESS;
}
/* cluster launches: as cuLaunchKernel, with the attributes' cluster dimensions and policy recorded */
static void cluster_of(const CUlaunchConfig *c, unsigned out[4]) {
    memset(out, 0, 4 * sizeof *out);
    for (unsigned i = 0; i < c->numAttrs; i++) {
        if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
            out[0] = c->attrs[i].value.clusterDim.x, out[1] = c->attrs[i].value.clusterDim.y;
            out[2] = c->attrs[i].value.clusterDim.z;
        } else if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE) {
            out[3] = c->attrs[i].value.clusterSchedulingPolicyPreference;
        }
    }
}
CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **kp, void **extra) {
    unsigned cl[4];
    cluster_of(c, cl);
    CUresult rc = cuLaunchKernel(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
                                 c->sharedMemBytes, c->hStream, kp, extra);
    if (rc == CUDA_SUCCESS) memcpy(rec[(nrec - 1) % 4096].cluster, cl, sizeof cl);
    return rc;
}
/* a made-up but checkable answer: 132 SMs' worth of blocks over the cluster's size */
CUresult cuOccupancyMaxActiveClusters(int *n, CUfunction f, const CUlaunchConfig *c) {
    unsigned cl[4];
    cluster_of(c, cl);
    if (!cl[0]) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    *n = 132 / (int)(cl[0] * cl[1] * cl[2]);
    return CUDA_SUCCESS;
}
CUresult cuOccupancyMaxPotentialClusterSize(int *n, CUfunction f, const CUlaunchConfig *c) { *n = 8; return CUDA_SUCCESS; }
/* the driver's calculator, made up: 1536 threads' worth of blocks, less one for any dynamic shared memory */
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, CUfunction f, int block, size_t shared,
                                                               unsigned flags) {
    *n = 1536 / block - (shared ? 1 : 0);
    return CUDA_SUCCESS;
}
"""

LAUNCH, RT_LAUNCH = BY_NAME["cuLaunchKernel"], BY_NAME["cudaLaunchKernel"]


class Rec(ctypes.Structure):
    _fields_ = [("f", ctypes.c_size_t), ("s", ctypes.c_size_t), ("dims", ctypes.c_uint * 7), ("n", ctypes.c_size_t),
                ("p", ctypes.c_ubyte * 8192), ("cluster", ctypes.c_uint * 4)]


class Sock:
    """What _serve sends: the replies of sync calls."""

    def __init__(self):
        self.sent = []

    def send(self, data, flags=0):
        self.sent.append(bytes(data))

    def send_multipart(self, frames, copy=True):
        self.sent.extend(bytes(f) for f in frames)



def build(directory):
    return fakecuda.build(directory, FAKE)


def load(lib, monkeypatch):
    """The stand-in as the cuda backend's driver (loaded afresh), and its controls, reset."""
    monkeypatch.setenv("RGPU_LIBCUDA", str(lib))
    monkeypatch.setattr(cuda_device, "_lib", None)
    fake = ctypes.CDLL(str(lib))
    fake.fake_launch.restype = ctypes.POINTER(Rec)
    fake.fake_op.restype = ctypes.c_size_t
    fake.fake_refuse.argtypes = [ctypes.c_size_t]
    fake.fake_stream_rc.argtypes = [ctypes.c_size_t, ctypes.c_int, ctypes.c_int]
    fake.fake_stream_ends_after.argtypes = [ctypes.c_size_t, ctypes.c_int]
    fake.fake_elapsed_ms.argtypes = [ctypes.c_float]
    fake.fake_reset()
    return fake


class Served:
    """A session on the stand-in driver, with the compiled loop or without it."""

    def __init__(self, fake, monkeypatch, compiled: bool):
        monkeypatch.setenv("RGPU_FAST_LAUNCH", "1" if compiled else "0")
        self.fake = fake
        self.dev = cuda_device.CudaDevice(0, 1 << 30)
        assert (self.dev.launcher is not None) == compiled
        self.s = Session(self.dev)
        self.disp = Dispatcher("cuda")
        self.sock = Sock()
        ffi = cuda_device.ffi()
        self.fns = [self.s.new_handle("function", ffi.cast("CUfunction", 0xF000 + 0x40 * k)) for k in range(3)]
        self.streams = [self.s.new_handle("stream", self.dev.stream_create(0, 0)) for _ in range(2)]
        self.seq = 0

    def call(self, call_id, args, sync=0):
        self.seq += 1
        return [self.seq, call_id, sync, args, 0]

    def launch(self, fn, stream, params=b"", grid=(2, 1, 1), block=(64, 1, 1), shared=0, runtime=False, sync=0):
        return self.call(RT_LAUNCH if runtime else LAUNCH, [fn, *grid, *block, shared, stream, params], sync)

    def serve(self, calls):
        self.s.messages += 1
        assert _serve(self.sock, b"id", [zmq.Frame(wire.pack(calls))], self.s, self.disp, structlog.get_logger())

    def launches(self):
        out = []
        for i in range(self.fake.fake_launches()):
            r = self.fake.fake_launch(i).contents
            out.append((r.f, r.s, tuple(r.dims), bytes(r.p[:r.n])) + ((tuple(r.cluster),) if any(r.cluster) else ()))
        return out

    def ops(self) -> list[tuple[str, int]]:
        """What reached the driver in order: ("record", stream) for event records, ("launch", stream),
        ("attribute", function) for attribute sets."""
        out = []
        for i in range(self.fake.fake_ops()):
            v = self.fake.fake_op(i)
            out.append(("record", v & ~1) if v & 1 else ("attribute", v & ~2) if v & 2 else ("launch", v))
        return out

    def attributes(self) -> list[tuple[int, int, int]]:
        """The attribute sets the driver took, in order: (function, attribute, value)."""
        f, a, v = ctypes.c_size_t(), ctypes.c_int(), ctypes.c_int()
        out = []
        for i in range(self.fake.fake_attrs()):
            self.fake.fake_attr(i, ctypes.byref(f), ctypes.byref(a), ctypes.byref(v))
            out.append((f.value, a.value, v.value))
        return out

    @property
    def compiled(self) -> int:
        return self.dev.launcher.served if self.dev.launcher is not None else 0


def params(k: int, n: int = 24) -> bytes:
    return struct.pack("<Q", 0xA000 + k) + bytes((k + i) % 251 for i in range(n - 8))
