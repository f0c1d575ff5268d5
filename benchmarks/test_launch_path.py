"""The worker's own cost per kernel launch on the cuda backend (issue 14: "move the hot loop into
compiled code"), without a GPU: messages of 1,000 async launches served by the worker's _serve on a
stand-in driver whose cuLaunchKernel only records the launch (tests/support/launch_driver.py), with the
compiled launch loop (server/backends/cuda/launches.py) and through Python (RGPU_FAST_LAUNCH=0), in one
run, alternately, best of transport.ROUNDS rounds each. Recorded as "launch path (cuda stand-in)" with rgpu = the
compiled loop and raw = Python, in thousands of launches a second.

On a GPU the driver's own cost is added to both (about 3.8 µs a launch at the 264 k/s an H100 host
launches natively): this is what rgpu's server adds on top of it."""
from __future__ import annotations

import multiprocessing
import time

import pytest

from benchmarks.transport import alternately
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.server.sched import GpuScheduler
from tests.support import launch_driver
from tests.support.launch_driver import Served, params

LAUNCHES = 1000
MESSAGES = 20


@pytest.fixture(scope="module")
def stand_in(tmp_path_factory):
    return launch_driver.build(tmp_path_factory.mktemp("launch_driver"))


def _rate(sv: Served) -> dict:
    """{"rate": launches a second}, serving MESSAGES messages of LAUNCHES launches (decode, dispatch,
    launch)."""
    stream = sv.streams[0]
    message = [sv.launch(sv.fns[k % 3], stream, params(k)) for k in range(LAUNCHES)]
    sv.serve(message)  # warm: windows, caches
    sv.s.settle()
    t0 = time.perf_counter()
    for _ in range(MESSAGES):
        sv.serve(message)
        sv.s.settle()  # as the worker does after each message
    return {"rate": LAUNCHES * MESSAGES / (time.perf_counter() - t0) / 1e3}


def test_launch_path_compiled_vs_python(benchmark, stand_in, monkeypatch, figures):
    fake = launch_driver.load(stand_in, monkeypatch)

    def measure(compiled: bool) -> dict:
        fake.fake_reset()
        got = _rate(Served(fake, monkeypatch, compiled=compiled))
        assert fake.fake_launches() == LAUNCHES * (MESSAGES + 1)
        return got
    got = alternately(benchmark, {"compiled": lambda: measure(True), "python": lambda: measure(False)}, "rate")
    compiled, python = got["compiled"], got["python"]
    figures["launch path (cuda stand-in)"] = {"rgpu": compiled, "raw": python, "unit": "k launches/s"}
    benchmark.extra_info.update(compiled_k_per_s=compiled, python_k_per_s=python, unit="k launches/s",
                                compiled_us=1e3 / compiled, python_us=1e3 / python, speedup=compiled / python)


STEPS = 5000


def _step_rate(sv: Served, launches: int) -> dict:
    """{"rate": messages a second} of `launches` launches and a synchronize on one stream, the step a
    program takes when it launches and waits, on a GPU shared through the scheduler (the worker's
    own): every window closes when the client waits, so each message opens one again."""
    sched = GpuScheduler(multiprocessing.get_context("fork"), 4)
    sched.configure(0, 100, 100)
    sv.s.sched, sv.s.slot = sched, 0
    stream = sv.streams[0]
    message = [sv.launch(sv.fns[k % 3], stream, params(k), runtime=True) for k in range(launches)]
    message.append(sv.call(BY_NAME["cudaStreamSynchronize"], [stream], sync=1))
    sv.serve(message)  # warm
    t0 = time.perf_counter()
    for _ in range(STEPS):
        sv.serve(message)
        sv.sock.sent.clear()
    return {"rate": STEPS / (time.perf_counter() - t0) / 1e3}


@pytest.mark.parametrize("launches", [0, 1, 3])
def test_launch_then_synchronize_compiled_vs_python(benchmark, stand_in, monkeypatch, figures, launches):
    """The worker's cost of a message of `launches` launches and a synchronize (native_bench.cu's
    synchronize round trip with none, its launch + synchronize row with one, and a short run of
    launches before a wait), with the compiled loop (which answers the synchronize too) and through
    Python. Recorded as "launch then synchronize ×N (cuda stand-in)" in µs per message, rgpu = the
    compiled loop, raw = Python."""
    fake = launch_driver.load(stand_in, monkeypatch)

    def measure(compiled: bool) -> dict:
        fake.fake_reset()
        sv = Served(fake, monkeypatch, compiled=compiled)
        got = _step_rate(sv, launches)
        assert fake.fake_launches() == launches * (STEPS + 1)
        return got
    got = alternately(benchmark, {"compiled": lambda: measure(True), "python": lambda: measure(False)}, "rate")
    compiled_us, python_us = 1e3 / got["compiled"], 1e3 / got["python"]
    figures[f"launch then synchronize x{launches} (cuda stand-in)"] = {"rgpu": compiled_us, "raw": python_us,
                                                                       "unit": "µs per message"}
    benchmark.extra_info.update(compiled_us=compiled_us, python_us=python_us, unit="µs per message")
