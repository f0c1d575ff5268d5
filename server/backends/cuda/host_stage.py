"""Page-locked host memory the cuda backend reads a frame's H2D data into before the device copy.

A frame that is not in the worker's memory yet (a streamed frame: server/data_stream.py; a sealed one:
server/bulk.py) is read into this buffer, not into a fresh one: no page faults on a new buffer each
frame, and the driver copies from page-locked memory by DMA. From pageable memory a copy is staged by
the driver through a buffer of its own first, a pass over the data by the CPU (CUDA's documentation on
API synchronisation; about half the rate of a page-locked copy on a PCIe GPU). Made at the first frame
that needs it (a session on the same host never does) and released with the device.

It is PIECE_MAX bytes: every piece of a copy sent in pieces fits (server/pieces.py); a larger frame (an
async copy sent whole) takes the older path through a buffer of its own."""
from __future__ import annotations

import mmap
import threading
from contextlib import contextmanager

from rgpu.protocol.generated.constants import PIECE_MAX

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
