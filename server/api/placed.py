"""Allocations the client places itself (libhook/src/memory/placed.c): cudaMalloc without a round trip.

The session's device lends the client a range of addresses (the cuda backend's arena's upper half,
the software GPU's top quarter of its window) that no allocation the server chooses ever takes. The
client lays out its allocations there with the arena's own rules (arena.c, compiled into the client)
and sends each one's address, which the worker places there. The quota still holds exactly: the
session holds a spare of it, charged ahead to the lease's counter like any allocation, and an
allocation the spare covers is sent without waiting (rgpuMemPlace, async); one it does not is sent
with a wait (rgpuMemPlaceGrant), charged then, so that out-of-memory is cudaMalloc's own answer as
on a GPU (PyTorch's allocator frees its cache and asks again), with more spare when the counter has it.
A free gives the charge back to the spare, and what the spare holds past its cap (RGPU_PLACE_SPARE
bytes, default 64 MiB) goes back to the counter: the client runs the same rule, so both sides know
the spare without asking. cudaMemGetInfo counts the session's spare as free (session.py).

Where the two disagree (a session moved to a worker whose spare is 0), a place the spare does not
cover is charged to the counter then; only if the quota cannot hold it does it fail. A place sent
without waiting that fails (that, or a client that sends a place the range cannot hold) is an
asynchronous call's error: the next call that waits reports it, once, and the address it named is
nobody's (a copy to it, a kernel's access, its free are refused as for any stray pointer). Not sticky:
one bad message of a client's loses it nothing else (tests/security/test_fuzz.py)."""
from __future__ import annotations

from ..errors import CudaError
from . import handles

# a pitched allocation's rows are rounded to this (a GPU's texture pitch alignment): memory.py's
# cudaMallocPitch and the client's, which places pitched allocations too
PITCH_ALIGN = 512


@handles("rgpuMemPlacement")
def placement(s):
    where = s.device.client_range()
    if where is None:
        return (0, 0, 0, 0, 0, 0, 0, 0)
    base, span, granule, guard, unit = where
    return (base, span, granule, guard, unit, s.device.spare_cap, s.device.spare, PITCH_ALIGN)


def _take(s, charge: int) -> bool:
    """`charge` from the spare, charging the counter for what the spare lacks."""
    d = s.device
    if d.spare < charge and not d.take_spare(charge - d.spare):
        return False
    d.spare -= charge
    return True


def _place(s, addr: int, size: int, span: int, charge: int) -> None:
    try:
        s.device.mem_place(addr, size, span)
    except CudaError:
        s.device.spare += charge
        raise


@handles("rgpuMemPlace")
def place(s, addr, size, span):
    charge = s.device.placed_charge(size)
    if not _take(s, charge):
        raise CudaError("CUDA_ERROR_OUT_OF_MEMORY", f"{size} bytes placed at 0x{addr:x} exceed this session's memory")
    _place(s, addr, size, span, charge)
    return ()


@handles("rgpuMemPlaceGrant")
def place_grant(s, addr, size, span, want):
    d = s.device
    charge = d.placed_charge(size)
    need = charge - d.spare
    # as much more spare as asked for when the counter has it, else only what this allocation needs
    if need > 0 and not d.take_spare(need + min(want, d.spare_cap)) and not d.take_spare(need):
        raise CudaError("CUDA_ERROR_OUT_OF_MEMORY", f"{size} bytes exceed this session's memory")
    d.spare -= charge
    _place(s, addr, size, span, charge)
    return (d.spare,)


def freed(s, charge: int | None) -> None:
    """A placed allocation's charge back to the spare (device.mem_free's answer), and the spare past
    its cap back to the counter: placed.c's rgpu_placed_free runs the same rule."""
    if charge is None:
        return
    d = s.device
    d.spare += charge
    if d.spare > d.spare_cap:
        d.give_spare(d.spare - d.spare_cap)
