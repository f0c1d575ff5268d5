"""A kernel flattened into one instruction list: every ``call`` of a ``.func`` is inlined.

Inlining keeps the SIMT scheduler simple (one program counter per lane, no per-lane call stack):
each call site gets its own copy of the callee with renamed registers and labels, its own local
frame, and ``ret`` turned into a branch to the instruction after the call. The ``.param`` symbols
of a call sequence become per-lane local storage, so the callee's ``ld.param`` of its parameters
and ``st.param`` of its return value read and write the caller's argument/return slots.
Recursion cannot be inlined: a function called from inside itself gets one out-of-line copy after
the kernel's code, reached through a per-thread stack (emit_recursive_call, ops_stack.py). A call
through a pointer compares it with every function it can hold (emit_indirect).

Memory layout decided here:
  * local (per thread): every frame (``__local_depot``, other ``.local`` variables, call-sequence
    ``.param`` slots) at its own offset, then, in a kernel that recurses, the stack, where each
    activation of a recursive function's out-of-line copy has its frame (emit_outlined);
  * shared (per block): the module's ``.shared`` variables this kernel reaches, then function-local
    ones, then dynamic shared memory (``.extern .shared``) 16-byte aligned after the static part;
  * kernel parameters: the ``.entry`` list laid out with each parameter's alignment.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..cubin import Param
from ..errors import SimError
from .parser import Function, Instruction, Label, Module, Operand, Variable

# Calls the software GPU implements itself instead of inlining a body.
BUILTIN_CALLS = ("vprintf", "__assertfail", "malloc", "free",  # the driver's system calls
                 # the device runtime's grid synchronisation (numba's cuda.cg.this_grid().sync())
                 "cudaCGGetIntrinsicHandle", "cudaCGSynchronize", "cudaCGSynchronizeGrid",
                 # the device runtime's calls from device code (dynamic parallelism, ops_cdp.py)
                 "__cudaCDP2GetParameterBufferV2", "cudaGetParameterBufferV2", "__cudaCDP2LaunchDeviceV2",
                 "cudaLaunchDeviceV2", "__cudaCDP2LaunchDeviceV2_ptsz", "cudaLaunchDeviceV2_ptsz",
                 "__cudaCDP2GetLastError", "__cudaCDP2PeekAtLastError", "__cudaCDP2StreamCreateWithFlags",
                 "__cudaCDP2StreamDestroy", "__cudaCDP2EventCreateWithFlags", "__cudaCDP2EventDestroy",
                 "__cudaCDP2EventRecord", "__cudaCDP2EventRecord_ptsz", "__cudaCDP2StreamWaitEvent",
                 "__cudaCDP2StreamWaitEvent_ptsz", "__cudaCDP2Malloc", "__cudaCDP2Free", "__cudaCDP2DeviceGetAttribute",
                 "__cudaCDP2MemcpyAsync", "__cudaCDP2MemcpyAsync_ptsz", "__cudaCDP2MemsetAsync",
                 "__cudaCDP2MemsetAsync_ptsz")
MAX_INLINE_DEPTH = 64
# Each thread's stack for recursive device functions (ptx/ops_stack.py), above its local frame: a
# kernel that does not recurse has none. A call saves every register of the function's copy, not only
# those live across it, so frames are several times a GPU's: this holds what a GPU's stack of some
# 8-16 KiB does (CUDA's default is 1 KiB).
STACK_BYTES = 64 << 10
# Registers of the software GPU's own for that stack (ops_stack.py): its pointer, the base of the
# running activation's frame (an out-of-line copy's frame symbols are addressed from it, so each
# activation's .local data has addresses of its own, as on a GPU) and the frame a call is entering.
SP, FP, NFP = "%rgpu_sp", "%rgpu_fp", "%rgpu_nfp"
# Alignment of every activation's frame on the stack, at least (more if a variable of it asks).
FRAME_ALIGN = 16


def _align(x: int, a: int) -> int:
    return -(-x // max(a, 1)) * max(a, 1)


def entry_param_layout(fn: Function) -> tuple[list[Param], int]:
    """Launch-buffer layout of an ``.entry``'s parameters from its PTX declaration."""
    params = []
    off = 0
    for p in fn.params:
        off = _align(off, p.align)
        params.append(Param(off, p.size, p.align))
        off += p.size
    return params, off


