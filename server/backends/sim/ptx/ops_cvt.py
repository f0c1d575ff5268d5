"""``cvt``: conversions between all integer, f16, bf16, f32 and f64 types, and to and from the
8-bit formats (E4M3/E5M2 pairs, UE8M0 scale pairs).

PTX rules spelled out: float -> integer needs an integer rounding (.rni/.rzi/.rmi/.rpi) and always
saturates to the destination range with NaN -> 0; integer -> integer wraps unless .sat; float ->
narrower float rounds with .rn/.rz/.rm/.rp; ``.sat`` on a float destination clamps to [0, 1].
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..errors import SimError
from . import fp8
from .interp import op
from .ops_float import F32, F64, ftz, pack, saturate, unpack
from .rounding import canonical, round_rational, round_to
from .types import FP8_PAIRS, TYPE_NAMES, UE8M0_PAIR, dtype_of, f32_to_bf16, is_float, to_bits, types_in

INT_ROUND = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}
FLOAT_ROUND = ("rn", "rz", "rm", "rp", "rna", "rs")


def _int_range(t):
    info = np.iinfo(dtype_of(t))
    return info.min, info.max


def to_tf32(x, parts) -> np.ndarray:
    """cvt.{rna,rn,rz}.tf32.f32: the f32 bit pattern with the 13 low mantissa bits rounded off
    (tensor cores read the other 19). NaN and infinity pass through."""
    bits = np.asarray(x, F32).view(np.uint32).astype(np.uint64)
    if "rna" in parts:
        bits = bits + 0x1000  # ties away from zero (on the magnitude)
    elif "rn" in parts:
        bits = bits + 0xFFF + ((bits >> 13) & 1)
    out = (bits & 0xFFFFE000).astype(np.uint32)
    special = (np.asarray(x, F32).view(np.uint32) & 0x7F800000) == 0x7F800000
    return np.where(special, np.asarray(x, F32).view(np.uint32), out)


def convert(x, dt: str, at: str, parts) -> np.ndarray:
    if dt == "tf32":
        return to_tf32(unpack(np.asarray(x), at)[0], parts)
    irnd = next((p for p in parts if p in INT_ROUND), None)
    frnd = next((p for p in parts if p in FLOAT_ROUND), None)
    sat = "sat" in parts
    x = np.asarray(x)
    if is_float(at):
        v = unpack(x, at)[0]
        if "ftz" in parts and at == "f32":
            v = ftz(v)
        if not is_float(dt):
            v = np.asarray(v, F64)
            v = INT_ROUND.get(irnd or "rzi")(v)
            lo, hi = _int_range(dt)
            # Clamp in f64, then convert: the bounds are exact for <= 32-bit types; 64-bit ones
            # need the comparison to avoid converting 2^63 (out of range for int64).
            big = v >= float(hi)
            small = v <= float(lo)
            v = np.where(np.isnan(v), 0, np.where(big | small, 0, v))
            r = v.astype(dtype_of(dt))
            r = np.where(big, dtype_of(dt).type(hi), np.where(small, dtype_of(dt).type(lo), r))
            return r.astype(dtype_of(dt))
        # float -> float
        if irnd:
            v = INT_ROUND[irnd](v)
        return _to_float(v, dt, frnd, sat, parts, from_bf16=at == "bf16")
    # integer source
    if is_float(dt):
        return _to_float(_int_as_float(x, dt, frnd), dt, frnd, sat, parts, from_bf16=False)
    if sat:
        lo, hi = _int_range(dt)
        wide = x.astype(np.float64) if x.dtype.itemsize == 8 else x.astype(np.int64)
        if x.dtype == np.uint64:
            r = np.where(x > np.uint64(hi) if hi >= 0 else False, hi, x)
            return r.astype(dtype_of(dt))
        r = np.clip(wide, lo, hi)
        return r.astype(dtype_of(dt))
    return to_bits(x, dtype_of(dt), sign_extend=at[0] == "s")


def _int_as_float(x, dt, frnd):
    """An integer source as a float array _to_float rounds correctly to dt: 32-bit and narrower
    integers are exact in f64; 64-bit ones round to nearest-even straight to dt (numpy's casts do
    that in one step), or, in a directed mode, exactly, lane by lane."""
    if x.dtype.itemsize < 8:
        return x.astype(F64)
    if frnd not in ("rz", "rm", "rp"):
        return x.astype(F64) if dt == "f64" else x.astype(F32 if dt != "f16" else np.float16).astype(F64)
    t = "f64" if dt == "f64" else "f32" if dt in ("f32", "bf16") else "f16"
    out = np.zeros(x.shape, F64)
    for i, n in enumerate(x.tolist()):
        out.flat[i] = round_rational(Fraction(n), t, frnd) if n else 0.0
    return out


def _to_float(v, dt, frnd, sat, parts, from_bf16=False):
    """A value (exact in f64, or already rounded to dt) to the float type dt in mode frnd, with
    .ftz (f32 only), .sat and .relu; NaN results canonical, except a widened bf16's (a shift on
    the GPU, which keeps the payload)."""
    v = np.asarray(v)
    mode = frnd if frnd in ("rn", "rz", "rm", "rp") else None
    if dt == "f64":
        r = v.astype(F64)
    elif dt == "f32":
        r = np.array(v, F32) if from_bf16 else round_to(v.astype(F64), F32, mode)  # bf16: exact, bits kept
        if "ftz" in parts:
            r = ftz(r)
        if not from_bf16:
            r = canonical(r, "f32")
    elif dt == "f16":
        r = canonical(round_to(v.astype(F64), np.dtype(np.float16), mode), "f16")
    elif dt == "bf16":
        r = f32_to_bf16(v.astype(F32), "rz" if frnd == "rz" else "rn")
        if sat:
            f = np.clip(np.nan_to_num(unpack(r, "bf16")[0], nan=0.0), 0, 1)
            r = f32_to_bf16(f + np.float32(0))
        if "relu" in parts:
            f = unpack(r, "bf16")[0]
            r = f32_to_bf16(np.where(np.isnan(f) | (f <= 0), 0, f).astype(F32))
        return r
    else:
        raise ValueError(f"cvt to .{dt}")
    if sat:
        r = saturate(r)
    if "relu" in parts:
        r = np.where(np.isnan(r) | (r <= 0), 0, r).astype(r.dtype)
    return r


def _fp8_pack(ins, ctx, dt, at):
    """cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f32 a, b | f16x2 a}: two values to a 16-bit pair of
    8-bit floats; as for f16x2, a (or a's upper half) lands in the upper byte."""
    parts = ins.parts
    if "rn" not in parts or "satfinite" not in parts:
        raise SimError("CUDA_ERROR_INVALID_PTX", f"{ins.opcode}: conversion to {dt} takes .rn.satfinite")
    one, relu = dt[:4], "relu" in parts
    sd = ctx.set(ins.operands[0], "b16")
    if at == "f32":
        ga, gb = ctx.get(ins.operands[1], "f32"), ctx.get(ins.operands[2], "f32")

        def values(st):
            return ga(st), gb(st)
    elif at == "f16x2":
        g = ctx.get(ins.operands[1], "b32")

        def values(st):
            hi, lo = unpack(np.asarray(g(st)), "f16x2")[::-1]
            return hi, lo
    else:
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode} is not supported by the software GPU")

    def run(st, m):
        hi, lo = values(st)
        code_hi = fp8.encode(hi, one, relu=relu).astype(np.uint16)
        code_lo = fp8.encode(lo, one, relu=relu).astype(np.uint16)
        sd(st, (code_hi << np.uint16(8)) | code_lo, m)
    return run


