"""Hopper's bulk copies and the mbarriers they complete on (PTX ISA: mbarrier, cp.async.bulk,
cp.async.bulk.tensor), as TMA kernels (tensor_map.cu, CUTLASS 3, Triton) and cuda::barrier use them.

An mbarrier is 64 bits of shared memory. Its layout is the hardware's secret; the sim keeps the
arrivals still pending in its current phase, the count each phase expects, the transaction bytes
still to come (signed: a copy may complete before its bytes are announced) and the phase's parity.
A phase completes when no arrival and no byte is pending; waits ask whether the phase of a given
parity (or of a state an arrive returned) is over.

A bulk copy completes when it is issued — one of the orders the program must allow for — and
counts its bytes off its mbarrier then, so a wait that follows sees them arrived. A tensor copy
reads the map (server/backends/sim/tensormaps.py: the sim's own encoding) from wherever the program
keeps it (a __grid_constant__ parameter, global memory), moves a box of the tensor between global
and shared memory, fills elements outside the tensor with zeros (or NaN, as the map asks) on a load
and skips them on a store, and lays the box out in shared memory as the map's swizzle says."""
from __future__ import annotations

import numpy as np

from ..errors import SimError, SimFault
from ..tensormaps import SWIZZLE_SPAN, decode
from .interp import ANY, op
from .ops_mem import addr_getter, global_offsets, lanes, resolve, space_of
from .parser import Operand

_BITS = 21
_MASK = (1 << _BITS) - 1
_SIGN = 1 << (_BITS - 1)
PHASE_BIT = 63


def _unpack(word: int) -> tuple[int, int, int, int]:
    """(pending arrivals, expected arrivals, transaction bytes pending, phase parity)."""
    tx = (word >> (2 * _BITS)) & _MASK
    if tx & _SIGN:
        tx -= 1 << _BITS
    return word & _MASK, (word >> _BITS) & _MASK, tx, (word >> PHASE_BIT) & 1


def _pack(pending: int, expected: int, tx: int, phase: int) -> int:
    return pending | expected << _BITS | (tx & _MASK) << (2 * _BITS) | phase << PHASE_BIT


def _settle(pending, expected, tx, phase) -> int:
    """The word, with its phase completed if nothing is pending any more."""
    if pending == 0 and tx == 0:
        return _pack(expected, expected, 0, phase ^ 1)
    return _pack(pending, expected, tx, phase)


class _Words:
    """The mbarrier words of the active lanes: read, changed and written back one lane at a time, in
    lane order (several lanes may share a barrier)."""

    def __init__(self, st, space, addrs, idx):
        self.cells = []
        for arena, offs, part in resolve(st, space, addrs, 8, idx):
            lanes_of = range(len(idx)) if part is None else part
            for k, o in zip(lanes_of, offs):
                self.cells.append((int(k), arena, int(o)))
        self.cells.sort()

    def __iter__(self):
        for k, arena, o in self.cells:
            yield k, arena, o

    @staticmethod
    def get(arena, o) -> int:
        return int(arena[o:o + 8].view(np.uint64)[0])

    @staticmethod
    def put(arena, o, word: int) -> None:
        arena[o:o + 8] = np.frombuffer(np.uint64(word).tobytes(), np.uint8)


def _barrier_space(parts) -> str:
    space = space_of(parts)
    return "shared" if space == "generic" and any(p.startswith("shared") for p in parts) else space


def _operand_getter(ctx, o, t="u32"):
    return (lambda st: np.uint64(0)) if o is None else ctx.get(o, t)


