"""A per-thread stack for recursive device functions (ptx/program.py emit_recursive_call).

Calls are inlined, but a function cannot be inlined into itself: a recursive call goes to one copy
of the function kept out of line. Every activation of that copy uses the same registers, so a call
made from inside it first saves them; its local symbols, though, are addressed from a per-thread
frame pointer, %rgpu_fp, and each call places the callee's frame on the stack, as a GPU moves its
stack pointer by the callee's frame size: the .local data of every live activation has addresses of
its own, and a callee that stores through a pointer into its caller's frame (a local array, a
result passed by address) changes the caller's data. The stack lives in each thread's local memory
above its frame (program.STACK_BYTES), its pointer in %rgpu_sp; both registers read as zero until
written (FP zero: the kernel's own frame). The software GPU's own instructions that work it:

    rgpu.push FRAME      save the registers of an out-of-line copy (FRAME, filled in once its body is
                         emitted: {"regs", "lo", "hi", "align", "base", "limit"}, its frame's layout
                         [lo, hi) with the alignment it needs, and the stack's place)
    rgpu.pop FRAME       restore them
    rgpu.enter FRAME     place a new activation's frame on the stack, its base in %rgpu_nfp (the call
                         copies its arguments there, then moves it to %rgpu_fp), and FP and SP to go
                         back to after it
    rgpu.leave FRAME     take the frame off: FP and SP back to the caller's
    rgpu.pushret K       push the call site's number, which the copy's return dispatches on
    rgpu.popret %r       pop it into %r
    rgpu.lcopy D, S, N[, NFP]   copy N bytes of the thread's local memory, S to D (arguments,
                         results); D from the frame being entered when NFP is given

Too deep a recursion overflows the stack and faults (CUDA_ERROR_ILLEGAL_ADDRESS), as a GPU does.
"""
from __future__ import annotations

import numpy as np

from ..errors import SimError, SimFault
from .interp import op
from .program import FP, NFP, SP

_LINK = 16  # bytes that rgpu.enter keeps above a frame: the caller's FP and SP


def _slot_bytes(frame) -> int:
    return 8 * len(frame["regs"])


def _offsets(st, idx, start, nbytes: int) -> np.ndarray:
    """Byte offsets in st.local of `nbytes` from `start` (per lane, within its frame) for each lane."""
    return (idx.astype(np.int64) * st.local_stride + start)[:, None] + np.arange(nbytes, dtype=np.int64)


def _write(st, name: str, idx, values) -> None:
    """Register `name` := `values` in the lanes `idx`, into a copy: a full-width mov shares one array
    between two registers (State.write), so writing one in place would change the other."""
    a = st.R[name].copy()
    a[idx] = values
    st.R[name] = a


def _overflow(st, at, size, frame) -> None:
    """A fault if a lane's stack would reach past its end."""
    if (at + size > frame["limit"]).any():
        raise SimFault("CUDA_ERROR_ILLEGAL_ADDRESS", f"{st.name}: stack overflow: recursion deeper than the "
                                                     f"software GPU's {frame['limit'] - frame['base']}-byte "
                                                     f"per-thread stack")


def _stack_push(st, idx, frame, data: np.ndarray) -> None:
    """Each lane's row of `data` onto its stack; a stack it would overflow faults."""
    sp = st.R[SP]
    at = sp[idx].astype(np.int64) + frame["base"]
    size = data.shape[1]
    _overflow(st, at, size, frame)
    st.local[_offsets(st, idx, at, size)] = data
    sp[idx] += np.uint64(size)


def _stack_pop(st, idx, frame, size: int) -> np.ndarray:
    """The top `size` bytes of each lane's stack, popped: one row per lane."""
    sp = st.R[SP]
    sp[idx] -= np.uint64(size)
    return st.local[_offsets(st, idx, sp[idx].astype(np.int64) + frame["base"], size)]


