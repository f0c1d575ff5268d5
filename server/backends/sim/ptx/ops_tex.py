"""Texture and surface instructions: tex (with .level and .grad), tld4, txq, suld, sust, suq.

Only the unified mode nvcc emits for texture and surface objects is served: the first operand in
brackets is a 64-bit register holding the object's value (a CUDA texture or surface object the
kernel received), looked up in the session's tables (sim/arrays.py). A value the session does not
hold -- never created, or destroyed -- is a fault, as a stale object is on a GPU. Lanes may hold
different objects (an array of objects indexed per thread): each distinct value is served on its
own. The sampling arithmetic is in sim/texunit.py.

Coordinate vectors by geometry (PTX ISA): 1d {x}, 2d {x, y}, 3d {x, y, z, _}, a1d {layer, x},
a2d {layer, x, y, _}, cube {x, y, z, _}, acube {layer, x, y, z}; surfaces take x in bytes.
"""
from __future__ import annotations

import numpy as np

from ..errors import SimFault
from .interp import op
from .types import dtype_of, types_in

GEOMS = {"1d": (1, False), "2d": (2, False), "3d": (3, False), "a1d": (1, True), "a2d": (2, True),
         "cube": (3, False), "acube": (3, True)}
_TEX_MODS = ("v4", "v2", "level", "grad", "base", *GEOMS)
_COMPONENTS = {"r": 0, "g": 1, "b": 2, "a": 3}
TXQ_QUERIES = ("width", "height", "depth", "channel_data_type", "channel_order", "normalized_coords",
               "filter_mode", "addr_mode_0", "addr_mode_1", "addr_mode_2", "array_size", "num_mipmap_levels",
               "num_samples")
SUQ_QUERIES = ("width", "height", "depth", "channel_data_type", "channel_order", "array_size", "memory_layout")
_CACHE_OPS = ("ca", "cg", "cs", "cv", "wb", "wt")


def _geom(parts) -> str:
    for p in parts:
        if p in GEOMS:
            return p
    raise ValueError("no texture geometry")


def _resource(ins, k: int):
    o = ins.operands[k]
    if o.kind != "list" or o.flt != "resource":
        raise ValueError("expected [object, {coordinates}]")
    if o.value[0].kind != "reg":
        raise ValueError("texture and surface references (.texref / .surfref) are not supported: only objects")
    if len(o.value) != 2:
        raise ValueError("separate samplers (independent texture mode) are not supported")
    return o.value[0], o.value[1]


def _items(o):
    return o.value if o.kind == "vec" else [o]


def _lane_values(getter, st, idx, m, dtype):
    v = np.asarray(getter(st))
    if v.ndim == 0:
        return np.full(len(idx), v, dtype)
    return v[idx] if m is not None else v


def _objects(table, handles, what: str):
    """(object, lanes) for each distinct value among the lanes' handles."""
    h = np.asarray(handles, np.uint64)
    if h.size and (h == h[0]).all():
        groups = [(int(h[0]), None)]
    else:
        groups = [(int(v), np.flatnonzero(h == v)) for v in np.unique(h)]
    out = []
    for value, sel in groups:
        obj = table.get(value)
        if obj is None:
            raise SimFault("CUDA_ERROR_ILLEGAL_ADDRESS",
                           f"{what} object 0x{value:x} does not exist (destroyed, or never created in this context)")
        out.append((obj, sel))
    return out


def _split(values, sel):
    return values if sel is None else (values[sel] if values is not None else None)


def _result_setters(ctx, dst, dtype: str):
    return [ctx.set_idx(o, dtype) for o in _items(dst)]


def _write_results(st, setters, res, dtype, idx, m):
    """res: (n, 4) float32 or int64 per component."""
    dt = dtype_of(dtype)
    if dt.kind == "f":
        vals = res.astype(np.float32) if res.dtype.kind == "f" else res.astype(np.float32)
    else:
        vals = (res.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).view(dt) if res.dtype.kind != "f" else \
            np.nan_to_num(res).astype(np.int64).astype(dt)
    for k, s in enumerate(setters):
        s(st, vals[:, k], idx, m)


