"""The two 8-bit float formats of sm_89+ tensor cores and ``cvt``, as raw byte codes.

E4M3 (bias 7, 3 mantissa bits) has no infinities: exponent and mantissa all ones is its only NaN,
so its largest finite value is 448. E5M2 (bias 15, 2 mantissa bits) is IEEE-shaped, with
infinities and NaNs, largest finite 57344. Both have subnormals. Decoding is a table of all 256
codes; encoding rounds to the nearest representable value, ties to the even code, by a binary
search in the sorted table of non-negative finite values, which is exact for every input.
"""
from __future__ import annotations

import numpy as np

NAN_CODE = 0x7F  # E4M3's NaN; for E5M2 0x7F is a NaN as well (exponent 31, mantissa 3)


def _table(exp_bits: int, man_bits: int, ieee: bool) -> np.ndarray:
    bias = (1 << (exp_bits - 1)) - 1
    codes = np.arange(256)
    sign = np.where(codes & 0x80, -1.0, 1.0)
    e = (codes >> man_bits) & ((1 << exp_bits) - 1)
    m = codes & ((1 << man_bits) - 1)
    frac = m / (1 << man_bits)
    val = np.where(e == 0, frac * 2.0 ** (1 - bias), (1 + frac) * 2.0 ** (e - bias)) * sign
    top = (1 << exp_bits) - 1
    if ieee:
        val = np.where((e == top) & (m == 0), sign * np.inf, val)
        val = np.where((e == top) & (m != 0), np.nan, val)
    else:
        val = np.where((e == top) & (m == (1 << man_bits) - 1), np.nan, val)
    return val


DECODE = {"e4m3": _table(4, 3, ieee=False), "e5m2": _table(5, 2, ieee=True)}
# Non-negative finite values in code order (which is value order): codes 0 .. MAX_CODE.
MAX_CODE = {"e4m3": 0x7E, "e5m2": 0x7B}
_POSITIVE = {t: DECODE[t][:MAX_CODE[t] + 1] for t in DECODE}


def decode(codes, t: str) -> np.ndarray:
    """uint8 codes -> float64 values."""
    return DECODE[t][np.asarray(codes, np.uint8).astype(np.intp)]


def encode(x, t: str, satfinite: bool = True, relu: bool = False) -> np.ndarray:
    """float values -> uint8 codes, rounding to nearest even. ``satfinite`` (which cvt to fp8
    always carries) clamps infinities and overflow to the largest finite value; NaN stays NaN."""
    x = np.asarray(x, np.float64)
    if relu:
        x = np.where(x < 0, 0.0, x)  # NaN is not below zero, so it stays NaN
    mag = np.abs(x)
    pos = _POSITIVE[t]
    top = MAX_CODE[t]
    hi = np.clip(np.searchsorted(pos, mag, side="left"), 0, top)
    lo = np.clip(hi - 1, 0, top)
    dlo, dhi = np.abs(mag - pos[lo]), np.abs(pos[hi] - mag)
    pick_hi = (dhi < dlo) | ((dhi == dlo) & (hi % 2 == 0))
    code = np.where(pick_hi, hi, lo)
    code = np.where(mag >= pos[top], top, code)  # at or past the largest finite value (and inf)
    # Past the largest finite value: round-to-nearest would give infinity (E5M2) or NaN (E4M3)
    # once the excess reaches half a step; satfinite keeps the largest finite value instead.
    step = pos[top] - pos[top - 1]
    over = mag >= pos[top] + step / 2
    if not satfinite:
        code = np.where(over, 0x7C if t == "e5m2" else NAN_CODE, code)
    code = code | np.where(np.signbit(x), 0x80, 0)
    return np.where(np.isnan(x), NAN_CODE, code).astype(np.uint8)
