"""fp16 and bf16 kernels written with cuda_fp16.h / cuda_bf16.h intrinsics, against numpy. Their
inline asm declares registers in nested scopes, also glued to the directive ('.reg.b32 f;')."""
from __future__ import annotations

import numpy as np
import pytest

from rgpu.server.backends.sim.kernels import KernelModule


def bf16_round(x: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 (round to nearest even) -> float32, as cvt.rn.bf16.f32 does."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


@pytest.fixture(scope="module", params=["ptx", "debug-G"])
def half_module(request, build_image):
    return KernelModule.load(build_image("simhalf.cu", request.param))


def test_half_and_bfloat16_intrinsics(half_module, make_device):
    dev = make_device(half_module)
    n = 300
    a = (np.arange(n) * 0.25 - 37).astype(np.float16)
    b = (np.arange(n) * 0.5 - 11).astype(np.float16)
    da, db = dev.put(a), dev.put(b)
    dfma, df, dbf = dev.zeros(n, np.float16), dev.zeros(n, np.float32), dev.zeros(n, np.uint16)
    dev.launch("half_ops", 2, 256, da, db, dfma, df, dbf, n)
    # __hfma rounds once: the exact product plus one, to half.
    want_fma = (a.astype(np.float64) * b.astype(np.float64) + 1.0).astype(np.float16)
    np.testing.assert_array_equal(dev.get(dfma, n, np.float16), want_fma)
    sq = np.sqrt(np.abs(a).astype(np.float32)).astype(np.float16).astype(np.float32)
    want_f = (a * a).astype(np.float32) + (b * b).astype(np.float32) + sq
    got_f = dev.get(df, n, np.float32)
    np.testing.assert_allclose(got_f, want_f, rtol=2e-3)
    got_bf = (dev.get(dbf, n, np.uint16).astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_array_equal(got_bf, bf16_round(bf16_round(got_f) * 2))


def test_half2_axpy(half_module, make_device):
    dev = make_device(half_module)
    n = 512  # half2 pairs
    x = np.linspace(-4, 4, 2 * n).astype(np.float16)
    y = np.linspace(3, -1, 2 * n).astype(np.float16)
    dx, dy = dev.put(x), dev.put(y)
    dev.launch("half2_axpy", 2, 256, dx, dy, 1.5, n)
    want = (np.float64(1.5) * x.astype(np.float64) + y.astype(np.float64)).astype(np.float16)
    np.testing.assert_array_equal(dev.get(dy, 2 * n, np.float16), want)


def test_half_atomics(half_module, make_device):
    dev = make_device(half_module)
    n = 256
    h, h2 = dev.zeros(4, np.float16), dev.zeros(4, np.float16)
    b, b2 = dev.zeros(3, np.uint16), dev.zeros(2, np.uint16)
    olds = dev.zeros(n, np.float16)
    dev.launch("half_atomics", 2, 128, h, h2, b, b2, olds)
    v = (np.arange(n) % 5).astype(np.float64)
    np.testing.assert_array_equal(dev.get(h, 4, np.float16), [v[np.arange(n) % 4 == k].sum() for k in range(4)])
    pairs = dev.get(h2, 4, np.float16).reshape(2, 2)
    np.testing.assert_array_equal(pairs, [[v[np.arange(n) % 2 == k].sum(), 2 * v[np.arange(n) % 2 == k].sum()]
                                          for k in range(2)])
    as_f32 = lambda raw: (raw.astype(np.uint32) << 16).view(np.float32)  # noqa: E731
    np.testing.assert_array_equal(as_f32(dev.get(b, 3, np.uint16)), [v[np.arange(n) % 3 == k].sum() for k in range(3)])
    np.testing.assert_array_equal(as_f32(dev.get(b2, 2, np.uint16)), [64, v[:64].sum()])
    # Every lane saw a distinct running total on its address: the adds were serialised.
    old = dev.get(olds, n, np.float16)
    for k in range(4):
        mine = old[np.arange(n) % 4 == k]
        assert len(set(mine.tolist())) > 1 and mine.min() == 0