@op("tex", mods=_TEX_MODS)
def c_tex(ins, ctx):
    parts = ins.parts
    geom = _geom(parts)
    dims, layered = GEOMS[geom]
    types = types_in(parts)
    dtype, ctype = types[-2], types[-1]
    if dtype not in ("f32", "s32", "u32") or ctype not in ("f32", "s32"):
        raise ValueError(f"tex result .{dtype} with coordinates .{ctype}")
    mode = "level" if "level" in parts else ("grad" if "grad" in parts else "base")
    dst = ins.operands[0]
    handle, cvec = _resource(ins, 1)
    rest = ins.operands[2:]
    citems = _items(cvec)
    layer_get = ctx.get(citems[0], "s32") if layered else None
    coord_ops = citems[1:1 + dims] if layered else citems[:dims]
    coord_gets = [ctx.get(o, ctype) for o in coord_ops]
    hget = ctx.get(handle, "u64")
    lod_get, grad_gets, off_gets = None, None, None
    if mode == "level":
        lod_get = ctx.get(rest[0], "f32")
        rest = rest[1:]
    elif mode == "grad":
        grad_gets = [[ctx.get(o, "f32") for o in _items(g)[:dims]] for g in rest[:2]]
        rest = rest[2:]
    if rest:
        if rest[0].kind != "vec" or len(rest) > 1:
            raise ValueError("depth-compare operands")
        off_gets = [ctx.get(o, "s32") for o in _items(rest[0])[:dims]]
    setters = _result_setters(ctx, dst, dtype)
    integer_coords = ctype == "s32"

    def run(st, m):
        idx = st.idx(m)
        n = len(idx)
        coords = [_lane_values(g, st, idx, m, np.float32 if not integer_coords else np.int32) for g in coord_gets]
        layer = _lane_values(layer_get, st, idx, m, np.int32) if layer_get else None
        lod = _lane_values(lod_get, st, idx, m, np.float32) if lod_get else None
        grad = [[_lane_values(g, st, idx, m, np.float32) for g in gg] for gg in grad_gets] if grad_gets else None
        offs = [_lane_values(g, st, idx, m, np.int32) for g in off_gets] if off_gets else None
        res = None
        for tex, sel in _objects(st.mem.textures, _lane_values(hget, st, idx, m, np.uint64), "texture"):
            part = tex.sample(st.mem, [_split(c, sel) for c in coords], layer=_split(layer, sel), lod=_split(lod, sel),
                              grad=[[_split(g, sel) for g in gg] for gg in grad] if grad else None,
                              integer_coords=integer_coords,
                              offsets=[_split(o, sel) for o in offs] if offs else None)
            if sel is None:
                res = part
            else:
                if res is None:
                    res = np.zeros((n, 4), part.dtype)
                res[sel] = part
        _write_results(st, setters, res, dtype, idx, m)
    return run


@op("tld4", mods=("r", "g", "b", "a", "v4", "2d", "a2d", "cube", "acube"))
def c_tld4(ins, ctx):
    parts = ins.parts
    comp = next(_COMPONENTS[p] for p in parts if p in _COMPONENTS)
    geom = _geom(parts)
    dims, layered = GEOMS[geom]
    types = types_in(parts)
    dtype, ctype = types[-2], types[-1]
    if ctype != "f32":
        raise ValueError("tld4 with integer coordinates")
    handle, cvec = _resource(ins, 1)
    if len(ins.operands) > 2:
        raise ValueError("tld4 offsets and depth compare")
    citems = _items(cvec)
    layer_get = ctx.get(citems[0], "s32") if layered else None
    coord_gets = [ctx.get(o, "f32") for o in (citems[1:1 + dims] if layered else citems[:dims])]
    hget = ctx.get(handle, "u64")
    setters = _result_setters(ctx, ins.operands[0], dtype)

    def run(st, m):
        idx = st.idx(m)
        coords = [_lane_values(g, st, idx, m, np.float32) for g in coord_gets]
        layer = _lane_values(layer_get, st, idx, m, np.int32) if layer_get else None
        res = None
        for tex, sel in _objects(st.mem.textures, _lane_values(hget, st, idx, m, np.uint64), "texture"):
            part = tex.gather(st.mem, [_split(c, sel) for c in coords], comp, layer=_split(layer, sel))
            if sel is None:
                res = part
            else:
                if res is None:
                    res = np.zeros((len(idx), 4), part.dtype)
                res[sel] = part
        _write_results(st, setters, res, dtype, idx, m)
    return run


