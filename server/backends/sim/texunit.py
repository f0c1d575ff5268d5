"""The software GPU's texture unit: texel storage, addressing, filtering, mipmap and cubemap
selection, vectorised over lanes. The PTX instructions (ptx/ops_tex.py) decode operands and call
``Texture.sample`` / ``gather`` / ``Surface.load`` / ``store``.

The arithmetic is the CUDA Programming Guide's texture fetching appendix:
  * unnormalised coordinates address texels directly; normalised ones are scaled by the extent
    (x * N), so [0, 1) covers the texture;
  * nearest-point sampling reads T[floor(x)];
  * linear filtering reads the 2, 4 or 8 texels around x - 0.5 and weighs them with
    alpha = frac(x - 0.5) held in 9-bit fixed point with 8 fractional bits: the coordinate is
    quantised to 1/256 of a texel (rounded), so only 256 weights lie between two texels and 1.0 is
    exact. As an H200 and an H100 do (tests/e2e/test_textures.py reproduces their numbers), each
    corner's weight is rounded to 1/256 in the unit's own way (corner_weights), and a clamped
    coordinate is clamped to the centres of the edge texels first, so a dimension outside the
    texture weighs (1, 0) and leaves the other dimensions' products as they are; 8-bit unsigned
    normalised texels are filtered as 16-bit values (byte * 257) and the result is rounded to
    1/65535;
  * the address mode of each dimension maps a texel index outside [0, N): clamp to the edge,
    border (the border colour instead of a texel), wrap (modulo N), mirror (reflected every N);
    wrap and mirror exist only with normalised coordinates, and clamp replaces them otherwise;
  * a cubemap direction picks the face of its major axis, and the other two components divided by
    it are that face's normalised coordinates;
  * integer formats read as floats in [0, 1] (unsigned) or [-1, 1] (signed) unless they are read as
    integers (32-bit formats always are); sRGB textures turn the colour channels of 8-bit formats
    into linear values before filtering.
Missing channels read as 0 with alpha 1.
"""
from __future__ import annotations

import numpy as np

from ..resources import (BORDER, CLAMP, LINEAR, MIRROR, NORMALIZED_COORDINATES, POINT, READ_AS_INTEGER,
                         RES_ARRAY, RES_LINEAR, RES_MIPMAP, SRGB, WRAP, ArrayDesc, Resource, TextureDesc, ViewDesc)
from .errors import SimFault

_COORD_LIMIT = float(1 << 30)  # texel coordinates beyond this are as far outside as any other
_DTYPES = {("u", 1): np.uint8, ("u", 2): np.uint16, ("u", 4): np.uint32, ("s", 1): np.int8, ("s", 2): np.int16,
           ("s", 4): np.int32, ("f", 2): np.float16, ("f", 4): np.float32}


