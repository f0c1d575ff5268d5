"""The SIMT engine: lanes, registers, operand access and the scheduler.

All threads of a batch of blocks are numpy lanes. Every lane has its own program counter;
the scheduler always runs the group of lanes with the *lowest* PC (min-PC scheduling). For the
code nvcc emits (structured control flow, reconvergence points after the divergent region, loop
back edges going to lower addresses) this makes diverged lanes wait at the join point until the
others arrive, so they reconverge exactly where a GPU's reconvergence stack would rejoin them,
and warp-synchronous instructions (shfl, vote, bar) see every lane that should take part.
A group keeps running straight-line code without re-checking PCs until it reaches the lowest
PC any waiting lane sits at; then the groups merge.

Instructions are compiled once per (kernel, module binding) into closures ``fn(state, mask)``;
``mask`` is None when every lane of the batch is in the group, otherwise a boolean array.
Arithmetic is computed over all lanes and merged under the mask; memory, atomics and output
only touch the active lanes.
"""
from __future__ import annotations

import numpy as np

from ..errors import SimError, SimFault
from .parser import Instruction, Operand
from .program import FP, Program
from .types import DTYPES, TYPE_NAMES, dtype_of, imm_value, to_bits

INF = np.int64(1 << 40)
RESERVED_SMEM = 1024  # the device's reserved shared memory per block (properties.py)
# Loops are where a kernel spends unbounded time, so the backward branches are where it may be
# paused: every this many, the launch's checkpoint looks at the clock (a few hundred ns).
CHECKPOINT_BRANCHES = 64
# A group of lanes that keeps looping while lanes of other blocks wait at higher PCs may be
# spinning on a flag one of those blocks will write (cuSOLVER's getrf: block k waits for the pivot
# of every column before k). After this many back edges in a row, its blocks step aside.
SPIN_BRANCHES = 32
# Lanes of blocks that stepped aside sit at PC + DEFERRED: past every real PC, below INF, so the
# other blocks run first, and they come back when only deferred lanes are left.
DEFERRED = np.int64(1 << 32)
# Lanes waiting at a block barrier (bar.sync) for lanes of their block that are still running sit at
# PC + BARRIER_WAIT: past every real PC, below DEFERRED. The last lanes to arrive release them
# (ops_warp.c_bar); lanes that can no longer be released (the rest of the block exited) go on when
# nothing else is left to run, as a GPU's barrier stops counting exited threads.
BARRIER_WAIT = np.int64(1 << 31)

# Generic address windows of the non-global spaces. Device allocations live at 0x2000_..-0x2010_..
# (memory.py); these sit far above them, 4 GiB each, like a GPU's shared/local apertures.
SHARED_WINDOW = 0x7FFE_0000_0000
LOCAL_WINDOW = 0x7FFD_0000_0000
PARAM_WINDOW = 0x7FFC_0000_0000
WINDOW_SIZE = 1 << 32

OPS: dict[str, object] = {}  # opcode base -> compile function(ins, ctx) -> fn(st, mask)
# opcode base -> the modifiers (and types) its compile function understands; None: any (hints and
# fences, which mean nothing to a machine that runs one instruction at a time). An instruction
# with a modifier outside its set is refused when its kernel is compiled, never run approximately.
FORMS: dict[str, frozenset | None] = {}
CONTROL = {"bra", "ret", "exit"}
ANY = None
ROUNDING = ("rn", "rz", "rm", "rp")


def op(*names, mods=(), types=TYPE_NAMES):
    """Register a compile function for the opcode bases ``names``; ``mods`` are the modifiers it
    implements besides ``types`` (ANY: every modifier)."""
    def deco(fn):
        for n in names:
            OPS[n] = fn
            FORMS[n] = None if mods is ANY else frozenset(mods) | frozenset(types) | FORMS.get(n, frozenset())
        return fn
    return deco


