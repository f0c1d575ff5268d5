"""The per-thread stack of recursive device functions, compiled: ptx/ops_stack.py's instructions
(rgpu.push, pop, enter, leave, pushret, popret, lcopy) as scalar code on the thread's local memory.

Layouts are the interpreter's, byte for byte (a frame's registers 8 bytes apart, little-endian,
padded with zeros; the return site as a u64; the caller's FP and SP above a frame), and a push or
an enter that would pass the stack's end faults with the interpreter's message (prelude FAULTS 12).
A kernel with recursion and sync points stays interpreted (check.py): the registers a push saves
are implicit operands, which the liveness of sync points does not see.
"""
from __future__ import annotations

from ..ptx.parser import Operand
from ..ptx.program import FP, NFP, SP
from .prelude import FCODE
from .values import Body, Unsupported

LINK = 16  # ops_stack._LINK: the caller's FP and SP, kept above a frame
OVERFLOW = 12  # prelude.FAULTS


def _reg(k, b: Body, name: str) -> str:
    """Register `name`'s bits as an i64, zero-extended (as its bytes lie in its 8)."""
    return k.get(b, Operand("reg", name), "u64", raw=True)


def _set(k, b: Body, name: str, v: str) -> None:
    k.set(b, Operand("reg", name), "u64", v)


def _at(b: Body, offset: str) -> str:
    """A pointer to byte `offset` of the thread's local memory (inside it: the stack's checks)."""
    return b(f"getelementptr i8, ptr %frame, i64 {offset}")


def _overflow_check(b: Body, end: str, frame) -> None:
    """Fault unless [.., end) stays within the stack (ops_stack._overflow)."""
    over = b(f"icmp sgt i64 {end}, {frame['limit']}")
    n = b.n
    b.do(f"br i1 {over}, label %so{n}, label %sk{n}, !prof !0")
    b.label(f"so{n}")
    b.do(f"store i64 {OVERFLOW}, ptr {b(f'getelementptr i64, ptr %ctx, i64 {FCODE}')}, align 8")
    b.do("br label %fault")
    b.label(f"sk{n}")


def _push_words(k, b: Body, frame, words: list[str]) -> None:
    sp = _reg(k, b, SP)
    at = b(f"add i64 {sp}, {frame['base']}")
    _overflow_check(b, b(f"add i64 {at}, {8 * len(words)}"), frame)
    for i, w in enumerate(words):
        b.do(f"store i64 {w}, ptr {_at(b, b(f'add i64 {at}, {8 * i}'))}, align 1")
    _set(k, b, SP, b(f"add i64 {sp}, {8 * len(words)}"))


def _pop_words(k, b: Body, frame, n: int) -> list[str]:
    sp = b(f"sub i64 {_reg(k, b, SP)}, {8 * n}")
    _set(k, b, SP, sp)
    at = b(f"add i64 {sp}, {frame['base']}")
    return [b(f"load i64, ptr {_at(b, b(f'add i64 {at}, {8 * i}'))}, align 1") for i in range(n)]


def _local_offset(k, b: Body, o, base_reg: str) -> str:
    """The local-memory offset of symbol operand `o`: from `base_reg` for a recursive frame's own."""
    space, v = k.sym(o.value)
    if space != "local":
        raise Unsupported("an argument of a recursive call outside local memory")
    off = v + o.offset
    if o.value in k.prog.frame_syms:
        return b(f"add i64 {_reg(k, b, base_reg)}, {off}")
    return str(off)


def e_rgpu(k, b: Body, pc, ins, parts) -> None:
    kind = parts[1]
    if kind == "lcopy":
        dst, src, n = ins.operands[0], ins.operands[1], int(ins.operands[2].value)
        d = _local_offset(k, b, dst, ins.operands[3].value if len(ins.operands) > 3 else FP)
        s = _local_offset(k, b, src, FP)
        k.decls.add("declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)\n")
        b.do(f"call void @llvm.memmove.p0.p0.i64(ptr {_at(b, d)}, ptr {_at(b, s)}, i64 {n}, i1 false)")
        return
    if kind == "pushret":
        return _push_words(k, b, ins.operands[1].value, [str(int(ins.operands[0].value))])
    if kind == "popret":
        (w,) = _pop_words(k, b, ins.operands[1].value, 1)
        return _set(k, b, ins.operands[0].value, w)
    frame = ins.operands[0].value
    if kind == "push":
        return _push_words(k, b, frame, [_reg(k, b, r) for r in frame["regs"]])
    if kind == "pop":
        for r, w in zip(frame["regs"], _pop_words(k, b, frame, len(frame["regs"]))):
            _set(k, b, r, w)
        return
    if kind == "enter":
        align, size = frame["align"], -(-(frame["hi"] - frame["lo"]) // 8) * 8
        old_sp = _reg(k, b, SP)
        top = b(f"add i64 {old_sp}, {frame['base'] + align - 1}")
        start = b(f"and i64 {top}, {-align}")
        link = b(f"add i64 {start}, {size}")
        _overflow_check(b, b(f"add i64 {link}, {LINK}"), frame)
        b.do(f"store i64 {_reg(k, b, FP)}, ptr {_at(b, link)}, align 1")
        b.do(f"store i64 {old_sp}, ptr {_at(b, b(f'add i64 {link}, 8'))}, align 1")
        _set(k, b, NFP, b(f"sub i64 {start}, {frame['lo']}"))
        _set(k, b, SP, b(f"sub i64 {link}, {frame['base'] - LINK}"))
        return
    if kind == "leave":
        link = b(f"add i64 {_reg(k, b, SP)}, {frame['base'] - LINK}")
        _set(k, b, FP, b(f"load i64, ptr {_at(b, link)}, align 1"))
        _set(k, b, SP, b(f"load i64, ptr {_at(b, b(f'add i64 {link}, 8'))}, align 1"))
        return
    raise Unsupported(f"instruction {ins.opcode}")
