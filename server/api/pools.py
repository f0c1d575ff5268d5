"""Stream-ordered memory pools (cudaMallocAsync, cudaMallocFromPoolAsync, cudaMemPool*): the pools a
session sees, with their attributes, access and accounting, the same on every backend.

A pool here is the session's bookkeeping, not a driver pool: its allocations are the session's
ordinary device allocations (charged to the lease's quota like cudaMalloc, which a driver pool would
bypass), tagged with the pool they came from. A pool keeps no freed memory back for reuse, so what
it holds reserved is what is in use — a pool that releases at once, which CUDA's contract allows at
any release threshold — and trimming has nothing to give back. Each session's GPU has a default pool
(made when first needed) and a current pool that cudaMallocAsync takes from; destroying the current
pool makes the default current again, and a destroyed pool's allocations stay valid until freed.
A checkpoint (a move, a failover, an idle reclaim) carries the pools, their settings and counters,
and which allocation came from which (capture, restore): the allocations themselves are the
session's memory, placed again at their addresses like any other."""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

from ..errors import CudaError
from . import handles

LOCATION_DEVICE, PINNED = 1, 1  # CU_MEM_LOCATION_TYPE_DEVICE, CU_MEM_ALLOCATION_TYPE_PINNED
LOCATION = struct.Struct("<ii")  # CUmemLocation
ACCESS_DESC = struct.Struct("<iiI")  # CUmemAccessDesc: location {type, id}, flags
PROPS = struct.Struct("<iiii8xQ")  # CUmemPoolProps: allocType, handleTypes, location, (security), maxSize
PROT_NONE, PROT_READ, PROT_READWRITE = 0, 1, 3
# CU_MEMPOOL_ATTR_*: the reuse policies (int) and the release threshold (cuuint64_t) are the
# program's; the counters are the pool's, and their high-water marks may only be reset (to 0).
REUSE_POLICIES, RELEASE_THRESHOLD = (1, 2, 3), 4
RESERVED_CURRENT, RESERVED_HIGH, USED_CURRENT, USED_HIGH = 5, 6, 7, 8


def _invalid(why: str):
    return CudaError("CUDA_ERROR_INVALID_VALUE", why)


@dataclass(eq=False)
class Pool:
    max_size: int = 0  # 0: up to the device's memory
    default: bool = False
    handle: int = 0  # the session handle naming it, once the program has asked for one
    settings: dict = field(default_factory=lambda: {1: 1, 2: 1, 3: 1, RELEASE_THRESHOLD: 0})
    used: int = 0
    high: int = 0  # used (= reserved) high-water mark
    reserved_high: int = 0


class Pools:
    def __init__(self):
        self.default = Pool(default=True)
        self.current = self.default
        self.of: dict[int, tuple[Pool, int]] = {}  # allocation address -> (its pool, bytes)
        self.restored: list[Pool] = []  # from a checkpoint: what its pool handles name


# -- checkpoints (server/checkpoint/session.py, objects.py) -----------------------------------------
def capture(s) -> dict | None:
    """The session's pools, the current one, and which allocation came from which (None: no pool
    was ever used)."""
    if s.pools is None:
        return None
    st, pools, index = s.pools, [], {}

    def number(p: Pool) -> int:
        if id(p) not in index:
            index[id(p)] = len(pools)
            pools.append(p)
        return index[id(p)]

    number(st.default)
    number(st.current)
    for _, (kind, obj) in sorted(s.handles().items()):
        if kind == "mempool":
            number(obj)
    of = [[addr, number(p), n] for addr, (p, n) in sorted(st.of.items())]
    return {"pools": [[p.max_size, p.default, p.handle, sorted(p.settings.items()), p.used, p.high, p.reserved_high]
                      for p in pools],
            "current": index[id(st.current)], "of": of}