@op("rgpu", mods=("push", "pop", "enter", "leave", "pushret", "popret", "lcopy"))
def c_rgpu(ins, ctx):
    kind = ins.opcode.split(".")[1]
    if kind in ("push", "pop", "enter", "leave"):
        frame = ins.operands[0].value
        return {"push": _push, "pop": _pop, "enter": _enter, "leave": _leave}[kind](frame)
    if kind == "pushret":
        site, frame = ins.operands[0].value, ins.operands[1].value
        word = np.frombuffer(np.uint64(site).tobytes(), np.uint8)

        def pushret(st, m):
            idx = st.idx(m)
            _stack_push(st, idx, frame, np.broadcast_to(word, (len(idx), 8)))
        return pushret
    if kind == "popret":
        name, frame = ins.operands[0].value, ins.operands[1].value

        def popret(st, m):
            idx = st.idx(m)
            raw = _stack_pop(st, idx, frame, 8)
            st.R[name][idx] = np.ascontiguousarray(raw).view(np.uint64).ravel().astype(st.R[name].dtype)
        return popret
    # lcopy: both ends in the thread's local memory (call-sequence .param slots become local storage)
    dst, src = ins.operands[0], ins.operands[1]
    (dspace, doff), (sspace, soff) = ctx.sym(dst.value), ctx.sym(src.value)
    if dspace != "local" or sspace != "local":
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", "an argument of a recursive call outside local memory")
    n = int(ins.operands[2].value)
    dbase = _frame_reg(ctx, dst.value, ins.operands[3].value if len(ins.operands) > 3 else FP)
    sbase = _frame_reg(ctx, src.value, FP)
    doff += dst.offset
    soff += src.offset

    def lcopy(st, m):
        idx = st.idx(m)
        d = doff + (st.R[dbase][idx].astype(np.int64) if dbase else 0)
        s = soff + (st.R[sbase][idx].astype(np.int64) if sbase else 0)
        st.local[_offsets(st, idx, d, n)] = st.local[_offsets(st, idx, s, n)]
    return lcopy


def _frame_reg(ctx, name: str, reg: str) -> str | None:
    """The register a local symbol is addressed from: `reg` for an out-of-line copy's frame symbol,
    None for one at a fixed offset."""
    return reg if name in ctx.prog.frame_syms else None


def _enter(frame):
    """A new activation's frame at the top of each lane's stack, as aligned as its layout asks
    (program.emit_outlined), the caller's FP and SP kept just above it; NFP := its base."""
    align = frame["align"]
    size = -(-(frame["hi"] - frame["lo"]) // 8) * 8

    def enter(st, m):
        idx = st.idx(m)
        sp = st.R[SP]
        old_sp = sp[idx].copy()
        start = -(-(old_sp.astype(np.int64) + frame["base"]) // align) * align
        link = start + size
        _overflow(st, link, _LINK, frame)
        words = np.stack([st.R[FP][idx].astype(np.uint64), old_sp], axis=1)
        st.local[_offsets(st, idx, link, _LINK)] = words.view(np.uint8).reshape(len(idx), _LINK)
        _write(st, NFP, idx, (start - frame["lo"]).astype(np.uint64))
        sp[idx] = (link + _LINK - frame["base"]).astype(np.uint64)
    return enter


def _leave(frame):
    """The frame rgpu.enter placed (the one on top, once the call's return site is popped) taken
    off: FP and SP back to the caller's."""
    def leave(st, m):
        idx = st.idx(m)
        sp = st.R[SP]
        link = sp[idx].astype(np.int64) + frame["base"] - _LINK
        words = np.ascontiguousarray(st.local[_offsets(st, idx, link, _LINK)]).view(np.uint64).reshape(len(idx), 2)
        _write(st, FP, idx, words[:, 0])
        sp[idx] = words[:, 1]
    return leave


def _push(frame):
    def push(st, m):
        idx = st.idx(m)
        regs = frame["regs"]
        data = np.zeros((len(idx), _slot_bytes(frame)), np.uint8)
        for k, r in enumerate(regs):
            raw = np.ascontiguousarray(st.R[r][idx]).view(np.uint8).reshape(len(idx), -1)
            data[:, 8 * k:8 * k + raw.shape[1]] = raw
        _stack_push(st, idx, frame, data)
    return push


def _pop(frame):
    def pop(st, m):
        idx = st.idx(m)
        regs = frame["regs"]
        data = _stack_pop(st, idx, frame, _slot_bytes(frame))
        for k, r in enumerate(regs):
            dt = st.R.decl[r]
            _write(st, r, idx, np.ascontiguousarray(data[:, 8 * k:8 * k + dt.itemsize]).view(dt).ravel())
    return pop
