"""Floating-point arithmetic, comparisons, selects and conversions.

Every result is rounded once, as IEEE 754 and the PTX ISA say: numpy's nearest-even f32/f64
arithmetic where that is the answer, rounding to odd and exact rationals (rounding.py) where it
is not (directed modes, fma, the 16-bit types' fma). ``.ftz`` flushes f32 subnormal inputs and
results to sign-preserving zero, ``.sat`` clamps to [+0, 1] with NaN -> +0, as the PTX ISA
defines; NaN results of f32/f16/bf16 are the GPU's canonical NaN. f16 add/sub/mul compute in f32
and round once more to f16, which gives the correctly rounded result (f32 holds more than twice
f16's precision plus two bits); bf16 travels as raw bits.
"""
from __future__ import annotations

import numpy as np

from . import approx, rounding
from .interp import ROUNDING, op
from .rounding import F32, F64, add_odd, canonical, exact_lanes, f64_to_f32_odd, rm_zero, round_to
from .types import bf16_to_f32, dtype_of, f32_to_bf16, is_float, to_bits, types_in

FLT_MIN = np.float32(1.1754943508222875e-38)
ROUNDINGS = ("rn", "rz", "rm", "rp")
DIRECTED = ("rz", "rm", "rp")
FLOAT_OPS: dict[str, object] = {}


def fop(name):
    def deco(fn):
        FLOAT_OPS[name] = fn
        return fn
    return deco


def ftz(x, tiny=FLT_MIN):
    return np.where(np.abs(x) < tiny, np.copysign(np.float32(0), x), x).astype(np.float32)


F16_MIN = np.float32(2.0 ** -14)


def ftz16(x):
    """.ftz of f16 arithmetic: the result rounded to f16 first, then its subnormals flushed."""
    return ftz(np.asarray(x).astype(np.float16).astype(F32), F16_MIN)


def round_to_f32(x, mode):
    """Round f64 values (exact, or rounded to odd) to f32 in the given IEEE mode."""
    return round_to(x, F32, mode)


# -- packing: every float flavour computes as f32 or f64 arrays --------------------------------------
def unpack(x, t):
    """Operand bits of type t -> list of arrays to compute with (two for the x2 types)."""
    if t == "f32" or t == "f64":
        return [x]
    if t == "f16":
        return [np.asarray(x).astype(F32)]
    if t == "bf16":
        return [bf16_to_f32(x)]
    x = np.asarray(x).astype(np.uint32)
    lo, hi = (x & np.uint32(0xFFFF)).astype(np.uint16), (x >> np.uint32(16)).astype(np.uint16)
    if t == "f16x2":
        return [lo.view(np.float16).astype(F32), hi.view(np.float16).astype(F32)]
    return [bf16_to_f32(lo), bf16_to_f32(hi)]


