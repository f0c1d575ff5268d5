"""Memory instructions: ld/st/ldu, atom/red, cvta, isspacep, mov (incl. symbol addresses and
vector pack/unpack), and the cache/prefetch hints that have no effect on a software GPU.

State spaces and where their bytes live:
  global/const  the session's DeviceMemory (module variables are allocations there too, so a
                ``.const`` address is also a valid global/generic address, as on the GPU)
  shared        ``st.shared``: one slot of ``shared_stride`` bytes per block of the batch
  local         ``st.local``: one frame of ``local_stride`` bytes per lane
  param         ``st.kparam``: the kernel's launch buffer, read-only (call-sequence ``.param``
                symbols were turned into local storage when calls were inlined)
Generic addresses select a space by window (interp.SHARED_WINDOW, ...); everything else is global.
"""
from __future__ import annotations

import numpy as np

from ..errors import SimFault
from .interp import ANY, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE, op
from .parser import Operand
from .ops_float import ftz
from .program import FP
from .rounding import canonical
from .types import UNSIGNED, dtype_of, f32_to_bf16, is_float, to_bits, types_in

U64 = np.dtype(np.uint64)
MASK32 = np.uint64(0xFFFFFFFF)
# A shared::cluster address (what mapa makes) is a block's shared offset plus (its rank in the
# cluster + 1) units of this: shared memory is far smaller, so an address of the block's own
# shared window (rank bits 0) is an ordinary shared address.
CLUSTER_RANK_UNIT = np.uint64(1 << 24)
SPACE_NAMES = ("global", "shared", "local", "const", "param")
WINDOWS = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW, "param": PARAM_WINDOW}


def space_of(parts) -> str:
    for p in parts:
        if p in SPACE_NAMES:
            return p
        if p.startswith("shared::"):
            return "shared"
    return "generic"


def _elem_type(parts) -> str:
    ts = types_in(parts)
    return ts[-1] if ts else "b32"


def _vec(parts) -> int:
    for p in parts:
        if p in ("v2", "v4", "v8"):
            return int(p[1:])
    return 1


def addr_getter(ctx, o: Operand, space: str):
    """Getter of the per-lane address (uint64, in ``space``'s own numbering) and, for symbols,
    the space the symbol lives in (which wins over the instruction's, e.g. a kernel parameter)."""
    if o.kind != "addr":
        if o.kind == "sym":
            o = Operand("addr", o.value, offset=o.offset)
        elif o.kind == "reg":
            o = Operand("addr", o.value)
        else:
            raise ValueError(f"expected an address, got {o.kind}")
    off = np.uint64(o.offset & 0xFFFFFFFFFFFFFFFF)
    base = o.value
    if base is None:
        return (lambda st: off), space
    if base in ctx.decl or base.startswith("%"):
        g = ctx.get(Operand("reg", base), "u64")
        if o.offset == 0:
            return (lambda st: np.asarray(g(st))), space
        dt = ctx.decl.get(base)
        if dt is not None and dt.itemsize == 4:
            # A 32-bit address (shared, local) adds its offset in 32 bits, as the GPU does, and
            # compilers count on it: cuSOLVER's steqr reads [r + 8] with r = -8 for address 0.
            off32 = np.uint64(o.offset & 0xFFFFFFFF)
            return (lambda st: (np.asarray(g(st)) + off32) & MASK32), space
        return (lambda st: np.asarray(g(st)) + off), space
    sym_space, v = ctx.sym(base)
    if base in ctx.prog.frame_syms:  # a recursive activation's own .local data (ops_stack.py)
        c = np.uint64(ctx.generic(base) if space == "generic" else v) + off
        return (lambda st: st.R[FP] + c), (space if space == "generic" else sym_space)
    if space == "generic":
        c = np.uint64(ctx.generic(base)) + off
        return (lambda st: c), space
    if sym_space == "global":
        sym_space = space if space in ("global", "const") else "global"
    c = np.uint64(v) + off
    return (lambda st: c), sym_space


