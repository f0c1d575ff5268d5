"""The cuda backend's arena (server/backends/cuda/native/arena.c), which the client library also runs,
with nothing behind it, to lay out the allocations it places (libhook/src/memory/placed.c): driven
here through librgpu_launches.so with a driver of Python callbacks that counts what is mapped. Random
allocations and frees against a model of the granules and units each takes: no two live allocations
share a unit, each is aligned as CUDA's are (or as asked: managed memory's host pages), a free gives back exactly its own units (the next
allocation starts right after a neighbour), the arena's own allocations stay below its limit, a place
at the address a mirror of it chose always succeeds and one over a live allocation never does, and
when everything is freed the driver holds at most the one empty granule kept for the next."""
from __future__ import annotations

import random

import pytest

from rgpu.server.backends.cuda import compiled

GRAN, UNIT = 2 << 20, 512
NGRAN = 64
BASE = 0x3400_0000_0000
ffi = compiled.ffi


class Driver:
    """The seven VMM calls arena.c makes, as callbacks: the range at the address asked for, every
    physical allocation a new handle, what is mapped counted."""

    def __init__(self):
        self.mapped: dict[int, int] = {}  # address -> length
        self.handles = 0
        self.live: set[int] = set()

        @ffi.callback("int(unsigned long long *, size_t, size_t, unsigned long long, unsigned long long)")
        def reserve(p, size, align, at, flags):
            p[0] = at
            return 0

        @ffi.callback("int(unsigned long long, size_t)")
        def addr_free(p, size):
            return 0

        @ffi.callback("int(unsigned long long *, size_t, void *, unsigned long long)")
        def create(h, size, prop, flags):
            self.handles += 1
            h[0] = self.handles
            self.live.add(self.handles)
            return 0

        @ffi.callback("int(unsigned long long)")
        def release(h):
            self.live.remove(h)
            return 0

        @ffi.callback("int(unsigned long long, size_t, size_t, unsigned long long, unsigned long long)")
        def map_(p, size, off, h, flags):
            assert not any(a < p + size and p < a + n for a, n in self.mapped.items()), "mapped twice"
            self.mapped[p] = size
            return 0

        @ffi.callback("int(unsigned long long, size_t)")
        def unmap(p, size):
            assert self.mapped.pop(p) == size
            return 0

        @ffi.callback("int(unsigned long long, size_t, void *, size_t)")
        def access(p, size, desc, n):
            return 0

        self._keep = [reserve, addr_free, create, release, map_, unmap, access]
        self.table = ffi.new("void *[7]", [ffi.cast("void *", f) for f in self._keep])


@pytest.fixture
def lib():
    lib = compiled.library()
    assert lib is not None, f"librgpu_launches.so (libhook/build.sh): {compiled.unavailable()}"
    return lib


def opened(lib, drv):
    a = lib.rgpu_arena_open(drv.table, 0, GRAN, BASE, NGRAN * GRAN, 0)
    assert a != ffi.NULL and lib.rgpu_arena_base(a) == BASE
    return a


