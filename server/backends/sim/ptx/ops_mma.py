"""Warp matrix operations on the software GPU's "tensor cores".

wmma.load, wmma.mma and wmma.store are the instructions behind nvcuda::wmma (mma.h) — the
tensor-core API of the CUDA samples and of hand-written GEMMs. mma.sync and ldmatrix are the
lower level CUTLASS, CuTe and hand-tuned kernels use; their fragments have documented per-lane
layouts, implemented below from the PTX ISA's tables.

A fragment is a matrix spread over the 32 lanes of a warp. How a GPU spreads it is left
unspecified by the ISA (only wmma instructions may depend on it; element-wise code such as
``frag.x[i] *= alpha`` treats every element alike), so the software GPU picks the simplest
layout: slot s of lane l holds element ``(l * S + s) % E`` of the row-major matrix (S slots a
lane, E elements), and fragments larger than their matrix (f16 A/B fragments of m16n16k16 carry
every element twice) repeat it. Each operation works on whole warps at once: the first active
lane of a warp gives its address and stride.
"""
from __future__ import annotations

import re

import numpy as np

from ..errors import SimError
from . import fp8
from .interp import op
from .types import FP8, TYPE_NAMES
from .ops_mem import addr_getter, resolve, space_of, view

W = 32
# Element type -> (raw dtype in memory, elements per 32-bit register; f64 uses 64-bit registers).
ELEMS = {"f16": (np.uint16, 2), "bf16": (np.uint16, 2), "f32": (np.uint32, 1), "tf32": (np.uint32, 1),
         "s32": (np.uint32, 1), "s8": (np.uint8, 4), "u8": (np.uint8, 4), "f64": (np.uint64, 1),
         "e4m3": (np.uint8, 4), "e5m2": (np.uint8, 4)}
WMMA_SHAPES = ("m16n16k16", "m32n8k16", "m8n32k16", "m16n16k8", "m8n8k4")
MMA_SHAPES = ("m16n8k16", "m16n8k8", "m16n8k4", "m16n8k32", "m8n8k4")
_SHAPE = re.compile(r"^m(\d+)n(\d+)k(\d+)$")


def _shape(parts) -> tuple[int, int, int]:
    for p in parts:
        m = _SHAPE.match(p)
        if m:
            return tuple(map(int, m.groups()))
    raise SimError("CUDA_ERROR_INVALID_PTX", f"wmma without a shape: {'.'.join(parts)}")


def _dims(frag: str, m: int, n: int, k: int) -> tuple[int, int]:
    return {"a": (m, k), "b": (k, n)}.get(frag, (m, n))


def _types(parts) -> list[str]:
    return [p for p in parts if p in ELEMS]


def _operand_types(parts) -> tuple | None:
    """(d, a, b, c) element types of wmma.mma/mma.sync: `.dtype.ctype` means f16 inputs."""
    types = _types(parts)
    if len(types) == 2:
        return types[0], "f16", "f16", types[1]
    return tuple(types) if len(types) == 4 else None


def _product(d, a, b, c, types, saturate: bool):
    """D = A·B + C for each active warp, computed exactly then rounded once to D's type."""
    td, ta, tb, tc = types

    def run(st, mask):
        warps, _ = _active_warps(st, mask)
        if not len(warps):
            return
        prod = _numeric(a.read(st, warps), ta) @ _numeric(b.read(st, warps), tb)
        d.write(st, warps, _raw(prod + _numeric(c.read(st, warps), tc), td, saturate), mask)
    return run


