"""Tensor maps on the cuda backend, without a GPU (server/api/tensormaps.py over
server/backends/cuda/tensormaps.py): the driver's own encoder is called with the arrays the client sent,
exactly as many elements as the rank says (the strides one fewer, the im2col corners two fewer), into a
64-byte aligned map as the driver requires, and the 128 bytes it wrote come back. A message whose arrays
do not match its rank never reaches the driver, whose encoder would read what the rank says. The
stand-in driver encodes its arguments into the map's bytes, so the test reads what a real libcuda.so.1
would have received. What only a GPU can confirm: that a kernel loads through the real driver's map
(tests/cuda/programs/tensor_map.cu)."""
from __future__ import annotations

import ctypes
import struct
from types import SimpleNamespace

import pytest

from rgpu.protocol.generated import enums
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.server.backends.cuda import device as cuda_device
from rgpu.server.dispatch import Dispatcher
from rgpu.server.session import Session
from tests.support import fakecuda

FAKE = r"""
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "rgpu_cuda.h"
""" + fakecuda.DEVICE + r"""
static int encodes;
int fake_encodes(void) { return encodes; }
CUresult cuDeviceGet(CUdevice *d, int ordinal) { *d = ordinal; return CUDA_SUCCESS; }
CUresult cuCtxSynchronize(void) { return CUDA_SUCCESS; }
CUresult cuDeviceTotalMem_v2(size_t *b, CUdevice d) { *b = 1ull << 32; return CUDA_SUCCESS; }
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) { *v = a == 75 ? 9 : 0; return CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult e, const char **s) {
    *s = e == CUDA_ERROR_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE" : "CUDA_ERROR_UNKNOWN";
    return CUDA_SUCCESS;
}
/* the map holds: kind, data type, rank, address, then each array's elements as 64-bit words */
static CUresult put(CUtensorMap *m, uint64_t kind, uint64_t dtype, uint64_t rank, void *addr) {
    if ((uintptr_t)m % 64 || ((uintptr_t)addr % 16)) return CUDA_ERROR_INVALID_VALUE; /* as the driver requires */
    encodes++;
    memset(m, 0, sizeof *m);
    m->opaque[0] = kind, m->opaque[1] = dtype, m->opaque[2] = rank, m->opaque[3] = (uint64_t)(uintptr_t)addr;
    return CUDA_SUCCESS;
}
CUresult cuTensorMapEncodeTiled(CUtensorMap *m, CUtensorMapDataType t, cuuint32_t rank, void *addr, const cuuint64_t *dim,
                                const cuuint64_t *strides, const cuuint32_t *box, const cuuint32_t *es,
                                CUtensorMapInterleave il, CUtensorMapSwizzle sw, CUtensorMapL2promotion l2,
                                CUtensorMapFloatOOBfill oob) {
    CUresult rc = put(m, 1, t, rank, addr);
    if (rc) return rc;
    int k = 4;
    for (cuuint32_t i = 0; i < rank; i++) m->opaque[k++] = dim[i];
    for (cuuint32_t i = 0; i + 1 < rank; i++) m->opaque[k++] = strides[i];
    for (cuuint32_t i = 0; i < rank; i++) m->opaque[k++] = box[i] | (uint64_t)es[i] << 32;
    m->opaque[15] = il | sw << 8 | l2 << 16 | (uint64_t)oob << 24;
    return CUDA_SUCCESS;
}
CUresult cuTensorMapEncodeIm2col(CUtensorMap *m, CUtensorMapDataType t, cuuint32_t rank, void *addr, const cuuint64_t *dim,
                                 const cuuint64_t *strides, const int *lo, const int *hi, cuuint32_t ch,
                                 cuuint32_t px, const cuuint32_t *es, CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                                 CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
    CUresult rc = put(m, 2, t, rank, addr);
    if (rc) return rc;
    int k = 4;
    for (cuuint32_t i = 0; i + 2 < rank; i++) m->opaque[k++] = (uint32_t)lo[i] | (uint64_t)(uint32_t)hi[i] << 32;
    m->opaque[k++] = ch | (uint64_t)px << 32;
    m->opaque[k++] = es[rank - 1];
    return CUDA_SUCCESS;
}
CUresult cuTensorMapEncodeIm2colWide(CUtensorMap *m, CUtensorMapDataType t, cuuint32_t rank, void *addr,
                                     const cuuint64_t *dim, const cuuint64_t *strides, int lo, int hi, cuuint32_t ch,
                                     cuuint32_t px, const cuuint32_t *es, CUtensorMapInterleave il,
                                     CUtensorMapIm2ColWideMode mode, CUtensorMapSwizzle sw, CUtensorMapL2promotion l2,
                                     CUtensorMapFloatOOBfill oob) {
    CUresult rc = put(m, 3, t, rank, addr);
    if (rc) return rc;
    m->opaque[4] = (uint32_t)lo | (uint64_t)(uint32_t)hi << 32;
    m->opaque[5] = mode;
    return CUDA_SUCCESS;
}
CUresult cuTensorMapReplaceAddress(CUtensorMap *m, void *addr) {
    if ((uintptr_t)m % 64 || (uintptr_t)addr % 16) return CUDA_ERROR_INVALID_VALUE;
    m->opaque[3] = (uint64_t)(uintptr_t)addr;
    return CUDA_SUCCESS;
}
"""
INVALID = enums.cudaError_enum["CUDA_ERROR_INVALID_VALUE"]


