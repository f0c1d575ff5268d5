"""Floating-point arithmetic, comparisons, selects and conversions.

IEEE round-to-nearest comes free from numpy. Directed rounding (.rz/.rm/.rp) of f32 results is
done by computing exactly in f64 (sums and products of f32 are exact there) and nudging the f32
result one ulp when it landed on the wrong side. ``.ftz`` flushes f32 subnormal inputs and results
to sign-preserving zero, ``.sat`` clamps to [0, 1] with NaN -> 0, as the PTX ISA defines.
f16 computes in f32 and rounds once (exact for add/mul); bf16 travels as raw bits.
"""
from __future__ import annotations

import numpy as np

from .interp import ROUNDING, op
from .types import bf16_to_f32, dtype_of, f32_to_bf16, is_float, to_bits, types_in

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
FLT_MIN = np.float32(1.1754943508222875e-38)
ROUNDINGS = ("rn", "rz", "rm", "rp")
FLOAT_OPS: dict[str, object] = {}


def fop(name):
    def deco(fn):
        FLOAT_OPS[name] = fn
        return fn
    return deco


def ftz(x):
    return np.where(np.abs(x) < FLT_MIN, np.copysign(np.float32(0), x), x).astype(np.float32)


def round_to_f32(x, mode):
    """Round f64 values to f32 in the given IEEE mode."""
    r = np.asarray(x, F64).astype(F32)
    if mode in (None, "rn"):
        return r
    back = r.astype(F64)
    if mode == "rz":
        fix = np.abs(back) > np.abs(x)
        return np.where(fix, np.nextafter(r, np.float32(0)), r)
    if mode == "rm":
        return np.where(back > x, np.nextafter(r, np.float32(-np.inf)), r)
    return np.where(back < x, np.nextafter(r, np.float32(np.inf)), r)


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


def pack(vals, t, mode=None):
    if t == "f32":
        v = vals[0]
        return v.astype(F32) if v.dtype != F32 else v
    if t == "f64":
        return np.asarray(vals[0], F64)
    if t == "f16":
        return np.asarray(vals[0]).astype(np.float16)
    if t == "bf16":
        return f32_to_bf16(vals[0], mode or "rn")
    if t == "f16x2":
        lo, hi = (np.asarray(v).astype(np.float16).view(np.uint16).astype(np.uint32) for v in vals)
    else:
        lo, hi = (f32_to_bf16(v, mode or "rn").astype(np.uint32) for v in vals)
    return lo | (hi << np.uint32(16))


def _arith(ins, ctx, nargs, f, exact64=False):
    """Compile a float op ``f(*operands)``; ``exact64`` means f computed in f64 is exact for f32
    inputs, so directed rounding can be applied afterwards."""
    parts = ins.parts
    t = types_in(parts)[-1]
    mode = next((p for p in parts if p in ROUNDINGS), None)
    flush = "ftz" in parts and t == "f32"
    sat = "sat" in parts
    relu = "relu" in parts
    d = ins.operands[0]
    gets = [ctx.get(o, t) for o in ins.operands[1:1 + nargs]]
    sd = ctx.set(d, t)
    directed = t == "f32" and mode in ("rz", "rm", "rp") and exact64

    def run(st, m):
        args = [unpack(g(st), t) for g in gets]
        outs = []
        for k in range(len(args[0])):
            xs = [a[k] for a in args]
            if flush:
                xs = [ftz(x) for x in xs]
            if directed:
                r = round_to_f32(f(*[np.asarray(x, F64) for x in xs]), mode)
            else:
                r = f(*xs)
            if flush:
                r = ftz(r)
            if sat:
                r = np.where(np.isnan(r), 0, np.clip(r, 0, 1)).astype(np.asarray(r).dtype)
            if relu:
                r = np.where(np.isnan(r) | (r < 0), 0, r).astype(np.asarray(r).dtype)
            outs.append(r)
        sd(st, pack(outs, t, mode), m)
    return run


@fop("add")
def f_add(ins, ctx):
    return _arith(ins, ctx, 2, np.add, exact64=True)


@fop("sub")
def f_sub(ins, ctx):
    return _arith(ins, ctx, 2, np.subtract, exact64=True)


@fop("mul")
def f_mul(ins, ctx):
    return _arith(ins, ctx, 2, np.multiply, exact64=True)


def fma64(a, b, c):
    """a*b+c with one rounding as far as f64 allows: Dekker's exact product, then a compensated sum."""
    a, b, c = (np.asarray(v, F64) for v in (a, b, c))
    p = a * b
    split = 134217729.0  # 2^27 + 1
    ah = a * split
    ah = ah - (ah - a)
    al = a - ah
    bh = b * split
    bh = bh - (bh - b)
    bl = b - bh
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    serr = (p - (s - bb)) + (c - bb)
    r = s + (serr + err)
    return np.where(np.isfinite(r), r, p + c)


@op("fma", mods=(*ROUNDING, "ftz", "sat", "relu"))
@fop("fma")
def f_fma(ins, ctx):
    t = types_in(ins.parts)[-1]
    if t == "f64":
        return _arith(ins, ctx, 3, fma64)
    # f32/f16: the product is exact in f64 and the sum rounds there first; close to a single rounding.
    directed = any(p in ins.parts for p in ("rz", "rm", "rp"))

    def f(a, b, c):
        r = np.asarray(a, F64) * b + c
        if t == "f32":
            return r if directed else r.astype(F32)
        # f16 rounds straight from f64 (one rounding); bf16 goes through f32, as pack() needs.
        return r if t != "bf16" and t != "bf16x2" else r.astype(F32)
    return _arith(ins, ctx, 3, f, exact64=True)


@fop("div")
def f_div(ins, ctx):
    return _arith(ins, ctx, 2, np.divide, exact64=True)


@fop("min")
def f_min(ins, ctx):
    nan = "NaN" in ins.parts
    return _arith(ins, ctx, 2, np.minimum if nan else np.fmin)


@fop("max")
def f_max(ins, ctx):
    nan = "NaN" in ins.parts
    return _arith(ins, ctx, 2, np.maximum if nan else np.fmax)


@fop("abs")
def f_abs(ins, ctx):
    return _arith(ins, ctx, 1, np.abs)


@fop("neg")
def f_neg(ins, ctx):
    return _arith(ins, ctx, 1, np.negative)


def _cast_like(f):
    return lambda x: f(x).astype(np.asarray(x).dtype)


UNARY = {
    "rcp": lambda x: np.divide(np.asarray(x).dtype.type(1), x),
    "sqrt": np.sqrt,
    "rsqrt": lambda x: np.divide(np.asarray(x).dtype.type(1), np.sqrt(x)),
    "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
    "lg2": np.log2, "ex2": np.exp2,
}


@op("rcp", "sqrt", "rsqrt", "sin", "cos", "tanh", "lg2", "ex2", mods=(*ROUNDING, "approx", "ftz"))
def c_unary(ins, ctx):
    f = UNARY[ins.parts[0]]
    return _arith(ins, ctx, 1, _cast_like(f), exact64=ins.parts[0] in ("rcp", "sqrt"))


@op("copysign")
def c_copysign(ins, ctx):
    # copysign.f32 d, a, b: magnitude of b, sign of a.
    return _arith(ins, ctx, 2, lambda a, b: np.copysign(b, a))


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