def lanes(v, idx, mask):
    """Values of the active lanes (scalars stay scalars)."""
    if np.ndim(v) == 0 or mask is None:
        return v
    return v[idx]


def _fault(code, what):
    raise SimFault(code, what)


def _check_window(a, width, limit, what, top=None):
    """`top`: a.max(), when the caller has it already."""
    if a.size and ((a.max() if top is None else top) + np.uint64(width) > np.uint64(limit)):
        bad = int(a[a + np.uint64(width) > np.uint64(limit)][0])
        _fault("CUDA_ERROR_ILLEGAL_ADDRESS", f"{what} access of {width} bytes at offset 0x{bad:x} "
                                             f"is outside the {limit}-byte window")
    if width > 1 and (a & np.uint64(width - 1)).any():
        bad = int(a[(a & np.uint64(width - 1)) != 0][0])
        _fault("CUDA_ERROR_MISALIGNED_ADDRESS", f"{width}-byte {what} access at offset 0x{bad:x}")


def global_offsets(mem, addrs, width, nlanes):
    """Arena offsets of ``nlanes`` global accesses (``addrs`` one per lane, or one for all).

    A single address is checked with one bisect of the allocation table instead of numpy's
    per-call overhead; anything that does not pass goes through ``check_lanes``, which raises
    the exact fault (illegal before misaligned, as a GPU reports it)."""
    if nlanes and addrs.size == 1:
        a = int(addrs.flat[0])
        found = mem.allocation(a)
        if found is not None and a + width <= found[0] + found[1] and a % width == 0:
            return np.full(nlanes, a - mem.base, np.int64)
    if addrs.ndim == 0:
        addrs = np.full(nlanes, addrs, U64)
    return mem.check_lanes(addrs, width)


