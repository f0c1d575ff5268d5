"""Integer arithmetic and bit manipulation, vectorised over lanes.

numpy arrays wrap on overflow exactly like the GPU's two's-complement ALU; where PTX defines
results numpy does not (shift counts >= the width, division by zero, 64-bit high products,
saturation), the code below spells the PTX rule out.
"""
from __future__ import annotations

import numpy as np

from ..errors import SimError
from .interp import ROUNDING, op
from .types import UNSIGNED, dtype_of, is_float, types_in

U32, U64, I64 = np.dtype(np.uint32), np.dtype(np.uint64), np.dtype(np.int64)


def _float_impl(name):
    from . import ops_float
    return ops_float.FLOAT_OPS[name]


def _wide(t: str) -> str:
    return ("s" if t[0] == "s" else "u") + str(int(t[1:]) * 2)


def _binary(ins, ctx, t, f, dst_t=None):
    d, a, b = ins.operands[:3]
    ga, gb, sd = ctx.get(a, t), ctx.get(b, t), ctx.set(d, dst_t or t)
    return lambda st, m: sd(st, f(ga(st), gb(st)), m)


def _ternary(ins, ctx, t, f, tc=None, dst_t=None):
    d, a, b, c = ins.operands[:4]
    ga, gb, gc, sd = ctx.get(a, t), ctx.get(b, t), ctx.get(c, tc or t), ctx.set(d, dst_t or t)
    return lambda st, m: sd(st, f(ga(st), gb(st), gc(st)), m)


def _sat32(x):
    return np.clip(x, -(1 << 31), (1 << 31) - 1).astype(np.int32)


def mulhi(a, b, t: str):
    bits = int(t[1:])
    if bits <= 32:
        wt = I64 if t[0] == "s" else U64
        return ((np.asarray(a).astype(wt) * np.asarray(b).astype(wt)) >> bits).astype(dtype_of(t))
    # 64x64 -> high 64: schoolbook on 32-bit halves in uint64 (no 128-bit type in numpy).
    ua, ub = np.asarray(a).view(U64) if np.ndim(a) else np.uint64(np.asarray(a).view(U64)), \
        np.asarray(b).view(U64) if np.ndim(b) else np.uint64(np.asarray(b).view(U64))
    m32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    al, ah, bl, bh = ua & m32, ua >> s32, ub & m32, ub >> s32
    ll, lh, hl, hh = al * bl, al * bh, ah * bl, ah * bh
    mid = (ll >> s32) + (lh & m32) + (hl & m32)
    hi = hh + (lh >> s32) + (hl >> s32) + (mid >> s32)
    if t[0] == "s":
        hi = hi - np.where(np.asarray(a).view(I64) < 0, ub, 0).astype(U64) \
            - np.where(np.asarray(b).view(I64) < 0, ua, 0).astype(U64)
        return hi.view(I64)
    return hi


@op("add", "sub", mods=(*ROUNDING, "ftz", "sat", "cc", "s16x2", "u16x2"))
def c_addsub(ins, ctx):
    parts = ins.parts
    if "s16x2" in parts or "u16x2" in parts:  # sm_90: both halves, each wrapping (__viaddmax_s16x2)
        return _packed_16x2(ins, ctx, np.subtract if parts[0] == "sub" else np.add)
    t = types_in(parts)[-1]
    if is_float(t):
        return _float_impl(parts[0])(ins, ctx)
    sub = parts[0] == "sub"
    if "sat" in parts:
        f = (lambda a, b: _sat32(np.asarray(a, np.int64) - b)) if sub else \
            (lambda a, b: _sat32(np.asarray(a, np.int64) + b))
        return _binary(ins, ctx, t, f)
    if "cc" in parts:
        return _carry_op(ins, ctx, t, sub, use_carry=False)
    return _binary(ins, ctx, t, np.subtract if sub else np.add)


@op("addc", "subc", mods=("cc",))
def c_addc(ins, ctx):
    t = types_in(ins.parts)[-1]
    return _carry_op(ins, ctx, t, ins.parts[0] == "subc", use_carry=True)


