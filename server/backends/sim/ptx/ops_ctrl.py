"""Control flow and the calls the software GPU implements itself (vprintf, __assertfail).

Control instructions return ``(target, taken)`` to the scheduler (interp.run) instead of writing
registers: ``taken`` None means every lane of the group goes to ``target``; a mask lets the
scheduler split the group. Exiting lanes go to PC = INF and never come back.
"""
from __future__ import annotations

import numpy as np

from ..errors import SimError, SimFault
from .interp import ANY, INF, guard_mask, op
from .ops_mem import resolve
from .printf import format_printf, read_cstring
from .program import FP


@op("bra", mods=("uni",))
def c_bra(ins, ctx):
    target = ins.operands[0].value
    if target not in ctx.prog.labels:
        raise SimError("CUDA_ERROR_INVALID_PTX", f"branch to unknown label {target!r}")
    pc = ctx.prog.labels[target]
    if ins.guard is None:
        return lambda st, m: (pc, None)
    return lambda st, m: (pc, guard_mask(st, ins, m))


@op("ret", "exit", mods=("uni",))
def c_exit(ins, ctx):
    if ins.guard is None:
        return lambda st, m: (INF, None)
    return lambda st, m: (INF, guard_mask(st, ins, m))


@op("trap")
def c_trap(ins, ctx):
    if ins.operands:  # program.py's: a call through a pointer that holds none of the functions it can
        target = ctx.get(ins.operands[0], "u64")

        def nowhere(st, m):
            v = np.asarray(target(st)).reshape(-1)
            addr = int(v[st.idx(m)[0]] if v.size > 1 else v[0])  # the first lane that got here
            raise SimFault("CUDA_ERROR_INVALID_PC", f"{st.name}: a call through a pointer to 0x{addr:x}, "
                                                    f"which holds no device function of the module")
        return nowhere

    def run(st, m):
        raise SimFault("CUDA_ERROR_LAUNCH_FAILED", f"{st.name}: trap instruction executed")
    return run


@op("brkpt")
def c_brkpt(ins, ctx):
    # Without an attached debugger a breakpoint stops the kernel like a trap does.
    def run(st, m):
        raise SimFault("CUDA_ERROR_LAUNCH_FAILED", f"{st.name}: brkpt executed with no debugger attached")
    return run


@op("membar", "fence", "nanosleep", "pmevent", "griddepcontrol", "setmaxnreg", mods=ANY)
def c_noop(ins, ctx):
    # Fences: each instruction completes for every lane before the next one starts, so memory is
    # already sequentially consistent. nanosleep: time is not simulated. pmevent: no counters.
    return lambda st, m: None


def _param_reader(ctx, operand, dtype):
    """Read a call-sequence .param slot (per-lane local storage) for the active lanes."""
    space, off = ctx.sym(operand.value)
    off += operand.offset
    dt = np.dtype(dtype)
    rel = operand.value in ctx.prog.frame_syms  # in a recursive activation's frame (ops_stack.py)

    def read(st, idx):
        if space == "param":
            return np.full(len(idx), st.kparam[off:off + dt.itemsize].view(dt)[0])
        addrs = st.R[FP][idx] + np.uint64(off) if rel else np.full(len(idx), off, np.uint64)
        arena, offs, _ = resolve(st, space, addrs, dt.itemsize, idx)[0]
        return arena[:len(arena) - len(arena) % dt.itemsize].view(dt)[offs // dt.itemsize]
    return read, space, off


class FrameSlot(int):
    """A return slot's offset within a recursive activation's frame, which starts at FP (ops_stack.py)."""


def ret_slot(ctx, rets):
    """Offset of a builtin call's .param return slot in each lane's local storage (None: unused)."""
    if not rets:
        return None
    _space, off = ctx.sym(rets[0].value)
    off += rets[0].offset
    return FrameSlot(off) if rets[0].value in ctx.prog.frame_syms else off


def write_ret(st, idx, ret, values: np.ndarray) -> None:
    """A builtin call's return value into each lane's .param return slot (local storage here)."""
    size = values.dtype.itemsize
    offs = idx.astype(np.int64) * st.local_stride + int(ret)
    if isinstance(ret, FrameSlot):
        offs = offs + st.R[FP][idx].astype(np.int64)
    st.local[:len(st.local) - len(st.local) % size].view(values.dtype)[offs // size] = values


@op("call.vprintf")
def c_vprintf(ins, ctx):
    rets, args = ins.operands[0].value, ins.operands[1].value
    fmt_r = _param_reader(ctx, args[0], np.uint64)[0]
    buf_r = _param_reader(ctx, args[1], np.uint64)[0]
    ret = ret_slot(ctx, rets)

    def run(st, m):
        idx = st.idx(m)
        fmts = fmt_r(st, idx)
        bufs = buf_r(st, idx)
        counts = np.zeros(len(idx), np.int32)
        cache = {}
        for k in range(len(idx)):  # output is per thread by nature; formatting cost is per line
            fa = int(fmts[k])
            if fa not in cache:
                cache[fa] = read_cstring(st, fa, int(idx[k]))
            text, nargs = format_printf(st, cache[fa], int(bufs[k]), int(idx[k]))
            st.printf_out.append(text)
            counts[k] = nargs
        if ret is not None:
            write_ret(st, idx, ret, counts)
    return run


@op("call.__assertfail")
def c_assertfail(ins, ctx):
    args = ins.operands[1].value
    msg_r = _param_reader(ctx, args[0], np.uint64)[0]
    file_r = _param_reader(ctx, args[1], np.uint64)[0]
    line_r = _param_reader(ctx, args[2], np.uint32)[0]
    func_r = _param_reader(ctx, args[3], np.uint64)[0]

    def run(st, m):
        idx = st.idx(m)
        msgs, files, lines, funcs = msg_r(st, idx), file_r(st, idx), line_r(st, idx), func_r(st, idx)
        for k, lane in enumerate(idx):
            tid = [int(st.special[f"%tid.{c}"][lane]) for c in "xyz"]
            cta = [int(np.broadcast_to(st.special[f"%ctaid.{c}"], (st.n,))[lane]) for c in "xyz"]
            st.printf_out.append(
                f"{read_cstring(st, int(files[k]), lane)}:{int(lines[k])}: {read_cstring(st, int(funcs[k]), lane)}: "
                f"block: [{cta[0]},{cta[1]},{cta[2]}], thread: [{tid[0]},{tid[1]},{tid[2]}] "
                f"Assertion `{read_cstring(st, int(msgs[k]), lane)}` failed.\n")
        raise SimFault("CUDA_ERROR_ASSERT", f"{st.name}: device-side assertion failed")
    return run