@op("mbarrier", mods=ANY)
def c_mbarrier(ins, ctx):
    parts = ins.parts
    kind = parts[1]
    space = _barrier_space(parts)
    ops = ins.operands
    if kind == "pending_count":
        d, s = ops[:2]
        g, sd = ctx.get(s, "b64"), ctx.set(d, "u32")
        return lambda st, m: sd(st, (np.asarray(g(st)).astype(np.uint64) & np.uint64(_MASK)).astype(np.uint32), m)
    if kind in ("init", "inval", "expect_tx", "complete_tx"):
        ga, _ = addr_getter(ctx, ops[0], space)
        gv = _operand_getter(ctx, ops[1] if len(ops) > 1 else None)

        def run(st, m):
            idx = st.idx(m)
            a = np.broadcast_to(lanes(ga(st), idx, m), (len(idx),))
            v = np.broadcast_to(lanes(np.asarray(gv(st)), idx, m), (len(idx),))
            for k, arena, o in _Words(st, space, a, idx):
                n = int(v[k])
                if kind == "init":
                    if not 1 <= n <= _MASK:
                        raise SimError("CUDA_ERROR_ILLEGAL_INSTRUCTION", f"mbarrier.init count {n}")
                    _Words.put(arena, o, _pack(n, n, 0, 0))
                elif kind == "inval":
                    _Words.put(arena, o, 0)
                else:
                    p, e, tx, ph = _unpack(_Words.get(arena, o))
                    tx += n if kind == "expect_tx" else -n
                    _Words.put(arena, o, _settle(p, e, tx, ph))
        return run
    if kind in ("arrive", "arrive_drop"):
        d, a_op = ops[:2]
        ga, _ = addr_getter(ctx, a_op, space)
        expect = "expect_tx" in parts
        no_complete = "noComplete" in parts
        gn = _operand_getter(ctx, ops[2] if len(ops) > 2 else None)
        sd = ctx.set_idx(d, "b64")

        def run(st, m):
            idx = st.idx(m)
            a = np.broadcast_to(lanes(ga(st), idx, m), (len(idx),))
            n = np.broadcast_to(lanes(np.asarray(gn(st)), idx, m), (len(idx),))
            tokens = np.zeros(len(idx), np.uint64)
            for k, arena, o in _Words(st, space, a, idx):
                word = _Words.get(arena, o)
                tokens[k] = np.uint64(word)
                p, e, tx, ph = _unpack(word)
                count = 1 if (expect or len(ops) < 3) else int(n[k])
                if expect:
                    tx += int(n[k])
                p -= count
                if kind == "arrive_drop":
                    e -= count
                if p < 0:
                    raise SimFault("CUDA_ERROR_ILLEGAL_INSTRUCTION", "mbarrier arrival past its expected count")
                if no_complete and p == 0 and tx == 0:
                    raise SimFault("CUDA_ERROR_ILLEGAL_INSTRUCTION", "mbarrier.arrive.noComplete completed a phase")
                _Words.put(arena, o, _settle(p, e, tx, ph))
            sd(st, tokens, idx, m)
        return run
    if kind in ("test_wait", "try_wait"):
        d, a_op, s_op = ops[:3]
        ga, _ = addr_getter(ctx, a_op, space)
        parity = "parity" in parts
        gs = ctx.get(s_op, "u32" if parity else "b64")
        sd = ctx.set_idx(d, "pred")

        def run(st, m):
            idx = st.idx(m)
            a = np.broadcast_to(lanes(ga(st), idx, m), (len(idx),))
            s = np.broadcast_to(lanes(np.asarray(gs(st)), idx, m), (len(idx),))
            done = np.zeros(len(idx), bool)
            for k, arena, o in _Words(st, space, a, idx):
                phase = _unpack(_Words.get(arena, o))[3]
                asked = int(s[k]) & 1 if parity else (int(s[k]) >> PHASE_BIT) & 1
                done[k] = phase != asked  # the phase of that parity is the previous one: it is over
            sd(st, done, idx, m)
        return run
    raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode} is not supported by the software GPU")


def compile_copies_arrive(ins, ctx):
    """cp.async.mbarrier.arrive[.noinc]: an arrival on the mbarrier once the thread's earlier cp.async
    copies are done — at once here, where they completed when issued. Without .noinc the pending count
    is raised by one first, so the arrival only balances it; with it, the arrival counts."""
    if "noinc" not in ins.parts:
        return lambda st, m: None
    space = _barrier_space(ins.parts)
    ga, _ = addr_getter(ctx, ins.operands[0], space)

    def run(st, m):
        idx = st.idx(m)
        a = np.broadcast_to(lanes(ga(st), idx, m), (len(idx),))
        for _k, arena, o in _Words(st, space, a, idx):
            p, e, tx, ph = _unpack(_Words.get(arena, o))
            if p < 1:
                raise SimFault("CUDA_ERROR_ILLEGAL_INSTRUCTION", "mbarrier arrival past its expected count")
            _Words.put(arena, o, _settle(p - 1, e, tx, ph))
    return run


# -- bulk copies -----------------------------------------------------------------------------------
def compile_bulk(ins, ctx):
    """cp.async.bulk[.tensor|.prefetch] and their group bookkeeping (called from ops_async's cp)."""
    parts = ins.parts
    if "commit_group" in parts or "wait_group" in parts or "prefetch" in parts:
        return lambda st, m: None  # copies complete at issue: nothing is ever outstanding
    if "multicast::cluster" in parts:
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode}: the software GPU runs no clusters to multicast to")
    if "tensor" in parts:
        if "im2col" in parts:
            raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode}: the software GPU copies tiles only")
        return _tensor_copy(ins, ctx)
    return _bulk_copy(ins, ctx)