def _carry_op(ins, ctx, t, sub, use_carry):
    # The condition code is one carry bit per lane, kept in the state between .cc instructions.
    d, a, b = ins.operands[:3]
    ut = "u" + t[1:]
    ga, gb, sd = ctx.get(a, ut), ctx.get(b, ut), ctx.set(d, ut)
    set_cc = "cc" in ins.parts
    dt = dtype_of(ut)

    def run(st, m):
        x, y = np.asarray(ga(st)), np.asarray(gb(st))
        cin = st.carry.astype(dt) if use_carry else dt.type(0)
        if sub:
            r = x - y - cin
            cout = (x < y) | ((x == y) & (cin != 0)) if use_carry else (x < y)
        else:
            r = x + y + cin
            cout = (r < x) | ((r == x) & (cin != 0)) if use_carry else (r < x)
        sd(st, r, m)
        if set_cc:
            cout = np.broadcast_to(cout, (st.n,))
            st.carry = cout if m is None else np.where(m, cout, st.carry)
    return run


@op("mul", mods=("wide", "hi", "lo", *ROUNDING, "ftz", "sat"))
def c_mul(ins, ctx):
    parts = ins.parts
    t = types_in(parts)[-1]
    if is_float(t):
        return _float_impl("mul")(ins, ctx)
    if "wide" in parts:
        wt = _wide(t)
        dw = dtype_of(wt)
        return _binary(ins, ctx, t, lambda a, b: np.asarray(a).astype(dw) * np.asarray(b).astype(dw), wt)
    if "hi" in parts:
        return _binary(ins, ctx, t, lambda a, b: mulhi(a, b, t))
    return _binary(ins, ctx, t, np.multiply)


@op("mad", mods=("wide", "hi", "lo", "sat", *ROUNDING, "ftz", "cc"))
def c_mad(ins, ctx):
    parts = ins.parts
    t = types_in(parts)[-1]
    if is_float(t):
        return _float_impl("fma")(ins, ctx)
    if "cc" in parts:
        return _mad_carry(ins, ctx, t, use_carry=False)
    if "wide" in parts:
        wt = _wide(t)
        dw = dtype_of(wt)
        return _ternary(ins, ctx, t, lambda a, b, c: np.asarray(a).astype(dw) * np.asarray(b).astype(dw) + c,
                        tc=wt, dst_t=wt)
    if "hi" in parts:
        if "sat" in parts:
            return _ternary(ins, ctx, t, lambda a, b, c: _sat32(mulhi(a, b, t).astype(np.int64) + c))
        return _ternary(ins, ctx, t, lambda a, b, c: mulhi(a, b, t) + c)
    return _ternary(ins, ctx, t, lambda a, b, c: np.asarray(a) * b + c)


@op("madc", mods=("hi", "lo", "cc"))
def c_madc(ins, ctx):
    return _mad_carry(ins, ctx, types_in(ins.parts)[-1], use_carry=True)


def _mad_carry(ins, ctx, t, use_carry):
    """mad{.hi,.lo}.cc and madc: the product's half, plus c, plus the carry in (madc), with the carry
    out kept when .cc says so; the extended-precision multiplies of libdevice's argument reduction
    (sin, cos of large arguments) are chains of them. The addition is unsigned whatever the type."""
    d, a, b, c = ins.operands[:4]
    ut = "u" + t[1:]
    dt, st_t = dtype_of(ut), dtype_of(t)
    ga, gb, gc, sd = ctx.get(a, t), ctx.get(b, t), ctx.get(c, ut), ctx.set(d, ut)
    hi, set_cc = "hi" in ins.parts, "cc" in ins.parts

    def run(st, m):
        x, y = np.asarray(ga(st)), np.asarray(gb(st))
        p = np.asarray(mulhi(x, y, t) if hi else x * y, st_t).view(dt)
        z = np.asarray(gc(st))
        cin = st.carry.astype(dt) if use_carry else dt.type(0)
        r = p + z + cin
        sd(st, r, m)
        if set_cc:
            cout = np.broadcast_to((r < p) | ((r == p) & (cin != 0)), (st.n,))
            st.carry = cout if m is None else np.where(m, cout, st.carry)
    return run


