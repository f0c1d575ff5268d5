"""The cuda backend's CUDA arrays, texture and surface objects, without a GPU: the driver is a
stand-in built from C here (against the generated prototypes, so its signatures are CUDA's; the
basics are test_cuda_generic.py's) that records the descriptors each entry point received. The test
sees what a real libcuda.so.1 would: descriptors by value with the driver's handles in place of the
session's, host data packed with its pitch, texture object values passed back unchanged (kernels
receive them), and what a session left behind destroyed when it closes.

What only a GPU can confirm: that the driver accepts these descriptors and samples as the sim does
(tests/e2e/test_textures.py runs on the cuda backend with RGPU_TEST_DEVICE=cuda)."""
from __future__ import annotations

import ctypes

import pytest

from rgpu.protocol.generated import enums
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.server.backends import resources as R
from rgpu.server.backends.cuda import device as cuda_device
from rgpu.server.dispatch import Dispatcher
from rgpu.server.session import Session
from tests.support import fakecuda
from tests.unit.server.test_cuda_generic import FAKE as BASICS

ARRAYS = r"""
static int next_array;
void fake_reset_arrays(void) { next_array = 0; }
CUresult cuStreamSynchronize(CUstream s) { say("cuStreamSynchronize stream=0x%llx", P(s)); return CUDA_SUCCESS; }
CUresult cuArray3DCreate_v2(CUarray *a, const CUDA_ARRAY3D_DESCRIPTOR *d) {
    say("cuArray3DCreate_v2 %zux%zux%zu format=%d channels=%u flags=%u", d->Width, d->Height, d->Depth,
        d->Format, d->NumChannels, d->Flags);
    *a = (CUarray)(uintptr_t)(0xA000 + 0x10 * next_array++);
    return CUDA_SUCCESS;
}
CUresult cuArrayDestroy(CUarray a) { say("cuArrayDestroy 0x%llx", P(a)); return CUDA_SUCCESS; }
CUresult cuMipmappedArrayCreate(CUmipmappedArray *m, const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned levels) {
    say("cuMipmappedArrayCreate %zux%zu levels=%u", d->Width, d->Height, levels);
    *m = (CUmipmappedArray)0xB000;
    return CUDA_SUCCESS;
}
CUresult cuMipmappedArrayGetLevel(CUarray *a, CUmipmappedArray m, unsigned level) {
    *a = (CUarray)(uintptr_t)(0xB100 + level);
    return CUDA_SUCCESS;
}
CUresult cuMipmappedArrayDestroy(CUmipmappedArray m) { say("cuMipmappedArrayDestroy 0x%llx", P(m)); return CUDA_SUCCESS; }
static const char *kind(CUmemorytype t) { return t == 1 ? "host" : t == 2 ? "device" : t == 3 ? "array" : "?"; }
CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *p, CUstream s) {
    say("cuMemcpy3DAsync_v2 src=%s array=0x%llx device=0x%llx pitch=%zu height=%zu at=%zu,%zu,%zu "
        "dst=%s array=0x%llx device=0x%llx pitch=%zu height=%zu at=%zu,%zu,%zu box=%zux%zux%zu stream=0x%llx",
        kind(p->srcMemoryType), P(p->srcArray), (unsigned long long)p->srcDevice, p->srcPitch, p->srcHeight,
        p->srcXInBytes, p->srcY, p->srcZ,
        kind(p->dstMemoryType), P(p->dstArray), (unsigned long long)p->dstDevice, p->dstPitch, p->dstHeight,
        p->dstXInBytes, p->dstY, p->dstZ, p->WidthInBytes, p->Height, p->Depth, P(s));
    if (p->srcMemoryType == 1) say("host data begins %02x%02x", ((unsigned char *)p->srcHost)[0],
                                   ((unsigned char *)p->srcHost)[1]);
    if (p->dstMemoryType == 1) memset(p->dstHost, 0x5A, p->WidthInBytes * p->Height * p->Depth);
    return CUDA_SUCCESS;
}
CUresult cuTexObjectCreate(CUtexObject *t, const CUDA_RESOURCE_DESC *r, const CUDA_TEXTURE_DESC *d,
                           const CUDA_RESOURCE_VIEW_DESC *v) {
    unsigned long long res = r->resType == CU_RESOURCE_TYPE_ARRAY ? P(r->res.array.hArray)
                           : r->resType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY ? P(r->res.mipmap.hMipmappedArray)
                           : r->resType == CU_RESOURCE_TYPE_PITCH2D ? (unsigned long long)r->res.pitch2D.devPtr
                           : (unsigned long long)r->res.linear.devPtr;
    say("cuTexObjectCreate type=%d resource=0x%llx modes=%d,%d,%d filter=%d flags=%u mipfilter=%d maxlod=%g "
        "border=%g view=%s", r->resType, res, d->addressMode[0], d->addressMode[1], d->addressMode[2],
        d->filterMode, d->flags, d->mipmapFilterMode, d->maxMipmapLevelClamp, d->borderColor[0],
        v ? "yes" : "none");
    if (r->resType == CU_RESOURCE_TYPE_PITCH2D)
        say("pitch2D format=%d channels=%u %zux%zu pitch=%zu", r->res.pitch2D.format, r->res.pitch2D.numChannels,
            r->res.pitch2D.width, r->res.pitch2D.height, r->res.pitch2D.pitchInBytes);
    if (v) say("view levels=%u..%u layers=%u..%u", v->firstMipmapLevel, v->lastMipmapLevel, v->firstLayer,
               v->lastLayer);
    *t = 0x7E0001;
    return CUDA_SUCCESS;
}
CUresult cuTexObjectDestroy(CUtexObject t) { say("cuTexObjectDestroy 0x%llx", t); return CUDA_SUCCESS; }
CUresult cuSurfObjectCreate(CUsurfObject *s, const CUDA_RESOURCE_DESC *r) {
    say("cuSurfObjectCreate type=%d array=0x%llx", r->resType, P(r->res.array.hArray));
    *s = 0x5F0001;
    return CUDA_SUCCESS;
}
CUresult cuSurfObjectDestroy(CUsurfObject s) { say("cuSurfObjectDestroy 0x%llx", s); return CUDA_SUCCESS; }
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { *p = 0x700000000000ull; return CUDA_SUCCESS; }
CUresult cuMemFree_v2(CUdeviceptr p) { return CUDA_SUCCESS; }
CUresult cuStreamQuery(CUstream s) { return CUDA_SUCCESS; }  /* nothing queued: a device sync waits for nothing */
"""
DRV = enums.cudaError_enum


