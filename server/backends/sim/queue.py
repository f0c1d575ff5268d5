"""The software GPU's kernels run after their launch (unless RGPU_SIM_ASYNC=0).

Without that a launch runs its kernel inside the call, so a session answers nothing else until the
kernel ends: cuStreamQuery never says CUDA_ERROR_NOT_READY, a program that polls a stream while
its kernel runs (to overlap host work) cannot. With it a launch is queued, and one executor thread
per device runs the queue in launch order, which is a valid schedule for every stream (a stream's
work is in order; distinct streams may overlap or not). Each stream knows the queue position of its
last work, so a query answers at once: done when the executor is past it. Events stand at a
position too, and are stamped when the executor passes it.

Everything else that touches device memory (copies, memsets, frees, a checkpoint) first waits for
the queue to drain (`wait_idle`): memory is never read or written by the serving thread while a
kernel runs. The wait keeps the worker's checks running (the client gone, the lease ended), which
end a session by raising SessionEnding, as cuda/waits.py does for a real GPU. A kernel's error is
kept and raised at the next call that waits (a fault stays sticky, as on a GPU); the work queued
after a fault does not run.

Who runs a kernel: the executor thread is not woken at the launch. A call that must wait for the
queue runs the kernels not yet started itself, in order, with the worker's checks at their time
slices (`wait_idle`), and the worker starts the executor on what is left when it goes to wait for
the client's next message (`kick`), so kernels the program does not wait for run while it works.
Handing every kernel to the executor and back cost two wake-ups under the GIL: launch + synchronize
took 45 us instead of 15 on two cores and numba's test modules ran 2-5x slower (test_operator 36 s
against 6.7); with this they take what they take with kernels inside their launch (test_operator
6.8 s, test_intrinsics 9.9 against 9.7), launch + synchronize about 30 us. One job runs at a time,
whoever runs it (`_running`).

The GPU scheduler (server/sched.py): a slot must be used by one thread, or two acquires clear each
other's waiting flag. So the executor alone takes the session's slot, around each kernel, yields it
at time slices and charges the device time at the release; the session does not (Session.run_kernel
and settle skip a device that `schedules_itself`)."""
from __future__ import annotations

import collections
import threading
import time

from .errors import SimError

HOUSEKEEPING_S = 0.25  # how often a wait runs the worker's checks (as cuda/waits.py)
ACQUIRE_S = 0.25  # a kernel waiting for its turn on a shared GPU looks this often for the session's end
CLOSE_S = 10.0  # how long close() waits for an aborted kernel to reach a time slice


def _nothing() -> None:
    pass


class _Abort(BaseException):
    """Ends a running kernel at its next time slice: the session is closing."""


