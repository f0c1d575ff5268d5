"""The cuda backend's compiled copies (native/copies.c, in librgpu_launches.so): a copy through the session's
shared segment, or a memset, alone in its message, served by the worker's compiled serving loop
(server/native/serve.c) without a Python frame, exactly as Python's path serves it; anything unusual stays
Python's (copies.c says what).

Python keeps the state: the device allocations the session makes and frees (device.py tells the copier
as its _allocs table changes), so a range is accepted here only where Python's range check accepts it.

RGPU_FAST_COPY=0 turns it off (every copy and memset through Python), for comparisons."""
from __future__ import annotations

import contextlib
import os

import numpy as np

from rgpu.protocol.generated.calltable import BY_NAME

from . import compiled
from .compiled import ffi as _ffi

OP_H2D, OP_D2H, OP_RUNTIME_COPY, OP_MEMSET, OP_ALLOC, OP_FREE, OP_D2D, OP_EVENT, OP_EVENT_FLAGS, OP_PLACE = range(1, 11)
PLACED = 2  # copies.c: an allocation the client placed (its free goes to the spare)
# call name -> (op, memset width, names a stream, runtime face)
CALLS = {
    "cuMemcpyHtoD_v2": (OP_H2D, 0, 0, 0), "cuMemcpyHtoDAsync_v2": (OP_H2D, 0, 1, 0),
    "cuMemcpyDtoH_v2": (OP_D2H, 0, 0, 0), "cuMemcpyDtoHAsync_v2": (OP_D2H, 0, 1, 0),
    "cudaMemcpy": (OP_RUNTIME_COPY, 0, 0, 1), "cudaMemcpyAsync": (OP_RUNTIME_COPY, 0, 1, 1),
    "cudaMemset": (OP_MEMSET, 1, 0, 1), "cudaMemsetAsync": (OP_MEMSET, 1, 1, 1),
    "cuMemsetD8_v2": (OP_MEMSET, 1, 0, 0), "cuMemsetD8Async": (OP_MEMSET, 1, 1, 0),
    "cuMemsetD16_v2": (OP_MEMSET, 2, 0, 0), "cuMemsetD16Async": (OP_MEMSET, 2, 1, 0),
    "cuMemsetD32_v2": (OP_MEMSET, 4, 0, 0), "cuMemsetD32Async": (OP_MEMSET, 4, 1, 0),
    "cuMemAlloc_v2": (OP_ALLOC, 0, 0, 0), "cudaMalloc": (OP_ALLOC, 0, 0, 1),
    "cuMemFree_v2": (OP_FREE, 0, 0, 0), "cudaFree": (OP_FREE, 0, 0, 1),
    # only before another call the loop serves, in its message (api/placed.py)
    "rgpuMemPlace": (OP_PLACE, 0, 0, 0),
    # only within a step (launches.c): async, in a message of launches and a wait
    "cuMemcpyDtoDAsync_v2": (OP_D2D, 0, 1, 0),
    "cudaEventRecord": (OP_EVENT, 0, 1, 1), "cuEventRecord": (OP_EVENT, 0, 1, 0),
    "cudaEventRecordWithFlags": (OP_EVENT_FLAGS, 0, 1, 1), "cuEventRecordWithFlags": (OP_EVENT_FLAGS, 0, 1, 0),
}
_DRIVER = ("cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2", "cuMemsetD8Async", "cuMemsetD16Async",
           "cuMemsetD32Async")


