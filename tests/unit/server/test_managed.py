"""Managed memory on the server: page-aligned allocations tagged managed in a dedicated address
window, zeroed, charged to the session's one accountant, reported as managed, freed with the
session; the attributes rgpu's coherence model promises."""
from __future__ import annotations

import pytest

from rgpu.protocol.generated import enums
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.protocol.generated.structs import CDEF
from rgpu.server.api.managed import GRANULE
from rgpu.server.dispatch import Dispatcher
from rgpu.server.session import Session
from rgpu.server.backends.sim.device import SimDevice
from rgpu.server.backends.sim.memory import BASE_ADDRESS, GPU_WINDOW, WINDOWS

INVALID = enums.cudaError["cudaErrorInvalidValue"]


class Accountant:
    """The worker's reserve hook: a budget shared by everything a session allocates."""

    def __init__(self, budget):
        self.budget, self.used = budget, 0

    def __call__(self, delta):
        if self.used + delta > self.budget:
            return False
        self.used += delta
        return True


@pytest.fixture
def acct():
    return Accountant(1 << 22)


@pytest.fixture
def session(acct):
    s = Session(SimDevice(1 << 24, reserve=acct))
    yield s
    s.close()


@pytest.fixture(scope="module")
def d():
    return Dispatcher()


def call(d, s, name, *args, bulk=()):
    return d.run(s, BY_NAME[name], list(args), list(bulk))


def attrs(d, s, ptr):
    import cffi
    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    r = call(d, s, "cudaPointerGetAttributes", ptr)
    assert r.rc == 0
    a = ffi.new("struct cudaPointerAttributes *")
    ffi.memmove(a, r.outs[0], ffi.sizeof(a[0]))
    return a.type, int(ffi.cast("uintptr_t", a.devicePointer)), int(ffi.cast("uintptr_t", a.hostPointer))


def test_managed_allocations_are_page_aligned_zeroed_and_never_share_a_page(d, session):
    plain = call(d, session, "cudaMalloc", 100).outs[0]
    a, a_size = call(d, session, "cudaMallocManaged", 1000, 1).outs
    b, b_size = call(d, session, "cuMemAllocManaged", GRANULE + 1, 1).outs
    assert a % GRANULE == 0 and b % GRANULE == 0
    assert (a_size, b_size) == (GRANULE, 2 * GRANULE)
    spans = sorted([(plain, plain + 256), (a, a + a_size), (b, b + b_size)])
    assert all(x[1] <= y[0] for x, y in zip(spans, spans[1:]))
    assert BASE_ADDRESS <= a < BASE_ADDRESS + WINDOWS * GPU_WINDOW
    r = call(d, session, "cudaMemcpy", 0, b, b_size, 2)
    assert r.rc == 0 and bytes(r.bulk[0]) == bytes(b_size)


def test_bad_sizes_and_flags_are_invalid_value_in_each_face(d, session):
    assert call(d, session, "cudaMallocManaged", 0, 1).rc == INVALID
    assert call(d, session, "cudaMallocManaged", 64, 4).rc == INVALID  # cudaMemAttachSingle is for streams
    assert call(d, session, "cuMemAllocManaged", 64, 0).rc == enums.cudaError_enum["CUDA_ERROR_INVALID_VALUE"]
    assert not session.managed


def test_pointer_attributes_say_managed_until_freed(d, session):
    a, size = call(d, session, "cudaMallocManaged", 4096, 2).outs
    assert attrs(d, session, a + 100) == (3, a + 100, a + 100)  # cudaMemoryTypeManaged, same address
    plain = call(d, session, "cudaMalloc", 64).outs[0]
    assert attrs(d, session, plain)[0] == 2
    assert call(d, session, "cudaFree", a).rc == 0
    assert attrs(d, session, a)[0] == 0 and not session.managed


def test_managed_memory_is_charged_to_the_sessions_accountant(d, session, acct):
    got = []
    while True:
        r = call(d, session, "cudaMallocManaged", 1 << 20, 1)
        if r.rc:
            break
        got.append(r.outs[0])
    assert r.rc == enums.cudaError["cudaErrorMemoryAllocation"]
    assert len(got) == 4 and acct.used == 4 << 20
    for a in got:
        assert call(d, session, "cuMemFree_v2", a).rc == 0
    assert acct.used == 0


def test_session_end_and_device_reset_free_managed_memory(d, acct):
    s = Session(SimDevice(1 << 24, reserve=acct))
    call(d, s, "cudaMallocManaged", 1 << 20, 1)
    assert call(d, s, "cudaDeviceReset").rc == 0
    assert acct.used == 0 and not s.managed
    call(d, s, "cudaMallocManaged", 1 << 20, 1)
    assert acct.used == 1 << 20
    s.close()
    assert acct.used == 0


