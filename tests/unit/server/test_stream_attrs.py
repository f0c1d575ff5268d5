"""Stream attributes on the software GPU, at the dispatcher (server/backends/sim/stream_attrs.py):
CUDA's defaults, what is set is read back, values CUDA refuses are refused, the priority is the
stream's own, attributes copy between streams, and launch-only attributes are not a stream's."""
from __future__ import annotations

import struct

import pytest

from rgpu.protocol.generated import enums
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.server.backends.sim.device import SimDevice
from rgpu.server.dispatch import Dispatcher
from rgpu.server.session import Session

NAMES = {v: k for k, v in enums.cudaError_enum.items()}
WINDOW, SYNC, COOPERATIVE, PRIORITY, DOMAIN_MAP, DOMAIN = 1, 3, 2, 8, 9, 10
VALUE = 64


def value(fmt: str, *fields) -> bytes:
    return struct.pack(fmt, *fields).ljust(VALUE, b"\0")


@pytest.fixture(scope="module")
def d():
    return Dispatcher("sim")


@pytest.fixture
def s():
    session = Session(SimDevice(16 << 20), "attrs")
    yield session
    session.close()


def call(d, s, name, *args):
    r = d.run(s, BY_NAME[name], list(args), [])
    return NAMES[r.rc], (r.outs[0] if r.outs else None)


def ok(d, s, name, *args):
    rc, out = call(d, s, name, *args)
    assert rc == "CUDA_SUCCESS", rc
    return out


def test_a_new_stream_has_cudas_defaults(d, s):
    st = ok(d, s, "cuStreamCreateWithPriority", 0, -2)
    assert ok(d, s, "cuStreamGetAttribute", st, WINDOW) == bytes(VALUE)
    assert ok(d, s, "cuStreamGetAttribute", st, SYNC) == value("<i", 1)  # CU_SYNC_POLICY_AUTO
    assert ok(d, s, "cuStreamGetAttribute", st, PRIORITY) == value("<i", -2)
    assert ok(d, s, "cuStreamGetAttribute", st, DOMAIN_MAP) == value("<BB", 0, 1)
    assert ok(d, s, "cuStreamGetAttribute", st, DOMAIN) == bytes(VALUE)
    assert ok(d, s, "cuStreamGetAttribute", 0, PRIORITY) == bytes(VALUE), "the default stream's"


def test_what_is_set_is_read_back_and_what_cuda_refuses_is_refused(d, s):
    st = ok(d, s, "cuStreamCreate", 0)
    window = value("<QQfii", 0x200000000000, 1 << 20, 0.5, 2, 1)
    ok(d, s, "cuStreamSetAttribute", st, WINDOW, window)
    assert ok(d, s, "cuStreamGetAttribute", st, WINDOW) == window
    for bad in (value("<QQfii", 0, 1 << 40, 0.5, 2, 1), value("<QQfii", 0, 64, 1.5, 2, 1),
                value("<QQfii", 0, 64, 0.5, 7, 1)):
        assert call(d, s, "cuStreamSetAttribute", st, WINDOW, bad)[0] == "CUDA_ERROR_INVALID_VALUE"
    assert ok(d, s, "cuStreamGetAttribute", st, WINDOW) == window, "a refused value changes nothing"
    ok(d, s, "cudaStreamSetAttribute", st, SYNC, value("<i", 4))
    assert ok(d, s, "cudaStreamGetAttribute", st, SYNC) == value("<i", 4)
    assert call(d, s, "cuStreamSetAttribute", st, SYNC, value("<i", 9))[0] == "CUDA_ERROR_INVALID_VALUE"
    assert call(d, s, "cuStreamSetAttribute", st, DOMAIN, value("<i", 3))[0] == "CUDA_ERROR_INVALID_VALUE"
    assert call(d, s, "cuStreamGetAttribute", st, COOPERATIVE)[0] == "CUDA_ERROR_INVALID_VALUE", "a launch's"
    assert call(d, s, "cuStreamGetAttribute", 0x7777, SYNC)[0] == "CUDA_ERROR_INVALID_HANDLE"


def test_the_priority_is_the_streams_own(d, s):
    st = ok(d, s, "cuStreamCreate", 0)
    ok(d, s, "cuStreamSetAttribute", st, PRIORITY, value("<i", -3))
    assert ok(d, s, "cuStreamGetPriority", st) == -3
    ok(d, s, "cuStreamSetAttribute", st, PRIORITY, value("<i", -99))
    assert ok(d, s, "cuStreamGetPriority", st) == -5, "clamped into the device's range"
    assert call(d, s, "cuStreamSetAttribute", 0, PRIORITY, value("<i", -1))[0] == "CUDA_ERROR_INVALID_VALUE"


def test_attributes_copy_between_streams(d, s):
    a, b = ok(d, s, "cuStreamCreateWithPriority", 0, -4), ok(d, s, "cuStreamCreate", 0)
    ok(d, s, "cuStreamSetAttribute", a, SYNC, value("<i", 3))
    ok(d, s, "cuStreamSetAttribute", a, DOMAIN_MAP, value("<BB", 1, 0))
    ok(d, s, "cuStreamCopyAttributes", b, a)
    for attr in (WINDOW, SYNC, PRIORITY, DOMAIN_MAP, DOMAIN):
        assert ok(d, s, "cuStreamGetAttribute", b, attr) == ok(d, s, "cuStreamGetAttribute", a, attr), attr