def _fp8_unpack(ins, ctx, dt, at):
    """cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a: each byte of a to f16 (exactly: every 8-bit float
    is an f16), the upper byte into the upper half."""
    if dt != "f16x2":
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode} is not supported by the software GPU")
    one, relu = at[:4], "relu" in ins.parts
    g, sd = ctx.get(ins.operands[1], "b16"), ctx.set(ins.operands[0], "b32")

    def run(st, m):
        a = np.asarray(g(st)).astype(np.uint16)
        hi, lo = fp8.decode(a >> np.uint16(8), one), fp8.decode(a & np.uint16(0xFF), one)
        if relu:
            hi, lo = (np.where(v < 0, 0.0, v) for v in (hi, lo))
        sd(st, pack([lo, hi], "f16x2"), m)
    return run


def _ue8m0_pack(ins, ctx, at):
    """cvt.{rz,rp}{.satfinite}.ue8m0x2.{f32 a, b | bf16x2 a}: two values to a 16-bit pair of UE8M0
    scale codes, a (or a's upper half) in the upper byte, as for the 8-bit floats."""
    parts = ins.parts
    mode = next((p for p in parts if p in ("rz", "rp")), None)
    if mode is None or any(p in parts for p in ("rn", "rm", "relu")):
        raise SimError("CUDA_ERROR_INVALID_PTX", f"{ins.opcode}: conversion to ue8m0x2 takes .rz or .rp")
    sat = "satfinite" in parts
    sd = ctx.set(ins.operands[0], "b16")
    if at == "f32":
        ga, gb = ctx.get(ins.operands[1], "f32"), ctx.get(ins.operands[2], "f32")

        def values(st):
            return ga(st), gb(st)
    elif at == "bf16x2":
        g = ctx.get(ins.operands[1], "b32")

        def values(st):
            lo, hi = unpack(np.asarray(g(st)), "bf16x2")
            return hi, lo
    else:
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode} is not supported by the software GPU")

    def run(st, m):
        hi, lo = values(st)
        code_hi = fp8.encode_ue8m0(hi, mode, sat).astype(np.uint16)
        code_lo = fp8.encode_ue8m0(lo, mode, sat).astype(np.uint16)
        sd(st, (code_hi << np.uint16(8)) | code_lo, m)
    return run