class Level:
    """Where the texels of one mipmap level (or of a whole array or linear resource) are: element
    (x, y, z) is at base + z * slice_pitch + y * row_pitch + x * elem in device memory. `z` counts
    depth slices, layers or cube faces; `alive()` says whether the storage still exists."""

    def __init__(self, base: int, desc: ArrayDesc, row_pitch: int, slice_pitch: int, owner=None):
        self.base, self.desc = base, desc
        self.width, self.height, self.slices = desc.width, desc.rows, desc.slices
        self.row_pitch, self.slice_pitch = row_pitch, slice_pitch
        self.elem = desc.elem
        self.dtype = np.dtype(_DTYPES[(desc.kind, desc.channel_bytes)])
        self.owner = owner  # the SimArray whose memory this is (None: linear device memory)

    @classmethod
    def of_array(cls, arr) -> "Level":
        d = arr.desc
        return cls(arr.addr, d, d.row_bytes, d.row_bytes * d.rows, arr)

    def offsets(self, mem, ix, iy, iz) -> np.ndarray:
        """Arena offsets of elements (ix, iy, iz), checked against the storage's life."""
        addr = (np.int64(self.base) + iz.astype(np.int64) * self.slice_pitch + iy.astype(np.int64) * self.row_pitch
                + ix.astype(np.int64) * self.elem)
        if self.owner is not None:
            if self.owner.freed:
                raise SimFault("CUDA_ERROR_ILLEGAL_ADDRESS", "the CUDA array of this texture or surface was freed")
            return addr - np.int64(mem.base)
        return mem.check_lanes(addr.astype(np.uint64), self.elem if self.elem & (self.elem - 1) == 0 else 1)

    def read(self, mem, ix, iy, iz) -> np.ndarray:
        """(n, channels) raw values of the elements at (ix, iy, iz) (indices inside the level)."""
        offs = self.offsets(mem, ix, iy, iz)
        raw = mem.arena[offs[:, None] + np.arange(self.elem)]
        return np.ascontiguousarray(raw).view(self.dtype).reshape(len(offs), self.desc.channels)

    def write(self, mem, ix, iy, iz, nbytes: int, data: np.ndarray) -> None:
        """Store `nbytes` raw bytes per lane (data: (n, nbytes) uint8) at elements (ix, iy, iz)."""
        offs = self.offsets(mem, ix, iy, iz)
        mem.arena[offs[:, None] + np.arange(nbytes)] = data


def _levels(res: Resource, view: ViewDesc | None) -> list[Level]:
    if res.type == RES_ARRAY:
        return [Level.of_array(res.array.obj)]
    if res.type == RES_MIPMAP:
        levels = [Level.of_array(a.obj) for a in res.mipmap.levels]
        if view is not None and (view.first_level or view.last_level):
            levels = levels[view.first_level:view.last_level + 1]
        return levels
    d = res.desc
    if res.type == RES_LINEAR:
        return [Level(res.address, d, d.row_bytes, d.row_bytes)]
    return [Level(res.address, d, res.pitch, res.pitch * d.rows)]


# -- value conversion ------------------------------------------------------------------------------
def _srgb_to_linear(c: np.ndarray) -> np.ndarray:
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4).astype(np.float32)


def _pad(vals: np.ndarray, one) -> np.ndarray:
    """(n, c) -> (n, 4): missing channels 0, alpha 1."""
    n, c = vals.shape
    if c == 4:
        return vals
    out = np.zeros((n, 4), vals.dtype)
    out[:, :c] = vals
    out[:, 3] = one
    return out


def as_float(raw: np.ndarray, desc: ArrayDesc, flags: int) -> np.ndarray:
    """Raw channels -> (n, 4) float32 as a fetch that returns floats sees them."""
    kind, size = desc.kind, desc.channel_bytes
    if kind == "f":
        v = raw.astype(np.float32)
    elif flags & READ_AS_INTEGER or size == 4:
        v = raw.astype(np.float32)
    elif kind == "u":
        v = (raw.astype(np.float32) / np.float32((1 << (8 * size)) - 1)).astype(np.float32)
        if flags & SRGB and size == 1:
            c = min(raw.shape[1], 3)
            v[:, :c] = _srgb_to_linear(v[:, :c])
    else:
        v = np.maximum(raw.astype(np.float32) / np.float32((1 << (8 * size - 1)) - 1), np.float32(-1.0))
    return _pad(v, 1.0)


def as_integer(raw: np.ndarray) -> np.ndarray:
    """Raw integer channels -> (n, 4) int64 (the instruction keeps their low 32 bits)."""
    return _pad(raw.astype(np.int64), 1)


def reads_integer(desc: ArrayDesc, flags: int) -> bool:
    return desc.kind != "f" and bool(flags & READ_AS_INTEGER or desc.channel_bytes == 4)


# -- addressing ------------------------------------------------------------------------------------
def address(i: np.ndarray, n: int, mode: int):
    """Texel indices -> (indices inside [0, n), inside-mask or None): the address mode's map."""
    if mode == WRAP:
        return i % n, None
    if mode == MIRROR:
        m = i % (2 * n)
        return np.where(m < n, m, 2 * n - 1 - m), None
    if mode == BORDER:
        return np.clip(i, 0, n - 1), (i >= 0) & (i < n)
    return np.clip(i, 0, n - 1), None


