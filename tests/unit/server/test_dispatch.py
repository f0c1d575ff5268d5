"""Dispatch through the generated call table onto a software-GPU session: argument checks,
handles, error numbering per face, sticky faults."""
from __future__ import annotations

import pytest

from rgpu.protocol.generated import enums
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.server.dispatch import Dispatcher
from rgpu.server.session import Session
from rgpu.server.backends.sim.device import SimDevice
from rgpu.server.backends.sim.errors import SimFault


@pytest.fixture
def session():
    s = Session(SimDevice(1 << 24))
    yield s
    s.close()


@pytest.fixture(scope="module")
def dispatcher():
    return Dispatcher()


def call(d, s, name, *args, bulk=()):
    return d.run(s, BY_NAME[name], list(args), list(bulk))


def test_alloc_copy_free(dispatcher, session):
    r = call(dispatcher, session, "cudaMalloc", 4096)
    assert r.rc == 0
    (addr,) = r.outs
    assert call(dispatcher, session, "cudaMemcpy", addr, 0, 5, 1, bulk=[b"hello"]).rc == 0
    r = call(dispatcher, session, "cudaMemcpy", 0, addr, 5, 2)
    assert r.rc == 0 and bytes(r.bulk[0]) == b"hello"
    assert call(dispatcher, session, "cudaFree", addr).rc == 0
    assert call(dispatcher, session, "cudaFree", addr).rc == enums.cudaError["cudaErrorInvalidValue"]


def test_wrong_argument_types_are_refused(dispatcher, session):
    r = call(dispatcher, session, "cudaMalloc", "lots")
    assert r.rc == enums.cudaError["cudaErrorInvalidValue"] and "arguments" in r.message


def test_forged_handles_are_invalid_handle_in_each_face(dispatcher, session):
    assert call(dispatcher, session, "cudaStreamSynchronize", 0xBAD0).rc == \
        enums.cudaError["cudaErrorInvalidResourceHandle"]
    assert call(dispatcher, session, "cuStreamSynchronize", 0xBAD0).rc == \
        enums.cudaError_enum["CUDA_ERROR_INVALID_HANDLE"]
    # an event handle is not a stream
    (ev,) = call(dispatcher, session, "cudaEventCreate").outs
    assert call(dispatcher, session, "cudaStreamSynchronize", ev).rc != 0


def test_unknown_call_id_and_unimplemented_calls(dispatcher, session):
    assert dispatcher.run(session, 123, [], []).rc == enums.cudaError_enum["CUDA_ERROR_NOT_SUPPORTED"]
    r = call(dispatcher, session, "cuMemPoolDestroy", 0x1000)  # its record: not served by the sim
    assert r.rc == enums.cudaError_enum["CUDA_ERROR_NOT_SUPPORTED"] and "cuMemPoolDestroy" in r.message


def test_a_sticky_fault_poisons_the_session(dispatcher, session, monkeypatch):
    def boom(*a):
        raise SimFault("CUDA_ERROR_ILLEGAL_ADDRESS", "kernel wrote at 0x10")
    monkeypatch.setattr(session.device, "synchronize", boom)
    assert call(dispatcher, session, "cudaDeviceSynchronize").rc == 700
    assert call(dispatcher, session, "cudaMalloc", 16).rc == 700
    assert call(dispatcher, session, "cuMemAlloc_v2", 16).rc == 700


def test_default_memory_pool_counts_stream_ordered_allocations(dispatcher, session):
    """The default pool cudaMallocAsync allocates from (api/pools.py): one handle per session, its
    settings kept, its counters those of the live stream-ordered allocations (reserved = used)."""
    (pool,) = call(dispatcher, session, "cudaDeviceGetDefaultMemPool", 0).outs
    assert call(dispatcher, session, "cuDeviceGetMemPool", 0).outs == [pool]
    used = lambda: call(dispatcher, session, "cuMemPoolGetAttribute", pool, 7).outs[0]  # noqa: E731
    assert used() == 0
    (a,) = call(dispatcher, session, "cudaMallocAsync", 1000, 0).outs
    (b,) = call(dispatcher, session, "cuMemAllocAsync", 24, 0).outs
    assert used() == 1024 and call(dispatcher, session, "cuMemPoolGetAttribute", pool, 5).outs == [1024]
    assert call(dispatcher, session, "cudaFreeAsync", a, 0).rc == 0
    assert used() == 24 and call(dispatcher, session, "cuMemPoolGetAttribute", pool, 8).outs == [1024]  # high
    assert call(dispatcher, session, "cuMemPoolSetAttribute", pool, 8, 0).rc == 0  # high-water marks reset
    assert call(dispatcher, session, "cuMemPoolGetAttribute", pool, 8).outs == [24]
    # the release threshold and the reuse policies are kept as set
    assert call(dispatcher, session, "cuMemPoolSetAttribute", pool, 4, 2**64 - 1).rc == 0
    assert call(dispatcher, session, "cuMemPoolGetAttribute", pool, 4).outs == [2**64 - 1]
    assert call(dispatcher, session, "cuMemPoolSetAttribute", pool, 2, 0).rc == 0
    assert call(dispatcher, session, "cuMemPoolGetAttribute", pool, 2).outs == [0]
    # counters cannot be set; unknown attributes and handles are refused
    invalid = enums.cudaError_enum["CUDA_ERROR_INVALID_VALUE"]
    assert call(dispatcher, session, "cuMemPoolSetAttribute", pool, 7, 5).rc == invalid
    assert call(dispatcher, session, "cuMemPoolGetAttribute", pool, 99).rc == invalid
    assert call(dispatcher, session, "cuMemPoolGetAttribute", 0xBAD0, 7).rc == \
        enums.cudaError_enum["CUDA_ERROR_INVALID_HANDLE"]
    assert call(dispatcher, session, "cudaMemPoolTrimTo", pool, 0).rc == 0
    assert call(dispatcher, session, "cuMemFreeAsync", b, 0).rc == 0 and used() == 0
