"""Asynchronous copies from global to shared memory (sm_80's cp.async, behind cuda_pipeline.h,
cuda::memcpy_async and cooperative_groups::memcpy_async).

The software GPU completes each copy when it is issued, which is one of the orders the program
must already allow for: commit_group, wait_group and wait_all then have nothing left to wait for.
cp.async.mbarrier.arrive (cuda::memcpy_async onto a cuda::barrier) and Hopper's bulk and tensor copies
(cp.async.bulk...) are ops_bulk.py's."""
from __future__ import annotations

import numpy as np

from ..errors import SimError
from .interp import op
from .ops_mem import addr_getter, lanes, resolve

SIZES = (4, 8, 16)


@op("cp", mods=("async", "ca", "cg", "shared", "shared::cta", "global", "commit_group", "wait_group",
                "wait_all", "L2::64B", "L2::128B", "L2::256B",
                # the bulk copies (ops_bulk.py)
                "bulk", "tensor", "1d", "2d", "3d", "4d", "5d", "shared::cluster", "mbarrier::complete_tx::bytes",
                "tile", "bulk_group", "read", "prefetch", "L2", "L2::cache_hint", "im2col", "multicast::cluster",
                # an mbarrier that tracks the thread's copies (ops_bulk.py)
                "mbarrier", "arrive", "noinc", "b64"))
def c_cp(ins, ctx):
    parts = ins.parts
    if parts[:3] == ["cp", "async", "bulk"]:
        from .ops_bulk import compile_bulk
        return compile_bulk(ins, ctx)
    if parts[:4] == ["cp", "async", "mbarrier", "arrive"]:
        from .ops_bulk import compile_copies_arrive
        return compile_copies_arrive(ins, ctx)
    if parts[:2] != ["cp", "async"] or "mbarrier" in parts or "bulk" in parts:
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode} is not supported by the software GPU")
    if "commit_group" in parts or "wait_group" in parts or "wait_all" in parts:
        return lambda st, m: None
    dst, src, size = ins.operands[:3]
    if size.kind != "imm" or int(size.value) not in SIZES:
        raise SimError("CUDA_ERROR_INVALID_PTX", f"{ins.opcode}: copy size must be 4, 8 or 16")
    nbytes = int(size.value)
    gd, dspace = addr_getter(ctx, dst, "shared")
    gs, sspace = addr_getter(ctx, src, "global")
    # Optional fourth operand: src-size (bytes really read; the rest is zero-filled), or the
    # ignore-src predicate (read nothing, fill zeros).
    extra = ins.operands[3] if len(ins.operands) > 3 else None
    if extra is not None and extra.kind == "reg" and ctx.decl.get(extra.value) == np.dtype(bool):
        gi, gz = ctx.get(extra, "pred"), None
    else:
        gi, gz = None, ctx.get(extra, "u32") if extra is not None else None
    span = np.arange(nbytes, dtype=np.int64)

    def run(st, m):
        idx = st.idx(m)
        count = len(idx)
        d_addr = np.broadcast_to(lanes(gd(st), idx, m), (count,))
        s_addr = np.broadcast_to(lanes(gs(st), idx, m), (count,))
        valid = np.full(count, nbytes, np.int64)
        if gz is not None:
            valid = np.minimum(np.broadcast_to(lanes(gz(st), idx, m), (count,)).astype(np.int64), nbytes)
        if gi is not None:
            valid = np.where(np.broadcast_to(lanes(gi(st), idx, m), (count,)), 0, valid)
        data = np.zeros((count, nbytes), np.uint8)
        reading = valid > 0
        if reading.any():
            sel = np.flatnonzero(reading)
            for arena, offs, part in resolve(st, sspace, np.asarray(s_addr[sel], np.uint64), nbytes, idx[sel]):
                rows = sel if part is None else sel[part]
                data[rows] = arena[offs[:, None] + span]
            data[span[None, :] >= valid[:, None]] = 0
        for arena, offs, part in resolve(st, dspace, np.asarray(d_addr, np.uint64), nbytes, idx):
            arena[offs[:, None] + span] = data if part is None else data[part]
    return run
