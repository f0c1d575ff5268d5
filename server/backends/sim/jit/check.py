"""The PTX the compiler covers: a kernel with any instruction outside it runs in the interpreter.

Forms are listed by opcode base with the modifiers each emitter implements (types are checked by
the emitters themselves: packed and 128-bit values are refused; f16 and bf16 as bits, in
.b16, .f16 or .bf16 registers, moved, loaded, stored and converted; f16, f16x2, bf16 and bf16x2
add, sub, mul and fma at .rn, min and max (.NaN; f16's .ftz); abs and neg of all four 16-bit kinds; setp
and set of f16 and bf16; f16x2 as cvt's destination). dp4a and dp2a; prefetch and nanosleep, which
change only timing, compile to nothing.
The .approx transcendentals of f32 (sin, cos, lg2, ex2, tanh) are compiled from ptx/approx.py,
the interpreter's own definition; carry chains (add.cc, addc, mad.cc, madc, ...) in kernels with
no sync point (the carry is not saved at one); redux.sync of 32-bit integers and match.sync are
warp-collective sync points like shfl and vote. Volatile, relaxed and acquire loads (and, in a kernel with any,
volatile stores) are sync points too (codegen.kernel_sync_kinds): lanes reach them in lockstep, as
warp-synchronous code and spins on flags need. bar.red (popc, and, or: __syncthreads_count/_and/_or)
is a block-wide one (driver._block_reductions).
f64 in the directed modes (.rz/.rm/.rp) is IEEE's result, which the interpreter computes over
exact rationals and the compiled code with AVX-512's per-instruction rounding (on hosts without
AVX-512 the emitter refuses it and the kernel stays interpreted).
Recursive device functions are compiled with their stack (jit/stack.py), in kernels without sync
points. printf and assert (vprintf, __assertfail) are WAIT points whose lanes call back into the
runner (runner.HostCalls), which writes each line as the interpreter does. f32, f64 and 16-bit
float atomic adds are WAIT points (float_atomic), so the lanes at one add in lane order on both paths. What is left
out: textures, async copies and mbarriers, tensor-core ops, the calls the sim implements itself
(device malloc, device-side launches), the rest of the 16-bit arithmetic (the x2 compares, bf16's
.relu, xorsign), packed integer types, float atomic min/max, and named
barriers with thread counts.
"""
from __future__ import annotations

from ..ptx.program import Program

IGNORED = frozenset({"global", "shared", "shared::cta", "local", "const", "param", "weak", "volatile", "relaxed",
                     "acquire", "release", "acq_rel", "cta", "gpu", "sys", "ca", "cg", "cs", "lu", "cv", "nc",
                     "wb", "wt", "uni", "sync", "aligned", "L1::evict_normal", "L1::evict_unchanged",
                     "L1::evict_first", "L1::evict_last", "L1::no_allocate", "L2::evict_normal",
                     "L2::evict_first", "L2::evict_last", "L2::64B", "L2::128B", "L2::256B"})
INT = frozenset({"b8", "u8", "s8", "b16", "u16", "s16", "b32", "u32", "s32", "b64", "u64", "s64"})
FLT = frozenset({"f32", "f64"})
ALL = INT | FLT | {"pred"}
HALF = frozenset({"f16", "bf16"})  # as bits: moved, loaded, stored, converted
F16 = frozenset({"f16", "f16x2", "bf16", "bf16x2"})  # add, sub, mul, fma (.rn; f16's .ftz and .sat)
RND = frozenset({"rn", "rz", "rm", "rp"})  # directed: f32 only (below)
CMPS = frozenset({"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu", "gtu",
                  "geu", "num", "nan"})

