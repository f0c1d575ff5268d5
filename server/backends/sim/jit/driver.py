"""The block loop (``rgpu_run``) and the warp-collective instructions (``coll``) of a compiled kernel.

A block runs in rounds: every thread that may run does, to its next sync point; then, as min-PC
scheduling would, the lowest warp-collective point any thread waits at is carried out, warp by
warp, for the lanes waiting there, and those lanes run again; when only barriers (and exited
threads) are left, every waiting thread is released. shfl and vote read the registers the lanes
saved at the sync point: vote reads a lane that is not there as its register file stands, as the
interpreter does; shfl reads 0 from such a lane, as GPUs and the interpreter do.
"""
from __future__ import annotations

from .codegen import BARRIER, BLOCK_REDUCE, COLLECTIVE
from .prelude import (ABORT, ASSERTED, CTAX, CTAY, CTAZ, EXIT, FAULT, FBLOCK, FCODE, HI, LOCAL, LSTRIDE, NCX, NCY,
                      NEXT, NTHREADS, RF, SHARED, SSIZE, TPAD, WHERE, EXEC, TICKS, CHUNK)
from .values import Body, Unsupported, bits_of


def _rf_get(k, b: Body, o, t: str, lane: str) -> str:
    """Operand o of lane `lane` (an i64 thread index) read from the register file as type t."""
    if o.kind == "imm":
        from .values import imm_bits
        return b.const(imm_bits(o, t), t)
    if o.kind != "reg" or o.value not in k.rf_off:
        raise Unsupported(f"collective operand {o.value!r}")
    decl = k.regs[o.value][0]
    w = 8 if decl == "pred" else bits_of(decl)
    base = b(f"mul i64 {lane}, {k.rf_size}")
    p = b(f"getelementptr i8, ptr %rf, i64 {b(f'add i64 {base}, {k.rf_off[o.value]}')}")
    v = b.resize(b(f"load i{w}, ptr {p}, align 8"), w, bits_of(t))
    if o.neg:
        v = b(f"xor i{bits_of(t)} {v}, -1")
    return v


def _rf_set(k, b: Body, o, t: str, lane: str, v: str) -> None:
    if o.kind == "sink" or o.value not in k.rf_off:
        return  # dead after the collective: nobody reads it
    decl = k.regs[o.value][0]
    w = 8 if decl == "pred" else bits_of(decl)
    v = b.resize(v, bits_of(t), w, signed=t[0] == "s")
    base = b(f"mul i64 {lane}, {k.rf_size}")
    p = b(f"getelementptr i8, ptr %rf, i64 {b(f'add i64 {base}, {k.rf_off[o.value]}')}")
    b.do(f"store i{w} {v}, ptr {p}, align 8")


def _lanes(b: Body, name: str, body) -> None:
    """for l in 0..31 where mask bit l is set: body(l as i32, thread as i64)."""
    b.do(f"store i32 0, ptr %l, align 4")
    b.do(f"br label %{name}.head")
    b.label(f"{name}.head")
    lv = b("load i32, ptr %l, align 4")
    more = b(f"icmp ult i32 {lv}, 32")
    b.do(f"br i1 {more}, label %{name}.test, label %{name}.end")
    b.label(f"{name}.test")
    bit = b(f"and i32 {b(f'lshr i32 %mask, {lv}')}, 1")
    b.do(f"br i1 {b(f'icmp ne i32 {bit}, 0')}, label %{name}.body, label %{name}.next")
    b.label(f"{name}.body")
    t = b(f"add i64 %w0, {b(f'zext i32 {lv} to i64')}")
    body(lv, t)
    b.do(f"br label %{name}.next")
    b.label(f"{name}.next")
    b.do(f"store i32 {b(f'add i32 {lv}, 1')}, ptr %l, align 4")
    b.do(f"br label %{name}.head")
    b.label(f"{name}.end")


