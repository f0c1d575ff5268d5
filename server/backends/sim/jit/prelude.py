"""The fixed part of every compiled module: the layout of the launch context the runner fills in,
the fault codes, and the address checks (LLVM IR text) every memory access goes through.

A global access checks its address against the allocation table (sorted starts and ends, shared
with DeviceMemory) by binary search, once; the allocation found is remembered in a slot of the
context per instruction, so the next access of the same instruction (the next thread, the next
iteration) costs one rotate and one compare (inside and aligned at once; see g_slow). Shared, local
and parameter accesses are checked against their window's size the same way; a refused access
takes a cold path that tells the faults apart in the interpreter's order: outside first, then
misaligned.
"""
from __future__ import annotations

from ..ptx.interp import LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE
from ..ptx.program import STACK_BYTES

# Slots of the launch context, an array of int64 (pointers as integers).
(ARENA, BASE, STARTS, ENDS, NALLOC, KPARAM, KPLEN, SHARED, SLIMIT, SSIZE, LOCAL, LSTRIDE, LLIMIT, RF, WHERE,
 NTX, NTY, NTZ, NCX, NCY, NCZ, NTHREADS, TPAD, NEXT, HI, ABORT, FCODE, FADDR, FWIDTH, FBLOCK, EXEC, TICKFN,
 TICKS, TIDS, CTAX, CTAY, CTAZ, HOSTFN, ASSERTED, CHUNK, SLOTS) = range(41)

EXIT = 0x7FFFFFFF  # what a thread's phase returns when it has exited
FAULT, ABANDONED = -1, -2
TICK_EDGES = 1 << 16  # backward branches between two calls of the launch's clock (runner.Ticker)

# Fault codes -> (CUresult name, message template), the interpreter's wording (ptx/ops_mem.py,
# memory.py, ops_ctrl.py, interp.py); {w} width, {a} address, {limit} the window's size.
FAULTS = {
    1: ("CUDA_ERROR_ILLEGAL_ADDRESS", "access of {w} bytes at 0x{a:x} is outside any allocation"),
    2: ("CUDA_ERROR_MISALIGNED_ADDRESS", "{w}-byte access at 0x{a:x}"),
    3: ("CUDA_ERROR_ILLEGAL_ADDRESS", "shared access of {w} bytes at offset 0x{a:x} is outside the {limit}-byte window"),
    4: ("CUDA_ERROR_MISALIGNED_ADDRESS", "{w}-byte shared access at offset 0x{a:x}"),
    5: ("CUDA_ERROR_ILLEGAL_ADDRESS", "local access of {w} bytes at offset 0x{a:x} is outside the {limit}-byte window"),
    6: ("CUDA_ERROR_MISALIGNED_ADDRESS", "{w}-byte local access at offset 0x{a:x}"),
    7: ("CUDA_ERROR_ILLEGAL_ADDRESS",
        "kernel parameter access of {w} bytes at offset 0x{a:x} is outside the {limit}-byte window"),
    8: ("CUDA_ERROR_MISALIGNED_ADDRESS", "{w}-byte kernel parameter access at offset 0x{a:x}"),
    9: ("CUDA_ERROR_ILLEGAL_ADDRESS", "generic access of {w} bytes at 0x{a:x} is outside any window"),
    10: ("CUDA_ERROR_LAUNCH_FAILED", "{name}: trap instruction executed"),
    11: ("CUDA_ERROR_ILLEGAL_INSTRUCTION", "{name}: execution ran past the last instruction"),
    12: ("CUDA_ERROR_ILLEGAL_ADDRESS", "{name}: stack overflow: recursion deeper than the software GPU's "
                                       f"{STACK_BYTES}-byte per-thread stack"),
    13: ("CUDA_ERROR_ASSERT", "{name}: device-side assertion failed"),
}
FAULT_LIMIT = {3: SLIMIT, 5: LLIMIT, 7: KPLEN}


