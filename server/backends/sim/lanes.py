"""Lane layout of a batch of blocks: which thread and block every numpy lane is, and the special
registers that follow from it (%tid, %ctaid, %laneid, lane masks, ...).

The layout depends only on (grid, block, first block, number of blocks), never on the kernel or
its arguments, so small batches -- the ones whose fixed cost dominates a launch -- share one
``Geometry`` between launches. Arrays are built on first use (a kernel that never reads %tid.y
never pays for it) and are read-only: registers may alias them (``mov %r1, %tid.x`` stores the
array itself), and the interpreter never writes a register array in place.
"""
from __future__ import annotations

from functools import cached_property

import numpy as np

WARP_SIZE = 32
# %nsmid and %nwarpid of a launch that names no architecture (the interpreter's own tests).
NUM_SMS = 108
MAX_WARPS_PER_SM = 64
# Batches of at most this many lanes keep their layout between launches; bigger ones pay for it
# once per batch anyway, and holding their arrays would cost host memory.
CACHED_LANES = 1 << 16
CACHE_ENTRIES = 128
# A block's shared memory is allocated in units of this many bytes (the shared-memory allocation unit
# of CUDA's occupancy calculator for sm_80 and later), and its window is that big: an access past the
# variables but inside the last unit does not fault on a GPU (numba's test_device_arch_specific
# replaces a field of a 128-byte tensor map held in a 4-byte shared array); past the unit it does.
SHARED_GRANULE = 128