@pytest.fixture(scope="module")
def fake_libcuda(tmp_path_factory):
    return fakecuda.build(tmp_path_factory.mktemp("fakecuda_arrays"), BASICS + ARRAYS)


@pytest.fixture
def session(fake_libcuda, monkeypatch):
    monkeypatch.setenv("RGPU_LIBCUDA", str(fake_libcuda))
    monkeypatch.setattr(cuda_device, "_lib", None)
    log = ctypes.CDLL(str(fake_libcuda))
    log.fake_log.restype = ctypes.c_char_p
    log.fake_clear()
    log.fake_reset_arrays()
    s = Session(cuda_device.CudaDevice(0, 1 << 30))
    s.fake_log = lambda: log.fake_log().decode().splitlines()
    return s


@pytest.fixture(scope="module")
def d():
    return Dispatcher("cuda")


def call(d, s, name, *args, bulk=()):
    return d.run(s, BY_NAME[name], list(args), list(bulk))


def struct(ctype: str, **fields):
    ffi = cuda_device.ffi()
    p = ffi.new(f"{ctype} *")
    for k, v in fields.items():
        setattr(p, k, v)
    return p


def raw(p) -> bytes:
    return bytes(cuda_device.ffi().buffer(p))


def resource(handle: int, kind: int = R.RES_ARRAY) -> bytes:
    ffi = cuda_device.ffi()
    p = ffi.new("CUDA_RESOURCE_DESC *")
    p.resType = kind
    if kind == R.RES_ARRAY:
        p.res.array.hArray = ffi.cast("CUarray", handle)
    else:
        p.res.mipmap.hMipmappedArray = ffi.cast("CUmipmappedArray", handle)
    return raw(p)


