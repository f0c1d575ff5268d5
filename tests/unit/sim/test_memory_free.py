"""Freeing an allocation gives its pages back without touching a neighbour sharing a page; allocations
after any history of frees take the lowest hole that fits."""
from rgpu.server.backends.sim.memory import DeviceMemory


def test_free_keeps_the_neighbour_on_a_shared_page():
    mem = DeviceMemory(1 << 20)
    try:
        a = mem.alloc(1024)
        b = mem.alloc(64)  # right after a, on the same page
        mem.write(a, b"\x05" * 1024)
        mem.write(b, b"\x07" * 64)
        mem.free(b)
        assert mem.read(a, 1024) == b"\x05" * 1024
        big = mem.alloc(3 << 12)  # whole pages inside it are still given back
        mem.write(big, b"\x01" * (3 << 12))
        mem.free(big)
        assert mem.read(a, 1024) == b"\x05" * 1024
    finally:
        mem.close()


def _first_fit(taken, base, limit, size, align):
    """The lowest aligned address with ``size`` free bytes, from the ranges taken (the reference)."""
    cursor = base
    for start, end in sorted(taken):
        cursor = -(-cursor // align) * align
        if start - cursor >= size:
            return cursor
        cursor = max(cursor, end)
    cursor = -(-cursor // align) * align
    return cursor if limit - cursor >= size else None


def test_allocation_takes_the_lowest_hole_that_fits_through_any_history():
    """The vectorised hole search answers as a scan of every range would: the first hole that
    fits, holes that frees leave included, and reserved ranges (cuMemAddressReserve) respected."""
    import random

    from rgpu.server.backends.sim.memory import GUARD, DeviceMemory

    mem = DeviceMemory(64 << 20)
    rng = random.Random(3)
    live = []
    mem.reserve_range(1 << 20, 1 << 16, hint=mem.base + (8 << 20))
    for _ in range(3000):
        if live and rng.random() < 0.45:
            mem.free(live.pop(rng.randrange(len(live))))
            continue
        size = rng.choice([1, 256, 4000, 70000, 1 << 20])
        rounded = max(256, -(-size // 256) * 256)
        taken = [*zip(mem._starts, mem._spans), *mem._reserved]
        want = _first_fit(taken, mem.base, mem.base + mem._span, rounded + GUARD, 256)
        got = mem.alloc(size)
        assert got == want
        live.append(got)
        assert mem._np_starts.tolist() == mem._starts and mem._np_spans.tolist() == mem._spans
    spans = sorted([*zip(mem._starts, mem._spans), *mem._reserved])
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