# The calls a kernel makes to the host (ops.e_call), in a module only when a kernel makes one: the
# runner's Python callback (runner.HostCalls) does what the interpreter does for them, from the
# addresses and values the call passes: vprintf (kind 0: format, argument buffer) formats a line and
# answers the argument count; __assertfail (kind 1: message, file, line, function) writes the
# assertion's line and answers 0, and the thread leaves its kernel with ASSERTED set, which fails the
# block once every lane at that assert has written its line. -1: a read outside memory (the launch
# stops, as the interpreter's does, with the fault the callback raised).
HOST_CALL = f"""
define internal i32 @host(ptr noalias %ctx, i32 %kind, i64 %t, i64 %blk, ptr %frame, i64 %a0, i64 %a1, i64 %a2,
                          i64 %a3) noinline {{
entry:
  %fn.p = getelementptr i64, ptr %ctx, i64 {HOSTFN}
  %fn = load i64, ptr %fn.p, align 8
  %f = inttoptr i64 %fn to ptr
  %r = call i32 %f(ptr %ctx, i32 %kind, i64 %t, i64 %blk, ptr %frame, i64 %a0, i64 %a1, i64 %a2, i64 %a3)
  ret i32 %r
}}
"""


def _field(name: str, slot: int, ty: str = "i64") -> str:
    """IR loading context slot `slot` into %name (an i64, or a ptr when ty is ptr)."""
    return (f"  %{name}.p = getelementptr i64, ptr %ctx, i64 {slot}\n"
            f"  %{name} = load {ty}, ptr %{name}.p, align 8\n")


def _fault(code: int, addr: str = "%a", width: str = "%w") -> str:
    return (f"  %fc.p = getelementptr i64, ptr %ctx, i64 {FCODE}\n  store i64 {code}, ptr %fc.p, align 8\n"
            f"  %fa.p = getelementptr i64, ptr %ctx, i64 {FADDR}\n  store i64 {addr}, ptr %fa.p, align 8\n"
            f"  %fw.p = getelementptr i64, ptr %ctx, i64 {FWIDTH}\n  store i64 {width}, ptr %fw.p, align 8\n"
            f"  ret ptr null\n")


def _window(fn: str, slot_limit: int, slot_base: int | None, code: int, frame: bool = False) -> str:
    base = "%frame" if frame else "%base"
    args = "ptr noalias %ctx, ptr %frame, i64 %a, i64 %w" if frame else "ptr noalias %ctx, i64 %a, i64 %w"
    load_base = "" if frame else _field("base", slot_base, "ptr")
    return f"""define internal ptr @{fn}({args}) alwaysinline {{
entry:
{_field("limit", slot_limit)}{load_base}  %end = add i64 %a, %w
  %over = icmp ugt i64 %end, %limit
  %wrap = icmp ult i64 %end, %a
  %bad = or i1 %over, %wrap
  br i1 %bad, label %out, label %in
in:
  %wm = sub i64 %w, 1
  %mis = and i64 %a, %wm
  %isal = icmp eq i64 %mis, 0
  br i1 %isal, label %ok, label %misal
ok:
  %p = getelementptr i8, ptr {base}, i64 %a
  ret ptr %p
out:
{_fault(code)}misal:
{_fault(code + 1).replace("%fc.p", "%fc2.p").replace("%fa.p", "%fa2.p").replace("%fw.p", "%fw2.p")}}}
"""


