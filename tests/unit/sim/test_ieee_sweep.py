"""Arithmetic conformance sweep of the software GPU: every floating-point instruction and rounding
mode the interpreter implements, on inputs covering signed zeros, infinities, NaN payloads,
subnormals, halfway cases, the extremes and random values, compared bit for bit with an exact
rational reference (ieee_ref.py, written apart from the interpreter).

The instructions are compiled by the interpreter's own opcode table and run over numpy lanes
directly, one lane per case, without a kernel launch, so the whole sweep takes seconds.

What the PTX ISA leaves open, and what is checked instead:
- NaN results of f32, f16 and bf16 arithmetic and conversions are the canonical NaN (0x7fffffff,
  0x7fff), as GPUs return them; f64 NaN results are only checked to be NaN (payload not asserted).
- .approx forms are checked within their stated error (rcp.approx.f32: 1 ulp; sqrt.approx.f32 and
  rsqrt.approx: relative 2^-22; div.approx/full.f32: 2 ulp), with the exact special values.
- min/max order -0 below +0, and .sat clamps to [+0, 1] (NaN -> +0).
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from rgpu.server.backends.sim.ptx import interp
from rgpu.server.backends.sim.ptx.interp import Compiler, State, Regs, compile_program
from rgpu.server.backends.sim.ptx.parser import Instruction, Operand
from rgpu.server.backends.sim.ptx.types import dtype_of

from . import ieee_ref as ref

BITS = {"f64": np.uint64, "f32": np.uint32, "f16": np.uint16, "bf16": np.uint16, "f16x2": np.uint32,
        "bf16x2": np.uint32}
REG = {"f64": "f64", "f32": "f32", "f16": "b16", "bf16": "b16", "f16x2": "b32", "bf16x2": "b32",
       "s8": "s8", "u8": "u8", "s16": "s16", "u16": "u16", "s32": "s32", "u32": "u32", "s64": "s64", "u64": "u64"}
CANON = {"f32": 0x7FFFFFFF, "f16": 0x7FFF, "bf16": 0x7FFF}
MODES = ("rn", "rz", "rm", "rp")

compile_program(SimpleNamespace(regs={}, code=[]), {})  # registers every op module's opcodes


def run_op(opcode: str, dst: str, srcs: list[tuple[str, np.ndarray]]) -> np.ndarray:
    """Compile one instruction with the interpreter's opcode table and run it over one lane per
    input; returns the destination register's raw bits."""
    n = len(srcs[0][1])
    regs = {"%d": (REG[dst], 1)}
    ops = [Operand("reg", "%d")]
    for i, (t, _v) in enumerate(srcs):
        regs[f"%s{i}"] = (REG[t], 1)
        ops.append(Operand("reg", f"%s{i}"))
    ctx = Compiler(SimpleNamespace(regs=regs), {})
    base = opcode.split(".")[0]
    why = interp.unsupported(opcode)
    assert why is None, f"{opcode}: {why}"
    fn = interp.OPS[base](Instruction(opcode, ops), ctx)
    st = State(n)
    st.R = Regs(ctx.decl, n)
    for i, (t, v) in enumerate(srcs):
        st.R[f"%s{i}"] = np.asarray(v).astype(ctx.decl[f"%s{i}"]) if t[0] in "su" else \
            np.asarray(v, BITS[t]).view(ctx.decl[f"%s{i}"])
    with np.errstate(all="ignore"):
        fn(st, None)
    out = st.R["%d"]
    return out.view(BITS[dst]) if dst in BITS else out


