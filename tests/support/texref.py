"""Reference texture fetching, one lane at a time, from the CUDA Programming Guide's texture fetching
appendix (shared by the software GPU's unit tests, tests/unit/sim/test_textures.py, and the end-to-end
texture programs, tests/e2e/test_textures.py): nearest-point sampling reads T[floor(x)]; linear
filtering weighs the texels around x - 0.5 with alpha = frac(x - 0.5) in 9-bit fixed point (8
fractional bits), its corner weights rounded as an H200's and an H100's texture unit rounds them
(corner_weights); normalised coordinates are scaled by the extent; wrap uses x - floor(x), mirror
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


def ref_sample(T: np.ndarray, coords, modes, normalized: bool, linear: bool, border=(0, 0, 0, 0), unorm8=False,
               split_halves="up"):
    """One lane: T is (depth, height, width, 4) texel values; coords (x[, y[, z]]). unorm8: T holds
    the bytes of an 8-bit unsigned normalised format (linear filtering reads them as 16-bit values).
    split_halves: how a 3D weight's split by y rounds an exact half ("up" or "down": corner_weights).

    Linear filtering is an H100's and an H200's texture unit's (the weights: corner_weights):
    alpha = frac(x - 0.5) rounded to 1/256, as the Guide says; a clamped coordinate is first clamped
    to the edge texels' centres (its dimension then weighs (1, 0)). 8-bit unsigned normalised texels
    are filtered as 16-bit values, the result rounded to 1/65535. The samples the weights were fitted
    to, each of which the exact products (and simpler roundings) miss:
      * H200, 2D float, unnormalised (3.7741427, 2.9233227) on the 7x5 texels of seed 7: alphas 70,
        108; weights (108, 40, 78, 30) give 0.02263688 = the H200's 0.022636882960796356 (exact
        products: 0.0131199);
      * H200, 3D float (0.5755937, -5.6844125, 1.4667755) on the 5x4x3 texels of seed 8: y outside
        and clamped, alphas 19 and 247 for x and z, weights (8, 1, 229, 18) give 8.3987254 (exact:
        8.3802892);
      * H200, uchar4 at (5.3991656, 1.1999524): weights (8, 18, 69, 161), sums of weight * byte
        (34064, 48285, 25577, 41989), times 257/256 rounded, / 65535: (0.5218128, 0.7396658,
        0.3918059, 0.6432136), where byte / 255 gives (0.5218137, 0.7396599, ...);
      * H100, 2D unnormalised (6.2491536, 1.0999372), seed 7: alphas 192, 154, exact products
        (25.5, 76.5, 38.5, 115.5); the H100's -1.3616735 is (26, 76, 38, 116);
      * H100, 2D normalised wrap (-1.1340176, 0.2065980), seed 7: alphas 144, 136, products (52.5,
        67.5, 59.5, 76.5); the H100's -1.0012722 is (53, 67, 59, 77): neither halves up nor to even
        per corner, but w11 rounded and the rest from the alphas;
      * H100, 3D normalised wrap, seed 8's second and third samples: alphas (76, 196, 249) and
        (114, 120, 251), the H100's 4.1438103 and 5.0902276 are the weights (1, 0, 4, 2, 41, 17,
        134, 57) and (2, 1, 1, 1, 74, 59, 65, 53): x and z's 2D weights, each split by y; of the
        64 samples of that texture, in wrap and in clamp mode, each fits but the 42nd, whose split
        by y has an exact half (16.5) that went down (its 5.1918526 is halves down there);
      * H100, uchar4, seed 13's sixth sample: (0.4393988, 0.7248188, 0.7561303, 0.3418479)."""
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
                return np.asarray(border, np.float64) * (255 if unorm8 else 1)
            fixed.append(j)
        fixed += [0] * (3 - dims)
        return T[fixed[2], fixed[1], fixed[0]].astype(np.float64)

    if not linear:
        return texel([math.floor(x) for x in u])
    taps = []
    for x, n, mode in zip(u, sizes, modes):
        if mode == R.CLAMP:
            x = min(max(x, 0.5), n - 0.5)
        f = math.floor((x - 0.5) * 256 + 0.5)
        taps.append((f >> 8, f & 255))
    total = np.zeros(4)
    for corner, w in corner_weights([a for _, a in taps], split_halves).items():
        idx = [i + ((corner >> k) & 1) for k, (i, _) in enumerate(taps)]
        total += w * texel(idx)
    if unorm8:
        return np.floor(total * 257 / 256 + 0.5) / 65535
    return total / 256


def corner_weights(alphas: list[int], split_halves: str = "up") -> dict[int, int]:
    """{corner: weight in 1/256} of linear filtering, corner bit k the upper texel of dimension k:
    in 2D the product of the two upper alphas rounded (halves up) and the other three what the
    alphas leave; in 3D those 2D weights of x and z, each split by y, its upper part rounded. An
    exact half in that split went up in one H100 sample (112 * 120 / 256 = 52.5: 53) and down in
    another (66 * 64 / 256 = 16.5: 16), by a rule these two do not show: split_halves picks one
    ("up", the sim's, or "down"), and a test of 3D filtering on a GPU accepts either."""
    def rounded(p: int, half_up: bool = True) -> int:
        return (p + (128 if half_up else 127)) // 256
    if len(alphas) == 1:
        return {0: 256 - alphas[0], 1: alphas[0]}
    ax, az = alphas[0], alphas[-1]  # in 2D, az is y's
    both = rounded(ax * az)
    plane = {(0, 0): 256 - ax - az + both, (1, 0): ax - both, (0, 1): az - both, (1, 1): both}
    if len(alphas) == 2:
        return {x | z << 1: w for (x, z), w in plane.items()}
    out = {}
    for (x, z), w in plane.items():
        upper = rounded(alphas[1] * w, split_halves == "up")
        out[x | 2 | z << 2], out[x | z << 2] = upper, w - upper
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
