"""Instructions NVIDIA's libraries use that the project's own kernels do not (found by the scan in
test_nvlibs_ptx.py), each in hand-written PTX against a numpy reference written from the PTX ISA.

Every kernel here runs one thread per element: thread i reads element i of a, b and c (4 bytes
each, addresses %rd6, %rd7, %rd8) and writes element i of d (%rd9)."""
from __future__ import annotations

import numpy as np
import pytest

from rgpu.server.backends.sim.errors import SimError
from rgpu.server.backends.sim.kernels import KernelModule

HEAD = """.version 9.0
.target sm_120
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{
    .reg .b32 %r<40>; .reg .b64 %rd<40>; .reg .f32 %f<16>; .reg .pred %p<8>; .reg .b16 %h<8>;
    .reg .f64 %fd<8>;
    ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pc]; ld.param.u64 %rd4, [pd];
    mov.u32 %r0, %tid.x;
    mul.wide.u32 %rd5, %r0, 4;
    add.s64 %rd6, %rd1, %rd5; add.s64 %rd7, %rd2, %rd5; add.s64 %rd8, %rd3, %rd5; add.s64 %rd9, %rd4, %rd5;
"""


def run(make_device, body: str, a, b=None, c=None, out=np.uint32, threads=None):
    """Run ``body`` over len(a) threads; returns d (one 4-byte ``out`` per thread)."""
    mod = KernelModule.load((HEAD + body + "\n    ret;\n}\n").encode())
    dev = make_device(mod)
    n = len(a)
    arrays = [np.ascontiguousarray(x if x is not None else np.zeros(n, np.uint32)) for x in (a, b, c)]
    ptrs = [dev.put(x) for x in arrays]
    d = dev.zeros(n, out)
    dev.launch("k", 1, threads or n, *ptrs, d)
    return dev.get(d, n, out)


# -- 8-bit floats -------------------------------------------------------------------------------
def _fp8_values(exp_bits: int, man_bits: int, ieee: bool) -> list[float]:
    """Value of each of the 256 codes, spelled out from the format's definition."""
    bias = 2 ** (exp_bits - 1) - 1
    out = []
    for code in range(256):
        s = -1.0 if code & 0x80 else 1.0
        e = (code >> man_bits) & (2 ** exp_bits - 1)
        m = code & (2 ** man_bits - 1)
        if e == 2 ** exp_bits - 1 and (ieee or m == 2 ** man_bits - 1):
            out.append(s * float("inf") if ieee and m == 0 else float("nan"))
        elif e == 0:
            out.append(s * m / 2 ** man_bits * 2.0 ** (1 - bias))
        else:
            out.append(s * (1 + m / 2 ** man_bits) * 2.0 ** (e - bias))
    return out


FORMATS = {"e4m3": _fp8_values(4, 3, False), "e5m2": _fp8_values(5, 2, True)}


def _nearest(x: float, fmt: str, relu: bool = False) -> int:
    """cvt.rn.satfinite: nearest finite code, ties to the even code, NaN -> 0x7f."""
    vals = FORMATS[fmt]
    if np.isnan(x):
        return 0x7F
    if relu and x < 0:
        x = 0.0
    if np.isinf(x):  # satfinite: the largest finite value of that sign
        x = np.copysign(max(v for v in vals if np.isfinite(v)), x)
    finite = [(abs(v - x), code & 1, code) for code, v in enumerate(vals) if np.isfinite(v)
              and (code & 0x80) == (0x80 if np.signbit(x) else 0)]
    best = min(finite)
    return best[2]


