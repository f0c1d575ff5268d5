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


# One lane of each block sums its block's second warp in a loop the compiler placed after the
# barrier that follows it (it jumps back to the barrier when done), as LLVM lays out numba's
# reductions: the other lanes, at lower PCs, reach the barrier first and must wait there.
BARRIER_AFTER_LATE_BRANCH = """.version 9.0
.target sm_80
.address_size 64
.visible .entry late(.param .u64 pin, .param .u64 pout, .param .u32 exiting)
{
    .reg .b32 %r<20>; .reg .b64 %rd<10>; .reg .pred %p<4>;
    .shared .align 4 .b8 sbuf[256];
    ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [pout]; ld.param.u32 %r12, [exiting];
    mov.u32 %r0, %tid.x; mov.u32 %r13, %ctaid.x; mov.u32 %r14, %ntid.x;
    mad.lo.u32 %r15, %r13, %r14, %r0;
    mul.wide.u32 %rd3, %r15, 4;
    add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
    shl.b32 %r9, %r0, 2; mov.u32 %r10, sbuf; add.u32 %r11, %r10, %r9;
    ld.global.u32 %r1, [%rd4]; st.shared.u32 [%r11], %r1;
    bar.sync 0;
    setp.eq.u32 %p1, %r0, 32;
    @%p1 bra LATE;
    setp.lt.u32 %p3, %r0, %r12;
    @%p3 bra DONE;
JOIN:
    bar.sync 0;
    ld.shared.u32 %r2, [sbuf+128];
    st.global.u32 [%rd5], %r2;
DONE:
    ret;
LATE:
    mov.u32 %r3, 1;
LOOP:
    shl.b32 %r4, %r3, 2; add.u32 %r5, %r11, %r4; ld.shared.u32 %r6, [%r5];
    ld.shared.u32 %r7, [%r11]; add.u32 %r7, %r7, %r6; st.shared.u32 [%r11], %r7;
    add.u32 %r3, %r3, 1; setp.lt.u32 %p2, %r3, 32;
    @%p2 bra LOOP;
    bra.uni JOIN;
}
"""


@pytest.mark.parametrize("blocks,exiting", [(1, 0), (3, 0), (3, 8)])
def test_a_barrier_waits_for_lanes_that_reach_it_from_a_later_pc(make_device, blocks, exiting):
    """Every lane reads the sum after the barrier (the lanes below ``exiting`` leave before it: a
    barrier does not wait for exited threads). With no waiting, the lanes at lower PCs passed the
    barrier and read the summing lane's element before the sum."""
    d = make_device(KernelModule.load(BARRIER_AFTER_LATE_BRANCH.encode()))
    x = (np.arange(64 * blocks, dtype=np.uint32) * 7 + 3) % 101
    pin, pout = d.put(x), d.zeros(64 * blocks, np.uint32)
    d.launch("late", blocks, 64, pin, pout, exiting)
    got = d.get(pout, 64 * blocks, np.uint32).reshape(blocks, 64)
    sums = x.reshape(blocks, 64)[:, 32:].sum(axis=1)
    for b in range(blocks):
        assert (got[b, exiting:] == sums[b]).all(), b
        assert (got[b, :exiting] == 0).all()
