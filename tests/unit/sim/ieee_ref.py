"""An IEEE 754 reference for the arithmetic sweep, written apart from the interpreter: every value
is decoded to an exact rational (fractions.Fraction), the operation is done exactly, and the result
is rounded once to the destination format by the rules of IEEE 754-2019 (sections 4.3, 6.3, 7.4).
Nothing here imports the software GPU."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

# precision (with the hidden bit), smallest normal exponent, largest exponent
FORMATS = {"f64": (53, -1022, 1023), "f32": (24, -126, 127), "f16": (11, -14, 15), "bf16": (8, -126, 127)}
NAN = float("nan")
INF = float("inf")


def decode(bits: int, t: str) -> float:
    """The value of a bit pattern as a Python float (every f16/bf16/f32/f64 is one exactly)."""
    if t == "f64":
        return float(np.array(bits, np.uint64).view(np.float64))
    if t == "f32":
        return float(np.array(bits, np.uint32).view(np.float32))
    if t == "f16":
        return float(np.array(bits, np.uint16).view(np.float16))
    return float(np.array(bits << 16, np.uint32).view(np.float32))  # bf16


def encode(x: float, t: str) -> int:
    """Bits of a value that is exactly representable in t (NaN: the canonical one of t)."""
    if math.isnan(x):
        return {"f32": 0x7FFFFFFF, "f16": 0x7FFF, "bf16": 0x7FFF, "f64": 0x7FF8000000000000}[t]
    if t == "f64":
        return int(np.array(x, np.float64).view(np.uint64))
    if t == "f32":
        v = np.array(x, np.float32)
        assert float(v) == x or math.isinf(x), (x, t)
        return int(v.view(np.uint32))
    if t == "f16":
        with np.errstate(over="ignore"):
            v = np.array(x, np.float16)
        assert float(v) == x or math.isinf(x), (x, t)
        return int(v.view(np.uint16))
    v = np.array(x, np.float32)
    b = int(v.view(np.uint32))
    assert b & 0xFFFF == 0, (x, t)
    return b >> 16


def round_exact(q: Fraction, t: str, mode: str) -> float:
    """q (nonzero) rounded to format t in mode rn (ties to even), rna (ties away), rz, rm, rp."""
    p, emin, emax = FORMATS[t]
    neg = q < 0
    a = -q if neg else q
    # the exponent e with 2^e <= a < 2^(e+1), found by comparing with powers of two
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    quantum = Fraction(2) ** (max(e, emin) - p + 1)
    k = a / quantum
    lo = math.floor(k)
    frac = k - lo
    if frac == 0:
        n = lo
    elif mode == "rn":
        n = lo + (frac > Fraction(1, 2) or (frac == Fraction(1, 2) and lo % 2 == 1))
    elif mode == "rna":
        n = lo + (frac >= Fraction(1, 2))
    elif mode == "rz":
        n = lo
    elif mode == "rm":
        n = lo + neg
    elif mode == "rp":
        n = lo + (not neg)
    else:
        raise ValueError(mode)
    largest = (2 ** p - 1) * Fraction(2) ** (emax - p + 1)
    mag = n * quantum
    if mag > largest:
        to_inf = mode in ("rn", "rna") or (mode == "rp" and not neg) or (mode == "rm" and neg)
        mag = INF if to_inf else largest
    v = float(mag)
    return -v if neg else v


def zero_sum_sign(x_neg: bool, y_neg: bool, x_zero: bool, y_zero: bool, mode: str) -> float:
    """The sign of an exact zero sum x + y (IEEE 754 6.3)."""
    if x_zero and y_zero and x_neg == y_neg:
        return -0.0 if x_neg else 0.0
    return -0.0 if mode == "rm" else 0.0


def sign(x: float) -> bool:
    return math.copysign(1.0, x) < 0


def add(x: float, y: float, t: str, mode: str) -> float:
    if math.isnan(x) or math.isnan(y):
        return NAN
    if math.isinf(x) or math.isinf(y):
        if math.isinf(x) and math.isinf(y) and sign(x) != sign(y):
            return NAN
        return x if math.isinf(x) else y
    q = Fraction(x) + Fraction(y)
    if q == 0:
        return zero_sum_sign(sign(x), sign(y), x == 0, y == 0, mode)
    return round_exact(q, t, mode)


def mul(x: float, y: float, t: str, mode: str) -> float:
    if math.isnan(x) or math.isnan(y):
        return NAN
    neg = sign(x) != sign(y)
    if math.isinf(x) or math.isinf(y):
        if x == 0 or y == 0:
            return NAN
        return -INF if neg else INF
    q = Fraction(x) * Fraction(y)
    if q == 0:
        return -0.0 if neg else 0.0
    return round_exact(q, t, mode)


def fma(a: float, b: float, c: float, t: str, mode: str) -> float:
    if math.isnan(a) or math.isnan(b) or math.isnan(c):
        return NAN
    pneg = sign(a) != sign(b)
    if math.isinf(a) or math.isinf(b):
        if a == 0 or b == 0:
            return NAN
        if math.isinf(c) and sign(c) != pneg:
            return NAN
        return -INF if pneg else INF
    if math.isinf(c):
        return c
    q = Fraction(a) * Fraction(b) + Fraction(c)
    if q == 0:
        return zero_sum_sign(pneg, sign(c), a == 0 or b == 0, c == 0, mode)
    return round_exact(q, t, mode)


def div(x: float, y: float, t: str, mode: str) -> float:
    if math.isnan(x) or math.isnan(y):
        return NAN
    neg = sign(x) != sign(y)
    if (math.isinf(x) and math.isinf(y)) or (x == 0 and y == 0):
        return NAN
    if math.isinf(x) or y == 0:
        return -INF if neg else INF
    if math.isinf(y) or x == 0:
        return -0.0 if neg else 0.0
    return round_exact(Fraction(x) / Fraction(y), t, mode)


def sqrt(x: float, t: str, mode: str) -> float:
    if math.isnan(x) or (x < 0):
        return NAN
    if x == 0 or math.isinf(x):
        return x
    q = Fraction(x)
    # isqrt of q scaled by 4^k, k large enough for p + 8 bits; an inexact root moves half a unit
    # of the last computed bit up, which keeps it strictly between the same two neighbours (sticky)
    k = 1200  # past the last place of every f64
    scaled = q * 4 ** k
    n = math.floor(scaled)
    r = math.isqrt(n)
    exact = r * r == scaled
    root = Fraction(r, 2 ** k) if exact else Fraction(2 * r + 1, 2 ** (k + 1))
    return round_exact(root, t, mode)


def minmax(x: float, y: float, is_max: bool, nan_form: bool) -> float:
    """min/max: a NaN operand yields the other (both NaN, or any NaN under .NaN: NaN); -0 < +0."""
    if math.isnan(x) or math.isnan(y):
        if nan_form or (math.isnan(x) and math.isnan(y)):
            return NAN
        return y if math.isnan(x) else x
    if x == y == 0:
        neg = (sign(x) and sign(y)) if is_max else (sign(x) or sign(y))
        return -0.0 if neg else 0.0
    return max(x, y) if is_max else min(x, y)


def to_int(x: float, t: str, mode: str) -> int:
    """float -> integer type t with an integer rounding (rni/rzi/rmi/rpi), saturating, NaN -> 0."""
    bits = int(t[1:])
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if t[0] == "s" else (0, (1 << bits) - 1)
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return hi if x > 0 else lo
    q = Fraction(x)
    fl = math.floor(q)
    if mode == "rzi":
        n = math.trunc(q)
    elif mode == "rmi":
        n = fl
    elif mode == "rpi":
        n = math.ceil(q)
    else:  # rni: ties to even
        d = q - fl
        n = fl + (d > Fraction(1, 2) or (d == Fraction(1, 2) and fl % 2 == 1))
    return min(max(n, lo), hi)


def round_int(x: float, mode: str) -> float:
    """cvt.rni/rzi/rmi/rpi.fX.fX: round to an integral value in the same format (sign kept)."""
    if math.isnan(x) or math.isinf(x) or x == 0:
        return x
    n = to_int(x, "s2000", mode)
    return float(n) if n != 0 else math.copysign(0.0, x)


def int_to_float(n: int, t: str, mode: str) -> float:
    if n == 0:
        return 0.0
    return round_exact(Fraction(n), t, mode)


def ulps_apart(x_bits: int, y_bits: int, t: str) -> int:
    """Distance in units in the last place of two finite values of t (ordered bit patterns)."""
    width = {"f64": 64, "f32": 32, "f16": 16, "bf16": 16}[t]
    top = 1 << (width - 1)

    def ordered(b):
        return -(b & (top - 1)) if b & top else b
    return abs(ordered(x_bits) - ordered(y_bits))
