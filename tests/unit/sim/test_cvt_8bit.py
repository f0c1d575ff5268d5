"""cvt to and from the 8-bit formats, checked over whole input spaces where they are small: every
f16 to E4M3/E5M2 (which reaches every rounding boundary: each halfway point between two 8-bit
values is an f16), every bf16 and chosen f32 values to UE8M0 (the MX scale format) in both of its
roundings, and every UE8M0 code back to bf16. References are computed here from the formats'
definitions (value tables and a nearest/floor/ceil search), independently of ptx/fp8.py.

Each kernel runs one thread per 32-bit word of a (global index, %rd6) and writes one word of d (%rd9)."""
from __future__ import annotations

import bisect
import math
import struct

import numpy as np
import pytest

from rgpu.server.backends.sim.kernels import KernelModule

HEAD = """.version 9.0
.target sm_120
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pd)
{
    .reg .b32 %r<16>; .reg .b64 %rd<16>; .reg .f32 %f<8>; .reg .b16 %h<8>;
    ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd4, [pd];
    mov.u32 %r0, %tid.x; mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x;
    mad.lo.u32 %r0, %r1, %r2, %r0;
    mul.wide.u32 %rd5, %r0, 4;
    add.s64 %rd6, %rd1, %rd5; add.s64 %rd7, %rd2, %rd5; add.s64 %rd9, %rd4, %rd5;
"""
BLOCK = 256