def _numeric(raw: np.ndarray, t: str) -> np.ndarray:
    """Raw element bits -> values the product is computed on."""
    if t == "f16":
        return raw.view(np.float16).astype(np.float64)
    if t == "bf16":
        return (raw.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if t == "tf32":  # tensor cores read the top 19 bits of each operand
        return (raw & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    if t == "f32":
        return raw.view(np.float32).astype(np.float64)
    if t == "f64":
        return raw.view(np.float64)
    if t == "s8":
        return raw.view(np.int8).astype(np.int64)
    if t == "u8":
        return raw.astype(np.int64)
    if t in FP8:  # every product of two 8-bit floats is exact in f64
        return fp8.decode(raw, t)
    return raw.view(np.int32).astype(np.int64)  # s32


def _raw(values: np.ndarray, t: str, saturate: bool) -> np.ndarray:
    if t == "f16":
        return values.astype(np.float16).view(np.uint16)
    if t == "f32":
        return values.astype(np.float32).view(np.uint32)
    if t == "f64":
        return values.astype(np.float64).view(np.uint64)
    if saturate:
        values = np.clip(values, -2**31, 2**31 - 1)
    return (values.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32)  # s32 wraps unless .satfinite


class _Fragment:
    """The registers of one fragment operand and how its slots map to matrix elements."""

    def __init__(self, ctx, operand, t: str, rows: int, cols: int):
        if operand.kind != "vec":
            raise SimError("CUDA_ERROR_INVALID_PTX", "a wmma fragment must be a register vector")
        self.names = [o.value for o in operand.value]
        self.setters = [ctx.set(o, "f64" if t == "f64" else "b32") for o in operand.value]
        self.getters = [ctx.get(o, "f64" if t == "f64" else "b32") for o in operand.value]
        self.t, self.rows, self.cols = t, rows, cols
        self.dt, per_reg = ELEMS[t]
        self.slots = len(self.names) * per_reg
        self.elems = rows * cols
        if (W * self.slots) % self.elems:
            raise SimError("CUDA_ERROR_INVALID_PTX", f"a {rows}x{cols} .{t} fragment cannot be {len(self.names)} registers")

    def read(self, st, warps: np.ndarray) -> np.ndarray:
        """(warps, rows, cols) raw elements of the fragment in the given warps."""
        regs = [np.broadcast_to(np.asarray(g(st)), (st.n,)) for g in self.getters]
        raw = np.stack([r.view(np.uint64 if self.t == "f64" else np.uint32) for r in regs], axis=1)
        raw = np.ascontiguousarray(raw.reshape(-1, W, len(regs))[warps])
        slots = raw.view(self.dt).reshape(len(warps), W * self.slots)
        return slots[:, :self.elems].reshape(len(warps), self.rows, self.cols)

    def write(self, st, warps: np.ndarray, mat: np.ndarray, m) -> None:
        reps = W * self.slots // self.elems
        slots = np.tile(np.ascontiguousarray(mat, self.dt).reshape(len(warps), self.elems), reps)
        _write_regs(st, self.setters, warps, slots.reshape(len(warps), W, -1).view(np.uint64 if self.t == "f64" else np.uint32), m)


def _write_regs(st, setters, warps, raw, m) -> None:
    """raw[w, lane, k]: register k's bits for the lanes of warps[w]; other warps are not written."""
    for k, setter in enumerate(setters):
        full = np.zeros((st.n // W, W), raw.dtype)
        full[warps] = raw[:, :, k]
        setter(st, full.reshape(-1), m)


def _active_warps(st, m) -> tuple[np.ndarray, np.ndarray]:
    """Warps with an active lane, and the first active lane of each."""
    if m is None:
        warps = np.arange(st.n // W)
        return warps, warps * W
    act = np.asarray(m).reshape(-1, W)
    warps = np.flatnonzero(act.any(axis=1))
    return warps, warps * W + act[warps].argmax(axis=1)


def _offsets(rows: int, cols: int, layout: str, stride: np.ndarray, esize: int) -> np.ndarray:
    """(warps, rows*cols) byte offsets of the row-major elements in memory of the given layout."""
    r, c = np.divmod(np.arange(rows * cols, dtype=np.int64), cols)
    stride = stride.astype(np.int64)[:, None]
    return ((r * stride + c) if layout == "row" else (c * stride + r)) * esize


def _memory_op(ins, ctx, store: bool):
    parts = ins.parts
    frag = "d" if store else next(p for p in parts if p in ("a", "b", "c"))
    layout = "col" if "col" in parts else "row"
    m_, n_, k_ = _shape(parts)
    rows, cols = _dims(frag, m_, n_, k_)
    t = _types(parts)[-1]
    addr_op, frag_op = (ins.operands[0], ins.operands[1]) if store else (ins.operands[1], ins.operands[0])
    fragment = _Fragment(ctx, frag_op, t, rows, cols)
    ga, space = addr_getter(ctx, addr_op, space_of(parts))
    gs = ctx.get(ins.operands[2], "u32") if len(ins.operands) > 2 else None
    esize = np.dtype(fragment.dt).itemsize
    dt = np.dtype(fragment.dt)

    def run(st, m):
        warps, lanes = _active_warps(st, m)
        if not len(warps):
            return
        base = np.broadcast_to(np.asarray(ga(st), np.uint64), (st.n,))[lanes]
        stride = (np.broadcast_to(np.asarray(gs(st)), (st.n,))[lanes] if gs is not None
                  else np.full(len(warps), cols if layout == "row" else rows))
        addrs = (base[:, None] + _offsets(rows, cols, layout, stride, esize).astype(np.uint64)).reshape(-1)
        idx = np.repeat(lanes, rows * cols)
        where = resolve(st, space, addrs, esize, idx)
        if store:
            vals = fragment.read(st, warps).reshape(-1)
            for arena, offs, sel in where:
                view(arena, dt)[offs // esize] = vals if sel is None else vals[sel]
            return
        vals = np.empty(len(addrs), dt)
        for arena, offs, sel in where:
            got = view(arena, dt)[offs // esize]
            if sel is None:
                vals = got
            else:
                vals[sel] = got
        fragment.write(st, warps, vals.reshape(len(warps), rows, cols), m)
    return run


@op("wmma", mods=("load", "store", "mma", "a", "b", "c", "d", "sync", "aligned", "row", "col", "global",
                  "shared", "shared::cta", "satfinite", "rn", *WMMA_SHAPES), types=TYPE_NAMES)
def c_wmma(ins, ctx):
    parts = ins.parts
    if "load" in parts:
        return _memory_op(ins, ctx, store=False)
    if "store" in parts:
        return _memory_op(ins, ctx, store=True)
    if "mma" not in parts:
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode} is not supported by the software GPU")
    m_, n_, k_ = _shape(parts)
    types = _operand_types(parts)
    if types is None:
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode} is not supported by the software GPU")
    d, a, b, c = (_Fragment(ctx, o, t, *_dims(f, m_, n_, k_))
                  for o, t, f in zip(ins.operands[:4], types, "dabc"))
    return _product(d, a, b, c, types, "satfinite" in parts)


# -- mma.sync and ldmatrix: the documented fragment layouts ----------------------------------
# For lane l (g = l >> 2, t = l & 3) and fragment element i: (row, column) in the operand's
# matrix, per PTX ISA "Matrix Fragments for mma.m16n8kK". A is MxK, B is KxN, C and D are MxN.
def _c_layout(g, t, i):
    return g + 8 * (i >> 1), 2 * t + (i & 1)


_LAYOUTS = {
    # (shape, A/B element type): (A layout, B layout)
    ((16, 8, 16), "f16"): (lambda g, t, i: (g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)),
                           lambda g, t, i: (2 * t + (i & 1) + 8 * (i >> 1), g)),
    ((16, 8, 8), "f16"): (lambda g, t, i: (g + 8 * (i >> 1), 2 * t + (i & 1)),
                          lambda g, t, i: (2 * t + i, g)),
    ((16, 8, 8), "tf32"): (lambda g, t, i: (g + 8 * (i & 1), t + 4 * (i >> 1)),
                           lambda g, t, i: (t + 4 * i, g)),
    ((16, 8, 4), "tf32"): (lambda g, t, i: (g + 8 * i, t),
                           lambda g, t, i: (t, g)),
    ((16, 8, 16), "s8"): (lambda g, t, i: (g + 8 * (i >> 2), 4 * t + (i & 3)),
                          lambda g, t, i: (4 * t + i, g)),
    ((16, 8, 32), "s8"): (lambda g, t, i: (g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)),
                          lambda g, t, i: (4 * t + (i & 3) + 16 * (i >> 2), g)),
    ((8, 8, 4), "f64"): (lambda g, t, i: (g, t),
                         lambda g, t, i: (t, g)),
}
_LAYOUTS[((16, 8, 16), "bf16")] = _LAYOUTS[((16, 8, 16), "f16")]
_LAYOUTS[((16, 8, 8), "bf16")] = _LAYOUTS[((16, 8, 8), "f16")]
for _k in (16, 32):
    _LAYOUTS[((16, 8, _k), "u8")] = _LAYOUTS[((16, 8, _k), "s8")]
# 8-bit floats sit in their registers exactly as 8-bit integers do (ISA: "m16n8k32 with .e4m3/.e5m2").
for _t in ("e4m3", "e5m2"):
    _LAYOUTS[((16, 8, 32), _t)] = _LAYOUTS[((16, 8, 32), "s8")]


def _f64_c_layout(g, t, i):
    return g, 2 * t + i


class _Documented(_Fragment):
    """A fragment whose elements sit where the ISA says: slot i of lane l is element layout(l, i)."""

    def __init__(self, ctx, operand, t, rows, cols, layout):
        super().__init__(ctx, operand, t, rows, cols)
        lane = np.arange(W)[:, None]
        i = np.arange(self.slots)[None, :]
        r, c = layout(lane >> 2, lane & 3, i)
        self.where = (np.broadcast_to(r, (W, self.slots)), np.broadcast_to(c, (W, self.slots)))
        if self.slots * W != self.elems:
            raise SimError("CUDA_ERROR_INVALID_PTX", f"a {rows}x{cols} .{t} mma fragment cannot be {len(self.names)} registers")

    def _slots(self, st, warps):
        regs = [np.broadcast_to(np.asarray(g(st)), (st.n,)) for g in self.getters]
        raw = np.stack([r.view(np.uint64 if self.t == "f64" else np.uint32) for r in regs], axis=1)
        return np.ascontiguousarray(raw.reshape(-1, W, len(regs))[warps]).view(self.dt).reshape(len(warps), W, self.slots)

    def read(self, st, warps):
        mat = np.empty((len(warps), self.rows, self.cols), self.dt)
        mat[:, self.where[0], self.where[1]] = self._slots(st, warps)
        return mat

    def write(self, st, warps, mat, m):
        slots = np.ascontiguousarray(np.asarray(mat, self.dt)[:, self.where[0], self.where[1]])
        _write_regs(st, self.setters, warps, slots.view(np.uint64 if self.t == "f64" else np.uint32), m)


@op("mma", mods=("sync", "aligned", "row", "col", "satfinite", *MMA_SHAPES), types=TYPE_NAMES | FP8)
def c_mma(ins, ctx):
    parts = ins.parts
    shape = _shape(parts)
    types = _operand_types(parts)
    td, ta, tb, tc = types or (None,) * 4
    layouts = _LAYOUTS.get((shape, ta))
    # A and B share an element type, except that the two 8-bit float formats mix freely.
    same = ta == tb or (ta in FP8 and tb in FP8)
    # The fragment layouts below are those of .row.col (A row-major, B column-major).
    row_col = parts.count("row") == 1 and parts.count("col") == 1 and parts.index("row") < parts.index("col")
    if layouts is None or "sync" not in parts or not same or not row_col or (shape == (8, 8, 4) and ta != "f64"):
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode} is not supported by the software GPU")
    m_, n_, k_ = shape
    c_layout = _f64_c_layout if ta == "f64" else _c_layout
    d = _Documented(ctx, ins.operands[0], td, m_, n_, c_layout)
    a = _Documented(ctx, ins.operands[1], ta, m_, k_, layouts[0])
    b = _Documented(ctx, ins.operands[2], tb, k_, n_, _LAYOUTS[(shape, tb)][1])
    c = _Documented(ctx, ins.operands[3], tc, m_, n_, c_layout)
    return _product(d, a, b, c, types, "satfinite" in parts)


@op("ldmatrix", mods=("sync", "aligned", "m8n8", "x1", "x2", "x4", "trans", "shared", "shared::cta"))
def c_ldmatrix(ins, ctx):
    """ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16: lanes 8j..8j+7 name the rows of
    matrix j; lane l then holds, for each matrix, row l/4, columns 2(l%4) and 2(l%4)+1 (of the
    transposed matrix with .trans) in one 32-bit register."""
    parts = ins.parts
    if "m8n8" not in parts or "b16" not in parts:
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"{ins.opcode} is not supported by the software GPU")
    count = next((int(p[1:]) for p in parts if p in ("x1", "x2", "x4")), 1)
    trans = "trans" in parts
    dst = ins.operands[0]
    regs = dst.value if dst.kind == "vec" else [dst]
    if len(regs) != count:
        raise SimError("CUDA_ERROR_INVALID_PTX", f"{ins.opcode} needs {count} destination registers")
    setters = [ctx.set(o, "b32") for o in regs]
    ga, space = addr_getter(ctx, ins.operands[1], space_of(parts) if space_of(parts) != "generic" else "generic")
    lane = np.arange(W)
    row, col = lane >> 2, 2 * (lane & 3)

    def run(st, m):
        warps, first = _active_warps(st, m)
        if not len(warps):
            return
        addrs = np.broadcast_to(np.asarray(ga(st), np.uint64), (st.n,)).reshape(-1, W)[warps]  # row addresses
        lanes_ = (warps * W)[:, None] + np.arange(W)[None, :]
        rows_needed = addrs[:, :8 * count].reshape(-1)
        elems = (rows_needed[:, None] + (np.arange(8, dtype=np.uint64) * 2)[None, :]).reshape(-1)
        idx = np.repeat(lanes_[:, :8 * count].reshape(-1), 8)
        vals = np.empty(len(elems), np.uint16)
        for arena, offs, sel in resolve(st, space, elems, 2, idx):
            got = view(arena, np.dtype(np.uint16))[offs // 2]
            if sel is None:
                vals = got
            else:
                vals[sel] = got
        mats = vals.reshape(len(warps), count, 8, 8)  # [warp, matrix, row, column]
        if trans:
            mats = mats.transpose(0, 1, 3, 2)
        lo, hi = mats[:, :, row, col], mats[:, :, row, col + 1]  # [warp, matrix, lane]
        packed = lo.astype(np.uint32) | (hi.astype(np.uint32) << 16)
        _write_regs(st, setters, warps, packed.transpose(0, 2, 1), m)
    return run