class Copier:
    """One device's compiled copies, over its launcher (launches.py: streams, waits, the clock)."""

    def __init__(self, launcher, functions: list[int], memory: list[int] | None, dtod: int = 0, record: int = 0):
        lib = compiled.library()
        table = _ffi.new("rgpu_copy_call[]", len(CALLS))
        for i, (name, (op, width, stream, runtime)) in enumerate(CALLS.items()):
            table[i].id, table[i].op, table[i].width = BY_NAME[name], op, width
            table[i].stream, table[i].runtime = stream, runtime
        self._lib, self._launcher = lib, launcher  # kept: the copier's C side holds the launcher's pointer
        c = lib.rgpu_copier_new(_ffi.cast("rgpu_launcher *", launcher.loop),
                                *(_ffi.cast("void *", f) for f in functions), table, len(CALLS))
        if c == _ffi.NULL:
            raise MemoryError("rgpu_copier_new")
        self._c = _ffi.gc(c, lib.rgpu_copier_free)
        if memory is not None:  # cuMemAlloc_v2, cuMemFree_v2: allocations charged through quota.c
            lib.rgpu_copier_memory(self._c, *(_ffi.cast("void *", f) for f in memory))
        if dtod:  # cuMemcpyDtoDAsync_v2: a step's device-to-device copies
            lib.rgpu_copier_dtod(self._c, _ffi.cast("void *", dtod))
        if record:  # cuEventRecord: a step's event records
            lib.rgpu_copier_events(self._c, _ffi.cast("void *", record))
        # the managed pulls a step's wait carries from another host (copies.c rgpu_copier_pull_call)
        lib.rgpu_copier_pulls(self._c, BY_NAME["rgpuManagedPull"])
        self.address = int(_ffi.cast("uintptr_t", c))  # for the serving loop (ring.py)
        launcher.copier = self  # a step's async memsets and copies (launches.c, rgpu_copier_step_call)

    def use_arena(self, arena) -> None:
        """The allocations and frees the loop serves go to the session's arena (arena.py)."""
        self._arena = arena  # kept: the C side holds its pointer
        self._lib.rgpu_copier_arena(self._c, arena.address)

    def flat(self, base: int, host: int, span: int) -> None:
        """The software GPU's memory (sim/idle_waits.py): device addresses [base, +span) lie at `host` in
        this process, copied and set with memcpy and memset instead of a driver's calls (host 0: none)."""
        self._lib.rgpu_copier_flat(self._c, base, _ffi.cast("void *", host), span)

    def track(self, start: int, size: int) -> None:
        if self._lib.rgpu_copier_track(self._c, start, size) != 0:
            raise MemoryError("rgpu_copier_track")

    def plain(self, start: int, yes: bool) -> None:
        """Whether the allocation at `start` is plain (a cudaMalloc nothing else has a part in): one the
        loop may free."""
        self._lib.rgpu_copier_plain(self._c, start, yes)

    def placed(self, start: int) -> None:
        """The allocation at `start` is one the client placed: the loop may free it, into the spare."""
        self._lib.rgpu_copier_plain(self._c, start, PLACED)

    @property
    def spare(self) -> int:
        """The quota the session holds ahead for its client's placements (api/placed.py): kept here,
        where the loop's places and frees change it too."""
        return int(self._lib.rgpu_copier_spare(self._c))

    def set_spare(self, spare: int, cap: int) -> None:
        self._lib.rgpu_copier_set_spare(self._c, spare, cap)

    def untrack(self, start: int) -> None:
        self._lib.rgpu_copier_untrack(self._c, start)

    def clear(self) -> None:
        self._lib.rgpu_copier_clear(self._c)

    @contextlib.contextmanager
    def held(self):
        """Nothing is freed by the loop (nor its table changed) inside: a move's pre-copy, on its own
        thread, reads or digests memory the loop would otherwise be free to unmap under it."""
        self._lib.rgpu_copier_hold(self._c)
        try:
            yield
        finally:
            self._lib.rgpu_copier_let_go(self._c)

    def live(self, ranges: np.ndarray) -> np.ndarray:
        """Whether each (address, length) row of `ranges` lies in one allocation the copier knows now
        (call it inside `held`)."""
        ranges = np.ascontiguousarray(ranges, dtype=np.uint64)
        out = np.zeros(len(ranges), np.uint8)
        if len(ranges):
            self._lib.rgpu_copier_live(self._c, _ffi.from_buffer("uint64_t[]", ranges), len(ranges),
                                       _ffi.from_buffer("uint8_t[]", out))
        return out.astype(bool)

    @staticmethod
    def counters():
        """[in, out]: bytes moved by pinned copies, the compiled ones' and Python's, kept by the caller
        (server/pinned.py) and handed to `pin`."""
        return _ffi.new("uint64_t[2]")

    def pin(self, name: str, nonce: bytes, size: int, addr: int, counters) -> None:
        """The program's pinned segment `name`, mapped and registered at `addr` here: a step's async
        copies from and to it are the loop's (copies.c, pinned_one), counted into `counters`."""
        self._lib.rgpu_copier_pin(self._c, name.encode(), nonce, size, addr, counters)

    def unpin(self, name: str) -> None:
        """Before the segment is unmapped: its copies are Python's again."""
        self._lib.rgpu_copier_unpin(self._c, name.encode())


def make(cuda_ffi, cuda_lib, launcher):
    """A Copier over `cuda_lib`'s copies and memsets beside `launcher`, or None: switched off
    (RGPU_FAST_COPY=0), no launcher that answers waits (its stream waits are the copies'), or a
    stand-in driver without those calls."""
    if launcher is None or not launcher.wait_ids or os.environ.get("RGPU_FAST_COPY", "1") == "0":
        return None
    def address(name):
        return int(cuda_ffi.cast("uintptr_t", cuda_ffi.addressof(cuda_lib, name)))
    try:
        functions = [address(n) for n in _DRIVER]
    except AttributeError:
        return None
    try:
        memory = None if os.environ.get("RGPU_FAST_ALLOC", "1") == "0" else \
            [address("cuMemAlloc_v2"), address("cuMemFree_v2")]
    except AttributeError:
        memory = None
    def optional(name):
        try:
            return address(name)
        except AttributeError:
            return 0
    return Copier(launcher, functions, memory, optional("cuMemcpyDtoDAsync_v2"), optional("cuEventRecord"))