def prelude() -> str:
    g_fault1 = _fault(1)
    g_fault2 = _fault(2).replace("%fc.p", "%fc2.p").replace("%fa.p", "%fa2.p").replace("%fw.p", "%fw2.p")
    gen_fault = _fault(9).replace("%fc.p", "%fc3.p").replace("%fa.p", "%fa3.p").replace("%fw.p", "%fw3.p")
    return f"""
declare float @llvm.fma.f32(float, float, float)
declare double @llvm.fma.f64(double, double, double)
declare float @llvm.sqrt.f32(float)
declare double @llvm.sqrt.f64(double)
declare float @llvm.fabs.f32(float)
declare double @llvm.fabs.f64(double)
declare float @llvm.copysign.f32(float, float)
declare float @llvm.arithmetic.fence.f32(float)
declare double @llvm.copysign.f64(double, double)
declare double @llvm.roundeven.f64(double)
declare double @llvm.trunc.f64(double)
declare double @llvm.floor.f64(double)
declare double @llvm.ceil.f64(double)
declare float @llvm.roundeven.f32(float)
declare float @llvm.trunc.f32(float)
declare float @llvm.floor.f32(float)
declare float @llvm.ceil.f32(float)
declare i8 @llvm.ctpop.i8(i8)
declare i16 @llvm.ctpop.i16(i16)
declare i32 @llvm.ctpop.i32(i32)
declare i64 @llvm.ctpop.i64(i64)
declare i8 @llvm.ctlz.i8(i8, i1)
declare i16 @llvm.ctlz.i16(i16, i1)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i64 @llvm.ctlz.i64(i64, i1)
declare i8 @llvm.bitreverse.i8(i8)
declare i16 @llvm.bitreverse.i16(i16)
declare i32 @llvm.bitreverse.i32(i32)
declare i64 @llvm.bitreverse.i64(i64)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare i64 @llvm.cttz.i64(i64, i1)
declare i64 @llvm.fshr.i64(i64, i64, i64)

define internal ptr @g_slow(ptr noalias %ctx, i64 %a, i64 %w, i64 %slot) noinline {{
entry:
{_field("starts", STARTS, "ptr")}{_field("ends", ENDS, "ptr")}{_field("n", NALLOC)}  br label %loop
loop:
  %lo = phi i64 [0, %entry], [%lo2, %body]
  %hi = phi i64 [%n, %entry], [%hi2, %body]
  %more = icmp ult i64 %lo, %hi
  br i1 %more, label %body, label %done
body:
  %sum = add i64 %lo, %hi
  %mid = lshr i64 %sum, 1
  %sp = getelementptr i64, ptr %starts, i64 %mid
  %s = load i64, ptr %sp, align 8
  %le = icmp ule i64 %s, %a
  %mid1 = add i64 %mid, 1
  %lo2 = select i1 %le, i64 %mid1, i64 %lo
  %hi2 = select i1 %le, i64 %hi, i64 %mid
  br label %loop
done:
  %none = icmp eq i64 %lo, 0
  br i1 %none, label %out, label %found
found:
  %i = sub i64 %lo, 1
  %ep = getelementptr i64, ptr %ends, i64 %i
  %e = load i64, ptr %ep, align 8
  %s0p = getelementptr i64, ptr %starts, i64 %i
  %s0 = load i64, ptr %s0p, align 8
  %end = add i64 %a, %w
  %fits = icmp ule i64 %end, %e
  %nowrap = icmp uge i64 %end, %a
  %ok = and i1 %fits, %nowrap
  br i1 %ok, label %inside, label %out
inside:
  ; remember the allocation for this instruction (its width is fixed): an access at a is then
  ; inside and aligned exactly when rotr(a - lo, log2 w) <u lim, with lim = (e - lo - w) / w + 1;
  ; an allocation whose start is not aligned to w, or shorter than w, is not remembered
  %wm = sub i64 %w, 1
  %mis = and i64 %a, %wm
  %isal = icmp eq i64 %mis, 0
  br i1 %isal, label %remember, label %misal
remember:
  %s0mis = and i64 %s0, %wm
  %s0al = icmp eq i64 %s0mis, 0
  %span = sub i64 %e, %s0
  %roomy = icmp uge i64 %span, %w
  %keep = and i1 %s0al, %roomy
  br i1 %keep, label %store, label %ok2
store:
  %k = mul i64 %slot, 2
  %k0 = add i64 %k, {SLOTS}
  %k1 = add i64 %k, {SLOTS + 1}
  %c0 = getelementptr i64, ptr %ctx, i64 %k0
  %c1 = getelementptr i64, ptr %ctx, i64 %k1
  %room = sub i64 %span, %w
  %lg = call i64 @llvm.cttz.i64(i64 %w, i1 true)
  %units = lshr i64 %room, %lg
  %lim = add i64 %units, 1
  store i64 %s0, ptr %c0, align 8
  store i64 %lim, ptr %c1, align 8
  br label %ok2
ok2:
{_field("arena", ARENA, "ptr")}{_field("base", BASE)}  %off = sub i64 %a, %base
  %p = getelementptr i8, ptr %arena, i64 %off
  ret ptr %p
out:
{g_fault1}misal:
{g_fault2}}}

define internal ptr @gaddr(ptr noalias %ctx, i64 %a, i64 %w, i64 %slot) alwaysinline {{
entry:
  %k = mul i64 %slot, 2
  %k0 = add i64 %k, {SLOTS}
  %k1 = add i64 %k, {SLOTS + 1}
  %c0 = getelementptr i64, ptr %ctx, i64 %k0
  %c1 = getelementptr i64, ptr %ctx, i64 %k1
  %lo = load i64, ptr %c0, align 8
  %lim = load i64, ptr %c1, align 8
  %d = sub i64 %a, %lo
  %lg = call i64 @llvm.cttz.i64(i64 %w, i1 true)
  %r = call i64 @llvm.fshr.i64(i64 %d, i64 %d, i64 %lg)
  %ok = icmp ult i64 %r, %lim
  br i1 %ok, label %fast, label %slow, !prof !1
fast:
{_field("arena", ARENA, "ptr")}{_field("base", BASE)}  %off = sub i64 %a, %base
  %p = getelementptr i8, ptr %arena, i64 %off
  ret ptr %p
slow:
  %sp = call ptr @g_slow(ptr %ctx, i64 %a, i64 %w, i64 %slot)
  ret ptr %sp
}}

{_window("saddr", SLIMIT, SHARED, 3)}
{_window("paddr", KPLEN, KPARAM, 7)}
{_window("laddr", LLIMIT, None, 5, frame=True)}
define internal ptr @genaddr(ptr noalias %ctx, ptr %frame, i64 %a, i64 %w, i64 %slot) alwaysinline {{
entry:
  %special = icmp uge i64 %a, {PARAM_WINDOW}
  br i1 %special, label %win, label %global
global:
  %g = call ptr @gaddr(ptr %ctx, i64 %a, i64 %w, i64 %slot)
  ret ptr %g
win:
  %so = sub i64 %a, {SHARED_WINDOW}
  %ins = icmp ult i64 %so, {WINDOW_SIZE}
  br i1 %ins, label %shared, label %notshared
shared:
  %s = call ptr @saddr(ptr %ctx, i64 %so, i64 %w)
  ret ptr %s
notshared:
  %lo = sub i64 %a, {LOCAL_WINDOW}
  %inl = icmp ult i64 %lo, {WINDOW_SIZE}
  br i1 %inl, label %local, label %notlocal
local:
  %l = call ptr @laddr(ptr %ctx, ptr %frame, i64 %lo, i64 %w)
  ret ptr %l
notlocal:
  %po = sub i64 %a, {PARAM_WINDOW}
  %inp = icmp ult i64 %po, {WINDOW_SIZE}
  br i1 %inp, label %param, label %nowhere
param:
  %q = call ptr @paddr(ptr %ctx, i64 %po, i64 %w)
  ret ptr %q
nowhere:
{gen_fault}}}

; every TICK_EDGES back edges: stop (1) when the launch was abandoned or faulted in another
; worker (its flag), else ask the launch's clock (worker 0 only; it may block or say stop). Without
; the flag, a worker inside an endless block would never hear that the launch is over.
define internal i32 @tick(ptr noalias %ctx) noinline {{
entry:
{_field("abortp", ABORT, "ptr")}  %ab = load atomic i64, ptr %abortp monotonic, align 8
  %over = icmp ne i64 %ab, 0
  br i1 %over, label %stop, label %clock
stop:
  ret i32 1
clock:
{_field("fn", TICKFN)}  %none = icmp eq i64 %fn, 0
  br i1 %none, label %skip, label %call
skip:
  ret i32 0
call:
  %f = inttoptr i64 %fn to ptr
  %r = call i32 %f(ptr %ctx)
  ret i32 %r
}}
"""
