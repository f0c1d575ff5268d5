"""Tensor maps changed by kernels (PTX ISA: tensormap.replace, tensormap.cp_fenceproxy), as CUTLASS's
grouped GEMMs and Triton's device-side descriptors change a map in shared memory and publish it to global.

tensormap.replace.tile.FIELD[.ss].b1024.TYPE [addr], {ord,} new_val writes one field of the 1024-bit
map at addr (shared::cta, global, or generic) in the sim's own encoding (server/backends/sim/tensormaps.py):
the other bytes of the map stay as they are, as the ISA's field-wise replacement leaves them. The whole
128-byte object must lie in its state space (the instruction is a memory operation on all of it). The
values are the ISA's: .rank is the rank less one, .elemtype is PTX's numbering (not CUtensorMapDataType's),
.global_stride's ord counts the strides (0: that of dimension 1), dims and boxes are their sizes.
A map made unusable so (a type or swizzle the sim does not copy) fails at the copy that reads it."""
from __future__ import annotations

import numpy as np

from ..errors import SimError
from ..tensormaps import FIELDS, MAP_BYTES, PTX_ELEMTYPE
from .interp import ANY, op
from .ops_mem import addr_getter, lanes, resolve, space_of

_RANKED = {"box_dim", "global_dim", "global_stride", "element_stride"}
_MAX_ORD = {"global_stride": 4}  # dims 1..4 have strides; every other ranked field has 5


def _space(parts) -> str:
    space = space_of(parts)
    return "shared" if space == "generic" and any(p.startswith("shared") for p in parts) else space


def _object(st, space, addr: int, lane: int, what: str):
    """(arena, offset) of the 128-byte map at `addr`: both ends checked, as the access faults."""
    ends = np.asarray([addr, addr + MAP_BYTES - 1], np.uint64)
    arena, offs, _ = resolve(st, space, ends, 1, np.array([lane, lane]))[0]
    return arena, int(offs[0])


def _stored(field: str, value: int) -> int:
    """The value the sim's encoding keeps for the ISA's `value` of `field`."""
    if field == "rank":
        return value + 1  # the ISA's is zero-based
    if field == "global_dim":
        return value - 1  # the encoding keeps dims less one, as cuTensorMapEncodeTiled's are kept
    if field == "elemtype":
        return PTX_ELEMTYPE.get(value, 0xFF)  # an invalid type: the map's next copy refuses it
    return value


@op("tensormap", mods=ANY)
def c_tensormap(ins, ctx):
    parts = ins.parts
    if parts[1] == "cp_fenceproxy":
        return _cp_fenceproxy(ins, ctx)
    if parts[1] != "replace" or "tile" not in parts:
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode}: not a tensormap instruction the software GPU knows")
    field = next((p for p in parts if p in FIELDS), None)
    if field is None:
        raise SimError("CUDA_ERROR_INVALID_PTX", f"{ins.opcode}: no field to replace")
    offset, width, step = FIELDS[field]
    ops = ins.operands
    ranked = field in _RANKED
    if len(ops) != (3 if ranked else 2):
        raise SimError("CUDA_ERROR_INVALID_PTX", f"{ins.opcode}: {len(ops)} operands")
    if ranked:
        if ops[1].kind != "imm":
            raise SimError("CUDA_ERROR_INVALID_PTX", f"{ins.opcode}: ord must be an immediate")
        ordinal = int(ops[1].value)
        if not 0 <= ordinal < _MAX_ORD.get(field, 5):
            raise SimError("CUDA_ERROR_INVALID_PTX", f"{ins.opcode}: ord {ordinal} is past the map's rank")
        offset += ordinal * step
    space = _space(parts)
    ga, space = addr_getter(ctx, ops[0], space)
    gv = ctx.get(ops[-1], "b64" if "b64" in parts[-1:] else "b32")
    mask = (1 << (8 * width)) - 1

    def run(st, m):
        idx = st.idx(m)
        a = np.broadcast_to(lanes(np.asarray(ga(st)), idx, m), (len(idx),))
        v = np.broadcast_to(lanes(np.asarray(gv(st)), idx, m), (len(idx),))
        for k, lane in enumerate(idx):
            arena, o = _object(st, space, int(a[k]), int(lane), ins.opcode)
            value = _stored(field, int(v[k])) & mask
            arena[o + offset:o + offset + width] = np.frombuffer(value.to_bytes(width, "little"), np.uint8)
    return run


def _cp_fenceproxy(ins, ctx):
    """tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.SCOPE.sync.aligned [dst], [src],
    128: the map in shared memory copied to global memory (and fenced: the sim's copies are ordered)."""
    ops = ins.operands
    gd, dspace = addr_getter(ctx, ops[0], "global")
    gs, sspace = addr_getter(ctx, ops[1], "shared")
    size = int(ops[2].value) if len(ops) > 2 and ops[2].kind == "imm" else MAP_BYTES
    if size != MAP_BYTES:
        raise SimError("CUDA_ERROR_INVALID_PTX", f"{ins.opcode}: a tensor map is {MAP_BYTES} bytes, not {size}")

    def run(st, m):
        idx = st.idx(m)
        d = np.broadcast_to(lanes(np.asarray(gd(st)), idx, m), (len(idx),))
        s = np.broadcast_to(lanes(np.asarray(gs(st)), idx, m), (len(idx),))
        for k, lane in enumerate(idx):
            sa, so = _object(st, sspace, int(s[k]), int(lane), ins.opcode)
            da, do = _object(st, dspace, int(d[k]), int(lane), ins.opcode)
            da[do:do + MAP_BYTES] = sa[so:so + MAP_BYTES]
    return run
