"""Device-side malloc()/free() on the software GPU: per-thread buffers, blocks that outlive a
launch, NULL when the heap is exhausted, and a fault for freeing what malloc did not return."""
from __future__ import annotations

import numpy as np
import pytest

from rgpu.server.backends.sim import kernels
from rgpu.server.backends.sim.errors import SimFault
from rgpu.server.backends.sim.kernels import KernelModule


@pytest.fixture(scope="module", params=["ptx", "debug-G"])
def heap_module(request, build_image):
    return KernelModule.load(build_image("simheap.cu", request.param))


@pytest.fixture
def dev(heap_module, make_device):
    return make_device(heap_module)


def test_per_thread_buffers(dev):
    n = 300
    out = dev.zeros(n, np.int32)
    used_before = dev.mem.used
    dev.launch("scratch", 2, 150, out, n)
    i = np.arange(n)
    length = 1 + i % 7
    want = i * 10 * length + length * (length - 1) // 2
    np.testing.assert_array_equal(dev.get(out, n, np.int32), want)
    assert dev.mem.used == used_before and dev.mem.device_heap.used == 0  # every block was freed


def test_a_block_outlives_its_kernel(dev):
    out = dev.zeros(1, np.int32)
    dev.launch("keep", 1, 1, 5)
    assert dev.mem.device_heap.used == 64 * 4
    dev.launch("use_and_free", 1, 1, out)
    assert dev.get(out, 1, np.int32)[0] == sum(5 + k for k in range(64))
    assert dev.mem.device_heap.used == 0


def test_malloc_returns_null_past_the_heap(dev):
    got = dev.zeros(8, np.int32)
    dev.launch("exhaust", 1, 8, 3 << 20, got)  # 8 x 3 MiB against the default 8 MiB heap
    assert dev.get(got, 8, np.int32).tolist() == [1, 1, 0, 0, 0, 0, 0, 0]


def test_freeing_what_malloc_did_not_return_faults(dev):
    p = dev.zeros(4, np.int32)
    with pytest.raises(SimFault, match="ILLEGAL_ADDRESS"):
        kernels.launch(dev.mod, dev.mod.functions["bad_free"], dev.mem, (1, 1, 1), (1, 1, 1), 0,
                       dev.pack("bad_free", [p]), dev.out)
