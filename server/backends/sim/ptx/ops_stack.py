"""A per-thread stack for recursive device functions (ptx/program.py emit_recursive_call).

Calls are inlined, but a function cannot be inlined into itself: a recursive call goes to one copy
of the function kept out of line, and since every activation of that copy uses the same registers
and local frame, a call made from inside it first saves them. The stack lives in each thread's
local memory above its frame (program.STACK_BYTES), its pointer in a register, %rgpu_sp, that
reads as zero until written. Four instructions of the software GPU's own work it:

    rgpu.push FRAME      save the registers and local bytes of an out-of-line copy (FRAME, filled in
                         once its body is emitted: {"regs", "lo", "hi", "base", "limit"})
    rgpu.pop FRAME       restore them
    rgpu.pushret K       push the call site's number, which the copy's return dispatches on
    rgpu.popret %r       pop it into %r
    rgpu.lcopy D, S, N   copy N bytes of the thread's local memory, S to D (arguments, results)
"""
from __future__ import annotations

import numpy as np

from ..errors import SimError, SimFault
from .interp import op

SP = "%rgpu_sp"


def _slot_bytes(frame) -> int:
    return 8 * len(frame["regs"]) + -(-(frame["hi"] - frame["lo"]) // 8) * 8


def _offsets(st, idx, start, nbytes: int) -> np.ndarray:
    """Byte offsets in st.local of `nbytes` from `start` (per lane, within its frame) for each lane."""
    return (idx.astype(np.int64) * st.local_stride + start)[:, None] + np.arange(nbytes, dtype=np.int64)


def _stack_push(st, idx, frame, data: np.ndarray) -> None:
    """Each lane's row of `data` onto its stack; a stack it would overflow faults."""
    sp = st.R[SP]
    at = sp[idx].astype(np.int64) + frame["base"]
    size = data.shape[1]
    if (at + size > frame["limit"]).any():
        raise SimFault("CUDA_ERROR_ILLEGAL_ADDRESS", f"{st.name}: stack overflow: recursion deeper than the "
                                                     f"software GPU's {frame['limit'] - frame['base']}-byte "
                                                     f"per-thread stack")
    st.local[_offsets(st, idx, at, size)] = data
    sp[idx] += np.uint64(size)


def _stack_pop(st, idx, frame, size: int) -> np.ndarray:
    """The top `size` bytes of each lane's stack, popped: one row per lane."""
    sp = st.R[SP]
    sp[idx] -= np.uint64(size)
    return st.local[_offsets(st, idx, sp[idx].astype(np.int64) + frame["base"], size)]


@op("rgpu", mods=("push", "pop", "pushret", "popret", "lcopy"))
def c_rgpu(ins, ctx):
    kind = ins.opcode.split(".")[1]
    if kind in ("push", "pop"):
        frame = ins.operands[0].value
        return (_push if kind == "push" else _pop)(frame)
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
    (dspace, doff), (sspace, soff) = ctx.sym(ins.operands[0].value), ctx.sym(ins.operands[1].value)
    doff += ins.operands[0].offset
    soff += ins.operands[1].offset
    if dspace != "local" or sspace != "local":
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", "an argument of a recursive call outside local memory")
    n = int(ins.operands[2].value)

    def lcopy(st, m):
        idx = st.idx(m)
        st.local[_offsets(st, idx, doff, n)] = st.local[_offsets(st, idx, soff, n)]
    return lcopy


def _push(frame):
    def push(st, m):
        idx = st.idx(m)
        regs = frame["regs"]
        data = np.zeros((len(idx), _slot_bytes(frame)), np.uint8)
        for k, r in enumerate(regs):
            raw = np.ascontiguousarray(st.R[r][idx]).view(np.uint8).reshape(len(idx), -1)
            data[:, 8 * k:8 * k + raw.shape[1]] = raw
        span = frame["hi"] - frame["lo"]
        if span:
            data[:, 8 * len(regs):8 * len(regs) + span] = st.local[_offsets(st, idx, frame["lo"], span)]
        _stack_push(st, idx, frame, data)
    return push


def _pop(frame):
    def pop(st, m):
        idx = st.idx(m)
        regs = frame["regs"]
        data = _stack_pop(st, idx, frame, _slot_bytes(frame))
        for k, r in enumerate(regs):
            reg = st.R[r]
            reg[idx] = np.ascontiguousarray(data[:, 8 * k:8 * k + reg.dtype.itemsize]).view(reg.dtype).ravel()
        span = frame["hi"] - frame["lo"]
        if span:
            st.local[_offsets(st, idx, frame["lo"], span)] = data[:, 8 * len(regs):8 * len(regs) + span]
    return pop
