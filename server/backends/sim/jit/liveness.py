"""Which registers of a flattened kernel are live where: what a thread must keep in its register
file across a sync point (a barrier or a warp-collective instruction), and nothing more, since the
file is zeroed for every block and saved and restored at every stop."""
from __future__ import annotations

from ..ptx.parser import Instruction, Operand
from ..ptx.program import Program

# Instructions whose first operand is not a destination.
NO_DEST = frozenset({"st", "red", "bar", "barrier", "bra", "ret", "exit", "trap", "membar", "fence",
                     "prefetch", "prefetchu", "nanosleep"})


def _regs_in(op: Operand, regs: dict, out: list) -> None:
    if op.kind == "reg" or op.kind == "addr" or op.kind == "sym":
        if isinstance(op.value, str) and op.value in regs:
            out.append(op.value)
    elif op.kind in ("vec", "list"):
        for o in op.value:
            _regs_in(o, regs, out)


def uses_defs(ins: Instruction, regs: dict) -> tuple[list[str], list[str]]:
    base = ins.opcode.split(".")[0]
    uses: list[str] = []
    defs: list[str] = []
    ops = ins.operands
    if base in NO_DEST or not ops:
        for o in ops:
            _regs_in(o, regs, uses)
    else:
        _regs_in(ops[0], regs, defs)
        for o in ops[1:]:
            _regs_in(o, regs, uses)
    if ins.guard is not None and ins.guard[0] in regs:
        uses.append(ins.guard[0])
    return uses, defs


def successors(prog: Program, pc: int) -> list[int]:
    ins = prog.code[pc]
    base = ins.opcode.split(".")[0]
    if base == "bra":
        target = prog.labels[ins.operands[0].value]
        return [target] if ins.guard is None else [target, pc + 1]
    if base in ("ret", "exit", "trap"):
        return [] if ins.guard is None else [pc + 1]
    return [pc + 1] if pc + 1 < len(prog.code) else []


def live_sets(prog: Program) -> tuple[list[int], list[int], list[str]]:
    """(live-in, live-out) per instruction as bitsets over the returned register order."""
    names = list(prog.regs)
    index = {n: k for k, n in enumerate(names)}
    n = len(prog.code)
    use = [0] * n
    kill = [0] * n
    succ = []
    for pc, ins in enumerate(prog.code):
        u, d = uses_defs(ins, prog.regs)
        for r in u:
            use[pc] |= 1 << index[r]
        if ins.guard is None:  # a guarded write may not happen: it kills nothing
            for r in d:
                kill[pc] |= 1 << index[r]
        succ.append(successors(prog, pc))
    live_in = [0] * n
    live_out = [0] * n
    preds: list[list[int]] = [[] for _ in range(n)]
    for pc, ss in enumerate(succ):
        for s in ss:
            preds[s].append(pc)
    work = list(range(n))
    queued = [True] * n
    while work:
        pc = work.pop()
        queued[pc] = False
        out = 0
        for s in succ[pc]:
            out |= live_in[s]
        live_out[pc] = out
        new_in = use[pc] | (out & ~kill[pc])
        if new_in != live_in[pc]:
            live_in[pc] = new_in
            for p in preds[pc]:
                if not queued[p]:
                    queued[p] = True
                    work.append(p)
    return live_in, live_out, names


def members(bits: int, names: list[str]) -> list[str]:
    out = []
    k = 0
    while bits:
        if bits & 1:
            out.append(names[k])
        bits >>= 1
        k += 1
    return out


def written_since_stop(prog: Program, names: list[str], stops: set[int], waits: frozenset | set = frozenset()
                       ) -> list[int]:
    """Per instruction, the registers (bitset) some path from the kernel's start or from the last
    sync point before it may have written: a register outside this set still holds what the
    thread's register file holds (zero at the start, what was loaded on resume), so a stop need
    not save it again. At a stop in ``waits`` the instruction itself runs after the resume, so
    what it writes is new there."""
    index = {n: k for k, n in enumerate(names)}
    n = len(prog.code)
    defs = [0] * n
    for pc, ins in enumerate(prog.code):
        for r in uses_defs(ins, prog.regs)[1]:
            defs[pc] |= 1 << index[r]
    w_in = [0] * n
    succ = [successors(prog, pc) for pc in range(n)]
    work = list(range(n))
    queued = [True] * n
    while work:
        pc = work.pop()
        queued[pc] = False
        out = defs[pc] if pc in waits else 0 if pc in stops else w_in[pc] | defs[pc]
        for s in succ[pc]:
            if w_in[s] | out != w_in[s]:
                w_in[s] |= out
                if not queued[s]:
                    queued[s] = True
                    work.append(s)
    return w_in