def restore(s, state: dict | None) -> None:
    """What capture returned, into a session being restored (before its handles are)."""
    if not state:
        return
    pools = [Pool(max_size=m, default=d, handle=h, settings=dict(settings), used=u, high=high, reserved_high=r)
             for m, d, h, settings, u, high, r in state["pools"]]
    st = Pools()
    st.default, st.current, st.restored = pools[0], pools[state["current"]], pools
    st.of = {addr: (pools[i], n) for addr, i, n in state["of"]}
    s.pools = st


def restored(s, handle: int) -> Pool:
    """The restored pool a handle names."""
    found = [p for p in (s.pools.restored if s.pools else []) if p.handle == handle]
    if not found:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"the checkpoint holds no memory pool of handle 0x{handle:x}")
    return found[0]


def _state(s) -> Pools:
    if s.pools is None:
        s.pools = Pools()
    return s.pools


def handle_of(s, pool: Pool) -> int:
    """The session handle that names `pool` (made the first time the program is shown it)."""
    if not pool.handle:
        pool.handle = s.new_handle("mempool", pool)
    return pool.handle


def _check_location(location, kind: int = PINNED) -> None:
    if not isinstance(location, bytes) or len(location) < LOCATION.size:
        raise _invalid("CUmemLocation missing")
    loc_type, _ = LOCATION.unpack_from(location)
    if loc_type != LOCATION_DEVICE:
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"location type {loc_type}: rgpu's pools are device memory")
    if kind != PINNED:
        raise _invalid(f"allocation type {kind}: pools hold pinned (device) memory")


# -- allocation (memory.py's cudaMallocAsync/cudaFreeAsync/cudaFree call these) ------------------
def allocate(s, size: int, pool: Pool | None = None) -> int:
    """Device memory for an asynchronous allocation, from `pool` (the current one by default)."""
    st = _state(s)
    pool = pool or st.current
    if pool.max_size and pool.used + size > pool.max_size:
        raise CudaError("CUDA_ERROR_OUT_OF_MEMORY", f"{size} bytes exceed the pool's maximum size ({pool.max_size})")
    addr = s.device.mem_alloc(size)
    st.of[addr] = (pool, size)
    pool.used += size
    pool.high = max(pool.high, pool.used)
    pool.reserved_high = max(pool.reserved_high, pool.used)
    return addr


def freed(s, addr: int) -> None:
    """An allocation went (cudaFreeAsync or cudaFree): its pool no longer holds it."""
    if s.pools is None:
        return
    found = s.pools.of.pop(addr, None)
    if found is not None:
        found[0].used -= found[1]


# -- the pools -------------------------------------------------------------------------------
@handles("cuDeviceGetDefaultMemPool", "cudaDeviceGetDefaultMemPool")
def device_default_pool(s, dev):
    """[device] -> [pool]"""
    return (handle_of(s, _state(s).default),)


@handles("cuDeviceGetMemPool", "cudaDeviceGetMemPool")
def device_pool(s, dev):
    """[device] -> [pool]: the one cudaMallocAsync takes from."""
    return (handle_of(s, _state(s).current),)


@handles("cuDeviceSetMemPool", "cudaDeviceSetMemPool")
def device_set_pool(s, dev, pool):
    """[device, pool]"""
    _state(s).current = s.get("mempool", pool)
    return ()


@handles("cuMemGetDefaultMemPool", "cudaMemGetDefaultMemPool")
def default_pool(s, location, kind):
    """[location, type] -> [pool]"""
    _check_location(location, kind)
    return (handle_of(s, _state(s).default),)


@handles("cuMemGetMemPool", "cudaMemGetMemPool")
def current_pool(s, location, kind):
    """[location, type] -> [pool]"""
    _check_location(location, kind)
    return (handle_of(s, _state(s).current),)


@handles("cuMemSetMemPool", "cudaMemSetMemPool")
def set_current_pool(s, location, kind, pool):
    """[location, type, pool]"""
    _check_location(location, kind)
    _state(s).current = s.get("mempool", pool)
    return ()