def _shfl(k, b: Body, ins) -> None:
    parts = ins.opcode.split(".")
    mode = next(p for p in parts if p in ("up", "down", "bfly", "idx"))
    d, a, bo, co = ins.operands[:4]
    dv, dp = (d.value[0], d.value[1]) if d.kind == "vec" else (d, None)

    def gather(l, t):
        bval = b(f"and i32 {_rf_get(k, b, bo, 'u32', t)}, 31")
        cv = _rf_get(k, b, co, "u32", t)
        cval = b(f"and i32 {cv}, 31")
        seg = b(f"and i32 {b(f'lshr i32 {cv}, 8')}, 31")
        nseg = b(f"xor i32 {seg}, -1")
        maxl = b(f"or i32 {b(f'and i32 {l}, {seg}')}, {b(f'and i32 {cval}, {nseg}')}")
        if mode == "up":
            j = b(f"sub i32 {l}, {bval}")
            ok = b(f"icmp sge i32 {j}, {maxl}")
        else:
            if mode == "down":
                j = b(f"add i32 {l}, {bval}")
            elif mode == "bfly":
                j = b(f"xor i32 {l}, {bval}")
            else:
                j = b(f"or i32 {b(f'and i32 {l}, {seg}')}, {b(f'and i32 {bval}, {nseg}')}")
            ok = b(f"icmp sle i32 {j}, {maxl}")
        j = b(f"select i1 {ok}, i32 {j}, i32 {l}")
        src = b(f"add i64 %w0, {b(f'zext i32 {j} to i64')}")
        v = _rf_get(k, b, a, "b32", src)
        # a source lane not waiting at this shfl gives 0, as GPUs (and the interpreter) do
        bit = b(f"and i32 {b(f'lshr i32 %mask, {j}')}, 1")
        there = b(f"icmp ne i32 {bit}, 0")
        v = b(f"select i1 {there}, i32 {v}, i32 0")
        b.do(f"store i32 {v}, ptr {b(f'getelementptr i32, ptr %vals, i32 {l}')}, align 4")
        b.do(f"store i1 {ok}, ptr {b(f'getelementptr i8, ptr %oks, i32 {l}')}, align 1")

    def scatter(l, t):
        v = b(f"load i32, ptr {b(f'getelementptr i32, ptr %vals, i32 {l}')}, align 4")
        _rf_set(k, b, dv, "b32", t, v)
        if dp is not None:
            ok = b(f"load i1, ptr {b(f'getelementptr i8, ptr %oks, i32 {l}')}, align 1")
            _rf_set(k, b, dp, "pred", t, ok)
    _lanes(b, "gather", gather)
    _lanes(b, "scatter", scatter)


def _vote(k, b: Body, ins) -> None:
    parts = ins.opcode.split(".")
    mode = next(p for p in parts if p in ("all", "any", "uni", "ballot"))
    d, a = ins.operands[:2]
    member = ins.operands[2] if len(ins.operands) > 2 else None
    b.do("store i32 0, ptr %yes, align 4")
    b.do("store i32 0, ptr %part, align 4")

    def gather(l, t):
        p = b(f"zext i1 {_rf_get(k, b, a, 'pred', t)} to i32")
        act = "1"
        if member is not None:
            mem = _rf_get(k, b, member, "b32", t)
            b.do(f"store i32 {mem}, ptr {b(f'getelementptr i32, ptr %vals, i32 {l}')}, align 4")
            act = b(f"and i32 {b(f'lshr i32 {mem}, {l}')}, 1")
        y = b(f"shl i32 {b(f'and i32 {p}, {act}')}, {l}")
        y0 = b("load i32, ptr %yes, align 4")
        b.do(f"store i32 {b(f'or i32 {y}, {y0}')}, ptr %yes, align 4")
        q = b(f"shl i32 {act}, {l}")
        q0 = b("load i32, ptr %part, align 4")
        b.do(f"store i32 {b(f'or i32 {q}, {q0}')}, ptr %part, align 4")

    def scatter(l, t):
        y = b("load i32, ptr %yes, align 4")
        pa = b("load i32, ptr %part, align 4")
        if member is not None:
            mine = b(f"load i32, ptr {b(f'getelementptr i32, ptr %vals, i32 {l}')}, align 4")
            y, pa = b(f"and i32 {y}, {mine}"), b(f"and i32 {pa}, {mine}")
        if mode == "ballot":
            return _rf_set(k, b, d, "b32", t, y)
        if mode == "all":
            r = b(f"icmp eq i32 {y}, {pa}")
        elif mode == "any":
            r = b(f"icmp ne i32 {y}, 0")
        else:
            r = b(f"or i1 {b(f'icmp eq i32 {y}, {pa}')}, {b(f'icmp eq i32 {y}, 0')}")
        _rf_set(k, b, d, "pred", t, r)
    _lanes(b, "gather", gather)
    _lanes(b, "scatter", scatter)


REDUX = {"add": "add", "and": "and", "or": "or", "xor": "xor"}


