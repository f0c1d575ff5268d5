"""The f32 .approx transcendentals as the software GPU defines them (ptx/approx.py): within an f32
ulp of the true value over the ranges the PTX ISA bounds, exact where the math is (powers of two,
zeros, infinities), NaN in, NaN out. The compiled path runs the same definition
(test_jit_ieee.py holds the two to the same bits)."""
from __future__ import annotations

import numpy as np
import pytest

from rgpu.server.backends.sim.ptx import approx


def _inputs():
    rng = np.random.default_rng(5)
    wide = rng.integers(0, 1 << 32, 100_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    near = (rng.standard_normal(100_000) * 4).astype(np.float32)
    return np.concatenate([wide, near])


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    return np.abs(got.astype(np.float64) - want) / np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)


@pytest.mark.parametrize("name, ref, inside", [
    ("ex2", np.exp2, lambda x: np.abs(x) < 127),
    ("lg2", np.log2, lambda x: x > 0),
    ("sin", np.sin, lambda x: np.abs(x) < 1e5),
    ("cos", np.cos, lambda x: np.abs(x) < 1e5),
    ("tanh", np.tanh, lambda x: np.isfinite(x)),
])
def test_results_are_within_an_ulp_of_the_true_value(name, ref, inside):
    x = _inputs()
    x = x[inside(x) & np.isfinite(x)]
    want = ref(x.astype(np.float64))
    keep = (np.abs(want) > 1e-30) & (np.abs(want) < 3e38)  # f32 normal results: ulps are comparable
    got = approx.f32(name, x)
    assert got.dtype == np.float32
    assert _ulps(got[keep], want[keep]).max() <= 1.0


def test_exact_and_special_values():
    inf, nan = np.inf, np.nan
    f = lambda name, *xs: approx.f32(name, np.array(xs, np.float32)).tolist()  # noqa: E731
    assert f("ex2", 0, 1, -1, 10, -149, 127, inf, -inf, 200, -200) == [1, 2, 0.5, 1024, 2.0 ** -149, 2.0 ** 127,
                                                                        inf, 0, inf, 0]
    assert f("lg2", 1, 2, 0.25, 2.0 ** -149, inf) == [0, 1, -2, -149, inf]
    assert f("lg2", 0, -0.0) == [-inf, -inf]
    assert all(np.isnan(f("lg2", -1, -inf, nan)))
    assert np.signbit(f("sin", -0.0)) and f("sin", 0) == [0] and f("cos", 0, -0.0) == [1, 1]
    assert all(np.isnan(f("sin", inf, -inf, nan))) and all(np.isnan(f("cos", inf, nan)))
    assert f("tanh", inf, -inf, 30, -30) == [1, -1, 1, -1]
    assert np.signbit(f("tanh", -0.0)) and np.isnan(f("tanh", nan))
    assert np.isnan(f("ex2", nan))


def test_sin_and_cos_of_huge_arguments_stay_within_one():
    """Past the reduction's exact range the value is no promise (nor is the GPU's), but finite and
    within [-1, 1]."""
    x = np.array([1e7, -3e9, 1.7e19, 2.0 ** 60 + 2.0 ** 37, -3.4e38, 3.4028235e38], np.float32)
    for name in ("sin", "cos"):
        r = approx.f32(name, x)
        assert np.all(np.isfinite(r)) and np.all(np.abs(r) <= 1), (name, r)