def unsupported(opcode: str) -> str | None:
    """Why the software GPU cannot run ``opcode`` (None when it can): an unknown base, or the
    modifiers its implementation does not know."""
    parts = opcode.split(".")
    base = opcode if opcode.startswith("call.") else parts[0]
    if base not in OPS:
        return "unknown instruction"
    forms = FORMS.get(base)
    if forms is None or base.startswith("call."):
        return None
    bad = [p for p in parts[1:] if p not in forms]
    return "modifier " + ", ".join("." + p for p in bad) + " not implemented" if bad else None


class Regs(dict):
    """Registers of a batch; a register never written reads as zero."""

    def __init__(self, decl: dict[str, np.dtype], n: int):
        super().__init__()
        self.decl = decl
        self.n = n

    def __missing__(self, name):
        dt = self.decl.get(name)
        if dt is None:
            raise SimError("CUDA_ERROR_INVALID_PTX", f"use of undeclared register {name}")
        a = np.zeros(self.n, dt)
        self[name] = a
        return a


class State:
    """One batch of blocks in flight. Its lane layout (``all_idx``, ``laneid``, ``lane_block``,
    ``special``, ...) is read through ``geo``, a lanes.Geometry shared between launches."""

    def __init__(self, n: int, geo=None):
        self.n = n
        self.geo = geo
        self._mask_key = None
        self._idx = None
        self.executed = 0
        self.printf_out: list[str] = []
        self.fault: SimFault | None = None
        self.checkpoint = None  # called every CHECKPOINT_BRANCHES backward branches (time slicing)
        self.regroup = False  # a barrier released lanes: the scheduler forms its groups again
        self.envregs: dict[str, int] = {}  # %envregN the driver sets (the grid-sync workspace)

    def __getattr__(self, name):
        # Only called for attributes the state itself lacks: the layout arrays of the geometry.
        geo = self.__dict__.get("geo")
        if geo is None:
            raise AttributeError(name)
        return getattr(geo, name)

    def idx(self, mask):
        if mask is None:
            if self._mask_key is not True:
                self._mask_key, self._idx = True, self.all_idx
            return self._idx
        if self._mask_key is not mask:
            self._mask_key, self._idx = mask, mask.nonzero()[0]
        return self._idx

    def write(self, name: str, val, mask) -> None:
        R = self.R
        dt = R.decl[name]
        val = np.asarray(val)
        if val.dtype != dt:
            val = to_bits(val, dt)
        if mask is None:
            if val.ndim == 0:  # a uniform value (parameter, immediate) fills the register
                a = np.empty(self.n, dt)
                a.fill(val)
                val = a
            R[name] = val
        else:
            R[name] = np.where(mask, val, R[name])

    def write_idx(self, name: str, val, idx, mask) -> None:
        """Write values that exist only for the lanes ``idx`` (loads, atomics)."""
        R = self.R
        dt = R.decl[name]
        val = np.asarray(val)
        if val.dtype != dt:
            val = to_bits(val, dt)
        if mask is None:
            R[name] = val if val.shape == (self.n,) else np.full(self.n, val, dt)
            return
        a = R[name].copy()
        a[idx] = val
        R[name] = a


