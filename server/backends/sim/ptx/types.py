"""PTX scalar types as numpy dtypes, and the bit-level conversions between register widths.

PTX registers are untyped bit containers: an instruction's type says how to read them. Registers
are stored as numpy arrays of their declared type; reading with another type of the same width
is a free ``view``; other widths truncate or zero/sign-extend as the PTX ISA specifies for
``ld``/``st``/``cvt`` operands.
"""
from __future__ import annotations

import numpy as np

from ..errors import SimError

DTYPES = {
    "b8": np.uint8, "u8": np.uint8, "s8": np.int8,
    "b16": np.uint16, "u16": np.uint16, "s16": np.int16, "f16": np.float16, "bf16": np.uint16,
    "b32": np.uint32, "u32": np.uint32, "s32": np.int32, "f32": np.float32,
    "f16x2": np.uint32, "bf16x2": np.uint32, "tf32": np.uint32,
    "b64": np.uint64, "u64": np.uint64, "s64": np.int64, "f64": np.float64,
    "pred": np.bool_,
}
DTYPES = {k: np.dtype(v) for k, v in DTYPES.items()}
TYPE_NAMES = frozenset(DTYPES) | {"b128"}
# 8-bit floats (sm_89+): no register type of their own. Tensor-core operands pack four in a
# 32-bit register (FP8); cvt packs two into 16 bits (FP8_PAIRS). fp8.py holds their encodings.
FP8 = frozenset({"e4m3", "e5m2"})
FP8_PAIRS = frozenset({"e4m3x2", "e5m2x2"})
UE8M0_PAIR = "ue8m0x2"  # two 8-bit power-of-two scale codes (sm_100+ cvt), also 16 bits
UNSIGNED = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
SIGNED = {1: np.dtype(np.int8), 2: np.dtype(np.int16), 4: np.dtype(np.int32), 8: np.dtype(np.int64)}
FLOATS = {2: np.dtype(np.float16), 4: np.dtype(np.float32), 8: np.dtype(np.float64)}


def dtype_of(t: str) -> np.dtype:
    try:
        return DTYPES[t]
    except KeyError:
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"PTX type .{t} is not supported by the software GPU")


def is_signed(t: str) -> bool:
    return t[0] == "s"


def is_float(t: str) -> bool:
    return t[0] == "f" or t.startswith("bf")


def types_in(parts) -> list[str]:
    """The type suffixes of an opcode, in order (``cvt.rn.f32.s32`` -> ['f32', 's32'])."""
    return [p for p in parts if p in TYPE_NAMES]


def to_bits(a, dt: np.dtype, sign_extend: bool = False):
    """Reinterpret/resize ``a`` to ``dt`` through its bit pattern."""
    a = np.asarray(a) if not isinstance(a, (np.ndarray, np.generic)) else a
    src = a.dtype
    if src == dt:
        return a
    if src.kind == "b":
        a = a.astype(np.uint8)
        src = a.dtype
    if dt.kind == "b":
        return a != 0
    if src.itemsize == dt.itemsize:
        return a.view(dt)
    if sign_extend and src.itemsize < dt.itemsize:
        return a.view(SIGNED[src.itemsize]).astype(SIGNED[dt.itemsize]).view(dt)
    return a.view(UNSIGNED[src.itemsize]).astype(UNSIGNED[dt.itemsize]).view(dt)


# bf16 is stored as its 16 raw bits; arithmetic goes through float32, which holds every bf16 exactly.
def bf16_to_f32(bits):
    return (np.asarray(bits).astype(np.uint32) << np.uint32(16)).view(np.float32)


def f32_to_bf16(x, mode: str = "rn"):
    x = np.asarray(x, dtype=np.float32)
    b = x.view(np.uint32)
    if mode == "rz":
        r = b >> np.uint32(16)
    else:
        # Round to nearest even on the 16 bits dropped.
        r = (b + np.uint32(0x7FFF) + ((b >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    # NaN: the canonical bf16 NaN, as the GPU's conversion (and cuda_bf16.h's) writes it
    r = np.where(np.isnan(x), np.uint32(0x7FFF), r)
    return r.astype(np.uint16)


def imm_value(op, t: str):
    """An immediate operand as a numpy scalar of PTX type ``t``."""
    dt = dtype_of(t) if t != "b128" else np.dtype(np.uint64)
    v = op.value
    if op.flt in ("f32", "f64"):
        width = 4 if op.flt == "f32" else 8
        bits = np.array(v, dtype=UNSIGNED[width])
        if dt.kind == "f" and dt.itemsize == width:
            return bits.view(dt)[()]
        if dt.kind == "f":  # 0f literal used for an f64/f16 operand: convert the value
            return dt.type(bits.view(FLOATS[width])[()])
        if t == "bf16":
            return f32_to_bf16(bits.view(np.float32))[()]
        return to_bits(bits, dt)[()]
    if op.flt == "dec":
        if dt.kind == "f":
            return dt.type(v)
        if t == "bf16":
            return f32_to_bf16(np.float32(v))[()]
        return dt.type(int(v))
    if dt.kind == "b":
        return np.bool_(v != 0)
    if dt.kind == "f":
        return dt.type(v)
    return np.array(int(v) & ((1 << (8 * dt.itemsize)) - 1), dtype=UNSIGNED[dt.itemsize]).view(dt)[()]