@handles("cuMemPoolCreate", "cudaMemPoolCreate")
def create(s, props):
    """[props] -> [pool]"""
    if not isinstance(props, bytes) or len(props) < PROPS.size:
        raise _invalid("CUmemPoolProps missing")
    kind, _handle_types, loc_type, _loc_id, max_size = PROPS.unpack_from(props)
    _check_location(LOCATION.pack(loc_type, 0), kind)
    return (handle_of(s, Pool(max_size=max_size)),)


@handles("cuMemPoolDestroy", "cudaMemPoolDestroy")
def destroy(s, pool):
    """[pool]: its allocations stay valid until freed; the default pool cannot be destroyed."""
    p = s.get("mempool", pool)
    if p.default:
        raise _invalid("a device's default memory pool cannot be destroyed")
    s.drop("mempool", pool)
    st = _state(s)
    if st.current is p:
        st.current = st.default
    return ()


@handles("cuMemPoolTrimTo", "cudaMemPoolTrimTo")
def trim(s, pool, keep):
    """[pool, minBytesToKeep]: a pool here keeps nothing it could give back."""
    s.get("mempool", pool)
    return ()


@handles("cuMemPoolSetAccess", "cudaMemPoolSetAccess")
def set_access(s, pool, descs, count):
    """[pool, desc[count], count]: checked and taken. A pool's own GPU always reads and writes it, and
    another vGPU never can (vGPUs have no peer access), so no descriptor changes what kernels may do."""
    s.get("mempool", pool)
    if not isinstance(descs, bytes) or len(descs) != count * ACCESS_DESC.size:
        raise _invalid("access descriptors missing")
    for i in range(count):
        loc_type, _, flags = ACCESS_DESC.unpack_from(descs, i * ACCESS_DESC.size)
        if loc_type != LOCATION_DEVICE or flags not in (PROT_NONE, PROT_READ, PROT_READWRITE):
            raise _invalid(f"access descriptor {i}: location type {loc_type}, flags {flags}")
    return ()


@handles("cuMemPoolGetAccess", "cudaMemPoolGetAccess")
def get_access(s, pool, location):
    """[pool, location] -> [flags]"""
    s.get("mempool", pool)
    _check_location(location)
    return (PROT_READWRITE,)


@handles("cuMemPoolSetAttribute", "cudaMemPoolSetAttribute")
def set_attribute(s, pool, attr, value):
    """[pool, attr, value]: value as an integer (the client library read it at the attribute's width)."""
    p = s.get("mempool", pool)
    if attr in REUSE_POLICIES:
        p.settings[attr] = 1 if value else 0
    elif attr == RELEASE_THRESHOLD:
        p.settings[attr] = value
    elif attr in (RESERVED_HIGH, USED_HIGH) and value == 0:  # a reset, to the current value
        if attr == RESERVED_HIGH:
            p.reserved_high = p.used
        else:
            p.high = p.used
    else:
        raise _invalid(f"memory pool attribute {attr} cannot be set to {value}")
    return ()


@handles("cuMemPoolGetAttribute", "cudaMemPoolGetAttribute")
def get_attribute(s, pool, attr):
    """[pool, attr] -> [value]"""
    p = s.get("mempool", pool)
    if attr in p.settings:
        return (p.settings[attr],)
    values = {RESERVED_CURRENT: p.used, RESERVED_HIGH: p.reserved_high, USED_CURRENT: p.used, USED_HIGH: p.high}
    if attr not in values:
        raise _invalid(f"memory pool attribute {attr}")
    return (values[attr],)


@handles("cuMemAllocFromPoolAsync", "cudaMallocFromPoolAsync")
def alloc_from_pool(s, size, pool, stream):
    """[size, pool, stream] -> [address]"""
    p = s.get("mempool", pool)
    s.get("stream", stream)
    if size == 0:
        raise _invalid("zero-byte allocation")
    return (allocate(s, size, p),)
