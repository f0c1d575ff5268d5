"""mma.sync and ldmatrix with the ISA's per-lane fragment layouts: a kernel written the way
CUTLASS-style code is (ldmatrix from shared memory feeding an m16n8k16 product), and fragments
placed by hand for tf32, s8 and f64 — each against numpy."""
from __future__ import annotations

import numpy as np
import pytest

from rgpu.server.backends.sim.kernels import KernelModule


@pytest.fixture(scope="module", params=["ptx", "debug-G"])
def dev(request, build_image, make_device):
    return make_device(KernelModule.load(build_image("simmma.cu", request.param)))


def test_ldmatrix_feeds_m16n8k16(dev, rng):
    a = rng.integers(-8, 9, (16, 16)).astype(np.float16)
    b = rng.integers(-8, 9, (16, 8)).astype(np.float16)
    c = rng.standard_normal((16, 8)).astype(np.float32)
    d = dev.zeros(128, np.float32)
    dev.launch("ldmatrix_mma", 1, 32, dev.put(a), dev.put(b), dev.put(c), d)
    want = a.astype(np.float32) @ b.astype(np.float32) + c
    np.testing.assert_allclose(dev.get(d, 128, np.float32).reshape(16, 8), want, rtol=1e-6, atol=1e-5)


def test_tf32_m16n8k8(dev, rng):
    a = rng.integers(-8, 9, (16, 8)).astype(np.float32) / 4
    b = rng.integers(-8, 9, (8, 8)).astype(np.float32) / 4
    d = dev.zeros(128, np.float32)
    dev.launch("mma_tf32", 1, 32, dev.put(a), dev.put(b), d)
    np.testing.assert_array_equal(dev.get(d, 128, np.float32).reshape(16, 8), a @ b)


def test_s8_m16n8k32(dev, rng):
    a = rng.integers(-128, 128, (16, 32)).astype(np.int8)
    b = rng.integers(-128, 128, (32, 8)).astype(np.int8)
    d = dev.zeros(128, np.int32)
    dev.launch("mma_s8", 1, 32, dev.put(a), dev.put(b), d)
    np.testing.assert_array_equal(dev.get(d, 128, np.int32).reshape(16, 8), a.astype(np.int32) @ b.astype(np.int32))


def test_f64_m8n8k4(dev, rng):
    a, b = rng.standard_normal((8, 4)), rng.standard_normal((4, 8))
    d = dev.zeros(64, np.float64)
    dev.launch("mma_f64", 1, 32, dev.put(a), dev.put(b), d)
    np.testing.assert_allclose(dev.get(d, 64, np.float64).reshape(8, 8), a @ b, rtol=1e-12)