def _texel_space(x: np.ndarray, n: int, normalized: bool) -> np.ndarray:
    u = np.asarray(x, np.float32)
    if normalized:
        u = u * np.float32(n)
    u = u.astype(np.float64)
    return np.clip(np.nan_to_num(u, nan=0.0, posinf=_COORD_LIMIT, neginf=-_COORD_LIMIT), -_COORD_LIMIT, _COORD_LIMIT)


def linear_taps(u: np.ndarray):
    """(i0, alpha) of linear filtering at texel coordinate u: u - 0.5 in fixed point with 8
    fractional bits (rounded), i0 its integer part, alpha its fraction in 1/256 (0..255)."""
    f = np.floor((u - 0.5) * 256.0 + 0.5).astype(np.int64)
    return f >> 8, f & 255


def corner_weights(alphas) -> list[np.ndarray]:
    """The 2**dims weights of linear filtering, in 1/256, from each dimension's alpha (in 1/256),
    corner c's bit k the upper texel of dimension k. Not the products of the alphas rounded each,
    but what an H100's texture unit gives (tests/e2e/test_textures.py; every sample an H200 and an
    H100 returned that could tell them apart fits this and nothing simpler):
      * 2D: only the product of the two upper weights is rounded, w11 = round(a*b/256), halves up;
        the others follow from the alphas exactly (w10 = a - w11, w01 = b - w11), so the weights
        add up to 256 and halves go both ways (products 25.5, 76.5, 38.5, 115.5 gave 26, 76, 38, 116);
      * 3D: the 2D weights of x and z, each then split by y: its upper part round(b*w/256), halves
        up, its lower part the rest (y and z, or x and y, first fit neither sample). An exact half
        in this split went up in one H100 sample and down in another (texref.corner_weights): which
        way, and why, is not known; the sim rounds it up.
    """
    if len(alphas) == 1:
        return [256 - alphas[0], alphas[0]]
    if len(alphas) == 2:
        return _bilinear(*alphas)
    a, b, c = alphas
    out = [None] * 8
    for i, w in enumerate(_bilinear(a, c)):  # (x, z): 00, 10, 01, 11
        upper = _round_256(b * w)
        x, z = i & 1, i >> 1
        out[x | z << 2], out[x | 2 | z << 2] = w - upper, upper
    return out


def _bilinear(a, b):
    w11 = _round_256(a * b)
    return [256 - a - b + w11, a - w11, b - w11, w11]


def _round_256(p):
    """p / 256 rounded to an integer, halves up (p: a non-negative integer or integer array)."""
    return (p + 128) >> 8


def cube_face(x, y, z):
    """(face, s, t): the face a direction points at and the normalised coordinates on it."""
    x, y, z = (np.asarray(v, np.float32) for v in (x, y, z))
    ax, ay, az = np.abs(x), np.abs(y), np.abs(z)
    xmaj = (ax >= ay) & (ax >= az)
    ymaj = ~xmaj & (ay >= az)
    face = np.where(xmaj, np.where(x >= 0, 0, 1), np.where(ymaj, np.where(y >= 0, 2, 3), np.where(z >= 0, 4, 5)))
    m = np.where(xmaj, ax, np.where(ymaj, ay, az))
    sc = np.select([face == 0, face == 1, face == 2, face == 3, face == 4], [-z, z, x, x, x], -x)
    tc = np.select([face == 0, face == 1, face == 2, face == 3, face == 4], [-y, -y, z, -z, -y], -y)
    with np.errstate(all="ignore"):
        m = np.where(m == 0, np.float32(1), m)
        s = ((sc / m + np.float32(1)) * np.float32(0.5)).astype(np.float32)
        t = ((tc / m + np.float32(1)) * np.float32(0.5)).astype(np.float32)
    return face.astype(np.int64), s, t