def run(make_device, body: str, a, b=None) -> np.ndarray:
    """``body`` over len(a) threads (a multiple of BLOCK); d as uint32."""
    mod = KernelModule.load((HEAD + body + "\n    ret;\n}\n").encode())
    dev = make_device(mod)
    n = len(a)
    assert n % BLOCK == 0
    pa = dev.put(np.ascontiguousarray(a, np.uint32))
    pb = dev.put(np.ascontiguousarray(b if b is not None else np.zeros(n), np.uint32))
    d = dev.zeros(n, np.uint32)
    dev.launch("k", n // BLOCK, BLOCK, pa, pb, d)
    return dev.get(d, n, np.uint32)


def f32_of_bits(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


# -- E4M3 / E5M2 ---------------------------------------------------------------------------------
def minifloat_values(exp_bits: int, man_bits: int, ieee: bool) -> list[float]:
    """Value of each of the 256 codes from the format's definition (OCP 8-bit floats: E4M3 has no
    infinity and one NaN pattern per sign, E5M2 is IEEE-shaped)."""
    bias = 2 ** (exp_bits - 1) - 1
    top_e, top_m = 2 ** exp_bits - 1, 2 ** man_bits - 1
    out = []
    for code in range(256):
        s = -1.0 if code & 0x80 else 1.0
        e, m = (code >> man_bits) & top_e, code & top_m
        if ieee and e == top_e:
            out.append(s * math.inf if m == 0 else math.nan)
        elif not ieee and e == top_e and m == top_m:
            out.append(math.nan)
        else:
            out.append(s * (m / 2 ** man_bits if e == 0 else 1 + m / 2 ** man_bits) * 2.0 ** ((e or 1) - bias))
    return out


FORMATS = {"e4m3": minifloat_values(4, 3, False), "e5m2": minifloat_values(5, 2, True)}


def nearest_satfinite(x: float, fmt: str, relu: bool) -> int:
    """cvt.rn.satfinite{.relu}: the nearest finite code of x's sign, ties to the even code; beyond
    the largest finite value (infinity too) that value; NaN -> 0x7F; .relu: negatives -> +0."""
    if math.isnan(x):
        return 0x7F
    if relu and x < 0:
        x = 0.0
    sign = 0x80 if math.copysign(1.0, x) < 0 else 0
    codes = [c for c in range(128) if math.isfinite(FORMATS[fmt][c])]  # 0 .. max, increasing
    vals = [FORMATS[fmt][c] for c in codes]
    mag = abs(x)
    i = bisect.bisect_left(vals, mag)
    if i == len(vals):
        return sign | codes[-1]
    if vals[i] == mag or i == 0:
        return sign | codes[i]
    lo, hi = i - 1, i
    dlo, dhi = mag - vals[lo], vals[hi] - mag
    pick = hi if dhi < dlo or (dhi == dlo and codes[hi] % 2 == 0) else lo
    return sign | codes[pick]


def test_minifloat_tables():
    """The reference tables themselves: the formats' landmark values."""
    e4, e5 = FORMATS["e4m3"], FORMATS["e5m2"]
    assert max(v for v in e4 if math.isfinite(v)) == 448.0 and e4[0x7E] == 448.0
    assert math.isnan(e4[0x7F]) and math.isnan(e4[0xFF]) and sum(math.isnan(v) for v in e4) == 2
    assert e4[0x01] == 2.0 ** -9 and e4[0x08] == 2.0 ** -6 and e4[0x80] == 0.0
    assert max(v for v in e5 if math.isfinite(v)) == 57344.0 and e5[0x7B] == 57344.0
    assert e5[0x7C] == math.inf and e5[0xFC] == -math.inf and sum(math.isnan(v) for v in e5) == 6
    assert e5[0x01] == 2.0 ** -16 and e5[0x04] == 2.0 ** -14


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
@pytest.mark.parametrize("relu", [False, True])
def test_cvt_every_f16_to_fp8_pairs(make_device, fmt, relu):
    """cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 over all 65536 f16 values: the upper half of
    a goes to the upper byte."""
    halves = np.arange(65536, dtype=np.uint32)
    words = (halves << 16) | halves[::-1]  # every value in both halves
    relu_s = ".relu" if relu else ""
    body = f"""
    ld.global.b32 %r3, [%rd6];
    cvt.rn.satfinite{relu_s}.{fmt}x2.f16x2 %h1, %r3;
    cvt.u32.u16 %r4, %h1;
    st.global.u32 [%rd9], %r4;"""
    got = run(make_device, body, words)
    values = halves.astype(np.uint16).view(np.float16).astype(float).tolist()
    want = np.array([nearest_satfinite(v, fmt, relu) for v in values], np.uint32)
    np.testing.assert_array_equal(got >> 8, want)
    np.testing.assert_array_equal(got & 0xFF, want[::-1])
    # The landmarks, spelled out: saturation at the largest finite value, NaN, signed zero.
    top = 0x7E if fmt == "e4m3" else 0x7B
    assert want[0x7C00] == top and want[0x7BFF] == top  # +inf, 65504
    assert want[0xFC00] == (0 if relu else 0x80 | top)  # -inf
    minus_one = 0xB8 if fmt == "e4m3" else 0xBC
    assert want[0x7E00] == 0x7F and want[0x0000] == 0 and want[0xBC00] == (0 if relu else minus_one)
    # (-0 under .relu: kept as -0, as ptx/fp8.py and test_library_ops.py have it; the ISA does not say)


# -- UE8M0 ---------------------------------------------------------------------------------------
UE8M0_VALUES = [2.0 ** (c - 127) for c in range(255)]  # codes 0 .. 254; 0xFF is NaN


def ue8m0_ref(x: float, mode: str, sat: bool) -> int:
    """The UE8M0 code of |x|: .rz the largest power of two not above it, .rp the smallest not below
    it (2^-127 when none is smaller, zero included); past 2^127 (infinity too) NaN, or 2^127 with
    .satfinite; NaN -> 0xFF."""
    if math.isnan(x):
        return 0xFF
    mag = abs(x)
    if mode == "rz":
        i = bisect.bisect_right(UE8M0_VALUES, mag) - 1
        code = max(i, 0)
        if math.isinf(mag):
            code = 0xFF
    else:
        code = bisect.bisect_left(UE8M0_VALUES, mag)
        code = 0xFF if code == len(UE8M0_VALUES) else code
    return 0xFE if sat and code == 0xFF else code


@pytest.mark.parametrize("mode", ["rz", "rp"])
@pytest.mark.parametrize("sat", [False, True])
def test_cvt_every_bf16_to_ue8m0(make_device, mode, sat):
    """cvt.{rz,rp}{.satfinite}.ue8m0x2.bf16x2 over all 65536 bf16 values, both halves."""
    halves = np.arange(65536, dtype=np.uint32)
    words = (halves << 16) | halves[::-1]
    sat_s = ".satfinite" if sat else ""
    body = f"""
    ld.global.b32 %r3, [%rd6];
    cvt.{mode}{sat_s}.ue8m0x2.bf16x2 %h1, %r3;
    cvt.u32.u16 %r4, %h1;
    st.global.u32 [%rd9], %r4;"""
    got = run(make_device, body, words)
    want = np.array([ue8m0_ref(f32_of_bits(h << 16), mode, sat) for h in range(65536)], np.uint32)
    np.testing.assert_array_equal(got >> 8, want)
    np.testing.assert_array_equal(got & 0xFF, want[::-1])


TINY = 2.0 ** -127
F32_INPUTS = [0.0, -0.0, 1.0, -1.0, 2.0, 3.0, 0.75, -0.3, 1.5, 2.0 ** 127, 3.0 * 2.0 ** 126, TINY, TINY * 1.5,
              TINY / 2, 2.0 ** -149, 2.0 ** -126, 2.0 ** -126 * (1 - 2.0 ** -23), math.inf, -math.inf,
              math.nan, 1e-40, -1e38, 6.0e23]
F32_BITS = [0x7F7FFFFF, 0x7F000001, 0x7EFFFFFF, 0x3F800001, 0x3F7FFFFF, 0x00000001, 0x00200000, 0x00200001,
            0x001FFFFF, 0x80400000, 0xFFC00000, 0x7F800001, 0x4B000000, 0x4AFFFFFF]


@pytest.mark.parametrize("mode", ["rz", "rp"])
@pytest.mark.parametrize("sat", [False, True])
def test_cvt_f32_pairs_to_ue8m0(make_device, mode, sat):
    """cvt.{rz,rp}{.satfinite}.ue8m0x2.f32 d, a, b (a to the upper byte) at the boundaries: zero,
    2^-127 and either side of it, f32 subnormals, powers of two and their neighbours, the f32
    maximum (whose .rp result overflows), infinities and NaNs."""
    bits = [struct.unpack("<I", struct.pack("<f", x))[0] for x in F32_INPUTS] + F32_BITS
    bits += [0xA5A5A5A5 ^ (i * 0x01010101) for i in range(BLOCK - len(bits))]
    a = np.array(bits, np.uint32)
    b = a[::-1].copy()
    sat_s = ".satfinite" if sat else ""
    body = f"""
    ld.global.f32 %f1, [%rd6]; ld.global.f32 %f2, [%rd7];
    cvt.{mode}{sat_s}.ue8m0x2.f32 %h1, %f1, %f2;
    cvt.u32.u16 %r4, %h1;
    st.global.u32 [%rd9], %r4;"""
    got = run(make_device, body, a, b)
    want = [(ue8m0_ref(f32_of_bits(int(x)), mode, sat) << 8) | ue8m0_ref(f32_of_bits(int(y)), mode, sat)
            for x, y in zip(a, b)]
    assert [hex(v) for v in got] == [hex(v) for v in want]
    # Spelled out: the numba test's case, just past 2^127 rounded up, overflows.
    assert ue8m0_ref(f32_of_bits(0x7F000001), "rp", False) == 0xFF
    assert ue8m0_ref(f32_of_bits(0x7F000001), "rp", True) == 0xFE
    assert ue8m0_ref(f32_of_bits(0x7F000001), "rz", False) == 0xFE
    assert ue8m0_ref(0.0, "rp", False) == 0 and ue8m0_ref(TINY * 1.5, "rp", False) == 1


def test_cvt_every_ue8m0_pair_to_bf16x2(make_device):
    """cvt.rn.bf16x2.ue8m0x2 over all 256 codes in each byte: code c is 2^(c-127) exactly (code 0 a
    bf16 subnormal), 0xFF bf16's canonical NaN."""
    codes = np.arange(256, dtype=np.uint32)
    hi, lo = np.repeat(codes, 256), np.tile(codes, 256)
    body = """
    ld.global.b32 %r3, [%rd6]; cvt.u16.u32 %h1, %r3;
    cvt.rn.bf16x2.ue8m0x2 %r4, %h1;
    st.global.u32 [%rd9], %r4;"""
    got = run(make_device, body, (hi << 8) | lo)

    def bf16(c: int) -> int:
        if c == 0xFF:
            return 0x7FFF
        bits = struct.unpack("<I", struct.pack("<f", 2.0 ** (c - 127)))[0]
        assert bits & 0xFFFF == 0  # exact in bf16
        return bits >> 16

    table = np.array([bf16(c) for c in range(256)], np.uint32)
    np.testing.assert_array_equal(got >> 16, table[hi])
    np.testing.assert_array_equal(got & 0xFFFF, table[lo])
    assert table[127] == 0x3F80 and table[0] == 0x0040 and table[254] == 0x7F00
