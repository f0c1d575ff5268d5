"""Irregular control flow, divergent warp collectives, and breadth of PTX arithmetic
(tests/cuda/kernels/simflow.cu, simops.cu), plus -rdc=true programs of two translation units."""
from __future__ import annotations

import numpy as np
import pytest

from rgpu.server.backends.sim.kernels import KernelModule


@pytest.fixture(scope="module", params=["ptx", "debug-G"])
def flow_dev_module(request, build_image):
    return KernelModule.load(build_image("simflow.cu", request.param))


@pytest.fixture(scope="module")
def ops_module(build_image):
    return KernelModule.load(build_image("simops.cu", "fatbin-balance"))


def _flow_ref(v):
    acc = 0
    for a in range(v & 7):
        if a == 5 and (v & 64):
            break
        for b in range(6):
            if (a + b + v) % 3 == 0:
                continue
            if b > ((v >> 3) & 3) + 2:
                break
            acc += a * 7 + b
        if acc > 200 and (v & 16):
            return -acc
    r = v % 5
    if r == 0:
        acc += 11
    elif r in (1, 2):
        if r == 1:
            acc *= 3
        acc -= 4
    elif r == 3:
        while acc > 10:
            acc //= 2
    else:
        acc = ~acc
    return acc


def test_nested_loops_break_continue_early_exit_switch(flow_dev_module, make_device, rng):
    d = make_device(flow_dev_module)
    n = 700
    v = rng.integers(0, 1 << 12, n, dtype=np.int32)
    pv, po = d.put(v), d.zeros(n, np.int32)
    d.launch("flow", 3, 256, pv, po, n)
    np.testing.assert_array_equal(d.get(po, n, np.int32), [_flow_ref(int(x)) for x in v])


