"""The cuda backend's compiled launch loop (server/backends/cuda/launches.py, native/launches.c),
without a GPU: messages of launches served by the worker's own _serve on a stand-in driver that records
every cuLaunchKernel it receives, once with the loop and once through Python (RGPU_FAST_LAUNCH=0).
Both must hand the driver the same launches in the same order, with the same parameters, streams and
timing windows, and report the same errors; the loop must stop short of every call it does not
serve (forged, dropped or unknown handles, a sync launch, a refused launch, a sticky error, a GPU the
session does not hold) and leave it to Python.

What only a GPU can confirm: that the real driver takes the loop's launches as it takes Python's."""
from __future__ import annotations

import multiprocessing as mp
import struct

import msgpack
import structlog
import zmq

import pytest

from rgpu.protocol import wire
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.server.backends.cuda import device as cuda_device
from rgpu.server.backends.cuda import compiled, launches
from rgpu.server.backends.cuda.timing import KernelClock
from rgpu.server.errors import CudaError, code_for
from rgpu.server.sched import GpuScheduler
from rgpu.server.worker import _serve
from tests.support import launch_driver
from tests.support.launch_driver import LAUNCH, Served, params


@pytest.fixture(scope="module")
def fake_libcuda(tmp_path_factory):
    return launch_driver.build(tmp_path_factory.mktemp("fakecuda"))


@pytest.fixture
def driver(fake_libcuda, monkeypatch):
    return launch_driver.load(fake_libcuda, monkeypatch)


def both(driver, monkeypatch, script):
    """`script(served)` on a session with the compiled loop and on one without: what each handed the
    driver, how many timing events each recorded, and the session each left."""
    out = []
    for with_loop in (True, False):
        driver.fake_reset()
        sv = Served(driver, monkeypatch, with_loop)
        script(sv)
        out.append((sv, sv.launches(), driver.fake_records()))
    return out


def test_a_message_of_launches_reaches_the_driver_as_through_python(driver, monkeypatch):
    """Both faces, three functions, the default stream and two others, parameters of every size up to
    the loop's buffer: the same launches, in order, and the same timing windows."""
    def script(sv):
        calls = []
        for k in range(300):
            stream = (0, sv.streams[0], sv.streams[1], 1, 2)[k % 5]
            calls.append(sv.launch(sv.fns[k % 3], stream, params(k, 8 + (k * 37) % 4089), grid=(k + 1, 2, 1),
                                   block=(32, k % 4 + 1, 1), shared=k * 16, runtime=k % 2 == 1))
        sv.serve(calls)
        sv.s.settle()
        sv.serve([sv.launch(sv.fns[0], 0, params(1)) for _ in range(10)])  # windows open again after a wait
        sv.s.settle()

    (fast, seen_fast, rec_fast), (slow, seen_slow, rec_slow) = both(driver, monkeypatch, script)
    assert len(seen_fast) == 310 and seen_fast == seen_slow
    assert rec_fast == rec_slow == 2 * 3 + 2  # a window per stream per message: start and end events
    # the loop opens every window in the session's kernel clock itself, the first one too
    assert fast.compiled == 310
    assert fast.s.calls == slow.s.calls == 310 and fast.s.last_seq == slow.s.last_seq == 310
    assert fast.s.face == slow.s.face == "driver"
    assert fast.s.deferred is None and slow.s.deferred is None


def test_launches_between_other_calls_and_after_its_stops(driver, monkeypatch):
    """A message that mixes launches with calls the loop does not serve (a barrier, a sync launch, a
    stream created and destroyed, a launch with parameters past its buffer): each is Python's, and the
    loop takes over again after it."""
    def script(sv):
        calls = []
        for k in range(40):
            calls.append(sv.launch(sv.fns[k % 3], sv.streams[k % 2], params(k)))
            if k % 7 == 3:
                calls.append(sv.call(wire.BARRIER, []))
            if k % 11 == 5:
                calls.append(sv.launch(sv.fns[1], 0, params(k, 32800)))  # parameters past the loop's 32 KiB
        calls.append(sv.launch(sv.fns[2], sv.streams[0], params(99), sync=1))  # a sync launch: its reply
        sv.serve(calls)
        sv.s.settle()

    (fast, seen_fast, rec_fast), (slow, seen_slow, rec_slow) = both(driver, monkeypatch, script)
    assert len(seen_fast) == 40 + 4 + 1 and seen_fast == seen_slow and rec_fast == rec_slow
    assert fast.compiled == 40  # every launch but the four with large parameters and the sync one
    assert fast.sock.sent == slow.sock.sent and len(fast.sock.sent) == 2  # the sync launch's reply only


