"""Warp- and block-collective instructions: shfl, vote, match, activemask, redux, bar/barrier.

Lanes are laid out block after block, each block padded to whole warps, so ``reshape(-1, 32)``
gives the warps of the batch. The lanes taking part in a collective are the lanes of the
scheduled group (those converged at this instruction) that the member mask names. A shfl reading
from a lane that is not active gets 0, as the hardware gives (the ISA leaves it undefined); the
other collectives read an inactive lane's register as it stands.

Block barriers (``bar.sync``/``barrier.sync`` of the whole block) wait: min-PC scheduling lets
a group reach the barrier first when the lanes it waits for sit at higher PCs, as they do when the
compiler placed their side of a branch after the barrier and jumps back (numba's reductions). The
group then parks there until the rest of its block arrives; the last arrivals release it. Barriers
with a thread count, and the reductions (bar.red), keep to min-PC order alone.
"""
from __future__ import annotations

import numpy as np

from ..errors import SimFault
from .interp import BARRIER_WAIT, DEFERRED, INF, guard_mask, op
from .ops_ctrl import _param_reader, ret_slot, write_ret
from .types import dtype_of, types_in

W = 32


def _group(st, m, member=None):
    """Boolean (n,) of lanes taking part: in the group and in the member mask."""
    act = np.ones(st.n, bool) if m is None else m
    if member is not None:
        mem = np.asarray(member).astype(np.uint64)
        bit = (mem >> st.laneid64) & np.uint64(1) if mem.ndim else \
            ((np.uint64(mem) >> st.laneid64) & np.uint64(1))
        act = act & (bit != 0)
    return act


def _masks(st, member):
    """Each lane's member mask, (n,) uint32. Lanes of one warp may name different masks at once
    (cooperative groups' tiles: lanes 0-15 say 0x0000ffff, lanes 16-31 0xffff0000); each lane's
    collective then covers the lanes of its own mask only."""
    return np.broadcast_to(np.asarray(member).astype(np.uint32), (st.n,))


def _ballot(st, bits):
    """Per-lane uint32 of the warp's ballot of ``bits`` (n,) bool."""
    w = bits.reshape(-1, W).astype(np.uint64) << st.lane_shift[None, :]
    per_warp = w.sum(axis=1).astype(np.uint32)
    return np.repeat(per_warp, W)


@op("shfl", mods=("sync", "up", "down", "bfly", "idx"))
def c_shfl(ins, ctx):
    parts = ins.parts
    mode = next(p for p in parts if p in ("up", "down", "bfly", "idx"))
    d, a, b, c = ins.operands[:4]
    ga, gb, gc = ctx.get(a, "b32"), ctx.get(b, "u32"), ctx.get(c, "u32")
    if d.kind == "vec":
        sd, sp = ctx.set(d.value[0], "b32"), ctx.set(d.value[1], "pred")
    else:
        sd, sp = ctx.set(d, "b32"), None

    def run(st, m):
        lane = st.laneid
        bval = np.asarray(gb(st)).astype(np.int64) & 31
        cv = np.asarray(gc(st)).astype(np.int64)
        cval, seg = cv & 31, (cv >> 8) & 31
        max_lane = (lane & seg) | (cval & ~seg)
        min_lane = lane & seg
        if mode == "up":
            j = lane - bval
            ok = j >= max_lane
        elif mode == "down":
            j = lane + bval
            ok = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bval
            ok = j <= max_lane
        else:
            j = min_lane | (bval & ~seg)
            ok = j <= max_lane
        j = np.where(ok, j, lane)
        src = np.broadcast_to(np.asarray(ga(st)), (st.n,))
        at = st.warp_base + j
        val = src[at]
        if m is not None:
            # A source lane not executing this shfl gives 0, as GPUs do (the ISA leaves it
            # undefined; NVIDIA's own reduction sample sums a partial warp relying on it).
            val = np.where(m[at], val, src.dtype.type(0))
        sd(st, val, m)
        if sp:
            sp(st, np.broadcast_to(ok, (st.n,)), m)
    return run


