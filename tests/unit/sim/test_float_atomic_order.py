"""The interpreter's float atomic adds (ptx/ops_mem.atomic_rmw) against a plain loop: lanes on one
address add one after another in lane order, each sum rounded as atom.add does (f32 in global memory:
subnormals flushed; in shared memory kept; NaNs canonical), whichever of its two ways it takes (one
np.add.accumulate per address, or rounds of one lane per address)."""
from __future__ import annotations

import numpy as np
import pytest

from rgpu.server.backends.sim.ptx import ops_mem
from rgpu.server.backends.sim.ptx.types import dtype_of


@pytest.mark.parametrize("op", ["add.f32", "add.f32.shared", "add.f64"])
@pytest.mark.parametrize("addresses", [1, 3, 40])
def test_float_adds_are_serial_in_lane_order(op, addresses):
    t = op.split(".")[1]
    dt = dtype_of(t)
    rng = np.random.default_rng(addresses)
    for trial in range(40):
        k = int(rng.integers(1, 300))
        mem = rng.standard_normal(64).astype(dt)
        if trial % 5 == 0:
            mem[:4] = dt.type(1e-39) if t == "f32" else dt.type(1e-310)  # subnormal words
        if trial % 7 == 0:
            mem[1] = np.nan
        arena = np.frombuffer(mem.tobytes(), np.uint8).copy()
        offs = (rng.integers(0, addresses, k) * dt.itemsize).astype(np.int64)
        b = (rng.standard_normal(k) * rng.choice([1, 1e-38, 1e30], k)).astype(dt)
        want, want_old = mem.copy(), np.empty(k, dt)
        for i in range(k):
            e = offs[i] // dt.itemsize
            want_old[i] = want[e]
            want[e] = ops_mem._FLOAT_ADDS[op](np.asarray(want[e], dt), np.asarray(b[i], dt))
        old = ops_mem.atomic_rmw(arena, offs, dt, op, t, b, None)
        assert arena.tobytes() == want.tobytes(), (op, trial)
        assert np.asarray(old, dt).tobytes() == want_old.tobytes(), (op, trial)


def test_the_f32_add_flushes_and_canonicalises_as_the_isa_says():
    add, shared = ops_mem._FLOAT_ADDS["add.f32"], ops_mem._FLOAT_ADDS["add.f32.shared"]
    tiny = np.float32(1.17549435e-38)
    assert add(np.float32(1.5) * tiny, -tiny).tobytes() == np.float32(0).tobytes()
    assert add(np.float32(3), tiny / 4) == 3 and shared(np.float32(0), tiny / 4) == tiny / 4
    payload = np.array([0x7FC00001], np.uint32).view(np.float32)
    assert add(payload, np.float32(1)).view(np.uint32)[0] == 0x7FFFFFFF
    assert shared(payload, np.float32(1)).view(np.uint32)[0] == 0x7FFFFFFF