def pack(vals, t, mode=None, canon=True):
    """Computed values -> register bits of type t, rounded to t (nearest-even unless ``mode``) and
    with NaNs canonical where the GPU makes them so (not for the sign-bit operations)."""
    if not canon:
        if t in ("f32", "f64"):
            return np.asarray(vals[0], F32 if t == "f32" else F64)
        if t == "f16":
            return np.asarray(vals[0]).astype(np.float16)
        if t == "bf16":
            return (np.asarray(vals[0], F32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
        lo, hi = (unpack_half_bits(v, t) for v in vals)
        return lo | (hi << np.uint32(16))
    if t == "f32":
        v = vals[0]
        return canonical(v.astype(F32) if v.dtype != F32 else v, "f32")
    if t == "f64":
        return np.asarray(vals[0], F64)
    if t == "f16":
        return canonical(np.asarray(vals[0]).astype(np.float16), "f16")
    if t == "bf16":
        return canonical(f32_to_bf16(vals[0], mode or "rn"), "bf16")
    if t == "f16x2":
        lo, hi = (canonical(np.asarray(v).astype(np.float16), "f16").view(np.uint16).astype(np.uint32)
                  for v in vals)
    else:
        lo, hi = (canonical(f32_to_bf16(v, mode or "rn"), "bf16").astype(np.uint32) for v in vals)
    return lo | (hi << np.uint32(16))


def saturate(r):
    """.sat: [+0, 1]; NaN and -0 -> +0."""
    return np.where(np.isnan(r) | (r <= 0), 0, np.minimum(r, 1)).astype(np.asarray(r).dtype)


def unpack_half_bits(v, t):
    """An f32 value of an x2 type's half back to its 16 bits, exactly (it came from them)."""
    if t == "f16x2":
        return np.asarray(v).astype(np.float16).view(np.uint16).astype(np.uint32)
    return (np.asarray(v, F32).view(np.uint32) >> np.uint32(16)).astype(np.uint32)


def _arith(ins, ctx, nargs, f, canon=True):
    """Compile a float op: ``f(t, mode)`` returns the function that computes it over the unpacked
    operands (f32 arrays for the 32- and 16-bit types, f64 for f64), correctly rounded to t."""
    parts = ins.parts
    t = types_in(parts)[-1]
    mode = next((p for p in parts if p in ROUNDINGS), None)
    flush = "ftz" in parts and t == "f32"
    flush16 = "ftz" in parts and t in ("f16", "f16x2")
    sat = "sat" in parts
    relu = "relu" in parts
    d = ins.operands[0]
    nargs = min(nargs, len(ins.operands) - 1)
    gets = [ctx.get(o, t) for o in ins.operands[1:1 + nargs]]
    sd = ctx.set(d, t)
    fn = f(t.removesuffix("x2"), mode)

    def run(st, m):
        args = [unpack(g(st), t) for g in gets]
        outs = []
        for k in range(len(args[0])):
            xs = [a[k] for a in args]
            if flush:
                xs = [ftz(x) for x in xs]
            elif flush16:
                xs = [ftz(x, F16_MIN) for x in xs]
            r = fn(*xs)
            if flush:
                r = ftz(r)
            elif flush16:
                r = ftz16(r)
            if sat:
                r = saturate(r)
            if relu:
                r = np.where(np.isnan(r) | (r <= 0), 0, r).astype(np.asarray(r).dtype)
            outs.append(r)
        sd(st, pack(outs, t, mode, canon), m)
    return run


def _sum_like(kind, npf):
    """add/sub/mul/div: numpy's nearest-even result; directed f32 from the exact (add/sub: rounded
    to odd) f64 value; directed f64 from exact rationals."""
    def make(t, mode):
        if mode not in DIRECTED:
            return npf
        if t == "f64":
            return lambda a, b: exact_lanes(kind, "f64", mode, a, b)

        def directed(a, b):
            a64, b64 = np.asarray(a, F64), np.asarray(b, F64)
            if kind in ("add", "sub"):
                y = b64 if kind == "add" else -b64
                s = add_odd(a64, y)
                r = round_to(s, F32, mode)
                return rm_zero(r, s, a64, y) if mode == "rm" else r
            # f32 products are exact in f64; an f32 quotient or root rounded to f64 never lands on
            # an f32 value unless it is one (f64 has more than twice f32's precision)
            return round_to(npf(a64, b64), F32, mode)
        return directed
    return make


@fop("add")
def f_add(ins, ctx):
    return _arith(ins, ctx, 2, _sum_like("add", np.add))


@fop("sub")
def f_sub(ins, ctx):
    return _arith(ins, ctx, 2, _sum_like("sub", np.subtract))


@fop("mul")
def f_mul(ins, ctx):
    return _arith(ins, ctx, 2, _sum_like("mul", np.multiply))


def fma64(a, b, c):
    return rounding.fma64(a, b, c)


def _fma(t, mode):
    if t == "f64":
        return lambda a, b, c: rounding.fma64(a, b, c, mode)

    if t == "f32" and mode not in DIRECTED:
        return rounding.fma_f32_nearest

    def f(a, b, c):
        # the product of two f32 (or 16-bit) values is exact in f64; the sum rounded to odd there
        # rounds once more to t as if from the exact value
        p, c64 = np.asarray(a, F64) * np.asarray(b, F64), np.asarray(c, F64)
        s = add_odd(p, c64)
        if t == "f32":
            r = round_to(s, F32, mode)
            return rm_zero(r, s, p, c64) if mode == "rm" else r
        if t == "f16":
            return s  # pack rounds f64 -> f16 directly
        return f64_to_f32_odd(s)  # bf16: pack rounds the f32 to bf16
    return f


@op("fma", mods=(*ROUNDING, "ftz", "sat", "relu"))
@fop("fma")
def f_fma(ins, ctx):
    return _arith(ins, ctx, 3, _fma)


@fop("div")
def f_div(ins, ctx):
    return _arith(ins, ctx, 2, _sum_like("div", np.divide))


def _minmax(is_max: bool, nan: bool):
    """min/max: a NaN operand yields the other (both NaN, or any under .NaN: NaN, made canonical by
    pack); -0 is below +0. Three operands (sm_90): folded left."""
    pick = (np.maximum if nan else np.fmax) if is_max else (np.minimum if nan else np.fmin)

    def two(a, b):
        r = pick(a, b)
        zeros = (a == 0) & (b == 0)
        if zeros.any() if isinstance(zeros, np.ndarray) else zeros:
            neg = (np.signbit(a) & np.signbit(b)) if is_max else (np.signbit(a) | np.signbit(b))
            z = np.asarray(r).dtype.type(0)
            r = np.where(zeros, np.where(neg, -z, z), r)
        return r

    def fold(*xs):
        r = xs[0]
        for x in xs[1:]:
            r = two(r, x)
        return r
    return lambda t, mode: fold


@fop("min")
def f_min(ins, ctx):
    return _arith(ins, ctx, 3, _minmax(False, "NaN" in ins.parts))


@fop("max")
def f_max(ins, ctx):
    return _arith(ins, ctx, 3, _minmax(True, "NaN" in ins.parts))


@fop("abs")
def f_abs(ins, ctx):
    return _arith(ins, ctx, 1, lambda t, mode: np.abs, canon=False)


@fop("neg")
def f_neg(ins, ctx):
    return _arith(ins, ctx, 1, lambda t, mode: np.negative, canon=False)


def _cast_like(f):
    return lambda x: f(x).astype(np.asarray(x).dtype)


UNARY = {
    "rcp": lambda x: np.divide(np.asarray(x).dtype.type(1), x),
    "sqrt": np.sqrt,
    "rsqrt": lambda x: np.divide(np.asarray(x).dtype.type(1), np.sqrt(x)),
    # the .approx transcendentals as approx.py defines them for f32 lanes (the 16-bit types compute
    # as f32 too), the compiled path's very sequence; numpy's own for f64 (no such PTX form)
    **{name: (lambda name, npf: lambda x: approx.f32(name, x) if np.asarray(x).dtype == F32 else npf(x))(name, npf)
       for name, npf in (("sin", np.sin), ("cos", np.cos), ("tanh", np.tanh), ("lg2", np.log2), ("ex2", np.exp2))},
}


def _unary(name):
    def make(t, mode):
        f = _cast_like(UNARY[name])
        if mode not in DIRECTED or name not in ("rcp", "sqrt"):
            return f
        kind = "sqrt" if name == "sqrt" else "div"
        if t == "f64":
            if kind == "sqrt":
                return lambda x: exact_lanes("sqrt", "f64", mode, x)
            return lambda x: exact_lanes("div", "f64", mode, np.ones_like(x), x)
        # f32: the f64 reciprocal or root never lands on an f32 value unless it is one
        return lambda x: round_to(UNARY[name](np.asarray(x, F64)), F32, mode)
    return make


@op("rcp", "sqrt", "rsqrt", "sin", "cos", "tanh", "lg2", "ex2", mods=(*ROUNDING, "approx", "ftz"))
def c_unary(ins, ctx):
    return _arith(ins, ctx, 1, _unary(ins.parts[0]))


@op("copysign")
def c_copysign(ins, ctx):
    # copysign.f32 d, a, b: magnitude of b, sign of a.
    return _arith(ins, ctx, 2, lambda t, mode: lambda a, b: np.copysign(b, a), canon=False)


@op("testp", mods=("finite", "infinite", "number", "notanumber", "normal", "subnormal"))
def c_testp(ins, ctx):
    parts = ins.parts
    t = types_in(parts)[-1]
    kind = parts[1]
    d, a = ins.operands[:2]
    ga, sd = ctx.get(a, t), ctx.set(d, "pred")
    tiny = np.finfo(dtype_of(t)).tiny
    tests = {
        "finite": np.isfinite, "infinite": np.isinf, "number": lambda x: ~np.isnan(x), "notanumber": np.isnan,
        "normal": lambda x: np.isfinite(x) & (np.abs(x) >= tiny),
        "subnormal": lambda x: (np.abs(x) < tiny) & (x != 0),
    }
    fn = tests[kind]
    return lambda st, m: sd(st, fn(ga(st)), m)


# -- comparisons and selects -------------------------------------------------------------------------
def compare(cmp, a, b, t):
    if is_float(t):
        if t in ("f16", "bf16"):
            a, b = unpack(a, t)[0], unpack(b, t)[0]
        unord = np.isnan(a) | np.isnan(b)
        base = cmp[:-1] if cmp.endswith("u") and cmp not in ("lu",) else cmp
        r = {
            "eq": lambda: a == b, "ne": lambda: (a != b) & ~unord, "lt": lambda: a < b, "le": lambda: a <= b,
            "gt": lambda: a > b, "ge": lambda: a >= b, "num": lambda: ~unord, "nan": lambda: unord,
        }
        if cmp in ("num", "nan"):
            return r[cmp]()
        if cmp.endswith("u"):
            return r[base]() | unord
        return r[cmp]()
    ops = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
           "ge": np.greater_equal, "lo": np.less, "ls": np.less_equal, "hi": np.greater, "hs": np.greater_equal}
    if cmp in ("lo", "ls", "hi", "hs"):
        a, b = to_bits(np.asarray(a), dtype_of("u" + t[1:])), to_bits(np.asarray(b), dtype_of("u" + t[1:]))
    return ops[cmp](a, b)


BOOLOPS = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}
CMPS = ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")