def resolve(st, space, addrs, width, idx):
    """-> list of (arena, byte offsets, positions within idx or None)."""
    addrs = np.asarray(addrs, U64)
    if space in ("global", "const"):
        return [(st.mem.arena, global_offsets(st.mem, addrs, width, len(idx)), None)]
    if addrs.ndim == 0:
        addrs = np.full(len(idx), addrs, U64)
    if space == "shared":
        blocks = st.lane_block[idx]
        top = addrs.max() if addrs.size else None
        if top is not None and top >= CLUSTER_RANK_UNIT:
            # a shared::cluster address (mapa): another block of the lane's cluster, by rank
            rank = (addrs // CLUSTER_RANK_UNIT).astype(np.int64) - 1
            if (rank < 0).any() or (rank >= st.csize).any():
                bad = int(addrs[(rank < 0) | (rank >= st.csize)][0])
                _fault("CUDA_ERROR_ILLEGAL_ADDRESS", f"shared::cluster address 0x{bad:x} names no block of a "
                                                     f"cluster of {st.csize}")
            addrs, top = addrs % CLUSTER_RANK_UNIT, None
            blocks = blocks - blocks % st.csize + rank
        _check_window(addrs, width, st.shared_limit, "shared", top)
        return [(st.shared, blocks * st.shared_stride + addrs.astype(np.int64), None)]
    if space == "local":
        _check_window(addrs, width, st.local_limit, "local")
        return [(st.local, idx.astype(np.int64) * st.local_stride + addrs.astype(np.int64), None)]
    if space == "param":
        _check_window(addrs, width, len(st.kparam), "kernel parameter")
        return [(st.kparam, addrs.astype(np.int64), None)]
    # generic: classify every lane by window; the common all-global case costs two compares.
    lo = np.uint64(LOCAL_WINDOW - WINDOW_SIZE)
    special = addrs >= lo
    if not special.any():
        return [(st.mem.arena, global_offsets(st.mem, addrs, width, len(idx)), None)]
    out = []
    rest = ~special
    if rest.any():
        sel = np.flatnonzero(rest)
        out.append((st.mem.arena, st.mem.check_lanes(addrs[sel], width), sel))
    for name, base in WINDOWS.items():
        inw = (addrs >= np.uint64(base)) & (addrs < np.uint64(base + WINDOW_SIZE))
        if inw.any():
            sel = np.flatnonzero(inw)
            for arena, offs, _ in resolve(st, name, addrs[sel] - np.uint64(base), width, idx[sel]):
                out.append((arena, offs, sel))
    covered = np.zeros(len(addrs), bool)
    for _, _, sel in out:
        covered[sel if sel is not None else slice(None)] = True
    if not covered.all():
        bad = int(addrs[~covered][0])
        _fault("CUDA_ERROR_ILLEGAL_ADDRESS", f"generic access of {width} bytes at 0x{bad:x} is outside any window")
    return out


def view(arena, dt):
    n = len(arena) - len(arena) % dt.itemsize
    return arena[:n].view(dt)


@op("ld", "ldu", mods=("global", "shared", "shared::cta", "shared::cluster", "local", "const", "param", "weak", "volatile", "relaxed", "acquire", "release", "cta", "gpu", "sys", "ca", "cg", "cs", "lu", "cv", "nc", "wb", "wt", "v2", "v4", "v8", "unified", "L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last", "L1::no_allocate", "L2::evict_normal", "L2::evict_first", "L2::evict_last", "L2::cache_hint", "L2::64B", "L2::128B", "L2::256B"))
def c_ld(ins, ctx):
    parts = ins.parts
    t = _elem_type(parts)
    nvec = _vec(parts)
    space = space_of(parts)
    dst, src = ins.operands[0], ins.operands[1]
    dsts = dst.value if dst.kind == "vec" else [dst]
    if t == "b128":
        raise ValueError("128-bit loads")
    dt = dtype_of(t if t not in ("f16x2", "bf16x2") else "b32")
    size = dt.itemsize
    ga, sp = addr_getter(ctx, src, space)
    if sp == "param" and src.value in ctx.prog.kparams:
        # Kernel parameters are uniform: read once, broadcast on write.
        off = ctx.prog.kparams[src.value] + src.offset
        setters = [ctx.set(o, t) for o in dsts]

        def run_param(st, m):
            for k, s in enumerate(setters):
                s(st, st.kparam[off + k * size:off + (k + 1) * size].view(dt)[0], m)
        return run_param
    setters = [ctx.set_idx(o, t) for o in dsts]
    width = size * nvec

    def run(st, m):
        idx = st.idx(m)
        a = lanes(ga(st), idx, m)
        parts_ = resolve(st, sp, a, width, idx)
        for k, s in enumerate(setters):
            if len(parts_) == 1:
                arena, offs, _ = parts_[0]
                vals = view(arena, dt)[(offs + k * size) // size]
            else:
                vals = np.empty(len(idx), dt)
                for arena, offs, sel in parts_:
                    vals[sel] = view(arena, dt)[(offs + k * size) // size]
            s(st, vals, idx, m)
    return run


@op("st", mods=("global", "shared", "shared::cta", "shared::cluster", "local", "const", "param", "weak", "volatile", "relaxed", "acquire", "release", "cta", "gpu", "sys", "ca", "cg", "cs", "lu", "cv", "nc", "wb", "wt", "v2", "v4", "v8", "unified", "L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last", "L1::no_allocate", "L2::evict_normal", "L2::evict_first", "L2::evict_last", "L2::cache_hint", "L2::64B", "L2::128B", "L2::256B"))
def c_st(ins, ctx):
    parts = ins.parts
    t = _elem_type(parts)
    nvec = _vec(parts)
    space = space_of(parts)
    dst, src = ins.operands[0], ins.operands[1]
    srcs = src.value if src.kind == "vec" else [src]
    dt = dtype_of(t if t not in ("f16x2", "bf16x2") else "b32")
    size = dt.itemsize
    ga, sp = addr_getter(ctx, dst, space)
    if sp == "param" and dst.value in ctx.prog.kparams:
        raise ValueError("stores to kernel parameters")
    getters = [ctx.get(o, t) for o in srcs]
    width = size * nvec

    def run(st, m):
        idx = st.idx(m)
        a = lanes(ga(st), idx, m)
        parts_ = resolve(st, sp, a, width, idx)
        for k, g in enumerate(getters):
            v = lanes(g(st), idx, m)
            for arena, offs, sel in parts_:
                vv = v if sel is None or np.ndim(v) == 0 else v[sel]
                view(arena, dt)[(offs + k * size) // size] = vv
    return run


# -- atomics ---------------------------------------------------------------------------------------
def _combine(opname, t):
    dt = dtype_of(t)
    if opname == "add":
        return np.add
    if opname in ("min", "max"):
        if is_float(t):
            return np.fmin if opname == "min" else np.fmax
        return np.minimum if opname == "min" else np.maximum
    if opname == "and":
        return np.bitwise_and
    if opname == "or":
        return np.bitwise_or
    if opname == "xor":
        return np.bitwise_xor
    if opname == "exch":
        return lambda x, y: np.asarray(y, dt)
    return None


def atomic_rmw(arena, offs, dt, opname, t, b, c):
    """Apply one atomic per lane, serialised per address in lane order; returns the old values."""
    v = view(arena, dt)
    e = offs // dt.itemsize
    k = len(e)
    f = _combine(opname, t)
    if k == 1:  # one lane (a common counter bump): nothing to serialise
        b = np.asarray(b, dt)
        c = np.asarray(c, dt) if c is not None else None
        old = v[e]
        v[e] = f(old, b).astype(dt) if f is not None else _rounds_new(opname, old, b, c, dt)
        return old
    b = np.broadcast_to(np.asarray(b, dt), (k,))
    c = np.broadcast_to(np.asarray(c, dt), (k,)) if c is not None else None
    order = np.argsort(e, kind="stable")
    se = e[order]
    first = np.ones(k, bool)
    first[1:] = se[1:] != se[:-1]
    if first.all():  # no two lanes on one address: one gather, one scatter
        old = v[e]
        v[e] = f(old, b).astype(dt) if f is not None else _rounds_new(opname, old, b, c, dt)
        return old
    starts = np.flatnonzero(first)
    if f is None:
        if opname in _FLOAT_ADDS:
            old = _float_add_runs(v, order, se, starts, b, dt, opname)
            if old is not None:
                return old
        # cas/inc/dec and float sums do not compose associatively: serialise in rounds, one lane
        # per address each.
        seg = np.cumsum(first) - 1
        rank = np.arange(k) - starts[seg]
        old = np.empty(k, dt)
        for r in range(int(rank.max()) + 1):
            lanes_ = order[rank == r]
            o = v[e[lanes_]]
            old[lanes_] = o
            v[e[lanes_]] = _rounds_new(opname, o, b[lanes_], None if c is None else c[lanes_], dt)
        return old
    # Associative ops: segmented inclusive scan (Hillis-Steele) gives every lane the combined value of
    # the lanes before it on the same address, which is exactly what serial execution would return.
    seg = np.cumsum(first) - 1
    pos = np.arange(k) - starts[seg]
    incl = np.asarray(b[order], dt).copy()
    longest = int(pos.max()) + 1
    d = 1
    while d < longest:
        nxt = incl.copy()
        ok = pos[d:] >= d
        nxt[d:] = np.where(ok, f(incl[:-d], incl[d:]), incl[d:])
        incl = nxt.astype(dt, copy=False)
        d *= 2
    base = v[se[starts]]
    prev = np.empty_like(incl)
    prev[1:] = incl[:-1]
    old_sorted = np.where(pos == 0, base[seg], f(base[seg], prev)).astype(dt)
    ends = np.r_[starts[1:] - 1, k - 1]
    v[se[starts]] = f(base, incl[ends]).astype(dt)
    old = np.empty(k, dt)
    old[order] = old_sorted
    return old


def _float_add_runs(v, order, se, starts, b, dt, opname):
    """The float sums of lanes that share few addresses (a block adding into one total), each
    address's lanes one after another in lane order by np.add.accumulate, which rounds every
    partial sum in dt as the rounds do, in one call per address instead of one round per lane.
    Returns the old values, or None (nothing written) where the rounds are cheaper (many addresses
    with few lanes each) or must run: an f32 partial sum that is subnormal or NaN (the flush and
    the canonical NaN apply there)."""
    ends = np.r_[starts[1:], len(order)]
    if len(starts) > 4 * int((ends - starts).max()):  # many addresses, few lanes each: few rounds
        return None
    f32, flush = opname.startswith("add.f32"), opname == "add.f32"
    bs = np.asarray(b, dt)[order]
    if flush:
        bs = ftz(bs)
    old_sorted, news = np.empty(len(order), dt), []
    for s0, s1 in zip(starts, ends):
        base = v[se[s0]]
        head = np.asarray(ftz(base) if flush else base, dt).reshape(1)
        acc = np.add.accumulate(np.concatenate((head, bs[s0:s1])), dtype=dt)
        if f32 and np.isnan(acc).any() or flush and ((acc != 0) & (np.abs(acc) < np.finfo(dt).tiny)).any():
            return None
        old_sorted[s0] = base  # the memory's own bits, unflushed
        old_sorted[s0 + 1:s1] = acc[1:-1]
        news.append(acc[-1])
    v[se[starts]] = np.asarray(news, dt)
    old = np.empty(len(order), dt)
    old[order] = old_sorted
    return old


def _half_add(t: str):
    """atom.add on f16/bf16 (and their x2 pairs, each half on its own): raw bits in, raw bits out,
    the sum rounded once to the element type."""
    def decode(raw):
        if t.startswith("bf16"):
            return (raw.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        return raw.view(np.float16).astype(np.float64)

    def encode(v):
        return f32_to_bf16(v.astype(np.float32)) if t.startswith("bf16") else v.astype(np.float16).view(np.uint16)

    def add(old, b):
        if t.endswith("x2"):
            halves = np.stack([old & 0xFFFF, old >> 16], -1).astype(np.uint16)
            bh = np.stack([np.asarray(b) & 0xFFFF, np.asarray(b) >> 16], -1).astype(np.uint16)
            s = encode(decode(halves) + decode(bh)).astype(np.uint32)
            return (s[..., 0] | (s[..., 1] << 16)).astype(np.uint32)
        return encode(decode(np.asarray(old, np.uint16)) + decode(np.asarray(b, np.uint16)))
    return add


_HALF_ADDS = {f"add.{t}": _half_add(t) for t in ("f16", "bf16", "f16x2", "bf16x2")}
# atom/red.add.f32 as PTX defines it: rounded to nearest; in global memory subnormal inputs and
# results flushed to a zero of their sign (in shared memory kept); as all f32 arithmetic on a GPU, a
# NaN result the canonical 0x7fffffff. .f64 is the plain IEEE sum.
_FLOAT_ADDS = {"add.f32": lambda old, b: canonical(ftz(ftz(old) + ftz(b)), "f32"),
               "add.f32.shared": lambda old, b: canonical(np.add(old, b), "f32"),
               "add.f64": lambda old, b: np.add(old, b)}


def _rounds_new(opname, old, b, c, dt):
    if opname in _HALF_ADDS:
        return _HALF_ADDS[opname](old, b).astype(dt)
    if opname in _FLOAT_ADDS:
        return np.asarray(_FLOAT_ADDS[opname](old, b), dt)
    if opname == "cas":
        return np.where(old == b, c, old).astype(dt)
    if opname == "inc":
        return np.where(old >= b, dt.type(0), old + dt.type(1)).astype(dt)
    if opname == "dec":
        return np.where((old == 0) | (old > b), b, old - dt.type(1)).astype(dt)
    return _combine(opname, "")(old, b).astype(dt)


ATOM_OPS = ("add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas")


@op("atom", "red", mods=("global", "shared", "shared::cta", "shared::cluster", *ATOM_OPS, "relaxed", "acquire", "release",
                        "acq_rel", "cta", "gpu", "sys", "noftz", "L2::cache_hint"))
def c_atom(ins, ctx):
    parts = ins.parts
    is_red = parts[0] == "red"
    opname = next(p for p in parts if p in ATOM_OPS)
    t = _elem_type(parts)
    if _vec(parts) > 1:
        raise ValueError(f"vector atomics ({ins.opcode})")
    if t in ("f16", "bf16", "f16x2", "bf16x2"):
        if opname != "add":
            raise ValueError(f"atomics on .{t} other than add ({ins.opcode})")
        # Serialised per address by atomic_rmw's rounds: the sum's rounding is not associative.
        opname, t = f"add.{t}", ("b16" if t in ("f16", "bf16") else "b32")
    elif t in ("f32", "f64") and opname == "add":
        # the same for f32 and f64 sums: lane after lane on one address, as a thread at a time (the
        # compiled path, jit/ops.e_atom) adds them; a tree of the lanes' values rounds otherwise
        opname = f"add.{t}"
    dt = dtype_of(t)
    space = space_of(parts)
    ops = ins.operands
    if is_red:
        d, a, rest = None, ops[0], ops[1:]
    else:
        d, a, rest = ops[0], ops[1], ops[2:]
    ga, sp = addr_getter(ctx, a, space)
    gb = ctx.get(rest[0], t)
    gc = ctx.get(rest[1], t) if opname == "cas" else None
    sd = ctx.set_idx(d, t) if d is not None else None

    def run(st, m):
        idx = st.idx(m)
        addr = lanes(ga(st), idx, m)
        b = lanes(gb(st), idx, m)
        c = lanes(gc(st), idx, m) if gc else None
        old = np.empty(len(idx), dt)
        for arena, offs, sel in resolve(st, sp, addr, dt.itemsize, idx):
            bb = b if sel is None or np.ndim(b) == 0 else b[sel]
            cc = c if sel is None or c is None or np.ndim(c) == 0 else c[sel]
            # atom.add.f32 flushes subnormals in global memory only
            r = atomic_rmw(arena, offs, dt, opname if opname != "add.f32" or arena is st.mem.arena
                           else "add.f32.shared", t, bb, cc)
            if sel is None:
                old = r
            else:
                old[sel] = r
        if sd:
            sd(st, old, idx, m)
    return run


# -- address conversions -------------------------------------------------------------------------
@op("cvta", mods=("to", "global", "shared", "shared::cta", "local", "const", "param"))
def c_cvta(ins, ctx):
    parts = ins.parts
    t = _elem_type(parts)
    to = "to" in parts
    space = space_of(parts)
    d, a = ins.operands[:2]
    g = ctx.get(a, "u64") if a.kind != "sym" else None
    if a.kind == "sym":
        c = np.uint64(ctx.generic(a.value) + a.offset if not to else ctx.sym(a.value)[1] + a.offset)
        sd = ctx.set(d, t)
        if a.value in ctx.prog.frame_syms:  # a recursive activation's own .local data (ops_stack.py)
            return lambda st, m: sd(st, to_bits(st.R[FP] + c, dtype_of(t)), m)
        return lambda st, m: sd(st, to_bits(c, dtype_of(t)), m)
    base = np.uint64(WINDOWS.get(space, 0))
    sd = ctx.set(d, t)
    if base == 0:
        return lambda st, m: sd(st, to_bits(np.asarray(g(st)), dtype_of(t)), m)
    if to:
        return lambda st, m: sd(st, to_bits(np.asarray(g(st)) - base, dtype_of(t)), m)
    return lambda st, m: sd(st, to_bits(np.asarray(g(st)) + base, dtype_of(t)), m)


@op("mapa", mods=("shared::cluster",))
def c_mapa(ins, ctx):
    """mapa[.shared::cluster].u32/.u64 d, a, rank: the address of a's shared variable in the block of
    that rank of the cluster (a shared::cluster address, or a generic one in the shared window)."""
    t = _elem_type(ins.parts)
    d, a, r = ins.operands[:3]
    ga = ctx.get(a, "u64")
    gr = ctx.get(r, "u32")
    sd = ctx.set(d, t)
    generic = "shared::cluster" not in ins.parts
    base = np.uint64(SHARED_WINDOW)

    def run(st, m):
        x = np.asarray(ga(st)).astype(np.uint64)
        off = (x - base if generic else x) % CLUSTER_RANK_UNIT
        out = off + (np.asarray(gr(st)).astype(np.uint64) + np.uint64(1)) * CLUSTER_RANK_UNIT
        sd(st, to_bits(out + base if generic else out, dtype_of(t)), m)
    return run


@op("isspacep", mods=("global", "shared", "shared::cta", "shared::cluster", "local", "const", "param",))
def c_isspacep(ins, ctx):
    space = "shared" if ins.parts[1].startswith("shared") else ins.parts[1]  # a cluster's too: one window
    d, a = ins.operands[:2]
    g = ctx.get(a, "u64")
    sd = ctx.set(d, "pred")

    def run(st, m):
        x = np.asarray(g(st))
        if space in WINDOWS:
            b = WINDOWS[space]
            r = (x >= np.uint64(b)) & (x < np.uint64(b + WINDOW_SIZE))
        else:  # global/const: outside every other window
            r = x < np.uint64(PARAM_WINDOW)
        sd(st, r, m)
    return run


@op("mov")
def c_mov(ins, ctx):
    t = _elem_type(ins.parts)
    d, a = ins.operands[:2]
    dt = dtype_of(t)
    if a.kind == "vec":  # pack {lo, ..., hi}
        n = len(a.value)
        part = UNSIGNED[dt.itemsize // n]
        gets = [ctx.get(o, "b%d" % (part.itemsize * 8)) for o in a.value]
        sd = ctx.set(d, t)
        W = UNSIGNED[dt.itemsize]

        def pack(st, m):
            r = None
            for k, g in enumerate(gets):
                x = np.asarray(g(st)).astype(W) << W.type(part.itemsize * 8 * k)
                r = x if r is None else (r | x)
            sd(st, r.view(dt), m)
        return pack
    if d.kind == "vec":  # unpack
        n = len(d.value)
        part = UNSIGNED[dt.itemsize // n]
        ga = ctx.get(a, "b%d" % (dt.itemsize * 8))
        sets = [ctx.set(o, "b%d" % (part.itemsize * 8)) for o in d.value]
        W = UNSIGNED[dt.itemsize]

        def unpack(st, m):
            x = np.asarray(ga(st)).astype(W)
            for k, s in enumerate(sets):
                s(st, (x >> W.type(part.itemsize * 8 * k)).astype(part), m)
        return unpack
    ga = ctx.get(a, t)
    sd = ctx.set(d, t)
    return lambda st, m: sd(st, ga(st), m)


@op("prefetch", "prefetchu", "applypriority", "discard", mods=ANY)
def c_hint(ins, ctx):
    # Cache hints change timing, never values.
    return lambda st, m: None


@op("createpolicy", mods=ANY)
def c_createpolicy(ins, ctx):
    sd = ctx.set(ins.operands[0], "b64")
    return lambda st, m: sd(st, np.uint64(0), m)