def _mul24(a, b, t, hi):
    wt = I64 if t[0] == "s" else U64
    a = np.asarray(a).astype(wt)
    b = np.asarray(b).astype(wt)
    if t[0] == "s":
        a = (a << 40) >> 40
        b = (b << 40) >> 40
    else:
        a, b = a & 0xFFFFFF, b & 0xFFFFFF
    p = a * b
    return ((p >> 16) if hi else p).astype(U64).astype(U32).view(dtype_of(t))


@op("mul24", mods=("hi", "lo"))
def c_mul24(ins, ctx):
    t = types_in(ins.parts)[-1]
    hi = "hi" in ins.parts
    return _binary(ins, ctx, t, lambda a, b: _mul24(a, b, t, hi))


@op("mad24", mods=("hi", "lo"))
def c_mad24(ins, ctx):
    t = types_in(ins.parts)[-1]
    hi = "hi" in ins.parts
    return _ternary(ins, ctx, t, lambda a, b, c: _mul24(a, b, t, hi) + c)


@op("sad")
def c_sad(ins, ctx):
    t = types_in(ins.parts)[-1]
    dt = dtype_of(t)
    return _ternary(ins, ctx, t, lambda a, b, c: (np.where(a < b, np.asarray(b) - a, np.asarray(a) - b) + c)
                    .astype(dt))


def int_div(a, b, t, rem):
    dt = dtype_of(t)
    a = np.asarray(a, dt)
    b = np.asarray(b, dt)
    zero = b == 0
    bs = np.where(zero, dt.type(1), b)
    if t[0] == "u":
        q = a // bs
        r = a - q * bs
        if rem:
            return np.where(zero, a, r).astype(dt)
        return np.where(zero, ~dt.type(0), q).astype(dt)
    # C semantics: quotient truncates toward zero, remainder takes the dividend's sign.
    q = np.floor_divide(a, bs)
    r = a - q * bs
    fix = (r != 0) & ((a < 0) != (bs < 0))
    q = np.where(fix, q + 1, q)
    r = np.where(fix, r - bs, r)
    if rem:
        return np.where(zero, a, r).astype(dt)
    return np.where(zero, dt.type(-1), q).astype(dt)


@op("div", "rem", mods=(*ROUNDING, "ftz", "approx", "full"))
def c_div(ins, ctx):
    parts = ins.parts
    t = types_in(parts)[-1]
    if is_float(t):
        return _float_impl("div")(ins, ctx)
    rem = parts[0] == "rem"
    return _binary(ins, ctx, t, lambda a, b: int_div(a, b, t, rem))


@op("min", "max", mods=("relu", "NaN", "ftz", "s16x2", "u16x2"))
def c_minmax(ins, ctx):
    parts = ins.parts
    if "s16x2" in parts or "u16x2" in parts:
        return _minmax_16x2(ins, ctx)
    t = types_in(parts)[-1]
    if is_float(t):
        return _float_impl(parts[0])(ins, ctx)
    f = np.minimum if parts[0] == "min" else np.maximum
    if "relu" in parts:
        return _binary(ins, ctx, t, lambda a, b: np.maximum(f(a, b), 0).astype(dtype_of(t)))
    if len(ins.operands) == 4:  # three-input min/max (sm_90)
        return _ternary(ins, ctx, t, lambda a, b, c: f(f(a, b), c))
    return _binary(ins, ctx, t, f)


def _minmax_16x2(ins, ctx):
    """min/max{.relu}.{s16x2,u16x2}: both 16-bit halves of 32-bit registers at once (CUB's
    reductions of 16-bit integers), with a third input on sm_90 and later."""
    return _packed_16x2(ins, ctx, np.minimum if ins.parts[0] == "min" else np.maximum)