FORMS: dict[str, frozenset] = {
    # f16 and bf16 (and x2) add/sub/mul/fma at .rn, min and max (ops._half_arith); other 16-bit
    # arithmetic stays interpreted
    "mov": ALL | HALF, "add": INT | FLT | RND | F16 | {"ftz", "sat", "cc"},
    "sub": INT | FLT | RND | F16 | {"ftz", "sat", "cc"},
    "mul": INT | FLT | RND | F16 | {"lo", "hi", "wide", "ftz", "sat"},
    "mad": INT | FLT | RND | {"lo", "hi", "wide", "ftz", "sat", "cc"}, "fma": FLT | RND | F16 | {"ftz", "sat"},
    "addc": INT | {"cc"}, "subc": INT | {"cc"}, "madc": INT | {"lo", "hi", "cc"}, "copysign": FLT,
    "div": INT | FLT | RND | {"approx", "full", "ftz"}, "rem": INT,
    "min": INT | FLT | F16 | {"ftz", "NaN"}, "max": INT | FLT | F16 | {"ftz", "NaN"}, "abs": INT | FLT | HALF | {"f16x2", "bf16x2", "ftz"},
    "neg": INT | FLT | HALF | {"f16x2", "bf16x2", "ftz"},
    "sqrt": FLT | RND | {"approx", "ftz"}, "rcp": FLT | RND | {"approx", "ftz"}, "rsqrt": FLT | {"approx", "ftz"},
    # f32 only (ops.e_float refuses the rest): ptx/approx.py's definition, shared with the interpreter
    "sin": FLT | {"approx", "ftz"}, "cos": FLT | {"approx", "ftz"}, "lg2": FLT | {"approx", "ftz"},
    "ex2": FLT | {"approx", "ftz"}, "tanh": FLT | {"approx"},
    "and": INT | {"pred"}, "or": INT | {"pred"}, "xor": INT | {"pred"}, "not": INT | {"pred"}, "cnot": INT,
    "dp4a": {"u32", "s32"}, "dp2a": {"lo", "hi", "u32", "s32"}, "shl": INT, "shr": INT, "popc": INT, "clz": INT, "brev": INT, "bfe": INT, "bfi": INT, "prmt": {"b32"},
    "bfind": INT | {"shiftamt"}, "shf": {"l", "r", "wrap", "clamp", "b32", "u32", "s32"}, "activemask": {"b32"}, "isspacep": {"global", "shared", "local", "param", "const"},
    "setp": ALL | HALF | CMPS | {"and", "or", "xor", "ftz"}, "set": ALL | HALF | CMPS | {"and", "or", "xor", "ftz"},
    "selp": ALL,
    "testp": FLT | {"finite", "infinite", "number", "notanumber", "normal", "subnormal"},
    "cvt": INT | FLT | RND | HALF | {"f16x2", "rni", "rzi", "rmi", "rpi", "ftz", "sat"},
    "cvta": INT | {"to", "global", "shared", "local", "param", "const"},
    "ld": ALL | IGNORED | HALF | {"v2", "v4"}, "ldu": ALL | IGNORED | HALF | {"v2", "v4"},
    "st": ALL | IGNORED | HALF | {"v2", "v4"},
    "atom": INT | FLT | F16 | IGNORED | {"add", "min", "max", "exch", "cas", "and", "or", "xor", "inc", "dec", "noftz"},
    "red": INT | FLT | F16 | IGNORED | {"add", "min", "max", "and", "or", "xor", "inc", "dec", "noftz"},
    "bar": {"sync", "warp", "aligned", "cta", "red", "popc", "and", "or", "u32", "pred"},
    "barrier": {"sync", "aligned", "cta", "red", "popc", "and", "or", "u32", "pred"},
    "redux": {"sync", "add", "min", "max", "and", "or", "xor", "u32", "s32", "b32"},
    "match": {"sync", "any", "all", "b32", "b64"},
    "shfl": {"sync", "up", "down", "bfly", "idx", "b32"}, "vote": {"sync", "all", "any", "uni", "ballot", "pred", "b32"},
    "bra": {"uni"}, "ret": {"uni"}, "exit": {"uni"}, "trap": frozenset(), "membar": {"cta", "gl", "sys"},
    "fence": {"sc", "acq_rel", "cta", "gpu", "sys"},
    # hints that change timing, never values (ptx/ops_mem.c_hint, ops_ctrl.c_noop): CUB's radix sort
    # prefetches its tiles to L2, and its decoupled look-back sleeps between polls of a tile's
    # status (the poll, a relaxed or volatile load, is the point where the other threads go on)
    "prefetch": {"global", "local", "L1", "L2", "L2::evict_last", "L2::evict_normal"}, "prefetchu": {"L1"},
    "nanosleep": {"u32"},
    # the per-thread stack of recursive device functions (ptx/ops_stack.py, jit/stack.py)
    "rgpu": {"push", "pop", "enter", "leave", "pushret", "popret", "lcopy"},
    # printf and assert, done by the runner's callback (runner.HostCalls) at a WAIT point
    "call": {"vprintf", "__assertfail"},
}
SPECIALS = {f"%{r}.{c}" for r in ("tid", "ntid", "ctaid", "nctaid") for c in "xyz"} | {
    "%laneid", "%warpid", "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt"}


