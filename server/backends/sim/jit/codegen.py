"""A flattened kernel (ptx/program.py) as an LLVM IR module: ``rgpu_run(ctx)`` runs blocks until the
launch's block counter passes its end (see jit/__init__.py for the scheme).

Functions written here:
  * ``phase(ctx, rf, t, resume, blk, cx, cy, cz, acc)``: thread t of block blk (its %ctaid cx, cy,
    cz) from sync point `resume` (0: the kernel's start) to the next sync point (its id), its exit
    (EXIT) or a fault (FAULT), adding the instructions it ran to acc[0] and counting back edges
    down in acc[1] (the block loop's own memory). PTX registers are allocas (LLVM promotes them
    to SSA values); those live at a sync point are saved to the thread's slots of the register
    file `rf` there and loaded back on resume.
  * ``coll(ctx, rf, k, w0, mask)``: the warp-collective instruction of sync point k for the lanes
    of the warp starting at thread w0 that wait there (`mask`), on their saved registers.
  * ``rgpu_run(ctx)``: the block loop and, per block, the rounds of phases and sync points.
"""
from __future__ import annotations

from ..ptx.interp import LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW
from ..ptx.program import FP, Program
from ..ptx.types import types_in
from . import liveness, ops
from .check import float_atomic, host_call, volatile_access, volatile_load
from .prelude import (ABANDONED, ARENA, BASE, FAULT, FCODE, KPARAM, LOCAL, LSTRIDE, NCX, NCY, NCZ, NTX, NTY,
                      NTZ, SHARED, TIDS, FADDR, FWIDTH, KPLEN, LLIMIT, SLIMIT, SLOTS,
                      TICK_EDGES, prelude)
from .values import Body, Unsupported, bits_of, imm_bits, ity, lty

WINDOWS = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW, "param": PARAM_WINDOW}
BARRIER, COLLECTIVE, WAIT, BLOCK_REDUCE = 0, 1, 2, 3
WEIGHTS = ('!0 = !{!"branch_weights", i32 1, i32 1048576}\n!1 = !{!"branch_weights", i32 1048576, i32 1}\n'
           '!2 = !{}\n')
INVARIANT = ", !invariant.load !2"


def sync_kind(ins) -> int | None:
    parts = ins.opcode.split(".")
    if parts[0] in ("bar", "barrier"):
        return COLLECTIVE if "warp" in parts else BLOCK_REDUCE if "red" in parts else BARRIER
    if parts[0] in ("shfl", "vote", "activemask", "redux", "match"):
        return COLLECTIVE
    return None


def kernel_sync_kinds(prog: Program) -> dict[int, int]:
    """Each sync point's kind by PC. In a kernel that loads volatile memory, every volatile load and
    store is a WAIT point: the thread stops *before* it, and the access runs when the lanes waiting
    there resume, lowest PC first as for a collective. A phase then holds at most one such access,
    so all the lanes at one run the access before any goes on: warp-synchronous code (a scan over
    volatile shared memory, lanes trusting lockstep) sees what min-PC scheduling gives it, and a
    thread spinning on a flag goes back to the block loop every turn, where other warps run and the
    blocks on other workers' threads make progress. A float atomic is a WAIT point in any kernel:
    the lanes at one add lane after lane, the order the interpreter sums them in (their rounding
    depends on it), where a thread at a time would add its next ones first. So is a printf or an
    assert: the lanes of a block at one print in lane order, as the interpreter's and a warp's do."""
    kinds = {}
    waits = any(volatile_load(ins) for ins in prog.code)
    for pc, ins in enumerate(prog.code):
        k = sync_kind(ins)
        if k is None and (float_atomic(ins) or host_call(ins) or waits and volatile_access(ins)):
            k = WAIT
        if k is not None:
            kinds[pc] = k
    return kinds