# -- inputs ------------------------------------------------------------------------------------------
SPECIAL_BITS = {
    "f32": [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7FA00001, 0xFFC12345, 0x00000001,
            0x807FFFFF, 0x00400000, 0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000,
            0x3F800001, 0x3FC00000, 0x33800000, 0x33800001, 0x4B800000, 0x4B7FFFFF, 0x3EFFFFFF, 0x7F000000],
    "f64": [0, 1 << 63, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0x7FF4000000000001,
            0xFFF8000000012345, 1, 0x800FFFFFFFFFFFFF, 0x0008000000000000, 0x0010000000000000,
            0x8010000000000000, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF, 0x3FF0000000000000, 0xBFF0000000000000,
            0x3FF0000000000001, 0x3FF8000000000000, 0x3CA0000000000000, 0x3CA0000000000001, 0x4340000000000000,
            0x433FFFFFFFFFFFFF, 0x3FDFFFFFFFFFFFFF, 0x7FE0000000000000],
    "f16": [0, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7D01, 0xFE12, 0x0001, 0x83FF, 0x0200, 0x0400, 0x8400,
            0x7BFF, 0xFBFF, 0x3C00, 0xBC00, 0x3C01, 0x3E00, 0x1000, 0x1001, 0x6800, 0x67FF, 0x37FF, 0x7800],
    "bf16": [0, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x7FA1, 0xFFC5, 0x0001, 0x807F, 0x0040, 0x0080, 0x8080,
             0x7F7F, 0xFF7F, 0x3F80, 0xBF80, 0x3F81, 0x3FC0, 0x3B80, 0x3B81, 0x4380, 0x437F, 0x3EFF, 0x7F00],
}
P = {t: ref.FORMATS[t][0] for t in ref.FORMATS}


def random_bits(t: str, n: int, rng) -> np.ndarray:
    """Half uniform bit patterns (every exponent, NaNs, subnormals), half values of nearby
    magnitudes with short mantissas, so sums and products round and tie often."""
    width = np.dtype(BITS[t]).itemsize * 8
    u = rng.integers(0, 1 << min(width, 63), n, dtype=np.uint64)
    if width == 64:
        u |= rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(63)
    ft = {"f64": np.float64, "f32": np.float32, "f16": np.float16, "bf16": np.float32}[t]
    near = (rng.integers(-(1 << 12), 1 << 12, n) * np.exp2(rng.integers(-14, 4, n).astype(np.float64))).astype(ft)
    near_bits = near.view(np.uint32) >> np.uint32(16) if t == "bf16" else near.view(BITS[t])
    out = np.where(np.arange(n) % 2 == 0, u.astype(BITS[t]), near_bits.astype(BITS[t]))
    return out.astype(BITS[t])


def halfway_pairs(t: str, n: int, rng):
    """x + y where y is exactly half a unit of x's last place (ties), or just off it."""
    p = P[t]
    k = rng.integers(0, 1 << min(p - 1, 20), n)
    e = rng.integers(-3, 4, n)
    x = (1.0 + k * 2.0 ** (1 - p)) * np.exp2(e)
    y = np.exp2(e - p) * rng.choice([1, -1, 3, -3], n)
    return [ref.encode(float(v), t) for v in x], [ref.encode(float(v), t) for v in y]


def operand_sets(t: str, arity: int, rng, n_random=600):
    s = SPECIAL_BITS[t]
    if arity == 1:
        cols = [s + list(random_bits(t, n_random, rng))]
    elif arity == 2:
        a = [x for x in s for _ in s] + list(random_bits(t, n_random, rng))
        b = [y for _ in s for y in s] + list(random_bits(t, n_random, rng))
        ha, hb = halfway_pairs(t, 200, rng)
        cols = [a + ha, b + hb]
    else:
        few = s[::2]
        a = [x for x in few for _ in few for _ in few]
        b = [y for _ in few for y in few for _ in few]
        c = [z for _ in few for _ in few for z in few]
        ra, rb = random_bits(t, n_random, rng), random_bits(t, n_random, rng)
        # c cancels most of a*b: the exact result is tiny, its sign and rounding all that is left
        prod = [ref.mul(ref.decode(int(x), t), ref.decode(int(y), t), t, "rn") for x, y in zip(ra, rb)]
        rc = [ref.encode(-v if not math.isnan(v) else v, t) if i % 3 else int(z)
              for i, (v, z) in enumerate(zip(prod, random_bits(t, n_random, rng)))]
        cols = [a + list(ra), b + list(rb), c + rc]
    return [np.array([int(v) for v in col], dtype=np.uint64).astype(BITS[t]) for col in cols]


# -- comparison --------------------------------------------------------------------------------------
def expect_bits(t: str, v: float) -> int:
    return ref.encode(v, t)


