"""The compiled serving loop's path through the GPU scheduler (server/native/sched.c) beside
GpuScheduler's own (server/sched.py): on two schedulers in the same state, taking the GPU and giving
it back leave the same state (the times they stamp aside), and where GpuScheduler would make the
session wait or share (someone waiting, someone between two runs of kernels, someone holding the GPU,
the group over its limit) the compiled path changes nothing and says no."""
from __future__ import annotations

import multiprocessing
import time

import pytest

from rgpu.server import ring as ring_mod
from rgpu.server.sched import GpuScheduler


FIELDS = ("waiting", "device_time", "kernels", "group", "weight", "limit", "vtime", "members")


def _pair(configure):
    ctx = multiprocessing.get_context("fork")
    out = []
    for _ in range(2):
        s = GpuScheduler(ctx, 4)
        configure(s)
        out.append(s)
    return out


def _state(s) -> dict:
    d = {f: list(getattr(s, f)[:]) for f in FIELDS}
    d["busy"], d["hi"] = s.busy.value, s.hi.value
    return d


def _lib():
    return ring_mod.library()


def test_take_and_give_leave_the_state_python_leaves():
    def configure(s):
        s.configure(0, 30, 100)
        s.configure(1, 70, 50)
        s.vtime[1] = 0.5  # another group ahead, idle: slot 0 re-enters at its level
        s.last[0] = time.monotonic() - 1.0
    py, c = _pair(configure)
    view = ring_mod.sched_view(c, 0)
    assert py.acquire(0, timeout=1.0)
    assert _lib().rgpu_sched_take(view) == 1
    assert _state(py) == _state(c) and c.busy.value == 0
    py.release(0, 0.003, kernels=2)
    assert _lib().rgpu_sched_give(view, 0.003, 2) == 0  # nobody waits
    assert _state(py) == _state(c) and c.busy.value == -1
    assert abs(py.last[0] - c.last[0]) < 0.5
    # a session with a limit is throttled after its kernels: the same moment it may run again
    py_l, c_l = _pair(lambda s: s.configure(2, 10, 40))
    view = ring_mod.sched_view(c_l, 2)
    assert py_l.acquire(2, timeout=1.0) and _lib().rgpu_sched_take(view) == 1
    py_l.release(2, 0.01)
    _lib().rgpu_sched_give(view, 0.01, 1)
    assert _state(py_l) == _state(c_l)
    assert abs((py_l.ready_at[2] - py_l.last[2]) - (c_l.ready_at[2] - c_l.last[2])) < 1e-9


@pytest.mark.parametrize("why", ["waiting", "between_kernels", "busy", "throttled"])
def test_where_python_would_wait_or_share_nothing_changes(why):
    ctx = multiprocessing.get_context("fork")
    s = GpuScheduler(ctx, 4)
    s.configure(0, 50, 50)
    s.configure(1, 50, 100)
    if why == "waiting":
        s.waiting[1] = 1
    elif why == "between_kernels":
        s.kernels[1], s.last[1] = 3, time.monotonic()
    elif why == "busy":
        s.busy.value = 1
    else:
        s.ready_at[0] = time.monotonic() + 60
    before = _state(s)
    assert _lib().rgpu_sched_take(ring_mod.sched_view(s, 0)) == 0
    assert _state(s) == before


def test_a_give_back_says_when_someone_waits():
    ctx = multiprocessing.get_context("fork")
    s = GpuScheduler(ctx, 4)
    s.configure(0, 50, 100)
    s.configure(1, 50, 100)
    view = ring_mod.sched_view(s, 0)
    assert _lib().rgpu_sched_take(view) == 1
    s.waiting[1] = 1  # arrived while slot 0 ran: its wait is Python's condition, which Python wakes
    assert _lib().rgpu_sched_give(view, 0.0, 1) == 1
    assert s.busy.value == -1 and s.kernels[0] == 1


@pytest.mark.parametrize("other", ["none", "waiting", "between_kernels", "long_idle", "unconfigured"])
def test_contended_answers_as_python_does(other):
    """rgpu_sched_contended (an async batch's give-back asks it first) beside GpuScheduler.contended:
    another session waiting, or between two runs of its kernels, wants the GPU; one idle past IDLE_S,
    or a slot with no group, does not."""
    ctx = multiprocessing.get_context("fork")
    s = GpuScheduler(ctx, 4)
    s.configure(0, 50, 100)
    if other != "unconfigured":
        s.configure(1, 50, 100)
    if other == "waiting":
        s.waiting[1] = 1
    elif other in ("between_kernels", "long_idle", "unconfigured"):
        s.kernels[1], s.last[1] = 3, time.monotonic() - (60 if other == "long_idle" else 0)
    want = other in ("waiting", "between_kernels")
    assert s.contended(0) is want
    assert _lib().rgpu_sched_contended(ring_mod.sched_view(s, 0)) == int(want)