class Kernel:
    """The IR of one kernel and what the runner needs to know of it."""

    def __init__(self, prog: Program, symbols: dict[str, int]):
        self.prog = prog
        self.symbols = symbols
        self.regs = prog.regs
        self.index = {name: k for k, name in enumerate(self.regs)}
        self.slots = 0  # global-access cache slots (prelude.gaddr), one per instruction
        # a backward branch (or a recursive function's return) lets a thread wait for another
        # block (runner._chunk); set by back_edge
        self.loops = any(i.opcode.split(".")[0] == "rgpu" for i in prog.code)
        self.decls: set[str] = set()  # declarations of the intrinsics an emitter used beyond prelude's
        self.kinds = kernel_sync_kinds(prog)
        self.sync_pcs = sorted(self.kinds)
        self.sync_id = {pc: k + 1 for k, pc in enumerate(self.sync_pcs)}
        waits = {pc for pc, k in self.kinds.items() if k == WAIT}
        live_in, live_out, names = liveness.live_sets(prog)
        keep = 0
        for pc in self.sync_pcs:
            keep |= live_in[pc] | live_out[pc]
        self.live_in, self.live_out, self.names = live_in, live_out, names
        self.dirty = liveness.written_since_stop(prog, names, set(self.sync_pcs), waits)
        self.rf_off = {name: 8 * k for k, name in enumerate(liveness.members(keep, names))}
        self.rf_size = 8 * len(self.rf_off)
        self.lazy_nan = lazy_nan_registers(prog)
        # the kernel's parameters cannot change under it unless it writes through a generic
        # address (which may land in the parameter window, as the interpreter allows)
        self.params_fixed = not any(
            ins.opcode.split(".")[0] in ("st", "atom", "red")
            and (ops.space_of(ins.opcode.split(".")) in ("generic", "param")
                 or any(o.kind in ("sym", "addr") and o.value in prog.kparams for o in ins.operands))
            for ins in prog.code)

    # -- symbols (interp.Compiler.sym) --------------------------------------------------------------
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
        raise Unsupported(f"symbol {name!r}")

    def generic(self, name: str) -> int:
        space, v = self.sym(name)
        return {"global": 0, "shared": SHARED_WINDOW, "local": LOCAL_WINDOW, "param": PARAM_WINDOW}[space] + v

    # -- operands in the phase function --------------------------------------------------------
    def reg(self, name: str) -> str:
        return f"%R{self.index[name]}"

    def get(self, b: Body, o, t: str, raw: bool = False) -> str:
        """Operand `o` read as PTX type t (an LLVM value of lty(t)). A register of lazy_nan (its
        f32 NaNs left as the host made them) is made canonical here unless `raw`: the reader is
        f32 arithmetic, a comparison or a conversion that cannot tell one NaN from another."""
        w = bits_of(t)
        if o.kind == "reg":
            name = o.value
            if name in self.regs:
                src = bits_of(self.regs[name][0])
                v = b(f"load i{src}, ptr {self.reg(name)}, align 8")
                if name in self.lazy_nan and not raw:
                    v = canonical_bits(b, v)
            elif name in self.specials:
                src, v = 32, self.specials[name]
            else:
                raise Unsupported(f"special register {name}")
            v = b.resize(v, src, w)
            if o.neg:
                v = b(f"xor i{w} {v}, -1")
            return b.to_float(v, t)
        if o.kind == "imm":
            return b.const(imm_bits(o, t), t)
        if o.kind == "sym":
            _space, v = self.sym(o.value)
            if o.value in self.prog.frame_syms:
                return b.resize(self.from_fp(b, v + o.offset), 64, w)
            return b.const(v + o.offset, t)
        raise Unsupported(f"operand {o.kind} as .{t}")

    def from_fp(self, b: Body, offset: int) -> str:
        """FP + offset (i64): where a recursive activation's own .local symbol lies (its frame's
        symbols are addressed from the frame pointer, ptx/ops_stack.py; jit/stack.py)."""
        return b(f"add i64 {self.get(b, ops.reg_op(FP), 'u64')}, {_signed64(offset & ((1 << 64) - 1))}")

    def set(self, b: Body, o, t: str, v: str) -> None:
        """Write value v of PTX type t to register operand o (sink: nothing)."""
        if o.kind == "sink":
            return
        if o.kind != "reg" or o.value not in self.regs:
            raise Unsupported(f"destination {o.value!r}")
        dt = self.regs[o.value][0]
        dw = bits_of(dt)
        v = b.to_int(v, t)
        v = b.resize(v, bits_of(t), dw, signed=t[0] == "s")
        b.do(f"store i{dw} {v}, ptr {self.reg(o.value)}, align 8")

    def address(self, b: Body, o, space: str) -> tuple[str, str]:
        """(i64 address, space) of an address operand, as ops_mem.addr_getter reads it."""
        if o.kind == "sym":
            base, off = o.value, o.offset
        elif o.kind == "reg":
            base, off = o.value, 0
        elif o.kind == "addr":
            base, off = o.value, o.offset
        else:
            raise Unsupported(f"address operand {o.kind}")
        off &= (1 << 64) - 1
        if base is None:
            return str(_signed64(off)), space
        if base in self.regs or base in self.specials:
            a = self.get(b, ops.reg_op(base), "u64")
            if off:
                if base in self.regs and bits_of(self.regs[base][0]) == 32:
                    # a 32-bit address adds its offset in 32 bits, as the GPU does (ops_mem.py)
                    a = b(f"add i64 {a}, {off & 0xFFFFFFFF}")
                    a = b(f"and i64 {a}, 4294967295")
                else:
                    a = b(f"add i64 {a}, {_signed64(off)}")
            return a, space
        sym_space, v = self.sym(base)
        if base in self.prog.frame_syms:
            a = self.from_fp(b, (self.generic(base) if space == "generic" else v) + off)
            return a, (space if space == "generic" else sym_space)
        if space == "generic":
            return str(_signed64((self.generic(base) + off) & ((1 << 64) - 1))), "generic"
        if sym_space == "global":
            sym_space = space if space in ("global", "const") else "global"
        return str(_signed64((v + off) & ((1 << 64) - 1))), sym_space

    def pointer(self, b: Body, a: str, space: str, width: int) -> str:
        """A checked pointer to `width` bytes at address a of `space`; branches to the fault exit.
        Window checks are written inline (the shared, local and parameter windows, and a global
        access whose allocation the instruction's slot remembers) so that the pointer on the fast
        path is known not to be null; only the slow paths go through the prelude's helpers."""
        if width & (width - 1):  # the one-compare checks below rotate by log2(width)
            raise Unsupported(f"an access of {width} bytes")
        if space in ("global", "const"):
            slot = self.slots
            self.slots += 1
            # the slot holds (lo, lim) of the allocation this instruction last hit (prelude.g_slow):
            # inside and aligned is one rotate and one compare
            lo = b(f"load i64, ptr {b(f'getelementptr i64, ptr %ctx, i64 {SLOTS + 2 * slot}')}, align 8")
            lim = b(f"load i64, ptr {b(f'getelementptr i64, ptr %ctx, i64 {SLOTS + 2 * slot + 1}')}, align 8")
            d = b(f"sub i64 {a}, {lo}")
            if width > 1:
                d = b(f"call i64 @llvm.fshr.i64(i64 {d}, i64 {d}, i64 {width.bit_length() - 1})")
            ok = b(f"icmp ult i64 {d}, {lim}")
            n = b.n
            b.do(f"br i1 {ok}, label %gf{n}, label %gs{n}, !prof !1")
            b.label(f"gf{n}")
            fast = b(f"getelementptr i8, ptr %gbase, i64 {a}")
            b.do(f"br label %gj{n}")
            b.label(f"gs{n}")
            slow = b(f"call ptr @g_slow(ptr %ctx, i64 {a}, i64 {width}, i64 {slot})")
            b.do(f"br i1 {b(f'icmp eq ptr {slow}, null')}, label %fault, label %gj{n}, !prof !0")
            b.label(f"gj{n}")
            return b(f"phi ptr [{fast}, %gf{n}], [{slow}, %gs{n}]")
        if space == "generic":
            p = b(f"call ptr @genaddr(ptr %ctx, ptr %frame, i64 {a}, i64 {width}, i64 {self.slots})")
            self.slots += 1
            ok = f"%ok{b.n}"
            b.do(f"br i1 {b(f'icmp eq ptr {p}, null')}, label %fault, label {ok}, !prof !0")
            b.label(ok[1:])
            return p
        windows = {"shared": ("%slimit", "%shared", 3), "local": ("%llimit", "%frame", 5),
                   "param": ("%kplen", "%kparam", 7)}
        if space not in windows:
            raise Unsupported(f"state space {space}")
        limit, base, code = windows[space]
        # inside and aligned in one compare: rotr(a, log2 w) <u (limit - w) / w + 1 (0 when the
        # window is smaller than w; the limit is the phase's, so LLVM hoists this out of loops);
        # the cold path tells which fault, in the interpreter's order
        lg = width.bit_length() - 1
        room = b(f"sub i64 {limit}, {width}")
        units = b(f"add i64 {b(f'lshr i64 {room}, {lg}')}, 1")
        lim = b(f"select i1 {b(f'icmp uge i64 {limit}, {width}')}, i64 {units}, i64 0")
        r = b(f"call i64 @llvm.fshr.i64(i64 {a}, i64 {a}, i64 {lg})") if lg else a
        n = b.n
        b.do(f"br i1 {b(f'icmp ult i64 {r}, {lim}')}, label %wa{n}, label %wc{n}, !prof !1")
        b.label(f"wc{n}")
        end = b(f"add i64 {a}, {width}")
        bad = b(f"or i1 {b(f'icmp ugt i64 {end}, {limit}')}, {b(f'icmp ult i64 {end}, {a}')}")
        b.do(f"br i1 {bad}, label %wo{n}, label %wi{n}")
        b.label(f"wo{n}")
        self._fault(b, code, a, width)
        b.label(f"wi{n}")
        self._fault(b, code + 1, a, width)  # inside yet refused: misaligned
        b.label(f"wa{n}")
        return b(f"getelementptr i8, ptr {base}, i64 {a}")

    def _fault(self, b: Body, code: int, a: str, width: int) -> None:
        for slot, v in ((FCODE, code), (FADDR, a), (FWIDTH, width)):
            b.do(f"store i64 {v}, ptr {b(f'getelementptr i64, ptr %ctx, i64 {slot}')}, align 8")
        b.do("br label %fault")

    # -- the phase function --------------------------------------------------------------------
    def phase(self) -> str:
        b = Body()
        code = self.prog.code
        b.label("entry")
        for name, k in self.index.items():
            b.do(f"%R{k} = alloca {ity(self.regs[name][0])}, align 8")
        b.do("%acc.tk = getelementptr i64, ptr %acc, i64 1")
        b.do("%cnt = alloca i64, align 8")
        b.do("store i64 0, ptr %cnt, align 8")
        b.do("%rv = alloca i32, align 4")
        b.do("%tk = alloca i64, align 8")
        b.do("%CC = alloca i1, align 1")  # the carry of add.cc and friends (ops._carry)
        b.do("store i1 false, ptr %CC, align 1")
        # the launch's counts live in the block loop's own memory (%acc: instructions, back edges
        # left before the clock's next call), not the context: the calls on slow paths may write
        # the context, so LLVM could not keep them in registers across threads there
        tk0 = b("load i64, ptr %acc.tk, align 8")
        b.do(f"store i64 {tk0}, ptr %tk, align 8")
        self._specials(b)
        b.do("switch i32 %resume, label %start [" + " ".join(
            f"i32 {self.sync_id[pc]}, label %resume{self.sync_id[pc]}" for pc in self.sync_pcs) + "]")
        b.label("start")
        for name in self.regs:
            b.do(f"store {ity(self.regs[name][0])} {'false' if self.regs[name][0] == 'pred' else 0}, "
                 f"ptr {self.reg(name)}, align 8")
        b.do("br label %I0")
        for pc in self.sync_pcs:
            b.label(f"resume{self.sync_id[pc]}")
            if self.kinds[pc] == WAIT:  # the access itself runs now
                self._rf_move(b, self.live_in[pc], load=True)
                b.do(f"br label %X{pc}")
                continue
            self._rf_move(b, self.live_out[pc], load=True)
            b.do(f"br label %I{pc + 1}")
        for pc, ins in enumerate(code):
            b.label(f"I{pc}")
            c = b("load i64, ptr %cnt, align 8")
            c = b(f"add i64 {c}, 1")
            b.do(f"store i64 {c}, ptr %cnt, align 8")
            if ins.guard is not None:
                g = self.get(b, ops.reg_op(ins.guard[0]), "pred")
                if ins.guard[1]:
                    g = b(f"xor i1 {g}, true")
                b.do(f"br i1 {g}, label %G{pc}, label %I{pc + 1}")
                b.label(f"G{pc}")
            kind = self.kinds.get(pc)
            if kind is not None:
                self._rf_move(b, self.live_in[pc] & self.dirty[pc], load=False)
                b.do(f"store i32 {self.sync_id[pc]}, ptr %rv, align 4")
                b.do("br label %out")
                if kind != WAIT:
                    continue
                b.label(f"X{pc}")  # where the thread resumes (its guard held when it stopped)
            ops.emit(self, b, pc, ins)
            if not b.lines[-1].lstrip().startswith(("br ", "ret ")):
                b.do(f"br label %I{pc + 1}")
        b.label(f"I{len(code)}")
        b.do(f"store i64 11, ptr {_ctx_slot(b, FCODE)}, align 8")
        b.do("br label %fault")
        b.label("abandon")
        b.do(f"store i32 {ABANDONED}, ptr %rv, align 4")
        b.do("br label %out")
        b.label("fault")
        b.do(f"store i32 {FAULT}, ptr %rv, align 4")
        b.do("br label %out")
        b.label("out")
        c = b("load i64, ptr %cnt, align 8")
        e = b("load i64, ptr %acc, align 8")
        b.do(f"store i64 {b(f'add i64 {e}, {c}')}, ptr %acc, align 8")
        tk = b("load i64, ptr %tk, align 8")
        b.do(f"store i64 {tk}, ptr %acc.tk, align 8")
        r = b("load i32, ptr %rv, align 4")
        b.do(f"ret i32 {r}")
        return ("define internal i32 @phase(ptr noalias %ctx, ptr noalias %rf, i64 %t, i32 %resume, i64 %blk, "
                "i64 %cx, i64 %cy, i64 %cz, ptr noalias %acc) {\n"
                + "\n".join(b.lines) + "\n}\n")

    def back_edge(self, b: Body) -> None:
        """Count a backward branch; every TICK_EDGES of them the launch's clock is asked whether to
        go on (time slices: it may block, or abandon the kernel)."""
        self.loops = True
        k = b("load i64, ptr %tk, align 8")
        k = b(f"sub i64 {k}, 1")
        b.do(f"store i64 {k}, ptr %tk, align 8")
        z = b(f"icmp sle i64 {k}, 0")
        go, tick = f"%edge{b.n}", f"%tick{b.n}"
        b.do(f"br i1 {z}, label {tick}, label {go}")
        b.label(tick[1:])
        b.do(f"store i64 {TICK_EDGES}, ptr %tk, align 8")
        r = b("call i32 @tick(ptr %ctx)")
        stop = b(f"icmp ne i32 {r}, 0")
        b.do(f"br i1 {stop}, label %abandon, label {go}")
        b.label(go[1:])

    def _specials(self, b: Body) -> None:
        # %tid comes from the launch's table (thread -> x, y, z: no division per thread), %ctaid
        # from the context, where the block loop puts it once per block
        sp: dict[str, str] = {}
        t32 = b("trunc i64 %t to i32")
        tids = _load_ctx(b, TIDS, "ptr", True)
        base = b("mul i64 %t, 4")
        for k, c in enumerate("xyz"):
            sp[f"%ntid.{c}"] = b(f"trunc i64 {_load_ctx(b, (NTX, NTY, NTZ)[k], invariant=True)} to i32")
            sp[f"%nctaid.{c}"] = b(f"trunc i64 {_load_ctx(b, (NCX, NCY, NCZ)[k], invariant=True)} to i32")
            sp[f"%ctaid.{c}"] = b(f"trunc i64 %c{c} to i32")
            p = b(f"getelementptr i32, ptr {tids}, i64 {b(f'add i64 {base}, {k}')}")
            sp[f"%tid.{c}"] = b(f"load i32, ptr {p}, align 4{INVARIANT}")
        lane = b(f"and i32 {t32}, 31")
        sp["%laneid"] = lane
        sp["%warpid"] = b(f"lshr i32 {t32}, 5")
        l64 = b(f"zext i32 {lane} to i64")
        eq = b(f"shl i64 1, {l64}")
        lt = b(f"sub i64 {eq}, 1")
        le = b(f"sub i64 {b(f'shl i64 {eq}, 1')}, 1")
        for name, v in (("eq", eq), ("lt", lt), ("le", le), ("gt", b(f"xor i64 {le}, -1")),
                        ("ge", b(f"xor i64 {lt}, -1"))):
            sp[f"%lanemask_{name}"] = b(f"trunc i64 {v} to i32")
        self.specials = sp
        ls = _load_ctx(b, LSTRIDE, invariant=True)
        fo = b(f"mul i64 %t, {ls}")
        b.do(f"%frame = getelementptr i8, ptr {_load_ctx(b, LOCAL, 'ptr', True)}, i64 {fo}")
        # dereferenceable: the parameters' loads may be hoisted out of a branch (the launch's buffer
        # holds at least the declared parameters, runner.run), so out of the block's thread loop
        b.do(f"%kparam = load ptr, ptr {_ctx_slot(b, KPARAM)}, align 8{INVARIANT}, !dereferenceable !3")
        b.do(f"%shared = load ptr, ptr {_ctx_slot(b, SHARED)}, align 8{INVARIANT}")
        b.do(f"%arena = load ptr, ptr {_ctx_slot(b, ARENA)}, align 8{INVARIANT}")
        b.do(f"%membase = load i64, ptr {_ctx_slot(b, BASE)}, align 8{INVARIANT}")
        # device address a is at gbase + a: one add on a global access's fast path, not two
        b.do(f"%gbase = getelementptr i8, ptr %arena, i64 {b('sub i64 0, %membase')}")
        b.do(f"%slimit = load i64, ptr {_ctx_slot(b, SLIMIT)}, align 8{INVARIANT}")
        b.do(f"%llimit = load i64, ptr {_ctx_slot(b, LLIMIT)}, align 8{INVARIANT}")
        b.do(f"%kplen = load i64, ptr {_ctx_slot(b, KPLEN)}, align 8{INVARIANT}")

    def _rf_move(self, b: Body, bits: int, load: bool) -> None:
        for name in liveness.members(bits, self.names):
            off = self.rf_off.get(name)
            if off is None:
                continue
            ty = ity(self.regs[name][0])
            mty = "i8" if ty == "i1" else ty
            p = b(f"getelementptr i8, ptr %rf, i64 {off}")
            if load:
                v = b(f"load {mty}, ptr {p}, align 8")
                if ty == "i1":
                    v = b(f"trunc i8 {v} to i1")
                b.do(f"store {ty} {v}, ptr {self.reg(name)}, align 8")
            else:
                v = b(f"load {ty}, ptr {self.reg(name)}, align 8")
                if name in self.lazy_nan:  # collectives read the file: its values are canonical
                    v = canonical_bits(b, v)
                if ty == "i1":
                    v = b(f"zext i1 {v} to i8")
                b.do(f"store {mty} {v}, ptr {p}, align 8")

    # -- the module ----------------------------------------------------------------------------
    def module(self) -> str:
        from . import driver
        phase = self.phase()
        colls = driver.collectives(self)
        return (prelude() + "".join(sorted(self.decls)) + phase + colls + driver.run_function(self) + WEIGHTS
                + f"!3 = !{{i64 {max(self.prog.param_size, 1)}}}\n")


