"""The compute-share scheduler across real processes: shares follow guarantees when sessions
compete, idle time is lent, a limit caps a session running alone. Kernels are simulated by
holding the GPU for a fixed device time; shares are measured from the scheduler's accounting."""
from __future__ import annotations

import multiprocessing as mp
import time

import pytest

from rgpu.server.sched import GpuScheduler

KERNEL_S = 0.004


def _saturate(sched, slot, seconds, start, pause):
    while time.monotonic() < start:
        time.sleep(0.001)
    end = start + seconds
    while time.monotonic() < end:
        sched.acquire(slot)
        # The "kernel" holds the GPU for KERNEL_S and the device reports exactly that, so the shares
        # do not depend on how loaded the test machine's CPUs are.
        time.sleep(KERNEL_S)
        sched.release(slot, KERNEL_S)
        if pause:
            time.sleep(pause)  # host work between kernels: the GPU is free for others meanwhile


def _endless(sched, slot, seconds, start, pause):
    """One kernel that lasts the whole run, in time slices (what the software GPU does at its
    checkpoints): the GPU is acquired once and released only at the end."""
    while time.monotonic() < start:
        time.sleep(0.001)
    end = start + seconds
    sched.acquire(slot)
    while time.monotonic() < end:
        time.sleep(KERNEL_S)
        sched.yield_slice(slot, KERNEL_S)
    sched.release(slot, 0.0)


def _run(configs, seconds=2.5, pauses=None, kinds=None):
    ctx = mp.get_context("spawn")
    sched = GpuScheduler(ctx, 8)
    for slot, (g, lim) in enumerate(configs):
        sched.configure(slot, g, lim)
    start = time.monotonic() + 1.0  # let every process start before measuring
    pauses = pauses or [0.0] * len(configs)
    kinds = kinds or [_saturate] * len(configs)
    procs = [ctx.Process(target=kinds[slot], args=(sched, slot, seconds, start, pauses[slot]))
             for slot in range(len(configs))]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    used = [sched.device_time[s] for s in range(len(configs))]
    return used, seconds


@pytest.mark.parametrize("g", [(25, 75), (50, 50)])
def test_competing_sessions_share_by_guarantee(g):
    used, _ = _run([(g[0], 100), (g[1], 100)])
    share = 100 * used[0] / sum(used)
    assert abs(share - g[0]) <= 5, f"share {share:.1f}% for guarantee {g[0]}%"


def test_a_session_alone_stays_under_its_limit():
    used, seconds = _run([(10, 50)])
    assert 100 * used[0] / seconds <= 55


def test_guarantee_holds_against_a_greedy_neighbour():
    used, seconds = _run([(30, 100), (0, 100)])
    assert 100 * used[0] / sum(used) >= 25


def test_time_a_session_does_not_use_is_lent_to_others():
    # the 80% session leaves the GPU idle between its kernels; the 20% one takes that time
    used, seconds = _run([(80, 100), (20, 100)], pauses=[3 * KERNEL_S, 0.0])
    assert 100 * used[1] / sum(used) >= 40


def test_a_dead_holder_does_not_block_the_gpu():
    ctx = mp.get_context("spawn")
    sched = GpuScheduler(ctx, 2)
    sched.configure(0, 50, 100)
    sched.configure(1, 50, 100)
    assert sched.acquire(0)
    assert not sched.acquire(1, timeout=0.05)
    sched.forget(0)  # what the supervisor does when the worker in slot 0 dies
    assert sched.acquire(1, timeout=1)


@pytest.mark.parametrize("g", [(25, 75), (50, 50)])
def test_a_kernel_that_never_ends_is_time_sliced_by_guarantee(g):
    # Slot 0 runs one endless kernel; without time slices slot 1 would get no device time at all.
    used, _ = _run([(g[0], 100), (g[1], 100)], kinds=[_endless, _saturate])
    share = 100 * used[0] / sum(used)
    assert abs(share - g[0]) <= 5, f"endless kernel got {share:.1f}% for guarantee {g[0]}%"


def test_a_limit_holds_inside_one_long_kernel():
    used, seconds = _run([(10, 50)], kinds=[_endless])
    assert 100 * used[0] / seconds <= 55


def test_a_slice_keeps_the_gpu_when_nobody_else_waits():
    ctx = mp.get_context("spawn")
    sched = GpuScheduler(ctx, 2)
    sched.configure(0, 50, 100)
    sched.configure(1, 50, 100)
    assert sched.acquire(0)
    sched.yield_slice(0, 0.01)
    assert sched.busy.value == 0 and sched.device_time[0] == pytest.approx(0.01)
    assert not sched.acquire(1, timeout=0.05)  # still held: slot 1 cannot start meanwhile