def test_forged_stale_and_unknown_handles_are_pythons_errors(driver, monkeypatch):
    """A forged function, a destroyed stream, a function handle given as a stream: the loop stops
    before each and Python reports the invalid handle (deferred to the next sync call, as CUDA's async
    errors are); the launches around them run."""
    def script(sv):
        gone = sv.streams[1]
        sv.serve([sv.call(BY_NAME["cuStreamDestroy_v2"], [gone], sync=1)])
        calls = [sv.launch(sv.fns[0], sv.streams[0], params(1)), sv.launch(sv.fns[0], sv.streams[0], params(2)),
                 sv.launch(0x7777, sv.streams[0], params(3)),       # never issued
                 sv.launch(sv.fns[1], sv.streams[0], params(4)),
                 sv.launch(sv.fns[1], gone, params(5)),              # destroyed
                 sv.launch(sv.fns[2], sv.fns[0], params(6)),         # a function is not a stream
                 sv.launch(sv.fns[2], sv.streams[0], params(7))]
        sv.serve(calls)

    (fast, seen_fast, _), (slow, seen_slow, _) = both(driver, monkeypatch, script)
    assert seen_fast == seen_slow and [p[:8] for *_, p in seen_fast] == [params(k)[:8] for k in (1, 2, 4, 7)]
    assert fast.compiled == 4
    assert fast.s.deferred is not None and fast.s.deferred == slow.s.deferred
    assert fast.s.deferred[0] == code_for("driver", "CUDA_ERROR_INVALID_HANDLE")


def test_a_launch_the_driver_refuses_is_reported_as_through_python(driver, monkeypatch):
    """The loop stops at a launch the driver refused and counts it not; Python runs it again and
    reports the driver's error; later launches still run."""
    def script(sv):
        driver.fake_refuse(0xF040)  # fns[1]
        sv.serve([sv.launch(sv.fns[k % 3], 0, params(k)) for k in range(9)])

    (fast, seen_fast, _), (slow, seen_slow, _) = both(driver, monkeypatch, script)
    assert seen_fast == seen_slow and len(seen_fast) == 6
    assert fast.s.deferred == slow.s.deferred and fast.s.deferred[0] == code_for("driver", "CUDA_ERROR_INVALID_VALUE")
    assert fast.compiled == 6  # k = 0, 2, 3, 5, 6, 8 (1, 4, 7 are refused)


def test_out_of_range_arguments_are_never_launched_by_the_loop(driver, monkeypatch):
    """A negative grid, a dimension past 32 bits, parameters that are not bytes: the records' checks and
    cffi's (Python's path) decide, the loop never launches them."""
    def script(sv):
        ok = sv.launch(sv.fns[0], 0, params(0))
        bad = [sv.launch(sv.fns[0], 0, params(1), grid=(-1, 1, 1)),
               sv.launch(sv.fns[0], 0, params(2), block=(1 << 33, 1, 1)),
               sv.call(LAUNCH, [sv.fns[0], 1, 1, 1, 1, 1, 1, 0, 0, "text"])]
        for b in bad:
            sv.serve([ok, b])
            sv.s.deferred = None

    (fast, seen_fast, _), (slow, seen_slow, _) = both(driver, monkeypatch, script)
    assert seen_fast == seen_slow and len(seen_fast) == 3  # the good launch of each message only
    assert fast.compiled == 3  # the good launch of each message


def test_the_loop_takes_the_gpu_first_and_runs_nothing_with_a_sticky_error(driver, monkeypatch):
    sv = Served(driver, monkeypatch, True)
    launch = [sv.launch(sv.fns[0], 0, params(k)) for k in range(5)]
    sv.serve(launch[:1])  # the window is open now
    ctx = mp.get_context("fork")
    sched = GpuScheduler(ctx, 2)
    sched.configure(0, 100, 100)
    sv.s.sched, sv.s.slot = sched, 0
    assert not sv.s._holding
    # the session does not hold the GPU: it takes it before the loop runs, as run_kernel does
    sv.serve(launch[1:])
    assert sv.compiled == 5 and driver.fake_launches() == 5
    assert sched.kernels[0] == 4 and sched.busy.value == -1  # every kernel counted, the GPU given back
    sv.s.sticky = CudaError("CUDA_ERROR_ILLEGAL_ADDRESS", "a kernel faulted")
    sv.serve(launch)
    assert sv.compiled == 5 and driver.fake_launches() == 5  # no launch after the fault
    assert sv.s.hold_for_launches() is False and sched.busy.value == -1  # nor is the GPU taken for one


