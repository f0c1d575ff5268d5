"""The software GPU's compiled copies (sim/idle_waits.py over cuda/copies.py's copier in flat mode): the
copier knows exactly the allocations the memory's range check accepts, through every change of the
table, and forgets the mapping when the memory closes."""
from __future__ import annotations

import numpy as np
import pytest

from rgpu.server.backends.sim import idle_waits
from rgpu.server.backends.sim.memory import DeviceMemory


@pytest.fixture
def mem(monkeypatch):
    monkeypatch.delenv("RGPU_FAST_LAUNCH", raising=False)
    monkeypatch.delenv("RGPU_FAST_COPY", raising=False)
    m = DeviceMemory(1 << 26)
    waits = idle_waits.make(m)
    assert waits is not None and waits.copier is not None
    m.waits = waits  # (kept alive with the memory)
    yield m
    if m.arena is not None:
        m.close()


def _probes(mem) -> np.ndarray:
    """(address, length) rows around every allocation: inside, to its end, one byte past, before it."""
    rows = []
    for start, size in mem.allocations():
        rows += [(start, size), (start + size - 1, 1), (start, size + 1), (start + size, 1), (start - 1, 2)]
    return np.array(rows or [(mem.base, 1)], dtype=np.uint64)


def _agrees(mem) -> None:
    copier = mem.waits.copier
    probes = _probes(mem)
    with copier.held():
        live = copier.live(probes)
    expect = [(found := mem.allocation(int(a))) is not None and int(a) + int(n) <= found[0] + found[1]
              for a, n in probes]
    assert live.tolist() == expect


def test_the_copiers_table_is_the_memorys_through_every_change(mem):
    _, b, _ = mem.alloc(1000), mem.alloc(1), mem.alloc(4096)
    _agrees(mem)
    mem.free(b)
    _agrees(mem)
    assert not mem.waits.copier.live(np.array([(b, 1)], dtype=np.uint64))[0]
    lo, hi = mem.placement_region()
    mem.place(lo, 300, 1 << 20, 512)  # a placement the client chose
    _agrees(mem)
    restored = mem.base + (40 << 20)
    mem.alloc_at(restored, 5000, 8192)  # a checkpoint's allocation, at its address
    _agrees(mem)
    r = mem.reserve_range(4 << 20, 2 << 20)  # VMM: a reserved range, two runs mapped, then one
    mem.expose(r, r + (4 << 20), [(r, 1 << 20), (r + (2 << 20), 1 << 20)])
    _agrees(mem)
    mem.expose(r, r + (4 << 20), [(r + (2 << 20), 1 << 20)])
    _agrees(mem)
    mem.free_all()
    _agrees(mem)


def test_a_closed_memory_is_forgotten(mem):
    a = mem.alloc(4096)
    copier = mem.waits.copier
    mem.close()
    with copier.held():
        assert not copier.live(np.array([(a, 16)], dtype=np.uint64))[0]
    assert mem.mirror is None


def test_without_compiled_copies_nothing_is_mirrored(monkeypatch):
    monkeypatch.setenv("RGPU_FAST_COPY", "0")
    m = DeviceMemory(1 << 24)
    try:
        waits = idle_waits.make(m)
        assert waits is not None and waits.copier is None and m.mirror is None
    finally:
        m.close()
