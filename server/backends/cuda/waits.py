"""Waiting for a real GPU without going deaf, and without burning a CPU.

A synchronising call (a device, stream or event synchronize, a copy that must complete) can wait
behind a kernel for as long as the kernel runs — forever, for one that never ends. The serving
thread must still notice that its client is gone or that the server ended its lease, as it does
between calls and at the software GPU's time slices. So a wait first polls (most waits are over
within microseconds, and polling answers them at once, with no driver call beyond the query);
past SPIN_S, the blocking driver call runs on a helper thread while the serving thread wakes every
HOUSEKEEPING_S to run the worker's checks, which end the session by raising SessionEnding. A
session that ends that way leaves the helper blocked in the driver: the worker exits without
synchronising (`abandoned`), and the process's end is what frees the context and stops the kernel.

Past SPIN_S the wait must also stop spinning: the driver's own synchronize spins on a CPU while the
context schedules automatically (CU_CTX_SCHED_AUTO spins whenever there are fewer contexts than
cores, as in a worker), so a server waiting for many sessions would burn a core for each. A wait
that goes on is therefore first given a `sleeper` (device.py: a blocking-sync event recorded behind
what is waited for, CU_EVENT_BLOCKING_SYNC, waited for in cuEventSynchronize, which sleeps until the
GPU's interrupt) and only then makes its blocking call, which by then returns at once with what it
has to report.

A bounded wait (`within`) is for the scheduler's hand-over of the GPU (session.py): it waits at most
so long and then gives up, leaving its helper in the driver; until that helper is back, later
bounded waits do not wait at all (the kernels they would wait behind outlast any bound)."""
from __future__ import annotations

import os
import queue
import threading
import time

NOT_READY = 600
# RGPU_GPU_SPIN_US: how long a wait polls before it sleeps (microseconds; the module doc says why both)
SPIN_S = float(os.environ.get("RGPU_GPU_SPIN_US", "200")) * 1e-6
HOUSEKEEPING_S = 0.25


# A synchronous copy takes about its size over the link's rate: polling until then answers it as
# soon as its DMA ends, as the driver's own synchronous copy does, where sleeping in a blocking-sync
# event adds the interrupt's and two threads' wake-ups (tens of µs: a few percent of a 64 MiB copy
# at 55 GB/s). COPY_POLL_RATE is a slow link's, so that a copy is polled for as long as its DMA can
# take; one that is still not done by then is behind other work, and sleeps. Capped: at worst a
# CPU spins COPY_POLL_MAX_S, then sleeps, however large the copy.
COPY_POLL_RATE = 8e9
COPY_POLL_MAX_S = 0.02


def copy_spin_s(nbytes: int) -> float:
    """How long a wait for a synchronous copy of `nbytes` polls before it sleeps."""
    return SPIN_S + min(nbytes / COPY_POLL_RATE, COPY_POLL_MAX_S)


class _Helper:
    """A thread with the device's context current that runs blocking driver calls in turn."""

    def __init__(self, bind, name: str):
        self._bind = bind
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._run, name=name, daemon=True).start()

    def _run(self) -> None:
        self._bind()
        while True:
            call, box, done = self._jobs.get()
            try:
                box.append(call())
            finally:
                done.set()

    def start(self, call) -> tuple[list, threading.Event]:
        box: list = []
        done = threading.Event()
        self._jobs.put((call, box, done))
        return box, done


class Waiter:
    def __init__(self, bind):
        """`bind()`: makes the device's context current on the calling thread (the helpers')."""
        self._bind = bind
        self._helper: _Helper | None = None  # waits the serving thread stays behind
        self._bounded: _Helper | None = None  # waits given up after a while (`within`)
        self._lagging: threading.Event | None = None  # the last bounded wait's, set when it is back
        self.abandoned = False  # a wait was given up while the driver still waits (see module doc)
        self.hook = None  # the worker's checks, run while waiting; may raise SessionEnding

    @staticmethod
    def _spin(query, seconds: float = SPIN_S):
        """`query()`'s answer once it is not NOT_READY, polling for `seconds`; None if it still is."""
        rc = query()
        if rc != NOT_READY:
            return rc
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            rc = query()
            if rc != NOT_READY:
                return rc
        return None

    @staticmethod
    def _sleeping(block, sleeper):
        if sleeper is None:
            return block
        sleep = sleeper()  # on the serving thread: what it records follows the work waited for

        def call():
            sleep()
            return block()
        return call

    def wait(self, query, block, sleeper=None, spin_s: float = SPIN_S) -> int:
        """The result of `block()` (a blocking driver call), waiting the way the module doc says;
        `query()` answers NOT_READY while it would block; `sleeper()`, called only once the wait
        goes on past `spin_s` (SPIN_S, or how long a copy waited for may take: copy_spin_s),
        makes a wait that sleeps until `block()` would return at once."""
        rc = self._spin(query, spin_s)
        if rc is not None:
            return block() if rc == 0 else rc
        call = self._sleeping(block, sleeper)
        if self.hook is None:
            return call()
        if self._helper is None:
            self._helper = _Helper(self._bind, "gpu-wait")
        box, done = self._helper.start(call)
        try:
            while not done.wait(HOUSEKEEPING_S):
                self.hook()
        except BaseException:
            if not done.is_set():
                self.abandoned = True
            raise
        return box[0]

    def within(self, query, sleeper, timeout: float) -> bool:
        """Whether `query()` stops answering NOT_READY within `timeout` seconds, sleeping in
        `sleeper()`'s wait past SPIN_S; the worker's checks run meanwhile, as in `wait`."""
        if self._spin(query, min(SPIN_S, timeout)) is not None:
            return True
        if self._lagging is not None and not self._lagging.is_set():
            return False  # an earlier bounded wait is still in the driver: its kernels outlast it
        if self._bounded is None:
            self._bounded = _Helper(self._bind, "gpu-hand-over")
        _box, done = self._bounded.start(sleeper())
        self._lagging = done
        deadline = time.perf_counter() + timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                return query() != NOT_READY
            if done.wait(min(HOUSEKEEPING_S, left)):
                return True
            if self.hook is not None:
                self.hook()