def test_a_launch_then_synchronize_step_is_the_loops_with_pythons_timing(driver, monkeypatch):
    """The common step, one launch and a synchronize in one message, on a GPU shared through the
    scheduler: every window closes when the client waits, so each step's launch needs a new one. The
    loop opens it in the session's kernel clock: the driver sees the same records and launches in
    the same order as through Python (start event, launch, end event, per step and stream), the
    scheduler counts every kernel, and the device time is counted from the same windows."""
    sync = BY_NAME["cudaStreamSynchronize"]
    ctx = mp.get_context("fork")

    def script(sv):
        sched = GpuScheduler(ctx, 2)
        sched.configure(0, 100, 100)
        sv.s.sched, sv.s.slot = sched, 0
        for k in range(12):  # 12 > the 4 events lent at a time: lending goes on
            stream = (sv.streams[0], 0, sv.streams[1])[k % 3]
            sv.serve([sv.launch(sv.fns[k % 3], stream, params(k), runtime=True), sv.call(sync, [stream], sync=1)])
        sv.sched = sched

    alive = driver.fake_events_alive()
    (fast, seen_fast, rec_fast), (slow, seen_slow, rec_slow) = both(driver, monkeypatch, script)
    assert seen_fast == seen_slow and len(seen_fast) == 12
    assert rec_fast == rec_slow == 2 * 12
    ops = fast.ops()
    assert ops == slow.ops()
    first = fast.dev.launcher.address(fast.s.get("stream", fast.streams[0]))
    assert ops[:3] == [("record", first), ("launch", first), ("record", first)]
    assert fast.compiled == 12
    assert fast.dev.clock.windows == slow.dev.clock.windows == 12
    assert fast.sched.kernels[0] == slow.sched.kernels[0] == 12 and fast.sched.busy.value == -1
    # every synchronize answered (identity frame, reply), and each reply says success
    replies = [wire.unpack(r) for r in fast.sock.sent[1::2]]
    assert len(replies) == 12 and all(r[1] == 0 for r in replies), replies
    # each clock reuses its events (a window's two and the cursor: three, whatever the steps), and the
    # session's end destroys every one of them
    assert 0 < driver.fake_events_alive() - alive <= 2 * 4
    fast.dev.clock.destroy()
    slow.dev.clock.destroy()
    assert driver.fake_events_alive() == alive


def _count_decodes(monkeypatch) -> list:
    """The messages the worker's Python decodes (wire.decode_calls), counted."""
    seen, real = [], wire.decode_calls
    monkeypatch.setattr(wire, "decode_calls", lambda body: seen.append(1) or real(body))
    return seen


def _shared(sv, slots=2):
    sched = GpuScheduler(mp.get_context("fork"), slots)
    for slot in range(slots):
        sched.configure(slot, 100, 100)
    sv.s.sched, sv.s.slot = sched, 0
    return sched


def test_a_step_is_the_loops_before_decoding_with_every_second_charged(driver, monkeypatch):
    """Launches then a wait in one message (the step most programs take), on a GPU no other session
    wants: the loop serves it whole before Python decodes anything. The driver sees what it sees
    through Python, in the same order (start event, launches, end event, synchronize); the scheduler
    counts every kernel and exactly the device time the kernel clock counted, charged as it takes the
    GPU back after the wait; the session counts every call."""
    sync = BY_NAME["cudaStreamSynchronize"]
    decoded = _count_decodes(monkeypatch)

    def script(sv):
        driver.fake_elapsed_ms(0.5)
        sv.sched = _shared(sv)
        decoded.clear()
        for k in range(6):
            stream = (sv.streams[0], 0, sv.streams[1])[k % 3]
            sv.serve([sv.launch(sv.fns[j % 3], stream, params(j), runtime=True) for j in range(k % 3 + 1)]
                     + [sv.call(sync, [stream], sync=1)])
        sv.decoded = len(decoded)

    (fast, seen_fast, rec_fast), (slow, seen_slow, rec_slow) = both(driver, monkeypatch, script)
    assert seen_fast == seen_slow and len(seen_fast) == 12 and rec_fast == rec_slow == 2 * 6
    assert fast.ops() == slow.ops()
    assert fast.decoded == 0 and slow.decoded == 6
    assert fast.compiled == 12 and fast.dev.launcher.waits == 6
    assert fast.sched.kernels[0] == slow.sched.kernels[0] == 12
    assert fast.sched.device_time[0] > 0
    assert fast.sched.device_time[0] == pytest.approx(slow.sched.device_time[0])
    assert fast.sched.device_time[0] == pytest.approx(fast.dev.device_time)
    assert fast.sched.busy.value == -1 and not fast.s._holding
    assert fast.s.calls == slow.s.calls == 18 and fast.s.last_seq == slow.s.last_seq == fast.seq
    assert fast.s.face == slow.s.face == "runtime"
    assert [wire.unpack(r)[:2] for r in fast.sock.sent[1::2]] == [wire.unpack(r)[:2] for r in slow.sock.sent[1::2]]


