"""Correct rounding where numpy's own arithmetic does not give it.

numpy rounds every f32 and f64 operation to nearest-even, which is all .rn needs for add, sub,
mul, div and sqrt. The rest is here:
- Round to odd (``add_odd``): a sum kept in f64 with its lost bits folded into the last bit, so
  rounding it once more, to f32, f16 or bf16, in any mode, gives the correctly rounded result of the
  exact sum (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms
  using rounding to odd", IEEE TC 2008). That is how f32/f16/bf16 fma and the directed f32 add get
  one rounding instead of two.
- ``fma64``: f64 fma by the same paper's algorithm (an exact product by Dekker's split, the large
  parts summed exactly, the small ones rounded to odd, one last rounding), with the lanes outside its proven range (extremes, tiny results) and every
  directed-rounding f64 operation computed exactly over rationals, lane by lane: rare in kernels,
  and never wrong.
- ``canonical``: GPUs return one canonical NaN for every NaN result of f32, f16 and bf16
  arithmetic and conversions (0x7fffffff, 0x7fff), not x86's payload-propagating ones.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
CANON_F32 = np.array(0x7FFFFFFF, np.uint32).view(np.float32)[()]
CANON_16 = np.uint16(0x7FFF)
DIRECTED = ("rz", "rm", "rp")
# precision, smallest normal exponent, largest exponent
FORMATS = {"f64": (53, -1022, 1023), "f32": (24, -126, 127), "f16": (11, -14, 15), "bf16": (8, -126, 127)}


def canonical(r, t: str):
    """NaN results as the GPU writes them: f32 arrays get 0x7fffffff; 16-bit raw bits 0x7fff."""
    if t == "f32":
        r = np.asarray(r)
        nan = np.isnan(r)
        if not nan.any():  # the common case costs one test, no new array
            return r if r.dtype == F32 else r.astype(F32)
        return np.where(nan, CANON_F32, r).astype(F32)
    if t in ("f16", "bf16"):
        bits = np.asarray(r).view(np.uint16) if np.asarray(r).dtype == F16 else np.asarray(r, np.uint16)
        inf = np.uint16(0x7C00 if t == "f16" else 0x7F80)
        nan = (bits & np.uint16(0x7FFF)) > inf
        if not nan.any():
            return r if np.asarray(r).dtype == F16 else bits
        out = np.where(nan, CANON_16, bits).astype(np.uint16)
        return out.view(F16) if np.asarray(r).dtype == F16 else out
    return r


def two_sum(a, b):
    """s = fl(a + b) and the exact error e = a + b - s (Knuth; exact unless s overflows)."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


def add_odd(a, b):
    """a + b (f64) rounded to odd: the nearest-even sum moved one ulp towards the exact value when it
    was inexact and landed on an even significand."""
    a, b = np.asarray(a, F64), np.asarray(b, F64)
    s, e = two_sum(a, b)
    if not np.any(e):  # exact everywhere (integer-valued data, most sums of small values)
        return s
    bits = np.asarray(s).view(np.uint64)
    fix = (e != 0) & np.isfinite(s) & ((bits & np.uint64(1)) == 0)
    away = (e > 0) == (s > 0)  # towards e: away from zero when e has s's sign
    moved = np.where(away, bits + np.uint64(1), bits - np.uint64(1)).view(F64)
    return np.where(fix, moved, s)


def fma_f32_nearest(a, b, c):
    """f32 a*b+c rounded once to nearest-even. The product is exact in f64 and the f64 sum s rounds
    the exact value once; rounding s to f32 again can only differ from rounding the exact value when s
    sits exactly halfway between two f32 values (its 29 dropped bits 1000...0) or in f32's subnormal
    range: those lanes alone take the round-to-odd sum. Returns f32."""
    # few temporaries, reused in place: at a launch's lane counts, allocating them is the cost
    p = np.multiply(a, b, dtype=F64)
    s = np.add(p, c, dtype=F64)
    t = np.bitwise_and(s.view(np.uint64), np.uint64(0x1FFFFFFF))
    doubtful = t == np.uint64(0x10000000)
    np.bitwise_and(s.view(np.uint64), np.uint64(0x7FF0000000000000), out=t)
    doubtful |= t < np.uint64((1023 - 126) << 52)  # f32's subnormal range, and zeros
    if doubtful.any():
        i = np.nonzero(np.ravel(doubtful))[0]
        s = s.reshape(-1)
        s[i] = add_odd(np.ravel(p)[i], np.ravel(np.broadcast_to(np.asarray(c, F64), p.shape))[i])
        s = s.reshape(p.shape)
    return s.astype(F32)