def _packed_16x2(ins, ctx, f):
    """An .s16x2/.u16x2 instruction: `f` on the low halves and on the high halves of its inputs,
    folded left over two or three of them; .relu clamps each result at 0."""
    parts = ins.parts
    lane_t = np.int16 if "s16x2" in parts else np.uint16
    relu = "relu" in parts
    d, *srcs = ins.operands
    gets, sd = [ctx.get(o, "u32") for o in srcs], ctx.set(d, "u32")

    def halves(v):
        v = np.asarray(v).astype(np.uint32)
        return (v & 0xFFFF).astype(np.uint16).view(lane_t), (v >> 16).astype(np.uint16).view(lane_t)

    def run(st, m):
        lo, hi = halves(gets[0](st))
        for g in gets[1:]:
            l2, h2 = halves(g(st))
            with np.errstate(over="ignore"):  # add/sub wrap, as the GPU's do
                lo, hi = f(lo, l2).astype(lane_t), f(hi, h2).astype(lane_t)
        if relu:
            lo, hi = np.maximum(lo, 0), np.maximum(hi, 0)
        r = lo.astype(lane_t).view(np.uint16).astype(np.uint32) | (hi.astype(lane_t).view(np.uint16).astype(np.uint32) << 16)
        sd(st, r, m)
    return run


@op("abs", "neg", mods=("ftz",))
def c_absneg(ins, ctx):
    parts = ins.parts
    t = types_in(parts)[-1]
    if is_float(t):
        return _float_impl(parts[0])(ins, ctx)
    d, a = ins.operands[:2]
    ga, sd = ctx.get(a, t), ctx.set(d, t)
    f = np.abs if parts[0] == "abs" else np.negative
    return lambda st, m: sd(st, f(ga(st)), m)


# -- logic and bits ------------------------------------------------------------------------------
@op("and", "or", "xor")
def c_logic(ins, ctx):
    t = types_in(ins.parts)[-1]
    f = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[ins.parts[0]]
    return _binary(ins, ctx, t, f)


@op("not", "cnot")
def c_not(ins, ctx):
    t = types_in(ins.parts)[-1]
    d, a = ins.operands[:2]
    ga, sd = ctx.get(a, t), ctx.set(d, t)
    dt = dtype_of(t)
    if ins.parts[0] == "cnot":
        return lambda st, m: sd(st, (np.asarray(ga(st)) == 0).astype(dt), m)
    return lambda st, m: sd(st, np.invert(ga(st)), m)


def _shift_fn(kind, t):
    dt = dtype_of(t)
    width = dt.itemsize * 8

    def f(a, b):
        a = np.asarray(a, dt)
        b = np.asarray(b).astype(np.uint32)
        big = b >= width
        s = np.minimum(b, width - 1).astype(dt)
        if kind == "shl":
            return np.where(big, dt.type(0), a << s).astype(dt)
        if t[0] == "s":
            return (a >> s).astype(dt)  # arithmetic: counts >= width fill with the sign
        return np.where(big, dt.type(0), a >> s).astype(dt)
    return f


@op("shl", "shr")
def c_shift(ins, ctx):
    t = types_in(ins.parts)[-1]
    d, a, b = ins.operands[:3]
    ga, gb, sd = ctx.get(a, t), ctx.get(b, "u32"), ctx.set(d, t)
    f = _shift_fn(ins.parts[0], t)
    return lambda st, m: sd(st, f(ga(st), gb(st)), m)


@op("popc")
def c_popc(ins, ctx):
    t = types_in(ins.parts)[-1]
    d, a = ins.operands[:2]
    ga, sd = ctx.get(a, t), ctx.set(d, "u32")
    return lambda st, m: sd(st, np.bitwise_count(np.asarray(ga(st))).astype(np.uint32), m)


def bit_length(x, width):
    """Number of significant bits of unsigned ``x`` (0 for 0), by binary search on the masks."""
    x = np.asarray(x).astype(U64)
    n = np.zeros(x.shape, np.uint32)
    s = width // 2
    while s:
        hi = x >> np.uint64(s)
        big = hi != 0
        n = n + np.where(big, s, 0).astype(np.uint32)
        x = np.where(big, hi, x)
        s //= 2
    return n + (x != 0).astype(np.uint32)


