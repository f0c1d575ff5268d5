"""Device time of a session's kernels on a real GPU, without an event pair per kernel.

A stream's kernels run in its order, so the time from just before the first kernel of a run of
launches to just after the last one is the time the GPU spent on them: one timing event is recorded
on the stream before the first launch of a run (the window opens), one when the client next waits
(the worker's settle: the windows close, as one group). Gaps inside a window are the GPU waiting
for the next launch of the same message, which arrive within microseconds of each other.

Windows of different streams may overlap in time, and a window of one stream contains whatever
another stream's kernels did meanwhile: the session's device time is therefore the union of its
windows on the GPU's timeline, not their sum — each group's windows are placed relative to one of
its events (cuEventElapsedTime works between any two events of the context) and cut at the end of
what was counted before (the cursor, an event kept for that). So two streams that share the GPU
count each moment once, and two that run side by side count the time they overlap once too, as a
session's share of a GPU should.

Windows whose start the GPU has reached and whose end it has not are kernels running now: the wall
time since the earliest such start was first seen reached is `running()`, which another thread reads
(the worker's watch), so a kernel that never ends shows its time while the serving thread waits in
the driver behind it.

The clock itself is compiled (native/clock.c, in librgpu_launches.so): it runs at every launch and
every synchronize, where its Python form cost about as much as the rest of the worker's step, and
the compiled launch loop (launches.py) opens windows in it directly. This class is its handle."""
from __future__ import annotations

import time

from . import compiled
from .compiled import ffi as _cffi

_EVENT_CALLS = ("cuEventCreate", "cuEventRecord", "cuEventQuery", "cuEventElapsedTime_v2", "cuEventDestroy_v2")


class KernelClock:
    def __init__(self, lib, ffi, check):
        """`lib`, `ffi`: the driver's (any cffi); `check(rc)` raises the driver's error for rc."""
        native = compiled.library()
        if native is None:
            raise OSError(f"the cuda backend's kernel clock needs {compiled.LIBRARY} (libhook/build.sh builds it): "
                          f"{compiled.unavailable()}")
        calls = []
        for name in _EVENT_CALLS:
            try:
                calls.append(_cffi.cast("void *", compiled.address(ffi.addressof(lib, name))))
            except AttributeError:  # a stand-in driver without events: the clock answers NOT_SUPPORTED
                calls.append(_cffi.NULL)
        self._n = native
        self.native = _cffi.gc(native.rgpu_clock_new(*calls), native.rgpu_clock_free)
        if self.native == _cffi.NULL:
            raise MemoryError("rgpu_clock_new")
        self._check = check
        self._done = _cffi.new("double *")

    def before_launch(self, stream) -> None:
        """A kernel is about to be launched on `stream` (NULL: the legacy stream)."""
        rc = self._n.rgpu_clock_open(self.native, _cffi.cast("void *", compiled.address(stream)))
        if rc:
            self._check(rc)

    def close(self) -> None:
        """End every open window at this point of its stream."""
        rc = self._n.rgpu_clock_close(self.native)
        if rc:
            self._check(rc)

    def completed(self) -> float:
        """Seconds counted: the union of the windows whose groups the GPU has finished."""
        rc = self._n.rgpu_clock_completed(self.native, self._done)
        if rc:
            self._check(rc)
        return self._done[0]

    def settle(self) -> float:
        """close(), then completed(): in one call."""
        rc = self._n.rgpu_clock_settle(self.native, self._done)
        if rc:
            self._check(rc)
        return self._done[0]

    @property
    def windows(self) -> int:
        """Windows opened so far (tests, logs)."""
        return self._n.rgpu_clock_windows(self.native)

    def running(self) -> float:
        """Seconds since the earliest window not counted yet was first seen started (kernels that
        are running now, as far as polling every call can tell)."""
        return self._n.rgpu_clock_running(self.native, time.monotonic())

    def destroy(self) -> None:
        """Destroys every event of the clock (the context is going)."""
        self._n.rgpu_clock_destroy(self.native)