def test_a_steps_function_attribute_sets_reach_the_driver_as_through_python_and_a_move_takes_the_last(
        driver, monkeypatch):
    """cuDNN's training step: a kernel's dynamic shared memory set for the forward pass and back for the
    backward (async: values the function took before, the client's func_facts.c), a carveout, launches
    and the wait. The loop serves the message whole, its sets included (launches.c attribute_call):
    the driver gets the same sets and launches in the same order as through Python, and what a
    checkpoint or a move takes of each function (function_state) is the last value set, by the loop or
    by Python. A set the driver refuses stops the loop there: Python sets it again and reports the
    error at the wait, as through Python."""
    sync = BY_NAME["cuStreamSynchronize"]
    attr = BY_NAME["cuFuncSetAttribute"]
    size, carveout = 8, 9  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, ..._PREFERRED_SHARED_MEMORY_CARVEOUT
    decoded = _count_decodes(monkeypatch)

    def script(sv):
        sv.sched = _shared(sv)
        s0 = sv.streams[0]
        decoded.clear()
        for k in range(6):
            fwd, bwd = 2048 + 16 * k, 1024
            sv.serve([sv.call(attr, [sv.fns[0], size, fwd]), sv.launch(sv.fns[0], s0, params(k), shared=fwd),
                      sv.call(attr, [sv.fns[1], carveout, 25 + k]), sv.launch(sv.fns[1], s0, params(k)),
                      sv.call(attr, [sv.fns[0], size, bwd]), sv.launch(sv.fns[0], s0, params(k), shared=bwd),
                      sv.call(sync, [s0], sync=1)])
        sv.decoded = len(decoded)
        sv.state = [sv.dev.function_state(sv.s.get("function", f)) for f in sv.fns[:2]]
        # Python's own set (a sync one), then the loop's, then Python's: the last one is kept
        sv.serve([sv.call(attr, [sv.fns[0], size, 4096], sync=1)])
        sv.serve([sv.call(attr, [sv.fns[0], size, 3072]), sv.call(sync, [s0], sync=1)])
        sv.after_loop = sv.dev.function_state(sv.s.get("function", sv.fns[0]))
        sv.serve([sv.call(attr, [sv.fns[0], size, 512], sync=1)])
        sv.after_python = sv.dev.function_state(sv.s.get("function", sv.fns[0]))
        sv.serve([sv.call(attr, [sv.fns[0], size, -1]), sv.launch(sv.fns[0], s0, params(9)),
                  sv.call(sync, [s0], sync=1)])  # refused by the driver: the error comes at the wait
        sv.final = sv.dev.function_state(sv.s.get("function", sv.fns[0]))

    (fast, seen_fast, _), (slow, seen_slow, _) = both(driver, monkeypatch, script)
    assert fast.attributes() == slow.attributes() and len(fast.attributes()) == 6 * 3 + 3
    assert fast.ops() == slow.ops() and seen_fast == seen_slow and len(seen_fast) == 6 * 3 + 1
    assert fast.decoded == 0 and slow.decoded == 6  # the loop served every step whole
    assert fast.compiled == 6 * 3 + 1 and fast.dev.launcher.waits >= 6  # every launch the loop's
    dyn, carve = "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", "CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT"
    for sv in (fast, slow):
        assert sv.state == [{dyn: 1024}, {carve: 30}]
        assert sv.after_loop == {dyn: 3072} and sv.after_python == sv.final == {dyn: 512}
    replies = [wire.unpack(r) for r in fast.sock.sent[1::2]]
    assert replies == [wire.unpack(r) for r in slow.sock.sent[1::2]]
    assert replies[-1][3] == code_for("driver", "CUDA_ERROR_INVALID_VALUE")


def test_a_step_beside_a_session_that_wants_the_gpu_is_pythons(driver, monkeypatch):
    """A neighbour waiting to launch: the step goes through Python, which gives the GPU up before the
    wait (letting the kernels finish first); once nobody wants it, the loop serves steps whole again,
    up to a length."""
    decoded = _count_decodes(monkeypatch)
    sv = Served(driver, monkeypatch, True)
    sched = _shared(sv)
    s0 = sv.streams[0]
    step = [sv.launch(sv.fns[0], s0, params(1)), sv.call(BY_NAME["cuStreamSynchronize"], [s0], sync=1)]
    sched.waiting[1] = 1
    sv.serve(step)
    assert len(decoded) == 1 and sv.compiled == 1 and sched.kernels[0] == 1 and sched.busy.value == -1
    sched.waiting[1] = 0
    sv.serve(step)
    assert len(decoded) == 1 and sv.compiled == 2 and sched.kernels[0] == 2 and sched.busy.value == -1
    # a batch of 40 launches and its wait is a step too (launches.c, STEP_CALLS: the client's largest
    # batch, 256 calls); one of 260 before its wait is not: Python decodes it, and the loop still runs
    # its launches and answers its wait
    sv.serve([sv.launch(sv.fns[0], s0, params(k)) for k in range(40)] + step[1:])
    assert len(decoded) == 1 and sv.compiled == 42 and sched.kernels[0] == 42 and sched.busy.value == -1
    sv.serve([sv.launch(sv.fns[0], s0, params(k)) for k in range(260)] + step[1:])
    assert len(decoded) == 2 and sv.compiled == 302 and sched.kernels[0] == 302 and sched.busy.value == -1
    assert [wire.unpack(r)[1] for r in sv.sock.sent[1::2]] == [0, 0, 0, 0]