def _gather_member(k, b: Body, member, l, t) -> None:
    """Lane l's member mask into %mks and whether it names lane l itself into %oks."""
    mem = _rf_get(k, b, member, "b32", t)
    b.do(f"store i32 {mem}, ptr {b(f'getelementptr i32, ptr %mks, i32 {l}')}, align 4")
    own = b(f"trunc i32 {b(f'lshr i32 {mem}, {l}')} to i8")
    b.do(f"store i8 {b(f'and i8 {own}, 1')}, ptr {b(f'getelementptr i8, ptr %oks, i32 {l}')}, align 1")


def _each_member(b: Body, name: str, mine: str, body) -> None:
    """for j in 0..31 where lane j waits here (%mask), its own member mask names it (%oks) and the
    mask `mine` names it too: body(j as i32)."""
    b.do("store i32 0, ptr %j, align 4")
    b.do(f"br label %{name}.head")
    b.label(f"{name}.head")
    j = b("load i32, ptr %j, align 4")
    b.do(f"br i1 {b(f'icmp ult i32 {j}, 32')}, label %{name}.test, label %{name}.end")
    b.label(f"{name}.test")
    inside = b(f"and i32 {b(f'lshr i32 %mask, {j}')}, {b(f'lshr i32 {mine}, {j}')}")
    own = b(f"load i8, ptr {b(f'getelementptr i8, ptr %oks, i32 {j}')}, align 1")
    take = b(f"and i1 {b(f'trunc i32 {inside} to i1')}, {b(f'trunc i8 {own} to i1')}")
    b.do(f"br i1 {take}, label %{name}.take, label %{name}.next")
    b.label(f"{name}.take")
    body(j)
    b.do(f"br label %{name}.next")
    b.label(f"{name}.next")
    b.do(f"store i32 {b(f'add i32 {j}, 1')}, ptr %j, align 4")
    b.do(f"br label %{name}.head")
    b.label(f"{name}.end")


def _redux(k, b: Body, ins) -> None:
    """redux.sync.{add,min,max,and,or,xor} of 32-bit integers (ops_warp.c_redux): lane i gets the
    reduction over the lanes j waiting here whose own member mask names j and whose mask i names
    too; every waiting lane gets a result (as the interpreter writes its whole group)."""
    parts = ins.opcode.split(".")
    op = next(p for p in parts if p in ("add", "min", "max", "and", "or", "xor"))
    t = next(p for p in parts if p in ("u32", "s32", "b32"))
    d, a, member = ins.operands[:3]
    neutral = {"add": 0, "or": 0, "xor": 0, "and": -1, "min": 2147483647 if t == "s32" else -1,
               "max": -2147483648 if t == "s32" else 0}[op]

    def gather(l, t_):
        b.do(f"store i32 {_rf_get(k, b, a, 'b32', t_)}, ptr {b(f'getelementptr i32, ptr %vals, i32 {l}')}, align 4")
        _gather_member(k, b, member, l, t_)

    def take(j):
        v = b(f"load i32, ptr {b(f'getelementptr i32, ptr %vals, i32 {j}')}, align 4")
        acc = b("load i32, ptr %acc, align 4")
        if op in REDUX:
            r = b(f"{REDUX[op]} i32 {acc}, {v}")
        else:
            cmp = {"min": "slt", "max": "sgt"}[op] if t == "s32" else {"min": "ult", "max": "ugt"}[op]
            r = b(f"select i1 {b(f'icmp {cmp} i32 {v}, {acc}')}, i32 {v}, i32 {acc}")
        b.do(f"store i32 {r}, ptr %acc, align 4")

    def scatter(l, t_):
        mine = b(f"load i32, ptr {b(f'getelementptr i32, ptr %mks, i32 {l}')}, align 4")
        b.do(f"store i32 {neutral}, ptr %acc, align 4")
        _each_member(b, "rx", mine, take)
        _rf_set(k, b, d, "b32", t_, b("load i32, ptr %acc, align 4"))
    _lanes(b, "gather", gather)
    _lanes(b, "scatter", scatter)