@dataclass
class Program:
    name: str
    code: list[Instruction] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)
    regs: dict[str, tuple[str, int]] = field(default_factory=dict)
    local_syms: dict[str, int] = field(default_factory=dict)  # name -> per-thread local offset
    local_size: int = 0
    # local symbols of recursive functions' out-of-line copies: offsets within an activation's frame,
    # which starts at FP (ops_stack.py)
    frame_syms: set[str] = field(default_factory=set)
    shared_syms: dict[str, int] = field(default_factory=dict)  # name -> per-block shared offset
    static_shared: int = 0
    dynamic_shared_syms: set[str] = field(default_factory=set)
    kparams: dict[str, int] = field(default_factory=dict)  # name -> offset in the param buffer
    param_size: int = 0
    params: list[Param] = field(default_factory=list)
    max_threads: int = 1024

    @property
    def dynamic_shared_offset(self) -> int:
        return _align(self.static_shared, 16)


class _Flattener:
    def __init__(self, mod: Module, kernel: Function):
        self.mod = mod
        self.kernel = kernel
        self.prog = Program(kernel.name)
        self.counter = 0
        self.shared_order: list[Variable] = []
        self.taken: list[str] | None = None  # what a function pointer can hold (emit_indirect)
        self.outlined: dict[str, _Outlined] = {}  # recursive functions' out-of-line copies
        self.pending: list[_Outlined] = []  # ... whose bodies are still to be emitted
        self.current: _Outlined | None = None  # the copy whose body is being emitted
        self.frame_align = FRAME_ALIGN  # the most a variable of that copy's frame asks

    def local_var(self, var: Variable, name: str) -> None:
        p = self.prog
        self.frame_align = max(self.frame_align, var.align)
        off = _align(p.local_size, var.align)
        p.local_syms[name] = off
        p.local_size = off + max(var.size, 1)

    def emit_function(self, fn: Function, suffix: str, symmap: dict[str, str], ret_label: str | None,
                      depth: int, stack: tuple[str, ...]) -> None:
        p = self.prog
        if depth > MAX_INLINE_DEPTH:  # recursion goes out of line (emit_call), so only a very deep chain
            raise SimError("CUDA_ERROR_NOT_SUPPORTED",
                           f"device function {fn.name!r} is called {depth} calls deep, more than the software "
                           f"GPU inlines")
        for r, decl in fn.regs.items():
            p.regs[r + suffix] = decl
        smap = dict(symmap)
        for var in fn.locals:
            if var.space in ("local", "param"):
                self.local_var(var, var.name + suffix)
                smap[var.name] = var.name + suffix
            elif var.space == "shared":
                if var.extern:
                    p.dynamic_shared_syms.add(var.name + suffix)
                else:
                    self.shared_order.append(Variable(var.name + suffix, "shared", var.type, var.size, var.align))
                smap[var.name] = var.name + suffix
            else:
                raise SimError("CUDA_ERROR_NOT_SUPPORTED", f".{var.space} variable inside a function body")

        def ren_op(op: Operand) -> Operand:
            k = op.kind
            if k == "reg":
                if op.value.startswith("%") and (op.value + suffix) in p.regs:
                    return Operand("reg", op.value + suffix, op.neg)
                return op
            if k in ("sym", "addr"):
                v = op.value
                if isinstance(v, str):
                    if k == "sym" and v + suffix in p.regs:
                        # Inline asm may name registers without '%' ('.reg .pred q;').
                        return Operand("reg", v + suffix, op.neg)
                    if v + suffix in p.regs:
                        v = v + suffix
                    elif v.startswith("%"):
                        pass
                    elif v in labels:
                        v = v + suffix
                    else:
                        v = smap.get(v, v)
                return Operand(k, v, op.neg, op.offset, op.flt)
            if k in ("vec", "list"):
                return Operand(k, [ren_op(o) for o in op.value], op.neg, op.offset, op.flt)
            return op

        labels = {s.name for s in fn.body if isinstance(s, Label)}
        for st in fn.body:
            if isinstance(st, Label):
                p.labels[st.name + suffix] = len(p.code)
                continue
            guard = None
            if st.guard:
                g = st.guard[0]
                guard = (g + suffix if g + suffix in p.regs else g, st.guard[1])
            base = st.opcode.split(".")[0]
            if base == "ret" and ret_label is not None:
                p.code.append(Instruction("bra", [Operand("sym", ret_label)], guard, st.line))
                continue
            if base == "call":
                self.emit_call(st, guard, ren_op, depth, stack + (fn.name,))
                continue
            p.code.append(Instruction(st.opcode, [ren_op(o) for o in st.operands], guard, st.line))

    def emit_call(self, st: Instruction, guard, ren_op, depth: int, stack) -> None:
        ops = [ren_op(o) for o in st.operands]
        rets: list[Operand] = []
        if ops and ops[0].kind == "list":
            rets = ops.pop(0).value
        target = ops.pop(0) if ops else None
        args = ops.pop(0).value if ops and ops[0].kind == "list" else []
        if target is not None and target.kind == "reg":
            self.emit_indirect(st, target, rets, args, guard, depth, stack)
            return
        if target is None or target.kind != "sym":
            raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"call form {st.opcode!r} is not supported by the software GPU")
        name = target.value
        if name in BUILTIN_CALLS:
            self.prog.code.append(Instruction("call." + name, [Operand("list", rets), Operand("list", args)],
                                              guard, st.line))
            return
        callee = self.mod.functions.get(name)
        if callee is None or callee.extern:
            raise SimError("CUDA_ERROR_NOT_SUPPORTED",
                           f"call of external function {name!r}, which the software GPU does not provide")
        if name in stack:  # being inlined already: recursion
            self.emit_recursive_call(st, callee, rets, args, guard)
            return
        if guard is not None:
            # A predicated call: branch around the inlined body for lanes whose guard is false.
            skip = f"$Lskip@{self.counter}"
            self.counter += 1
            self.prog.code.append(Instruction("bra", [Operand("sym", skip)], (guard[0], not guard[1]), st.line))
        else:
            skip = None
        self.counter += 1
        suffix = f"@{self.counter}"
        symmap: dict[str, str] = {}
        pre: list[Instruction] = []
        post: list[Instruction] = []
        for formal, actual in zip(callee.params, args):
            if formal.space == "param" and actual.kind in ("sym", "addr"):
                symmap[formal.name] = actual.value
            else:  # .reg parameters: copy in
                t = formal.type if formal.type != "pred" else "pred"
                pre.append(Instruction(f"mov.{t}", [Operand("reg", formal.name + suffix), actual], None, st.line))
        for formal, actual in zip(callee.rets, rets):
            if formal.space == "param" and actual.kind in ("sym", "addr"):
                symmap[formal.name] = actual.value
            else:
                post.append(Instruction(f"mov.{formal.type}", [actual, Operand("reg", formal.name + suffix)],
                                        None, st.line))
        for formal in list(callee.params) + list(callee.rets):
            if formal.space == "reg":
                self.prog.regs[formal.name + suffix] = (formal.type, 1)
        ret_label = f"$Lret{suffix}"
        self.prog.code.extend(pre)
        self.emit_function(callee, suffix, symmap, ret_label, depth + 1, stack)
        self.prog.labels[ret_label] = len(self.prog.code)
        self.prog.code.extend(post)
        if skip:
            self.prog.labels[skip] = len(self.prog.code)

    def emit_indirect(self, st: Instruction, target: Operand, rets, args, guard, depth: int, stack) -> None:
        """A call through a function pointer (virtual functions, tables of functions): the pointer is
        compared with the address of each function it can hold (_address_taken: of the same shape)
        and that function is inlined where it matches; a pointer to none of them traps."""
        p = self.prog
        self.counter += 1
        n = self.counter
        end, pred = f"$Licall_end@{n}", f"%icall@{n}"
        p.regs[pred] = ("pred", 1)
        if guard is not None:
            p.code.append(Instruction("bra", [Operand("sym", end)], (guard[0], not guard[1]), st.line))
        if self.taken is None:
            self.taken = _address_taken(self.mod, self.kernel)
        for k, name in enumerate(self.taken):
            fn = self.mod.functions[name]
            if len(fn.params) != len(args) or len(fn.rets) != len(rets):
                continue
            other = f"$Licall{k}@{n}"
            p.code.append(Instruction("setp.ne.u64", [Operand("reg", pred), target, Operand("sym", name)], None,
                                      st.line))
            p.code.append(Instruction("bra", [Operand("sym", other)], (pred, False), st.line))
            call = Instruction("call", [Operand("list", rets), Operand("sym", name), Operand("list", args)], None,
                               st.line)
            self.emit_call(call, None, lambda o: o, depth, stack)
            p.code.append(Instruction("bra", [Operand("sym", end)], None, st.line))
            p.labels[other] = len(p.code)
        p.code.append(Instruction("trap", [target], None, st.line))  # a pointer to none of them: ops_ctrl
        p.labels[end] = len(p.code)

    def emit_recursive_call(self, st: Instruction, callee: Function, rets, args, guard) -> None:
        """A call of a function from inside itself: to its out-of-line copy (emitted at the end,
        emit_outlined), through the thread's stack (ops_stack.py). Every call gives the callee a
        frame of its own on the stack (rgpu.enter), so a pointer into a caller's .local data stays
        valid and what the callee stores through it stays stored; a call made inside an out-of-line
        copy saves that copy's registers first, since the callee may be it. The results come back
        through a slot of their own, outside every frame."""
        if any(f.space != "param" for f in list(callee.params) + list(callee.rets)):
            raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"recursive device function {callee.name!r} takes "
                                                       f"register parameters, which the software GPU does not run")
        out = self.outlined.get(callee.name)
        if out is None:
            out = self.outlined[callee.name] = _Outlined(callee.name, f"@rec{len(self.outlined)}")
            self.pending.append(out)
        p = self.prog
        self.counter += 1
        n = self.counter
        back, skip = f"$Lrec_back@{n}", f"$Lrec_skip@{n}"
        site = len(out.sites)
        out.sites.append(back)
        if guard is not None:
            p.code.append(Instruction("bra", [Operand("sym", skip)], (guard[0], not guard[1]), st.line))
        saved = self.current
        if saved is not None:
            p.code.append(Instruction("rgpu.push", [Operand("imm", saved.frame)], None, st.line))
        p.code.append(Instruction("rgpu.enter", [Operand("imm", out.frame)], None, st.line))
        for formal, actual in zip(callee.params, args):  # into the callee's new frame (from NFP)
            p.code.append(Instruction("rgpu.lcopy", [Operand("sym", formal.name + out.suffix), actual,
                                                     Operand("imm", formal.size), Operand("imm", NFP)],
                                      None, st.line))
        p.code.append(Instruction("rgpu.pushret", [Operand("imm", site), Operand("imm", out.frame)], None, st.line))
        p.code.append(Instruction("mov.u64", [Operand("reg", FP), Operand("reg", NFP)], None, st.line))
        p.code.append(Instruction("bra", [Operand("sym", out.entry)], None, st.line))
        p.labels[back] = len(p.code)
        for formal in callee.rets:  # FP is still the callee's
            p.code.append(Instruction("rgpu.lcopy", [Operand("sym", out.result(formal)),
                                                     Operand("sym", formal.name + out.suffix),
                                                     Operand("imm", formal.size)], None, st.line))
        p.code.append(Instruction("rgpu.leave", [Operand("imm", out.frame)], None, st.line))
        if saved is not None:
            p.code.append(Instruction("rgpu.pop", [Operand("imm", saved.frame)], None, st.line))
        for formal, actual in zip(callee.rets, rets):
            p.code.append(Instruction("rgpu.lcopy", [actual, Operand("sym", out.result(formal)),
                                                     Operand("imm", formal.size)], None, st.line))
        p.labels[skip] = len(p.code)

    def emit_outlined(self) -> None:
        """The out-of-line copies of recursive functions, after the kernel's code; then their
        returns, which dispatch on the call site popped from the stack (every site known by then);
        then the result slots and the stack. A copy's local symbols (its parameters, its depot, those
        of what it inlines) are laid out as a frame of their own, from offset 0, and addressed from
        FP: each activation's frame is that layout placed on the stack (ops_stack.py), none of it in
        the kernel's own local memory."""
        p = self.prog
        while self.pending:
            out = self.pending.pop(0)
            fn = self.mod.functions[out.name]
            p.labels[out.entry] = len(p.code)
            before, syms, outer = set(p.regs), set(p.local_syms), p.local_size
            p.local_size, self.frame_align = 0, FRAME_ALIGN
            symmap = {}
            for formal in list(fn.params) + list(fn.rets):
                self.local_var(formal, formal.name + out.suffix)
                symmap[formal.name] = formal.name + out.suffix
            self.current = out
            self.emit_function(fn, out.suffix, symmap, out.ret_label, 1, ())
            self.current = None
            out.frame["regs"] = [r for r in p.regs if r not in before]
            out.frame["lo"], out.frame["hi"], out.frame["align"] = 0, p.local_size, self.frame_align
            p.frame_syms.update(name for name in p.local_syms if name not in syms)
            p.local_size = outer
        if not self.outlined:
            return
        for out in self.outlined.values():
            p.labels[out.ret_label] = len(p.code)
            rid, pred = f"%rec_site{out.suffix}", f"%rec_is{out.suffix}"
            p.regs[rid], p.regs[pred] = ("u32", 1), ("pred", 1)
            p.code.append(Instruction("rgpu.popret", [Operand("imm", rid), Operand("imm", out.frame)], None, 0))
            for k, site in enumerate(out.sites):
                p.code.append(Instruction("setp.eq.u32", [Operand("reg", pred), Operand("reg", rid), Operand("imm", k)],
                                          None, 0))
                p.code.append(Instruction("bra", [Operand("sym", site)], (pred, False), 0))
            p.code.append(Instruction("trap", [], None, 0))  # a call site no call pushed: never
        for out in self.outlined.values():
            for name, formal in out.results.items():
                self.local_var(formal, name)
        for r in (SP, FP, NFP):
            p.regs[r] = ("u64", 1)
        base = _align(p.local_size, FRAME_ALIGN)
        p.local_size = base + STACK_BYTES
        for out in self.outlined.values():
            out.frame["base"], out.frame["limit"] = base, base + STACK_BYTES

    def finish(self, kernel: Function) -> Program:
        p = self.prog
        params, size = entry_param_layout(kernel)
        p.params, p.param_size = params, size
        for var, prm in zip(kernel.params, params):
            p.kparams[var.name] = prm.offset
        # Module-level shared variables: only those the kernel's code names count toward its size.
        used = set()
        for ins in p.code:
            for op in ins.operands:
                _collect_syms(op, used)
        off = 0
        for var in list(self.mod.variables.values()) + self.shared_order:
            if var.space != "shared":
                continue
            if var.extern and var.size == 0:
                if var.name in used:
                    p.dynamic_shared_syms.add(var.name)
                continue
            if var in self.shared_order or var.name in used:
                off = _align(off, var.align)
                p.shared_syms[var.name] = off
                off += var.size
        p.static_shared = off
        p.local_size = _align(p.local_size, 16)
        for d in (".maxntid", ".reqntid"):
            if kernel.directives.get(d):
                n = 1
                for v in kernel.directives[d]:
                    n *= v
                p.max_threads = min(p.max_threads, n)
        return p


