"""Virtual memory management at the dispatcher, on the software GPU and on the cuda backend's
stand-in driver: physical memory charged to the quota at cuMemCreate, mappings inside reservations,
nothing accessible before cuMemSetAccess, adjacent mappings one range for copies, contents kept
across an unmap, holds counted (release while mapped, retain), CUDA's refusals, and everything a
session left behind given back when it closes."""
from __future__ import annotations

import ctypes
import struct

import pytest

from rgpu.protocol.generated import enums
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.server.backends.cuda import device as cuda_device
from rgpu.server.backends.sim.device import SimDevice
from rgpu.server.checkpoint.image import CheckpointError
from rgpu.server.checkpoint.session import describe
from rgpu.server.dispatch import Dispatcher
from rgpu.server.session import Session
from tests.support import fakecuda
from tests.unit.server.test_cuda_generic import FAKE as BASICS

DRV = enums.cudaError_enum
MiB = 1 << 20
G = 2 * MiB
PROP = struct.pack("<iiii", 1, 0, 1, 0) + bytes(16)  # pinned, on device 0 (CUmemAllocationProp: 32 bytes)
RW = struct.pack("<iiI", 1, 0, 3)  # CUmemAccessDesc: device 0, read-write


def call(d, s, name, *args, bulk=()):
    return d.run(s, BY_NAME[name], list(args), list(bulk))


def ok(r):
    assert r.rc == 0, r.message
    return r.outs[0] if len(r.outs) == 1 else r.outs


@pytest.fixture(scope="module")
def d():
    return Dispatcher()


def lease_quota(limit: int):
    """A lease's memory quota as the server keeps it across sessions: (its reserve hook, the count)."""
    quota = {"used": 0}

    def reserve(delta):
        if delta > 0 and quota["used"] + delta > limit:
            return False
        quota["used"] += delta
        return True
    return reserve, quota


def quota_session(limit: int) -> Session:
    """A session on a 64 MiB software GPU whose lease may hold `limit` bytes (its use in `.quota`)."""
    reserve, quota = lease_quota(limit)
    s = Session(SimDevice(64 * MiB, reserve=reserve))
    s.quota = quota
    return s


@pytest.fixture
def sim():
    s = quota_session(16 * MiB)
    yield s
    s.close()


def mapped(d, s, count=2, reserve=4):
    """`count` physical allocations of one granule mapped back to back in a `reserve`-granule range,
    read-write: (address, handles)."""
    va = ok(call(d, s, "cuMemAddressReserve", reserve * G, 0, 0, 0))
    hs = [ok(call(d, s, "cuMemCreate", G, PROP, 0)) for _ in range(count)]
    for i, h in enumerate(hs):
        ok(call(d, s, "cuMemMap", va + i * G, G, 0, h, 0))
    ok(call(d, s, "cuMemSetAccess", va, count * G, RW, 1))
    return va, hs


def test_granularity_and_the_quota(d, sim):
    assert ok(call(d, sim, "cuMemGetAllocationGranularity", PROP, 0)) == G
    assert ok(call(d, sim, "cuMemGetAllocationGranularity", PROP, 1)) == G
    hs = [ok(call(d, sim, "cuMemCreate", 4 * G, PROP, 0)) for _ in range(2)]
    assert sim.quota["used"] == 16 * MiB and sim.device.mem_info()[0] == 48 * MiB
    # the lease's quota holds: a third physical allocation does not fit, and nothing was charged
    assert call(d, sim, "cuMemCreate", G, PROP, 0).rc == DRV["CUDA_ERROR_OUT_OF_MEMORY"]
    assert sim.quota["used"] == 16 * MiB
    for h in hs:
        ok(call(d, sim, "cuMemRelease", h))
    assert sim.quota["used"] == 0
    # reserving and mapping take no memory
    va = ok(call(d, sim, "cuMemAddressReserve", 32 * G, 0, 0, 0))
    assert va % G == 0 and sim.quota["used"] == 0


@pytest.mark.parametrize("size, alignment, addr", [(1 << 62, 0, 0), (G, 1 << 63, 0), (1 << 62, 1 << 62, 1 << 62),
                                                  ((1 << 64) - G, 0, G)])