def _match(k, b: Body, ins) -> None:
    """match.{any,all}.sync.{b32,b64} (ops_warp.c_match): lane i's mask of the lanes j waiting here
    whose own member mask names j and whose value equals i's, within i's member mask; .all: that
    mask when it holds every such lane j whatever its value (and its predicate true), else 0."""
    parts = ins.opcode.split(".")
    w = 64 if "b64" in parts else 32
    d, a, member = ins.operands[:3]
    dv, dp = (d.value[0], d.value[1]) if d.kind == "vec" else (d, None)

    def gather(l, t):
        v = _rf_get(k, b, a, f"b{w}", t)
        b.do(f"store i64 {b.resize(v, w, 64)}, ptr {b(f'getelementptr i64, ptr %wide, i32 {l}')}, align 8")
        _gather_member(k, b, member, l, t)

    def scatter(l, t):
        mine = b(f"load i32, ptr {b(f'getelementptr i32, ptr %mks, i32 {l}')}, align 4")
        me = b(f"load i64, ptr {b(f'getelementptr i64, ptr %wide, i32 {l}')}, align 8")
        b.do("store i32 0, ptr %acc, align 4")  # the lanes taking part with my value
        b.do("store i32 0, ptr %part, align 4")  # every lane taking part

        def take(j):
            bit = b(f"shl i32 1, {j}")
            part = b("load i32, ptr %part, align 4")
            b.do(f"store i32 {b(f'or i32 {part}, {bit}')}, ptr %part, align 4")
            theirs = b(f"load i64, ptr {b(f'getelementptr i64, ptr %wide, i32 {j}')}, align 8")
            same = b(f"select i1 {b(f'icmp eq i64 {theirs}, {me}')}, i32 {bit}, i32 0")
            acc = b("load i32, ptr %acc, align 4")
            b.do(f"store i32 {b(f'or i32 {acc}, {same}')}, ptr %acc, align 4")
        _each_member(b, "mt", mine, take)
        bits = b("load i32, ptr %acc, align 4")
        if "any" in parts:
            return _rf_set(k, b, dv, "b32", t, bits)
        every = b("load i32, ptr %part, align 4")
        eq = b(f"icmp eq i32 {bits}, {every}")
        _rf_set(k, b, dv, "b32", t, b(f"select i1 {eq}, i32 {every}, i32 0"))
        if dp is not None:
            _rf_set(k, b, dp, "pred", t, eq)
    _lanes(b, "gather", gather)
    _lanes(b, "scatter", scatter)


def collectives(k) -> str:
    """One function per warp-collective sync point and the dispatcher ``coll``."""
    out = []
    cases = []
    for pc in k.sync_pcs:
        ins = k.prog.code[pc]
        if k.kinds[pc] != COLLECTIVE:
            continue  # barriers release in the block loop; a WAIT point's access runs on resume
        sid = k.sync_id[pc]
        b = Body()
        b.label("entry")
        for name, ty in (("vals", "[32 x i32]"), ("oks", "[32 x i8]"), ("l", "i32"), ("yes", "i32"), ("part", "i32"),
                         ("mks", "[32 x i32]"), ("acc", "i32"), ("j", "i32"), ("wide", "[32 x i64]")):
            b.do(f"%{name} = alloca {ty}, align 4")
        base = ins.opcode.split(".")[0]
        if base == "shfl":
            _shfl(k, b, ins)
        elif base == "vote":
            _vote(k, b, ins)
        elif base == "redux":
            _redux(k, b, ins)
        elif base == "match":
            _match(k, b, ins)
        elif base == "activemask":  # the lanes that got here together
            _lanes(b, "scatter", lambda l, t: _rf_set(k, b, ins.operands[0], "b32", t, "%mask"))
        # bar.warp.sync: the lanes only wait for one another
        b.do("ret void")
        # a redux's lane-by-lane double loop, unrolled 32 x 32 and inlined, costs seconds of compiling
        small = " noinline minsize optsize" if base in ("redux", "match") else ""
        out.append(f"define internal void @coll{sid}(ptr noalias %rf, i64 %w0, i32 %mask){small} {{\n"
                   + "\n".join(b.lines) + "\n}\n")
        cases.append(sid)
    sw = " ".join(f"i32 {s}, label %c{s}" for s in cases)
    body = "".join(f"c{s}:\n  call void @coll{s}(ptr %rf, i64 %w0, i32 %mask)\n  ret void\n" for s in cases)
    out.append(f"define internal void @coll(ptr %rf, i32 %k, i64 %w0, i32 %mask) {{\nentry:\n"
               f"  switch i32 %k, label %none [{sw}]\n{body}none:\n  ret void\n}}\n")
    out.append(_block_reductions(k))
    return "\n".join(out)