def test_arrays_and_copies_reach_the_driver_translated(d, session):
    r = call(d, session, "cuArrayCreate_v2", raw(struct("CUDA_ARRAY_DESCRIPTOR", Width=11, Height=6, Format=0x20,
                                                        NumChannels=1)))
    assert r.rc == 0, r.message
    (arr,) = r.outs
    assert arr != 0xA000  # the program gets the session's handle, not the driver's pointer
    assert session.fake_log()[-1] == "cuArray3DCreate_v2 11x6x0 format=32 channels=1 flags=0"
    # host data to the whole array: one box, host rows packed (pitch = width), waited for
    data = bytes([0x12, 0x34]) + bytes(11 * 6 * 4 - 2)
    assert call(d, session, "cuMemcpyHtoA_v2", arr, 0, len(data), bulk=[data]).rc == 0
    log = session.fake_log()
    assert log[-3] == ("cuMemcpy3DAsync_v2 src=host array=0x0 device=0x0 pitch=44 height=6 at=0,0,0 "
                       "dst=array array=0xa000 device=0x0 pitch=0 height=0 at=0,0,0 box=44x6x1 stream=0x0")
    assert log[-2:] == ["host data begins 1234", "cuStreamSynchronize stream=0x0"]
    # a box from the array into device memory on a stream: the driver's stream, the device's address
    (stream,) = call(d, session, "cuStreamCreate", 0).outs
    (dev,) = call(d, session, "cuMemAlloc_v2", 4096).outs
    r = call(d, session, "cuMemcpy3DAsync_v2", arr, 0, 0, 0, 8, 1, 0, 0, dev, 64, 8, 0, 0, 0, 12, 5, 1, stream)
    assert r.rc == 0, r.message
    assert session.fake_log()[-1] == (
        "cuMemcpy3DAsync_v2 src=array array=0xa000 device=0x0 pitch=0 height=0 at=8,1,0 dst=device array=0x0 "
        f"device=0x{dev:x} pitch=64 height=8 at=0,0,0 box=12x5x1 stream=0x5100")
    # the array back to the host: the driver's bytes, packed
    r = call(d, session, "cuMemcpyAtoH_v2", arr, 44, 88)
    assert r.rc == 0 and bytes(r.bulk[0]) == b"\x5a" * 88
    # past the extent: refused before the driver sees it
    before = len(session.fake_log())
    assert call(d, session, "cuMemcpyAtoH_v2", arr, 44, 11 * 6 * 4).rc == DRV["CUDA_ERROR_INVALID_VALUE"]
    assert len(session.fake_log()) == before
    assert call(d, session, "cuArrayDestroy", arr).rc == 0
    assert session.fake_log()[-1] == "cuArrayDestroy 0xa000"
    assert call(d, session, "cuArrayDestroy", arr).rc == DRV["CUDA_ERROR_INVALID_HANDLE"]


