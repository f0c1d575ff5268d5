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
        g, b = geo.grid, geo.block
        for k, c in enumerate("xyz"):
            self[f"%ntid.{c}"] = _U32(b[k])
            self[f"%nctaid.{c}"] = _U32(g[k])
            self[f"%nclusterid.{c}"] = _U32(g[k])
            self[f"%cluster_ctaid.{c}"] = _U32(0)
            self[f"%cluster_nctaid.{c}"] = _U32(1)
        self.update({
            "%nwarpid": _U32(geo.warps_per_sm), "%nsmid": _U32(geo.sms), "%gridid": _U32(1),
            "%cluster_ctarank": _U32(0), "%cluster_nctarank": _U32(1), "%is_explicit_cluster": _U32(0),
        })

    def __missing__(self, name):
        f = _LANE_SPECIALS.get(name)
        if f is None:
            raise KeyError(name)
        v = _frozen(f(self.geo).astype(_U32, copy=False))
        self[name] = v
        return v


def _lane64(geo):
    return (geo.t % WARP_SIZE).astype(np.uint64)


_LANE_SPECIALS = {
    "%tid.x": lambda g: g.t % g.block[0],
    "%tid.y": lambda g: (g.t // g.block[0]) % g.block[1],
    "%tid.z": lambda g: g.t // (g.block[0] * g.block[1]),
    "%ctaid.x": lambda g: g.blk % g.grid[0],
    "%ctaid.y": lambda g: (g.blk // g.grid[0]) % g.grid[1],
    "%ctaid.z": lambda g: g.blk // (g.grid[0] * g.grid[1]),
    "%laneid": lambda g: g.t % WARP_SIZE,
    "%warpid": lambda g: g.t // WARP_SIZE,
    "%smid": lambda g: g.blk % g.sms,
    "%lanemask_eq": lambda g: _ONE << g.laneid64,
    "%lanemask_lt": lambda g: (_ONE << g.laneid64) - _ONE,
    "%lanemask_le": lambda g: (_ONE << (g.laneid64 + _ONE)) - _ONE,
    "%lanemask_gt": lambda g: ~((_ONE << (g.laneid64 + _ONE)) - _ONE),
    "%lanemask_ge": lambda g: ~((_ONE << g.laneid64) - _ONE),
}
for _c in "xyz":
    _LANE_SPECIALS[f"%clusterid.{_c}"] = _LANE_SPECIALS[f"%ctaid.{_c}"]


class Geometry:
    """``nb`` blocks of ``block`` threads starting at linear block ``start`` of ``grid``; every
    block is padded to whole warps (``tpad`` lanes), the padding lanes never run."""

    def __init__(self, grid: tuple, block: tuple, start: int, nb: int, sms: int = NUM_SMS,
                 warps_per_sm: int = MAX_WARPS_PER_SM):
        self.grid, self.block, self.start, self.nb = grid, block, start, nb
        self.sms, self.warps_per_sm = sms, warps_per_sm
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
             warps_per_sm: int = MAX_WARPS_PER_SM) -> Geometry:
    """The (shared, when small) layout of one batch on a device of ``sms`` SMs."""
    key = (grid, block, start, nb, sms, warps_per_sm)
    geo = _cache.get(key)
    if geo is not None:
        return geo
    geo = Geometry(grid, block, start, nb, sms, warps_per_sm)
    if geo.n <= CACHED_LANES:
        if len(_cache) >= CACHE_ENTRIES:
            _cache.pop(next(iter(_cache)))
        _cache[key] = geo
    return geo
