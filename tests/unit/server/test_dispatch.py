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
    r = call(dispatcher, session, "cuDeviceGetLuid", 0)  # its record: not served by the sim
    assert r.rc == enums.cudaError_enum["CUDA_ERROR_NOT_SUPPORTED"] and "cuDeviceGetLuid" in r.message


def test_a_sticky_fault_poisons_the_session(dispatcher, session, monkeypatch):
    def boom(*a):
        raise SimFault("CUDA_ERROR_ILLEGAL_ADDRESS", "kernel wrote at 0x10")
    monkeypatch.setattr(session.device, "synchronize", boom)
    assert call(dispatcher, session, "cudaDeviceSynchronize").rc == 700
    assert call(dispatcher, session, "cudaMalloc", 16).rc == 700
    assert call(dispatcher, session, "cuMemAlloc_v2", 16).rc == 700
