"""The cuda backend's generic path, without a GPU: the forwarded driver calls no handler covers are
served from their records by calling the driver entry point through cffi. Here the driver is a small
stand-in built from C in the test (compiled against the generated prototypes, so its signatures are
CUDA's) that records what each entry point was called with, so the test sees exactly what a real
libcuda.so.1 would receive: translated handles, structs and arrays by their bytes, the session's
CUdevice, and out-values turned back into session handles.

What only a GPU can confirm: that the real driver accepts these calls and that its objects (stream
attributes, memory operations) behave as the program expects — the stand-in returns what the
test tells it to."""
from __future__ import annotations

import ctypes
import struct

import pytest

from rgpu.protocol.generated import enums
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.server.backends.cuda import device as cuda_device
from rgpu.server.dispatch import Dispatcher
from rgpu.server.session import Session
from tests.support import fakecuda

FAKE = r"""
#include <stdio.h>
#include <string.h>
#include "rgpu_cuda.h"

static char log_buf[1 << 14];
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void say(const char *fmt, ...) {
    va_list ap; va_start(ap, fmt);
    size_t n = strlen(log_buf);
    vsnprintf(log_buf + n, sizeof log_buf - n, fmt, ap);
    va_end(ap);
    strncat(log_buf, "\n", sizeof log_buf - strlen(log_buf) - 1);
}
const char *fake_log(void) { return log_buf; }
void fake_clear(void) { log_buf[0] = 0; }

#define P(x) ((unsigned long long)(uintptr_t)(x))
""" + fakecuda.DEVICE + r"""
CUresult cuDeviceGet(CUdevice *d, int ordinal) { *d = 7 + ordinal; return CUDA_SUCCESS; }
CUresult cuCtxSynchronize(void) { return CUDA_SUCCESS; }
CUresult cuDeviceTotalMem_v2(size_t *b, CUdevice d) { *b = 1ull << 32; return CUDA_SUCCESS; }
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) { *v = a == 75 ? 9 : 0; return CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult e, const char **s) {
    *s = e == CUDA_ERROR_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE" : "CUDA_ERROR_UNKNOWN";
    return CUDA_SUCCESS;
}
CUresult cuStreamCreateWithPriority(CUstream *s, unsigned int f, int p) { *s = (CUstream)0x5100; return CUDA_SUCCESS; }
CUresult cuStreamDestroy_v2(CUstream s) { return CUDA_SUCCESS; }
CUresult cuEventCreate(CUevent *e, unsigned int f) { *e = (CUevent)0x5200; return CUDA_SUCCESS; }
CUresult cuEventDestroy_v2(CUevent e) { return CUDA_SUCCESS; }

/* the calls the generic path serves */
CUresult cuMulticastGetGranularity(size_t *g, const CUmulticastObjectProp *p, CUmulticastGranularity_flags o) {
    say("cuMulticastGetGranularity devices=%u size=%zu option=%d", p->numDevices, p->size, o);
    *g = 2u << 20;
    return o == 7 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}
CUresult cuStreamBatchMemOp_v2(CUstream s, unsigned count, CUstreamBatchMemOpParams *ops, unsigned flags) {
    say("cuStreamBatchMemOp_v2 stream=0x%llx count=%u last=%d addr=0x%llx", P(s), count,
        ops[count - 1].operation, (unsigned long long)ops[count - 1].writeValue.address);
    return CUDA_SUCCESS;
}
CUresult cuStreamCopyAttributes(CUstream dst, CUstream src) {
    say("cuStreamCopyAttributes dst=0x%llx src=0x%llx", P(dst), P(src));
    return dst == src ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}
CUresult cuFuncGetModule(CUmodule *m, CUfunction f) {
    say("cuFuncGetModule function=0x%llx", P(f));
    *m = (CUmodule)0x7700;
    return CUDA_SUCCESS;
}
CUresult cuStreamWaitValue32_v2(CUstream s, CUdeviceptr addr, cuuint32_t value, unsigned int flags) {
    say("cuStreamWaitValue32_v2 stream=0x%llx addr=0x%llx value=%u flags=%u", P(s), addr, value, flags);
    return CUDA_SUCCESS;
}
CUresult cuModuleEnumerateFunctions(CUfunction *functions, unsigned int n, CUmodule mod) {
    say("cuModuleEnumerateFunctions n=%u mod=0x%llx", n, P(mod));
    for (unsigned i = 0; i < n; i++) functions[i] = (CUfunction)(uintptr_t)(0x8000 + 16 * i);
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetLuid(char *luid, unsigned int *mask, CUdevice dev) {
    say("cuDeviceGetLuid dev=%d", dev);
    memcpy(luid, "LUID-123", 8);
    *mask = 5;
    return CUDA_SUCCESS;
}
CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *bytes, CUfunction f, int blocks, int threads) {
    say("cuOccupancyAvailableDynamicSMemPerBlock function=0x%llx blocks=%d threads=%d", P(f), blocks, threads);
    *bytes = 233472 / blocks - 1024;
    return CUDA_SUCCESS;
}
CUresult cuStreamGetAttribute(CUstream s, CUstreamAttrID attr, CUstreamAttrValue *out) {
    say("cuStreamGetAttribute stream=0x%llx attr=%d", P(s), attr);
    memset(out, 0, sizeof *out);
    out->priority = -3;
    return CUDA_SUCCESS;
}
"""


