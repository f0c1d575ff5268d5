"""The compiled path (server/backends/sim/jit) against the interpreter at the edges of IEEE 754:
every float arithmetic and conversion form the compiler covers (tests/cuda/kernels/simjit_ieee.cu,
one form per output slot), run over lanes holding the conformance sweep's edge inputs (signed
zeros, infinities, NaNs with payloads, subnormals, ties, extremes; test_ieee_sweep.py) and
random ones. Device memory must match the interpreter's bit for bit; f64 NaN results only need
to be NaN on both sides, as the sweep checks them (their payload is not fixed by the interpreter).
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from rgpu.server.backends.sim import jit
from rgpu.server.backends.sim.kernels import KernelModule

from . import ieee_ref as ref
from .test_ieee_sweep import SPECIAL_BITS, halfway_pairs, random_bits

SOURCE = Path(__file__).resolve().parents[2] / "cuda" / "kernels" / "simjit_ieee.cu"


def slots(kernel: str) -> dict[str, list[str]]:
    """The PTX form written to each slot of each output pointer of `kernel`, read from its source."""
    text = SOURCE.read_text()
    body = text.split(f"void {kernel}(", 1)[1].split('extern "C"', 1)[0]
    out: dict[str, list[str]] = {}
    for var, form in re.findall(r'^\s*(\w+)\[n \* k\+\+\] = .*?"([^"]+)"', body, re.M):
        out.setdefault(var, []).append(form)
    return out


@pytest.fixture(scope="module")
def ieee_image(build_image):
    return build_image("simjit_ieee.cu", "ptx")


@pytest.fixture
def jit_mode():
    """Sets the compiled path on or off (compiling at the first launch); restores it after."""
    before = jit.enabled()
    jit.set_after(0)
    yield jit.set_enabled
    jit.set_enabled(before)
    jit.set_after(None)


def float_operands(t: str, rng) -> list[np.ndarray]:
    """Three operand columns of bit patterns: every pair of the sweep's special values (c cycling
    through them too), ties, random patterns, and products cancelled by c (tiny fma results)."""
    bits = {"f32": np.uint32, "f64": np.uint64}[t]
    s = SPECIAL_BITS[t]
    k = len(s)
    a = [x for x in s for _ in s]
    b = [y for _ in s for y in s]
    c = [s[(7 * i + i // k) % k] for i in range(k * k)]
    ha, hb = halfway_pairs(t, 200, rng)
    a, b, c = a + ha, b + hb, c + [int(v) for v in random_bits(t, 200, rng)]
    ra, rb, rc = (random_bits(t, 600, rng) for _ in range(3))
    for i, (x, y) in enumerate(zip(ra, rb)):
        p = ref.mul(ref.decode(int(x), t), ref.decode(int(y), t), t, "rn")
        a.append(int(x))
        b.append(int(y))
        c.append(ref.encode(-p, t) if i % 3 and p == p else int(rc[i]))
    return [np.array(col, dtype=np.uint64).astype(bits) for col in (a, b, c)]


CVT_F32 = [0.5, 1.5, 2.5, 0.49999997, 1 - 2.0 ** -24, 2.0 ** 31, 2.0 ** 31 - 128, 2.0 ** 31 + 256, 2.0 ** 32,
           2.0 ** 32 - 256, 2.0 ** 63, 2.0 ** 64, 2.0 ** 63 - 2.0 ** 39, 32767.5, 32768.0, 65535.5, 65536.0, 8388609.5,
           16777215.0, 2.0 ** -149, 2.0 ** -126, 1e-45, 3.4e38]
CVT_F64 = [2.0 ** 31 - 0.5, 2.0 ** 31 - 1, 2.0 ** 31 - 0.25, 2.0 ** 32 - 0.5, 2.0 ** 32 - 1, 2.0 ** 53 + 2,
           2.0 ** 63 - 1024, 2.0 ** 64 - 2048, 2.0 ** 64, 2.0 ** 63, 4294967295.5, 1 - 2.0 ** -53, 0.5 + 2.0 ** -53,
           3.4028235677973366e38, 3.4028235677973362e38, 3.402823567797337e38, 1.1754942807573643e-38,
           1.1754943508222875e-38, 1.401298464324817e-45, 7.006492321624085e-46, 7.006492321624087e-46,
           2.0 ** -150, 1.0000000596046448, 1.0000000596046449, 1e300, 1e-300, 5e-324]


def cvt_operands(n: int, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """f32, f64 and s64 columns of n lanes: special values, integer-conversion edges (ties, the
    destination ranges' bounds, just past them, both signs) and random ones."""
    f = [int(v) for v in SPECIAL_BITS["f32"]]
    f += [int(np.float32(s * v).view(np.uint32)) for v in CVT_F32 for s in (1, -1)]
    g = [int(v) for v in SPECIAL_BITS["f64"]]
    g += [int(np.float64(s * v).view(np.uint64)) for v in CVT_F64 + CVT_F32 for s in (1, -1)]
    ints = [0, 1, -1, 2 ** 31 - 1, -2 ** 31, 2 ** 31, 2 ** 32 - 1, 2 ** 24 + 1, 2 ** 24 + 3, -(2 ** 24 + 1),
            2 ** 53 + 1, 2 ** 53 + 3, -(2 ** 53 + 1), 2 ** 63 - 1, -2 ** 63, (2 ** 24 + 1) << 38, -(2 ** 24 + 1) << 38,
            2 ** 63 - 2 ** 39, 2 ** 63 - 2 ** 10, ((2 ** 24 + 1) << 7) - 2 ** 32, 0x7FFFFFBF, 0x7FFFFFC0]

    def fill(col, extra):
        col = col + list(extra)
        return col[:n]
    fa = fill(f, random_bits("f32", n, rng))
    da = fill(g, random_bits("f64", n, rng))
    r = rng.integers(-2 ** 63, 2 ** 63 - 1, n, dtype=np.int64, endpoint=True)
    r >>= rng.integers(0, 63, n).astype(np.int64)  # every magnitude, so each place gets rounded
    ia = fill(ints, r.tolist())
    return (np.array(fa, np.uint64).astype(np.uint32).view(np.float32),
            np.array(da, np.uint64).view(np.float64), np.array(ia, np.int64))


def _run(make_device, image, on, jit_mode, kernel, inputs, outs, n, compiled=None):
    """Launch `kernel` over n lanes with the compiled path on or off: the outputs' raw bytes.
    With the path on, the kernel must have been compiled (`compiled` None or True) or must have
    stayed interpreted (False)."""
    jit_mode(on)
    mod = KernelModule.load(image)
    dev = make_device(mod)
    ins = [dev.put(x) for x in inputs]
    bufs = [(dev.zeros(count * n, dt), count * n, dt) for count, dt in outs]
    stats = dev.launch(kernel, (n + 127) // 128, 128, *ins, *[a for a, _, _ in bufs], n)
    if on and compiled is False:
        assert mod.jitted(mod.functions[kernel]) is None, f"{kernel} was compiled"
    elif on:
        assert mod.jitted(mod.functions[kernel]) is not None, f"{kernel} was not compiled"
    return [dev.get(a, count, dt) for a, count, dt in bufs], stats


def _differences(names, want, got, n, nan_only):
    """'form: lane: interpreter's bits -> compiled bits' lines where the two disagree."""
    width = want.dtype.itemsize * 8
    w, g = want.reshape(len(names), n), got.reshape(len(names), n)
    bad = w != g
    if nan_only:  # f64: both NaN is agreement
        fw, fg = w.view(np.float64), g.view(np.float64)
        bad &= ~(np.isnan(fw) & np.isnan(fg))
    lines = []
    for slot, lane in zip(*np.nonzero(bad)):
        lines.append(f"{names[slot]}: lane {lane}: {int(w[slot, lane]):0{width // 4}x} "
                     f"-> {int(g[slot, lane]):0{width // 4}x}")
    return lines


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_float_arithmetic_at_the_edges_matches_the_interpreter(make_device, ieee_image, jit_mode, t):
    kernel = f"ieee_{t}"
    names = slots(kernel)["o"]
    a, b, c = float_operands(t, np.random.default_rng(41))
    n = len(a)
    bits = np.uint32 if t == "f32" else np.uint64
    results = [_run(make_device, ieee_image, on, jit_mode, kernel, (a, b, c), [(len(names), bits)], n)
               for on in (False, True)]
    (want,), ref_stats = results[0]
    (got,), stats = results[1]
    bad = _differences(names, want, got, n, nan_only=t == "f64")
    assert not bad, _report(bad)
    assert stats.thread_instructions == ref_stats.thread_instructions


def _report(bad: list[str]) -> str:
    """How many lanes of each form differ, with the first two of each."""
    by_form: dict[str, list[str]] = {}
    for line in bad:
        by_form.setdefault(line.split(":")[0], []).append(line)
    return f"{len(bad)} results differ:\n" + "\n".join(
        f"{form} ({len(lines)} lanes): " + "; ".join(lines[:2]) for form, lines in by_form.items())


def test_conversions_at_the_edges_match_the_interpreter(make_device, ieee_image, jit_mode):
    names = slots("ieee_cvt")
    n = 1024
    inputs = cvt_operands(n, np.random.default_rng(44))
    outs = [(len(names["W"]), np.uint32), (len(names["Q"]), np.uint64), (len(names["D"]), np.uint64)]
    (want, ref_stats), (got, stats) = (_run(make_device, ieee_image, on, jit_mode, "ieee_cvt", inputs, outs, n)
                                       for on in (False, True))
    bad = []
    for var, w, g in zip("WQD", want, got):
        bad += _differences(names[var], w, g, n, nan_only=var == "D")
    assert not bad, _report(bad)
    assert stats.thread_instructions == ref_stats.thread_instructions


F16_BITS = [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3BFF, 0x3C00, 0x3C01, 0x3800, 0x3E00, 0x4100,
            0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7C01, 0x7E00, 0x7FFF, 0xFE01, 0x5A00, 0xD9FF, 0x6BFF, 0x77FF]


def test_directed_and_f16_conversions_match_the_interpreter(make_device, ieee_image, jit_mode):
    """cvt to f32 in .rz/.rm/.rp from f64 and 32-bit integers, and between f16 or bf16 and f32,
    f64 and integers: bit for bit the interpreter's on the conversion edges, f16 ones included
    (the same 16-bit patterns serve as bf16 inputs)."""
    names = slots("ieee_cvt_more")
    n = 1024
    rng = np.random.default_rng(46)
    fa, da, ia = cvt_operands(n, rng)
    ha = np.array((F16_BITS + rng.integers(0, 1 << 16, n).tolist())[:n], np.uint16)
    outs = [(len(names["W"]), np.uint32), (len(names["D"]), np.uint64)]
    (want, ref_stats), (got, stats) = (_run(make_device, ieee_image, on, jit_mode, "ieee_cvt_more",
                                            (fa, da, ia, ha), outs, n) for on in (False, True))
    bad = []
    for var, w, g in zip("WD", want, got):
        bad += _differences(names[var], w, g, n, nan_only=var == "D")
    assert not bad, _report(bad)
    assert stats.thread_instructions == ref_stats.thread_instructions


def test_f16_arithmetic_at_the_edges_matches_the_interpreter(make_device, ieee_image, jit_mode):
    """add, sub, mul, fma of .f16 and .f16x2 (.rn, .ftz, .sat), of .bf16 and .bf16x2 (.rn), min and max
    of all four (.ftz, .NaN), and setp of f16 and bf16 over every pair
    of the f16 edge values (subnormals, the largest finite, infinities, NaNs with payloads, ties) and random halves:
    the interpreter's bits, canonical NaN 0x7fff included."""
    names = slots("ieee_f16")
    rng = np.random.default_rng(49)
    pairs = [(x, y) for x in F16_BITS for y in F16_BITS]
    n = len(pairs) + 1024
    a = np.array([x for x, _ in pairs] + rng.integers(0, 1 << 16, 1024).tolist(), np.uint16)
    b = np.array([y for _, y in pairs] + rng.integers(0, 1 << 16, 1024).tolist(), np.uint16)
    outs = [(len(names["H"]), np.uint16), (len(names["P"]), np.uint32)]
    (want, ref_stats), (got, stats) = (_run(make_device, ieee_image, on, jit_mode, "ieee_f16", (a, b), outs, n)
                                       for on in (False, True))
    bad = []
    for var, w, g in zip("HP", want, got):
        bad += _differences(names[var], w, g, n, nan_only=False)
    assert not bad, _report(bad)
    assert stats.thread_instructions == ref_stats.thread_instructions


def test_half2_conversions_through_f16_registers_match_the_interpreter(make_device, ieee_image, jit_mode):
    """cuda_fp16's half2 <-> float2 conversions (.f16 registers, mov.b32 {lo, hi}, cvt.rn.f16x2.f32)
    on every f16 class and the f32 conversion edges: the interpreter's bits."""
    n = 1024
    rng = np.random.default_rng(48)
    fa, _, _ = cvt_operands(n, rng)
    lo = np.array((F16_BITS * 2 + rng.integers(0, 1 << 16, n).tolist())[:n], np.uint32)
    hi = np.array((F16_BITS[::-1] * 2 + rng.integers(0, 1 << 16, n).tolist())[:n], np.uint32)
    x = lo | (hi << np.uint32(16))
    outs = [(2, np.uint32), (3, np.uint32)]
    (want, ref_stats), (got, stats) = (_run(make_device, ieee_image, on, jit_mode, "ieee_half2", (x, fa), outs, n)
                                       for on in (False, True))
    bad = _differences(["f32 pair"] * 2, want[0].reshape(n, 2).T.copy(), got[0].reshape(n, 2).T.copy(), n, False)
    bad += _differences(["rn pack", "halves", "rn pack 2"], want[1], got[1], n, nan_only=False)
    assert not bad, _report(bad)
    assert stats.thread_instructions == ref_stats.thread_instructions


def test_nans_through_float_chains_read_as_bits_match_the_interpreter(make_device, ieee_image, jit_mode):
    """f32 results read only by f32 arithmetic keep the host's NaN (jit/codegen.lazy_nan_registers);
    every reader that can see the bits (a store, neg, abs, an integer op, a shuffle, a select)
    sees the interpreter's canonical NaN."""
    a, b, c = float_operands("f32", np.random.default_rng(47))
    n = len(a) // 128 * 128
    a, b, c = a[:n], b[:n], c[:n]
    (want,), ref_stats = _run(make_device, ieee_image, False, jit_mode, "ieee_chain", (a, b, c), [(7, np.uint32)], n)
    (got,), stats = _run(make_device, ieee_image, True, jit_mode, "ieee_chain", (a, b, c), [(7, np.uint32)], n)
    names = ["fma chain", "neg", "abs", "xor", "min", "shfl.down", "select"]
    bad = _differences(names, want, got, n, nan_only=False)
    assert not bad, _report(bad)
    assert np.isnan(want[:n].view(np.float32)).sum() > 100  # the chains did carry NaNs
    assert stats.thread_instructions == ref_stats.thread_instructions


def test_f32_directed_rounding_matches_the_interpreter(make_device, ieee_image, jit_mode):
    """add, sub, mul, div, fma, sqrt and rcp in .rz, .rm and .rp (and with .ftz, .sat): the
    compiled kernel gives the interpreter's bits on every edge input."""
    names = slots("ieee_directed")["o"]
    a, b, c = float_operands("f32", np.random.default_rng(45))
    n = len(a)
    (want,), ref_stats = _run(make_device, ieee_image, False, jit_mode, "ieee_directed", (a, b, c),
                              [(len(names), np.uint32)], n)
    (got,), stats = _run(make_device, ieee_image, True, jit_mode, "ieee_directed", (a, b, c),
                         [(len(names), np.uint32)], n)
    bad = _differences(names, want, got, n, nan_only=False)
    assert not bad, _report(bad)
    assert stats.thread_instructions == ref_stats.thread_instructions


def test_f64_directed_rounding_matches_the_interpreter(make_device, ieee_image, jit_mode):
    """add, sub, mul, div, fma, sqrt, rcp of f64 in .rz/.rm/.rp: the compiled code's (AVX-512's
    per-instruction rounding) against the interpreter's exact rationals, bit for bit but for NaN
    payloads; a host without AVX-512 runs the kernel interpreted, with the same results."""
    from rgpu.server.backends.sim.jit import engine
    names = slots("ieee_directed_f64")["o"]
    a, b, c = float_operands("f64", np.random.default_rng(45))
    n = len(a)
    results = [_run(make_device, ieee_image, on, jit_mode, "ieee_directed_f64", (a, b, c),
                    [(len(names), np.uint64)], n, compiled=engine.host_has("avx512f") if on else None)
               for on in (False, True)]
    (want,), ref_stats = results[0]
    (got,), stats = results[1]
    bad = _differences(names, want, got, n, nan_only=True)
    assert not bad, _report(bad)
    assert stats.thread_instructions == ref_stats.thread_instructions


def test_integer_dot_products_match_the_interpreter(make_device, ieee_image, jit_mode):
    """dp4a and dp2a (.lo, .hi) with each signedness of a and b over byte and half patterns at the
    edges (0x80, 0x7f, 0xff, 0x8000, 0x7fff) and random words, sums wrapping past 2^32."""
    names = slots("int_dot")["W"]
    rng = np.random.default_rng(51)
    edges = [0, 0x80808080, 0x7F7F7F7F, 0xFFFFFFFF, 0x80007FFF, 0x7FFF8000, 0x01FF80FE]
    pairs = [(x, y) for x in edges for y in edges]
    n = len(pairs) + 1024
    a = np.array([x for x, _ in pairs] + rng.integers(0, 1 << 32, 1024).tolist(), np.uint32)
    b = np.array([y for _, y in pairs] + rng.integers(0, 1 << 32, 1024).tolist(), np.uint32)
    c = rng.integers(0, 1 << 32, n).astype(np.uint32)
    (want,), ref_stats = _run(make_device, ieee_image, False, jit_mode, "int_dot", (a, b, c), [(len(names), np.uint32)], n)
    (got,), stats = _run(make_device, ieee_image, True, jit_mode, "int_dot", (a, b, c), [(len(names), np.uint32)], n)
    bad = _differences(names, want, got, n, nan_only=False)
    assert not bad, _report(bad)
    assert stats.thread_instructions == ref_stats.thread_instructions
    # and the sum itself, for dp4a.s32.s32: the signed bytes' products added to c, mod 2^32
    sa, sb = (v.view(np.int8).reshape(n, 4).astype(np.int64) for v in (a, b))
    dot = ((sa * sb).sum(axis=1) + c.view(np.int32)) & 0xFFFFFFFF
    assert got[names.index("dp4a.s32.s32") * n:][:n].tolist() == dot.tolist()


def test_a_form_outside_the_subset_runs_the_kernel_interpreted(make_device, ieee_image, jit_mode):
    """A form the compiler does not cover (f16 tanh) leaves the whole kernel to the interpreter."""
    rng = np.random.default_rng(50)
    a, b = (np.array(F16_BITS + rng.integers(0, 1 << 16, 1000).tolist(), np.uint16) for _ in range(2))
    n = len(a)
    (want,), _ = _run(make_device, ieee_image, False, jit_mode, "ieee_uncovered", (a, b), [(1, np.uint16)], n)
    (got,), _ = _run(make_device, ieee_image, True, jit_mode, "ieee_uncovered", (a, b), [(1, np.uint16)], n,
                     compiled=False)
    assert want.tobytes() == got.tobytes()