CARRY_IN = ("addc", "subc", "madc")
SYNCS = ("bar", "barrier", "shfl", "vote", "activemask", "redux", "match")


def volatile_load(ins) -> bool:
    """A load of memory another thread may be writing meanwhile (volatile, relaxed, acquire)."""
    parts = ins.opcode.split(".")
    return parts[0] in ("ld", "ldu") and any(p in parts for p in ("volatile", "relaxed", "acquire"))


def float_atomic(ins) -> bool:
    """atom/red on .f32, .f64 and the 16-bit floats: a WAIT point (codegen.kernel_sync_kinds), so the lanes at one add
    lane after lane, as the interpreter serialises them (ops_mem.atomic_rmw)."""
    parts = ins.opcode.split(".")
    return parts[0] in ("atom", "red") and any(p in parts for p in FLT | F16)


HOST_CALLS = {"call.vprintf": 2, "call.__assertfail": 4}  # the arguments each one reads


def host_call(ins) -> bool:
    """vprintf and __assertfail: WAIT points (codegen.kernel_sync_kinds), so the lanes of a block
    at one print in lane order, as a warp's do, before any of them goes on to its next."""
    return ins.opcode in HOST_CALLS


def volatile_access(ins) -> bool:
    parts = ins.opcode.split(".")
    return volatile_load(ins) or (parts[0] == "st" and any(p in parts for p in ("volatile", "relaxed", "release")))


def why_not(prog: Program) -> str | None:
    """Why the compiler cannot run this kernel (None: it can), naming the first thing it lacks."""
    uses_carry = any(i.opcode.split(".")[0] in CARRY_IN for i in prog.code)
    stops = any(i.opcode.split(".")[0] in SYNCS or volatile_load(i) or float_atomic(i) or host_call(i)
                for i in prog.code)
    if uses_carry and stops:
        # the carry (codegen's %CC) is not among the registers saved at a sync point
        return "carry flag (addc/subc/madc) in a kernel with sync points (barriers, collectives, volatile loads)"
    if prog.frame_syms and stops:
        # the registers rgpu.push saves are implicit operands, which the liveness of sync points
        # (what a stop saves) does not see (jit/stack.py)
        return "recursive device function in a kernel with sync points"
    for name, (t, vec) in prog.regs.items():
        if vec != 1 or t not in ALL | HALF:
            return f"register {name} of type .{t}{'' if vec == 1 else f' x{vec}'}"
    for ins in prog.code:
        parts = ins.opcode.split(".")
        base = parts[0]
        forms = FORMS.get(base)
        if forms is None:
            return f"instruction {ins.opcode} (PTX line {ins.line})"
        bad = [p for p in parts[1:] if p not in forms]
        if bad:
            return f"instruction {ins.opcode} (PTX line {ins.line})"
        if base in ("bar", "barrier") and "warp" not in parts:
            # bar.sync id / bar.red.op d, id, {!}p: the whole block at barrier `id`, a constant
            ids = ins.operands[1:2] if "red" in parts else ins.operands
            if len(ids) != 1 or ids[0].kind != "imm" or ("red" in parts and len(ins.operands) != 3):
                return f"barrier with a thread count or a register id: {ins.opcode} (PTX line {ins.line})"
        if float_atomic(ins) and "add" not in parts:
            return f"float atomic {ins.opcode} (PTX line {ins.line})"  # min/max: the interpreter's alone
        if base == "call" and (len(ins.operands) != 2 or len(ins.operands[1].value) < HOST_CALLS[ins.opcode]
                               or len(ins.operands[0].value) > 1
                               or any(o.value in prog.frame_syms for o in ins.operands[1].value)):
            return f"{ins.opcode} of another form (PTX line {ins.line})"
        if base == "shfl" and len(ins.operands) < 4:
            return f"{ins.opcode} (PTX line {ins.line})"
    return None

