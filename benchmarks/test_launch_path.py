"""The worker's own cost per kernel launch on the cuda backend (issue 14: "move the hot loop into
compiled code"), without a GPU: messages of 1,000 async launches served by the worker's _serve on a
stand-in driver whose cuLaunchKernel only records the launch (tests/support/launch_driver.py), with the
compiled launch loop (server/backends/cuda/launches.py) and through Python (RGPU_FAST_LAUNCH=0), in one
run, alternately, best of transport.ROUNDS rounds each. Recorded as "launch path (cuda stand-in)" with rgpu = the
compiled loop and raw = Python, in thousands of launches a second.

On a GPU the driver's own cost is added to both (about 3.8 µs a launch at the 264 k/s an H100 host
launches natively): this is what rgpu's server adds on top of it."""
from __future__ import annotations

import time

import pytest

from benchmarks.transport import alternately
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
