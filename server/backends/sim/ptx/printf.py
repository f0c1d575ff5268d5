"""Device ``printf``: format strings and argument buffers read from simulated memory.

nvcc lowers ``printf(fmt, ...)`` to ``vprintf(fmt, buf)`` where ``buf`` is a struct in the thread's
local memory holding each argument at its natural alignment: ints and chars as 4 bytes (8 with
l/ll/j/z/t), every floating argument promoted to double, pointers and strings as 8 bytes.
Conversions are those of C printf; the output is what the GPU's printf prints.
"""
from __future__ import annotations

import re

import numpy as np

from ..errors import SimFault
from .interp import LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE

SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|j|z|t|L|q)?([diouxXeEfFgGaAcspn%])")
MAX_STRING = 1 << 16


def _locate(st, addr: int, lane: int):
    """(arena, offset, bytes available) for one generic address as seen by ``lane``."""
    if SHARED_WINDOW <= addr < SHARED_WINDOW + WINDOW_SIZE:
        off = addr - SHARED_WINDOW
        blk = int(st.lane_block[lane])
        return st.shared, blk * st.shared_stride + off, st.shared_limit - off
    if LOCAL_WINDOW <= addr < LOCAL_WINDOW + WINDOW_SIZE:
        off = addr - LOCAL_WINDOW
        return st.local, lane * st.local_stride + off, st.local_limit - off
    if PARAM_WINDOW <= addr < PARAM_WINDOW + WINDOW_SIZE:
        off = addr - PARAM_WINDOW
        return st.kparam, off, len(st.kparam) - off
    found = st.mem.allocation(addr)
    if found is None:
        raise SimFault("CUDA_ERROR_ILLEGAL_ADDRESS", f"printf reads 0x{addr:x}, outside any allocation")
    start, size = found
    return st.mem.arena, addr - st.mem.base, start + size - addr


def read_bytes(st, addr: int, n: int, lane: int = 0) -> bytes:
    arena, off, avail = _locate(st, addr, lane)
    if avail < n:
        raise SimFault("CUDA_ERROR_ILLEGAL_ADDRESS", f"printf reads {n} bytes at 0x{addr:x} past the end")
    return arena[off:off + n].tobytes()


def read_cstring(st, addr: int, lane: int = 0) -> str:
    if addr == 0:
        return "(null)"
    arena, off, avail = _locate(st, addr, lane)
    chunk = arena[off:off + min(avail, MAX_STRING)].tobytes()
    end = chunk.find(b"\0")
    return chunk[:end if end >= 0 else len(chunk)].decode("utf-8", errors="replace")


def format_printf(st, fmt: str, buf: int, lane: int = 0) -> tuple[str, int]:
    """Format one printf call; returns the text and the number of arguments consumed."""
    out = []
    pos = 0
    off = 0
    nargs = 0

    def take(size: int, kind: str):
        nonlocal off, nargs
        off = -(-off // size) * size
        raw = read_bytes(st, buf + off, size, lane)
        off += size
        nargs += 1
        if kind == "f":
            return float(np.frombuffer(raw, np.float64)[0])
        return int.from_bytes(raw, "little", signed=(kind == "s"))

    for m in SPEC.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        flags, width, prec, length, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            width = str(take(4, "s"))
        if prec == "*":
            prec = str(take(4, "s"))
        spec = "%" + flags + (width or "") + ("." + prec if prec is not None else "")
        wide = length in ("l", "ll", "j", "z", "t", "q")
        if conv in "di":
            v = take(8 if wide else 4, "s")
            if length == "h":
                v = (v + (1 << 15)) % (1 << 16) - (1 << 15)
            elif length == "hh":
                v = (v + (1 << 7)) % (1 << 8) - (1 << 7)
            out.append((spec + "d") % v)
        elif conv in "ouxX":
            v = take(8 if wide else 4, "u")
            if length == "h":
                v &= 0xFFFF
            elif length == "hh":
                v &= 0xFF
            out.append((spec + ("d" if conv == "u" else conv)) % v)
        elif conv in "eEfFgG":
            out.append((spec + conv) % take(8, "f"))
        elif conv in "aA":
            v = take(8, "f")
            out.append(v.hex() if conv == "a" else v.hex().upper())
        elif conv == "c":
            out.append((spec + "c") % chr(take(4, "u") & 0xFF))
        elif conv == "s":
            out.append((spec + "s") % read_cstring(st, take(8, "u"), lane))
        elif conv == "p":
            v = take(8, "u")
            out.append(("%" + flags + (width or "") + "s") % ("0x%x" % v if v else "(nil)"))
        elif conv == "n":
            take(8, "u")
    out.append(fmt[pos:])
    return "".join(out), nargs
