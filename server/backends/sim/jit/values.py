"""IR values of PTX operands: the function being written, register slots, operand reads and
writes with the interpreter's width rules (interp.Compiler.get/set: a register read as another
width is truncated or zero-extended; a value of a signed type written to a wider register is
sign-extended)."""
from __future__ import annotations

import numpy as np

from ..ptx.parser import TYPE_SIZES, Operand
from ..ptx.types import UNSIGNED, imm_value


class Unsupported(Exception):
    """Something of the kernel the compiler does not cover: the kernel runs in the interpreter."""


INT_TYPES = {"b8", "u8", "s8", "b16", "u16", "s16", "b32", "u32", "s32", "b64", "u64", "s64"}


def bits_of(t: str) -> int:
    if t == "pred":
        return 1
    if t in ("f16", "bf16"):  # bits only: moved, loaded, stored and converted (check.py: no arithmetic)
        return 16
    if t not in INT_TYPES and t not in ("f32", "f64"):
        raise Unsupported(f"values of type .{t}")
    return TYPE_SIZES[t] * 8


def ity(t: str) -> str:
    return f"i{bits_of(t)}"


def lty(t: str) -> str:
    """The LLVM type a value of PTX type `t` is computed in."""
    return {"f32": "float", "f64": "double"}.get(t) or ity(t)


def is_flt(t: str) -> bool:
    return t in ("f32", "f64")


class Body:
    """Lines of one IR function and its fresh value names."""

    def __init__(self):
        self.lines: list[str] = []
        self.n = 0

    def tmp(self) -> str:
        self.n += 1
        return f"%v{self.n}"

    def __call__(self, text: str) -> str:
        """Emit `%x = text`; returns %x."""
        v = self.tmp()
        self.lines.append(f"  {v} = {text}")
        return v

    def do(self, text: str) -> None:
        self.lines.append(f"  {text}")

    def label(self, name: str) -> None:
        self.lines.append(f"{name}:")

    def resize(self, v: str, src: int, dst: int, signed: bool = False) -> str:
        """An integer of `src` bits as `dst` bits (the PTX rules of to_bits)."""
        if src == dst:
            return v
        if dst == 1:
            return self(f"icmp ne i{src} {v}, 0")
        if src == 1:
            return self(f"zext i1 {v} to i{dst}")
        if dst < src:
            return self(f"trunc i{src} {v} to i{dst}")
        return self(f"{'sext' if signed else 'zext'} i{src} {v} to i{dst}")

    def to_float(self, v: str, t: str) -> str:
        return self(f"bitcast {ity(t)} {v} to {lty(t)}") if is_flt(t) else v

    def to_int(self, v: str, t: str) -> str:
        return self(f"bitcast {lty(t)} {v} to {ity(t)}") if is_flt(t) else v

    def const(self, bits: int, t: str) -> str:
        """A constant of PTX type t from its bit pattern."""
        w = bits_of(t)
        if w == 1:
            return "true" if bits & 1 else "false"
        bits &= (1 << w) - 1
        if bits >= 1 << (w - 1):
            bits -= 1 << w  # LLVM integer literals are signed
        return self.to_float(str(bits), t)


def imm_bits(o: Operand, t: str) -> int:
    v = imm_value(o, t)
    if t == "pred":
        return int(bool(v))
    a = np.asarray(v)
    return int(a.view(UNSIGNED[a.dtype.itemsize])) if a.dtype.itemsize in UNSIGNED else int(a)