def test_a_step_stops_where_python_must_serve(driver, monkeypatch):
    """The loop stops a step at a wait on work not done (its launches run once, Python waits and
    answers) and at a launch the driver refuses (Python runs it again and reports the error at the
    wait, as through Python); a message with a byte after its calls runs nothing and is refused."""
    decoded = _count_decodes(monkeypatch)
    sync = BY_NAME["cuStreamSynchronize"]

    def script(sv):
        sv.sched = _shared(sv)
        s0 = sv.streams[0]
        driver.fake_stream_rc(compiled.address(sv.s.get("stream", s0)), 600, 0)  # busy: queries say not ready
        sv.serve([sv.launch(sv.fns[0], s0, params(1)), sv.launch(sv.fns[1], s0, params(2)),
                  sv.call(sync, [s0], sync=1)])
        driver.fake_stream_rc(1, 0, 0)
        driver.fake_refuse(0xF040)  # fns[1]
        sv.serve([sv.launch(sv.fns[0], 0, params(3)), sv.launch(sv.fns[1], 0, params(4)),
                  sv.launch(sv.fns[2], 0, params(5)), sv.call(sync, [0], sync=1)])
        sv.s.messages += 1
        assert _serve(sv.sock, b"id", [zmq.Frame(wire.pack([sv.launch(sv.fns[0], 0, params(6)),
                                                            sv.call(sync, [0], sync=1)]) + b"\xc0")],
                      sv.s, sv.disp, structlog.get_logger())

    decoded.clear()
    (fast, seen_fast, rec_fast), (slow, seen_slow, rec_slow) = both(driver, monkeypatch, script)
    assert seen_fast == seen_slow and len(seen_fast) == 4 and rec_fast == rec_slow
    assert fast.compiled == 4  # both launches of the first step, and the two the driver took of the second
    replies = [wire.unpack(r) for r in fast.sock.sent[1::2]]
    assert replies == [wire.unpack(r) for r in slow.sock.sent[1::2]]
    assert [r[1] for r in replies[:2]] == [0, 0] and replies[2][1] != 0  # the malformed message is refused
    assert replies[1][3] == code_for("driver", "CUDA_ERROR_INVALID_VALUE")  # the refused launch, at the wait
    # the scheduler counts what Python's path counts (the refused launch too: Python ran it)
    assert fast.sched.kernels[0] == slow.sched.kernels[0] >= 4 and fast.sched.busy.value == -1
    assert fast.s.calls == slow.s.calls