def _mbar(ctx, ins, o):
    if o is None or "mbarrier::complete_tx::bytes" not in ins.parts:
        return None
    return addr_getter(ctx, o, "shared")[0]


def _bars(st, mbar, idx, m):
    """Each active lane's mbarrier address, or None for a copy that completes on none."""
    return None if mbar is None else np.broadcast_to(lanes(mbar(st), idx, m), (len(idx),))


def _complete(st, addr: int, lane: int, nbytes: int) -> None:
    """The copy's bytes arrived: counted off the transaction count of the mbarrier at `addr`."""
    for _k, arena, o in _Words(st, "shared", np.asarray([addr], np.uint64), np.array([lane])):
        p, e, tx, ph = _unpack(_Words.get(arena, o))
        _Words.put(arena, o, _settle(p, e, tx - nbytes, ph))


def _shared_rows(st, lane):
    return int(st.lane_block[lane]) * st.shared_stride


def _check_shared(st, off: int, n: int, what: str) -> None:
    if off < 0 or off + n > st.shared_limit:
        raise SimFault("CUDA_ERROR_ILLEGAL_ADDRESS", f"{what}: [{off}, +{n}) is outside the block's shared memory")


def _bulk_copy(ins, ctx):
    """cp.async.bulk.shared::cluster.global (load, onto an mbarrier) and .global.shared::cta (store)."""
    ops = ins.operands
    load = ins.parts[3] in ("shared::cluster", "shared::cta", "shared")
    gd, dspace = addr_getter(ctx, ops[0], "shared" if load else "global")
    gs, sspace = addr_getter(ctx, ops[1], "global" if load else "shared")
    gn = ctx.get(ops[2], "u32")
    mbar = _mbar(ctx, ins, ops[3] if len(ops) > 3 else None)

    def run(st, m):
        idx = st.idx(m)
        d = np.broadcast_to(lanes(gd(st), idx, m), (len(idx),))
        s = np.broadcast_to(lanes(gs(st), idx, m), (len(idx),))
        n = np.broadcast_to(lanes(np.asarray(gn(st)), idx, m), (len(idx),))
        bars = _bars(st, mbar, idx, m)
        for k, lane in enumerate(idx):
            size = int(n[k])
            if size % 16 or int(d[k]) % 16 or int(s[k]) % 16:
                raise SimFault("CUDA_ERROR_MISALIGNED_ADDRESS", f"{ins.opcode}: addresses and size must be "
                                                                f"multiples of 16 ({int(d[k])}, {int(s[k])}, {size})")
            one = np.array([lane])
            data = _read(st, sspace, int(s[k]), size, one)
            _write(st, dspace, int(d[k]), data, one)
            if bars is not None:
                _complete(st, int(bars[k]), lane, size)
    return run


def _span(st, space, addr: int, size: int, one):
    """(arena, offset) of the `size` bytes at `addr`: both ends checked, as the copy engine faults."""
    ends = np.asarray([addr, addr + max(size, 1) - 1], np.uint64)
    arena, offs, _ = resolve(st, space, ends, 1, np.repeat(one, 2))[0]
    return arena, int(offs[0])


def _read(st, space, addr, size, one) -> np.ndarray:
    arena, o = _span(st, space, addr, size, one)
    return arena[o:o + size].copy()


def _write(st, space, addr, data, one) -> None:
    arena, o = _span(st, space, addr, len(data), one)
    arena[o:o + len(data)] = data


_NAN = {6: b"\x00\x7e", 9: b"\xc0\x7f", 7: b"\x00\x00\xc0\x7f", 10: b"\x00\x00\xc0\x7f", 11: b"\x00\x00\xc0\x7f",
        12: b"\x00\x00\xc0\x7f", 8: b"\x00\x00\x00\x00\x00\x00\xf8\x7f"}


