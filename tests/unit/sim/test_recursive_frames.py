"""Each activation of a recursive device function has a frame of its own on the software GPU
(ptx/ops_stack.py), as on a GPU: a callee that stores through a pointer into its caller's .local
data (a local array, a result passed by address, numba's way of returning) changes the caller's
data, and that store stays once the callee returns. Every test runs interpreted and compiled
(jit/stack.py, compiling at the first launch)."""
from __future__ import annotations

import numpy as np
import pytest

from rgpu.server.backends.sim import jit
from rgpu.server.backends.sim.errors import SimFault
from rgpu.server.backends.sim.kernels import KernelModule

# walk(p, n): stores 1 + 2 + ... + n through p and returns it, the sum of the rest coming back from
# the recursive call through a pointer (generic, from cvta.local of a symbol) into walk's own depot
# and as its return value, which must agree; the callee's own depot must not be the caller's (a
# value the caller keeps there across the call must survive it).
# fibl(res, n): stores fib(n) through res, its two recursive calls storing theirs into two slots of
# its depot (a 32-bit .local address, widened and made generic by cvta of a register), read back with ld.local.
PTX = b""".version 8.0
.target sm_80
.address_size 64

.func (.param .b32 ret) walk(.param .b64 p, .param .b32 n)
{
    .local .align 8 .b8 depot[16];
    .reg .pred %q<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    setp.eq.s32 %q1, %r1, 0;
    @%q1 bra DONE;
    add.s32 %r5, %r1, 1000;
    st.local.u32 [depot+4], %r5;
    cvta.local.u64 %rd2, depot;
    add.s32 %r2, %r1, -1;
    {
    .param .b64 a0;
    st.param.b64 [a0], %rd2;
    .param .b32 a1;
    st.param.b32 [a1], %r2;
    .param .b32 r0;
    call.uni (r0), walk, (a0, a1);
    ld.param.b32 %r3, [r0];
    }
    ld.local.u32 %r4, [depot];
    ld.local.u32 %r5, [depot+4];
    setp.ne.s32 %q1, %r3, %r4;
    @%q1 mov.u32 %r4, -1000000;
    sub.s32 %r5, %r5, 1000;
    setp.ne.s32 %q1, %r5, %r1;
    @%q1 mov.u32 %r4, -2000000;
    add.s32 %r4, %r4, %r1;
    st.u32 [%rd1], %r4;
    st.param.b32 [ret], %r4;
    ret;
DONE:
    st.u32 [%rd1], 0;
    st.param.b32 [ret], 0;
    ret;
}

.func fibl(.param .b64 res, .param .b32 n)
{
    .local .align 8 .b8 depot[8];
    .reg .pred %q<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [res];
    ld.param.u32 %r1, [n];
    setp.lt.s32 %q1, %r1, 2;
    @%q1 bra LEAF;
    mov.u32 %r2, depot;
    cvt.u64.u32 %rd2, %r2;
    cvta.local.u64 %rd2, %rd2;
    add.s64 %rd3, %rd2, 4;
    add.s32 %r3, %r1, -1;
    {
    .param .b64 a0;
    st.param.b64 [a0], %rd2;
    .param .b32 a1;
    st.param.b32 [a1], %r3;
    call.uni fibl, (a0, a1);
    }
    add.s32 %r3, %r1, -2;
    {
    .param .b64 a0;
    st.param.b64 [a0], %rd3;
    .param .b32 a1;
    st.param.b32 [a1], %r3;
    call.uni fibl, (a0, a1);
    }
    ld.local.u32 %r4, [depot];
    ld.local.u32 %r5, [depot+4];
    add.s32 %r4, %r4, %r5;
    st.u32 [%rd1], %r4;
    ret;
LEAF:
    st.u32 [%rd1], %r1;
    ret;
}

.extern .func (.param .b32 rv) vprintf(.param .b64 f, .param .b64 b);
.global .align 1 .b8 fmt[7] = {100, 61, 37, 100, 10, 0, 0};

.func down(.param .b32 n)
{
    .local .align 32 .b8 depot[32];
    .reg .pred %q<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u32 %r1, [n];
    setp.eq.s32 %q1, %r1, 0;
    @%q1 bra END;
    add.s32 %r2, %r1, -1;
    {
    .param .b32 a0;
    st.param.b32 [a0], %r2;
    call.uni down, (a0);
    }
    st.local.u32 [depot], %r1;
    cvta.local.u64 %rd1, depot;
    and.b64 %rd3, %rd1, 31;
    setp.ne.u64 %q1, %rd3, 0;
    @%q1 trap;
    mov.u64 %rd2, fmt;
    cvta.global.u64 %rd2, %rd2;
    {
    .param .b64 f;
    st.param.b64 [f], %rd2;
    .param .b64 b;
    st.param.b64 [b], %rd1;
    .param .b32 rv;
    call.uni (rv), vprintf, (f, b);
    }
END:
    ret;
}

.visible .entry prints(.param .u32 n)
{
    .reg .b32 %r<2>;
    ld.param.u32 %r1, [n];
    {
    .param .b32 a0;
    st.param.b32 [a0], %r1;
    call.uni down, (a0);
    }
    ret;
}

.visible .entry sums(.param .u64 outp, .param .u64 retp)
{
    .local .align 8 .b8 mine[8];
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [outp];
    ld.param.u64 %rd2, [retp];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 7;
    add.s32 %r2, %r2, 1;
    mov.u64 %rd3, mine;
    cvta.local.u64 %rd3, %rd3;
    {
    .param .b64 a0;
    st.param.b64 [a0], %rd3;
    .param .b32 a1;
    st.param.b32 [a1], %r2;
    .param .b32 r0;
    call.uni (r0), walk, (a0, a1);
    ld.param.b32 %r3, [r0];
    }
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd1, %rd4;
    ld.local.u32 %r2, [mine];
    st.global.u32 [%rd5], %r2;
    add.s64 %rd6, %rd2, %rd4;
    st.global.u32 [%rd6], %r3;
    ret;
}

.visible .entry fibs(.param .u64 outp, .param .u32 base)
{
    .local .align 8 .b8 mine[8];
    .reg .b32 %r<4>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [outp];
    ld.param.u32 %r2, [base];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    add.s32 %r2, %r2, %r1;
    cvta.local.u64 %rd3, mine;
    {
    .param .b64 a0;
    st.param.b64 [a0], %rd3;
    .param .b32 a1;
    st.param.b32 [a1], %r2;
    call.uni fibl, (a0, a1);
    }
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd1, %rd4;
    ld.local.u32 %r3, [mine];
    st.global.u32 [%rd5], %r3;
    ret;
}
"""


