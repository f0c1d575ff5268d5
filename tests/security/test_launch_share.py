"""A launch flood from one tenant (issue 39, attack 6): the GPU's fair queue orders sessions by
virtual time, and a flood of empty kernels used to cost its sender almost no device time, so it stayed
first in the queue and a neighbour's kernel waited behind it for hundreds of milliseconds (p99 of a
launch + synchronize 0.8 -> 335 ms). Each kernel now costs its sender the launch's share of the queue
as well (sched.LAUNCH_COST_S): the neighbour that launched less runs first. The figures are in
benchmarks/test_flood.py; this checks the order the queue gives, which does not depend on timing."""
from __future__ import annotations

import multiprocessing as mp

from rgpu.server.sched import GpuScheduler


def test_a_flood_of_empty_kernels_goes_after_a_neighbour_that_launched_less():
    sched = GpuScheduler(mp.get_context("spawn"), 4)
    sched.configure(0, 50, 100)          # the flooder: slot 0, first on ties
    sched.configure(1, 50, 100)          # the neighbour: same guarantee
    for _ in range(50):                  # side by side: a message of 32 empty kernels (device time 0)
        assert sched.acquire(0, timeout=5)   # from the flooder, one from the neighbour
        sched.release(0, 0.0, kernels=32)
        assert sched.acquire(1, timeout=5)
        sched.release(1, 0.0, kernels=1)
    # both want the GPU now: the one that launched less goes first (before: the flooder, its
    # virtual time no higher than the neighbour's)
    with sched.cond:
        sched.waiting[0] = sched.waiting[1] = 1
        assert sched._next(sched.last[0] + 1.0) == 1
    assert sched.device_time[0] == 0.0 and sched.kernels[0] == 1600   # device time is still device time