def test_waits_on_streams_that_are_done_are_the_loops_and_the_rest_pythons(driver, monkeypatch):
    """A sync stream synchronize or query whose stream is done is answered by the loop: success, the
    call's face, the device's printf output in the reply, one cuStreamSynchronize made (the driver
    prints there). A busy stream, a forged handle, a pending deferred error, an async query: Python's,
    with Python's answer."""
    sv = Served(driver, monkeypatch, True)
    ids = dict(zip(("cuStreamQuery", "cudaStreamQuery", "cuStreamSynchronize", "cudaStreamSynchronize"),
                   launches.WAIT_IDS))
    s0 = sv.streams[0]
    monkeypatch.setattr(sv.dev, "take_output", lambda pending=-1: "printed\n")

    def replies():
        out = [wire.unpack(r) for r in sv.sock.sent[1::2]]
        sv.sock.sent.clear()
        return out

    sv.serve([sv.launch(sv.fns[0], s0, params(1)), sv.call(ids["cudaStreamSynchronize"], [s0], sync=1)])
    assert sv.dev.launcher.waits == 1 and driver.fake_syncs() == 1 and sv.s.face == "runtime"
    (r,) = replies()
    assert r[1] == 0 and r[5] == "printed\n" and r[0] == sv.seq
    sv.serve([sv.call(ids["cuStreamQuery"], [0], sync=1), sv.call(ids["cuStreamSynchronize"], [2], sync=1)])
    assert sv.dev.launcher.waits == 3 and driver.fake_syncs() == 2 and sv.s.face == "driver"
    assert [r[1] for r in replies()] == [0, 0]
    assert sv.s.calls == 4
    # Python's: a busy stream (a query answers not ready, a synchronize waits), a forged handle, an
    # async query, a deferred error to report
    driver.fake_stream_rc(compiled.address(sv.s.get("stream", s0)), 600, 0)
    sv.serve([sv.call(ids["cudaStreamQuery"], [s0], sync=1), sv.call(ids["cuStreamSynchronize"], [s0], sync=1),
              sv.call(ids["cuStreamSynchronize"], [0x9999], sync=1), sv.call(ids["cuStreamQuery"], [0])])
    assert sv.dev.launcher.waits == 3
    assert [r[1] for r in replies()] == [code_for("runtime", "CUDA_ERROR_NOT_READY"), 0,
                                        code_for("driver", "CUDA_ERROR_INVALID_HANDLE")]
    sv.serve([sv.launch(0x7777, 0, params(2)), sv.call(ids["cuStreamSynchronize"], [0], sync=1)])
    (r,) = replies()
    assert sv.dev.launcher.waits == 3 and r[1] == 0 and r[3] == code_for("driver", "CUDA_ERROR_INVALID_HANDLE")
    # alone in its message: answered before Python decodes anything, but only a well-formed message
    s1 = sv.streams[1]
    sv.serve([sv.call(ids["cudaStreamSynchronize"], [s1], sync=1)])
    (r,) = replies()
    assert sv.dev.launcher.waits == 4 and r[1] == 0 and r[0] == sv.seq and sv.s.last_seq == sv.seq
    lone = [sv.seq + 1, ids["cuStreamSynchronize"], 1, [s1], 0]
    for frames in ([wire.pack([lone]) + b"\xc0"],  # a byte past the message
                   [wire.pack([lone[:4] + [1]]), b"data"],  # a bulk frame it claims
                   [wire.pack([lone + [[[0, 8], 0]]])]):  # a shared-memory entry
        sv.s.messages += 1
        assert _serve(sv.sock, b"id", [zmq.Frame(f) for f in frames], sv.s, sv.disp, structlog.get_logger())
        (r,) = replies()
        assert sv.dev.launcher.waits == 4 and r[1] != 0, r  # Python's answer: each is refused
    sv.s.deferred = None
    # a stream whose kernel ends a moment after the wait comes (three queries later): a synchronize
    # polls it and is the loop's; a query answers at once, not ready, as the driver's does (Python's)
    driver.fake_stream_rc(1, 0, 0)
    a1 = compiled.address(sv.s.get("stream", s1))
    driver.fake_stream_ends_after(a1, 3)
    before = driver.fake_queries()
    sv.serve([sv.launch(sv.fns[0], s1, params(3)), sv.call(ids["cuStreamSynchronize"], [s1], sync=1)])
    assert sv.dev.launcher.waits == 5 and driver.fake_queries() - before == 4 and replies()[0][1] == 0
    driver.fake_stream_ends_after(a1, 3)
    sv.serve([sv.call(ids["cudaStreamQuery"], [s1], sync=1)])
    assert sv.dev.launcher.waits == 5 and replies()[0][1] == code_for("runtime", "CUDA_ERROR_NOT_READY")


def test_the_loop_is_off_when_asked_and_when_its_library_is_missing(driver, monkeypatch):
    clock = KernelClock(cuda_device._load(), cuda_device.ffi(), cuda_device._check)
    monkeypatch.setenv("RGPU_FAST_LAUNCH", "0")
    assert launches.make(cuda_device.ffi(), cuda_device._load(), clock) is None
    monkeypatch.setenv("RGPU_FAST_LAUNCH", "1")
    assert launches.make(cuda_device.ffi(), cuda_device._load(), clock) is not None
    monkeypatch.setattr(compiled, "_lib", None)
    monkeypatch.setattr(compiled, "_unavailable", "no such library")
    assert launches.make(cuda_device.ffi(), cuda_device._load(), clock) is None
    # the kernel clock has no Python form: without its library the backend says what is missing
    with pytest.raises(OSError, match="librgpu_launches.so.*no such library"):
        KernelClock(cuda_device._load(), cuda_device.ffi(), cuda_device._check)