@op("vote", mods=("sync", "all", "any", "uni", "ballot"))
def c_vote(ins, ctx):
    parts = ins.parts
    mode = next(p for p in parts if p in ("all", "any", "uni", "ballot"))
    d, a = ins.operands[:2]
    ga = ctx.get(a, "pred")
    gm = ctx.get(ins.operands[2], "b32") if len(ins.operands) > 2 else None
    sd = ctx.set(d, "b32" if mode == "ballot" else "pred")

    def run(st, m):
        member = gm(st) if gm else None
        act = _group(st, m, member)
        p = np.broadcast_to(np.asarray(ga(st)), (st.n,))
        yes = _ballot(st, p & act)
        part = _ballot(st, act)
        if member is not None:
            mine = _masks(st, member)
            yes, part = yes & mine, part & mine
        if mode == "ballot":
            sd(st, yes, m)
            return
        if mode == "all":
            r = yes == part
        elif mode == "any":
            r = yes != 0
        else:
            r = (yes == part) | (yes == 0)
        sd(st, r, m)
    return run


@op("activemask")
def c_activemask(ins, ctx):
    sd = ctx.set(ins.operands[0], "b32")
    return lambda st, m: sd(st, _ballot(st, _group(st, m)), m)


@op("match", mods=("sync", "any", "all"))
def c_match(ins, ctx):
    parts = ins.parts
    t = types_in(parts)[-1]
    mode = "all" if "all" in parts else "any"
    d, a, mk = ins.operands[:3]
    ga, gm = ctx.get(a, t), ctx.get(mk, "b32")
    if d.kind == "vec":
        sd, sp = ctx.set(d.value[0], "b32"), ctx.set(d.value[1], "pred")
    else:
        sd, sp = ctx.set(d, "b32"), None

    def run(st, m):
        member = gm(st)
        act = _group(st, m, member).reshape(-1, W)
        mine = _masks(st, member).reshape(-1, W)
        v = np.broadcast_to(np.asarray(ga(st)), (st.n,)).reshape(-1, W)
        same = (v[:, :, None] == v[:, None, :]) & act[:, None, :]
        bits = (same.astype(np.uint64) << st.lane_shift[None, None, :]).sum(axis=2).astype(np.uint32) & mine
        allbits = (act.astype(np.uint64) << st.lane_shift[None, :]).sum(axis=1).astype(np.uint32)[:, None] & mine
        if mode == "any":
            sd(st, bits.reshape(-1), m)
            return
        eq = bits == allbits
        sd(st, np.where(eq, allbits, 0).astype(np.uint32).reshape(-1), m)
        if sp:
            sp(st, eq.reshape(-1), m)
    return run


@op("redux", mods=("sync", "add", "min", "max", "and", "or", "xor"))
def c_redux(ins, ctx):
    parts = ins.parts
    kind = next(p for p in parts if p in ("add", "min", "max", "and", "or", "xor"))
    t = types_in(parts)[-1]
    dt = dtype_of(t)
    d, a, mk = ins.operands[:3]
    ga, gm, sd = ctx.get(a, t), ctx.get(mk, "b32"), ctx.set(d, t)
    ufunc = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
             "or": np.bitwise_or, "xor": np.bitwise_xor}[kind]
    info = np.iinfo(dt)
    neutral = {"add": 0, "min": info.max, "max": info.min, "and": info.max if dt.kind == "u" else -1,
               "or": 0, "xor": 0}[kind]

    def run(st, m):
        member = gm(st)
        act = _group(st, m, member)
        v = np.broadcast_to(np.asarray(ga(st), dt), (st.n,))
        v = np.where(act, v, dt.type(neutral)).reshape(-1, W)
        if np.ndim(member) == 0:  # one mask for every lane: one reduction per warp
            sd(st, np.repeat(ufunc.reduce(v, axis=1, dtype=dt).astype(dt), W), m)
            return
        # Lane i reduces over the lanes its own mask names: (warps, lane i, lane j) membership.
        mine = _masks(st, member).reshape(-1, W).astype(np.uint64)
        inside = ((mine[:, :, None] >> st.lane_shift[None, None, :].astype(np.uint64)) & np.uint64(1)) != 0
        r = ufunc.reduce(np.where(inside, v[:, None, :], dt.type(neutral)), axis=2, dtype=dt).astype(dt)
        sd(st, r.reshape(-1), m)
    return run


@op("bar", "barrier", mods=("sync", "arrive", "red", "popc", "and", "or", "cta", "aligned", "warp",
                            "cluster", "wait", "release", "acquire", "relaxed"))