@pytest.fixture(scope="module")
def fake_libcuda(tmp_path_factory):
    return fakecuda.build(tmp_path_factory.mktemp("fakecuda"), FAKE)


@pytest.fixture
def session(fake_libcuda, monkeypatch):
    monkeypatch.setenv("RGPU_LIBCUDA", str(fake_libcuda))
    monkeypatch.setattr(cuda_device, "_lib", None)
    log = ctypes.CDLL(str(fake_libcuda))
    log.fake_log.restype = ctypes.c_char_p
    log.fake_clear()
    s = Session(cuda_device.CudaDevice(0, 1 << 30))
    s.fake_log = lambda: log.fake_log().decode().splitlines()
    yield s


@pytest.fixture(scope="module")
def d():
    return Dispatcher("cuda")


def call(d, s, name, *args):
    return d.run(s, BY_NAME[name], list(args), [])


def test_handles_structs_and_errors_cross_as_the_driver_expects(d, session):
    assert session.device.dev == 7  # the driver's CUdevice for ordinal 0
    # a struct in by its bytes, a value out
    prop = struct.pack("<I4xQQQ", 2, 1 << 21, 0, 0)  # CUmulticastObjectProp: numDevices, size, handleTypes, flags
    r = call(d, session, "cuMulticastGetGranularity", prop, 1)
    assert r.rc == 0 and r.outs == [2 << 20], r.message
    assert session.fake_log()[-1] == "cuMulticastGetGranularity devices=2 size=2097152 option=1"
    # the driver's error, in the calling face's numbering: the Runtime's twin is served by the same function
    (stream,) = call(d, session, "cuStreamCreate", 0).outs
    assert call(d, session, "cuStreamCopyAttributes", stream, 0).rc == 0
    assert session.fake_log()[-1] == "cuStreamCopyAttributes dst=0x5100 src=0x0"
    r = call(d, session, "cudaStreamCopyAttributes", stream, stream)
    assert r.rc == enums.cudaError["cudaErrorInvalidValue"] and r.message
    # arrays of structs: their bytes, as many as the length argument says
    op = struct.Struct("<i4xQQIxxxxQ8x")  # CUstreamBatchMemOpParams (48 bytes): operation, address, value, flags, alias
    ops = op.pack(2, 0x7F0000001000, 1, 0, 0) + op.pack(2, 0x7F0000002000, 2, 0, 0)
    assert call(d, session, "cuStreamBatchMemOp_v2", stream, 2, ops, 0).rc == 0
    assert session.fake_log()[-1] == "cuStreamBatchMemOp_v2 stream=0x5100 count=2 last=2 addr=0x7f0000002000"
    # a count that does not match the bytes is refused before the driver sees it
    before = len(session.fake_log())
    assert call(d, session, "cuStreamBatchMemOp_v2", stream, 3, ops, 0).rc == \
        enums.cudaError_enum["CUDA_ERROR_INVALID_VALUE"]
    assert len(session.fake_log()) == before
    # a handle out is the session's: the client never sees the driver's pointer, and a function's module
    # is the handle the session already has for the driver's (api/module.py), not a new one
    mod = session.new_handle("module", cuda_device.ffi().cast("CUmodule", 0x7700))
    fn = session.new_handle("function", cuda_device.ffi().cast("CUfunction", 0x8800))
    r = call(d, session, "cuFuncGetModule", fn)
    assert r.rc == 0 and session.fake_log()[-1] == "cuFuncGetModule function=0x8800"
    assert r.outs == [mod] and call(d, session, "cuFuncGetModule", fn).outs == [mod]