@pytest.fixture(scope="module")
def fake_libcuda(tmp_path_factory):
    return fakecuda.build(tmp_path_factory.mktemp("fakemaps"), FAKE)


@pytest.fixture
def gpu(fake_libcuda, monkeypatch):
    monkeypatch.setenv("RGPU_LIBCUDA", str(fake_libcuda))
    monkeypatch.setattr(cuda_device, "_lib", None)
    return Session(cuda_device.CudaDevice(0, 1 << 30)), ctypes.CDLL(str(fake_libcuda))


def call(s, name, *args):
    return Dispatcher("cuda").run(s, BY_NAME[name], list(args), [])


def u64(*v): return struct.pack(f"<{len(v)}Q", *v)
def u32(*v): return struct.pack(f"<{len(v)}I", *v)
def i32(*v): return struct.pack(f"<{len(v)}i", *v)


def test_a_tiled_map_is_the_drivers_encoding_of_exactly_the_arrays_the_rank_says(gpu):
    s, _fake = gpu
    addr = 0x7F0000100000
    r = call(s, "cuTensorMapEncodeTiled", 7, 3, addr, u64(64, 32, 4), u64(128, 4096), u32(16, 8, 1), u32(1, 1, 1),
             0, 2, 1, 0)
    assert r.rc == 0, r.message
    (m,) = r.outs
    words = struct.unpack("<16Q", m)
    assert words[:4] == (1, 7, 3, addr)
    assert words[4:7] == (64, 32, 4) and words[7:9] == (128, 4096)
    assert words[9:12] == (16 | 1 << 32, 8 | 1 << 32, 1 | 1 << 32)
    assert words[15] == 2 << 8 | 1 << 16


