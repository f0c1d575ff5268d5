"""The .approx transcendentals of f32 (ex2, lg2, sin, cos, tanh) as the software GPU defines them.

The PTX ISA fixes only their error bounds (ex2/lg2 some 2 ulp, sin/cos 2^-20.9 absolute on
[-pi, pi], tanh 2^-11 relative); each GPU generation has its own hardware tables. The sim computes
them here, once, as a fixed sequence of IEEE f64 operations (add, subtract, multiply, divide,
round-to-integer, exact scaling by powers of two; no fused multiply-add) and one rounding to f32 at
the end, within about half an f32 ulp of the true value over the ranges the ISA bounds. Both the
interpreter (numpy, below) and the compiler (jit/ops.py, LLVM) run the very same sequence, written
once against a small set of operations (``Ops``), so the two agree bit for bit on every input and on
every host, which numpy's own sin or exp2 (SIMD code chosen by the host CPU) would not.
"""
from __future__ import annotations

import math

import numpy as np

LOG2E = 1.4426950408889634
INV_LN2 = 1.4426950408889634  # log2(e) = 1/ln(2)
TWO_OVER_PI = 0.6366197723675814
# pi/2 in three parts of 33 bits each (fdlibm's pio2_1, pio2_2, pio2_3): k * part is exact for
# |k| < 2^20, so the reduced argument keeps f32's precision for |x| up to about 1.6e6
PIO2 = (1.57079632673412561417e+00, 6.07710050630396597660e-11, 2.02226624871116645580e-21)
PIO4 = math.pi / 4
# 2^f = e^(f ln 2), |f| <= 1/2: Taylor coefficients ln2^k / k!, k = 0..12 (truncation < 1e-14)
EXP2_C = tuple(math.log(2) ** k / math.factorial(k) for k in range(13))
# ln(m) = 2 s (1 + s^2/3 + s^4/5 + ...), s = (m-1)/(m+1), |s| <= 0.1716: ten terms (< 1e-16)
LOG_C = tuple(1.0 / (2 * k + 1) for k in range(10))
# sin r and cos r on |r| <= pi/4: Taylor to r^17 and r^18 (truncation < 1e-16)
SIN_C = tuple((-1) ** k / math.factorial(2 * k + 1) for k in range(9))
COS_C = tuple((-1) ** k / math.factorial(2 * k) for k in range(10))
# expm1(y)/y, |y| <= 1.25: Taylor to y^18 (truncation < 1e-14); tanh's small arguments
EXPM1_C = tuple(1.0 / math.factorial(k + 1) for k in range(19))
TANH_SMALL = 0.625


class Ops:
    """The operations the definitions use, over f64 values (arrays here; LLVM values in the jit)."""

    def c(self, v: float):
        raise NotImplementedError


def _horner(o, z, coeffs):
    p = o.c(coeffs[-1])
    for a in reversed(coeffs[:-1]):
        p = o.add(o.mul(p, z), o.c(a))
    return p


def _exp2_core(o, x):
    """2^x in f64 for x in [-200, 200] (no NaN): 2^round(x) times a polynomial of the rest."""
    n = o.rint(x)
    f = o.sub(x, n)  # exact
    return o.mul(_horner(o, f, EXP2_C), o.pow2(n))


def ex2(o, x):
    """ex2.approx.f32 of x (an f32 value held as f64): the f64 result, to be rounded to f32."""
    xc = o.sel(o.lt(x, o.c(-200.0)), o.c(-200.0), o.sel(o.lt(o.c(200.0), x), o.c(200.0), x))
    nan = o.isnan(x)
    r = _exp2_core(o, o.sel(nan, o.c(0.0), xc))
    return o.sel(nan, x, r)


def lg2(o, x):
    """lg2.approx.f32: exponent plus ln(mantissa)/ln 2, the mantissa taken in [sqrt(1/2), sqrt(2))."""
    bad = o.or_(o.isnan(x), o.lt(x, o.c(0.0)))
    zero = o.eq(x, o.c(0.0))
    inf = o.eq(x, o.c(math.inf))
    safe = o.sel(o.or_(o.or_(bad, zero), inf), o.c(1.0), x)
    m, e = o.frexp(safe)  # safe = m * 2^e, m in [1, 2)
    big = o.lt(o.c(1.4142135623730951), m)
    m = o.sel(big, o.mul(m, o.c(0.5)), m)
    e = o.sel(big, o.add(e, o.c(1.0)), e)
    s = o.div(o.sub(m, o.c(1.0)), o.add(m, o.c(1.0)))
    lnm = o.mul(o.mul(o.c(2.0), s), _horner(o, o.mul(s, s), LOG_C))
    r = o.add(e, o.mul(lnm, o.c(INV_LN2)))
    r = o.sel(zero, o.c(-math.inf), o.sel(inf, o.c(math.inf), r))
    return o.sel(bad, o.c(math.nan), r)