def test_handles_survive_the_tables_growth_and_removals(driver, monkeypatch):
    """Thousands of handles issued and most dropped (the table rehashes and reuses removed slots):
    the live ones still launch from the loop, the dropped ones never do."""
    sv = Served(driver, monkeypatch, True)
    ffi = cuda_device.ffi()
    fns = [sv.s.new_handle("function", ffi.cast("CUfunction", 0x100000 + 0x10 * k)) for k in range(3000)]
    for h in fns[::3] + fns[1::3]:
        sv.s.drop("function", h)
    live = fns[2::3]
    sv.serve([sv.launch(sv.fns[0], 0, params(0))] + [sv.launch(h, 0, params(1)) for h in live])
    assert sv.compiled == 1 + len(live)  # the first launch too: the loop opens its window
    sv.serve([sv.launch(fns[0], 0, params(2)), sv.launch(live[0], 0, params(3))])
    assert driver.fake_launches() == 1 + len(live) + 1 and sv.s.deferred is not None
    assert sv.launches()[-1][0] == 0x100000 + 0x10 * 2


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_messages_reach_the_driver_as_through_python(driver, monkeypatch, seed):
    """Messages of random calls — launches of both faces on every kind of stream, launches with bad
    handles, values or parameters, launches in clusters good and bad, sync launches, barriers, streams destroyed and created between
    messages, stream queries and synchronizes of streams done, busy or failing — served with the loop
    and without it: the same launches, events, replies and errors."""
    import random

    def script(sv):
        rng = random.Random(seed)
        for _ in range(12):
            calls = []
            for _ in range(rng.randrange(1, 120)):
                r = rng.random()
                stream = rng.choice([0, 1, 2, *sv.streams, 0x9999])
                fn = rng.choice([*sv.fns, *sv.fns, 0x7777])
                if r < 0.8:
                    calls.append(sv.launch(fn, stream, params(rng.randrange(1000), rng.choice([0, 8, 24, 4096, 4100, 25776, 32768, 32800])),
                                           grid=(rng.choice([1, 7, -1, 1 << 32]), 1, 1), runtime=rng.random() < 0.5,
                                           sync=int(rng.random() < 0.05)))
                elif r < 0.85:  # in clusters, some of which do not divide the grid or name no policy CUDA has
                    g = rng.choice([1, 4, 6, 8])
                    cluster = rng.choice([(0, 0, 0, 0), (2, 1, 1, 0), (4, 1, 1, 1), (3, 1, 1, 0), (0, 0, 0, 2),
                                          (0, 1, 0, 0), (2, 0, 1, 0), (1, 1, 1, 3)])
                    calls.append(sv.call(BY_NAME["cuLaunchKernelEx"],
                                         [fn, g, 1, 1, 32, 1, 1, 0, stream, *cluster, params(rng.randrange(1000))],
                                         sync=int(rng.random() < 0.05)))
                elif r < 0.9:
                    calls.append(sv.call(wire.BARRIER, [], sync=int(rng.random() < 0.5)))
                elif r < 0.95:
                    calls.append(sv.call(LAUNCH, [fn, 1, 1, 1, 1, 1, 1, 0, stream, None]))
                else:  # a wait: the loop answers the sync ones whose stream is done
                    calls.append(sv.call(rng.choice(launches.WAIT_IDS), [stream], sync=int(rng.random() < 0.8)))
            # one stream still busy, or failing its synchronize: those waits are Python's
            odd = compiled.address(sv.s.get("stream", rng.choice(sv.streams)))
            driver.fake_stream_rc(odd, *rng.choice([(600, 0), (600, 0), (0, 0), (0, 999), (600, 999)]))
            sv.serve(calls)
            if rng.random() < 0.3:  # a wait alone in its message
                sv.serve([sv.call(rng.choice(launches.WAIT_IDS), [rng.choice([0, *sv.streams, 0x9999])],
                                  sync=int(rng.random() < 0.9))])
            if rng.random() < 0.3:
                sv.s.settle()
            if rng.random() < 0.2:
                gone = sv.streams.pop(rng.randrange(len(sv.streams)))
                sv.serve([sv.call(BY_NAME["cuStreamDestroy_v2"], [gone], sync=1)])
                sv.streams.append(sv.s.new_handle("stream", sv.dev.stream_create(0, 0)))
            if rng.random() < 0.2:
                sv.s.deferred = None

    (fast, seen_fast, rec_fast), (slow, seen_slow, rec_slow) = both(driver, monkeypatch, script)
    assert seen_fast == seen_slow and rec_fast == rec_slow
    assert fast.sock.sent == slow.sock.sent
    assert fast.s.deferred == slow.s.deferred and fast.s.calls == slow.s.calls and fast.s.last_seq == slow.s.last_seq
    assert fast.s.face == slow.s.face and (fast.s.sticky is None) == (slow.s.sticky is None)
    assert fast.compiled > 0 and fast.dev.launcher.waits > 0


