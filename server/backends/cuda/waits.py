"""Waiting for a real GPU without going deaf.

A synchronising call (a device, stream or event synchronize, a copy that must complete) can wait
behind a kernel for as long as the kernel runs — forever, for one that never ends. The serving
thread must still notice that its client is gone or that the server ended its lease, as it does
between calls and at the software GPU's time slices. So a wait first polls (most waits are over
within microseconds, and polling answers them at once); past SPIN_S, the blocking driver call runs
on a helper thread while the serving thread wakes every HOUSEKEEPING_S to run the worker's checks,
which end the session by raising SessionEnding. A session that ends that way leaves the helper
blocked in the driver: the worker exits without synchronising (`abandoned`), and the process's end
is what frees the context and stops the kernel."""
from __future__ import annotations

import queue
import threading
import time

NOT_READY = 600
SPIN_S = 200e-6
HOUSEKEEPING_S = 0.25


class Waiter:
    def __init__(self, bind):
        """`bind()`: makes the device's context current on the calling thread (the helper's)."""
        self._bind = bind
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self.abandoned = False  # a wait was given up while the driver still waits (see module doc)
        self.hook = None  # the worker's checks, run while waiting; may raise SessionEnding

    def _run(self) -> None:
        self._bind()
        while True:
            call, box, done = self._jobs.get()
            box.append(call())
            done.set()

    def wait(self, query, block) -> int:
        """The result of `block()` (a blocking driver call), waiting the way the module doc says;
        `query()` answers NOT_READY while it would block."""
        rc = query()
        if rc != NOT_READY:
            return block() if rc == 0 else rc
        deadline = time.perf_counter() + SPIN_S
        while time.perf_counter() < deadline:
            rc = query()
            if rc != NOT_READY:
                return block() if rc == 0 else rc
        if self.hook is None:
            return block()
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="gpu-wait", daemon=True)
            self._thread.start()
        box: list = []
        done = threading.Event()
        self._jobs.put((block, box, done))
        try:
            while not done.wait(HOUSEKEEPING_S):
                self.hook()
        except BaseException:
            if not done.is_set():
                self.abandoned = True
            raise
        return box[0]