def _sincos(o, x, cos: bool):
    bad = o.or_(o.isnan(x), o.eq(o.abs(x), o.c(math.inf)))
    xs = o.sel(bad, o.c(0.0), x)
    k = o.rint(o.mul(xs, o.c(TWO_OVER_PI)))
    r = xs
    for part in PIO2:
        r = o.sub(r, o.mul(k, o.c(part)))
    # past |x| ~ 2^20 the products k * part round and r loses its bits; past 2^52 it is noise far
    # outside [-pi/4, pi/4], where the polynomials overflow. Clamped, the result stays in [-1, 1]
    # (the GPU's own approximation makes no promise out there either); below, r is inside already.
    r = o.sel(o.lt(o.c(PIO4), r), o.c(PIO4), o.sel(o.lt(r, o.c(-PIO4)), o.c(-PIO4), r))
    q = o.sub(k, o.mul(o.c(4.0), o.floor(o.mul(k, o.c(0.25)))))  # k mod 4, exact
    z = o.mul(r, r)
    s = o.mul(r, _horner(o, z, SIN_C))
    c = _horner(o, z, COS_C)
    if cos:
        # cos x = sin(x + pi/2): quadrant q + 1 (mod 4)
        q = o.add(q, o.c(1.0))
        q = o.sub(q, o.mul(o.c(4.0), o.floor(o.mul(q, o.c(0.25)))))
    odd = o.or_(o.eq(q, o.c(1.0)), o.eq(q, o.c(3.0)))
    neg = o.le(o.c(2.0), q)
    v = o.sel(odd, c, s)
    v = o.sel(neg, o.neg(v), v)
    if not cos:
        v = o.sel(o.eq(x, o.c(0.0)), x, v)  # sin(-0) = -0
    return o.sel(bad, o.c(math.nan), v)


def sin(o, x):
    return _sincos(o, x, False)


def cos(o, x):
    return _sincos(o, x, True)


def tanh(o, x):
    """tanh.approx.f32: expm1(2|x|) / (expm1(2|x|) + 2) below 0.625, 1 - 2/(e^(2|x|) + 1) above."""
    nan = o.isnan(x)
    ax = o.abs(o.sel(nan, o.c(0.0), x))
    ax = o.sel(o.lt(o.c(20.0), ax), o.c(20.0), ax)
    y = o.mul(o.c(2.0), ax)
    em1 = o.mul(y, _horner(o, y, EXPM1_C))
    small = o.div(em1, o.add(em1, o.c(2.0)))
    e = _exp2_core(o, o.mul(y, o.c(LOG2E)))
    large = o.sub(o.c(1.0), o.div(o.c(2.0), o.add(e, o.c(1.0))))
    r = o.sel(o.lt(ax, o.c(TANH_SMALL)), small, large)
    return o.sel(nan, x, o.copysign(r, x))


FUNCS = {"ex2": ex2, "lg2": lg2, "sin": sin, "cos": cos, "tanh": tanh}


class NumpyOps(Ops):
    """Ops over f64 arrays: each numpy call one IEEE operation per lane, as LLVM's are."""

    def c(self, v):
        return np.float64(v)

    def add(self, x, y):
        return np.add(x, y, dtype=np.float64)

    def sub(self, x, y):
        return np.subtract(x, y, dtype=np.float64)

    def mul(self, x, y):
        return np.multiply(x, y, dtype=np.float64)

    def div(self, x, y):
        with np.errstate(all="ignore"):
            return np.divide(x, y, dtype=np.float64)

    def neg(self, x):
        return np.negative(x)

    def abs(self, x):
        return np.abs(x)

    def copysign(self, x, y):
        return np.copysign(x, y)

    def rint(self, x):
        return np.rint(x)  # round half to even

    def floor(self, x):
        return np.floor(x)

    def lt(self, x, y):
        return np.less(x, y)

    def le(self, x, y):
        return np.less_equal(x, y)

    def eq(self, x, y):
        return np.equal(x, y)

    def isnan(self, x):
        return np.isnan(x)

    def or_(self, a, b):
        return np.logical_or(a, b)

    def sel(self, m, x, y):
        return np.where(m, x, y).astype(np.float64)

    def pow2(self, n):
        """2^n for integral n in [-1022, 1023], built from its exponent bits."""
        return ((np.asarray(n, np.float64).astype(np.int64) + 1023) << 52).view(np.float64)

    def frexp(self, x):
        """(m, e) with x = m * 2^e, m in [1, 2), for positive normal f64 x (f32 values all are)."""
        bits = np.asarray(x, np.float64).view(np.int64)
        e = ((bits >> 52) & 0x7FF) - 1023
        m = ((bits & ((1 << 52) - 1)) | (1023 << 52)).view(np.float64)
        return m, e.astype(np.float64)


_NP = NumpyOps()


def f32(name: str, x) -> np.ndarray:
    """The named function over f32 lanes, as f32 (the interpreter's; jit/ops.py emits the same)."""
    x64 = np.atleast_1d(np.asarray(x, np.float32)).astype(np.float64)
    with np.errstate(all="ignore"):
        r = FUNCS[name](_NP, x64).astype(np.float32)
    return r.reshape(np.shape(x))