def _threads(b: Body, name: str, sid: int, body) -> None:
    """for t in 0..T where thread t waits at sync point sid: body(t as i64)."""
    b.do("store i64 0, ptr %t, align 8")
    b.do(f"br label %{name}.head")
    b.label(f"{name}.head")
    t = b("load i64, ptr %t, align 8")
    b.do(f"br i1 {b(f'icmp slt i64 {t}, %T')}, label %{name}.test, label %{name}.end")
    b.label(f"{name}.test")
    w = b(f"load i32, ptr {b(f'getelementptr i32, ptr %where, i64 {t}')}, align 4")
    b.do(f"br i1 {b(f'icmp eq i32 {w}, {sid}')}, label %{name}.body, label %{name}.next")
    b.label(f"{name}.body")
    body(t)
    b.do(f"br label %{name}.next")
    b.label(f"{name}.next")
    b.do(f"store i64 {b(f'add i64 {t}, 1')}, ptr %t, align 8")
    b.do(f"br label %{name}.head")
    b.label(f"{name}.end")


def _block_reductions(k) -> str:
    """``bcoll(rf, where, T, k)``: bar.red (popc.u32, and.pred, or.pred) at sync point k, over the
    threads of the block waiting there (ops_warp.c_bar: the lanes that reach it together), each
    of which gets the result; any other k does nothing. Called before a collective point's warps."""
    b = Body()
    b.label("entry")
    b.do("%t = alloca i64, align 8")
    b.do("%n = alloca i32, align 4")
    b.do("%y = alloca i32, align 4")
    cases = [pc for pc in k.sync_pcs if k.kinds[pc] == BLOCK_REDUCE]
    sw = " ".join(f"i32 {k.sync_id[pc]}, label %r{k.sync_id[pc]}" for pc in cases)
    b.do(f"switch i32 %k, label %none [{sw}]")
    for pc in cases:
        sid = k.sync_id[pc]
        ins = k.prog.code[pc]
        parts = ins.opcode.split(".")
        kind = next(p for p in parts if p in ("popc", "and", "or"))
        d, p = ins.operands[0], ins.operands[-1]
        b.label(f"r{sid}")
        b.do("store i32 0, ptr %n, align 4")
        b.do("store i32 0, ptr %y, align 4")

        def gather(t, p=p):
            v = b(f"zext i1 {_rf_get(k, b, p, 'pred', t)} to i32")
            y0, n0 = b("load i32, ptr %y, align 4"), b("load i32, ptr %n, align 4")
            b.do(f"store i32 {b(f'add i32 {y0}, {v}')}, ptr %y, align 4")
            b.do(f"store i32 {b(f'add i32 {n0}, 1')}, ptr %n, align 4")
        _threads(b, f"g{sid}", sid, gather)
        y, n = b("load i32, ptr %y, align 4"), b("load i32, ptr %n, align 4")
        if kind == "popc":
            r, t_ = y, "u32"
        else:
            r, t_ = b(f"icmp eq i32 {y}, {n}") if kind == "and" else b(f"icmp ne i32 {y}, 0"), "pred"
        _threads(b, f"s{sid}", sid, lambda t, r=r, t_=t_, d=d: _rf_set(k, b, d, t_, t, r))
        b.do("ret void")
    b.label("none")
    b.do("ret void")
    return ("define internal void @bcoll(ptr %rf, ptr %where, i64 %T, i32 %k) {\n"
            + "\n".join(b.lines) + "\n}\n")