def _ctx_slot(b: Body, slot: int) -> str:
    return b(f"getelementptr i64, ptr %ctx, i64 {slot}")


def _load_ctx(b: Body, slot: int, ty: str = "i64", invariant: bool = False) -> str:
    """A context slot; `invariant`: one the launch fills in before it starts and never changes
    (LLVM may then hoist it out of the thread and block loops, past the calls that write others)."""
    return b(f"load {ty}, ptr {_ctx_slot(b, slot)}, align 8{INVARIANT if invariant else ''}")


def _signed64(x: int) -> int:
    x &= (1 << 64) - 1
    return x - (1 << 64) if x >= 1 << 63 else x


def types_of(ins) -> list[str]:
    return types_in(ins.opcode.split("."))


# f32 arithmetic whose NaN results the interpreter makes canonical (ops._float_op with canon)
LAZY_OPS = frozenset({"add", "sub", "mul", "div", "fma", "mad", "min", "max", "sqrt", "rcp", "rsqrt"})


def lazy_nan_registers(prog: Program) -> frozenset:
    """32-bit registers written only by f32 arithmetic. Their values are NaN-canonical in the
    interpreter at every write; here the canonicalisation is left to the readers that could see
    it (ops._float_op writes them raw, Kernel.get and the register file make them canonical), so
    a chain of float operations (a dot product's fma after fma) does not wait on a compare and a
    select per step: NaN or not is the same whatever the payload, and every other reader gets the
    canonical bits the interpreter holds."""
    writers: dict[str, bool] = {}
    for ins in prog.code:
        parts = ins.opcode.split(".")
        for o in _written(ins):
            ok = parts[0] in LAZY_OPS and types_in(parts)[-1:] == ["f32"] and len(ins.operands) <= 4
            writers[o] = writers.get(o, True) and ok
    return frozenset(r for r, ok in writers.items() if ok and r in prog.regs and prog.regs[r][0] in ("f32", "b32", "u32", "s32"))


def _written(ins) -> list[str]:
    """Registers an instruction may write: its first operand (and a vector's or pair's members)."""
    parts = ins.opcode.split(".")
    if parts[0] in ("st", "red", "bra", "ret", "exit", "bar", "barrier", "membar", "fence", "trap") or not ins.operands:
        return []
    d = ins.operands[0]
    if d.kind == "reg":
        return [d.value]
    if d.kind == "vec":
        return [o.value for o in d.value if getattr(o, "kind", None) == "reg"]
    return []


def canonical_bits(b: Body, v: str) -> str:
    """32 bits holding an f32: a NaN as the GPU's 0x7fffffff."""
    # asked as a float compare (x86: one compare into a mask, where the bit test took five); the
    # fence as in ops._canon: without it LLVM folds the test into a square root's own and drops it
    f = b(f"call float @llvm.arithmetic.fence.f32(float {b(f'bitcast i32 {v} to float')})")
    nan = b(f"fcmp uno float {f}, 0.0")
    return b(f"select i1 {nan}, i32 2147483647, i32 {v}")


__all__ = ["Kernel", "Unsupported", "kernel_sync_kinds", "sync_kind", "lty"]