def check(name: str, t: str, got: np.ndarray, want: list[float], inputs, ulps: int = 0, rel=None):
    bad = []
    for i, w in enumerate(want):
        g = int(got[i])
        gv = ref.decode(g, t)
        if math.isnan(w):
            ok = math.isnan(gv) and (t == "f64" or g == CANON[t])
        elif ulps or rel:
            ok = not math.isnan(gv) and (gv == w and ref.sign(gv) == ref.sign(w) or (
                math.isfinite(w) and math.isfinite(gv) and (
                    (ulps and ref.ulps_apart(g, ref.encode(w, t), t) <= ulps)
                    or (rel and w != 0 and abs(gv - w) <= rel * abs(w)))))
        else:
            ok = g == ref.encode(w, t)
        if not ok:
            args = ", ".join(f"{int(col[i]):#x}" for col in inputs)
            bad.append(f"{name}({args}) = {g:#x} ({gv!r}), want {w!r}")
    assert not bad, f"{len(bad)} of {len(want)} wrong; first: " + "; ".join(bad[:6])


def ftz_in(x: float, t: str) -> float:
    """.ftz: f32 and f16 subnormals read (and written) as zero of the same sign."""
    tiny = {"f32": 2.0 ** -126, "f16": 2.0 ** -14}.get(t)
    return math.copysign(0.0, x) if tiny and x != 0 and abs(x) < tiny else x


def apply_mods(v: float, t: str, mods: set) -> float:
    if "ftz" in mods and not math.isnan(v):
        v = ftz_in(v, t)
    if "sat" in mods:
        v = 0.0 if math.isnan(v) else min(max(v, 0.0), 1.0)
        v = 0.0 if v == 0 else v
    if "relu" in mods:
        v = 0.0 if math.isnan(v) or v < 0 else v
        # relu of -0 gives +0 (a max with +0) -- PTX: "negative results are clamped to +0"
        v = 0.0 if v == 0 else v
    return v


BINARY = {"add": ref.add, "sub": lambda x, y, t, m: ref.add(x, -y, t, m), "mul": ref.mul, "div": ref.div}


def cases_binary():
    out = []
    for name in ("add", "sub", "mul"):
        out += [(name, "f32", m, ()) for m in MODES] + [(name, "f64", m, ()) for m in MODES]
        out += [(name, "f32", m, ("ftz",)) for m in MODES] + [(name, "f32", "rn", ("sat",)),
                                                              (name, "f32", "rn", ("ftz", "sat"))]
        out += [(name, "f16", "rn", ()), (name, "f16", "rn", ("ftz",)), (name, "f16", "rn", ("sat",)),
                (name, "bf16", "rn", ())]
    out += [("div", "f32", m, ()) for m in MODES] + [("div", "f64", m, ()) for m in MODES]
    out += [("div", "f32", m, ("ftz",)) for m in MODES]
    return out


@pytest.mark.parametrize("name,t,mode,mods", cases_binary(), ids=lambda v: ".".join(v) if isinstance(v, tuple) else v)
def test_binary(name, t, mode, mods, rng):
    a, b = operand_sets(t, 2, rng)
    opcode = ".".join([name, mode, *mods, t])
    got = run_op(opcode, t, [(t, a), (t, b)])
    f = BINARY[name]
    fmods = set(mods)
    want = []
    for x, y in zip(a, b):
        xv, yv = ref.decode(int(x), t), ref.decode(int(y), t)
        if "ftz" in fmods:
            xv, yv = ftz_in(xv, t), ftz_in(yv, t)
        want.append(apply_mods(f(xv, yv, t, mode), t, fmods))
    check(opcode, t, got, want, (a, b))


@pytest.mark.parametrize("t,mode,mods", [("f32", m, ()) for m in MODES] + [("f64", m, ()) for m in MODES]
                         + [("f32", m, ("ftz",)) for m in MODES] + [("f32", "rn", ("sat",)),
                                                                    ("f16", "rn", ()), ("f16", "rn", ("ftz",)),
                                                                    ("f16", "rn", ("sat",)), ("f16", "rn", ("relu",)),
                                                                    ("bf16", "rn", ()), ("bf16", "rn", ("relu",))],
                         ids=lambda v: ".".join(v) if isinstance(v, tuple) else v)