def test_divergent_warp_collectives_and_barrier_reductions(flow_dev_module, make_device, rng):
    d = make_device(flow_dev_module)
    n = 128
    v = rng.integers(0, 100, n, dtype=np.int32)
    v[64:] = rng.integers(0, 50, 64) * 2  # second block: even values only, none above 98
    pv, po = d.put(v), d.zeros(5 * n, np.uint32)
    d.launch("divergent_collectives", 2, 64, pv, po)
    out = d.get(po, 5 * n, np.uint32).reshape(n, 5)
    for i in range(n):
        w = v[i // 32 * 32:i // 32 * 32 + 32]
        blk = v[i // 64 * 64:i // 64 * 64 + 64]
        odd = (w & 1) == 1
        if v[i] & 1:
            assert out[i, 0] == sum(1 << k for k in range(32) if odd[k])
            assert out[i, 1] == w[odd].sum()
        else:
            assert out[i, 0] == sum(1 << k for k in range(32) if not odd[k] and (w[k] & 6) == (v[i] & 6))
            assert out[i, 1] == w[~odd].max()
        assert out[i, 2] == (blk > 50).sum()
        assert out[i, 3] == int((blk >= 0).all())
        assert out[i, 4] == int((blk > 98).any())


def _bf16(x):
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint32) << 16
    return r.astype(np.uint32).view(np.float32)


def test_float_rounding_saturation_and_conversions(ops_module, make_device, rng):
    d = make_device(ops_module)
    n = 64
    a = (rng.random(n, np.float32) - 0.3) * 600
    b = (rng.random(n, np.float32) - 0.5) * 40
    a[:8] = [np.nan, 2.5, -2.5, 0.5, 1.5, np.inf, -0.0, 3e9]
    b[:8] = [1.0, np.nan, np.inf, -np.inf, 0.25, 2.0, -3.0, 7.0]
    pa, pb, pf, pi = d.put(a), d.put(b), d.zeros(12 * n, np.float32), d.zeros(10 * n, np.int32)
    d.launch("fops", 1, n, pa, pb, pf, pi)
    f = d.get(pf, 12 * n, np.float32).reshape(n, 12)
    k = d.get(pi, 10 * n, np.int32).reshape(n, 10)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(all="ignore"):
        fin = np.isfinite(a) & np.isfinite(b)
        prod = a64 * b64
        assert (f[fin, 1] >= prod[fin]).all() and (f[fin, 1].astype(np.float64) - prod[fin] <
                                                   np.spacing(np.abs(f[fin, 1])) * 1.0001).all()
        s = a64 + b64
        assert (np.abs(f[fin, 0]) <= np.abs(s[fin])).all()
        np.testing.assert_array_equal(f[fin, 0], np.where(np.abs(s[fin].astype(np.float32)) > np.abs(s[fin]),
                                                          np.nextafter(s[fin].astype(np.float32), np.float32(0)),
                                                          s[fin].astype(np.float32)))
        q = a64 / b64
        ok = fin & (b != 0)
        assert (f[ok, 2] <= q[ok]).all()
        np.testing.assert_array_equal(f[:, 3], np.where(np.isnan(a), 0, np.clip(a, 0, 1)))
        np.testing.assert_array_equal(f[fin, 4], (a64 * b64 - a64)[fin].astype(np.float32))
        np.testing.assert_array_equal(f[:, 5], np.fmin(a, b))
        np.testing.assert_array_equal(f[:, 6], np.fmax(a, b))
        np.testing.assert_array_equal(f[:, 7], np.copysign(a, b))
        np.testing.assert_array_equal(f[:, 8], (a.astype(np.float16) + b.astype(np.float16)).astype(np.float32))
        np.testing.assert_array_equal(f[fin, 9], _bf16(_bf16(a) * _bf16(b))[fin])
        np.testing.assert_array_equal(f[:, 11], np.trunc(a) + np.floor(b) + np.ceil(a) + np.rint(b))

        def sat_int(x, lo, hi):
            return np.where(np.isnan(x), 0, np.clip(np.nan_to_num(x, posinf=hi, neginf=lo), lo, hi)).astype(np.int64)

        lo, hi = -2**31, 2**31 - 1
        np.testing.assert_array_equal(k[:, 0], sat_int(np.floor(a64), lo, hi))
        np.testing.assert_array_equal(k[:, 1], sat_int(np.ceil(a64), lo, hi))
        np.testing.assert_array_equal(k[:, 2], sat_int(np.rint(a64), lo, hi))
        np.testing.assert_array_equal(k[:, 3], sat_int(np.trunc(a64), lo, hi))
        np.testing.assert_array_equal(k[:, 4].view(np.uint32), sat_int(np.rint(a64), 0, 2**32 - 1).astype(np.uint32))
        np.testing.assert_array_equal(k[:, 5], np.isnan(a) + 2 * np.isinf(b) + 4 * (a < b) + 8 * ~(a >= b))
        big = [min(max(int(v), -2**63), 2**63 - 1) if np.isfinite(v) else 0
               for v in (a * np.float32(1e10)).astype(np.float64)]
        ref6 = [((v >> 20) + 2**31) % 2**32 - 2**31 for v in big]
        np.testing.assert_array_equal(k[fin, 6], np.array(ref6)[fin])
        np.testing.assert_array_equal(k[:, 8], np.signbit(a).astype(np.int32))
        np.testing.assert_array_equal(k[:, 9], np.isfinite(b).astype(np.int32))


def _to64(x):
    return x & 0xFFFFFFFFFFFFFFFF


def test_64bit_bit_ops_and_division(ops_module, make_device, rng):
    d = make_device(ops_module)
    n = 32
    x = rng.integers(0, 2**63, n, dtype=np.int64).astype(np.uint64) * np.uint64(2) + np.uint64(1)
    x[:3] = [0, 1, 2**63]
    px, po = d.put(x), d.zeros(8 * n, np.uint64)
    d.launch("bits64", 1, n, px, po)
    got = d.get(po, 8 * n, np.uint64).reshape(n, 8)
    for i, v in enumerate(int(t) for t in x):
        sv = v - (1 << 64) if v >> 63 else v
        assert got[i, 0] == bin(v).count("1")
        assert got[i, 1] == 64 - v.bit_length()
        assert got[i, 2] == int(f"{v:064b}"[::-1], 2)
        assert got[i, 3] == (v & -v).bit_length()
        assert got[i, 4] == (v * 0x9E3779B97F4A7C15) >> 64
        assert got[i, 5] == _to64((sv * -12345678901) >> 64)
        assert got[i, 6] == _to64(v // 1000003 + v % 97)
        q = abs(sv) // 77
        assert got[i, 7] == _to64(-q if sv >= 0 else q)


def test_inline_asm_bit_instructions(ops_module, make_device, rng):
    d = make_device(ops_module)
    x = rng.integers(0, 2**32, 32, dtype=np.uint64).astype(np.uint32)
    x[:4] = [0x7F800000, 0x7FC00000, 0x3F800000, 0xFF800000]  # inf, nan, 1.0, -inf as float bits
    px, po = d.put(x), d.zeros(8 * 32, np.uint32)
    d.launch("inline_asm", 1, 32, px, po)
    got = d.get(po, 8 * 32, np.uint32).reshape(32, 8)
    xf = x.view(np.float32)
    for i in range(32):
        a, b, c = int(x[i]), int(x[(i + 1) & 31]), int(x[(i + 2) & 31])
        assert got[i, 0] == (a & b) | (a & c) | (b & c)
        assert got[i, 1] == (a >> i) & 0x1FF
        field = (a >> i) & 0x7F
        sign = (a >> min(i + 6, 31)) & 1
        width = min(7, 32 - i)
        fs = (field | (~0 << width)) & 0xFFFFFFFF if sign else field
        assert got[i, 2] == fs, i
        mask = ((1 << 5) - 1) << i
        assert got[i, 3] == ((a & ~mask) | ((b << i) & mask)) & 0xFFFFFFFF
        src = a | (b << 32)
        perm = 0
        for k in range(4):
            sel = (c >> (4 * k)) & 0xF
            byte = (src >> (8 * (sel & 7))) & 0xFF
            if sel & 8:
                byte = 0xFF if byte & 0x80 else 0
            perm |= byte << (8 * k)
        assert got[i, 4] == perm
        assert got[i, 5] == ((a | (b << 32)) >> min(i + 20, 32)) & 0xFFFFFFFF
        assert got[i, 6] == int(np.isfinite(xf[i]))
        with np.errstate(invalid="ignore"):
            assert got[i, 7] == int(bool(xf[i] > xf[(i + 1) & 31]) or bool(np.isnan(xf[i]) or np.isnan(xf[(i + 1) & 31])))


def test_rdc_units_link_across_containers(build_image, make_device):
    # What a -rdc=true program registers: one container per translation unit, back to back.
    img = build_image("simrdc_a.cu", "rdc") + build_image("simrdc_b.cu", "rdc")
    d = make_device(KernelModule.load(img))
    v = np.arange(32, dtype=np.int32)
    pv = d.put(v)
    d.launch("rdc_kernel", 1, 32, pv, 3)
    np.testing.assert_array_equal(d.get(pv, 32, np.int32), v * 3 + 1)


def test_special_registers_spaces_packed_halves_and_hints(build_image, make_device):
    d = make_device(KernelModule.load(build_image("simmisc.cu", "ptx")))
    x = (np.arange(64, dtype=np.uint64) * 2654435761 + 12345).astype(np.uint32)
    px, po = d.put(x), d.zeros(64 * 16, np.uint32)
    d.launch("misc", 1, 64, px, po)
    r = d.get(po, 64 * 16, np.uint32).reshape(64, 16)
    for t in range(64):
        a, b, lane = int(x[t]), int(x[(t + 1) & 63]), t % 32
        # fma rounds once: the exact value (f64 holds it) rounded to f16
        fma = np.array([(t + 1) ** 2 + (t + 1), 0.75]).astype(np.float16).view(np.uint16).astype(np.uint32)
        expect = [
            (1 << lane) - 1, (~((1 << lane) - 1)) & 0xFFFFFFFF, 1, 1, int(x[t ^ 1]),
            ((a & 0xFFFFFF) * (b & 0xFFFFFF)) & 0xFFFFFFFF, abs(a - b) + 7,
            ((a & 0xFFFF) << 16) | (a >> 16), int(fma[0] | (fma[1] << 16)), 1, 0, 0xFFFFFFFF,
            a if t - 10 >= 0 else b, 0xFFFFFFFF if t > 20 else 0, 3, int(x[(t + 5) & 63]),
        ]
        assert list(r[t]) == expect, t


def test_approximate_math(ops_module, make_device, rng):
    d = make_device(ops_module)
    x = ((rng.random(64) - 0.5) * 6).astype(np.float32)
    px, po = d.put(x), d.zeros(8 * 64, np.float32)
    d.launch("approx", 1, 64, px, po)
    r = d.get(po, 8 * 64, np.float32).reshape(64, 8)
    v = x.astype(np.float64)
    ref = [np.sin(v), np.cos(v), np.exp(v), np.log2(np.abs(v) + 1), 1 / np.sqrt(np.abs(v) + 0.5), 1 / v,
           np.sqrt(np.abs(v)), np.tanh(v)]
    for k, e in enumerate(ref):
        np.testing.assert_allclose(r[:, k], e, rtol=2e-6, atol=2e-6, err_msg=f"column {k}")
    np.testing.assert_array_equal(r[:, 5], (np.float32(1) / x))  # .rn reciprocal is exact-rounded