def f64_to_f32_odd(x):
    """f64 -> f32 rounded to odd (for a second rounding to bf16)."""
    x = np.asarray(x, F64)
    r = x.astype(F32)
    inexact = (r.astype(F64) != x) & np.isfinite(x) & np.isfinite(r)
    bits = r.view(np.uint32)
    even = (bits & np.uint32(1)) == 0
    toward = np.nextafter(r, np.where(x > r.astype(F64), np.float32(np.inf), np.float32(-np.inf)).astype(F32))
    return np.where(inexact & even, toward, r)


def round_to(x, dt: np.dtype, mode: str | None):
    """f64 values (exact, or rounded to odd) to the float type dt in an IEEE mode."""
    x = np.asarray(x, F64)
    r = x.astype(dt)
    if mode in (None, "rn"):
        return r
    back = r.astype(F64)
    zero, inf = dt.type(0), dt.type(np.inf)
    if mode == "rz":
        fix = np.abs(back) > np.abs(x)
        return np.where(fix, np.nextafter(r, zero), r).astype(dt)
    if mode == "rm":
        return np.where(back > x, np.nextafter(r, -inf), r).astype(dt)
    return np.where(back < x, np.nextafter(r, inf), r).astype(dt)


def rm_zero(r, exact, x, y):
    """In round-towards-minus an exact zero sum x + y (``exact`` == 0) is -0 unless both terms are
    +0 (IEEE 754 6.3); nearest-even arithmetic gave +0."""
    both_plus = (x == 0) & (y == 0) & ~np.signbit(x) & ~np.signbit(y)
    return np.where((exact == 0) & ~both_plus, -np.asarray(r).dtype.type(0), r)


# -- exact, lane by lane -----------------------------------------------------------------------------
def round_rational(q: Fraction, t: str, mode: str) -> float:
    """A nonzero rational rounded to format t (mode rn, rz, rm, rp) as a Python float."""
    p, emin, emax = FORMATS[t]
    neg = q < 0
    n, d = abs(q.numerator), q.denominator
    e = n.bit_length() - d.bit_length()  # 2^e <= n/d < 2^(e+2)
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    shift = max(e, emin) - p + 1  # the last place's weight is 2^shift
    num, den = (n, d << shift) if shift >= 0 else (n << -shift, d)
    k, rem = divmod(num, den)
    if rem:
        if mode == "rn":
            k += 2 * rem > den or (2 * rem == den and k & 1)
        elif mode == "rm":
            k += neg
        elif mode == "rp":
            k += not neg
    s0 = emax - p + 1  # the largest finite value is (2^p - 1) * 2^s0
    over = (k << (shift - s0)) > (1 << p) - 1 if shift >= s0 else False
    if over:
        up = mode == "rn" or (mode == "rp" and not neg) or (mode == "rm" and neg)
        v = math.inf if up else math.ldexp((1 << p) - 1, s0)
    else:
        v = math.ldexp(k, shift)
    return -v if neg else v


def _zero_sum(x_neg, y_neg, both_zero, mode):
    if both_zero and x_neg == y_neg:
        return -0.0 if x_neg else 0.0
    return -0.0 if mode == "rm" else 0.0


def _neg(x: float) -> bool:
    return math.copysign(1.0, x) < 0


def exact_scalar(kind: str, t: str, mode: str, *xs: float) -> float:
    """One lane of ``kind`` on finite inputs, computed over rationals and rounded once."""
    q = [Fraction(x) for x in xs]
    if kind == "add":
        r = q[0] + q[1]
        if r == 0:
            return _zero_sum(_neg(xs[0]), _neg(xs[1]), xs[0] == 0 and xs[1] == 0, mode)
    elif kind == "sub":
        r = q[0] - q[1]
        if r == 0:
            return _zero_sum(_neg(xs[0]), not _neg(xs[1]), xs[0] == 0 and xs[1] == 0, mode)
    elif kind == "mul":
        r = q[0] * q[1]
        if r == 0:
            return -0.0 if _neg(xs[0]) != _neg(xs[1]) else 0.0
    elif kind == "fma":
        r = q[0] * q[1] + q[2]
        if r == 0:
            pneg = _neg(xs[0]) != _neg(xs[1])
            return _zero_sum(pneg, _neg(xs[2]), (xs[0] == 0 or xs[1] == 0) and xs[2] == 0, mode)
    elif kind == "div":
        if xs[1] == 0:
            return math.nan if xs[0] == 0 else math.copysign(math.inf, xs[0]) * math.copysign(1.0, xs[1])
        r = q[0] / q[1]
        if r == 0:
            return -0.0 if _neg(xs[0]) != _neg(xs[1]) else 0.0
    elif kind == "sqrt":
        if xs[0] == 0:
            return xs[0]
        if xs[0] < 0:
            return math.nan
        # isqrt at 2^-1200 resolution (past every f64's last place), its remainder folded into one
        # more bit (round to odd)
        scaled = q[0] * 4 ** 1200
        n = scaled.numerator // scaled.denominator
        s = math.isqrt(n)
        exact = s * s == scaled
        r = Fraction(s, 2 ** 1200) if exact else Fraction(2 * s + 1, 2 ** 1201)
    else:
        raise ValueError(kind)
    return round_rational(r, t, mode)