def test_fma(t, mode, mods, rng):
    a, b, c = operand_sets(t, 3, rng)
    opcode = ".".join(["fma", mode, *mods, t])
    got = run_op(opcode, t, [(t, a), (t, b), (t, c)])
    want = []
    for x, y, z in zip(a, b, c):
        xv, yv, zv = (ref.decode(int(v), t) for v in (x, y, z))
        if "ftz" in mods:
            xv, yv, zv = ftz_in(xv, t), ftz_in(yv, t), ftz_in(zv, t)
        want.append(apply_mods(ref.fma(xv, yv, zv, t, mode), t, set(mods)))
    check(opcode, t, got, want, (a, b, c))


def test_fma_f64_keeps_the_sign_of_zero():
    """fma(+0, -0, -0) = -0 (IEEE 754: an exact zero sum of two -0 terms is -0); libdevice's
    log1p(-0.0) relies on it."""
    z = np.array([0.0, -0.0]).view(np.uint64)
    got = run_op("fma.rn.f64", "f64", [("f64", z[:1]), ("f64", z[1:]), ("f64", z[1:])])
    assert int(got[0]) == 1 << 63


@pytest.mark.parametrize("t,packed", [("f16", "f16x2"), ("bf16", "bf16x2")])
@pytest.mark.parametrize("name", ["add", "sub", "mul", "fma", "min", "max"])
def test_packed(name, t, packed, rng):
    """The x2 forms compute each half as the scalar form does."""
    arity = 3 if name == "fma" else 2
    cols = operand_sets(t, arity, rng)
    n = len(cols[0])
    swapped = [np.roll(c, 7) for c in cols]
    words = [(c.astype(np.uint32) | (s.astype(np.uint32) << np.uint32(16))) for c, s in zip(cols, swapped)]
    opcode = f"{name}.rn.{packed}" if name not in ("min", "max") else f"{name}.{packed}"
    got = run_op(opcode, packed, [(packed, w) for w in words])
    sop = f"{name}.rn.{t}" if name not in ("min", "max") else f"{name}.{t}"
    lo = run_op(sop, t, [(t, c) for c in cols])
    hi = run_op(sop, t, [(t, c) for c in swapped])
    np.testing.assert_array_equal(got & np.uint32(0xFFFF), lo.astype(np.uint32))
    np.testing.assert_array_equal(got >> np.uint32(16), hi.astype(np.uint32))
    assert n == len(got)


@pytest.mark.parametrize("t,mods", [("f32", ()), ("f32", ("ftz",)), ("f32", ("NaN",)), ("f64", ()),
                                    ("f16", ()), ("f16", ("NaN",)), ("bf16", ())],
                         ids=lambda v: ".".join(v) if isinstance(v, tuple) else v)
@pytest.mark.parametrize("name", ["min", "max"])
def test_minmax(name, t, mods, rng):
    a, b = operand_sets(t, 2, rng)
    opcode = ".".join([name, *mods, t])
    got = run_op(opcode, t, [(t, a), (t, b)])
    want = []
    for x, y in zip(a, b):
        xv, yv = ref.decode(int(x), t), ref.decode(int(y), t)
        if "ftz" in mods:
            xv, yv = ftz_in(xv, t), ftz_in(yv, t)
        want.append(ref.minmax(xv, yv, name == "max", "NaN" in mods))
    check(opcode, t, got, want, (a, b))


def unary_cases():
    out = [("rcp", "f32", m, ()) for m in MODES] + [("rcp", "f64", m, ()) for m in MODES]
    out += [("rcp", "f32", m, ("ftz",)) for m in MODES]
    out += [("sqrt", "f32", m, ()) for m in MODES] + [("sqrt", "f64", m, ()) for m in MODES]
    out += [("sqrt", "f32", "rn", ("ftz",))]
    out += [("rcp", "f32", "approx", ()), ("rcp", "f32", "approx", ("ftz",)), ("sqrt", "f32", "approx", ()),
            ("rsqrt", "f32", "approx", ()), ("rsqrt", "f32", "approx", ("ftz",)), ("rsqrt", "f64", "approx", ())]
    return out


