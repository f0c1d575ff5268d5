"""Blocks that spin on a flag another block of the same launch writes (tests/cuda/kernels/simwait.cu).
The interpreter runs the lowest-PC lanes first, which would run a spinning block forever ahead of
the block it waits for; a group that keeps looping while other blocks wait steps aside (interp.py)."""
from __future__ import annotations

import numpy as np
import pytest

from rgpu.server.backends.sim.kernels import KernelModule


@pytest.fixture(scope="module")
def wait_module(build_image):
    return KernelModule.load(build_image("simwait.cu", "ptx"))


@pytest.mark.parametrize("blocks", [2, 7])
def test_each_block_waits_for_the_one_before(wait_module, make_device, blocks):
    d = make_device(wait_module)
    flags, out = d.zeros(blocks, np.int32), d.zeros(blocks, np.int32)
    d.launch("chain_forward", blocks, 64, flags, out)
    assert list(d.get(out, blocks, np.int32)) == [b * (b + 1) // 2 for b in range(blocks)]
    assert list(d.get(flags, blocks, np.int32)) == [1] * blocks


def test_each_block_waits_for_the_one_after(wait_module, make_device):
    d = make_device(wait_module)
    blocks = 6
    flags, out = d.zeros(blocks, np.int32), d.zeros(blocks, np.int32)
    d.launch("chain_backward", blocks, 96, flags, out)
    assert list(d.get(out, blocks, np.int32)) == [blocks - b for b in range(blocks)]