def _tensor_copy(ins, ctx):
    """cp.async.bulk.tensor.Nd: a box of the map's tensor at the given coordinates, between global
    memory and shared memory (load onto an mbarrier, or store)."""
    parts = ins.parts
    ops = ins.operands
    rank = next(int(p[0]) for p in parts if len(p) == 2 and p[1] == "d" and p[0] in "12345")
    load = ops[0].kind != "list"
    tensor, other = (ops[1], ops[0]) if load else (ops[0], ops[1])
    if tensor.kind != "list" or len(tensor.value) != 2 or tensor.value[1].kind != "vec":
        raise SimError("CUDA_ERROR_INVALID_PTX", f"{ins.opcode}: expected [tensorMap, {{coordinates}}]")
    map_op, coords = tensor.value
    gmap, mspace = addr_getter(ctx, map_op if map_op.kind != "reg" else Operand("addr", map_op.value), "generic")
    if len(coords.value) != rank:
        raise SimError("CUDA_ERROR_INVALID_PTX", f"{ins.opcode}: {len(coords.value)} coordinates for {rank} dimensions")
    gcoords = [ctx.get(c, "s32") for c in coords.value]
    gsmem, _ = addr_getter(ctx, other, "shared")
    mbar = _mbar(ctx, ins, ops[2] if load and len(ops) > 2 else None)

    def run(st, m):
        idx = st.idx(m)
        maps = np.broadcast_to(lanes(gmap(st), idx, m), (len(idx),))
        smem = np.broadcast_to(lanes(gsmem(st), idx, m), (len(idx),))
        cs = [np.broadcast_to(lanes(np.asarray(g(st)), idx, m), (len(idx),)) for g in gcoords]
        bars = _bars(st, mbar, idx, m)
        for k, lane in enumerate(idx):
            one = np.array([lane])
            tmap = decode(_read(st, mspace, int(maps[k]), 128, one).tobytes())
            if tmap.rank != rank:
                raise SimFault("CUDA_ERROR_ILLEGAL_INSTRUCTION",
                               f"{ins.opcode}: the tensor map has {tmap.rank} dimensions, not {rank}")
            at = [int(np.int32(c[k])) for c in cs]
            nbytes = _move_box(st, tmap, at, int(smem[k]), lane, load)
            if bars is not None:
                _complete(st, int(bars[k]), lane, nbytes)
    return run


def _move_box(st, tmap, at, smem: int, lane: int, load: bool) -> int:
    """Copy the box at coordinates `at`; returns the bytes the box takes in shared memory."""
    elem = tmap.element_bytes
    counts = [-(-b // e) for b, e in zip(tmap.box, tmap.element_strides)]
    # every element of the box, dimension 0 fastest: its coordinates in the tensor
    grids = np.meshgrid(*[np.arange(n, dtype=np.int64) for n in reversed(counts)], indexing="ij")
    pos = [g.ravel() for g in reversed(grids)]  # pos[i]: index along dimension i
    coord = [at[i] + pos[i] * tmap.element_strides[i] for i in range(tmap.rank)]
    inside = np.ones(len(pos[0]), bool)
    for i in range(tmap.rank):
        inside &= (coord[i] >= 0) & (coord[i] < tmap.dims[i])
    total = len(pos[0]) * elem
    rows = _shared_rows(st, lane)
    _check_shared(st, smem, total, "a tensor copy's box")
    byte = np.arange(elem, dtype=np.int64)
    soff = smem + np.arange(len(pos[0]), dtype=np.int64) * elem
    span = SWIZZLE_SPAN[tmap.swizzle]
    if span:  # 16-byte chunks within each span-byte row, XORed with the row's index (CUTLASS's Swizzle<B,4,3>)
        soff = soff ^ (((soff >> 7) & (span // 16 - 1)) << 4)
    sidx = rows + soff[:, None] + byte[None, :]
    strides = (elem,) + tuple(tmap.strides)
    gaddr = np.full(len(pos[0]), tmap.address, np.int64)
    for i in range(tmap.rank):
        gaddr += np.where(inside, coord[i], 0) * strides[i]
    sel = np.flatnonzero(inside)
    if load:
        fill = _NAN.get(tmap.dtype, b"\0" * elem) if tmap.oob else b"\0" * elem
        data = np.tile(np.frombuffer(fill, np.uint8), (len(pos[0]), 1))
        if sel.size:
            offs = global_offsets(st.mem, gaddr[sel].astype(np.uint64), elem, sel.size)
            data[sel] = st.mem.arena[offs[:, None] + byte[None, :]]
        st.shared[sidx] = data
    elif sel.size:
        offs = global_offsets(st.mem, gaddr[sel].astype(np.uint64), elem, sel.size)
        st.mem.arena[offs[:, None] + byte[None, :]] = st.shared[sidx[sel]]
    return total
