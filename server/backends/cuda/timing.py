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
the driver behind it. One lock guards the windows.

The compiled launch loop (launches.py) opens windows too, as before_launch does, with start events
lent to it ahead (a few at a time, so lending costs no call per message); `adopt` makes the windows
it opened this clock's, after which they are closed and counted as any other."""
from __future__ import annotations

import threading
import time
from collections import deque

NOT_READY = 600


class KernelClock:
    def __init__(self, lib, ffi, check, launcher=None):
        self._lib, self._ffi, self._check = lib, ffi, check
        self._launcher = launcher  # the compiled launch loop (launches.py): it launches only into open windows
        self._lent: dict = {}  # event address -> event, lent to the launcher to open a window with
        if launcher is not None:
            launcher.on_opened = self.adopt
        self._open: dict = {}  # stream (cdata or NULL) -> start event of its open window
        self._groups: deque = deque()  # windows closed together: [(start, end)...], not counted yet
        self._cursor = None  # the end event of the latest time counted
        self._seen: dict = {}  # start event -> when it was first seen reached (running())
        self._spare: list = []
        self._ms = ffi.new("float *")
        self._lock = threading.Lock()
        self.done = 0.0  # seconds counted
        self.windows = 0  # windows opened (tests, logs)

    def _event(self):
        if self._spare:
            return self._spare.pop()
        e = self._ffi.new("CUevent *")
        self._check(self._lib.cuEventCreate(e, 0))  # timing enabled
        return e[0]

    def before_launch(self, stream) -> None:
        """A kernel is about to be launched on `stream` (NULL: the legacy stream)."""
        if stream in self._open:
            return
        with self._lock:
            start = self._event()
            self._check(self._lib.cuEventRecord(start, stream))
            self._open[stream] = start
            self.windows += 1
            if self._launcher is not None:
                self._launcher.window_opened(stream)
        if self._launcher is not None and not self._lent:
            self.lend()  # the loop opens the next windows itself

    LEND = 4  # events lent to the loop at a time, once it has none left

    def lend(self) -> None:
        """Keeps the compiled loop able to open windows, a few events at a time: called once Python
        has opened a window (the session's first, before the loop held any event) and whenever the
        loop has used the last it held (adopt). The clock counts what it lent (`_lent`), so this
        costs no call to the loop when it still holds some."""
        if self._launcher is None or self._lent:
            return
        for _ in range(self.LEND):
            e = self._event()
            if not self._launcher.lend(e):
                self._spare.append(e)
                return
            self._lent[int(self._ffi.cast("uintptr_t", e))] = e

    def adopt(self, run) -> None:
        """The windows a run of the compiled loop opened (launches.py): run.opened of them, on the
        streams at run.streams[i], started by the lent events at run.events[i] (addresses)."""
        streams, events, cast = run.streams, run.events, self._ffi.cast
        with self._lock:
            for i in range(run.opened):
                self._open[cast("CUstream", streams[i])] = self._lent.pop(events[i])
            self.windows += run.opened
        if not self._lent:
            self.lend()

    def close(self) -> None:
        """End every open window at this point of its stream."""
        if not self._open:
            return
        with self._lock:
            group = []
            for stream, start in self._open.items():
                end = self._event()
                self._check(self._lib.cuEventRecord(end, stream))
                group.append((start, end))
            self._groups.append(group)
            self._open.clear()
            if self._launcher is not None:
                self._launcher.windows_closed()

    def _elapsed(self, a, b) -> float:
        self._check(self._lib.cuEventElapsedTime_v2(self._ms, a, b))
        return self._ms[0] / 1000.0

    def completed(self) -> float:
        """Seconds counted: the union of the windows whose groups the GPU has finished."""
        if not self._groups:
            return self.done
        query = self._lib.cuEventQuery
        with self._lock:
            while self._groups and all(query(end) == 0 for _, end in self._groups[0]):
                group = self._groups.popleft()
                ref = group[0][0]
                # placed relative to the first start (0 for it: one driver call fewer per group)
                spans = [(0.0 if s is ref else self._elapsed(ref, s), self._elapsed(ref, e), e) for s, e in group]
                if len(spans) > 1:
                    spans.sort()
                floor = self._elapsed(ref, self._cursor) if self._cursor is not None else float("-inf")
                last = None
                for a, b, end in spans:
                    if b > floor:
                        self.done += b - max(a, floor)
                        floor, last = b, end
                for s, e in group:
                    self._seen.pop(s, None)
                    self._spare.append(s)
                    if e is not last:
                        self._spare.append(e)
                if last is not None:
                    if self._cursor is not None:
                        self._spare.append(self._cursor)
                    self._cursor = last
        return self.done

    def running(self) -> float:
        """Seconds since the earliest window not counted yet was first seen started (kernels that
        are running now, as far as polling every call can tell)."""
        query = self._lib.cuEventQuery
        now = time.monotonic()
        earliest = None
        with self._lock:
            starts = [s for group in self._groups for s, e in group if query(e) == NOT_READY]
            for start in starts + list(self._open.values()):
                seen = self._seen.get(start)
                if seen is None and query(start) == 0:
                    seen = self._seen[start] = now
                if seen is not None and (earliest is None or seen < earliest):
                    earliest = seen
        return 0.0 if earliest is None else now - earliest

    def destroy(self) -> None:
        with self._lock:
            if self._launcher is not None:
                self._launcher.take_back()  # the loop must not record them once they are destroyed
            events = list(self._lent.values()) + list(self._open.values()) + [e for g in self._groups for pair in g for e in pair] + self._spare
            if self._cursor is not None:
                events.append(self._cursor)
            for e in events:
                self._lib.cuEventDestroy_v2(e)
            self._open.clear()
            if self._launcher is not None:
                self._launcher.windows_closed()
            self._groups.clear()
            self._spare.clear()
            self._lent.clear()
            self._cursor = None
