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


# UE8M0 (OCP MX scale format, sm_100+ cvt): an unsigned biased exponent alone, code c is 2^(c-127)
# for c in 0..254 (so no zero: code 0 is 2^-127), 0xFF is its only NaN. cvt rounds to it only
# towards zero (.rz) or up (.rp), i.e. to floor or ceil of log2; the sign is dropped (the format has
# none; CUDA's cuda_fp8.hpp host path, which mirrors the instruction, reads the exponent bits of |x|).
UE8M0_NAN = 0xFF
UE8M0_MAX = 0xFE


def encode_ue8m0(x, mode: str, satfinite: bool) -> np.ndarray:
    """float values -> UE8M0 codes, ``mode`` "rz" or "rp". Magnitudes below the smallest value
    (2^-127, zero included) give code 0, in either mode (rp has nothing smaller to round up from);
    past 2^127, and infinity, give NaN, or 2^127 with ``satfinite``; NaN stays NaN."""
    mag = np.abs(np.asarray(x, np.float64))
    frac, exp = np.frexp(np.where(np.isfinite(mag) & (mag > 0), mag, 1.0))  # mag = frac * 2^exp
    e = exp.astype(np.int64) - 1  # floor(log2 mag): frac is in [0.5, 1)
    if mode == "rp":
        e = e + (frac != 0.5)  # not a power of two: up to the next one
    elif mode != "rz":
        raise ValueError(f"UE8M0 rounding .{mode}")
    code = np.clip(e + 127, 0, 255)
    code = np.where(mag > 0, code, 0)
    code = np.where(np.isinf(mag) | (code > UE8M0_MAX), UE8M0_MAX if satfinite else UE8M0_NAN, code)
    return np.where(np.isnan(mag), UE8M0_NAN, code).astype(np.uint8)


def ue8m0_to_bf16_bits(codes) -> np.ndarray:
    """UE8M0 codes -> bf16 bit patterns, exactly: the code is bf16's exponent field, except code 0
    (2^-127, a bf16 subnormal) and NaN (bf16's canonical 0x7FFF)."""
    c = np.asarray(codes).astype(np.uint16)
    bits = c << np.uint16(7)
    bits = np.where(c == 0, np.uint16(0x0040), bits)
    return np.where(c == UE8M0_NAN, np.uint16(0x7FFF), bits).astype(np.uint16)