@pytest.mark.parametrize("name,t,mode,mods", unary_cases(), ids=lambda v: ".".join(v) if isinstance(v, tuple) else v)
def test_unary(name, t, mode, mods, rng):
    (a,) = operand_sets(t, 1, rng, n_random=2000)
    opcode = ".".join([name, mode, *mods, t])
    got = run_op(opcode, t, [(t, a)])
    rmode = "rn" if mode == "approx" else mode
    want = []
    for x in a:
        xv = ref.decode(int(x), t)
        if "ftz" in mods:
            xv = ftz_in(xv, t)
        if name == "rcp":
            w = ref.div(1.0, xv, t, rmode)
        elif name == "sqrt":
            w = ref.sqrt(xv, t, rmode)
        else:  # rsqrt: 1/sqrt rounded once (the reference for an approximation)
            s = ref.sqrt(xv, "f64", "rn") if not (math.isnan(xv) or xv < 0) else ref.NAN
            w = ref.NAN if math.isnan(s) else (math.copysign(ref.INF, xv) if xv == 0 else
                                              0.0 if math.isinf(s) else ref.div(1.0, s, t, "rn"))
        want.append(apply_mods(w, t, set(mods)))
    if mode == "approx":
        ulps, rel = (1, None) if name == "rcp" else (0, 2.0 ** -22)
        if t == "f64":
            ulps, rel = 0, 2.0 ** -22
        check(opcode, t, got, want, (a,), ulps=ulps, rel=rel)
    else:
        check(opcode, t, got, want, (a,))


@pytest.mark.parametrize("kind", ["approx", "full"])
def test_div_approx(kind, rng):
    a, b = operand_sets("f32", 2, rng)
    opcode = f"div.{kind}.f32"
    got = run_op(opcode, "f32", [("f32", a), ("f32", b)])
    want = [ref.div(ref.decode(int(x), "f32"), ref.decode(int(y), "f32"), "f32", "rn") for x, y in zip(a, b)]
    # PTX: div.approx.f32 is 2 ulp within |b| in [2^-126, 2^126]; outside it, only the specials and
    # normal range are asserted, as a GPU flushes there.
    keep = [i for i, y in enumerate(b) if 2.0 ** -126 <= abs(ref.decode(int(y), "f32")) <= 2.0 ** 126
            and abs(want[i]) >= 2.0 ** -126 or math.isnan(want[i])]
    check(opcode, "f32", got[keep], [want[i] for i in keep], (a[keep], b[keep]), ulps=2)


# -- conversions -------------------------------------------------------------------------------------
FLOATS = ("f16", "bf16", "f32", "f64")
INTS = ("s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64")


def float_to_float_cases():
    out = []
    for dt in FLOATS:
        for at in FLOATS:
            if dt == at:
                out += [(dt, at, r, ()) for r in ("rni", "rzi", "rmi", "rpi")]
                continue
            narrowing = ref.FORMATS[dt][0] < ref.FORMATS[at][0] or (dt, at) in (("f16", "bf16"), ("bf16", "f16"))
            if dt == "bf16" and at != "f32" or dt == "f16" and at == "bf16" or at == "bf16" and dt not in ("f32",):
                continue  # forms PTX does not have
            modes = (("rn", "rz") if dt == "bf16" else MODES) if narrowing else ("",)
            for m in modes:
                out.append((dt, at, m, ()))
            if narrowing and dt in ("f16", "f32"):
                out += [(dt, at, "rn", ("sat",))]
            if at == "f32" and dt != "f32" or dt == "f32":
                out.append((dt, at, modes[0], ("ftz",)))
            if dt in ("f16", "bf16") and at == "f32":
                out.append((dt, at, "rn", ("relu",)))
    return out


@pytest.mark.parametrize("dt,at,mode,mods", float_to_float_cases(),
                         ids=lambda v: ".".join(v) if isinstance(v, tuple) else v)