def _fib(n: int) -> int:
    x, y = 0, 1
    for _ in range(n):
        x, y = y, x + y
    return x


@pytest.fixture(params=["interpreted", "compiled"])
def jit_mode(request):
    before = jit.enabled()
    jit.set_enabled(request.param == "compiled")
    jit.set_after(0)
    jit.set_interpreted_rate(0)
    yield request.param
    jit.set_enabled(before)
    jit.set_after(None)
    jit.set_interpreted_rate(None)


@pytest.fixture
def dev(make_device, jit_mode):
    d = make_device(KernelModule.load(PTX))
    d.compiled = jit_mode == "compiled"
    return d


def _ran_as(dev, name) -> None:
    """The kernel ran the way the test asked: compiled, or with nothing compiled at all."""
    if dev.compiled:
        assert dev.mod.jitted(dev.mod.functions[name]) is not None
    else:
        assert not dev.mod._jitted


def test_a_callee_stores_through_a_pointer_into_its_callers_local_array(dev):
    out, ret = dev.zeros(32, np.int32), dev.zeros(32, np.int32)
    dev.launch("sums", 1, 32, out, ret)
    n = np.arange(32) % 8 + 1
    want = (n * (n + 1) // 2).tolist()  # each lane to its own depth
    assert dev.get(out, 32, np.int32).tolist() == want
    assert dev.get(ret, 32, np.int32).tolist() == want
    _ran_as(dev, "sums")


def test_fibonacci_through_local_memory(dev):
    out = dev.zeros(16, np.int32)
    dev.launch("fibs", 1, 16, out, 0)
    assert dev.get(out, 16, np.int32).tolist() == [_fib(i) for i in range(16)]
    assert _fib(10) == 55 and dev.get(out, 16, np.int32)[10] == 55
    _ran_as(dev, "fibs")


def test_printf_from_each_activation_reads_its_own_32_byte_aligned_frame(dev):
    """down(n) prints n from a .align 32 local buffer after its recursive call returns (it traps if
    its frame is not aligned so): the arguments vprintf reads are the activation's own."""
    dev.launch("prints", 1, 1, 6)
    assert "".join(dev.out).split() == [f"d={k}" for k in range(1, 7)]


def test_a_recursion_past_the_stack_still_faults(dev):
    out = dev.zeros(1, np.int32)
    with pytest.raises(SimFault, match="stack overflow") as info:
        dev.launch("fibs", 1, 1, out, 5000)
    assert info.value.code == "CUDA_ERROR_ILLEGAL_ADDRESS"
    assert info.value.message.startswith("fibs: stack overflow: recursion deeper than the software GPU's")
    _ran_as(dev, "fibs")
