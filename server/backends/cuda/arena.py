"""A session's device memory at addresses another worker can give it again (native/arena.c).

With unified addressing the driver draws cuMemAlloc's addresses from the worker's own address
space, where its host mappings live too, so the worker a session moves to may hold any of them: on
an H200 the target of every move held the range of the source's first allocation, and the move was
refused. The arena is one range of device addresses that every worker reserves at the same place
(HINT, far below where a Linux process maps its libraries, heaps and stacks), from which the
session's cudaMalloc and cuMemAlloc take their memory through the VMM calls (each of a program's
devices at its own place: the window its client asks for); a move, a failover and a
restore reserve the same range in the new worker and map each allocation back at its address
(placement.py). Where the driver gives the range elsewhere (the hint is taken), the session still
runs, its allocations in the range the driver chose: a move of it places them one by one at their
addresses, as for cuMemAlloc's, and is refused where the target holds one of them.

The upper half of the range is the client's (server/api/placed.py): its cudaMalloc chooses addresses
there itself, with arena.c's own layout, and the worker places each allocation where it was told
(rgpu_arena_place); the arena's own allocations (a pitched one, the serving loop's, a client that does not
place) come from the lower half, so the two never meet.

RGPU_ARENA=0 turns it off (the driver's cuMemAlloc, as before). The driver's CUDA IPC exports only
what cuMemAlloc made; the arena's memory is made exportable as a file descriptor instead, which the
worker hands to the worker that opens it (ipc.py, fdshare.py)."""
from __future__ import annotations

import os

import structlog

from . import compiled

log = structlog.get_logger()

GiB = 1 << 30
TiB = 1 << 40
# Each of a program's devices has its own place (the window its client asks for: the device's number),
# so that their addresses never overlap in the program's one address space, as the driver's do:
# 52 to 64 TiB, inside the null driver's window and below where a Linux process maps anything.
HINT = 0x3400_0000_0000
SLOT = TiB
WINDOWS = 12


def hint(window: int | None) -> int:
    """Where device `window` of a program reserves its arena (a program's 13th device shares the
    first's place, in another worker: the client library warns of addresses two devices both gave)."""
    return HINT + ((window or 0) % WINDOWS) * SLOT


_DRIVER = ("cuMemAddressReserve", "cuMemAddressFree", "cuMemCreate", "cuMemRelease", "cuMemMap", "cuMemUnmap",
           "cuMemSetAccess")


def wanted() -> bool:
    return os.environ.get("RGPU_ARENA", "1") != "0"


class Arena:
    def __init__(self, lib, handle, check, granule: int, window: int | None = None):
        self._lib, self._a, self._check, self.window = lib, handle, check, window
        self.base, self.span = int(lib.rgpu_arena_base(handle)), int(lib.rgpu_arena_span(handle))
        self.granule = granule
        # the upper half is the client's to place in (placed.py), the arena's own allocations below it
        self.own = self.span // granule // 2 * granule
        lib.rgpu_arena_limit(handle, self.own // granule)
        self._out = compiled.ffi.new("uint64_t *")

    @property
    def address(self):
        """The C arena, for the serving loop's allocations (copies.c)."""
        return self._a

    def contains(self, addr: int) -> bool:
        return self.base <= addr < self.base + self.span

    def alloc(self, size: int, align: int = 0) -> int:
        """`align`: a power of two the address is a multiple of (the default, 512 bytes, is cudaMalloc's)."""
        if align:
            self._check(self._lib.rgpu_arena_alloc_aligned(self._a, size, align, self._out))
        else:
            self._check(self._lib.rgpu_arena_alloc(self._a, size, self._out))
        return int(self._out[0])

    def place(self, addr: int, size: int) -> bool:
        """The allocation at `addr` exactly; False when that place is taken here (or is not one the arena
        gives that size); the driver's own refusal (its memory) raises."""
        rc = self._lib.rgpu_arena_place(self._a, addr, size)
        if rc == 1:  # CUDA_ERROR_INVALID_VALUE: arena.c's word for a place it cannot give
            return False
        self._check(rc)
        return True

    def placement(self) -> tuple[int, int, int]:
        """(base, span, granule) of the range the client places its allocations in."""
        return self.base + self.own, self.span - self.own, self.granule

    def lent(self, addr: int, span: int) -> bool:
        """Whether [addr, addr + span) lies in the client's half (an allocation the client placed)."""
        return bool(self._lib.rgpu_arena_lent(self._a, addr, span))

    def holds(self, addr: int) -> bool:
        return bool(self._lib.rgpu_arena_holds(self._a, addr))

    def free(self, addr: int) -> None:
        self._check(self._lib.rgpu_arena_free(self._a, addr))

    def physical(self, addr: int) -> tuple[int, int, int]:
        """(driver handle, mapped start, length) of the physical allocation holding `addr`."""
        h, start, n = (compiled.ffi.new("uint64_t *") for _ in range(3))
        self._check(self._lib.rgpu_arena_physical(self._a, addr, h, start, n))
        return int(h[0]), int(start[0]), int(n[0])

    @property
    def shareable(self) -> bool:
        """Whether its memory can be exported as a file descriptor (CUDA IPC, ipc.py)."""
        return bool(self._lib.rgpu_arena_shareable(self._a))

    def close(self) -> None:
        if self._a is not None:
            self._lib.rgpu_arena_close(self._a)
            self._a = None


def open_arena(cuda_ffi, cuda_lib, check, dev: int, granularity: int, total_memory: int,
               window: int | None = None) -> Arena | None:
    """The session's arena on device `dev`, or None (switched off, no compiled library, a driver
    without the VMM calls, or one that refuses the range): then the driver's cuMemAlloc."""
    if not wanted():
        return None
    lib = compiled.library()
    if lib is None:
        return None
    try:
        fns = [int(cuda_ffi.cast("uintptr_t", cuda_ffi.addressof(cuda_lib, n))) for n in _DRIVER]
    except AttributeError:
        return None
    table = compiled.ffi.new("void *[7]", [compiled.ffi.cast("void *", f) for f in fns])
    # four times the GPU's memory (at least 128 GiB) of addresses: each half (the arena's own, the
    # client's) has room for any layout the quota allows
    span = min(SLOT, max(128 * GiB, 4 * total_memory))
    span = -(-span // granularity) * granularity
    at = hint(window)
    # exportable for CUDA IPC (ipc.py) unless RGPU_ARENA_IPC=0: NVIDIA's checkpoint takes IPC memory from
    # driver r610 on, so an older driver may refuse idle reclaim of a session whose memory is exportable
    shareable = os.environ.get("RGPU_ARENA_IPC", "1") != "0"
    handle = lib.rgpu_arena_open(table, dev, granularity, at, span, 1 if shareable else 0)
    if handle == compiled.ffi.NULL:
        log.warning("arena_refused", span=span, reason="the driver reserved no range for the session's memory")
        return None
    arena = Arena(lib, handle, check, granularity, window)
    if arena.base != at:
        log.info("arena_elsewhere", base=hex(arena.base), hint=hex(at))
    return arena