class SimQueue:
    def __init__(self):
        self._cond = threading.Condition()
        self._jobs: collections.deque = collections.deque()  # (position, run)
        self._tail = 0  # position of the last work queued
        self._done = 0  # position of the last work finished (in order: all before it too)
        self._last: dict = {}  # stream (None: the default stream) -> position of its last work
        self._stamps: list = []  # (position, event) to stamp when the executor passes it
        self._error: BaseException | None = None  # a kernel's, kept for the next wait
        self._closing = False
        self._running = False  # a job is being run, by the executor or by a waiting call (wait_idle)
        self._thread: threading.Thread | None = None

    # -- the serving thread --
    def submit(self, stream, run) -> None:
        """Queue `run(aborted)` on `stream`; `aborted()` raises inside a kernel once close() began.
        A waiting call that runs it itself (wait_idle) calls `run(aborted, on_slice)`: `on_slice()`
        at each of the kernel's time slices."""
        with self._cond:
            self._tail += 1
            self._last[stream] = self._tail
            self._jobs.append((self._tail, run))
            if self._thread is None:
                self._thread = threading.Thread(target=self._execute, name="sim-executor", daemon=True)
                self._thread.start()
            # not woken here: the call that waits next runs the kernel itself (wait_idle), and the
            # serving thread starts the executor on what is left when it goes to wait for the next
            # message (kick); an executor that is running takes the next job by itself

    def kick(self) -> None:
        """Start the executor on the queued kernels no call ran: the serving thread is about to wait
        for the client's next message (worker.py), and they run while it waits, as on a GPU."""
        with self._cond:
            if self._jobs and not self._running:
                self._cond.notify_all()

    def busy(self) -> bool:
        return self._done != self._tail

    def error_kept(self) -> bool:
        return self._error is not None

    def position(self, stream, blocking: bool) -> int:
        """Where work queued on `stream` now would wait to: the stream's own last work, and the
        legacy default stream's with it (a blocking stream waits for it, it waits for every blocking
        stream: all of them for the default stream itself)."""
        last = self._last.get(stream, 0)
        if stream is None:
            return max([last] + [p for s, p in self._last.items() if s is not None and not s.flags & 1])
        return max(last, self._last.get(None, 0)) if blocking else last

    def after(self, stream, position: int) -> None:
        """`stream` waits for the work up to `position` (an event it waits for): the queue runs work
        in submission order, so the wait itself costs nothing, but what the stream says of itself
        from now on (its queries, the events recorded on it) includes that work."""
        with self._cond:
            if position > self._last.get(stream, 0):
                self._last[stream] = position

    def reached(self, position: int) -> bool:
        """Whether the work up to `position` has finished; raises a kept error (a fault) first."""
        self._raise_kept(consume=True)
        return self._done >= position

    def stamp(self, event, position: int) -> None:
        with self._cond:
            event.seq = position
            if self._done >= position:
                event.time_ns = time.perf_counter_ns()
            else:
                event.time_ns = None
                self._stamps = [(p, e) for p, e in self._stamps if e is not event]
                self._stamps.append((position, event))

    def forget(self, stream) -> None:
        with self._cond:
            self._last.pop(stream, None)

    def wait_idle(self, housekeeping=None, raise_error: bool = True) -> None:
        """Wait until every queued kernel has run, running `housekeeping()` (may raise
        SessionEnding) every HOUSEKEEPING_S; then raise a kept error, if any (`raise_error`).

        A kernel the executor has not started yet is run here instead, in queue order, with the
        housekeeping at its time slices: the call waits for it either way, and the handoff to the
        executor thread and back (two wake-ups under the GIL) costs more than a short kernel does.
        One job runs at a time, whoever runs it (`_running`), so the queue's order and the GPU
        scheduler's one-user-per-slot rule hold."""
        while True:
            job = None
            with self._cond:
                if self._done == self._tail or self._closing:
                    break
                if self._jobs and not self._running:
                    job, self._running = self._jobs[0], True
                else:
                    self._cond.wait(HOUSEKEEPING_S)
                    if self._done == self._tail:
                        break
            if job is not None:
                if not self._run_job(job, housekeeping or _nothing):
                    break  # aborted: the queue is closing
                continue
            if housekeeping is not None:
                housekeeping()
        if raise_error:
            self._raise_kept(consume=True)

    def _raise_kept(self, consume: bool) -> None:
        err = self._error
        if err is None:
            return
        if consume and not getattr(err, "sticky", False):
            self._error = None
        raise err

    def close(self) -> None:
        """Abort the running kernel (at its next time slice), drop the queue, stop the thread."""
        with self._cond:
            self._closing = True
            self._jobs.clear()
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(CLOSE_S)

    def running(self) -> bool:
        """Whether the executor thread is still alive (close() gave up waiting for it)."""
        return self._thread is not None and self._thread.is_alive()

    def closing(self) -> bool:
        return self._closing

    def aborted(self) -> None:
        if self._closing:
            raise _Abort()

    # -- the executor thread --
    def _execute(self) -> None:
        while True:
            with self._cond:
                while (not self._jobs or self._running) and not self._closing:
                    self._cond.wait()
                if self._closing:
                    return
                job, self._running = self._jobs[0], True
            if not self._run_job(job):
                return

    def _run_job(self, job, on_slice=None) -> bool:
        """The queue's first job (`_running` set by the caller), then marked done with the events it
        passed stamped; False when it was aborted (the queue is closing). Ended by the worker's
        checks (SessionEnding, from `on_slice`), it stays running, unfinished, until close()."""
        position, run = job
        if not (self._error is not None and getattr(self._error, "sticky", False)):
            try:
                if on_slice is None:
                    run(self.aborted)
                else:  # run by a waiting call: its time slices run the worker's checks
                    run(self.aborted, on_slice)
            except _Abort:
                return False
            except SimError as e:
                self._keep(e)
            except Exception as e:  # a bug of the interpreter: the program learns of it, the worker goes on
                self._keep(SimError("CUDA_ERROR_UNKNOWN", f"the software GPU failed a kernel: {e!r}"))
        with self._cond:
            self._running = False
            if self._jobs and self._jobs[0][0] == position:
                self._jobs.popleft()
            self._done = position
            now = time.perf_counter_ns()
            left = []
            for p, e in self._stamps:
                if p <= position:
                    e.time_ns = now
                else:
                    left.append((p, e))
            self._stamps = left
            self._cond.notify_all()
        return True

    def _keep(self, e: BaseException) -> None:
        if self._error is None or (getattr(e, "sticky", False) and not getattr(self._error, "sticky", False)):
            self._error = e