class Compiler:
    """Compile-time context: declarations, symbol addresses, operand accessors."""

    def __init__(self, prog: Program, symbols: dict[str, int]):
        self.prog = prog
        self.symbols = symbols  # module variable name -> device address
        self.decl = {}
        for name, (t, vec) in prog.regs.items():
            if vec != 1:
                raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"vector register {name} is not supported")
            self.decl[name] = dtype_of(t)

    # -- symbols -------------------------------------------------------------------------------
    def sym(self, name: str) -> tuple[str, int]:
        p = self.prog
        if name in p.kparams:
            return "param", p.kparams[name]
        if name in p.local_syms:
            return "local", p.local_syms[name]
        if name in p.shared_syms:
            return "shared", p.shared_syms[name]
        if name in p.dynamic_shared_syms:
            return "shared", p.dynamic_shared_offset
        if name in self.symbols:
            return "global", self.symbols[name]
        if name in p.labels:
            return "label", p.labels[name]
        raise SimError("CUDA_ERROR_INVALID_PTX", f"unknown symbol {name!r} in {p.name}")

    def generic(self, name: str) -> int:
        space, v = self.sym(name)
        return {"global": 0, "shared": SHARED_WINDOW, "local": LOCAL_WINDOW, "param": PARAM_WINDOW}[space] + v

    # -- operands ------------------------------------------------------------------------------
    def get(self, o: Operand, t: str):
        """Getter ``f(st) -> array or scalar`` reading operand ``o`` as PTX type ``t``."""
        if t == "bf16x2" or t == "f16x2":
            t = "b32"
        dt = dtype_of(t)
        if o.kind == "reg":
            name = o.value
            if name.startswith("%") and name not in self.decl:
                return self.special(name, dt)
            src = self.decl[name]
            neg = o.neg
            if src == dt:
                if neg:
                    return lambda st: ~st.R[name]
                return lambda st: st.R[name]
            if src.itemsize == dt.itemsize and src.kind != "b" and dt.kind != "b":
                return lambda st: st.R[name].view(dt)
            return lambda st: to_bits(st.R[name], dt)
        if o.kind == "imm":
            c = imm_value(o, t)
            return lambda st: c
        if o.kind == "sym":
            # A symbol's value is its address in its own state space (cvta makes it generic).
            _space, v = self.sym(o.value)
            if o.value in self.prog.frame_syms:  # a recursive activation's own (ops_stack.py)
                c64 = np.uint64(v + o.offset)
                return lambda st: to_bits(st.R[FP] + c64, dt)
            c = to_bits(np.uint64(v + o.offset), dt)
            return lambda st: c
        raise SimError("CUDA_ERROR_INVALID_PTX", f"unexpected operand {o.kind} for .{t}")

    def special(self, name: str, dt):
        base = name.split(".")[0]
        if base in ("%clock", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi"):
            import time

            def clock(st):
                v = np.uint64(time.perf_counter_ns() if base.startswith("%clock") else time.time_ns())
                if base == "%globaltimer_hi":
                    v = v >> np.uint64(32)
                return to_bits(v, dt) if dt.itemsize == 8 else to_bits(np.uint32(int(v) & 0xFFFFFFFF), dt)
            return clock
        if base.startswith("%reserved_smem_offset"):
            # The block's reserved shared memory (cooperative groups keep their barrier state
            # there): a region of its own after the kernel's shared memory (kernels.py).
            which = base[len("%reserved_smem_offset_"):]
            rel = {"begin": 0, "end": RESERVED_SMEM, "cap": RESERVED_SMEM, "0": 0, "1": RESERVED_SMEM // 2}.get(which)
            if rel is None:
                raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"special register {name} is not supported by the software GPU")
            if which == "cap":
                return lambda st: to_bits(np.uint32(RESERVED_SMEM), dt)
            return lambda st: to_bits(np.uint32(st.reserved_smem + rel), dt)
        if base in ("%envreg0", "%pm0", "%dynamic_smem_size", "%total_smem_size", "%aggr_smem_size") or \
                base.startswith("%envreg") or base.startswith("%pm"):
            def env(st):
                if base == "%dynamic_smem_size":
                    return to_bits(np.uint32(st.dynamic_shared), dt)
                if base in ("%total_smem_size", "%aggr_smem_size"):
                    return to_bits(np.uint32(st.shared_limit), dt)
                return to_bits(np.uint32(st.envregs.get(base, 0)), dt)
            return env
        if name not in SPECIALS:
            raise SimError("CUDA_ERROR_NOT_SUPPORTED",
                           f"special register {name} is not supported by the software GPU")
        return lambda st: to_bits(st.geo.special[name], dt)

    def set(self, o: Operand, t: str):
        """Setter ``f(st, value, mask)`` writing a full-width value computed as type ``t``."""
        if o.kind == "sink":
            return lambda st, v, m: None
        if o.kind != "reg" or o.value not in self.decl:
            raise SimError("CUDA_ERROR_INVALID_PTX", f"destination must be a register, got {o.value!r}")
        name = o.value
        dt = self.decl[name]
        src = dtype_of(t) if t not in ("bf16x2", "f16x2") else DTYPES["b32"]
        if dt.itemsize > src.itemsize and t[0] == "s":
            def setter(st, v, m):
                st.write(name, to_bits(np.asarray(v, src), dt, sign_extend=True), m)
            return setter
        return lambda st, v, m: st.write(name, v, m)

    def set_idx(self, o: Operand, t: str):
        """Setter ``f(st, values_of_active_lanes, idx, mask)``."""
        if o.kind == "sink":
            return lambda st, v, i, m: None
        if o.kind != "reg" or o.value not in self.decl:
            raise SimError("CUDA_ERROR_INVALID_PTX", f"destination must be a register, got {o.value!r}")
        name = o.value
        dt = self.decl[name]
        src = dtype_of(t) if t not in ("bf16x2", "f16x2") else DTYPES["b32"]
        ext = dt.itemsize > src.itemsize and t[0] == "s"

        def setter(st, v, idx, m):
            v = np.asarray(v)
            if v.dtype != src:
                v = to_bits(v, src)
            st.write_idx(name, to_bits(v, dt, sign_extend=ext), idx, m)
        return setter


SPECIALS = {
    f"%{r}.{c}" for r in ("tid", "ntid", "ctaid", "nctaid", "clusterid", "nclusterid", "cluster_ctaid",
                          "cluster_nctaid") for c in "xyz"
} | {"%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid", "%lanemask_eq", "%lanemask_le",
     "%lanemask_lt", "%lanemask_ge", "%lanemask_gt", "%cluster_ctarank", "%cluster_nctarank",
     "%is_explicit_cluster"}


def compile_program(prog: Program, symbols: dict[str, int]) -> list:
    """Closures for every instruction; an unknown opcode is an error naming it."""
    from . import ops_async, ops_bulk, ops_ctrl, ops_cvt, ops_float, ops_heap, ops_int, ops_mem, ops_mma, ops_warp  # noqa: F401
    from . import ops_cdp, ops_stack, ops_tensormap, ops_tex  # noqa: F401

    ctx = Compiler(prog, symbols)
    code = []
    for ins in prog.code:
        ctx.pc = len(code)  # the instruction's own PC (a barrier parks lanes relative to it)
        base = ins.opcode.split(".")[0]
        if ins.opcode.startswith("call."):
            base = ins.opcode
        comp = OPS.get(base)
        why = unsupported(ins.opcode)
        if why is not None:
            raise SimError("CUDA_ERROR_NOT_SUPPORTED",
                           f"PTX instruction '{ins.opcode}' is not supported by the software GPU"
                           f"{'' if why == 'unknown instruction' else ' (' + why + ')'} "
                           f"(kernel {prog.name}, PTX line {ins.line})")
        try:
            fn = comp(ins, ctx)
        except SimError:
            raise
        except (KeyError, IndexError, ValueError, TypeError, AttributeError) as exc:
            raise SimError("CUDA_ERROR_NOT_SUPPORTED",
                           f"PTX instruction '{ins.opcode}' (line {ins.line}) has a form the software GPU "
                           f"does not support: {exc}") from exc
        control = base in CONTROL or getattr(fn, "control", False)
        if not control and ins.guard is not None:
            fn = _guarded(fn, ins.guard, ctx)
        code.append((control, fn, ins))
    return code


def _guarded(fn, guard, ctx: Compiler):
    name, neg = guard
    if name not in ctx.decl:
        raise SimError("CUDA_ERROR_INVALID_PTX", f"guard {name} is not a declared predicate")

    def run(st, mask):
        p = st.R[name]
        if neg:
            p = ~p
        m = p if mask is None else (p & mask)
        if m.any():
            fn(st, m)
    return run


def guard_mask(st, ins: Instruction, mask):
    """Lanes of the group whose guard predicate holds (all of them without a guard)."""
    if ins.guard is None:
        return mask
    p = st.R[ins.guard[0]]
    if ins.guard[1]:
        p = ~p
    return p if mask is None else (p & mask)


def _step_aside(st: State, P: np.ndarray, group: np.ndarray) -> bool:
    """Defer every block that has a lane in ``group`` (lanes of a block move together, so its
    barriers keep their meaning) when lanes of other blocks are still running; False when there
    are none, and the group is on its own (a block spinning on itself spins as on a GPU)."""
    tpad = st.tpad
    nb = st.n // tpad
    blocks = np.zeros(nb, bool)
    blocks[np.nonzero(group)[0] // tpad] = True
    mine = np.repeat(blocks, tpad)
    waiting = P < DEFERRED
    if not (waiting & ~mine).any():
        return False
    P[mine & waiting] += DEFERRED
    return True


def run(st: State, code: list, live: np.ndarray, max_steps: int | None = None) -> None:
    """Execute until every lane has exited."""
    n = st.n
    P = np.where(live, np.int64(0), INF)
    st.P = P
    # The first group is every live lane at PC 0; the padding lanes never run.
    active = int(np.count_nonzero(live))
    if active == 0:
        return
    mask = None if active == n else live
    pc = 0
    stop = INF
    ncode = len(code)
    checkpoint = st.checkpoint
    branches = CHECKPOINT_BRANCHES
    loops = 0  # back edges the running group took in a row
    while True:
        if pc >= stop:
            # Merge: the running group parks at its PC, then the lowest-PC lanes form the next group.
            if pc >= 0:
                if mask is None:
                    if pc >= INF:
                        break  # the whole batch exited together
                    P[:] = pc
                else:
                    P[mask] = pc
                m = stop  # every waiting lane sits at stop or later, and the group reached it
            else:
                m = int(P.min())
            if m >= INF:
                break
            if m >= DEFERRED:
                # only deferred blocks are left: they run again where they stood
                P[(P >= DEFERRED) & (P < INF)] -= DEFERRED
                m -= int(DEFERRED)
            if m >= BARRIER_WAIT:
                # only lanes waiting at a barrier are left: the lanes they waited for exited
                P[P == m] = m - BARRIER_WAIT + 1
                m -= int(BARRIER_WAIT) - 1
            loops = 0
            grp = P == m
            active = int(np.count_nonzero(grp))
            if active == n:
                stop = INF
                mask = None
            else:
                rest = P[~grp]
                stop = int(rest.min())
                mask = grp
            pc = m
        if pc >= ncode:
            raise SimFault("CUDA_ERROR_ILLEGAL_INSTRUCTION", f"{st.name}: execution ran past the last instruction")
        is_ctrl, fn, ins = code[pc]
        st.executed += active
        if not is_ctrl:
            fn(st, mask)
            pc += 1
            continue
        # Control flow: fn returns (target, taken-mask) — taken None means every lane of the group,
        # otherwise taken holds only lanes of the group, so counting it tells none/some/all.
        target, taken = fn(st, mask)
        if target <= pc and checkpoint is not None:
            branches -= 1
            if branches == 0:
                branches = CHECKPOINT_BRANCHES
                checkpoint()
        ntaken = active if taken is None else np.count_nonzero(taken)
        if ntaken == 0:
            pc += 1
            if st.regroup:
                # a barrier released waiting lanes at the PC this group goes on from: run them together
                st.regroup = False
                if mask is not None:
                    P[mask] = pc
                    pc = stop = -1
            continue
        if ntaken == active:
            if target >= BARRIER_WAIT:
                # the whole group waits at a barrier for lanes of its blocks: the others run
                P[mask] = target
                pc = stop = -1
                continue
            if target <= pc and mask is not None:
                loops += 1
                if loops >= SPIN_BRANCHES:
                    loops = 0
                    P[mask] = target
                    if _step_aside(st, P, mask):
                        pc = stop = -1  # the lowest-PC lanes of the other blocks run next
                        continue
            pc = target
            continue
        if mask is None:
            # Divergence of the whole batch: park both sides; the lower PC runs first and the
            # other side is the only one waiting, so it is where the running side stops.
            P[:] = np.where(taken, target, pc + 1)
            lo, hi = (pc + 1, target) if target > pc + 1 else (target, pc + 1)
            mask = (P == lo)
            active = int(np.count_nonzero(mask))
            pc, stop = lo, hi
            continue
        P[mask] = np.where(taken[mask], target, pc + 1)
        pc = -1
        stop = -1