class _Outlined:
    """A recursive function's out-of-line copy: where it starts and returns, its call sites, the
    frame its activations save (ops_stack.py: filled in once its body is emitted) and its results'
    slots."""

    def __init__(self, name: str, suffix: str):
        self.name, self.suffix = name, suffix
        self.entry, self.ret_label = f"$Lrec_entry{suffix}", f"$Lrec_ret{suffix}"
        self.sites: list[str] = []
        self.frame: dict = {"regs": [], "lo": 0, "hi": 0, "align": FRAME_ALIGN, "base": 0, "limit": 0}
        self.results: dict[str, Variable] = {}

    def result(self, formal: Variable) -> str:
        name = f"{formal.name}$result{self.suffix}"
        self.results[name] = formal
        return name


def _collect_syms(op: Operand, out: set) -> None:
    if op.kind in ("sym", "addr") and isinstance(op.value, str):
        out.add(op.value)
    elif op.kind in ("vec", "list"):
        for o in op.value:
            _collect_syms(o, out)


def _address_taken(mod: Module, kernel: Function) -> list[str]:
    """The device functions whose addresses the kernel can come by: named by the module's variables
    (vtables, tables of functions) or by an instruction of the kernel or of any function it reaches
    (``mov.u64 %rd, f``), in module order."""
    funcs = mod.functions
    header = getattr(funcs, "header", funcs.__getitem__)

    def device_function(name) -> bool:
        if not isinstance(name, str) or name not in funcs:
            return False
        h = header(name)
        return not h.entry and not h.extern

    taken = {sym for var in mod.variables.values() for _off, sym, _add in var.relocs if device_function(sym)}
    seen, work = set(), [kernel] + [funcs[n] for n in taken]
    while work:
        fn = work.pop()
        if fn.name in seen:
            continue
        seen.add(fn.name)
        for ins in fn.body:
            if isinstance(ins, Label):
                continue
            names: set = set()
            for op in ins.operands:
                _collect_syms(op, names)
            if ins.opcode.split(".")[0] == "call":
                target = next((o for o in ins.operands if o.kind != "list"), None)
                if target is not None and target.kind == "sym" and device_function(target.value):
                    work.append(funcs[target.value])  # called: reached, its address not taken
                    names.discard(target.value)
            for name in names:
                if device_function(name) and name not in taken:
                    taken.add(name)
                    work.append(funcs[name])
    return [n for n in funcs if n in taken]


def flatten(mod: Module, kernel_name: str) -> Program:
    kernel = mod.functions[kernel_name]
    fl = _Flattener(mod, kernel)
    fl.emit_function(kernel, "", {}, None, 0, ())
    fl.emit_outlined()
    return fl.finish(kernel)
