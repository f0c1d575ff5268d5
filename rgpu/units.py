"""Sizes as people write them, one grammar for every command and daemon of rgpu.

    512       MiB: a bare number is MiB, always (1.5 is 1.5 MiB), as nvidia-smi, Bitfusion (-p),
              OrionX (ORION_GMEM) and HAMi (gpumem) read one
    512M 16G 16GB 16GiB 1T      every unit is binary, a power of 1024 (K, M, G, T with or without
                                B, i or iB): GPU memory is sold in binary units ("80GB" is 80 GiB)
    1048576B                    bytes
    1.5GiB                      fractions of a unit (rounded down to a byte)

A vGPU's memory (``--mem``, ``RGPU_MEM``, ``rgpu.io/memory``) may also be a share of the GPU, but
only with an explicit ``%`` (``50%``; ``rgpu run --mem-fraction 0.5`` says the same): a bare number
is never a fraction. It must be at least MIN_VGPU_MEMORY. Anything else (``4G1``, ``lots``, ``-1``)
is refused with the grammar in the message.
"""
from __future__ import annotations

import re

import click

MiB = 1 << 20
MIN_VGPU_MEMORY = 16 * MiB   # a smaller quota holds no useful allocation and is surely a typo

_UNITS = {"b": 1, **{p + tail: 1024 ** (i + 1) for i, p in enumerate("kmgt") for tail in ("", "b", "i", "ib")}}
_SIZE = re.compile(r"([0-9]+(?:\.[0-9]+)?|\.[0-9]+)([a-z]*)")
GRAMMAR = "a number of MiB (512), or with a binary unit: 512M, 8G, 16GiB, 1048576B"


class SizeError(ValueError):
    """Not a size in rgpu's grammar; the message shows the grammar."""


def parse_size(text: str | int, what: str = "size") -> int:
    """Bytes of ``text`` (see the module docstring); an int is taken as bytes already."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    s = str(text).strip().lower().replace(" ", "")
    m = _SIZE.fullmatch(s)
    if not m or (m.group(2) and m.group(2) not in _UNITS):
        raise SizeError(f"{what} {text!r} is not a size: use {GRAMMAR}")
    return int(float(m.group(1)) * (_UNITS[m.group(2)] if m.group(2) else MiB))


def parse_vgpu_memory(text: str, what: str = "memory") -> tuple[int | None, float | None]:
    """A vGPU's memory: (bytes, None), or (None, fraction of the GPU) for ``50%``."""
    s = str(text).strip().lower().replace(" ", "")
    if s.endswith("%"):
        try:
            pct = float(s[:-1])
        except ValueError:
            raise SizeError(f"{what} {text!r}: expected a percentage of the GPU like 50%") from None
        if not 0 < pct <= 100:
            raise SizeError(f"{what} {text!r}: a percentage of the GPU must be in (0, 100]")
        return None, pct / 100
    nbytes = parse_size(str(text).strip(), what) if s else -1
    if nbytes < 0:
        raise SizeError(f"{what} {text!r} is not a size: use {GRAMMAR}, or a share of the GPU (50%)")
    check_vgpu_memory(nbytes, f"{what} {text!r}")
    return nbytes, None


def check_vgpu_memory(nbytes: int, what: str = "memory") -> None:
    if nbytes < MIN_VGPU_MEMORY:
        raise SizeError(f"{what} is {format_size(nbytes)}; a vGPU needs at least {format_size(MIN_VGPU_MEMORY)} "
                        f"(a bare number is MiB: --mem 512 is 512 MiB; a share of the GPU is 50%)")


def format_size(n: int | float) -> str:
    for unit, k in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= k:
            return f"{n / k:.1f} {unit}"
    return f"{int(n)} B"


class Size(click.ParamType):
    """A click parameter in the size grammar: bad input is a usage error naming the option."""
    name = "size"

    def convert(self, value, param, ctx):
        try:
            return parse_size(value)
        except SizeError as e:
            self.fail(str(e), param, ctx)


SIZE = Size()