FP8_INPUTS = np.array([0.0, -0.0, 1.0, -1.5, 0.3, 448.0, 449.0, 464.0, 1e9, -np.inf, np.inf, np.nan, 2.0 ** -9,
                       2.0 ** -10, 3 * 2.0 ** -10, 1.0625, 1.1875, 57344.0, 61440.0, -3.3e-3, 240.0, 0.0625,
                       17.0, 18.0, 19.0, 0.1, 7.0, -1e-12, 96.0, 100.0, 1.5 * 2.0 ** -8, 2.0 ** -16], np.float32)


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
@pytest.mark.parametrize("relu", [False, True])
def test_cvt_f32_to_fp8_pairs(make_device, fmt, relu):
    a = FP8_INPUTS
    b = a[::-1].copy()
    relu_s = ".relu" if relu else ""
    body = f"""
    ld.global.f32 %f1, [%rd6]; ld.global.f32 %f2, [%rd7];
    cvt.rn.satfinite{relu_s}.{fmt}x2.f32 %h1, %f1, %f2;
    cvt.u32.u16 %r1, %h1;
    st.global.u32 [%rd9], %r1;"""
    got = run(make_device, body, a.view(np.uint32), b.view(np.uint32))
    want = [(_nearest(float(x), fmt, relu) << 8) | _nearest(float(y), fmt, relu) for x, y in zip(a, b)]
    assert [hex(v) for v in got] == [hex(v) for v in want]


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_cvt_fp8_pairs_to_f16x2(make_device, fmt):
    codes = np.arange(0, 256, dtype=np.uint32)
    packed = (codes << 8) | codes[::-1]
    body = f"""
    ld.global.u32 %r1, [%rd6]; cvt.u16.u32 %h1, %r1;
    cvt.rn.f16x2.{fmt}x2 %r2, %h1;
    st.global.u32 [%rd9], %r2;"""
    got = run(make_device, body, packed)
    vals = np.array(FORMATS[fmt], np.float64)
    hi = got >> 16
    lo = got & 0xFFFF
    np.testing.assert_array_equal(hi.astype(np.uint16).view(np.float16), vals[codes].astype(np.float16))
    np.testing.assert_array_equal(lo.astype(np.uint16).view(np.float16), vals[codes[::-1]].astype(np.float16))