class Texture:
    """A texture object of the software GPU: a resource, how it is sampled, and its view."""

    def __init__(self, res: Resource, tex: TextureDesc, view: ViewDesc | None):
        self.res, self.tex, self.view = res, tex, view
        self.levels = _levels(res, view)
        self.desc = self.levels[0].desc
        self.integer = reads_integer(self.desc, tex.flags)
        self.linear_memory = res.type == RES_LINEAR
        self.border = np.asarray(tex.border, np.float32)
        d = self.desc
        self.first_layer = view.first_layer if view is not None else 0
        self.cubemap = d.cubemap
        self.layers = d.slices // 6 if d.cubemap else (d.slices if d.layered else 1)
        if view is not None and (view.first_layer or view.last_layer):
            self.layers = view.last_layer - view.first_layer + 1

    # -- texel values ---------------------------------------------------------------------------
    def _values(self, mem, level: Level, ix, iy, iz) -> np.ndarray:
        raw = level.read(mem, ix, iy, iz)
        return as_integer(raw) if self.integer else as_float(raw, level.desc, self.tex.flags)

    def _modes(self, dims: int):
        modes = list(self.tex.address[:dims])
        if self.cubemap:
            return [CLAMP] * dims
        if not self.tex.flags & NORMALIZED_COORDINATES:
            modes = [CLAMP if m in (WRAP, MIRROR) else m for m in modes]
        return modes

    def _corner(self, mem, level, idx, modes, sizes, slice_, bytes_=False):
        """Values of the texels at integer indices idx (one array per dimension), addressed;
        bytes_: an 8-bit unsigned normalised format's values times 255 (float64, exact)."""
        fixed, inside = [], None
        for i, mode, n in zip(idx, modes, sizes):
            j, ok = address(i, n, mode)
            fixed.append(j)
            if ok is not None:
                inside = ok if inside is None else inside & ok
        zero = np.zeros_like(fixed[0])
        ix = fixed[0]
        iy = fixed[1] if len(fixed) > 1 else zero
        iz = fixed[2] if len(fixed) > 2 else slice_
        if bytes_:
            v = _pad(level.read(mem, ix, iy, iz).astype(np.float64), 255.0)
        else:
            v = self._values(mem, level, ix, iy, iz)
        if inside is not None and not inside.all():
            border = self.border.astype(v.dtype) if v.dtype.kind != "f" else self.border * (255.0 if bytes_ else 1)
            v = np.where(inside[:, None], v, border)
        return v

    def _sample_level(self, mem, level: Level, coords, slice_, filter_mode: int, integer_coords: bool):
        """(n, 4) values of one level at coordinates (one array per dimension)."""
        dims = len(coords)
        sizes = [level.width, level.height, level.slices][:dims]
        modes = self._modes(dims)
        normalized = bool(self.tex.flags & NORMALIZED_COORDINATES) or self.cubemap
        if integer_coords:
            idx = [np.asarray(c, np.int64) for c in coords]
            return self._corner(mem, level, idx, modes, sizes, slice_)
        space = [_texel_space(c, n, normalized) for c, n in zip(coords, sizes)]
        if filter_mode == POINT or self.integer:
            idx = [np.floor(u).astype(np.int64) for u in space]
            return self._corner(mem, level, idx, modes, sizes, slice_)
        # the hardware clamps a clamped dimension's coordinate to its edge texels' centres, so
        # outside the texture that dimension weighs (1, 0) and does not enter the rounding
        space = [np.clip(u, 0.5, n - 0.5) if m == CLAMP else u for u, n, m in zip(space, sizes, modes)]
        taps = [linear_taps(u) for u in space]
        weights = corner_weights([a for _, a in taps])
        unorm8 = self._filters_as_16_bits(level.desc)
        out = None
        for corner, w in enumerate(weights):
            idx = [i0 + ((corner >> k) & 1) for k, (i0, _) in enumerate(taps)]
            v = self._corner(mem, level, idx, modes, sizes, slice_, unorm8) * w[:, None]
            out = v if out is None else out + v
        if unorm8:  # sum of weight/256 * byte * 257, rounded to 16 bits (halves up)
            return (np.floor(out * (257 / 256) + 0.5) / 65535).astype(np.float32)
        return (out * np.float32(1 / 256)).astype(np.float32)

    def _filters_as_16_bits(self, desc: ArrayDesc) -> bool:
        """8-bit unsigned normalised texels (not sRGB): the H200 filters them as 16-bit values."""
        return (desc.kind == "u" and desc.channel_bytes == 1 and not self.tex.flags & (SRGB | READ_AS_INTEGER))

    def _locate(self, coords, layer):
        """(coordinates on a level, slice index): cubemap faces and layers become slices."""
        n = len(np.asarray(coords[0]).reshape(-1)) if np.ndim(coords[0]) else 1
        lay = np.zeros(n, np.int64) if layer is None else \
            np.clip(np.asarray(layer, np.int64), 0, self.layers - 1) + self.first_layer
        if self.cubemap:
            face, s, t = cube_face(*coords[:3])
            return [s, t], lay * 6 + face
        return coords, lay

    def lod_of(self, n, lod=None, grad=None) -> np.ndarray:
        """Per-lane level of detail: given (tex.level), from gradients (tex.grad), else 0; then bias
        and clamps of the texture descriptor."""
        if lod is not None:
            v = np.broadcast_to(np.asarray(lod, np.float32), (n,)).astype(np.float64)
        elif grad is not None:
            d = self.desc
            sizes = [d.width, d.rows, d.slices][:len(grad[0])]
            rho = [np.sqrt(sum((np.asarray(g[k], np.float64) * s) ** 2 for k, s in enumerate(sizes))) for g in grad]
            with np.errstate(divide="ignore"):
                v = np.log2(np.maximum(rho[0], rho[1]))
            v = np.broadcast_to(v, (n,))
        else:
            v = np.zeros(n)
        t = self.tex
        v = np.nan_to_num(v + t.lod_bias, nan=0.0, neginf=-1e9, posinf=1e9)
        v = np.minimum(np.maximum(v, t.min_lod), t.max_lod)  # as CUDA: a zero maximum keeps level 0
        return np.clip(v, 0.0, len(self.levels) - 1)

    def sample(self, mem, coords, layer=None, lod=None, grad=None, integer_coords=False,
               offsets=None) -> np.ndarray:
        """(n, 4) fetch results: float32, or int64 channels when the texture reads integers."""
        coords = [np.asarray(c) for c in coords]
        n = max(np.size(c) for c in coords)
        coords = [np.broadcast_to(c, (n,)) for c in coords]
        coords, slice_ = self._locate(coords, layer)
        if offsets is not None:
            coords = [np.asarray(c, np.float32) + np.float32(o) for c, o in zip(coords, offsets)] if not integer_coords \
                else [np.asarray(c, np.int64) + np.asarray(o, np.int64) for c, o in zip(coords, offsets)]
        if self.linear_memory:  # tex1Dfetch: element indices, zero outside
            i = np.asarray(coords[0], np.float64) if not integer_coords else np.asarray(coords[0], np.int64)
            i = np.floor(np.nan_to_num(i)).astype(np.int64) if i.dtype.kind == "f" else i
            lvl = self.levels[0]
            ok = (i >= 0) & (i < lvl.width)
            v = self._values(mem, lvl, np.where(ok, i, 0), np.zeros(n, np.int64), np.zeros(n, np.int64))
            return np.where(ok[:, None], v, v.dtype.type(0))
        if len(self.levels) == 1:
            return self._sample_level(mem, self.levels[0], coords, slice_, self.tex.filter, integer_coords)
        lod = self.lod_of(n, lod, grad)
        if self.tex.mipmap_filter == LINEAR and not self.integer:
            f = np.floor(lod * 256.0 + 0.5).astype(np.int64)
            lo, frac = f >> 8, (f & 255).astype(np.float32) / np.float32(256)
        else:
            lo, frac = np.floor(lod + 0.5).astype(np.int64), None
        lo = np.minimum(lo, len(self.levels) - 1)
        out = None
        for lv in np.unique(lo):
            sel = np.flatnonzero(lo == lv)
            part_c = [c[sel] for c in coords]
            v = self._sample_level(mem, self.levels[lv], part_c, slice_[sel], self.tex.filter, integer_coords)
            if frac is not None and lv + 1 < len(self.levels) and (frac[sel] > 0).any():
                v2 = self._sample_level(mem, self.levels[lv + 1], part_c, slice_[sel], self.tex.filter, integer_coords)
                fr = frac[sel][:, None]
                v = (v * (np.float32(1) - fr) + v2 * fr).astype(np.float32)
            if out is None:
                out = np.zeros((n, 4), v.dtype)
            out[sel] = v
        return out

    def gather(self, mem, coords, comp: int, layer=None) -> np.ndarray:
        """tld4: component `comp` of the four texels bilinear filtering at (x, y) would weigh, in
        the order (i0, j1), (i1, j1), (i1, j0), (i0, j0)."""
        coords = [np.asarray(c) for c in coords]
        n = max(np.size(c) for c in coords)
        coords = [np.broadcast_to(c, (n,)) for c in coords]
        coords, slice_ = self._locate(coords, layer)
        level = self.levels[0]
        sizes = [level.width, level.height]
        modes = self._modes(2)
        normalized = bool(self.tex.flags & NORMALIZED_COORDINATES) or self.cubemap
        (i0, _), (j0, _) = (linear_taps(_texel_space(c, s, normalized)) for c, s in zip(coords, sizes))
        out = []
        for di, dj in ((0, 1), (1, 1), (1, 0), (0, 0)):
            v = self._corner(mem, level, [i0 + di, j0 + dj], modes, sizes, slice_)
            out.append(v[:, comp])
        return np.stack(out, axis=1)

    def query(self, what: str, level: int = 0) -> int:
        """txq: a property of the texture (of mipmap `level` for the sizes)."""
        lvl = self.levels[min(max(level, 0), len(self.levels) - 1)]
        d, t = lvl.desc, self.tex
        values = {
            "width": d.width, "height": d.height if d.dims > 1 else 0, "depth": d.depth if d.dims == 3 else 0,
            "channel_data_type": channel_data_type(d), "channel_order": channel_order(d),
            "normalized_coords": 1 if t.flags & NORMALIZED_COORDINATES else 0, "filter_mode": t.filter,
            "addr_mode_0": t.address[0], "addr_mode_1": t.address[1], "addr_mode_2": t.address[2],
            "array_size": self.layers if (d.layered or d.cubemap) else 0, "num_mipmap_levels": len(self.levels),
            "num_samples": 0,
        }
        return values[what]