def taken(addr: int, size: int) -> range:
    """The units (small) or granules' units (large) an allocation takes, as arena.c lays it out."""
    n = -(-size // UNIT) if size <= GRAN // 2 else -(-size // GRAN) * (GRAN // UNIT)
    first = (addr - BASE) // UNIT
    return range(first, first + n)


def alloc(lib, a, size, align=0):
    out = ffi.new("uint64_t *")
    rc = lib.rgpu_arena_alloc_aligned(a, size, align, out) if align else lib.rgpu_arena_alloc(a, size, out)
    return rc, int(out[0])


SIZES = [1, 100, 256, 511, 512, 513, 4096, 65536 + 4, GRAN // 2 - 1, GRAN // 2, GRAN // 2 + 1, GRAN, 3 * GRAN + 7]


def test_random_allocations_and_frees_never_overlap_and_free_exactly_their_own(lib):
    rng = random.Random(38)
    drv = Driver()
    a = opened(lib, drv)
    live: dict[int, int] = {}
    units: dict[int, int] = {}  # unit -> allocation
    try:
        for step in range(3000):
            if live and (rng.random() < 0.45 or len(live) > 300):
                addr = rng.choice(list(live))
                assert lib.rgpu_arena_free(a, addr) == 0
                for u in taken(addr, live.pop(addr)):
                    del units[u]
                assert not lib.rgpu_arena_holds(a, addr)
                continue
            size = rng.choice(SIZES)
            align = rng.choice([0, 0, 4096, 65536])  # managed memory's: a host page the client maps
            rc, addr = alloc(lib, a, size, align)
            if rc:
                assert rc == 2, rc  # out of memory: the range is full
                continue
            assert addr % max(align, UNIT if size <= GRAN // 2 else GRAN) == 0 and lib.rgpu_arena_holds(a, addr)
            for u in taken(addr, size):
                assert u not in units, f"step {step}: 0x{addr:x} (+{size}) over 0x{units[u]:x}"
                units[u] = addr
            live[addr] = size
        for addr in list(live):
            assert lib.rgpu_arena_free(a, addr) == 0
        assert len(drv.live) <= 1 and len(drv.mapped) <= 1  # the one empty granule kept
    finally:
        lib.rgpu_arena_close(a)
    assert not drv.live and not drv.mapped


def test_a_free_gives_back_its_own_units_only(lib):
    drv = Driver()
    a = opened(lib, drv)
    try:
        first = alloc(lib, a, 3 * UNIT)[1]
        second = alloc(lib, a, 700)[1]
        third = alloc(lib, a, 64 * UNIT)[1]  # a run that crosses 64-unit words
        assert (second - first, third - second) == (3 * UNIT, 2 * UNIT)
        assert lib.rgpu_arena_free(a, second) == 0
        assert lib.rgpu_arena_holds(a, first) and lib.rgpu_arena_holds(a, third)
        assert alloc(lib, a, 2 * UNIT)[1] == second  # its two units, not more, not fewer
        assert alloc(lib, a, 1)[1] == third + 64 * UNIT
        assert lib.rgpu_arena_free(a, third) == 0
        assert alloc(lib, a, 64 * UNIT)[1] == third
    finally:
        lib.rgpu_arena_close(a)


def test_places_chosen_by_a_mirror_always_fit_and_the_arenas_own_stay_below_its_limit(lib):
    rng = random.Random(5)
    worker, mirror = Driver(), Driver()
    a = opened(lib, worker)
    half = NGRAN // 2
    lib.rgpu_arena_limit(a, half)
    lent_base = BASE + half * GRAN
    m2 = lib.rgpu_arena_open(mirror.table, 0, GRAN, lent_base, half * GRAN, 0)  # the client's half alone
    try:
        live, own = {}, []
        for _ in range(1500):
            if live and rng.random() < 0.4:
                addr = rng.choice(list(live))
                del live[addr]
                assert lib.rgpu_arena_free(m2, addr) == 0 and lib.rgpu_arena_free(a, addr) == 0
                continue
            size = rng.choice(SIZES)
            rc, addr = alloc(lib, m2, size)
            if rc == 0:
                assert lib.rgpu_arena_lent(a, addr, len(taken(addr, size)) * UNIT)
                assert lib.rgpu_arena_place(a, addr, size) == 0, hex(addr)
                assert lib.rgpu_arena_place(a, addr, size) == 1  # over itself: refused
                live[addr] = size
            rc, mine = alloc(lib, a, rng.choice(SIZES))  # the worker's own: never in the lent half
            if rc == 0:
                assert mine < lent_base and not lib.rgpu_arena_lent(a, mine, 1)
                own.append(mine)
        assert not lib.rgpu_arena_lent(a, lent_base - UNIT, UNIT) and not lib.rgpu_arena_lent(a, lent_base, half * GRAN + 1)
    finally:
        for x in (a, m2):
            lib.rgpu_arena_close(x)


def test_an_aligned_allocation_skips_free_units_off_its_alignment_and_bad_alignments_are_refused(lib):
    drv = Driver()
    a = opened(lib, drv)
    try:
        first = alloc(lib, a, 3 * UNIT)[1]
        rc, page = alloc(lib, a, 4096, 65536)
        assert rc == 0 and page == first + 65536  # not at first + 3 units, where a plain one goes
        assert alloc(lib, a, 700)[1] == first + 3 * UNIT
        for bad in (3, 65536 + 512, 4 * GRAN):
            assert alloc(lib, a, 4096, bad)[0] == 1, bad  # INVALID_VALUE
        assert lib.rgpu_arena_free(a, page) == 0
        assert alloc(lib, a, 4096, 65536)[1] == page
    finally:
        lib.rgpu_arena_close(a)
