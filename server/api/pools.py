"""Memory pools of stream-ordered allocation: each device's default pool (cudaMallocAsync's).

rgpu makes a stream-ordered allocation at once, as cudaMalloc does, and frees it at once
(api/memory.py), on every backend. So the default pool a session sees holds exactly what is in use
(reserved = used) and trimming has nothing to give back; its counters are those of the session's
stream-ordered allocations, and its reuse policies and release threshold are kept and reported as
set. It is the session's own object, one per session under one handle, on the sim and on a real GPU
alike. Pools a program creates (cuMemPoolCreate) are the real driver's, on the cuda backend only:
their attributes and trimming go to the driver."""
from __future__ import annotations

from ..errors import CudaError
from . import handles

# CUmemPool_attribute
REUSE_FOLLOW_EVENT_DEPENDENCIES, REUSE_ALLOW_OPPORTUNISTIC, REUSE_ALLOW_INTERNAL_DEPENDENCIES = 1, 2, 3
RELEASE_THRESHOLD, RESERVED_MEM_CURRENT, RESERVED_MEM_HIGH, USED_MEM_CURRENT, USED_MEM_HIGH = 4, 5, 6, 7, 8
SETTABLE = (REUSE_FOLLOW_EVENT_DEPENDENCIES, REUSE_ALLOW_OPPORTUNISTIC, REUSE_ALLOW_INTERNAL_DEPENDENCIES,
            RELEASE_THRESHOLD)


class DefaultPool:
    def __init__(self, attrs: dict[int, int] | None = None, live: dict[int, int] | None = None, high: int = 0):
        self.attrs = {REUSE_FOLLOW_EVENT_DEPENDENCIES: 1, REUSE_ALLOW_OPPORTUNISTIC: 1,
                      REUSE_ALLOW_INTERNAL_DEPENDENCIES: 1, RELEASE_THRESHOLD: 0, **(attrs or {})}
        self.live: dict[int, int] = dict(live or {})  # address -> size of the live stream-ordered allocations
        self.high = high

    def used(self) -> int:
        return sum(self.live.values())

    def allocated(self, addr: int, size: int) -> None:
        self.live[addr] = size
        self.high = max(self.high, self.used())

    def freed(self, addr: int) -> None:
        self.live.pop(addr, None)

    def get(self, attr: int) -> int:
        if attr in self.attrs:
            return self.attrs[attr]
        if attr in (RESERVED_MEM_CURRENT, USED_MEM_CURRENT):
            return self.used()
        if attr in (RESERVED_MEM_HIGH, USED_MEM_HIGH):
            return self.high
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"memory pool attribute {attr}")

    def set(self, attr: int, value: int) -> None:
        if attr in SETTABLE:
            self.attrs[attr] = value if attr == RELEASE_THRESHOLD else int(bool(value))
        elif attr in (RESERVED_MEM_HIGH, USED_MEM_HIGH) and value == 0:
            self.high = self.used()  # the high-water marks may only be reset
        else:
            raise CudaError("CUDA_ERROR_INVALID_VALUE", f"memory pool attribute {attr} cannot be set to {value}")

    def state(self) -> dict:
        return {"attrs": [[k, v] for k, v in self.attrs.items()], "live": [[a, n] for a, n in self.live.items()],
                "high": self.high}


def default_pool(s) -> tuple[int, DefaultPool]:
    """The session's default pool and its handle (made on first use)."""
    for h, (kind, obj) in s.handles().items():
        if kind == "mempool" and isinstance(obj, DefaultPool):
            return h, obj
    pool = DefaultPool()
    return s.new_handle("mempool", pool), pool


def pool_of_allocations(s) -> DefaultPool | None:
    """The default pool if the session has one yet (stream-ordered allocations are counted in it)."""
    for kind, obj in s.handles().values():
        if kind == "mempool" and isinstance(obj, DefaultPool):
            return obj
    return None


@handles("cuDeviceGetDefaultMemPool", "cudaDeviceGetDefaultMemPool", "cuDeviceGetMemPool", "cudaDeviceGetMemPool")
def device_pool(s, dev):
    return (default_pool(s)[0],)


@handles("cuMemPoolTrimTo", "cudaMemPoolTrimTo")
def pool_trim(s, pool, keep):
    obj = s.get("mempool", pool)
    if not isinstance(obj, DefaultPool):
        s.device.mem_pool_trim(obj, keep)
    return ()  # the default pool keeps nothing beyond what is in use


@handles("cuMemPoolGetAttribute")
def pool_get_attribute(s, pool, attr):
    obj = s.get("mempool", pool)
    return (obj.get(attr) if isinstance(obj, DefaultPool) else s.device.mem_pool_attribute(obj, attr),)


@handles("cuMemPoolSetAttribute")
def pool_set_attribute(s, pool, attr, value):
    obj = s.get("mempool", pool)
    if isinstance(obj, DefaultPool):
        obj.set(attr, value)
    else:
        s.device.mem_pool_attribute(obj, attr, value)
    return ()
