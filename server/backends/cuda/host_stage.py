"""Page-locked host memory the cuda backend moves copies' data through, each way.

HostStage, H2D: a frame that is not in the worker's memory yet (a streamed frame: server/data_stream.py;
a sealed one: server/bulk.py) is read into this buffer, not into a fresh one: no page faults on a new
buffer each frame, and the driver copies from page-locked memory by DMA. From pageable memory a copy is
staged by the driver through a buffer of its own first, a pass over the data by the CPU (CUDA's
documentation on API synchronisation; about half the rate of a page-locked copy on a PCIe GPU). Made at
the first frame that needs it (a session on the same host never does) and released with the device.

It is PIECE_MAX bytes: every piece of a copy sent in pieces fits (server/pieces.py); a larger frame (an
async copy sent whole) takes the older path through a buffer of its own.

OutStage, D2H: a reply's data copied from the device (server/api/memory.py, a piece of server/pieces.py)
into page-locked memory by DMA, instead of into a fresh pageable buffer the driver stages into (the same
pass by the CPU, the other way), and sent from there: on the data stream, sealed, or in a ZeroMQ frame
that holds it until the I/O thread sent it. A buffer is reused only when nothing holds it any more (its
reference count), so a frame still in flight, or a LATE_OUT copy's data kept for the next reply, is never
written over: with both buffers held, a copy takes a fresh one as before."""
from __future__ import annotations

import mmap
import sys
import threading
from contextlib import contextmanager

import numpy as np

from rgpu.protocol.generated.constants import BULK_MIN, PIECE_MAX

from ...errors import CudaError


class HostStage:
    def __init__(self, ffi, register, unregister):
        """`register(addr, size)` page-locks host memory for the device (raising CudaError where the driver
        refuses), `unregister(addr)` undoes it: the device's host_register and host_unregister."""
        self._ffi, self._register, self._unregister = ffi, register, unregister
        self._map: mmap.mmap | None = None
        self.addr = 0  # the buffer's address, for the driver's copy (kept as a number: no buffer export)
        self.registered = False  # page-locked; a driver that refuses leaves it pageable, still reused
        self._lock = threading.Lock()  # one frame in it at a time (held across the copy's wait)
        self.frames = 0

    def takes(self, n: int) -> bool:
        return 0 < n <= PIECE_MAX

    @contextmanager
    def holding(self, frame):
        """The stage with `frame` (takes(len(frame)); its `open_into`) read into it: its address, the
        stage held for this frame alone until the block ends."""
        with self._lock:
            if self._map is None:
                self._map = mmap.mmap(-1, PIECE_MAX)  # page-aligned, as cuMemHostRegister wants
                self.addr = int(self._ffi.cast("uintptr_t", self._ffi.from_buffer(self._map)))
                try:
                    self._register(self.addr, PIECE_MAX)
                    self.registered = True
                except CudaError:
                    pass
            view = memoryview(self._map)[:len(frame)]
            try:
                frame.open_into(view)
            finally:
                view.release()
            self.frames += 1
            yield self.addr

    def close(self) -> None:
        if self._map is None:
            return
        if self.registered:
            self._unregister(self.addr)
        try:
            self._map.close()
        except BufferError:  # a view still held somewhere: the process's end releases it
            pass
        self._map = None


PAGE = 4096


class _Out:
    """One of OutStage's buffers: `raw` owns the memory, so every view of it (numpy collapses a view's
    base to the array that owns its data) and everything that holds one counts in its references."""
    __slots__ = ("raw", "view", "addr", "registered", "free_refs")

    def __init__(self, register):
        self.raw = np.empty(PIECE_MAX + PAGE, np.uint8)  # (no pages touched: the copy writes them)
        start = (-self.raw.ctypes.data) % PAGE  # page-aligned, as cuMemHostRegister wants
        self.view = self.raw[start:start + PIECE_MAX]
        self.addr = self.raw.ctypes.data + start
        try:
            register(self.addr, PIECE_MAX)
            self.registered = True
        except CudaError:
            self.registered = False  # pageable, still reused
        self.free_refs = sys.getrefcount(self.raw)  # held by this slot and its view: nothing else

    def free(self) -> bool:
        return sys.getrefcount(self.raw) == self.free_refs


class OutStage:
    SLOTS = 2  # one in flight on the socket while the next piece is copied
    MIN = BULK_MIN  # smaller replies are a small share of the bytes; they would page-lock 16 MiB a session

    def __init__(self, register, unregister):
        self._register, self._unregister = register, unregister
        self._slots: list[_Out] = []
        self._lock = threading.Lock()
        self.frames = 0

    @property
    def registered(self) -> bool:
        return any(s.registered for s in self._slots)

    def buffer(self, n: int):
        """A buffer of `n` bytes that nothing holds, page-locked where the driver allows, for a D2H copy's
        data; None when `n` is not the stage's (the caller takes a fresh buffer) or every buffer is held."""
        if not self.MIN <= n <= PIECE_MAX:
            return None
        with self._lock:
            slot = next((s for s in self._slots if s.free()), None)
            if slot is None:
                if len(self._slots) == self.SLOTS:
                    return None
                slot = _Out(self._register)
                self._slots.append(slot)
            self.frames += 1
            return slot.view[:n]

    def close(self) -> None:
        """Unregisters the buffers; one still held (a frame not sent yet) stays valid memory until it is
        let go, pageable from here on."""
        with self._lock:
            for s in self._slots:
                if s.registered:
                    self._unregister(s.addr)
            self._slots.clear()
