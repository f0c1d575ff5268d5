"""The software GPU's queue of kernels that run after their launch (sim/queue.py): positions of
streams and events, errors kept for the next wait, and close() ending a kernel that never ends.
Jobs here block on events the test sets, so every answer is checked at a known point."""
from __future__ import annotations

import threading

import pytest

from rgpu.server.backends.sim.device import SimEvent, SimStream
from rgpu.server.backends.sim.errors import SimError, SimFault
from rgpu.server.backends.sim.queue import SimQueue


def _blocked(gate: threading.Event, ran: list, name: str):
    """A kernel that runs until `gate` is set, looking at its time slices as a kernel does."""
    def run(aborted, on_slice=None):
        while not gate.wait(0.01):
            aborted()
            if on_slice is not None:
                on_slice()
        ran.append(name)
    return run


def test_queries_answer_while_a_job_runs_and_follow_stream_order():
    q = SimQueue()
    blocking, free = SimStream(0, 0), SimStream(1, 0)  # CU_STREAM_NON_BLOCKING = 1
    gate, ran = threading.Event(), []
    q.submit(free, _blocked(gate, ran, "free"))
    ev = SimEvent(0)
    q.stamp(ev, q.position(free, False))
    # nothing queued on the blocking stream or the default stream: done; the non-blocking one is not
    assert q.reached(q.position(blocking, True)) and q.reached(q.position(None, True))
    assert not q.reached(q.position(free, False)) and not q.reached(ev.seq) and ev.time_ns is None
    q.submit(None, lambda aborted, on_slice=None: ran.append("legacy"))
    # a blocking stream waits for the default stream's work queued before its own
    assert not q.reached(q.position(blocking, True))
    gate.set()
    q.wait_idle()
    assert ran == ["free", "legacy"] and ev.time_ns is not None
    assert q.reached(q.position(None, True)) and q.reached(ev.seq) and not q.busy()
    q.close()


def test_a_stream_that_waits_for_an_event_is_not_done_before_the_event():
    """cudaStreamWaitEvent, then an event recorded on the waiting stream: it completes only after the
    work the first event marks, as on a GPU (before, the waiting stream answered done at once)."""
    from rgpu.server.backends.sim.device import SimDevice

    q = SimQueue()
    busy, waiting = SimStream(1, 0), SimStream(1, 0)
    gate, ran = threading.Event(), []
    q.submit(busy, _blocked(gate, ran, "long"))
    marks, after = SimEvent(0), SimEvent(0)
    q.stamp(marks, q.position(busy, False))
    dev = SimDevice.__new__(SimDevice)  # the device's own stream_wait_event, over this queue
    dev._queue = q
    dev.stream_wait_event(waiting, marks)
    q.stamp(after, q.position(waiting, False))
    assert not q.reached(q.position(waiting, False)) and not q.reached(after.seq) and after.time_ns is None
    gate.set()
    q.wait_idle()
    assert q.reached(after.seq) and after.time_ns is not None and ran == ["long"]
    q.close()


def test_a_fault_is_raised_at_the_next_wait_stays_and_skips_later_work():
    q = SimQueue()
    ran = []

    def fault(aborted, on_slice=None):
        raise SimFault("CUDA_ERROR_ILLEGAL_ADDRESS", "out of bounds")
    q.submit(None, fault)
    q.submit(None, lambda aborted, on_slice=None: ran.append("after"))
    with pytest.raises(SimFault):
        q.wait_idle()
    with pytest.raises(SimFault):  # sticky, as on a GPU
        q.reached(0)
    assert ran == [] and q.error_kept()
    q.close()


def test_an_ordinary_error_is_reported_once():
    q = SimQueue()

    def fails(aborted, on_slice=None):
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", "cannot run")
    q.submit(None, fails)
    with pytest.raises(SimError):
        q.wait_idle()
    q.wait_idle()  # reported: gone
    assert not q.error_kept()
    q.close()


def test_a_wait_runs_housekeeping_which_may_end_it():
    q = SimQueue()
    gate, ran, calls = threading.Event(), [], []

    class Ending(BaseException):
        pass

    def housekeeping():
        calls.append(1)
        raise Ending()
    q.submit(None, _blocked(gate, ran, "k"))
    with pytest.raises(Ending):
        q.wait_idle(housekeeping)
    assert calls and q.busy()
    q.close()  # the job never ends by itself: close() aborts it at its next check
    assert ran == [] and not q._thread.is_alive()


def test_a_wait_runs_the_kernels_the_executor_has_not_started_itself_in_order():
    """The waiting call runs queued kernels itself (no handoff to the executor thread and back), in
    queue order, with the worker's checks at their time slices; a kernel the executor is running is
    waited for, never run twice."""
    q = SimQueue()
    q._thread = threading.current_thread()  # no executor: every kernel is the waiting call's to run
    ran, threads, slices = [], [], []

    def kernel(name):
        def run(aborted, on_slice=None):
            threads.append(threading.current_thread())
            if on_slice is not None:
                on_slice()
            ran.append(name)
        return run
    s1 = SimStream(1, 0)
    for name in ("a", "b", "c"):
        q.submit(s1, kernel(name))
    ev = SimEvent(0)
    q.stamp(ev, q.position(s1, False))
    assert not q.reached(ev.seq)
    q.wait_idle(lambda: slices.append(1))
    assert ran == ["a", "b", "c"] and threads == [threading.current_thread()] * 3 and len(slices) == 3
    assert q.reached(ev.seq) and ev.time_ns is not None and not q.busy()

    # with an executor: a kernel it runs is waited for, the ones after it run once, in order
    q2 = SimQueue()
    gate, ran2 = threading.Event(), []
    q2.submit(None, _blocked(gate, ran2, "long"))
    assert not q2._running  # nothing runs a kernel until a call waits or the worker goes idle
    q2.kick()
    while not q2._running:  # the executor took it
        threading.Event().wait(0.001)
    q2.submit(None, lambda aborted, on_slice=None: ran2.append("next"))
    threading.Timer(0.05, gate.set).start()
    q2.wait_idle()
    assert ran2 == ["long", "next"] and not q2.busy()
    q2.close()