@op("clz")
def c_clz(ins, ctx):
    t = types_in(ins.parts)[-1]
    width = dtype_of(t).itemsize * 8
    d, a = ins.operands[:2]
    ga, sd = ctx.get(a, "u" + t[1:]), ctx.set(d, "u32")
    return lambda st, m: sd(st, (np.uint32(width) - bit_length(ga(st), width)).astype(np.uint32), m)


@op("bfind", mods=("shiftamt",))
def c_bfind(ins, ctx):
    t = types_in(ins.parts)[-1]
    width = dtype_of(t).itemsize * 8
    shiftamt = "shiftamt" in ins.parts
    d, a = ins.operands[:2]
    ga, sd = ctx.get(a, t), ctx.set(d, "u32")

    def f(st, m):
        x = np.asarray(ga(st))
        if t[0] == "s":
            x = np.where(x < 0, ~x, x)
        bl = bit_length(x.view(UNSIGNED[width // 8]), width).astype(np.int64)
        pos = bl - 1
        if shiftamt:
            pos = np.where(bl == 0, -1, width - 1 - pos)
        sd(st, np.where(bl == 0, 0xFFFFFFFF, pos).astype(np.uint32), m)
    return f


_REV8 = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], np.uint8)


@op("brev")
def c_brev(ins, ctx):
    t = types_in(ins.parts)[-1]
    dt = dtype_of(t)
    d, a = ins.operands[:2]
    ga, sd = ctx.get(a, t), ctx.set(d, t)

    def f(st, m):
        x = np.ascontiguousarray(np.broadcast_to(np.asarray(ga(st), dt), (st.n,)))
        by = _REV8[x.view(np.uint8).reshape(-1, dt.itemsize)[:, ::-1]]
        sd(st, np.ascontiguousarray(by).view(dt).reshape(-1), m)
    return f


@op("bfe")
def c_bfe(ins, ctx):
    t = types_in(ins.parts)[-1]
    dt = dtype_of(t)
    width = dt.itemsize * 8
    d, a, b, c = ins.operands[:4]
    ga, gb, gc, sd = ctx.get(a, t), ctx.get(b, "u32"), ctx.get(c, "u32"), ctx.set(d, t)
    signed = t[0] == "s"

    def f(st, m):
        # Sign-extending the source to 64 bits first makes bits past the top read as the sign bit,
        # which is the PTX rule for fields that run off the end of a signed operand.
        x = np.asarray(ga(st))
        x = x.astype(I64) if signed else x.view(UNSIGNED[dt.itemsize]).astype(I64)
        pos = np.minimum(np.asarray(gb(st)).astype(np.int64) & 0xFF, 63)
        ln = np.minimum(np.asarray(gc(st)).astype(np.int64) & 0xFF, 63)
        field = (x >> pos) & ((np.int64(1) << ln) - 1)
        if signed:
            top = (field >> np.maximum(ln - 1, 0)) & 1
            field = np.where((top == 1) & (ln > 0), field | ~((np.int64(1) << ln) - 1), field)
        field = np.where(ln == 0, 0, field)
        sd(st, field.astype(np.uint64).astype(UNSIGNED[dt.itemsize]).view(dt), m)
    return f


@op("bfi")
def c_bfi(ins, ctx):
    t = types_in(ins.parts)[-1]
    dt = dtype_of(t)
    width = dt.itemsize * 8
    d, a, b, c, e = ins.operands[:5]
    ga, gb, gc, ge, sd = ctx.get(a, t), ctx.get(b, t), ctx.get(c, "u32"), ctx.get(e, "u32"), ctx.set(d, t)

    def f(st, m):
        x = np.asarray(ga(st)).astype(U64)
        y = np.asarray(gb(st)).astype(U64)
        pos = np.asarray(gc(st)).astype(np.int64) & 0xFF
        ln = np.minimum(np.asarray(ge(st)).astype(np.int64) & 0xFF, width)
        mask = ((np.uint64(1) << ln.astype(U64)) - np.uint64(1)) << np.minimum(pos, 63).astype(U64)
        r = (y & ~mask) | ((x << np.minimum(pos, 63).astype(U64)) & mask)
        r = np.where(pos >= width, y, r)
        sd(st, (r & np.uint64((1 << width) - 1)).astype(dt), m)
    return f


def prmt(a, b, c, mode):
    a = np.asarray(a).astype(U64)
    b = np.asarray(b).astype(U64)
    c = np.asarray(c).astype(U64)
    src = a | (b << np.uint64(32))  # bytes 0-3 from a, 4-7 from b
    out = np.zeros(np.broadcast(a, b, c).shape, U64)
    if mode is None:
        for i in range(4):
            sel = (c >> np.uint64(4 * i)) & np.uint64(0xF)
            byte = (src >> ((sel & np.uint64(7)) * np.uint64(8))) & np.uint64(0xFF)
            sign = (byte >> np.uint64(7)) & np.uint64(1)
            byte = np.where((sel & np.uint64(8)) != 0, sign * np.uint64(0xFF), byte)
            out |= byte << np.uint64(8 * i)
        return out.astype(np.uint32)
    s = c & np.uint64(3)
    table = {
        "f4e": [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]],
        "b4e": [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]],
        "rc8": [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
        "ecl": [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]],
        "ecr": [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]],
        "rc16": [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]],
    }[mode]
    tab = np.array(table, np.uint64)
    for i in range(4):
        sel = tab[s.astype(np.int64), i]
        out |= ((src >> (sel * np.uint64(8))) & np.uint64(0xFF)) << np.uint64(8 * i)
    return out.astype(np.uint32)