def test_an_address_range_larger_than_any_device_is_out_of_memory_not_an_internal_error(d, sim, size, alignment,
                                                                                         addr):
    """The fuzz suite's edges (2**62, 2**63): the software GPU's search for room runs in numpy's int64,
    which cannot hold them; such a range does not fit the device, as on a GPU."""
    r = call(d, sim, "cuMemAddressReserve", size, alignment, addr, 0)
    assert r.rc == DRV["CUDA_ERROR_OUT_OF_MEMORY"], (r.rc, r.message)
    assert ok(call(d, sim, "cuMemAddressReserve", G, 0, 0, 0)) % G == 0  # and the device serves on


def test_adjacent_mappings_are_one_range_for_copies_and_kernels_see_nothing_before_access(d, sim):
    va = ok(call(d, sim, "cuMemAddressReserve", 4 * G, 0, 0, 0))
    h1, h2 = (ok(call(d, sim, "cuMemCreate", G, PROP, 0)) for _ in range(2))
    ok(call(d, sim, "cuMemMap", va, G, 0, h1, 0))
    ok(call(d, sim, "cuMemMap", va + G, G, 0, h2, 0))
    data = bytes(range(256)) * (G // 128)  # two granules
    # mapped but not accessible yet: a copy there is refused
    assert call(d, sim, "cuMemcpyHtoD_v2", va, len(data), bulk=[data]).rc == DRV["CUDA_ERROR_INVALID_VALUE"]
    ok(call(d, sim, "cuMemSetAccess", va, 2 * G, RW, 1))
    assert ok(call(d, sim, "cuMemGetAccess", struct.pack("<ii", 1, 0), va + G + 5)) == 3
    ok(call(d, sim, "cuMemcpyHtoD_v2", va, len(data), bulk=[data]))  # across the two mappings
    r = call(d, sim, "cuMemcpyDtoH_v2", va + G - 100, 200)
    assert r.rc == 0 and b"".join(bytes(b) for b in r.bulk) == data[G - 100:G + 100]
    # the kernel-side bounds: the mapped bytes only
    assert sim.device.memory.check_lanes([va, va + 2 * G - 4], 4).size == 2
    with pytest.raises(Exception, match="outside any allocation"):
        sim.device.memory.check_lanes([va + 2 * G], 4)
    # VMM memory is not cuMemFree'd
    assert call(d, sim, "cuMemFree_v2", va).rc == DRV["CUDA_ERROR_INVALID_VALUE"]


def test_contents_follow_a_physical_allocation_to_its_next_mapping(d, sim):
    va, (h1, h2) = mapped(d, sim)
    ok(call(d, sim, "cuMemsetD32_v2", va + G, 0xDEADBEEF, G // 4))
    ok(call(d, sim, "cuMemUnmap", va + G, G))
    assert call(d, sim, "cuMemcpyDtoH_v2", va + G, 4).rc == DRV["CUDA_ERROR_INVALID_VALUE"]
    ok(call(d, sim, "cuMemMap", va + 3 * G, G, 0, h2, 0))
    ok(call(d, sim, "cuMemSetAccess", va + 3 * G, G, RW, 1))
    r = call(d, sim, "cuMemcpyDtoH_v2", va + 3 * G + G - 8, 8)
    assert r.rc == 0 and bytes(r.bulk[0]) == struct.pack("<II", 0xDEADBEEF, 0xDEADBEEF)


def test_holds_release_while_mapped_and_retain(d, sim):
    va, (h1, h2) = mapped(d, sim)
    assert sim.quota["used"] == 2 * G
    ok(call(d, sim, "cuMemRelease", h1))  # still mapped: the memory stays
    assert sim.quota["used"] == 2 * G
    assert call(d, sim, "cuMemRelease", h1).rc == DRV["CUDA_ERROR_INVALID_HANDLE"]
    h = ok(call(d, sim, "cuMemRetainAllocationHandle", va + 1234))
    assert h != h1 and ok(call(d, sim, "cuMemGetAllocationPropertiesFromHandle", h)) == PROP
    ok(call(d, sim, "cuMemRelease", h))
    ok(call(d, sim, "cuMemUnmap", va, 2 * G))  # both mappings in one call
    assert sim.quota["used"] == G  # h1's memory went with its mapping; h2 is still held
    ok(call(d, sim, "cuMemRelease", h2))
    assert sim.quota["used"] == 0
    ok(call(d, sim, "cuMemAddressFree", va, 4 * G))


def test_cuda_refusals(d, sim):
    va, (h1,) = mapped(d, sim, count=1)
    bad = DRV["CUDA_ERROR_INVALID_VALUE"]
    assert call(d, sim, "cuMemCreate", G + 4096, PROP, 0).rc == bad  # not whole granules
    assert call(d, sim, "cuMemCreate", G, struct.pack("<iiii", 0, 0, 1, 0) + bytes(16), 0).rc == bad
    assert call(d, sim, "cuMemAddressReserve", 3 * G, 3, 0, 0).rc == bad  # alignment not a power of two
    assert call(d, sim, "cuMemMap", va, G, 0, h1, 0).rc == bad  # over a mapping
    assert call(d, sim, "cuMemMap", va + G, 2 * G, 0, h1, 0).rc == bad  # past the physical allocation
    assert call(d, sim, "cuMemMap", va + 4 * G, G, 0, h1, 0).rc == bad  # outside the reservation
    assert call(d, sim, "cuMemUnmap", va, G // 2).rc == bad  # part of a mapping
    assert call(d, sim, "cuMemSetAccess", va, 2 * G, RW, 1).rc == bad  # beyond what is mapped
    assert call(d, sim, "cuMemAddressFree", va, 4 * G).rc == bad  # still mapped
    assert call(d, sim, "cuMemMap", va + G, G, 0, 0x7777, 0).rc == DRV["CUDA_ERROR_INVALID_HANDLE"]
    # the software GPU keeps one mapping of a physical allocation at a time, and says so
    r = call(d, sim, "cuMemMap", va + 2 * G, G, 0, h1, 0)
    assert r.rc == DRV["CUDA_ERROR_NOT_SUPPORTED"] and "one address at a time" in r.message
    # a session with VMM mappings refuses a checkpoint (migration), before anything stops
    with pytest.raises(CheckpointError, match="VMM"):
        describe(sim)


def test_another_sessions_handle_is_refused_and_close_gives_everything_back(d):
    used = {"n": 0}

    def reserve(delta):
        used["n"] += delta
        return True
    a, b = Session(SimDevice(64 * MiB, reserve=reserve)), Session(SimDevice(64 * MiB, reserve=reserve))
    try:
        va, (_, h) = mapped(d, a, count=2)  # handles count per session: b has no second one
        hb = ok(call(d, b, "cuMemCreate", G, PROP, 0))
        vb = ok(call(d, b, "cuMemAddressReserve", 2 * G, 0, 0, 0))
        assert call(d, b, "cuMemMap", vb, G, 0, h, 0).rc == DRV["CUDA_ERROR_INVALID_HANDLE"]
        assert used["n"] == 3 * G
    finally:
        a.close()
        b.close()
    assert used["n"] == 0


# -- the cuda backend, against a stand-in driver ----------------------------------------------------
VMM = r"""
static int handles;
CUresult cuMemGetAllocationGranularity(size_t *g, const CUmemAllocationProp *p, CUmemAllocationGranularity_flags o) {
    say("cuMemGetAllocationGranularity location=%d/%d option=%d", p->location.type, p->location.id, o);
    *g = o ? 4u << 20 : 2u << 20;
    return CUDA_SUCCESS;
}
CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t n, const CUmemAllocationProp *p, unsigned long long f) {
    say("cuMemCreate %zu type=%d location=%d/%d", n, p->type, p->location.type, p->location.id);
    *h = 0xF00 + 0x10 * handles++;
    return CUDA_SUCCESS;
}
CUresult cuMemRelease(CUmemGenericAllocationHandle h) { say("cuMemRelease 0x%llx", h); return CUDA_SUCCESS; }
CUresult cuMemAddressReserve(CUdeviceptr *p, size_t n, size_t a, CUdeviceptr addr, unsigned long long f) {
    say("cuMemAddressReserve %zu align=%zu", n, a);
    *p = 0x7f0000000000ull;
    return CUDA_SUCCESS;
}
CUresult cuMemAddressFree(CUdeviceptr p, size_t n) { say("cuMemAddressFree 0x%llx %zu", p, n); return CUDA_SUCCESS; }
CUresult cuMemMap(CUdeviceptr p, size_t n, size_t off, CUmemGenericAllocationHandle h, unsigned long long f) {
    say("cuMemMap 0x%llx %zu off=%zu handle=0x%llx", p, n, off, h);
    return CUDA_SUCCESS;
}
CUresult cuMemUnmap(CUdeviceptr p, size_t n) { say("cuMemUnmap 0x%llx %zu", p, n); return CUDA_SUCCESS; }
CUresult cuMemSetAccess(CUdeviceptr p, size_t n, const CUmemAccessDesc *d, size_t count) {
    say("cuMemSetAccess 0x%llx %zu count=%zu location=%d/%d flags=%d", p, n, count, d->location.type,
        d->location.id, d->flags);
    return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr p, const void *h, size_t n, CUstream s) {
    say("cuMemcpyHtoDAsync_v2 0x%llx %zu", p, n);
    return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream s) { return CUDA_SUCCESS; }
CUresult cuStreamQuery(CUstream s) { return CUDA_SUCCESS; }
CUresult cuMemFree_v2(CUdeviceptr p) { return CUDA_SUCCESS; }
"""


@pytest.fixture
def cuda(tmp_path_factory, monkeypatch):
    lib = fakecuda.build(tmp_path_factory.mktemp("fakecuda_vmm"), BASICS + VMM)
    monkeypatch.setenv("RGPU_LIBCUDA", str(lib))
    monkeypatch.setattr(cuda_device, "_lib", None)
    log = ctypes.CDLL(str(lib))
    log.fake_log.restype = ctypes.c_char_p
    log.fake_clear()
    charged = {"n": 0}

    def reserve(delta):  # an 8 MiB quota
        if delta > 0 and charged["n"] + delta > 8 * MiB:
            return False
        charged["n"] += delta
        return True
    s = Session(cuda_device.CudaDevice(3, 1 << 30, reserve=reserve))
    s.charged = charged
    s.fake_log = lambda: log.fake_log().decode().splitlines()
    return s


def test_cuda_backend_drives_the_driver_with_its_own_handles_and_charges_the_quota(cuda):
    d = Dispatcher("cuda")
    assert ok(call(d, cuda, "cuMemGetAllocationGranularity", PROP, 1)) == 4 * MiB
    # the session's GPU (the stand-in driver's CUdevice 10 for ordinal 3) as the location, whatever the program named
    assert cuda.fake_log()[-1] == "cuMemGetAllocationGranularity location=1/10 option=1"
    h = ok(call(d, cuda, "cuMemCreate", 2 * G, PROP, 0))
    assert h != 0xF00 and cuda.charged["n"] == 2 * G
    assert cuda.fake_log()[-1] == "cuMemCreate 4194304 type=1 location=1/10"
    assert call(d, cuda, "cuMemCreate", 4 * G, PROP, 0).rc == DRV["CUDA_ERROR_OUT_OF_MEMORY"]
    assert cuda.charged["n"] == 2 * G and not cuda.fake_log()[-1].startswith("cuMemCreate 8388608")
    va = ok(call(d, cuda, "cuMemAddressReserve", 4 * G, 0, 0, 0))
    ok(call(d, cuda, "cuMemMap", va, 2 * G, 0, h, 0))
    assert cuda.fake_log()[-1] == f"cuMemMap 0x{va:x} 4194304 off=0 handle=0xf00"
    ok(call(d, cuda, "cuMemSetAccess", va, 2 * G, struct.pack("<iiI", 1, 1, 3), 1))
    assert cuda.fake_log()[-1] == f"cuMemSetAccess 0x{va:x} 4194304 count=1 location=1/10 flags=3"
    # copies reach mapped, accessible memory through the handlers' checks
    ok(call(d, cuda, "cuMemcpyHtoD_v2", va + G, 16, bulk=[bytes(16)]))
    assert f"cuMemcpyHtoDAsync_v2 0x{va + G:x} 16" in cuda.fake_log()
    ok(call(d, cuda, "cuMemRelease", h))  # mapped: the driver's handle stays until the unmap
    assert not any(line.startswith("cuMemRelease") for line in cuda.fake_log())
    ok(call(d, cuda, "cuMemUnmap", va, 2 * G))
    assert cuda.fake_log()[-2:] == [f"cuMemUnmap 0x{va:x} 4194304", "cuMemRelease 0xf00"]
    assert cuda.charged["n"] == 0
    assert call(d, cuda, "cuMemcpyHtoD_v2", va, 16, bulk=[bytes(16)]).rc == DRV["CUDA_ERROR_INVALID_VALUE"]
    # what a session leaves behind is unmapped, freed and released at its close
    h = ok(call(d, cuda, "cuMemCreate", G, PROP, 0))
    ok(call(d, cuda, "cuMemMap", va, G, 0, h, 0))
    cuda.close()
    tail = cuda.fake_log()
    assert f"cuMemUnmap 0x{va:x} 2097152" in tail and f"cuMemAddressFree 0x{va:x} 8388608" in tail
    assert tail.index(f"cuMemUnmap 0x{va:x} 2097152") < tail.index("cuMemRelease 0xf10")
    assert cuda.charged["n"] == 0
