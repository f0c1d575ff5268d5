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


# numba's grid sync: the device runtime's cudaCGGetIntrinsicHandle / cudaCGSynchronize, which the
# software GPU provides. Block 3 writes its element in code placed after the sync and jumps back,
# so the other blocks reach the sync first and must wait for it there.
GRID_SYNC = """.version 9.0
.target sm_80
.address_size 64
.extern .func (.param .b32 func_retval0) cudaCGSynchronize (.param .b64 p0, .param .b32 p1);
.extern .func (.param .b64 func_retval0) cudaCGGetIntrinsicHandle (.param .b32 p0);
.visible .entry rot(.param .u64 pout)
{
    .reg .b32 %r<12>; .reg .b64 %rd<8>; .reg .pred %p<2>;
    ld.param.u64 %rd1, [pout];
    { .param .b32 param0; st.param.b32 [param0], 1; .param .b64 retval0;
      call.uni (retval0), cudaCGGetIntrinsicHandle, (param0); ld.param.b64 %rd2, [retval0]; }
    mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %nctaid.x;
    mad.lo.u32 %r5, %r2, %r3, %r1;
    mul.lo.u32 %r6, %r5, 3;
    mul.wide.u32 %rd3, %r5, 4; add.s64 %rd4, %rd1, %rd3;
    setp.eq.u32 %p1, %r2, 3;
    @%p1 bra LATE;
    st.global.u32 [%rd4], %r6;
JOIN:
    { .param .b64 param0; st.param.b64 [param0], %rd2; .param .b32 param1; st.param.b32 [param1], 0;
      .param .b32 retval0; call.uni (retval0), cudaCGSynchronize, (param0, param1); ld.param.b32 %r9, [retval0]; }
    mul.lo.u32 %r7, %r3, %r4; add.u32 %r8, %r5, %r3; rem.u32 %r8, %r8, %r7;
    mul.wide.u32 %rd5, %r8, 4; add.s64 %rd6, %rd1, %rd5; ld.global.u32 %r10, [%rd6];
    { .param .b64 param0; st.param.b64 [param0], %rd2; .param .b32 param1; st.param.b32 [param1], 0;
      .param .b32 retval0; call.uni (retval0), cudaCGSynchronize, (param0, param1); ld.param.b32 %r11, [retval0]; }
    add.u32 %r10, %r10, %r9; add.u32 %r10, %r10, %r11;
    st.global.u32 [%rd4], %r10;
    ret;
LATE:
    st.global.u32 [%rd4], %r6;
    bra.uni JOIN;
}
"""


def test_numbas_grid_sync_waits_for_every_block_of_a_cooperative_launch(make_device):
    from rgpu.server.backends.sim.errors import SimFault
    from rgpu.server.backends.sim.kernels import launch

    d = make_device(KernelModule.load(GRID_SYNC.encode()))
    n = 4 * 64
    out, workspace = d.zeros(n, np.uint32), d.zeros(64, np.uint32)
    fn = d.mod.functions["rot"]
    launch(d.mod, fn, d.mem, (4, 1, 1), (64, 1, 1), 0, d.pack("rot", [out]), [], grid_workspace=workspace)
    assert d.get(out, n, np.uint32).tolist() == [(i + 64) % n * 3 for i in range(n)]
    # a grid sync needs every block resident: without a cooperative launch it is refused
    with pytest.raises(SimFault) as info:
        launch(d.mod, fn, d.mem, (4, 1, 1), (64, 1, 1), 0, d.pack("rot", [out]), [])
    assert info.value.code == "CUDA_ERROR_LAUNCH_FAILED" and "cooperatively" in str(info.value)