@op("prmt", mods=("f4e", "b4e", "rc8", "ecl", "ecr", "rc16"))
def c_prmt(ins, ctx):
    mode = next((p for p in ins.parts[1:] if p in ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16")), None)
    return _ternary(ins, ctx, "b32", lambda a, b, c: prmt(a, b, c, mode))


@op("lop3")
def c_lop3(ins, ctx):
    t = types_in(ins.parts)[-1]
    d, a, b, c, lut = ins.operands[:5]
    ga, gb, gc, sd = ctx.get(a, t), ctx.get(b, t), ctx.get(c, t), ctx.set(d, t)
    imm = int(lut.value) & 0xFF
    dt = dtype_of(t)

    def f(st, m):
        x, y, z = np.asarray(ga(st)), np.asarray(gb(st)), np.asarray(gc(st))
        r = np.zeros(np.broadcast(x, y, z).shape, dt)
        for i in range(8):  # sum of the minterms the lookup table selects
            if imm >> i & 1:
                r |= (x if i & 4 else ~x) & (y if i & 2 else ~y) & (z if i & 1 else ~z)
        sd(st, r, m)
    return f


@op("shf", mods=("l", "r", "wrap", "clamp"))
def c_shf(ins, ctx):
    parts = ins.parts
    left = "l" in parts
    clamp = "clamp" in parts
    d, a, b, c = ins.operands[:4]
    ga, gb, gc, sd = ctx.get(a, "u32"), ctx.get(b, "u32"), ctx.get(c, "u32"), ctx.set(d, "b32")

    def f(st, m):
        lo = np.asarray(ga(st)).astype(U64)
        hi = np.asarray(gb(st)).astype(U64)
        n = np.asarray(gc(st)).astype(U64)
        n = np.minimum(n, np.uint64(32)) if clamp else (n & np.uint64(31))
        x = lo | (hi << np.uint64(32))
        if left:
            r = (x << n) >> np.uint64(32)
        else:
            r = x >> n
        sd(st, (r & np.uint64(0xFFFFFFFF)).astype(np.uint32), m)
    return f


@op("bmsk", mods=("wrap", "clamp"))
def c_bmsk(ins, ctx):
    clamp = "clamp" in ins.parts

    def f(a, b):
        a = np.asarray(a).astype(np.int64)
        b = np.asarray(b).astype(np.int64)
        if clamp:
            a, b = np.minimum(a, 32), np.minimum(b, 32)
        else:
            a, b = a & 31, b & 31
        hi = np.minimum(a + b, 32)
        mk = ((np.int64(1) << hi) - 1) & ~((np.int64(1) << a) - 1)
        return mk.astype(np.uint32)
    return _binary(ins, ctx, "u32", f, "b32")


@op("fns")
def c_fns(ins, ctx):
    """fns.b32 d, mask, base, offset: the position of the |offset|-th set bit of mask counted from
    bit base, towards the high bits for a positive offset and the low ones for a negative one (base
    itself, if set, for 0); 0xffffffff when there is none (__fns)."""
    def f(mask, base, offset):
        mask, base, offset = np.broadcast_arrays(np.asarray(mask).astype(np.int64) & 0xFFFFFFFF,
                                                 np.asarray(base).astype(np.int64) & 31,
                                                 np.asarray(offset).astype(np.int64))
        pos = np.arange(32)
        bits = (mask[..., None] >> pos) & 1
        up = offset[..., None] >= 0
        # the set bits each search may count: from base up, or from base down
        inside = np.where(offset[..., None] == 0, pos == base[..., None],
                          np.where(up, pos >= base[..., None], pos <= base[..., None]))
        counted = bits * inside
        rank = np.where(up, np.cumsum(counted, axis=-1), np.cumsum(counted[..., ::-1], axis=-1)[..., ::-1])
        want = np.maximum(np.abs(offset), 1)[..., None]
        hit = (counted == 1) & (rank == want)
        found = hit.any(axis=-1)
        d = np.where(found, hit.argmax(axis=-1), 0xFFFFFFFF)
        return d.astype(np.uint32)
    return _ternary(ins, ctx, "u32", f, tc="s32", dst_t="b32")


@op("szext", mods=("wrap", "clamp"))
def c_szext(ins, ctx):
    t = types_in(ins.parts)[-1]
    clamp = "clamp" in ins.parts

    def f(a, b):
        x = np.asarray(a).astype(np.int64) & 0xFFFFFFFF
        n = np.asarray(b).astype(np.int64)
        n = np.minimum(n, 32) if clamp else n & 31
        keep = np.where(n >= 32, x, x & ((np.int64(1) << n) - 1))
        if t == "s32":
            sign = (keep >> np.maximum(n - 1, 0)) & 1
            keep = np.where((n > 0) & (n < 32) & (sign == 1), keep - (np.int64(1) << n), keep)
        return (keep & 0xFFFFFFFF).astype(np.uint32).view(dtype_of(t))
    return _binary(ins, ctx, t, f)


@op("dp4a", "dp2a", mods=("lo", "hi"))
def c_dp(ins, ctx):
    ts = types_in(ins.parts)
    ta, tb = ts[0], ts[1]
    four = ins.parts[0] == "dp4a"
    hi = "hi" in ins.parts
    dt = "s32" if "s32" in ts else "u32"

    def lanes(x, t, k, w):
        x = np.asarray(x).astype(np.int64) & 0xFFFFFFFF
        v = (x >> (k * w)) & ((1 << w) - 1)
        if t[0] == "s":
            v = np.where(v >> (w - 1), v - (1 << w), v)
        return v

    def f(a, b, c):
        acc = np.asarray(c).astype(np.int64)
        for k in range(4 if four else 2):
            bb = lanes(b, tb, k + (2 if hi and not four else 0), 8)
            aa = lanes(a, ta, k, 8 if four else 16)
            acc = acc + aa * bb
        return (acc & 0xFFFFFFFF).astype(np.uint32).view(dtype_of(dt))
    d, a, b, c = ins.operands[:4]
    ga, gb, gc, sd = ctx.get(a, "b32"), ctx.get(b, "b32"), ctx.get(c, dt), ctx.set(d, dt)
    return lambda st, m: sd(st, f(ga(st), gb(st), gc(st)), m)



@op("vshl", "vshr", mods=("clamp", "wrap", "sat", "add", "min", "max"))
def c_vshift(ins, ctx):
    """Video shifts without byte/half selectors: vshr.dtype.atype.u32{.sat}.mode{.op2} d, a, b{, c}.
    The shift runs on a 34-bit value (a zero- or sign-extended by its type), the count clamped to 32
    (.clamp) or taken mod 32 (.wrap); then the optional second operation with c, then .sat clamps
    to d's type, all in wide integers as the ISA's pseudocode does."""
    parts = ins.parts
    ts = types_in(parts)
    if len(ts) != 3 or ts[2] != "u32" or any(t not in ("u32", "s32") for t in ts):
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode} is not supported by the software GPU")
    if ("clamp" in parts) == ("wrap" in parts):
        raise SimError("CUDA_ERROR_INVALID_PTX", f"{ins.opcode}: give exactly one of .clamp and .wrap")
    dt, at = ts[0], ts[1]
    op2 = next((p for p in parts if p in ("add", "min", "max")), None)
    if any(o.kind == "reg" and "." in o.value for o in ins.operands[1:]):
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode}: byte/half selectors are not supported")
    left, clamp, sat = parts[0] == "vshl", "clamp" in parts, "sat" in parts
    if left and sat:  # a left shift saturates on bits a 64-bit lane cannot hold
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode} is not supported by the software GPU")
    d, a, b = ins.operands[:3]
    ga, gb, sd = ctx.get(a, at), ctx.get(b, "u32"), ctx.set(d, dt)
    gc = ctx.get(ins.operands[3], dt) if op2 else None
    lo, hi = (-(1 << 31), (1 << 31) - 1) if dt == "s32" else (0, (1 << 32) - 1)

    def run(st, m):
        x = np.asarray(ga(st)).astype(np.int64)
        n = np.asarray(gb(st)).astype(np.int64)
        n = np.minimum(n, 32) if clamp else n & 31
        r = (x << n) if left else (x >> n)
        if op2 is not None:
            c = np.asarray(gc(st)).astype(np.int64)
            r = r + c if op2 == "add" else (np.minimum(r, c) if op2 == "min" else np.maximum(r, c))
        r = np.clip(r, lo, hi) if sat else r & 0xFFFFFFFF
        sd(st, (np.asarray(r) & 0xFFFFFFFF).astype(np.uint32).view(dtype_of(dt)), m)
    return run