def test_streams_made_by_handlers_reach_generic_calls_translated(d, session):
    (stream,) = call(d, session, "cuStreamCreate", 0).outs
    assert call(d, session, "cuStreamWaitValue32_v2", stream, 0x7F0000001000, 42, 1).rc == 0
    assert session.fake_log()[-1] == "cuStreamWaitValue32_v2 stream=0x5100 addr=0x7f0000001000 value=42 flags=1"
    (event,) = call(d, session, "cuEventCreate", 0).outs  # an event is not a stream
    assert call(d, session, "cuStreamWaitValue32_v2", event, 0, 0, 0).rc == \
        enums.cudaError_enum["CUDA_ERROR_INVALID_HANDLE"]
    # a raw union comes back as its bytes
    r = call(d, session, "cuStreamGetAttribute", stream, 5)
    assert r.rc == 0 and len(r.outs[0]) == 64 and struct.unpack_from("<i", r.outs[0])[0] == -3
    assert session.fake_log()[-1] == "cuStreamGetAttribute stream=0x5100 attr=5"


def test_out_arrays_of_handles_and_buffers(d, session):
    mod = session.new_handle("module", cuda_device.ffi().cast("CUmodule", 0x7000))
    r = call(d, session, "cuModuleEnumerateFunctions", 3, mod)
    assert r.rc == 0 and session.fake_log()[-1] == "cuModuleEnumerateFunctions n=3 mod=0x7000"
    (fns,) = r.outs
    assert len(fns) == 3
    addrs = [int(cuda_device.ffi().cast("uintptr_t", session.get("function", h))) for h in fns]
    assert addrs == [0x8000, 0x8010, 0x8020]
    r = call(d, session, "cuDeviceGetLuid", 0)
    assert r.rc == 0 and r.outs == [b"LUID-123", 5]
    assert session.fake_log()[-1] == "cuDeviceGetLuid dev=7"


def test_wrong_shapes_never_reach_the_driver(d, session):
    before = len(session.fake_log())
    assert call(d, session, "cuStreamCopyAttributes", "stream", 0).rc == enums.cudaError_enum["CUDA_ERROR_INVALID_VALUE"]
    assert call(d, session, "cuMulticastGetGranularity", b"short", 0).rc == \
        enums.cudaError_enum["CUDA_ERROR_INVALID_VALUE"]
    assert len(session.fake_log()) == before


def test_available_dynamic_shared_memory_is_the_drivers_answer(d, session):
    """cuOccupancyAvailableDynamicSMemPerBlock: the driver's own calculator on a real GPU (the
    software GPU computes it, tests/cuda/programs/occupancy_bounds.cu)."""
    fn = session.new_handle("function", cuda_device.ffi().cast("CUfunction", 0x8800))
    r = call(d, session, "cuOccupancyAvailableDynamicSMemPerBlock", fn, 4, 256)
    assert r.rc == 0 and r.outs == [233472 // 4 - 1024], r.message
    assert session.fake_log()[-1] == "cuOccupancyAvailableDynamicSMemPerBlock function=0x8800 blocks=4 threads=256"
    assert call(d, session, "cuOccupancyAvailableDynamicSMemPerBlock", fn, 0, 256).rc == \
        enums.cudaError_enum["CUDA_ERROR_INVALID_VALUE"]