def _mma_fp8_fragments(A_codes, B_codes):
    """Per-lane registers of the m16n8k32 A (4 regs) and B (2 regs) fragments of 8-bit elements,
    from the ISA's table: a_i at row g + 8*((i>>2)&1), column 4t + (i&3) + 16*(i>>3); b_i at row
    4t + (i&3) + 16*(i>>2), column g (g = lane>>2, t = lane&3; element i in byte i%4 of reg i//4)."""
    ra, rb = np.zeros((32, 4), np.uint32), np.zeros((32, 2), np.uint32)
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for i in range(16):
            v = int(A_codes[g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)])
            ra[lane, i // 4] |= v << (8 * (i % 4))
        for i in range(8):
            v = int(B_codes[4 * t + (i & 3) + 16 * (i >> 2), g])
            rb[lane, i // 4] |= v << (8 * (i % 4))
    return ra, rb


def _c_f32_from_lanes(regs):
    """The 16x8 f32 D matrix from per-lane registers: c_i at row g + 8*(i>>1), column 2t + (i&1)."""
    d = np.zeros((16, 8), np.float32)
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for i in range(4):
            d[g + 8 * (i >> 1), 2 * t + (i & 1)] = regs[lane, i]
    return d


@pytest.mark.parametrize("ta,tb", [("e4m3", "e4m3"), ("e4m3", "e5m2"), ("e5m2", "e4m3")])
def test_mma_m16n8k32_fp8(make_device, rng, ta, tb):
    # Small integers and halves are exact in both formats, so the product is exact too.
    A = rng.integers(-6, 7, (16, 32)) / 2
    B = rng.integers(-6, 7, (32, 8)) / 2
    C = rng.integers(-50, 50, (16, 8)).astype(np.float32)
    code = {f: {v: c for c, v in reversed(list(enumerate(FORMATS[f]))) if np.isfinite(v)} for f in FORMATS}
    A_codes = np.vectorize(lambda v: code[ta][v])(A)
    B_codes = np.vectorize(lambda v: code[tb][v])(B)
    ra, rb = _mma_fp8_fragments(A_codes, B_codes)
    rc = np.zeros((32, 4), np.float32)
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for i in range(4):
            rc[lane, i] = C[g + 8 * (i >> 1), 2 * t + (i & 1)]
    body = f"""
    mul.wide.u32 %rd10, %r0, 16; mul.wide.u32 %rd11, %r0, 8;
    add.s64 %rd12, %rd1, %rd10; add.s64 %rd13, %rd2, %rd11; add.s64 %rd14, %rd3, %rd10; add.s64 %rd15, %rd4, %rd10;
    ld.global.v4.u32 {{%r1, %r2, %r3, %r4}}, [%rd12];
    ld.global.v2.u32 {{%r5, %r6}}, [%rd13];
    ld.global.v4.f32 {{%f1, %f2, %f3, %f4}}, [%rd14];
    mma.sync.aligned.m16n8k32.row.col.f32.{ta}.{tb}.f32 {{%f5, %f6, %f7, %f8}}, {{%r1, %r2, %r3, %r4}},
        {{%r5, %r6}}, {{%f1, %f2, %f3, %f4}};
    st.global.v4.f32 [%rd15], {{%f5, %f6, %f7, %f8}};"""
    mod = KernelModule.load((HEAD + body + "\n    ret;\n}\n").encode())
    dev = make_device(mod)
    pa, pb, pc = dev.put(ra), dev.put(rb), dev.put(rc)
    pd = dev.zeros(128, np.float32)
    dev.launch("k", 1, 32, pa, pb, pc, pd)
    got = _c_f32_from_lanes(dev.get(pd, 128, np.float32).reshape(32, 4))
    np.testing.assert_array_equal(got, (A @ B + C).astype(np.float32))


def test_mma_m16n8k16_f16_accumulator(make_device, rng):
    """mma with f16 C and D (cuSPARSE): two f16 per register, c0/c1 in row g, c2/c3 in row g+8."""
    A = rng.integers(-4, 5, (16, 16)).astype(np.float16)
    B = rng.integers(-4, 5, (16, 8)).astype(np.float16)
    C = rng.integers(-8, 9, (16, 8)).astype(np.float16)
    ra, rb, rc = np.zeros((32, 4), np.uint32), np.zeros((32, 2), np.uint32), np.zeros((32, 2), np.uint32)
    bits = lambda x: int(np.float16(x).view(np.uint16))  # noqa: E731
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for i in range(8):  # a_i: row g + 8*((i>>1)&1), column 2t + (i&1) + 8*(i>>2)
            ra[lane, i // 2] |= bits(A[g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)]) << (16 * (i % 2))
        for i in range(4):  # b_i: row 2t + (i&1) + 8*(i>>1), column g
            rb[lane, i // 2] |= bits(B[2 * t + (i & 1) + 8 * (i >> 1), g]) << (16 * (i % 2))
            rc[lane, i // 2] |= bits(C[g + 8 * (i >> 1), 2 * t + (i & 1)]) << (16 * (i % 2))
    body = """
    mul.wide.u32 %rd10, %r0, 16; mul.wide.u32 %rd11, %r0, 8;
    add.s64 %rd12, %rd1, %rd10; add.s64 %rd13, %rd2, %rd11; add.s64 %rd14, %rd3, %rd11; add.s64 %rd15, %rd4, %rd11;
    ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd12];
    ld.global.v2.u32 {%r5, %r6}, [%rd13];
    ld.global.v2.u32 {%r7, %r8}, [%rd14];
    mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r9, %r10}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%r7, %r8};
    st.global.v2.u32 [%rd15], {%r9, %r10};"""
    mod = KernelModule.load((HEAD + body + "\n    ret;\n}\n").encode())
    dev = make_device(mod)
    pd = dev.zeros(64, np.uint32)
    dev.launch("k", 1, 32, dev.put(ra), dev.put(rb), dev.put(rc), pd)
    regs = dev.get(pd, 64, np.uint32).reshape(32, 2)
    got = np.zeros((16, 8), np.float16)
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for i in range(4):
            got[g + 8 * (i >> 1), 2 * t + (i & 1)] = np.uint16((regs[lane, i // 2] >> (16 * (i % 2))) & 0xFFFF).view(np.float16)
    np.testing.assert_array_equal(got, (A.astype(np.float32) @ B.astype(np.float32) + C).astype(np.float16))


# -- integer odds and ends ----------------------------------------------------------------------
def test_vshr_clamp_add(make_device, rng):
    a = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    b = np.concatenate([np.arange(40), rng.integers(0, 2**32, 24, dtype=np.uint64)]).astype(np.uint32)
    c = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    body = """
    ld.global.u32 %r1, [%rd6]; ld.global.u32 %r2, [%rd7]; ld.global.u32 %r3, [%rd8];
    vshr.u32.u32.u32.clamp.add %r4, %r1, %r2, %r3;
    st.global.u32 [%rd9], %r4;"""
    got = run(make_device, body, a, b, c)
    shift = np.minimum(b.astype(np.uint64), 32)
    want = ((a.astype(np.uint64) >> shift) + c) & 0xFFFFFFFF
    np.testing.assert_array_equal(got, want.astype(np.uint32))


def test_cvt_pack_sat_s8(make_device, rng):
    a = rng.integers(-300, 300, 64).astype(np.int32)
    b = rng.integers(-300, 300, 64).astype(np.int32)
    c = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    body = """
    ld.global.s32 %r1, [%rd6]; ld.global.s32 %r2, [%rd7]; ld.global.u32 %r3, [%rd8];
    cvt.pack.sat.s8.s32.b32 %r4, %r1, %r2, %r3;
    st.global.u32 [%rd9], %r4;"""
    got = run(make_device, body, a, b, c)
    sa = np.clip(a, -128, 127).astype(np.int64) & 0xFF
    sb = np.clip(b, -128, 127).astype(np.int64) & 0xFF
    want = (sb | (sa << 8) | (c.astype(np.int64) << 16)) & 0xFFFFFFFF
    np.testing.assert_array_equal(got, want.astype(np.uint32))


@pytest.mark.parametrize("t", ["s32", "u32"])
def test_dp2a_lo(make_device, rng, t):
    a = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    c = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    body = f"""
    ld.global.u32 %r1, [%rd6]; ld.global.u32 %r2, [%rd7]; ld.global.u32 %r3, [%rd8];
    dp2a.lo.{t}.{t} %r4, %r1, %r2, %r3;
    st.global.u32 [%rd9], %r4;"""
    got = run(make_device, body, a, b, c)
    sdt, bdt = (np.int16, np.int8) if t == "s32" else (np.uint16, np.uint8)
    ha = a.view(np.uint16).reshape(-1, 2).view(sdt).astype(np.int64)
    bb = b.view(np.uint8).reshape(-1, 4).view(bdt).astype(np.int64)
    want = (c.astype(np.int64) + ha[:, 0] * bb[:, 0] + ha[:, 1] * bb[:, 1]) & 0xFFFFFFFF
    np.testing.assert_array_equal(got, want.astype(np.uint32))


def test_bfi_b64(make_device, rng):
    a = rng.integers(0, 2**63, 64, dtype=np.uint64)
    pos = np.concatenate([[0, 0, 63, 64, 10], rng.integers(0, 70, 59)]).astype(np.uint32)
    ln = np.concatenate([[64, 0, 1, 3, 54], rng.integers(0, 70, 59)]).astype(np.uint32)
    body = """
    mul.wide.u32 %rd10, %r0, 8; add.s64 %rd11, %rd1, %rd10; add.s64 %rd12, %rd4, %rd10;
    ld.global.u64 %rd13, [%rd11]; ld.global.u32 %r1, [%rd7]; ld.global.u32 %r2, [%rd8];
    bfi.b64 %rd14, %rd13, 0x0123456789abcdef, %r1, %r2;
    st.global.u64 [%rd12], %rd14;"""
    mod = KernelModule.load((HEAD + body + "\n    ret;\n}\n").encode())
    dev = make_device(mod)
    pd = dev.zeros(64, np.uint64)
    dev.launch("k", 1, 64, dev.put(a), dev.put(pos), dev.put(ln), pd)
    want = []
    for x, p, n in zip(a.tolist(), pos.tolist(), ln.tolist()):
        p, n = p & 0xFF, min(n & 0xFF, 64)
        y = 0x0123456789ABCDEF
        if p < 64:
            mask = ((1 << n) - 1) << p & (2**64 - 1)
            y = (y & ~mask | (x << p) & mask) & (2**64 - 1)
        want.append(y)
    assert dev.get(pd, 64, np.uint64).tolist() == want


def test_redux_setp_and_atom_cas_b16(make_device, rng):
    """redux.sync.{and,or,max}, setp with a boolean second operation, and a 16-bit CAS."""
    a = rng.integers(-1000, 1000, 64).astype(np.int32)
    b = rng.integers(0, 3, 64).astype(np.int32)
    body = """
    ld.global.s32 %r1, [%rd6]; ld.global.s32 %r2, [%rd7];
    redux.sync.max.s32 %r3, %r1, -1;
    redux.sync.and.b32 %r4, %r1, -1;
    redux.sync.or.b32 %r5, %r1, -1;
    setp.ne.s32 %p1, %r2, 0;
    setp.ne.and.b32 %p2, %r1, 0, %p1;
    selp.b32 %r6, 1, 0, %p2;
    xor.b32 %r7, %r3, %r4; xor.b32 %r7, %r7, %r5; shl.b32 %r6, %r6, 31; xor.b32 %r7, %r7, %r6;
    st.global.u32 [%rd9], %r7;
    setp.eq.u32 %p3, %r0, 5;
    @%p3 atom.global.cas.b16 %h1, [%rd8], 0, 0x1234;"""
    c = np.zeros(64, np.uint32)
    mod = KernelModule.load((HEAD + body + "\n    ret;\n}\n").encode())
    dev = make_device(mod)
    pc, pd = dev.put(c), dev.zeros(64, np.uint32)
    dev.launch("k", 1, 64, dev.put(a), dev.put(b), pc, pd)
    got = dev.get(pd, 64, np.uint32)
    want = []
    for lane in range(64):
        w = a[(lane // 32) * 32:(lane // 32 + 1) * 32]
        mx, an, orr = int(w.max()), int(np.bitwise_and.reduce(w)), int(np.bitwise_or.reduce(w))
        p = int(a[lane] != 0 and b[lane] != 0)
        want.append((mx ^ an ^ orr ^ (p << 31)) & 0xFFFFFFFF)
    assert got.tolist() == want
    assert dev.get(pc, 64, np.uint16)[10] == 0x1234  # lane 5's element holds 2 halves: index 10


def test_fma_bf16x2(make_device, rng):
    def bf(x):  # round-to-nearest-even f32 -> bf16 bits
        u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
        return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    x, y, z = (rng.standard_normal((64, 2)).astype(np.float32) for _ in range(3))
    pack = lambda v: (bf(v[:, 0]).astype(np.uint32) | (bf(v[:, 1]).astype(np.uint32) << 16))  # noqa: E731
    a, b, c = pack(x), pack(y), pack(z)
    body = """
    ld.global.u32 %r1, [%rd6]; ld.global.u32 %r2, [%rd7]; ld.global.u32 %r3, [%rd8];
    fma.rn.bf16x2 %r4, %r1, %r2, %r3;
    st.global.u32 [%rd9], %r4;"""
    got = run(make_device, body, a, b, c)
    unb = lambda h: (h.astype(np.uint32) << 16).view(np.float32).astype(np.float64)  # noqa: E731
    for half in (0, 1):
        sel = lambda v: (v >> (16 * half)) & 0xFFFF  # noqa: E731
        exact = unb(sel(a)) * unb(sel(b)) + unb(sel(c))  # exact in f64: 8-bit mantissas
        np.testing.assert_array_equal(sel(got).astype(np.uint16), bf(exact.astype(np.float32)))


def test_cache_hints_and_scheduling_hints_keep_values(make_device, rng):
    """ld with an L2 cache policy operand, cp.async with an L2 prefetch size, griddepcontrol,
    nanosleep and barrier.sync change timing only."""
    a = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    body = """
    .shared .align 16 .b8 buf[256];
    griddepcontrol.wait;
    createpolicy.fractional.L2::evict_last.b64 %rd20, 1.0;
    ld.global.L2::cache_hint.u32 %r1, [%rd6], %rd20;
    shl.b32 %r9, %r0, 2;
    mov.u32 %r10, buf; add.u32 %r11, %r10, %r9;
    cp.async.ca.shared.global.L2::128B [%r11], [%rd6], 4;
    cp.async.commit_group; cp.async.wait_group 0;
    barrier.sync 0;
    nanosleep.u32 100;
    xor.b32 %r12, %r0, 1; shl.b32 %r12, %r12, 2; add.u32 %r12, %r10, %r12;
    ld.shared.u32 %r2, [%r12];
    add.u32 %r3, %r1, %r2;
    griddepcontrol.launch_dependents;
    st.global.u32 [%rd9], %r3;"""
    got = run(make_device, body, a)
    np.testing.assert_array_equal(got, (a.astype(np.uint64) + a[np.arange(64) ^ 1]).astype(np.uint32))


def _carry_chain_cases():
    def hi_word(a, b, c):  # the high word of a*b + c
        return (a * b + c) >> 32

    def carry_out(a, b, c):  # (a*b).lo + c carries into (a*b).hi + c, which carries out
        lo = (a * b & 0xFFFFFFFF) + c
        hi = (a * b >> 32) + c + (lo >> 32)
        return hi >> 32

    def signed_hi(a, b, c):  # mad.hi.cc on s32: the signed high half, added as unsigned
        sa, sb = (a ^ 0x80000000) - 0x80000000, (b ^ 0x80000000) - 0x80000000
        lo = ((sa * sb) & 0xFFFFFFFF) + c
        return (((sa * sb) >> 32) + c + (lo >> 32)) & 0xFFFFFFFF

    return [
        ("mad.lo.cc.u32 %r5, %r1, %r2, %r3; madc.hi.u32 %r6, %r1, %r2, 0;", hi_word),
        ("mad.lo.cc.u32 %r5, %r1, %r2, %r3; madc.hi.cc.u32 %r7, %r1, %r2, %r3; addc.u32 %r6, 0, 0;", carry_out),
        ("mad.lo.cc.s32 %r5, %r1, %r2, %r3; madc.hi.s32 %r6, %r1, %r2, %r3;", signed_hi),
    ]


@pytest.mark.parametrize("chain,reference", _carry_chain_cases())
def test_multiply_add_carry_chains(make_device, chain, reference):
    """mad.cc and madc: the extended-precision products libdevice's sin/cos reduce large arguments
    with (numba's math.sin failed on them). Each lane adds a product's halves and c through the
    carry flag; the reference is Python's exact arithmetic."""
    rng = np.random.default_rng(5)
    a = np.concatenate([[0xFFFFFFFF, 0x80000000, 0, 7], rng.integers(0, 1 << 32, 60)]).astype(np.uint32)
    b = np.concatenate([[0xFFFFFFFF, 0x80000000, 5, 0xFFFFFFFF], rng.integers(0, 1 << 32, 60)]).astype(np.uint32)
    c = np.concatenate([[0xFFFFFFFF, 0xFFFFFFFF, 1, 0], rng.integers(0, 1 << 32, 60)]).astype(np.uint32)
    body = f"""
    ld.global.u32 %r1, [%rd6]; ld.global.u32 %r2, [%rd7]; ld.global.u32 %r3, [%rd8];
    {chain}
    st.global.u32 [%rd9], %r6;"""
    got = run(make_device, body, a, b, c)
    want = [reference(int(x), int(y), int(z)) & 0xFFFFFFFF for x, y, z in zip(a, b, c)]
    assert got.tolist() == want


def _lanes(v, bits, signed):
    mask = (1 << bits) - 1
    out = [(v >> (bits * k)) & mask for k in range(32 // bits)]
    return [x - (mask + 1) if signed and x > mask >> 1 else x for x in out]


def _video(op, bits, signed, sat=False, add=False):
    """A SIMD video instruction from its definition: lanes of a against lanes of b."""
    f = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "avrg": lambda x, y: (x + y + 1) >> 1,
         "absdiff": lambda x, y: abs(x - y), "min": min, "max": max}[op]
    mask = (1 << bits) - 1
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, mask)

    def ref(a, b, c):
        r = [f(x, y) for x, y in zip(_lanes(a, bits, signed), _lanes(b, bits, signed))]
        if add:
            return (c + sum(r)) & 0xFFFFFFFF
        r = [min(max(x, lo), hi) for x in r] if sat else r
        return sum((x & mask) << (bits * k) for k, x in enumerate(r))
    return ref


@pytest.mark.parametrize("form,reference", [
    ("vabsdiff4.u32.u32.u32", _video("absdiff", 8, False)),     # CUDA's __vabsdiffu4
    ("vabsdiff4.u32.u32.u32.add", _video("absdiff", 8, False, add=True)),  # a sum of absolute differences
    ("vadd4.s32.s32.s32.sat", _video("add", 8, True, sat=True)),
    ("vsub4.u32.u32.u32", _video("sub", 8, False)),
    ("vavrg2.u32.u32.u32", _video("avrg", 16, False)),
    ("vmin2.s32.s32.s32", _video("min", 16, True)),
    ("vmax4.u32.u32.u32.sat", _video("max", 8, False, sat=True)),
])
def test_simd_video_instructions(make_device, form, reference):
    rng = np.random.default_rng(9)
    a, b, c = (rng.integers(0, 1 << 32, 64).astype(np.uint32) for _ in range(3))
    body = f"""
    ld.global.u32 %r1, [%rd6]; ld.global.u32 %r2, [%rd7]; ld.global.u32 %r3, [%rd8];
    {form} %r6, %r1, %r2, %r3;
    st.global.u32 [%rd9], %r6;"""
    got = run(make_device, body, a, b, c)
    assert got.tolist() == [reference(int(x), int(y), int(z)) for x, y, z in zip(a, b, c)]


def _minmax_16x2(f, signed, relu=False):
    def ref(a, b, c):
        out = 0
        for k in range(2):
            x, y = _lanes(a, 16, signed)[k], _lanes(b, 16, signed)[k]
            r = max(f(x, y), 0) if relu else f(x, y)
            out |= (r & 0xFFFF) << (16 * k)
        return out
    return ref


@pytest.mark.parametrize("form,reference", [
    ("min.s16x2", _minmax_16x2(min, True)), ("max.u16x2", _minmax_16x2(max, False)),
    ("max.relu.s16x2", _minmax_16x2(max, True, relu=True)), ("min.u16x2", _minmax_16x2(min, False)),
    ("add.s16x2", _minmax_16x2(lambda x, y: x + y, True)), ("add.u16x2", _minmax_16x2(lambda x, y: x + y, False)),
    ("sub.s16x2", _minmax_16x2(lambda x, y: x - y, True)),
])
def test_packed_16_bit_min_max(make_device, form, reference):
    """CuPy's CUB module reduces int16/uint16 with these (found by scanning its PTX); sm_90's
    packed adds (__viaddmax_s16x2, __vimin_s16x2_relu's neighbours) wrap in each half."""
    rng = np.random.default_rng(11)
    a, b = (rng.integers(0, 1 << 32, 64).astype(np.uint32) for _ in range(2))
    body = f"""
    ld.global.u32 %r1, [%rd6]; ld.global.u32 %r2, [%rd7];
    {form} %r6, %r1, %r2;
    st.global.u32 [%rd9], %r6;"""
    got = run(make_device, body, a, b)
    assert got.tolist() == [reference(int(x), int(y), 0) for x, y in zip(a, b)]


def test_a_32_bit_shared_address_wraps_with_its_offset(make_device):
    """[r + 8] with r = 0xFFFFFFF8 is shared address 0: a 32-bit address adds its offset in 32
    bits. ptxas folds offsets so (cuSOLVER's steqr does); read as a 64-bit sum it was 0x100000000,
    outside the window. Each thread reads its neighbour's element through such an address."""
    a = np.arange(64, dtype=np.uint32) * 3 + 1
    body = """
    .shared .align 4 .b8 sbuf[256];
    ld.global.u32 %r1, [%rd6];
    shl.b32 %r9, %r0, 2;
    mov.u32 %r10, sbuf; add.u32 %r11, %r10, %r9;
    st.shared.u32 [%r11], %r1;
    barrier.sync 0;
    xor.b32 %r12, %r0, 1; shl.b32 %r12, %r12, 2; add.u32 %r12, %r10, %r12; add.s32 %r12, %r12, -8;
    ld.shared.u32 %r2, [%r12+8];
    st.global.u32 [%rd9], %r2;"""
    got = run(make_device, body, a)
    np.testing.assert_array_equal(got, a[np.arange(64) ^ 1])


def test_an_unimplemented_modifier_fails_the_launch_naming_it(make_device):
    """A form the interpreter does not implement (here min.xorsign.abs) is refused when the kernel
    is first compiled, naming the instruction, the kernel and the module; other kernels of the
    module keep running."""
    ptx = (HEAD + """
    ld.global.f32 %f1, [%rd6];
    min.xorsign.abs.f32 %f2, %f1, %f1;
    st.global.f32 [%rd9], %f2;
    ret;
}
.visible .entry fine(.param .u64 p)
{
    ret;
}
""").encode()
    mod = KernelModule.load(ptx, label="libexample.so")
    dev = make_device(mod)
    x = dev.zeros(32, np.float32)
    with pytest.raises(SimError) as info:
        dev.launch("k", 1, 32, x, x, x, x)
    msg = info.value.message
    assert info.value.code == "CUDA_ERROR_NOT_SUPPORTED" and not info.value.sticky
    assert "min.xorsign.abs.f32" in msg and ".xorsign" in msg and "kernel k" in msg and "libexample.so" in msg
    dev.launch("fine", 1, 32, x)


def _fns_reference(mask: int, base: int, offset: int) -> int:
    """The PTX ISA's loop for fns.b32."""
    if offset == 0:
        return base if (mask >> base) & 1 else 0xFFFFFFFF
    pos, count, inc = base, abs(offset) - 1, 1 if offset > 0 else -1
    while 0 <= pos < 32:
        if (mask >> pos) & 1:
            if count == 0:
                return pos
            count -= 1
        pos += inc
    return 0xFFFFFFFF


def test_fns_finds_the_nth_set_bit(make_device, rng):
    """fns.b32 (__fns): the ISA's examples, empty and full masks, every offset from -33 to 33."""
    n = 256
    mask = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    mask[:4], mask[4:8], mask[8:12] = 0xAAAAAAAA, 0, 0xFFFFFFFF
    base = rng.integers(0, 32, n).astype(np.uint32)
    base[:4] = [3, 3, 2, 2]
    offset = rng.integers(-33, 34, n).astype(np.int32)
    offset[:4] = [1, -1, 1, -1]
    got = run(make_device, """
    ld.global.u32 %r1, [%rd6]; ld.global.u32 %r2, [%rd7]; ld.global.s32 %r3, [%rd8];
    fns.b32 %r4, %r1, %r2, %r3;
    st.global.u32 [%rd9], %r4;""", mask, base, offset.view(np.uint32))
    assert got[:4].tolist() == [3, 3, 3, 1]
    assert got.tolist() == [_fns_reference(int(m), int(b), int(o)) for m, b, o in zip(mask, base, offset)]


def _halves(x, bf=False):
    lo, hi = (x & 0xFFFF).astype(np.uint16), (x >> 16).astype(np.uint16)
    if bf:
        return [(v.astype(np.uint32) << 16).view(np.float32) for v in (lo, hi)]
    return [v.view(np.float16).astype(np.float32) for v in (lo, hi)]


@pytest.mark.parametrize("form,true_half", [("set.lt.f16x2.f16x2", 0x3C00), ("set.lt.u32.f16x2", 0xFFFF),
                                            ("set.lt.bf16x2.bf16x2", 0x3F80)])
def test_set_of_packed_halves(make_device, form, true_half):
    """set with 16-bit float halves (cuda_fp16.hpp's isinf/isnan checks in hrcp, hexp2, ...: a
    kernel using them failed to compile, writing -1 into an unsigned type)."""
    rng = np.random.default_rng(12)
    bf = "bf16" in form
    vals = np.array([0, 1, 2, -1, 0.5, 3, -2, 7], np.float32)
    if bf:
        bits = (vals.view(np.uint32) >> 16).astype(np.uint32)
    else:
        bits = vals.astype(np.float16).view(np.uint16).astype(np.uint32)
    a, b = (bits[rng.integers(0, 8, 64)] | bits[rng.integers(0, 8, 64)] << 16 for _ in range(2))
    got = run(make_device, f"""
    ld.global.u32 %r1, [%rd6]; ld.global.u32 %r2, [%rd7];
    {form} %r6, %r1, %r2;
    st.global.u32 [%rd9], %r6;""", a, b)
    (alo, ahi), (blo, bhi) = _halves(a, bf), _halves(b, bf)
    want = np.where(alo < blo, true_half, 0) | np.where(ahi < bhi, true_half << 16, 0)
    assert got.tolist() == want.astype(np.uint32).tolist()


def test_set_f16_and_setp_on_packed_halves(make_device):
    """set.f16 writes 1.0 in half precision; setp on f16x2 sets p from the low halves and q from
    the high ones (__hbeq2 and friends)."""
    a = np.array([0x3C00_4000, 0x4000_3C00, 0xBC00_0000, 0x0000_0000], np.uint32)
    b = np.array([0x4000_3C00, 0x4000_3C00, 0x0000_BC00, 0x0000_0000], np.uint32)
    got = run(make_device, """
    ld.global.u32 %r1, [%rd6]; ld.global.u32 %r2, [%rd7];
    mov.b32 {%h1, %h2}, %r1; mov.b32 {%h3, %h4}, %r2;
    set.lt.f16.f16 %h5, %h1, %h3;
    setp.le.f16x2 %p1|%p2, %r1, %r2;
    selp.u32 %r3, 1, 0, %p1; selp.u32 %r4, 2, 0, %p2;
    cvt.u32.u16 %r5, %h5; shl.b32 %r5, %r5, 16;
    or.b32 %r6, %r3, %r4; or.b32 %r6, %r6, %r5;
    st.global.u32 [%rd9], %r6;""", a, b)
    (alo, ahi), (blo, bhi) = _halves(a), _halves(b)
    want = (np.where(alo <= blo, 1, 0) | np.where(ahi <= bhi, 2, 0) | np.where(alo < blo, 0x3C00 << 16, 0))
    assert got.tolist() == want.astype(np.uint32).tolist()