def test_texture_and_surface_objects_by_value(d, session):
    desc = struct("CUDA_ARRAY3D_DESCRIPTOR", Width=8, Height=8, Depth=3, Format=0x01, NumChannels=4,
                  Flags=R.LAYERED | R.SURFACE_LDST)
    (arr,) = call(d, session, "cuArray3DCreate_v2", raw(desc)).outs
    assert session.fake_log()[-1] == "cuArray3DCreate_v2 8x8x3 format=1 channels=4 flags=3"
    tex = struct("CUDA_TEXTURE_DESC", filterMode=R.LINEAR, flags=R.NORMALIZED_COORDINATES)
    tex.addressMode[0], tex.addressMode[1], tex.addressMode[2] = R.WRAP, R.MIRROR, R.BORDER
    tex.borderColor[0] = 0.5
    view = struct("CUDA_RESOURCE_VIEW_DESC", firstLayer=1, lastLayer=2)
    r = call(d, session, "cuTexObjectCreate", resource(arr), raw(tex), raw(view))
    assert r.rc == 0, r.message
    assert r.outs == [0x7E0001]  # the driver's value: kernels receive it as it is
    assert session.fake_log()[-2:] == [
        "cuTexObjectCreate type=0 resource=0xa000 modes=0,2,3 filter=1 flags=2 mipfilter=0 maxlod=0 border=0.5 "
        "view=yes", "view levels=0..0 layers=1..2"]
    # the descriptors come back as the program gave them (its handle in the resource)
    assert call(d, session, "cuTexObjectGetResourceDesc", 0x7E0001).outs == [resource(arr)]
    assert call(d, session, "cuTexObjectGetTextureDesc", 0x7E0001).outs == [raw(tex)]
    r = call(d, session, "cuSurfObjectCreate", resource(arr))
    assert r.rc == 0 and r.outs == [0x5F0001]
    assert session.fake_log()[-1] == "cuSurfObjectCreate type=0 array=0xa000"
    # values the session did not make never reach the driver
    before = len(session.fake_log())
    assert call(d, session, "cuTexObjectDestroy", 0x7E0002).rc == DRV["CUDA_ERROR_INVALID_VALUE"]
    assert call(d, session, "cuSurfObjectDestroy", 0x7E0001).rc == DRV["CUDA_ERROR_INVALID_VALUE"]
    assert len(session.fake_log()) == before
    assert call(d, session, "cuTexObjectDestroy", 0x7E0001).rc == 0
    assert session.fake_log()[-1] == "cuTexObjectDestroy 0x7e0001"
    # what is left goes when the session closes: the surface object, then the array
    session.close()
    log = session.fake_log()
    assert "cuSurfObjectDestroy 0x5f0001" in log and "cuArrayDestroy 0xa000" in log
    assert log.index("cuSurfObjectDestroy 0x5f0001") < log.index("cuArrayDestroy 0xa000")


def test_mipmapped_arrays_and_pitched_textures(d, session):
    desc = struct("CUDA_ARRAY3D_DESCRIPTOR", Width=16, Height=8, Format=0x20, NumChannels=1)
    r = call(d, session, "cuMipmappedArrayCreate", raw(desc), 4)
    assert r.rc == 0, r.message
    (mip,) = r.outs
    assert session.fake_log()[-1] == "cuMipmappedArrayCreate 16x8 levels=4"
    (level,) = call(d, session, "cuMipmappedArrayGetLevel", mip, 2).outs
    assert session.get("array", level).obj == cuda_device.ffi().cast("CUarray", 0xB102)
    r = call(d, session, "cuArray3DGetDescriptor_v2", level)
    back = cuda_device.ffi().from_buffer("CUDA_ARRAY3D_DESCRIPTOR *", bytearray(r.outs[0]))
    assert (back.Width, back.Height, back.Format) == (4, 2, 0x20)
    tex = struct("CUDA_TEXTURE_DESC", flags=R.NORMALIZED_COORDINATES, mipmapFilterMode=R.LINEAR,
                 maxMipmapLevelClamp=3.0)
    r = call(d, session, "cuTexObjectCreate", resource(mip, R.RES_MIPMAP), raw(tex), None)
    assert r.rc == 0, r.message
    assert session.fake_log()[-1] == ("cuTexObjectCreate type=1 resource=0xb000 modes=0,0,0 filter=0 flags=2 "
                                      "mipfilter=1 maxlod=3 border=0 view=none")
    # pitched device memory: the address as it is, the format and pitch by value
    (dev,) = call(d, session, "cuMemAlloc_v2", 1 << 16).outs
    ffi = cuda_device.ffi()
    res = ffi.new("CUDA_RESOURCE_DESC *")
    res.resType = R.RES_PITCH2D
    res.res.pitch2D.devPtr, res.res.pitch2D.format, res.res.pitch2D.numChannels = dev, 0x10, 2
    res.res.pitch2D.width, res.res.pitch2D.height, res.res.pitch2D.pitchInBytes = 30, 10, 128
    r = call(d, session, "cuTexObjectCreate", raw(res), raw(struct("CUDA_TEXTURE_DESC")), None)
    assert r.rc == 0, r.message
    assert session.fake_log()[-2:] == [
        f"cuTexObjectCreate type=3 resource=0x{dev:x} modes=0,0,0 filter=0 flags=0 mipfilter=0 maxlod=0 border=0 "
        "view=none", "pitch2D format=16 channels=2 30x10 pitch=128"]
    assert call(d, session, "cuMipmappedArrayDestroy", mip).rc == 0
    assert session.fake_log()[-1] == "cuMipmappedArrayDestroy 0xb000"
    # its levels went with it
    assert call(d, session, "cuArray3DGetDescriptor_v2", level).rc == DRV["CUDA_ERROR_INVALID_HANDLE"]


