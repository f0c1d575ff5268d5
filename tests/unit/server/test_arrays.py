"""CUDA arrays, texture and surface objects at the dispatcher: handles and object values belong to
the session that made them (another session's are refused with CUDA's codes and change nothing), and
descriptors CUDA does not make are refused before a backend sees them."""
from __future__ import annotations

import pytest

from rgpu.protocol.generated import enums
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.server.api.device import _cffi
from rgpu.server.backends import resources as R
from rgpu.server.backends.sim.device import SimDevice
from rgpu.server.dispatch import Dispatcher
from rgpu.server.session import Session

DRV = enums.cudaError_enum


@pytest.fixture(scope="module")
def dispatcher():
    return Dispatcher()


@pytest.fixture
def two():
    a, b = Session(SimDevice(1 << 24)), Session(SimDevice(1 << 24))
    yield a, b
    a.close()
    b.close()


def call(d, s, name, *args, bulk=()):
    return d.run(s, BY_NAME[name], list(args), list(bulk))


def raw(ctype: str, **fields) -> bytes:
    ffi = _cffi()
    p = ffi.new(f"{ctype} *")
    for k, v in fields.items():
        setattr(p, k, v)
    return bytes(ffi.buffer(p))


FLOAT = 0x20  # CU_AD_FORMAT_FLOAT


def array_desc(w=8, h=4, fmt=FLOAT, channels=1) -> bytes:
    return raw("CUDA_ARRAY_DESCRIPTOR", Width=w, Height=h, Format=fmt, NumChannels=channels)


def resource(handle: int) -> bytes:
    ffi = _cffi()
    p = ffi.new("CUDA_RESOURCE_DESC *")
    p.resType = R.RES_ARRAY
    p.res.array.hArray = ffi.cast("CUarray", handle)
    return bytes(ffi.buffer(p))


def test_another_sessions_array_and_texture_are_refused(dispatcher, two):
    a, b = two
    r = call(dispatcher, a, "cuArrayCreate_v2", array_desc())
    assert r.rc == 0
    (arr,) = r.outs
    data = bytes(range(128))
    assert call(dispatcher, a, "cuMemcpyHtoA_v2", arr, 0, 128, bulk=[data]).rc == 0
    r = call(dispatcher, a, "cuTexObjectCreate", resource(arr), raw("CUDA_TEXTURE_DESC"), None)
    assert r.rc == 0
    (tex,) = r.outs
    # b holds a stream under the number a's array has: a handle of another kind is no array
    assert call(dispatcher, b, "cuStreamCreate", 0).rc == 0
    assert call(dispatcher, b, "cuArray3DGetDescriptor_v2", arr).rc == DRV["CUDA_ERROR_INVALID_HANDLE"]
    assert call(dispatcher, b, "cuMemcpyHtoA_v2", arr, 0, 4, bulk=[b"evil"]).rc == DRV["CUDA_ERROR_INVALID_HANDLE"]
    assert call(dispatcher, b, "cuMemcpyAtoH_v2", arr, 0, 128).rc == DRV["CUDA_ERROR_INVALID_HANDLE"]
    assert call(dispatcher, b, "cuArrayDestroy", arr).rc == DRV["CUDA_ERROR_INVALID_HANDLE"]
    assert call(dispatcher, b, "cuTexObjectCreate", resource(arr), raw("CUDA_TEXTURE_DESC"), None).rc == \
        DRV["CUDA_ERROR_INVALID_HANDLE"]
    for name in ("cuTexObjectDestroy", "cuTexObjectGetResourceDesc", "cuTexObjectGetTextureDesc"):
        assert call(dispatcher, b, name, tex).rc == DRV["CUDA_ERROR_INVALID_VALUE"], name
    # a's array and texture are as they were
    r = call(dispatcher, a, "cuMemcpyAtoH_v2", arr, 0, 128)
    assert r.rc == 0 and bytes(r.bulk[0]) == data
    assert call(dispatcher, a, "cuTexObjectGetResourceDesc", tex).outs[0] == resource(arr)
    assert call(dispatcher, a, "cuTexObjectDestroy", tex).rc == 0
    assert call(dispatcher, a, "cuArrayDestroy", arr).rc == 0


@pytest.mark.parametrize("fmt, channels", [(0x77, 1), (0x20, 3), (0x20, 0), (0x01, 8)])
def test_impossible_formats(dispatcher, two, fmt, channels):
    a, _ = two
    free = a.device.mem_info()[0]
    r = call(dispatcher, a, "cuArrayCreate_v2", array_desc(fmt=fmt, channels=channels))
    assert r.rc == DRV["CUDA_ERROR_INVALID_VALUE"], r.message
    assert a.device.mem_info()[0] == free
    # nothing was made: a handle of the first array made now is the session's first
    (arr,) = call(dispatcher, a, "cuArrayCreate_v2", array_desc()).outs
    assert arr == 0x1000


def test_truncated_descriptors_and_copies_past_the_extent(dispatcher, two):
    a, _ = two
    assert call(dispatcher, a, "cuArrayCreate_v2", array_desc()[:-4]).rc == DRV["CUDA_ERROR_INVALID_VALUE"]
    (arr,) = call(dispatcher, a, "cuArrayCreate_v2", array_desc(8, 4)).outs  # 32 floats
    assert call(dispatcher, a, "cuMemcpyHtoA_v2", arr, 4, 128, bulk=[bytes(128)]).rc == DRV["CUDA_ERROR_INVALID_VALUE"]
    assert call(dispatcher, a, "cuMemcpyHtoA_v2", arr, 2, 4, bulk=[bytes(4)]).rc == DRV["CUDA_ERROR_INVALID_VALUE"]
    # a box past the rows, and one whose host data is short
    box = [arr, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    src_host = [0, 0, 0, 0, 0, 0, 0]
    assert call(dispatcher, a, "cuMemcpy3D_v2", *src_host, *box[:1], 0, 0, 0, 0, 2, 0, 32, 3, 1,
                bulk=[bytes(96)]).rc == DRV["CUDA_ERROR_INVALID_VALUE"]
    assert call(dispatcher, a, "cuMemcpy3D_v2", *src_host, *box[:1], 0, 0, 0, 0, 0, 0, 32, 4, 1,
                bulk=[bytes(100)]).rc == DRV["CUDA_ERROR_INVALID_VALUE"]
    assert call(dispatcher, a, "cuMemcpy3D_v2", *src_host, *box[:1], 0, 0, 0, 0, 0, 0, 32, 4, 1,
                bulk=[bytes(128)]).rc == 0