def _fma_special(a, b, c):
    """a*b+c where an input is infinite or NaN (exact there): an infinite c with a finite product
    is c, even when a*b overflows in floating point."""
    return np.where(np.isinf(c) & np.isfinite(a) & np.isfinite(b), c, a * b + c)


_NUMPY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "sqrt": np.sqrt,
          "fma": _fma_special}


def exact_lanes(kind: str, t: str, mode: str, *xs, lanes=None):
    """``kind`` correctly rounded in ``mode`` over whole arrays: lanes with a NaN or infinite input
    take numpy's result (exact there), the others the rational computation; ``lanes`` limits
    the rational work to a subset (the rest keep numpy's value)."""
    dt = F64 if t == "f64" else F32
    xs = np.broadcast_arrays(*[np.asarray(x, dt) for x in xs])
    with np.errstate(all="ignore"):
        r = np.array(_NUMPY[kind](*xs), dt)
    finite = np.logical_and.reduce([np.isfinite(x) for x in xs])
    todo = finite if lanes is None else finite & lanes
    for i in np.nonzero(np.ravel(todo))[0]:
        r.flat[i] = exact_scalar(kind, t, mode, *(float(x.flat[i]) for x in xs))
    return r


def fma64(a, b, c, mode: str | None = None):
    """f64 a*b+c rounded once. Nearest-even: Boldo-Melquiond over lanes in its proven range (no
    overflow, no underflow of the product's error or of the result), and the few lanes outside it
    (zeros, infinities, NaNs, extremes, tiny results) apart: a zero term needs no fma, the rest is
    computed over exact rationals. Directed modes: exact rationals."""
    a, b, c = np.broadcast_arrays(*(np.asarray(v, F64) for v in (a, b, c)))
    if mode in DIRECTED:
        return exact_lanes("fma", "f64", mode, a, b, c)
    with np.errstate(all="ignore"):
        uh = a * b
        split = 134217729.0  # 2^27 + 1
        ah = a * split
        ah = ah - (ah - a)
        al = a - ah
        bh = b * split
        bh = bh - (bh - b)
        bl = b - bh
        ul = ((ah * bh - uh) + ah * bl + al * bh) + al * bl
        th, tl = two_sum(c, uh)  # the large parts, exactly
        v = add_odd(tl, ul)  # the small ones, their lost bits kept in v's last bit
        r = np.asarray(th + v)
        mr = np.abs(r)
        # NaN, zero, infinite, tiny or huge results and tiny products: outside the proven range
        irregular = ~((mr >= 2.0 ** -960) & (mr <= 2.0 ** 1000)) | (np.abs(uh) < 2.0 ** -960)
        if irregular.any():
            i = np.nonzero(np.ravel(irregular))[0]
            r = np.array(r, F64).reshape(-1)
            r[i] = _fma64_apart(*(np.ravel(x)[i] for x in (a, b, c)))
            r = r.reshape(uh.shape)
    return r


def _fma64_apart(a, b, c):
    """fma64's irregular lanes: a zero product's sum is exact (and numpy gives its zero's sign), a
    zero c leaves the rounded product, infinities and NaNs are exact; the rest over rationals."""
    uh = a * b
    zero_ab = (a == 0) | (b == 0)
    r = np.where(zero_ab, uh + c, np.where(c == 0, uh, np.nan))
    special = ~(np.isfinite(a) & np.isfinite(b) & np.isfinite(c))
    r = np.where(special, _fma_special(a, b, c), r)
    hard = ~zero_ab & (c != 0) & ~special
    if hard.any():
        r = np.where(hard, exact_lanes("fma", "f64", "rn", a, b, c, lanes=hard), r)
    return r