def run_function(k) -> str:
    if not k.sync_pcs:
        return _straight_run(k)
    kinds = [0] * (len(k.sync_pcs) + 1)
    for pc in k.sync_pcs:
        # picked lowest first, warp by warp: collectives, block reductions and WAIT points
        # (codegen.kernel_sync_kinds)
        kinds[k.sync_id[pc]] = 0 if k.kinds[pc] == BARRIER else 1
    table = ", ".join(f"i8 {x}" for x in kinds)
    rfs = k.rf_size
    return f"""
@kinds = internal constant [{len(kinds)} x i8] [{table}]

define i32 @rgpu_run(ptr noalias %ctx) {{
entry:
  %t.a = alloca i64, align 8
  %kmin.a = alloca i32, align 4
  %any.a = alloca i1, align 1
  %w0.a = alloca i64, align 8
  %l.a = alloca i64, align 8
  %mask.a = alloca i32, align 4
{_f("nextp", NEXT, "ptr")}{_f("hi", HI)}{_f("abortp", ABORT, "ptr")}{_f("T", NTHREADS)}{_f("tpad", TPAD)}\
{_f("shared", SHARED, "ptr")}{_f("ssize", SSIZE)}{_f("local", LOCAL, "ptr")}{_f("lstride", LSTRIDE)}\
{_f("rf", RF, "ptr")}{_f("where", WHERE, "ptr")}{_f("ncx", NCX)}{_f("ncy", NCY)}{_f("ctax", CTAX)}\
{_f("ctay", CTAY)}{_f("ctaz", CTAZ)}  %run = getelementptr i32, ptr %where, i64 %tpad
  %lsize = mul i64 %T, %lstride
  %rfsize = mul i64 %tpad, {rfs}
{_TAKE_BLOCK}  call void @llvm.memset.p0.i64(ptr %rf, i8 0, i64 %rfsize, i1 false)
  store i64 0, ptr %t.a, align 8
  br label %init.head
init.head:
  %it = load i64, ptr %t.a, align 8
  %imore = icmp slt i64 %it, %tpad
  br i1 %imore, label %init.body, label %round
init.body:
  %live = icmp slt i64 %it, %T
  %w.init = select i1 %live, i32 0, i32 {EXIT}
  %r.init = zext i1 %live to i32
  %wp.i = getelementptr i32, ptr %where, i64 %it
  store i32 %w.init, ptr %wp.i, align 4
  %rp.i = getelementptr i32, ptr %run, i64 %it
  store i32 %r.init, ptr %rp.i, align 4
  %it1 = add i64 %it, 1
  store i64 %it1, ptr %t.a, align 8
  br label %init.head
round:
  store i64 0, ptr %t.a, align 8
  br label %run.head
run.head:
  %rt = load i64, ptr %t.a, align 8
  %rmore = icmp slt i64 %rt, %T
  br i1 %rmore, label %run.test, label %pick
run.test:
  %rp = getelementptr i32, ptr %run, i64 %rt
  %rr = load i32, ptr %rp, align 4
  %go = icmp ne i32 %rr, 0
  br i1 %go, label %run.body, label %run.next
run.body:
  %wp = getelementptr i32, ptr %where, i64 %rt
  %resume = load i32, ptr %wp, align 4
  %rfo = mul i64 %rt, {rfs}
  %rft = getelementptr i8, ptr %rf, i64 %rfo
  %rv = call i32 @phase(ptr %ctx, ptr %rft, i64 %rt, i32 %resume, i64 %b, i64 %cx, i64 %cy, i64 %cz, ptr %acc)
  %failed = icmp slt i32 %rv, 0
  br i1 %failed, label %fail, label %run.store
run.store:
  store i32 %rv, ptr %wp, align 4
  store i32 0, ptr %rp, align 4
  br label %run.next
run.next:
  %rt1 = add i64 %rt, 1
  store i64 %rt1, ptr %t.a, align 8
  br label %run.head
pick:
  %asp = getelementptr i64, ptr %ctx, i64 {ASSERTED}
  %asv = load i64, ptr %asp, align 8
  %asserted = icmp ne i64 %asv, 0
  br i1 %asserted, label %assertfail, label %pick.go
pick.go:
  store i32 {EXIT}, ptr %kmin.a, align 4
  store i64 0, ptr %t.a, align 8
  br label %pick.head
pick.head:
  %pt = load i64, ptr %t.a, align 8
  %pmore = icmp slt i64 %pt, %T
  br i1 %pmore, label %pick.body, label %pick.end
pick.body:
  %pwp = getelementptr i32, ptr %where, i64 %pt
  %pw = load i32, ptr %pwp, align 4
  %pkm = load i32, ptr %kmin.a, align 4
  %plower = icmp slt i32 %pw, %pkm
  %pkp = getelementptr [{len(kinds)} x i8], ptr @kinds, i64 0, i32 %pw
  br i1 %plower, label %pick.kind, label %pick.next
pick.kind:
  %pk = load i8, ptr %pkp, align 1
  %pcoll = icmp eq i8 %pk, 1
  br i1 %pcoll, label %pick.take, label %pick.next
pick.take:
  store i32 %pw, ptr %kmin.a, align 4
  br label %pick.next
pick.next:
  %pt1 = add i64 %pt, 1
  store i64 %pt1, ptr %t.a, align 8
  br label %pick.head
pick.end:
  %kmin = load i32, ptr %kmin.a, align 4
  %anycoll = icmp ne i32 %kmin, {EXIT}
  br i1 %anycoll, label %coll, label %bar
coll:
  call void @bcoll(ptr %rf, ptr %where, i64 %T, i32 %kmin)
  store i64 0, ptr %w0.a, align 8
  br label %warp.head
warp.head:
  %w0 = load i64, ptr %w0.a, align 8
  %wmore = icmp slt i64 %w0, %T
  br i1 %wmore, label %warp.body, label %round
warp.body:
  store i32 0, ptr %mask.a, align 4
  store i64 0, ptr %l.a, align 8
  br label %lane.head
lane.head:
  %l = load i64, ptr %l.a, align 8
  %lmore = icmp slt i64 %l, 32
  br i1 %lmore, label %lane.body, label %lane.end
lane.body:
  %lt = add i64 %w0, %l
  %lwp = getelementptr i32, ptr %where, i64 %lt
  %lw = load i32, ptr %lwp, align 4
  %lat = icmp eq i32 %lw, %kmin
  %lbit = zext i1 %lat to i32
  %l32 = trunc i64 %l to i32
  %lsh = shl i32 %lbit, %l32
  %lm = load i32, ptr %mask.a, align 4
  %lm2 = or i32 %lm, %lsh
  store i32 %lm2, ptr %mask.a, align 4
  %lrp = getelementptr i32, ptr %run, i64 %lt
  %lrun = load i32, ptr %lrp, align 4
  %lrun2 = or i32 %lrun, %lbit
  store i32 %lrun2, ptr %lrp, align 4
  %l1 = add i64 %l, 1
  store i64 %l1, ptr %l.a, align 8
  br label %lane.head
lane.end:
  %mask = load i32, ptr %mask.a, align 4
  %some = icmp ne i32 %mask, 0
  br i1 %some, label %warp.do, label %warp.next
warp.do:
  call void @coll(ptr %rf, i32 %kmin, i64 %w0, i32 %mask)
  br label %warp.next
warp.next:
  %w1 = add i64 %w0, 32
  store i64 %w1, ptr %w0.a, align 8
  br label %warp.head
bar:
  store i1 false, ptr %any.a, align 1
  store i64 0, ptr %t.a, align 8
  br label %bar.head
bar.head:
  %bt = load i64, ptr %t.a, align 8
  %bmore = icmp slt i64 %bt, %T
  br i1 %bmore, label %bar.body, label %bar.end
bar.body:
  %bwp = getelementptr i32, ptr %where, i64 %bt
  %bw = load i32, ptr %bwp, align 4
  %bwait = icmp ne i32 %bw, {EXIT}
  %bbit = zext i1 %bwait to i32
  %brp = getelementptr i32, ptr %run, i64 %bt
  store i32 %bbit, ptr %brp, align 4
  %bany = load i1, ptr %any.a, align 1
  %bany2 = or i1 %bany, %bwait
  store i1 %bany2, ptr %any.a, align 1
  %bt1 = add i64 %bt, 1
  store i64 %bt1, ptr %t.a, align 8
  br label %bar.head
bar.end:
  %anyw = load i1, ptr %any.a, align 1
  br i1 %anyw, label %round, label %nextblock
fail:
  %fbp = getelementptr i64, ptr %ctx, i64 {FBLOCK}
  store i64 %b, ptr %fbp, align 8
  store atomic i64 1, ptr %abortp monotonic, align 8
{_flush("f")}  ret i32 %rv
assertfail:
  %fcp.a = getelementptr i64, ptr %ctx, i64 {FCODE}
  store i64 13, ptr %fcp.a, align 8
  %fbp.a = getelementptr i64, ptr %ctx, i64 {FBLOCK}
  store i64 %b, ptr %fbp.a, align 8
  store atomic i64 1, ptr %abortp monotonic, align 8
{_flush("a")}  ret i32 {FAULT}
}}
"""