@op("txq", mods=("level", *TXQ_QUERIES))
def c_txq(ins, ctx):
    parts = ins.parts
    what = next(p for p in parts[1:] if p in TXQ_QUERIES)
    t = types_in(parts)[-1]
    target = ins.operands[1]
    handle = target.value[0] if target.kind == "list" else None
    if handle is None:
        if target.kind != "addr" or not str(target.value).startswith("%"):
            raise ValueError("txq of a texture reference")
        from .parser import Operand
        handle = Operand("reg", target.value)
    hget = ctx.get(handle, "u64")
    lod_get = ctx.get(ins.operands[2], "s32") if "level" in parts else None
    sd = ctx.set_idx(ins.operands[0], t)

    def run(st, m):
        idx = st.idx(m)
        h = _lane_values(hget, st, idx, m, np.uint64)
        lod = _lane_values(lod_get, st, idx, m, np.int32) if lod_get else np.zeros(len(idx), np.int32)
        out = np.zeros(len(idx), np.uint32)
        for k in range(len(idx)):
            obj = st.mem.textures.get(int(h[k]))
            if obj is None:
                raise SimFault("CUDA_ERROR_ILLEGAL_ADDRESS", f"texture object 0x{int(h[k]):x} does not exist")
            out[k] = obj.query(what, int(lod[k])) & 0xFFFFFFFF
        sd(st, out.view(dtype_of(t)) if dtype_of(t).itemsize == 4 else out, idx, m)
    return run


@op("suq", mods=SUQ_QUERIES)
def c_suq(ins, ctx):
    parts = ins.parts
    what = next(p for p in parts[1:] if p in SUQ_QUERIES)
    t = types_in(parts)[-1]
    target = ins.operands[1]
    if target.kind == "list":
        handle = target.value[0]
    else:
        from .parser import Operand
        if target.kind != "addr" or not str(target.value).startswith("%"):
            raise ValueError("suq of a surface reference")
        handle = Operand("reg", target.value)
    hget = ctx.get(handle, "u64")
    sd = ctx.set_idx(ins.operands[0], t)

    def run(st, m):
        idx = st.idx(m)
        h = _lane_values(hget, st, idx, m, np.uint64)
        out = np.zeros(len(idx), np.uint32)
        for obj, sel in _objects(st.mem.surfaces, h, "surface"):
            out[slice(None) if sel is None else sel] = obj.query(what)
        sd(st, out.view(dtype_of(t)) if dtype_of(t).itemsize == 4 else out, idx, m)
    return run


def _surface_coords(ctx, cvec, geom):
    """Getters of (x bytes, y, z/layer) for a surface geometry; missing ones read 0."""
    items = _items(cvec)
    dims, layered = GEOMS[geom]
    if layered:
        xyz = items[1:1 + dims]
        layer = items[0]
    else:
        xyz, layer = items[:dims], None
    gets = [ctx.get(o, "s32") for o in xyz]
    while len(gets) < 2:
        gets.append(None)
    if layer is not None:
        gets.append(ctx.get(layer, "s32"))
    elif len(gets) < 3:
        gets.append(None)
    return gets[:3]