def c_bar(ins, ctx):
    parts = ins.parts
    if "cluster" in parts:
        # cluster.sync(): every thread of the cluster's blocks (consecutive in the batch) meets at the
        # wait; the arrive only announces it, so it is where the waiting ends that matters
        if "arrive" in parts:
            return lambda st, m: None
        return _block_barrier(ins, ctx.pc, span=lambda st: st.csize * st.tpad)
    if "red" not in parts:
        if "warp" in parts or "arrive" in parts or len(ins.operands) != 1:
            return lambda st, m: None  # a warp barrier, an arrival, or a count of threads
        return _block_barrier(ins, ctx.pc)
    # bar.red.{popc.u32 | and.pred | or.pred} d, id{, count}, {!}p: a block-wide reduction.
    kind = next(p for p in parts if p in ("popc", "and", "or"))
    d = ins.operands[0]
    pred_op = ins.operands[-1]
    gp = ctx.get(pred_op, "pred")
    sd = ctx.set(d, "u32" if kind == "popc" else "pred")

    def run(st, m):
        act = np.ones(st.n, bool) if m is None else m
        p = np.broadcast_to(np.asarray(gp(st)), (st.n,)) & act
        per_blk_true = p.reshape(-1, st.tpad).sum(axis=1)
        per_blk_act = act.reshape(-1, st.tpad).sum(axis=1)
        if kind == "popc":
            r = per_blk_true.astype(np.uint32)
        elif kind == "and":
            r = per_blk_true == per_blk_act
        else:
            r = per_blk_true > 0
        sd(st, np.repeat(r, st.tpad), m)
    return run


def _block_barrier(ins, pc: int, span=None, before=None):
    """bar.sync of every thread of the block, as a control instruction: (target, lanes taken).
    Lanes of blocks whose other live lanes all wait at a barrier go on (and release those), the
    rest park at PC + BARRIER_WAIT until the last of their block arrives. ``span(st)``: the lanes a
    barrier spans (default a block's, st.tpad; a grid barrier spans the batch); ``before(st, m)``
    runs for the arriving lanes first (a builtin's return value)."""
    wait = int(BARRIER_WAIT)

    def run(st, m):
        if before is not None:
            before(st, guard_mask(st, ins, m))
        if m is None:
            return pc + 1, None  # every lane of the batch is here
        group = guard_mask(st, ins, m)
        P, tpad = st.P, (st.tpad if span is None else span(st))
        held = (P >= BARRIER_WAIT) & (P < DEFERRED)  # lanes waiting at a barrier
        # per block: live lanes outside the group that are not waiting yet, and lanes arriving now
        behind = (~m & (P < INF) & ~held).reshape(-1, tpad).any(axis=1)
        arrived = group.reshape(-1, tpad).any(axis=1)
        release = held & np.repeat(arrived & ~behind, tpad)  # the last of their block arrived
        released = bool(release.any())
        if released:
            P[release] -= wait - 1  # each goes on after its own barrier
        if not behind.any():
            st.regroup = released  # the released lanes run with this group (interp.run)
            return pc + 1, m & False
        return pc + wait, group & np.repeat(behind, tpad)  # parked (the scheduler regroups anyway)
    run.control = True
    return run


# Cooperative groups' grid synchronisation as numba calls it: the device runtime's (libcudadevrt)
# cudaCGGetIntrinsicHandle(scope) and cudaCGSynchronize(handle, flags), provided here. A cooperative
# launch runs its whole grid as one batch (kernels.launch), so the grid's barrier spans the batch.
@op("call.cudaCGGetIntrinsicHandle")
def c_cg_handle(ins, ctx):
    rets, args = ins.operands[0].value, ins.operands[1].value
    scope_r = _param_reader(ctx, args[0], np.uint32)[0]
    ret = ret_slot(ctx, rets)

    def run(st, m):
        idx = st.idx(m)
        if ret is not None:
            write_ret(st, idx, ret, scope_r(st, idx).astype(np.uint64))  # the handle names its scope
    return run


@op("call.cudaCGSynchronize", "call.cudaCGSynchronizeGrid")
def c_cg_sync(ins, ctx):
    rets = ins.operands[0].value
    ret = ret_slot(ctx, rets)

    def arrive(st, m):
        if not st.envregs:
            raise SimFault("CUDA_ERROR_LAUNCH_FAILED", f"{st.name}: a grid synchronisation in a kernel "
                                                       "not launched cooperatively (cuLaunchCooperativeKernel)")
        if ret is not None:
            idx = st.idx(m)
            write_ret(st, idx, ret, np.zeros(len(idx), np.uint32))  # cudaSuccess
    return _block_barrier(ins, ctx.pc, span=lambda st: st.n, before=arrive)