def _straight_run(k) -> str:
    """The block loop of a kernel without sync points: each thread runs once, start to exit."""
    return f"""
define i32 @rgpu_run(ptr noalias %ctx) {{
entry:
{_f("nextp", NEXT, "ptr")}{_f("hi", HI)}{_f("abortp", ABORT, "ptr")}{_f("T", NTHREADS)}\
{_f("shared", SHARED, "ptr")}{_f("ssize", SSIZE)}{_f("local", LOCAL, "ptr")}{_f("lstride", LSTRIDE)}\
{_f("rf", RF, "ptr")}{_f("ncx", NCX)}{_f("ncy", NCY)}{_f("ctax", CTAX)}{_f("ctay", CTAY)}{_f("ctaz", CTAZ)}\
  %lsize = mul i64 %T, %lstride
{_TAKE_BLOCK}  br label %thread
thread:
  %t = phi i64 [0, %setup], [%t1, %next]
  %rv = call i32 @phase(ptr %ctx, ptr %rf, i64 %t, i32 0, i64 %b, i64 %cx, i64 %cy, i64 %cz, ptr %acc)
  %failed = icmp slt i32 %rv, 0
  br i1 %failed, label %fail, label %next
next:
  %t1 = add i64 %t, 1
  %more = icmp slt i64 %t1, %T
  br i1 %more, label %thread, label %nextblock
fail:
  %fbp = getelementptr i64, ptr %ctx, i64 {FBLOCK}
  store i64 %b, ptr %fbp, align 8
  store atomic i64 1, ptr %abortp monotonic, align 8
{_flush("f")}  ret i32 %rv
}}
"""