def test_cvt_float_float(dt, at, mode, mods, rng):
    (a,) = operand_sets(at, 1, rng, n_random=2000)
    opcode = ".".join(p for p in ["cvt", mode, *mods, dt, at] if p)
    got = run_op(opcode, dt, [(at, a)])
    want = []
    for x in a:
        xv = ref.decode(int(x), at)
        if "ftz" in mods and at == "f32":  # cvt's .ftz touches .f32 operands only
            xv = ftz_in(xv, at)
        if math.isnan(xv) and at == "bf16":
            want.append(ref.decode(int(x) << 16, "f32"))  # a widening bf16 is a shift: payload kept
            continue
        if mode in ("rni", "rzi", "rmi", "rpi"):
            w = ref.round_int(xv, mode)
        elif math.isnan(xv) or math.isinf(xv) or xv == 0:
            w = xv
        else:
            w = ref.round_exact(ref.Fraction(xv), dt, mode or "rn")
        if "ftz" in mods and dt == "f32":
            w = ftz_in(w, dt)
        want.append(apply_mods(w, dt, set(mods) - {"ftz"}))
    if at == "bf16":  # the kept payloads are compared as bits
        nan_in = [i for i, x in enumerate(a) if math.isnan(ref.decode(int(x), at))]
        if dt == "f32":
            assert all(int(got[i]) == int(a[i]) << 16 for i in nan_in), opcode
        keep = [i for i in range(len(a)) if i not in set(nan_in)]
        got, want, a = got[keep], [want[i] for i in keep], a[keep]
    check(opcode, dt, got, want, (a,))


@pytest.mark.parametrize("at", ("f16", "f32", "f64"))
@pytest.mark.parametrize("dt", INTS)
def test_cvt_float_int(dt, at, rng):
    (a,) = operand_sets(at, 1, rng, n_random=1500)
    # values near the integer range's ends and the halves between integers
    bits = int(dt[1:])
    edges = [float(v) for k in (bits - 1, bits) for v in (2.0 ** k, -(2.0 ** k), 2.0 ** k - 1, 2.0 ** k + 1)]
    edges += [k + 0.5 for k in range(-4, 4)] + [k + 0.25 for k in range(-3, 3)]
    extra = []
    for v in edges:
        try:
            extra.append(ref.encode(v, at))
        except AssertionError:
            pass  # not representable in the source format
    a = np.concatenate([a, np.array(extra, np.uint64).astype(BITS[at])])
    for mode in ("rni", "rzi", "rmi", "rpi"):
        opcode = f"cvt.{mode}.{dt}.{at}"
        got = run_op(opcode, dt, [(at, a)])
        want = [ref.to_int(ref.decode(int(x), at), dt, mode) for x in a]
        bad = [(f"{int(x):#x}", int(g), w) for x, g, w in zip(a, got, want) if int(g) != w]
        assert not bad, f"{opcode}: {len(bad)} wrong, first {bad[:5]}"


@pytest.mark.parametrize("dt", ("f16", "f32", "f64"))
@pytest.mark.parametrize("at", INTS)
def test_cvt_int_float(dt, at, rng):
    bits = int(at[1:])
    signed = at[0] == "s"
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    vals = [lo, hi, 0, 1, -1 if signed else 2, lo + 1, hi - 1]
    vals += [int(v) for v in rng.integers(lo, hi, 1500, dtype=np.int64 if signed or bits < 64 else np.uint64,
                                          endpoint=True)]
    # ties and near-ties of every destination precision
    for p in (11, 24, 53):
        for sh in range(p, bits - 1):
            for off in (0, 1, -1):
                v = ((1 << p) + 1 << (sh - p)) + off if sh > p else None
                if v is not None and lo <= v <= hi:
                    vals.append(v)
    a = np.array(vals, dtype=object)
    npdt = dtype_of(at)
    arr = np.array([v for v in a], dtype=npdt)
    for mode in MODES:
        opcode = f"cvt.{mode}.{dt}.{at}"
        got = run_op(opcode, dt, [(at, arr)])
        want = [ref.int_to_float(int(v), dt, mode) for v in arr]
        check(opcode, dt, got, want, (arr.view(np.dtype(f"u{npdt.itemsize}")),))