@op("setp", mods=(*CMPS, *BOOLOPS, "ftz"))
def c_setp(ins, ctx):
    parts = ins.parts
    cmp = parts[1]
    t = types_in(parts)[-1]
    bop = next((p for p in parts if p in BOOLOPS), None)
    d, a, b = ins.operands[:3]
    ga, gb = ctx.get(a, t), ctx.get(b, t)
    gc = ctx.get(ins.operands[3], "pred") if bop else None
    if d.kind == "vec":  # p|q: q receives the complement (of a packed compare: the high halves')
        sp, sq = ctx.set(d.value[0], "pred"), ctx.set(d.value[1], "pred")
    else:
        sp, sq = ctx.set(d, "pred"), None
    bf = BOOLOPS.get(bop)
    if t == "f16x2" or t == "bf16x2":
        return _setp_halves(cmp, ga, gb, gc, sp, sq, bf, t)

    def run(st, m):
        r = compare(cmp, ga(st), gb(st), t)
        if bf is not None:
            c = gc(st)
            sp(st, bf(r, c), m)
            if sq:
                sq(st, bf(~r, c), m)
        else:
            sp(st, r, m)
            if sq:
                sq(st, ~r, m)
    return run


def _halves_compared(st, cmp, ga, gb, gc, bf, t):
    """The compare of a packed .f16x2/.bf16x2 pair, low halves and high halves apart, each combined
    with c by the BoolOp `bf` if there is one."""
    (alo, ahi), (blo, bhi) = unpack(ga(st), t), unpack(gb(st), t)
    lo, hi = compare(cmp, alo, blo, "f32"), compare(cmp, ahi, bhi, "f32")
    if bf is not None:
        c = gc(st)
        lo, hi = bf(lo, c), bf(hi, c)
    return lo, hi


