"""A long kernel runs in time slices: the launch's checkpoint is called about every TIMESLICE_S of
device time, time spent blocked in it is not device time, and an exception from it (the session
ending) abandons the kernel."""
from __future__ import annotations

import time

import numpy as np
import pytest

from rgpu.server.backends.sim import jit, kernels
from rgpu.server.backends.sim.kernels import KernelModule


class Abandon(BaseException):
    pass


@pytest.fixture(autouse=True)
def interpreted():
    """The interpreter's slicing: under RGPU_SIM_JIT_AFTER=0 the compiled spin loop would end
    before a slice was due (the compiled path's slices: test_jit_differential.py)."""
    before = jit.enabled()
    jit.set_enabled(False)
    yield
    jit.set_enabled(before)


@pytest.fixture(scope="module")
def slice_module(build_image):
    return KernelModule.load(build_image("simslice.cu", "ptx"))


def expected(iters: int, threads: int) -> np.ndarray:
    v = np.arange(threads, dtype=np.uint32)
    for _ in range(iters):
        v = v * np.uint32(1664525) + np.uint32(1013904223)
    return v


def run(make_device, module, iters, checkpoint):
    dev = make_device(module)
    out = dev.zeros(32, np.uint32)
    stats = kernels.launch(module, module.functions["spin"], dev.mem, (1, 1, 1), (32, 1, 1), 0,
                           dev.pack("spin", [out, iters]), dev.out, checkpoint)
    return dev.get(out, 32, np.uint32), stats


def test_a_long_kernel_reports_slices_and_still_computes_exactly(make_device, slice_module):
    slices = []
    got, stats = run(make_device, slice_module, 60000, slices.append)
    np.testing.assert_array_equal(got, expected(60000, 32))
    assert stats.seconds > 3 * kernels.TIMESLICE_S, "the kernel was too short to need slices"
    assert len(slices) >= 2
    assert all(s >= kernels.TIMESLICE_S for s in slices)
    # Slices never exceed what the kernel ran in total.
    assert sum(slices) <= stats.seconds + 1e-6


def test_time_blocked_in_the_checkpoint_is_not_device_time(make_device, slice_module):
    waited = []

    def other_sessions_turn(seconds):
        if not waited:
            time.sleep(0.3)
            waited.append(seconds)

    t0 = time.perf_counter()
    got, stats = run(make_device, slice_module, 60000, other_sessions_turn)
    wall = time.perf_counter() - t0
    np.testing.assert_array_equal(got, expected(60000, 32))
    assert waited and stats.seconds <= wall - 0.25


def test_an_exception_from_the_checkpoint_abandons_the_kernel(make_device, slice_module):
    calls = []

    def session_ends(seconds):
        calls.append(seconds)
        raise Abandon()

    with pytest.raises(Abandon):
        run(make_device, slice_module, 1 << 30, session_ends)  # would run for hours
    assert len(calls) == 1