def test_stream_attach_accepts_whole_managed_allocations_only(d, session):
    a, size = call(d, session, "cudaMallocManaged", 4000, 1).outs
    plain = call(d, session, "cudaMalloc", 64).outs[0]
    (stream,) = call(d, session, "cudaStreamCreate").outs
    assert call(d, session, "cudaStreamAttachMemAsync", stream, a, 0, 4).rc == 0
    assert call(d, session, "cuStreamAttachMemAsync", 0, a, 4000, 2).rc == 0  # the size asked for
    assert call(d, session, "cudaStreamAttachMemAsync", stream, a, 3000, 4).rc == INVALID
    assert call(d, session, "cudaStreamAttachMemAsync", stream, a + 64, 64, 4).rc == INVALID
    assert call(d, session, "cudaStreamAttachMemAsync", stream, plain, 0, 1).rc == INVALID
    assert call(d, session, "cudaStreamAttachMemAsync", stream, a, 0, 3).rc == INVALID
    assert call(d, session, "cudaStreamAttachMemAsync", 0xBAD0, a, 0, 1).rc == \
        enums.cudaError["cudaErrorInvalidResourceHandle"]


def test_attributes_promise_managed_memory_without_concurrent_access(d, session):
    def attr(name):
        r = call(d, session, "cuDeviceGetAttribute", enums.CUdevice_attribute_enum["CU_DEVICE_ATTRIBUTE_" + name], 0)
        assert r.rc == 0
        return r.outs[0]
    assert attr("MANAGED_MEMORY") == 1
    assert attr("CONCURRENT_MANAGED_ACCESS") == 0
    assert attr("PAGEABLE_MEMORY_ACCESS") == 0
    assert attr("DIRECT_MANAGED_MEM_ACCESS_FROM_HOST") == 0


def test_gpus_of_different_servers_have_different_address_windows():
    devices = [SimDevice(1 << 20, 0, "hostA:tcp://*:7001"), SimDevice(1 << 20, 1, "hostA:tcp://*:7001"),
               SimDevice(1 << 20, 0, "hostB:tcp://*:7001")]
    try:
        bases = [dev.memory.base for dev in devices]
        window = [(b - BASE_ADDRESS) // GPU_WINDOW for b in bases]
        assert window[1] == (window[0] + 1) % WINDOWS  # one server's GPUs: consecutive windows
        assert len(set(bases)) == 3
        assert all(BASE_ADDRESS <= b < BASE_ADDRESS + WINDOWS * GPU_WINDOW for b in bases)
    finally:
        for dev in devices:
            dev.close()


def test_a_gpu_with_concurrent_managed_access_is_reported_without_it(d, session, monkeypatch):
    """A real GPU behind the cuda backend may migrate pages on demand; rgpu's client does not, so
    programs must be told to synchronise before the host touches managed memory."""
    real = dict(session.device.attributes())
    for name in ("CONCURRENT_MANAGED_ACCESS", "PAGEABLE_MEMORY_ACCESS", "DIRECT_MANAGED_MEM_ACCESS_FROM_HOST"):
        real[enums.CUdevice_attribute_enum["CU_DEVICE_ATTRIBUTE_" + name]] = 1
    monkeypatch.setattr(session.device, "attributes", lambda: real)
    attr = enums.CUdevice_attribute_enum["CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS"]
    assert call(d, session, "cuDeviceGetAttribute", attr, 0).outs == [0]
    import cffi
    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    raw = call(d, session, "cudaGetDeviceProperties", 0).outs[0]
    p = ffi.new("struct cudaDeviceProp *")
    ffi.memmove(p, raw, ffi.sizeof(p[0]))
    assert (p.managedMemory, p.concurrentManagedAccess, p.pageableMemoryAccess) == (1, 0, 0)


def test_a_pull_sends_the_data_only_when_its_digest_is_not_the_one_named(d, session):
    """rgpuManagedPull: the digest always, the data only when the contents' digest is not the one the
    client named; a change of one byte changes the answer; a range the session does not hold is the
    call's error, no data."""
    r = call(d, session, "cudaMallocManaged", 3 * GRANULE, 1)
    assert r.rc == 0
    addr, mapped = r.outs
    first = call(d, session, "rgpuManagedPull", addr, mapped, None)
    assert first.rc == 0 and len(first.outs[0]) == 16
    assert b"".join(bytes(b) for b in first.bulk) == bytes(mapped)  # zeroed, all of it
    token = first.outs[0]
    same = call(d, session, "rgpuManagedPull", addr, mapped, token)
    assert same.rc == 0 and same.outs == [token] and not same.bulk
    assert call(d, session, "rgpuManagedPull", addr, mapped, b"\0" * 16).bulk  # another digest: the data
    assert call(d, session, "cudaMemset", addr + GRANULE + 5, 7, 1).rc == 0
    changed = call(d, session, "rgpuManagedPull", addr, mapped, token)
    data = b"".join(bytes(b) for b in changed.bulk)
    assert changed.rc == 0 and changed.outs[0] != token and len(data) == mapped
    assert data[GRANULE + 5] == 7 and data.count(0) == mapped - 1
    stray = call(d, session, "rgpuManagedPull", addr + 4 * GRANULE, mapped, None)
    assert stray.rc != 0 and not stray.bulk, stray.message
