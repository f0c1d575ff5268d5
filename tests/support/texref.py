"""Reference texture fetching, one lane at a time, from the CUDA Programming Guide's texture fetching
appendix (shared by the software GPU's unit tests, tests/unit/sim/test_textures.py, and the end-to-end
texture programs, tests/e2e/test_textures.py): nearest-point sampling reads T[floor(x)]; linear
filtering weighs the texels around x - 0.5 with alpha = frac(x - 0.5) in 9-bit fixed point (8
fractional bits); normalised coordinates are scaled by the extent; wrap uses x - floor(x), mirror
reflects every other period, clamp and border as the address-mode table says; a cubemap direction
picks a face by its major axis (the Guide's cubemap table)."""
from __future__ import annotations

import math

import numpy as np

from rgpu.server.backends import resources as R


def ref_address(i: int, n: int, mode: int) -> int | None:
    """Index i of a dimension of n texels under an address mode (None: the border colour)."""
    if mode == R.BORDER:
        return i if 0 <= i < n else None
    if mode == R.WRAP:
        return i % n
    if mode == R.MIRROR:
        period = i // n
        r = i - period * n
        return r if period % 2 == 0 else n - 1 - r
    return min(max(i, 0), n - 1)


def ref_sample(T: np.ndarray, coords, modes, normalized: bool, linear: bool, border=(0, 0, 0, 0)):
    """One lane: T is (depth, height, width, 4) float texel values; coords (x[, y[, z]])."""
    dims = len(coords)
    sizes = [T.shape[2], T.shape[1], T.shape[0]][:dims]
    if not normalized:
        modes = [R.CLAMP if m in (R.WRAP, R.MIRROR) else m for m in modes]
    u = [float(np.float32(c) * np.float32(n)) if normalized else float(c) for c, n in zip(coords, sizes)]

    def texel(idx):
        fixed = []
        for i, n, mode in zip(idx, sizes, modes):
            j = ref_address(i, n, mode)
            if j is None:
                return np.asarray(border, np.float64)
            fixed.append(j)
        fixed += [0] * (3 - dims)
        return T[fixed[2], fixed[1], fixed[0]].astype(np.float64)

    if not linear:
        return texel([math.floor(x) for x in u])
    taps = []
    for x in u:
        xb = x - 0.5
        i = math.floor(xb)
        a = math.floor((xb - i) * 256 + 0.5)  # 9-bit fixed point: 8 fractional bits, rounded
        if a == 256:
            i, a = i + 1, 0
        taps.append((i, a / 256))
    out = np.zeros(4)
    for corner in range(1 << dims):
        w, idx = 1.0, []
        for k, (i, a) in enumerate(taps):
            hi = (corner >> k) & 1
            idx.append(i + hi)
            w *= a if hi else 1 - a
        out += w * texel(idx)
    return out


def as4(values: np.ndarray) -> np.ndarray:
    """(…, c) texel values -> (…, 4): missing channels 0, alpha 1."""
    out = np.zeros(values.shape[:-1] + (4,))
    out[..., 3] = 1
    out[..., :values.shape[-1]] = values
    return out


def away_from_edges(rng, n, lo, hi, size):
    """Coordinates in [lo, hi) that are not within 1/64 of a texel boundary or centre, where a
    hardware rounding of the coordinate could pick another texel than the reference does."""
    x = rng.uniform(lo, hi, n)
    scaled = x * size
    frac = scaled - np.floor(scaled)
    bad = (np.abs(frac) < 1 / 64) | (np.abs(frac - 1) < 1 / 64) | (np.abs(frac - 0.5) < 1 / 64)
    step = 1 / (4 * size)
    x[bad] += np.where(x[bad] + step < hi, step, -step)
    return x.astype(np.float32)


def ref_cube(x, y, z):
    """The Guide's cubemap table: (face, s, t) in [0, 1]."""
    ax, ay, az = abs(x), abs(y), abs(z)
    if ax >= ay and ax >= az:
        face, m, sc, tc = (0, ax, -z, -y) if x >= 0 else (1, ax, z, -y)
    elif ay >= az:
        face, m, sc, tc = (2, ay, x, z) if y >= 0 else (3, ay, x, -z)
    else:
        face, m, sc, tc = (4, az, x, -y) if z >= 0 else (5, az, -x, -y)
    return face, (sc / m + 1) / 2, (tc / m + 1) / 2