def test_im2col_maps_carry_their_corners_and_the_replaced_address(gpu):
    s, _fake = gpu
    r = call(s, "cuTensorMapEncodeIm2col", 6, 4, 0x7F0000200000, u64(8, 9, 10, 2), u64(16, 144, 1440),
             i32(-1, -2), i32(1, 2), 8, 64, u32(1, 1, 1, 3), 0, 0, 0, 0)
    assert r.rc == 0, r.message
    words = struct.unpack("<16Q", r.outs[0])
    assert words[:3] == (2, 6, 4) and words[4] == 0xFFFFFFFF | 1 << 32 and words[5] == 0xFFFFFFFE | 2 << 32
    assert words[6] == 8 | 64 << 32 and words[7] == 3
    r = call(s, "cuTensorMapEncodeIm2colWide", 6, 3, 0x7F0000200000, u64(8, 9, 2), u64(16, 144), -3, 3, 8, 64,
             u32(1, 1, 1), 0, 1, 0, 0, 0)
    assert r.rc == 0 and struct.unpack("<16Q", r.outs[0])[4:6] == (0xFFFFFFFD | 3 << 32, 1), r.message
    moved = call(s, "cuTensorMapReplaceAddress", r.outs[0], 0x7F0000300000)
    assert moved.rc == 0 and struct.unpack("<16Q", moved.outs[0])[3] == 0x7F0000300000
    assert moved.outs[0][32:] == r.outs[0][32:]  # the rest of the map as the driver left it


@pytest.mark.parametrize("args", [
    (7, 3, 0x7F0000100000, u64(64, 32), u64(128, 4096), u32(16, 8, 1), u32(1, 1, 1), 0, 0, 0, 0),  # dims short
    (7, 3, 0x7F0000100000, u64(64, 32, 4), u64(128, 4096, 1), u32(16, 8, 1), u32(1, 1, 1), 0, 0, 0, 0),  # strides long
    (7, 0, 0x7F0000100000, b"", b"", b"", b"", 0, 0, 0, 0),  # rank 0
    (7, 6, 0x7F0000100000, u64(*[1] * 6), u64(*[1] * 5), u32(*[1] * 6), u32(*[1] * 6), 0, 0, 0, 0),  # past 5
], ids=["dims short", "strides long", "rank 0", "rank 6"])
def test_arrays_that_do_not_match_the_rank_never_reach_the_driver(gpu, args):
    s, fake = gpu
    before = fake.fake_encodes()
    r = call(s, "cuTensorMapEncodeTiled", *args)
    assert r.rc == INVALID and r.message
    assert fake.fake_encodes() == before


def test_the_drivers_refusal_is_the_calls_answer_and_a_map_is_128_bytes(gpu):
    s, _fake = gpu
    r = call(s, "cuTensorMapEncodeTiled", 7, 1, 0x7F0000100008, u64(64), b"", u32(16), u32(1), 0, 0, 0, 0)
    assert r.rc == INVALID  # the driver wants a 16-byte aligned address
    r = call(s, "cuTensorMapReplaceAddress", b"\0" * 64, 0x7F0000300000)
    assert r.rc == INVALID and "128 bytes" in r.message
    r = call(s, "cuTensorMapReplaceAddress", None, 0x7F0000300000)  # no map at all (the fuzz suite's nil)
    assert r.rc == INVALID and "not none" in r.message


def test_the_software_gpu_refuses_im2col_maps_by_their_records_and_encodes_tiles_itself():
    # the refusal comes before any session state; a device with nothing queued (dispatch waits for a
    # device's queued kernels before a call that touches memory: backends/base.py `queued`)
    s = SimpleNamespace(face=None, calls=0, sticky=None, device=SimpleNamespace(queued=False))
    r = Dispatcher("sim").run(s, BY_NAME["cuTensorMapEncodeIm2colWide"],
                              [6, 3, 0x7F0000200000, u64(8, 9, 2), u64(16, 144), -3, 3, 8, 64, u32(1, 1, 1), 0, 1,
                               0, 0, 0], [])
    assert r.rc == enums.cudaError_enum["CUDA_ERROR_NOT_SUPPORTED"] and "tiles only" in r.message
    r = Dispatcher("sim").run(s, BY_NAME["cuTensorMapEncodeTiled"],
                              [7, 1, 0x7F0000100000, u64(64), b"", u32(16), u32(1), 0, 0, 0, 0], [])
    assert r.rc == 0 and r.outs[0][:4] == b"RTM1"  # the software GPU's own encoding (sim/tensormaps.py)
