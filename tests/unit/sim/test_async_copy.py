"""cp.async on the software GPU: pipeline primitives, cooperative groups' memcpy_async and the
zero-filling form (src-size < copy size), against numpy."""
from __future__ import annotations

import numpy as np
import pytest

from rgpu.server.backends.sim.kernels import KernelModule


@pytest.fixture(scope="module", params=["ptx", "debug-G"])
def dev(request, build_image, make_device):
    return make_device(KernelModule.load(build_image("simasync.cu", request.param)))


def test_pipeline_memcpy_async(dev, rng):
    x = rng.standard_normal((256, 4)).astype(np.float32)
    out = dev.zeros(x.size, np.float32)
    dev.launch("stage", 2, 128, dev.put(x), out, 256)
    got = dev.get(out, x.size, np.float32).reshape(256, 4)
    want = np.concatenate([np.roll(x[:128], -1, axis=0), np.roll(x[128:], -1, axis=0)])
    np.testing.assert_array_equal(got, want)


def test_cooperative_groups_memcpy_async(dev, rng):
    x = rng.integers(-1000, 1000, 512).astype(np.int32)
    out = dev.zeros(512, np.int32)
    dev.launch("cgstage", 2, 256, dev.put(x), out, 512)
    want = np.concatenate([x[:256][::-1], x[256:][::-1]]) * 2
    np.testing.assert_array_equal(dev.get(out, 512, np.int32), want)


@pytest.mark.parametrize("valid", [16, 12, 4, 0])
def test_src_size_zero_fills_the_rest(dev, rng, valid):
    x = rng.integers(1, 1000, 128).astype(np.int32)
    out = dev.put(np.full(128, -1, np.int32))
    dev.launch("zero_fill", 1, 32, dev.put(x), out, valid)
    want = x.reshape(32, 4).copy()
    want[:, valid // 4:] = 0
    np.testing.assert_array_equal(dev.get(out, 128, np.int32).reshape(32, 4), want)
