"""Tensor-core WMMA on the software GPU: each fragment shape and element type of sm_80, A/B/C in
either layout, from global or shared memory, against numpy's matrix product."""
from __future__ import annotations

import numpy as np
import pytest

from rgpu.server.backends.sim.kernels import KernelModule


@pytest.fixture(scope="module", params=["ptx", "fatbin-none", "debug-G"])
def wmma_module(request, build_image):
    return KernelModule.load(build_image("simwmma.cu", request.param))


@pytest.fixture
def dev(wmma_module, make_device):
    return make_device(wmma_module)


def small_ints(rng, shape, dtype):
    return rng.integers(-4, 5, shape).astype(dtype)


@pytest.mark.parametrize("m,n,k,which", [(16, 16, 16, 0), (16, 16, 16, 1), (32, 8, 16, 0), (8, 32, 16, 0)])
def test_f16_inputs_f32_accumulator(dev, rng, m, n, k, which):
    a, b = small_ints(rng, (m, k), np.float16), small_ints(rng, (k, n), np.float16)
    c = rng.standard_normal((m, n)).astype(np.float32)
    if which == 0 and m == 16:  # A row-major, B column-major, C row-major
        ins = (a, b.T, c)
    elif which == 1:  # A column-major, B row-major, C column-major
        ins = (a.T, b, c.T)
    else:
        ins = (a, b, c)
    da, db, dc = (dev.put(np.ascontiguousarray(x)) for x in ins)
    dd = dev.zeros(m * n, np.float32)
    dev.launch("mm_f16", 1, 32, da, db, dc, dd, which, m, n, k)
    want = a.astype(np.float32) @ b.astype(np.float32) + c
    np.testing.assert_allclose(dev.get(dd, m * n, np.float32).reshape(m, n), want, rtol=1e-6, atol=1e-5)


def test_f16_accumulator_from_shared_memory(dev, rng):
    a, b, c = (small_ints(rng, (16, 16), np.float16) for _ in range(3))
    dd = dev.zeros(256, np.float16)
    dev.launch("mm_f16_acc_shared", 1, 32, dev.put(a), dev.put(b), dev.put(c), dd)
    want = (a.astype(np.float32) @ b.astype(np.float32) + c).astype(np.float16)
    np.testing.assert_array_equal(dev.get(dd, 256, np.float16).reshape(16, 16), want)


def test_bf16(dev, rng):
    a, b = (small_ints(rng, (16, 16), np.float32) for _ in range(2))
    c = rng.standard_normal((16, 16)).astype(np.float32)
    as_bf16 = [(x.view(np.uint32) >> 16).astype(np.uint16) for x in (a, b)]  # small ints are exact in bf16
    dd = dev.zeros(256, np.float32)
    dev.launch("mm_bf16", 1, 32, dev.put(as_bf16[0]), dev.put(as_bf16[1]), dev.put(c), dd)
    np.testing.assert_allclose(dev.get(dd, 256, np.float32).reshape(16, 16), a @ b + c, rtol=1e-6, atol=1e-5)


def test_tf32_keeps_ten_mantissa_bits(dev, rng):
    a = rng.standard_normal((16, 8)).astype(np.float32)
    b = rng.standard_normal((8, 16)).astype(np.float32)
    c = rng.standard_normal((16, 16)).astype(np.float32)
    dd = dev.zeros(256, np.float32)
    dev.launch("mm_tf32", 1, 32, dev.put(a), dev.put(b), dev.put(c), dd)
    got = dev.get(dd, 256, np.float32).reshape(16, 16)
    exact = 0.5 * (a.astype(np.float64) @ b + c)
    # tf32 rounds the inputs to 10 mantissa bits: close to the exact product, but not equal to it.
    np.testing.assert_allclose(got, exact, rtol=0, atol=0.05)
    assert not np.allclose(got, exact, rtol=0, atol=1e-6)


def test_s8_into_s32(dev, rng):
    a = rng.integers(-128, 128, (16, 16)).astype(np.int8)
    b = rng.integers(-128, 128, (16, 16)).astype(np.int8)
    c = rng.integers(-1000, 1000, (16, 16)).astype(np.int32)
    dd = dev.zeros(256, np.int32)
    dev.launch("mm_s8", 1, 32, dev.put(a), dev.put(np.ascontiguousarray(b.T)), dev.put(c), dd)
    want = a.astype(np.int32) @ b.astype(np.int32) + c
    np.testing.assert_array_equal(dev.get(dd, 256, np.int32).reshape(16, 16), want)


def test_f64(dev, rng):
    a, b, c = rng.standard_normal((8, 4)), rng.standard_normal((4, 8)), rng.standard_normal((8, 8))
    dd = dev.zeros(64, np.float64)
    dev.launch("mm_f64", 1, 32, dev.put(a), dev.put(b), dev.put(c), dd)
    np.testing.assert_allclose(dev.get(dd, 64, np.float64).reshape(8, 8), a @ b + c, rtol=1e-12)