def shared_window(nbytes: int) -> int:
    """The bytes of shared memory a block's accesses may touch when its variables take `nbytes`."""
    return -(-nbytes // SHARED_GRANULE) * SHARED_GRANULE

_U32 = np.uint32
_ONE = np.uint64(1)


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


class Specials(dict):
    """Special-register values of a batch, computed on first read."""

    def __init__(self, geo: "Geometry"):
        super().__init__()
        self.geo = geo
        g, b, c = geo.grid, geo.block, geo.cluster
        for k, n in enumerate("xyz"):
            self[f"%ntid.{n}"] = _U32(b[k])
            self[f"%nctaid.{n}"] = _U32(g[k])
            self[f"%nclusterid.{n}"] = _U32(g[k] // c[k])
            self[f"%cluster_nctaid.{n}"] = _U32(c[k])
            if geo.csize == 1:  # a block is its own cluster
                self[f"%cluster_ctaid.{n}"] = _U32(0)
        self.update({
            "%nwarpid": _U32(geo.warps_per_sm), "%nsmid": _U32(geo.sms), "%gridid": _U32(1),
            "%cluster_nctarank": _U32(geo.csize), "%is_explicit_cluster": _U32(geo.csize > 1),
        })
        if geo.csize == 1:
            self["%cluster_ctarank"] = _U32(0)

    def __missing__(self, name):
        f = _LANE_SPECIALS.get(name)
        if f is None:
            raise KeyError(name)
        v = _frozen(f(self.geo).astype(_U32, copy=False))
        self[name] = v
        return v


def _lane64(geo):
    return (geo.t % WARP_SIZE).astype(np.uint64)


def _coords(i, dims):
    """x, y, z of linear indices `i` over `dims` (x fastest)."""
    return i % dims[0], (i // dims[0]) % dims[1], i // (dims[0] * dims[1])


def _ctaid(g, k):
    """%ctaid: in a cluster launch, blocks run cluster by cluster (blk is cluster-major: the blocks
    of one cluster are consecutive, so a batch holds whole clusters); otherwise blk is the block's
    linear index in the grid."""
    if g.csize == 1:
        return _coords(g.blk, g.grid)[k]
    ncl = [g.grid[d] // g.cluster[d] for d in range(3)]
    return _coords(g.blk // g.csize, ncl)[k] * g.cluster[k] + _coords(g.blk % g.csize, g.cluster)[k]


_LANE_SPECIALS = {
    "%tid.x": lambda g: g.t % g.block[0],
    "%tid.y": lambda g: (g.t // g.block[0]) % g.block[1],
    "%tid.z": lambda g: g.t // (g.block[0] * g.block[1]),
    "%ctaid.x": lambda g: _ctaid(g, 0),
    "%ctaid.y": lambda g: _ctaid(g, 1),
    "%ctaid.z": lambda g: _ctaid(g, 2),
    "%cluster_ctarank": lambda g: g.blk % g.csize,
    "%laneid": lambda g: g.t % WARP_SIZE,
    "%warpid": lambda g: g.t // WARP_SIZE,
    "%smid": lambda g: g.blk % g.sms,
    "%lanemask_eq": lambda g: _ONE << g.laneid64,
    "%lanemask_lt": lambda g: (_ONE << g.laneid64) - _ONE,
    "%lanemask_le": lambda g: (_ONE << (g.laneid64 + _ONE)) - _ONE,
    "%lanemask_gt": lambda g: ~((_ONE << (g.laneid64 + _ONE)) - _ONE),
    "%lanemask_ge": lambda g: ~((_ONE << g.laneid64) - _ONE),
}
for _k, _c in enumerate("xyz"):
    _LANE_SPECIALS[f"%clusterid.{_c}"] = (lambda k: lambda g: _ctaid(g, k) // g.cluster[k])(_k)
    _LANE_SPECIALS[f"%cluster_ctaid.{_c}"] = (lambda k: lambda g: _coords(g.blk % g.csize, g.cluster)[k])(_k)


class Geometry:
    """``nb`` blocks of ``block`` threads starting at linear block ``start`` of ``grid``; every
    block is padded to whole warps (``tpad`` lanes), the padding lanes never run."""

    def __init__(self, grid: tuple, block: tuple, start: int, nb: int, sms: int = NUM_SMS,
                 warps_per_sm: int = MAX_WARPS_PER_SM, cluster: tuple = (1, 1, 1)):
        self.grid, self.block, self.start, self.nb = grid, block, start, nb
        self.sms, self.warps_per_sm = sms, warps_per_sm
        self.cluster = cluster  # thread-block cluster dimensions; a batch holds whole clusters
        self.csize = cluster[0] * cluster[1] * cluster[2]
        self.T = block[0] * block[1] * block[2]
        self.tpad = -(-self.T // WARP_SIZE) * WARP_SIZE
        self.n = nb * self.tpad
        self.special = Specials(self)

    @cached_property
    def t(self):  # thread index within the block
        return _frozen(np.tile(np.arange(self.tpad, dtype=np.int64), self.nb))

    @cached_property
    def lane_block(self):  # block index within the batch
        return _frozen(np.repeat(np.arange(self.nb, dtype=np.int64), self.tpad))

    @cached_property
    def blk(self):  # block index within the grid
        return _frozen(self.lane_block + self.start) if self.start else self.lane_block

    @cached_property
    def all_idx(self):
        return _frozen(np.arange(self.n))

    @cached_property
    def all_lanes(self):
        return _frozen(np.ones(self.n, bool))

    @cached_property
    def live(self):
        return self.all_lanes if self.T == self.tpad else _frozen(self.t < self.T)

    @cached_property
    def laneid(self):
        return _frozen(self.t % WARP_SIZE)

    @cached_property
    def laneid64(self):
        return _frozen(_lane64(self))

    @cached_property
    def lane_shift(self):
        return _frozen(np.arange(WARP_SIZE, dtype=np.uint64))

    @cached_property
    def warp_base(self):
        return _frozen((np.arange(self.n, dtype=np.int64) // WARP_SIZE) * WARP_SIZE)


_cache: dict[tuple, Geometry] = {}


def geometry(grid: tuple, block: tuple, start: int, nb: int, sms: int = NUM_SMS,
             warps_per_sm: int = MAX_WARPS_PER_SM, cluster: tuple = (1, 1, 1)) -> Geometry:
    """The (shared, when small) layout of one batch on a device of ``sms`` SMs."""
    key = (grid, block, start, nb, sms, warps_per_sm, cluster)
    geo = _cache.get(key)
    if geo is not None:
        return geo
    geo = Geometry(grid, block, start, nb, sms, warps_per_sm, cluster)
    if geo.n <= CACHED_LANES:
        if len(_cache) >= CACHE_ENTRIES:
            _cache.pop(next(iter(_cache)))
        _cache[key] = geo
    return geo