def test_a_device_reset_frees_the_sessions_memory_on_the_driver(d, session):
    """cudaDeviceReset frees every allocation the session holds on the cuda backend too (it freed
    only the software GPU's: on an H200 a pointer allocated before a reset still answered as device
    memory after it)."""
    (dev,) = call(d, session, "cuMemAlloc_v2", 4096).outs
    assert session.device.allocations() == [(dev, 4096)]
    assert call(d, session, "cudaDeviceReset").rc == 0
    assert session.device.allocations() == []
    assert call(d, session, "cuMemFree_v2", dev).rc != 0  # gone: a second free is refused


class Numbering:
    """A driver's choice of object values, for object_restore: the lowest free from `first`, textures
    and surfaces together (an H200's in a fresh context: benchmarks/native/probes/object_values.cu)."""

    def __init__(self, device, first=1):
        self.held, self.first, self.device = set(), first, device
        real_destroy = device._driver

        def driver():
            ffi, lib, check = real_destroy()
            return ffi, _Lib(lib, self), check
        device._driver = driver

    def make(self, kind):
        def create(*_):
            v = self.first
            while v in self.held:
                v += 1
            self.held.add(v)
            self.device._objects[(kind, v)] = True
            return v, v
        return create


class _Lib:
    def __init__(self, lib, numbering):
        self._lib, self._n = lib, numbering

    def __getattr__(self, name):
        fn = getattr(self._lib, name)
        if name in ("cuTexObjectDestroy", "cuSurfObjectDestroy"):
            def destroy(v):
                self._n.held.discard(v)
                return fn(v)
            return destroy
        return fn


def test_restored_objects_get_the_values_the_program_holds_with_fillers_below_them(session, monkeypatch):
    """The program freed value 1 and holds texture 2 and surface 3: the restore (in the order of the
    values) makes a filler at 1, then the two, then drops the filler; the values are the driver's."""
    dev = session.device
    n = Numbering(dev)
    monkeypatch.setattr(dev, "tex_create", n.make("texture"))
    monkeypatch.setattr(dev, "surf_create", n.make("surface"))
    assert dev.objects_keep_values
    assert dev.object_restore("texture", 2, None, None, None) == 2
    assert dev.object_restore("surface", 3, None, None, None) == 3
    assert n.held == {1, 2, 3}
    dev.objects_restored()
    assert n.held == {2, 3} and "cuTexObjectDestroy 0x1" in session.fake_log()
    assert set(dev._objects) == {("texture", 2), ("surface", 3)}
    # the program's next object gets the value the filler had, as on the source
    assert n.make("texture")()[0] == 1


def test_a_driver_numbering_otherwise_fails_the_restore_and_keeps_nothing(session, monkeypatch):
    """A driver whose first value is past the one the program holds: the restore fails naming both
    values (the move fails, the session stays where it was), and the object made is destroyed."""
    from rgpu.server.checkpoint.image import CheckpointError
    dev = session.device
    n = Numbering(dev, first=0x10)
    monkeypatch.setattr(dev, "tex_create", n.make("texture"))
    with pytest.raises(CheckpointError, match="made texture object 0x10 where the program holds 0x2"):
        dev.object_restore("texture", 2, None, None, None)
    assert n.held == set() and not dev._objects
