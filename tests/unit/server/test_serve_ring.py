"""The compiled serving loop (server/native/serve.c through CallRing.serve) on a ring of this process's
own and a cuda session over the stand-in driver (tests/support/launch_driver.py), the client's part
written here as libhook's ring.c writes it: what it serves itself and answers on the ring, when it
yields to Python (the housekeeping deadline, nothing to do), what it hands over (a call it does not
serve, from its own copy of the message), and a wait whose reply must carry device printf output the
capture already holds, which it answers but leaves the reply to Python."""
from __future__ import annotations

import os
import time

import pytest

from rgpu.protocol import wire
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.server.loop_served import loop_served
from rgpu.server.backends.cuda import compiled
from rgpu.server.backends.cuda import device as cuda_device
from rgpu.server.ring import ANSWERED, IDLE, RING, YIELD
from tests.support import launch_driver
from tests.support.launch_driver import Served
from tests.unit.server.test_ring import Sock, _get, _request
from tests.unit.server.test_ring import ring as ring  # noqa: F401  (the fixture)



@pytest.fixture(scope="module")
def fake_libcuda(tmp_path_factory):
    return launch_driver.build(tmp_path_factory.mktemp("fakecuda"))


@pytest.fixture
def served(fake_libcuda, monkeypatch):
    return Served(launch_driver.load(fake_libcuda, monkeypatch), monkeypatch, True)


def _reply(r) -> bytes:
    n = _get(r, "rep_len")
    start = r.offset + r.lay["size"] - (64 << 10)
    return bytes(r.seg._mm[start:start + n])


def _serve(r, sv, until_s: float = 0.02):
    return r.serve(sv.dev.launcher.loop, 0.0, 0.0, 0.05, time.monotonic() + until_s, sv.s)


def test_a_wait_is_served_and_answered_then_the_loop_yields_at_its_deadline(ring, served):
    _request(ring, wire.encode_requests([(7, BY_NAME["cudaStreamSynchronize"], 1, [0], 0)]))
    before = _get(ring, "rep_seq")
    got, body = _serve(ring, served)
    assert (got, body) == (YIELD, None)
    assert _get(ring, "rep_seq") == before + 1 and _reply(ring) == wire.encode_reply(7, 0)
    assert ring.state.served == 1 and ring.compiled == 1 and ring.handed == 0
    assert loop_served(Sock(), b"id", ring, served.s, served.dev.launcher, got)
    assert (served.s.calls, served.s.messages, served.s.last_seq) == (1, 1, 7)
    assert served.dev.launcher.waits == 1 and served.s.face == "runtime"


def test_nothing_to_do_is_idle_and_a_call_it_does_not_serve_is_handed_over(ring, served):
    got, body = _serve(ring, served)
    assert (got, body) == (IDLE, None)
    msg = wire.encode_requests([(8, BY_NAME["cudaMalloc"], 1, [4096], 0)])
    _request(ring, msg)
    got, body = _serve(ring, served)
    assert got == RING and bytes(body[0]) == msg
    assert ring.state.served == 0 and ring.handed == 1 and ring.compiled == 0


def test_output_the_printf_capture_holds_leaves_the_reply_to_python(ring, served, monkeypatch):
    flag = compiled.ffi.new("int *", 1)
    address = int(compiled.ffi.cast("uintptr_t", flag))
    monkeypatch.setattr(cuda_device.CudaDevice, "printf_buffered", property(lambda self: address))
    monkeypatch.setattr(cuda_device.CudaDevice, "take_output", lambda self, pending=-1: "hello from the GPU\n")
    r, w = os.pipe()  # the capture's pipe, empty: the output is in the capture's buffer already
    served.dev.launcher.printf_fd(r)
    _request(ring, wire.encode_requests([(9, BY_NAME["cuStreamSynchronize"], 1, [0], 0)]))
    before = _get(ring, "rep_seq")
    got, _ = _serve(ring, served)
    assert got == ANSWERED and ring.state.replied == 0
    assert _get(ring, "rep_seq") == before  # nothing sent yet: Python's reply carries the output
    assert loop_served(Sock(), b"id", ring, served.s, served.dev.launcher, got)
    assert _reply(ring) == wire.encode_reply(9, 0, output="hello from the GPU\n")
    assert (served.s.calls, served.s.messages, served.s.last_seq, served.s.face) == (1, 1, 9, "driver")
    # the flag down: the loop answers the next one itself
    flag[0] = 0
    _request(ring, wire.encode_requests([(10, BY_NAME["cuStreamSynchronize"], 1, [0], 0)]))
    got, _ = _serve(ring, served)
    assert got == YIELD and _reply(ring) == wire.encode_reply(10, 0)
    # and output in the pipe itself: Python's again
    os.write(w, b"x")
    _request(ring, wire.encode_requests([(11, BY_NAME["cuStreamSynchronize"], 1, [0], 0)]))
    got, _ = _serve(ring, served)
    assert got == ANSWERED and ring.state.wait.pending == 1
    os.close(r)
    os.close(w)