# OpenCL's numbers, which PTX's txq and suq report for a resource's channel type and order.
_CL_TYPES = {("s", 1): 0x10D7, ("s", 2): 0x10D8, ("s", 4): 0x10D9, ("u", 1): 0x10DA, ("u", 2): 0x10DB,
             ("u", 4): 0x10DC, ("f", 2): 0x10DD, ("f", 4): 0x10DE}
_CL_ORDERS = {1: 0x10B0, 2: 0x10B2, 4: 0x10B5}


def channel_data_type(d: ArrayDesc) -> int:
    return _CL_TYPES[(d.kind, d.channel_bytes)]


def channel_order(d: ArrayDesc) -> int:
    return _CL_ORDERS[d.channels]


class Surface:
    """A surface object: raw loads and stores of a CUDA array's elements (x in bytes)."""

    def __init__(self, res: Resource):
        self.res = res
        self.level = _levels(res, None)[0]
        self.desc = self.level.desc

    def _where(self, x, y, z, nbytes: int, mode: str):
        """(element x, y, slice, in-range mask) of byte coordinate x and rows y, z, after the
        instruction's out-of-range mode; trap raises the fault."""
        lvl = self.level
        x = np.asarray(x, np.int64)
        y, z = np.asarray(y, np.int64), np.asarray(z, np.int64)
        row = lvl.width * lvl.elem
        ok = (x >= 0) & (x + nbytes <= row) & (y >= 0) & (y < lvl.height) & (z >= 0) & (z < lvl.slices)
        if mode == "trap":
            if not ok.all():
                bad = int(np.flatnonzero(~ok)[0])
                raise SimFault("CUDA_ERROR_ILLEGAL_ADDRESS",
                               f"surface access of {nbytes} bytes at byte x={int(x[bad])}, y={int(y[bad])}, "
                               f"z={int(z[bad])} is outside the {lvl.width}x{lvl.height}x{lvl.slices} array")
            if (x % nbytes).any():
                bad = int(np.flatnonzero(x % nbytes)[0])
                raise SimFault("CUDA_ERROR_MISALIGNED_ADDRESS", f"{nbytes}-byte surface access at byte x={int(x[bad])}")
        elif mode == "clamp":
            x = np.clip(x, 0, row - nbytes) // nbytes * nbytes
            y, z = np.clip(y, 0, lvl.height - 1), np.clip(z, 0, lvl.slices - 1)
            ok = np.ones_like(ok)
        else:  # zero: out-of-range loads read zeros and stores are dropped
            x, y, z = np.where(ok, x, 0), np.where(ok, y, 0), np.where(ok, z, 0)
        return x, y, z, ok

    def load(self, mem, x, y, z, nbytes: int, mode: str) -> np.ndarray:
        """(n, nbytes) uint8 of each lane's access."""
        x, y, z, ok = self._where(x, y, z, nbytes, mode)
        lvl = self.level
        offs = lvl.offsets(mem, np.zeros_like(x), y, z) + x
        data = mem.arena[offs[:, None] + np.arange(nbytes)]
        if not ok.all():
            data = np.where(ok[:, None], data, np.uint8(0))
        return data

    def store(self, mem, x, y, z, nbytes: int, mode: str, data: np.ndarray) -> None:
        x, y, z, ok = self._where(x, y, z, nbytes, mode)
        if not ok.all():
            sel = np.flatnonzero(ok)
            x, y, z, data = x[sel], y[sel], z[sel], data[sel]
        offs = self.level.offsets(mem, np.zeros_like(x), y, z) + x
        mem.arena[offs[:, None] + np.arange(nbytes)] = data

    def query(self, what: str) -> int:
        d = self.desc
        values = {"width": d.width, "height": d.height if d.dims > 1 else 0,
                  "depth": d.depth if d.dims == 3 else 0, "channel_data_type": channel_data_type(d),
                  "channel_order": channel_order(d),
                  "array_size": (d.slices // 6 if d.cubemap else d.slices) if (d.layered or d.cubemap) else 0,
                  "memory_layout": 1}
        return values[what]


def pack_formatted(desc: ArrayDesc, values: np.ndarray, as_float: bool) -> np.ndarray:
    """sust.p: (n, 4) source values (float32 or int64) -> (n, elem) bytes of the surface's format."""
    c = desc.channels
    kind, size = desc.kind, desc.channel_bytes
    v = values[:, :c]
    dt = np.dtype(_DTYPES[(kind, size)])
    if kind == "f":
        out = v.astype(np.float32).astype(dt)
    elif as_float:  # a float written to a normalised integer format
        top = (1 << (8 * size)) - 1 if kind == "u" else (1 << (8 * size - 1)) - 1
        lo = 0.0 if kind == "u" else -1.0
        out = np.rint(np.clip(v.astype(np.float32), lo, 1.0) * top).astype(dt)
    else:
        out = v.astype(np.int64).astype(dt)
    return np.ascontiguousarray(out).view(np.uint8).reshape(len(v), desc.elem)