def _flush(sfx: str) -> str:
    """The block loop's counts (instructions, back edges left) into the context, as it returns."""
    return (f"  %exec.p{sfx} = getelementptr i64, ptr %ctx, i64 {EXEC}\n"
            f"  %exec.o{sfx} = load i64, ptr %exec.p{sfx}, align 8\n"
            f"  %exec.a{sfx} = load i64, ptr %acc, align 8\n"
            f"  %exec.n{sfx} = add i64 %exec.o{sfx}, %exec.a{sfx}\n"
            f"  store i64 %exec.n{sfx}, ptr %exec.p{sfx}, align 8\n"
            f"  %tk.a{sfx} = load i64, ptr %acc.tk, align 8\n"
            f"  %tk.p{sfx} = getelementptr i64, ptr %ctx, i64 {TICKS}\n"
            f"  store i64 %tk.a{sfx}, ptr %tk.p{sfx}, align 8\n")


# The head of both block loops: the launch's counts kept in the loop's own memory (phase adds to
# them), then take the next block of the launch (or stop: none left, or the launch abandoned),
# set its ctaid and clear its shared and local memory. Blocks are taken from the launch's counter
# CHUNK at a time (runner._chunk: more than one only for a kernel without loops, whose blocks
# cannot wait for one another): where a block is a microsecond of work, taking each one bounced the
# counter's cache line between the workers' cores for a tenth of the launch. A launch that faulted
# elsewhere stops a worker at its next chunk, not inside its own: every block below the lowest
# faulting one has been taken, and so runs, and the fault reported is the lowest block's.
_TAKE_BLOCK = f"""  %acc = alloca [2 x i64], align 8
  %acc.tk = getelementptr i64, ptr %acc, i64 1
  store i64 0, ptr %acc, align 8
  %tk.p0 = getelementptr i64, ptr %ctx, i64 {TICKS}
  %tk.0 = load i64, ptr %tk.p0, align 8
  store i64 %tk.0, ptr %acc.tk, align 8
  %chunk.p = getelementptr i64, ptr %ctx, i64 {CHUNK}
  %chunk = load i64, ptr %chunk.p, align 8
  %bn.a = alloca i64, align 8
  %be.a = alloca i64, align 8
  store i64 0, ptr %bn.a, align 8
  store i64 0, ptr %be.a, align 8
  br label %nextblock
nextblock:
  %bn = load i64, ptr %bn.a, align 8
  %be = load i64, ptr %be.a, align 8
  %mine = icmp slt i64 %bn, %be
  br i1 %mine, label %taken, label %chunkdone
chunkdone:
  %ab = load atomic i64, ptr %abortp monotonic, align 8
  %stop = icmp ne i64 %ab, 0
  br i1 %stop, label %done, label %take
take:
  %b0 = atomicrmw add ptr %nextp, i64 %chunk monotonic, align 8
  %b0e = add i64 %b0, %chunk
  store i64 %b0e, ptr %be.a, align 8
  br label %taken
taken:
  %b = phi i64 [%bn, %nextblock], [%b0, %take]
  %b1 = add i64 %b, 1
  store i64 %b1, ptr %bn.a, align 8
  %past = icmp sge i64 %b, %hi
  br i1 %past, label %done, label %setup
done:
""" + _flush("d") + """  ret i32 0
setup:
  %cx = urem i64 %b, %ncx
  %bq = udiv i64 %b, %ncx
  %cy = urem i64 %bq, %ncy
  %cz = udiv i64 %bq, %ncy
  store i64 %cx, ptr %ctax.p, align 8
  store i64 %cy, ptr %ctay.p, align 8
  store i64 %cz, ptr %ctaz.p, align 8
  call void @llvm.memset.p0.i64(ptr %shared, i8 0, i64 %ssize, i1 false)
  call void @llvm.memset.p0.i64(ptr %local, i8 0, i64 %lsize, i1 false)
"""


def _f(name: str, slot: int, ty: str = "i64") -> str:
    return (f"  %{name}.p = getelementptr i64, ptr %ctx, i64 {slot}\n"
            f"  %{name} = load {ty}, ptr %{name}.p, align 8\n")