def _ue8m0_unpack(ins, ctx, dt):
    """cvt.rn.bf16x2.ue8m0x2 d, a: each byte of a to bf16 (exactly), the upper byte into the upper
    half."""
    if dt != "bf16x2":
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode} is not supported by the software GPU")
    g, sd = ctx.get(ins.operands[1], "b16"), ctx.set(ins.operands[0], "b32")

    def run(st, m):
        a = np.asarray(g(st)).astype(np.uint16)
        hi = fp8.ue8m0_to_bf16_bits(a >> np.uint16(8)).astype(np.uint32)
        lo = fp8.ue8m0_to_bf16_bits(a & np.uint16(0xFF)).astype(np.uint32)
        sd(st, (hi << np.uint32(16)) | lo, m)
    return run


_NARROW = {"u2": (2, False), "s2": (2, True), "u4": (4, False), "s4": (4, True), "u8": (8, False),
           "s8": (8, True), "u16": (16, False), "s16": (16, True)}


def _pack(ins, ctx):
    """cvt.pack.sat.{u2,s2,u4,s4,u8,s8,u16,s16}.s32.b32 d, a, b{, c}: a and b saturated to the narrow
    type, b in the lowest bits, a just above it, and (narrower than 16 bits) the rest of d filled
    from the low bits of c — how int8 GEMM epilogues pack results."""
    parts = ins.parts
    narrow = next((p for p in parts[2:] if p in _NARROW), None)
    if narrow is None or "sat" not in parts or "s32" not in parts:
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode} is not supported by the software GPU")
    bits, signed = _NARROW[narrow]
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    mask = (1 << bits) - 1
    ga, gb = ctx.get(ins.operands[1], "s32"), ctx.get(ins.operands[2], "s32")
    gc = ctx.get(ins.operands[3], "b32") if bits < 16 else None
    sd = ctx.set(ins.operands[0], "b32")

    def run(st, m):
        ta = np.clip(np.asarray(ga(st)).astype(np.int64), lo, hi) & mask
        tb = np.clip(np.asarray(gb(st)).astype(np.int64), lo, hi) & mask
        r = tb | (ta << bits)
        if gc is not None:
            r = r | (np.asarray(gc(st)).astype(np.int64) << (2 * bits))
        sd(st, (r & 0xFFFFFFFF).astype(np.uint32), m)
    return run


@op("cvt", mods=("rn", "rz", "rm", "rp", "rna", "rni", "rzi", "rmi", "rpi", "ftz", "sat", "relu", "satfinite", "pack",
                 "u2", "s2", "u4", "s4"),
    types=TYPE_NAMES | FP8_PAIRS | {UE8M0_PAIR})
def c_cvt(ins, ctx):
    parts = ins.parts
    if "pack" in parts:
        return _pack(ins, ctx)
    ts = [p for p in parts[1:] if p in TYPE_NAMES or p in FP8_PAIRS or p == UE8M0_PAIR]
    dt, at = ts[0], ts[-1]
    if dt == UE8M0_PAIR:
        return _ue8m0_pack(ins, ctx, at)
    if at == UE8M0_PAIR:
        return _ue8m0_unpack(ins, ctx, dt)
    if dt in FP8_PAIRS:
        return _fp8_pack(ins, ctx, dt, at)
    if at in FP8_PAIRS:
        return _fp8_unpack(ins, ctx, dt, at)
    if "satfinite" in parts:  # implemented for the 8-bit formats only (above)
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode} is not supported by the software GPU")
    d = ins.operands[0]
    if dt in ("f16x2", "bf16x2"):
        # Two f32 sources packed: a into the upper half, b into the lower.
        ga, gb = ctx.get(ins.operands[1], at), ctx.get(ins.operands[2], at)
        sd = ctx.set(d, "b32")
        one = "f16" if dt == "f16x2" else "bf16"
        frnd = next((p for p in parts if p in FLOAT_ROUND), "rn")

        def run2(st, m):
            hi = unpack(convert(ga(st), one, at, parts), one)[0]
            lo = unpack(convert(gb(st), one, at, parts), one)[0]
            sd(st, pack([lo, hi], dt, frnd), m)
        return run2
    ga = ctx.get(ins.operands[1], at)
    sd = ctx.set(d, dt)
    return lambda st, m: sd(st, convert(ga(st), dt, at, parts), m)