def _setp_halves(cmp, ga, gb, gc, sp, sq, bf, t):
    """setp on .f16x2/.bf16x2 (__hbeq2, ...): p from the low halves, q from the high ones."""
    def run(st, m):
        lo, hi = _halves_compared(st, cmp, ga, gb, gc, bf, t)
        sp(st, lo, m)
        if sq:
            sq(st, hi, m)
    return run


# what `set` writes for true, by destination type: 1.0 in a float type, all ones in an integer one
_SET_TRUE = {"f32": np.float32(1.0), "f16": np.float16(1.0), "bf16": np.uint16(0x3F80)}
# per half, of a packed compare
_SET_TRUE_HALF = {"f16x2": 0x3C00, "bf16x2": 0x3F80}


@op("set", mods=(*CMPS, *BOOLOPS, "ftz"))
def c_set(ins, ctx):
    parts = ins.parts
    cmp = parts[1]
    ts = types_in(parts)
    dt, t = ts[0], ts[-1]
    bop = next((p for p in parts if p in BOOLOPS), None)
    d, a, b = ins.operands[:3]
    ga, gb = ctx.get(a, t), ctx.get(b, t)
    gc = ctx.get(ins.operands[3], "pred") if bop else None
    if t == "f16x2" or t == "bf16x2":  # each half compared, each half of d written
        sd, half = ctx.set(d, "b32"), np.uint32(_SET_TRUE_HALF.get(dt, 0xFFFF))

        def packed(st, m):
            lo, hi = _halves_compared(st, cmp, ga, gb, gc, BOOLOPS.get(bop), t)
            sd(st, np.where(lo, half, np.uint32(0)) | np.where(hi, half << np.uint32(16), np.uint32(0)), m)
        return packed
    sd = ctx.set(d, dt)
    one = _SET_TRUE.get(dt)
    if one is None:
        one = np.array(-1).astype(dtype_of(dt))[()]  # all ones, signed or not
    zero = dtype_of(dt).type(0)

    def run(st, m):
        r = compare(cmp, ga(st), gb(st), t)
        if bop:
            r = BOOLOPS[bop](r, gc(st))
        sd(st, np.where(r, one, zero), m)
    return run


@op("selp")
def c_selp(ins, ctx):
    t = types_in(ins.parts)[-1]
    d, a, b, c = ins.operands[:4]
    ga, gb, gc, sd = ctx.get(a, t), ctx.get(b, t), ctx.get(c, "pred"), ctx.set(d, t)
    return lambda st, m: sd(st, np.where(gc(st), ga(st), gb(st)), m)


@op("slct", mods=("ftz",))
def c_slct(ins, ctx):
    ts = types_in(ins.parts)
    t, tc = ts[0], ts[-1]
    d, a, b, c = ins.operands[:4]
    ga, gb, gc, sd = ctx.get(a, t), ctx.get(b, t), ctx.get(c, tc), ctx.set(d, t)
    return lambda st, m: sd(st, np.where(np.asarray(gc(st)) >= 0, ga(st), gb(st)), m)