def _surface_access(parts):
    geom = _geom(parts)
    if geom in ("cube", "acube"):
        raise ValueError("cubemap surfaces are addressed as a2d (nvcc emits a2d for surfCubemap*)")
    vec = next((int(p[1:]) for p in parts if p in ("v2", "v4")), 1)
    t = next(p for p in parts if p in ("b8", "b16", "b32", "b64"))
    mode = next((p for p in parts if p in ("trap", "clamp", "zero")), "trap")
    return geom, vec, t, mode


def _xyz(gets, st, idx, m):
    return [np.zeros(len(idx), np.int64) if g is None else _lane_values(g, st, idx, m, np.int32).astype(np.int64)
            for g in gets]


@op("suld", mods=("b", "1d", "2d", "3d", "a1d", "a2d", "v2", "v4", "b8", "b16", "b32", "b64", "trap", "clamp",
                  "zero", *_CACHE_OPS), types=())
def c_suld(ins, ctx):
    parts = ins.parts
    if "b" not in parts[1:2]:
        raise ValueError("formatted surface loads (suld.p)")
    geom, vec, t, mode = _surface_access(parts)
    handle, cvec = _resource(ins, 1)
    coord_gets = _surface_coords(ctx, cvec, geom)
    hget = ctx.get(handle, "u64")
    dt = dtype_of(t)
    size = dt.itemsize
    setters = [ctx.set_idx(o, t) for o in _items(ins.operands[0])]

    def run(st, m):
        idx = st.idx(m)
        x, y, z = _xyz(coord_gets, st, idx, m)
        data = np.zeros((len(idx), size * vec), np.uint8)
        for surf, sel in _objects(st.mem.surfaces, _lane_values(hget, st, idx, m, np.uint64), "surface"):
            part = surf.load(st.mem, _split(x, sel), _split(y, sel), _split(z, sel), size * vec, mode)
            data[slice(None) if sel is None else sel] = part
        vals = np.ascontiguousarray(data).view(dt)
        for k, s in enumerate(setters):
            s(st, vals[:, k], idx, m)
    return run


@op("sust", mods=("b", "p", "1d", "2d", "3d", "a1d", "a2d", "v2", "v4", "b8", "b16", "b32", "b64", "trap",
                  "clamp", "zero", *_CACHE_OPS), types=())
def c_sust(ins, ctx):
    parts = ins.parts
    formatted = parts[1] == "p"
    geom, vec, t, mode = _surface_access(parts)
    handle, cvec = _resource(ins, 0)
    coord_gets = _surface_coords(ctx, cvec, geom)
    hget = ctx.get(handle, "u64")
    dt = dtype_of(t)
    size = dt.itemsize
    src_gets = [ctx.get(o, t) for o in _items(ins.operands[1])]
    if formatted and t != "b32":
        raise ValueError("sust.p takes .b32 components")

    def run(st, m):
        idx = st.idx(m)
        x, y, z = _xyz(coord_gets, st, idx, m)
        vals = np.stack([_lane_values(g, st, idx, m, dt).astype(dt) for g in src_gets], axis=1)
        for surf, sel in _objects(st.mem.surfaces, _lane_values(hget, st, idx, m, np.uint64), "surface"):
            part = vals if sel is None else vals[sel]
            xs = _split(x, sel)
            if formatted:
                from ..texunit import pack_formatted
                d = surf.desc
                full = np.zeros((len(part), 4), np.uint32)
                full[:, :part.shape[1]] = part
                src = full.view(np.float32) if d.kind == "f" else full.view(np.int32).astype(np.int64)
                data, nbytes = pack_formatted(d, src, False), d.elem
                xs = xs * d.elem  # formatted stores address elements, not bytes
            else:
                data, nbytes = np.ascontiguousarray(part).view(np.uint8).reshape(len(part), size * vec), size * vec
            surf.store(st.mem, xs, _split(y, sel), _split(z, sel), nbytes, mode, data)
    return run
