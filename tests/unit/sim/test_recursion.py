"""Recursive device functions on the software GPU (ptx/program.py emit_recursive_call, ptx/ops_stack.py):
a call of a function from inside itself goes to an out-of-line copy through the thread's stack, its
registers and local frame saved across the call; too deep a recursion faults naming the stack."""
from __future__ import annotations

import numpy as np
import pytest

from rgpu.server.backends.sim.errors import SimFault
from rgpu.server.backends.sim.kernels import KernelModule


@pytest.fixture(scope="module", params=["ptx", "debug-G"])
def recursive_module(request, build_image):
    return KernelModule.load(build_image("simrecurse.cu", request.param))


@pytest.fixture
def dev(recursive_module, make_device):
    return make_device(recursive_module)


def _fib(n: int) -> int:
    x, y = 0, 1
    for _ in range(n):
        x, y = y, x + y
    return x


def test_each_lane_recurses_to_its_own_depth(dev):
    a = (np.arange(64) * 3 + 1).astype(np.int32)
    pa = dev.put(a)
    fibs, sums, even = dev.zeros(32, np.int32), dev.zeros(32, np.int32), dev.zeros(32, np.int32)
    dev.launch("recurse", 1, 32, pa, fibs, sums, even)
    assert dev.get(fibs, 32, np.int32).tolist() == [_fib(i % 12) for i in range(32)]
    assert dev.get(sums, 32, np.int32).tolist() == [int(a[:4 + i].sum()) for i in range(32)]
    assert dev.get(even, 32, np.int32).tolist() == [int(i % 2 == 0) for i in range(32)]


def test_a_recursion_deeper_than_the_stack_faults(dev):
    out = dev.zeros(1, np.int32)
    dev.launch("too_deep", 1, 1, 20, out)
    assert dev.get(out, 1, np.int32)[0] == 1
    with pytest.raises(SimFault, match="stack overflow"):
        dev.launch("too_deep", 1, 1, 1_000_000, out)
