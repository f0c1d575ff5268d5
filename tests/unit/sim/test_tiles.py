"""Cooperative groups' tiles of 8 and 16 lanes: warp collectives whose member mask differs from
lane to lane, each lane's result covering its own tile only (against numpy)."""
from __future__ import annotations

import numpy as np
import pytest

from rgpu.server.backends.sim.kernels import KernelModule


@pytest.fixture(scope="module", params=["ptx", "debug-G"])
def tiles_module(request, build_image):
    return KernelModule.load(build_image("simtiles.cu", request.param))


def per_tile(v: np.ndarray, size: int) -> np.ndarray:
    return v.reshape(-1, size)


def test_tile_collectives(tiles_module, make_device, rng):
    dev = make_device(tiles_module)
    n = 256
    v = rng.integers(0, 100, n).astype(np.int32)
    v[16:32] = np.maximum(v[16:32], 3)  # one tile where all() holds
    din = dev.put(v)
    outs = {name: dev.zeros(n, np.int32) for name in
            ("sum8", "sum16", "ballot16", "any16", "all16", "shfl16", "match16", "max8")}
    dev.launch("tile_ops", 2, 128, din, *outs.values())
    got = {k: dev.get(a, n, np.int32) for k, a in outs.items()}

    t16, t8 = per_tile(v, 16), per_tile(v, 8)
    np.testing.assert_array_equal(got["sum16"], np.repeat(t16.sum(axis=1), 16))
    np.testing.assert_array_equal(got["sum8"], np.repeat(t8.sum(axis=1), 8))
    np.testing.assert_array_equal(got["max8"], np.repeat(t8.max(axis=1), 8))
    rank_bits = (1 << np.arange(16)).astype(np.int64)
    ballot = ((t16 & 1).astype(np.int64) * rank_bits).sum(axis=1)
    np.testing.assert_array_equal(got["ballot16"].astype(np.int64) & 0xFFFFFFFF, np.repeat(ballot, 16))
    np.testing.assert_array_equal(got["any16"] != 0, np.repeat((t16 > 90).any(axis=1), 16))
    np.testing.assert_array_equal(got["all16"] != 0, np.repeat((t16 >= 3).all(axis=1), 16))
    assert (got["all16"] != 0).any() and (got["all16"] == 0).any()
    r = np.arange(16)
    src = np.where(r + 3 < 16, r + 3, r)
    np.testing.assert_array_equal(got["shfl16"], t16[:, src].reshape(-1))
    key = t16 % 4
    match = ((key[:, :, None] == key[:, None, :]) * rank_bits[None, None, :]).sum(axis=2)
    np.testing.assert_array_equal(got["match16"].astype(np.int64) & 0xFFFFFFFF, match.reshape(-1))