def test_a_cluster_launch_reaches_the_driver_with_its_cluster(driver, monkeypatch):
    """cuLaunchKernelEx messages (thread-block clusters: cuBLASLt's matmuls) are the loop's as plain
    launches are, through Python without it: the driver gets cuLaunchKernelEx with the cluster
    dimension and scheduling policy attributes, between plain launches, in order; a cluster that does
    not divide the grid, or a policy CUDA does not know, is refused before the driver sees it, by
    Python either way (sync: in its reply; async: at the next sync call, as every deferred error), and
    the cluster occupancy questions are the driver's answers."""
    ex = BY_NAME["cuLaunchKernelEx"]
    deferred = {}
    for with_loop in (True, False):
        driver.fake_reset()
        sv = Served(driver, monkeypatch, with_loop)
        fn, st = sv.fns[1], sv.streams[0]
        calls = [sv.launch(sv.fns[0], st, params(1)),
                 sv.call(ex, [fn, 8, 2, 1, 128, 1, 1, 256, st, 2, 1, 1, 1, params(2)]),
                 sv.call(ex, [fn, 8, 1, 1, 64, 1, 1, 0, st, 0, 0, 0, 2, params(3)]),
                 sv.launch(sv.fns[0], st, params(4))]
        sv.serve(calls)
        sv.s.settle()
        got = sv.launches()
        assert [g[3] for g in got] == [params(k) for k in (1, 2, 3, 4)]
        assert got[1][2] == (8, 2, 1, 128, 1, 1, 256) and got[1][4] == (2, 1, 1, 1)
        assert got[2][4] == (0, 0, 0, 2) and len(got[0]) == len(got[3]) == 4  # plain launches: no cluster
        assert sv.compiled == (4 if with_loop else 0)  # the loop's, cluster launches too
        assert replies(sv, [sv.call(ex, [fn, 8, 1, 1, 64, 1, 1, 0, st, 3, 1, 1, 0, params(5)], sync=1)]) == [
            (code_for("driver", "CUDA_ERROR_INVALID_CLUSTER_SIZE"), [])]
        assert driver.fake_launches() == 4  # 3 does not divide 8: refused in the server
        # async, after a launch the loop runs: the bad one (a policy past CUDA's) is Python's, deferred
        sv.serve([sv.launch(sv.fns[0], st, params(6)), sv.call(ex, [fn, 8, 1, 1, 64, 1, 1, 0, st, 0, 0, 0, 7, params(7)])])
        assert driver.fake_launches() == 5 and sv.compiled == (5 if with_loop else 0)
        deferred[with_loop] = sv.s.deferred
    assert deferred[True] == deferred[False] and deferred[True] is not None
    occ = [fn, 8, 1, 1, 128, 1, 1, 0, 4, 1, 1, 0]
    assert replies(sv, [sv.call(BY_NAME["cuOccupancyMaxActiveClusters"], occ, sync=1),
                        sv.call(BY_NAME["cuOccupancyMaxPotentialClusterSize"], occ, sync=1)]) == [(0, [132 // 4]), (0, [8])]


def replies(sv, calls) -> list[tuple[int, list]]:
    """(status, results) of each reply `calls` got."""
    sent = len(sv.sock.sent)
    sv.serve(calls)
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    for m in sv.sock.sent[sent:]:
        unpacker.feed(m)
    return [(r[1], r[2]) for r in unpacker if isinstance(r, list)]  # [seq, status, results, ...]


def test_occupancy_is_the_drivers_answer(driver, monkeypatch):
    """On a real GPU the occupancy questions (and the cooperative launch's fit) are answered by the
    driver's calculator, which knows the GPU's allocation rules, not by the server's formula (the
    stand-in's device attributes are zeros: the formula would say 0)."""
    sv = Served(driver, monkeypatch, False)
    fn = sv.fns[0]
    assert replies(sv, [sv.call(BY_NAME["cuOccupancyMaxActiveBlocksPerMultiprocessor"], [fn, 256, 0], sync=1),
                        sv.call(BY_NAME["cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags"], [fn, 128, 64, 1],
                                sync=1)]) == [(0, [6]), (0, [11])]


def test_a_moved_variables_old_address_in_the_parameters_reaches_the_driver_where_the_variable_is(driver, monkeypatch):
    """After a move the program still holds a module variable's old address (aliases.py): each 8-byte
    word of a launch's parameters inside it is rewritten to where the variable is now, by the loop as
    by Python; a word just past the variable, or unaligned, or any other value, is left as it is."""
    held, here, size = 0x7F00_0000_1000, 0x3450_0000_2000, 112

    def script(sv):
        sv.dev._alias_add(1, "deviceConstants", held, here, size)
        calls = [sv.launch(sv.fns[0], 0, struct.pack("<QQQ", held, held + 104, 5)),
                 sv.launch(sv.fns[1], sv.streams[0], struct.pack("<iiQQ", 1, 2, held + size, held + 8)),
                 sv.launch(sv.fns[2], 0, b"\0\0\0\0" + struct.pack("<Q", held) + b"\0\0\0\0"),  # unaligned: a struct's bytes
                 sv.launch(sv.fns[0], 0, params(3))]
        sv.serve(calls)
        sv.s.settle()

    (fast, seen_fast, _), (_, seen_slow, _) = both(driver, monkeypatch, script)
    assert fast.compiled == 4 and seen_fast == seen_slow
    got = [p for *_, p in seen_fast]
    assert struct.unpack("<QQQ", got[0]) == (here, here + 104, 5)
    assert struct.unpack("<iiQQ", got[1]) == (1, 2, held + size, here + 8)
    assert got[2] == b"\0\0\0\0" + struct.pack("<Q", held) + b"\0\0\0\0" and got[3] == params(3)