# SIMD video instructions on the bytes (vop4) or half-words (vop2) of 32-bit registers, in their
# default selection (a's lanes against b's): CUDA's __vabsdiffu4 and its kin compile to them. A lane
# result is truncated to the lane (clamped to the destination's range with .sat) and merged into d;
# with .add the lane results are summed onto c instead (a sum of absolute differences).
_VOPS = {
    "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "avrg": lambda x, y: (x + y + 1) >> 1,
    "absdiff": lambda x, y: np.abs(x - y), "min": np.minimum, "max": np.maximum,
}


@op(*(f"v{name}{n}" for name in _VOPS for n in (2, 4)), mods=("sat", "add"), types=("u32", "s32"))
def c_vsimd(ins, ctx):
    parts = ins.parts
    name, lanes = parts[0][1:-1], int(parts[0][-1])
    f = _VOPS[name]
    dtype, atype, btype = (types_in(parts) + ["u32", "u32", "u32"])[:3]
    bits = 32 // lanes
    mask = (1 << bits) - 1
    d, a, b, c = ins.operands[:4]
    if any(o.kind == "reg" and "." in o.value for o in (d, a, b)):
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode}: lane masks and selectors are not supported")
    ga, gb, gc, sd = ctx.get(a, "u32"), ctx.get(b, "u32"), ctx.get(c, "u32"), ctx.set(d, "u32")
    accumulate, sat = "add" in parts, "sat" in parts
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dtype == "s32" else (0, mask)

    def lane(v, k, signed):
        x = (np.asarray(v).astype(np.int64) >> (bits * k)) & mask
        return np.where(x > mask >> 1, x - (mask + 1), x) if signed else x

    def run(st, m):
        x, y, z = ga(st), gb(st), gc(st)
        acc = np.asarray(z).astype(np.int64) if accumulate else np.zeros(np.shape(x), np.int64)
        for k in range(lanes):
            r = f(lane(x, k, atype == "s32"), lane(y, k, btype == "s32"))
            if accumulate:
                acc = acc + r
            else:
                if sat:
                    r = np.clip(r, lo, hi)
                acc = acc | ((r & mask) << (bits * k))
        sd(st, (acc & 0xFFFFFFFF).astype(np.uint32), m)
    return run
