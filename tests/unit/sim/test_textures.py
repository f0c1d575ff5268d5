"""The software GPU's texture and surface instructions (tex, tex.level, tex.grad, tld4, txq, suld,
sust, suq), run from nvcc's PTX of tests/cuda/kernels/simtex.cu against references written here, one
lane at a time, from the CUDA Programming Guide's texture fetching appendix: nearest-point sampling
reads T[floor(x)]; linear filtering weighs the texels around x - 0.5 with alpha = frac(x - 0.5) in
9-bit fixed point (8 fractional bits); normalised coordinates are scaled by the extent; wrap uses
x - floor(x), mirror reflects every other period, clamp and border as the address-mode table says;
a cubemap direction picks a face by its major axis (the Guide's cubemap table)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from rgpu.server.backends import resources as R
from rgpu.server.backends.sim.arrays import SimArrays
from rgpu.server.backends.sim.errors import SimFault
from rgpu.server.backends.sim.kernels import KernelModule
from tests.support.texref import as4, away_from_edges, ref_address, ref_cube, ref_sample  # noqa: F401


@pytest.fixture(scope="module")
def texmod(build_image):
    return KernelModule.load(build_image("simtex.cu", "ptx"))


class Tex(SimArrays):
    """The sim device's array and texture calls over a test Device's memory."""

    def __init__(self, dev):
        self.dev, self.memory = dev, dev.mem

    def array(self, data: np.ndarray, fmt: int, channels: int, width, height=0, depth=0, flags=0) -> R.ArrayRef:
        desc = R.ArrayDesc(width, height, depth, fmt, channels, flags)
        arr = self.array_create(desc)
        raw = np.ascontiguousarray(data).tobytes()
        assert len(raw) == desc.nbytes
        self.memory.write(arr.addr, raw)
        return R.ArrayRef(desc, arr)

    def texture(self, res: R.Resource, **kw) -> int:
        value, _ = self.tex_create(res, R.TextureDesc(**kw), None)
        return value

    def surface(self, ref: R.ArrayRef) -> int:
        value, _ = self.surf_create(R.Resource(R.RES_ARRAY, array=ref))
        return value


@pytest.fixture
def dev(texmod, make_device):
    return make_device(texmod)


@pytest.fixture
def tx(dev):
    return Tex(dev)


def launch(dev, name, tex_args, arrays, n, out_dtype=np.float32, scalars=()):
    """Run kernel `name`(tex_args..., arrays..., scalars..., out, n); returns out as (n, 4)."""
    ptrs = [dev.put(np.ascontiguousarray(a)) for a in arrays]
    out = dev.zeros(4 * n, out_dtype)
    dev.launch(name, (n + 63) // 64, 64, *tex_args, *ptrs, *scalars, out, n)
    return dev.get(out, 4 * n, out_dtype).reshape(n, 4)


MODES = {"wrap": R.WRAP, "clamp": R.CLAMP, "mirror": R.MIRROR, "border": R.BORDER}


# -- 2D float textures: every address mode, both filters, both coordinate kinds ---------------------
@pytest.mark.parametrize("filt", ["point", "linear"])
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("normalized", [True, False])
def test_2d_float_address_and_filter_modes(tx, dev, rng, filt, mode, normalized):
    W, H, n = 7, 5, 256
    data = rng.uniform(-4, 4, (H, W)).astype(np.float32)
    ref = tx.array(data, 0x20, 1, W, H)
    border = (9.5, -3.0, 2.0, 7.0)
    t = tx.texture(R.Resource(R.RES_ARRAY, array=ref), address=(MODES[mode],) * 3,
                   filter=R.LINEAR if filt == "linear" else R.POINT,
                   flags=R.NORMALIZED_COORDINATES if normalized else 0, border=border)
    if normalized:
        x, y = away_from_edges(rng, n, -1.3, 2.4, W), away_from_edges(rng, n, -1.2, 2.2, H)
    else:
        x, y = away_from_edges(rng, n, -3, W + 3, 1), away_from_edges(rng, n, -3, H + 3, 1)
    got = launch(dev, "t2d", [t], [x, y], n)
    T = as4(data[None, :, :, None])
    want = np.array([ref_sample(T, (x[k], y[k]), [MODES[mode]] * 2, normalized, filt == "linear", border)
                     for k in range(n)])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_linear_weights_are_9_bit_fixed_point(tx, dev):
    """Between texels 0 and 1 the filter sees 256 steps: x = 0.5 + k/1024 gives k//4/256 (rounded)."""
    ref = tx.array(np.array([0.0, 1.0], np.float32), 0x20, 1, 2)
    t = tx.texture(R.Resource(R.RES_ARRAY, array=ref), filter=R.LINEAR)
    k = np.arange(0, 1024, 3)
    x = (0.5 + k / 1024).astype(np.float32)
    got = launch(dev, "t1d", [t], [x], len(k))[:, 0]
    np.testing.assert_array_equal(got, np.floor(k / 4 + 0.5) / 256)
    assert len(np.unique(got)) <= 257


def test_linear_filtering_gives_what_an_h200_gave(tx, dev):
    """Corner weights rounded to 1/256, a clamped coordinate clamped to the edge texels' centres
    first, and 8-bit unsigned normalised texels filtered as 16-bit values: the numbers an H200
    returned (tests/support/texref.py, ref_sample)."""
    data = np.random.default_rng(7).uniform(-4, 4, (5, 7)).astype(np.float32)
    t = tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(data, 0x20, 1, 7, 5)), filter=R.LINEAR)
    got = launch(dev, "t2d", [t], [np.float32([3.7741427421569824]), np.float32([2.9233226776123047])], 1)
    assert got[0, 0] == pytest.approx(0.022636882960796356, abs=1e-8)  # exact products: 0.0131199

    vol = np.random.default_rng(8).uniform(0, 10, (3, 4, 5)).astype(np.float32)
    t = tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(vol, 0x20, 1, 5, 4, 3)), filter=R.LINEAR)
    xyz = [np.float32([0.5755936503410339]), np.float32([-5.684412479400635]), np.float32([1.4667755365371704])]
    got = launch(dev, "t3d", [t], xyz, 1)
    assert got[0, 0] == pytest.approx(8.398725509643555, abs=1e-6)  # exact products: 8.3802892

    texels = np.array([[[214, 233, 33, 252], [217, 73, 122, 208]], [[80, 63, 71, 198], [99, 250, 97, 137]]],
                      np.uint8)  # texels (4..5, 0..1) of the uchar4 texture of seed 13
    t = tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(texels, 0x01, 4, 2, 2)), filter=R.LINEAR)
    got = launch(dev, "t2d", [t], [np.float32([5.399165630340576 - 4]), np.float32([1.1999523639678955])], 1)
    np.testing.assert_allclose(got[0], [0.5218127965927124, 0.7396658062934875, 0.3918059170246124,
                                        0.6432135701179504], rtol=0, atol=2e-8)


def test_linear_filtering_gives_what_an_h100_gave(tx, dev):
    """The samples of tests/e2e/test_textures.py where an H100 showed how its corner weights round
    (tests/support/texref.py, corner_weights): exact halves going both ways in 2D, and 3D weights
    that are x and z's 2D weights split by y."""
    data = np.random.default_rng(7).uniform(-4, 4, (5, 7)).astype(np.float32)
    t = tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(data, 0x20, 1, 7, 5)), filter=R.LINEAR)
    got = launch(dev, "t2d", [t], [np.float32([6.2491536140441895]), np.float32([1.0999372005462646])], 1)
    assert got[0, 0] == pytest.approx(-1.3616734743118286, abs=1e-6)  # halves up everywhere: -1.3847943
    t = tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(data, 0x20, 1, 7, 5)), filter=R.LINEAR,
                   address=(R.WRAP,) * 3, flags=R.NORMALIZED_COORDINATES)
    got = launch(dev, "t2d", [t], [np.float32([-1.1340175867080688]), np.float32([0.20659801363945007])], 1)
    assert got[0, 0] == pytest.approx(-1.001272201538086, abs=1e-6)  # halves to even: -1.0343502

    vol = np.random.default_rng(8).uniform(0, 10, (3, 4, 5)).astype(np.float32)
    t = tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(vol, 0x20, 1, 5, 4, 3)), filter=R.LINEAR,
                   address=(R.WRAP,) * 3, flags=R.NORMALIZED_COORDINATES)
    xyz = [np.float32([-1.2405071258544922, -0.010712149553000927]),
           np.float32([-1.183969497680664, 0.24200023710727692]),
           np.float32([0.824779748916626, 1.8273450136184692])]
    got = launch(dev, "t3d", [t], xyz, 2)
    np.testing.assert_allclose(got[:, 0], [4.143810272216797, 5.0902276039123535], rtol=0, atol=1e-6)

    texels = np.random.default_rng(13).integers(0, 256, (4, 6, 4)).astype(np.uint8)
    t = tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(texels, 0x01, 4, 6, 4)), filter=R.LINEAR)
    got = launch(dev, "t2d", [t], [np.float32([1.7637284994125366]), np.float32([1.3734995126724243])], 1)
    np.testing.assert_allclose(got[0], [0.43939879536628723, 0.7248188257217407, 0.7561303377151489,
                                        0.34184786677360535], rtol=0, atol=2e-8)


def test_1d_and_3d_linear(tx, dev, rng):
    W = 9
    d1 = rng.uniform(0, 10, W).astype(np.float32)
    t1 = tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(d1, 0x20, 1, W)), filter=R.LINEAR,
                    address=(R.CLAMP,) * 3)
    x = away_from_edges(rng, 100, -2, W + 2, 1)
    got = launch(dev, "t1d", [t1], [x], 100)
    want = [ref_sample(as4(d1[None, None, :, None]), (x[k],), [R.CLAMP], False, True) for k in range(100)]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)

    w, h, d = 4, 3, 5
    vol = rng.uniform(0, 1, (d, h, w, 2)).astype(np.float32)
    t3 = tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(vol, 0x20, 2, w, h, d)), filter=R.LINEAR,
                    address=(R.WRAP, R.MIRROR, R.CLAMP), flags=R.NORMALIZED_COORDINATES)
    xs = [away_from_edges(rng, 128, -1, 2, s) for s in (w, h, d)]
    got = launch(dev, "t3d", [t3], xs, 128)
    want = [ref_sample(as4(vol), (xs[0][k], xs[1][k], xs[2][k]), [R.WRAP, R.MIRROR, R.CLAMP], True, True)
            for k in range(128)]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_layered_textures_pick_their_layer(tx, dev, rng):
    w, h, layers = 6, 4, 3
    d1 = rng.uniform(0, 5, (layers, w)).astype(np.float32)
    t1 = tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(d1, 0x20, 1, w, 0, layers, R.LAYERED)), filter=R.LINEAR)
    x = away_from_edges(rng, 64, 0, w, 1)
    lay = rng.integers(0, layers, 64).astype(np.int32)
    got = launch(dev, "t1d_layered", [t1], [x, lay], 64)
    want = [ref_sample(as4(d1[lay[k]][None, None, :, None]), (x[k],), [R.CLAMP], False, True) for k in range(64)]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)

    d2 = rng.uniform(0, 5, (layers, h, w)).astype(np.float32)
    t2 = tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(d2, 0x20, 1, w, h, layers, R.LAYERED)))
    y = away_from_edges(rng, 64, 0, h, 1)
    got = launch(dev, "t2d_layered", [t2], [x, y, lay], 64)[:, 0]
    np.testing.assert_array_equal(got, d2[lay, np.floor(y).astype(int), np.floor(x).astype(int)])


def test_cubemap_faces_and_layers(tx, dev, rng):
    w, layers = 4, 2
    data = rng.uniform(0, 100, (layers * 6, w, w)).astype(np.float32)
    t = tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(data[:6], 0x20, 1, w, w, 6, R.CUBEMAP)))
    tl = tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(data, 0x20, 1, w, w, 6 * layers, R.CUBEMAP | R.LAYERED)))
    n = 200
    v = rng.normal(size=(3, n)).astype(np.float32)
    lay = rng.integers(0, layers, n).astype(np.int32)
    keep = []
    for k in range(n):  # directions whose face coordinates are not on a texel boundary
        f, s, tt = ref_cube(*v[:, k])
        if min(abs(s * w - round(s * w)), abs(tt * w - round(tt * w))) > 0.02:
            keep.append(k)
    v, lay = v[:, keep], lay[keep]
    n = len(keep)
    got = launch(dev, "tcube", [t], list(v), n)[:, 0]
    got_l = launch(dev, "tcube_layered", [tl], [*v, lay], n)[:, 0]
    for k in range(n):
        f, s, tt = ref_cube(*v[:, k])
        i, j = min(int(s * w), w - 1), min(int(tt * w), w - 1)
        assert got[k] == data[f, j, i], (k, v[:, k])
        assert got_l[k] == data[lay[k] * 6 + f, j, i]


# -- formats and read modes ------------------------------------------------------------------------
def test_uchar4_reads_normalized_and_srgb(tx, dev, rng):
    W, H = 5, 3
    data = rng.integers(0, 256, (H, W, 4)).astype(np.uint8)
    ref = tx.array(data, 0x01, 4, W, H)
    res = R.Resource(R.RES_ARRAY, array=ref)
    xs, ys = np.repeat(np.arange(W), H) + 0.5, np.tile(np.arange(H), W) + 0.5
    n = W * H
    got = launch(dev, "t2d", [tx.texture(res)], [xs.astype(np.float32), ys.astype(np.float32)], n)
    want = data[ys.astype(int), xs.astype(int)] / 255.0
    np.testing.assert_allclose(got, want, rtol=1e-6)
    got = launch(dev, "t2d", [tx.texture(res, flags=R.SRGB)], [xs.astype(np.float32), ys.astype(np.float32)], n)
    c = want[:, :3]
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    np.testing.assert_allclose(got[:, :3], lin, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[:, 3], want[:, 3], rtol=1e-6)
    got = launch(dev, "t2d_uint", [tx.texture(res, flags=R.READ_AS_INTEGER)],
                 [xs.astype(np.float32), ys.astype(np.float32)], n, np.uint32)
    np.testing.assert_array_equal(got, data[ys.astype(int), xs.astype(int)])


def test_signed_short2_and_int_and_half(tx, dev, rng):
    W = 8
    s2 = rng.integers(-32768, 32768, (W, 2)).astype(np.int16)
    x = (np.arange(W) + 0.5).astype(np.float32)
    got = launch(dev, "t1d", [tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(s2, 0x09, 2, W)))], [x], W)
    np.testing.assert_allclose(got[:, :2], np.maximum(s2 / 32767.0, -1.0), rtol=1e-6)
    np.testing.assert_array_equal(got[:, 2:], np.tile([0.0, 1.0], (W, 1)))

    ints = rng.integers(-2**31, 2**31, (W, 4)).astype(np.int32)
    # 32-bit integers are never promoted to floats, whatever the flags say
    t = tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(ints, 0x0A, 4, W, 1)))
    got = launch(dev, "t2d_int", [t], [x, np.full(W, 0.5, np.float32)], W, np.int32)
    np.testing.assert_array_equal(got, ints)

    halves = rng.uniform(-100, 100, W).astype(np.float16)
    t = tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(halves, 0x10, 1, W)), filter=R.LINEAR)
    xq = away_from_edges(rng, 50, 0, W, 1)
    got = launch(dev, "t1d", [t], [xq], 50)
    want = [ref_sample(as4(halves.astype(np.float32)[None, None, :, None]), (xq[k],), [R.CLAMP], False, True)
            for k in range(50)]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def test_linear_memory_fetch_is_zero_outside(tx, dev, rng):
    n = 40
    data = rng.uniform(0, 1, (n, 2)).astype(np.float32)
    addr = dev.put(data)
    t = tx.texture(R.Resource(R.RES_LINEAR, address=addr, format=0x20, channels=2, size=data.nbytes))
    idx = np.arange(-5, n + 5).astype(np.int32)
    got = launch(dev, "t1d_fetch", [t], [idx], len(idx))
    inside = (idx >= 0) & (idx < n)
    want = np.zeros((len(idx), 4))
    want[inside, :2] = data[idx[inside]]
    want[inside, 3] = 1
    np.testing.assert_array_equal(got, want)
    ints = rng.integers(-1000, 1000, n).astype(np.int32)
    ti = tx.texture(R.Resource(R.RES_LINEAR, address=dev.put(ints), format=0x0A, channels=1, size=ints.nbytes),
                    flags=R.READ_AS_INTEGER)
    got = launch(dev, "t1d_fetch_int", [ti], [idx], len(idx), np.int32)[:, 0]
    np.testing.assert_array_equal(got, np.where(inside, ints[np.clip(idx, 0, n - 1)], 0))


def test_pitch2d_resource(tx, dev, rng):
    W, H, pitch = 10, 6, 64
    data = rng.uniform(0, 1, (H, W)).astype(np.float32)
    rows = np.zeros((H, pitch // 4), np.float32)
    rows[:, :W] = data
    addr = dev.put(rows)
    t = tx.texture(R.Resource(R.RES_PITCH2D, address=addr, format=0x20, channels=1, width=W, height=H, pitch=pitch),
                   filter=R.LINEAR, address=(R.BORDER,) * 3)
    x, y = away_from_edges(rng, 128, -2, W + 2, 1), away_from_edges(rng, 128, -2, H + 2, 1)
    got = launch(dev, "t2d", [t], [x, y], 128)
    want = [ref_sample(as4(data[None, :, :, None]), (x[k], y[k]), [R.BORDER] * 2, False, True) for k in range(128)]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def _mipmap(tx, rng, W, H, levels):
    desc = R.ArrayDesc(W, H, 0, 0x20, 1)
    made, _ = tx.mipmap_create(desc, levels)
    refs, data = [], []
    for n, arr in enumerate(made):
        d = rng.uniform(0, 1, (arr.desc.rows, arr.desc.width)).astype(np.float32) + 10 * n
        tx.memory.write(arr.addr, d.tobytes())
        refs.append(R.ArrayRef(arr.desc, arr))
        data.append(d)
    return R.MipmapRef(desc, made, refs), data


@pytest.mark.parametrize("mip_filter", ["point", "linear"])
def test_mipmap_level_selection(tx, dev, rng, mip_filter):
    mip, data = _mipmap(tx, rng, 16, 8, 4)
    t = tx.texture(R.Resource(R.RES_MIPMAP, mipmap=mip), flags=R.NORMALIZED_COORDINATES,
                   mipmap_filter=R.LINEAR if mip_filter == "linear" else R.POINT, min_lod=0.0, max_lod=3.0)
    n = 64
    x, y = away_from_edges(rng, n, 0, 1, 16), away_from_edges(rng, n, 0, 1, 16)
    lod = rng.uniform(-1, 5, n).astype(np.float32)
    got = launch(dev, "t2d_lod", [t], [x, y, lod], n)[:, 0]

    def at(level, k):
        d = data[level]
        return d[min(int(y[k] * d.shape[0]), d.shape[0] - 1), min(int(x[k] * d.shape[1]), d.shape[1] - 1)]
    for k in range(n):
        lv = min(max(float(lod[k]), 0.0), 3.0)
        if mip_filter == "point":
            want = at(int(math.floor(lv + 0.5)), k)
        else:
            lo = int(math.floor(lv))
            f = lv - lo
            want = at(lo, k) if lo == 3 else at(lo, k) * (1 - f) + at(lo + 1, k) * f
        assert got[k] == pytest.approx(want, abs=1.5 / 256 * 10), (k, lv)
    # gradients of one texel per sample at level 0 choose level 0; of 4 texels, level 2
    g = np.tile(np.array([1 / 16, 0, 0, 1 / 8], np.float32), n)
    got = launch(dev, "t2d_grad", [t], [x, y, g], n)[:, 0]
    np.testing.assert_allclose(got, [at(0, k) for k in range(n)], rtol=1e-6)
    g = np.tile(np.array([4 / 16, 0, 0, 1 / 8], np.float32), n)
    got = launch(dev, "t2d_grad", [t], [x, y, g], n)[:, 0]
    np.testing.assert_allclose(got, [at(2, k) for k in range(n)], rtol=1e-6)


@pytest.mark.parametrize("comp", [0, 1, 2, 3])
def test_gather_returns_the_bilinear_footprint(tx, dev, rng, comp):
    W, H = 6, 5
    data = rng.uniform(0, 1, (H, W, 4)).astype(np.float32)
    t = tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(data, 0x20, 4, W, H, 0, R.TEXTURE_GATHER)))
    n = 80
    x, y = away_from_edges(rng, n, 0, W, 1), away_from_edges(rng, n, 0, H, 1)
    got = launch(dev, "t2d_gather", [t], [x, y], n, scalars=(comp,))
    for k in range(n):
        i0, j0 = math.floor(x[k] - 0.5), math.floor(y[k] - 0.5)

        def c(i, j):
            return data[min(max(j, 0), H - 1), min(max(i, 0), W - 1), comp]
        want = [c(i0, j0 + 1), c(i0 + 1, j0 + 1), c(i0 + 1, j0), c(i0, j0)]
        np.testing.assert_array_equal(got[k], want)


def test_lanes_may_use_different_textures_and_a_destroyed_one_faults(tx, dev):
    a = tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(np.full(4, 1.0, np.float32), 0x20, 1, 4)))
    b = tx.texture(R.Resource(R.RES_ARRAY, array=tx.array(np.full(4, 2.0, np.float32), 0x20, 1, 4)))
    x = np.full(64, 1.5, np.float32)
    ptr = dev.put(x)
    out = dev.zeros(4 * 64, np.float32)
    dev.launch("t1d_two", 1, 64, a, b, ptr, out, 64)
    got = dev.get(out, 4 * 64, np.float32).reshape(64, 4)[:, 0]
    np.testing.assert_array_equal(got, np.where(np.arange(64) % 2, 2.0, 1.0))
    tx.tex_destroy(b, None)
    with pytest.raises(SimFault) as e:
        dev.launch("t1d_two", 1, 64, a, b, ptr, out, 64)
    assert e.value.code == "CUDA_ERROR_ILLEGAL_ADDRESS" and "does not exist" in e.value.message


def test_txq_and_suq(tx, dev):
    mip, _ = _mipmap(tx, np.random.default_rng(0), 16, 8, 3)
    t = tx.texture(R.Resource(R.RES_MIPMAP, mipmap=mip), flags=R.NORMALIZED_COORDINATES)
    s = tx.surface(tx.array(np.zeros((5, 7), np.float32), 0x20, 1, 7, 5, 0, R.SURFACE_LDST))
    out = dev.zeros(6, np.int32)
    dev.launch("txq_sizes", 1, 1, t, s, out)
    assert list(dev.get(out, 6, np.int32)) == [16, 8, 0, 3, 7, 5]


# -- surfaces ----------------------------------------------------------------------------------------
def test_surface_2d_float_and_uchar4(tx, dev, rng):
    W, H = 13, 4
    data = rng.uniform(-5, 5, (H, W)).astype(np.float32)
    src = tx.array(data, 0x20, 1, W, H, 0, R.SURFACE_LDST)
    dst = tx.array(np.zeros_like(data), 0x20, 1, W, H, 0, R.SURFACE_LDST)
    dev.launch("s2d_float", (1, H), 32, tx.surface(src), tx.surface(dst), W, H)
    got = np.frombuffer(tx.memory.read(dst.obj.addr, data.nbytes), np.float32).reshape(H, W)
    np.testing.assert_array_equal(got, data * 2 + 1)

    px = rng.integers(0, 256, (H, W, 4)).astype(np.uint8)
    arr = tx.array(px, 0x01, 4, W, H, 0, R.SURFACE_LDST)
    dev.launch("s2d_uchar4", (1, H), 32, tx.surface(arr), W, H)
    got = np.frombuffer(tx.memory.read(arr.obj.addr, px.nbytes), np.uint8).reshape(H, W, 4)
    np.testing.assert_array_equal(got, px[:, :, ::-1])


def test_surface_boundary_modes(tx, dev):
    W = 6
    vals = np.arange(10, 10 + W, dtype=np.int32)
    s = tx.surface(tx.array(vals, 0x0A, 1, W, 0, 0, R.SURFACE_LDST))
    x = np.array([0, 4, 20, 24, -4, -8, 100], np.int32)
    n = len(x)

    def read(mode):
        out = dev.zeros(n, np.int32)
        dev.launch("s1d_modes", 1, 32, s, dev.put(x), mode, out, n)
        return list(dev.get(out, n, np.int32))
    assert read(1) == [10, 11, 15, 15, 10, 10, 15]   # clamp: the nearest element
    assert read(2) == [10, 11, 15, 0, 0, 0, 0]       # zero: zeros outside
    with pytest.raises(SimFault) as e:
        read(0)
    assert e.value.code == "CUDA_ERROR_ILLEGAL_ADDRESS"
    # zero mode drops stores outside the array
    arr = tx.array(np.zeros(W, np.int32), 0x0A, 1, W, 0, 0, R.SURFACE_LDST)
    dev.launch("s1d_write_zero", 1, 32, tx.surface(arr), dev.put(np.array([4, 400, -4, 20], np.int32)), 4)
    assert list(np.frombuffer(tx.memory.read(arr.obj.addr, 4 * W), np.int32)) == [0, 1000, 0, 0, 0, 1003]


def test_surface_3d_to_layered_and_cubemap(tx, dev, rng):
    w, h, d = 5, 3, 4
    vol = rng.integers(-1000, 1000, (d, h, w, 2)).astype(np.int16)
    src = tx.array(vol, 0x09, 2, w, h, d, R.SURFACE_LDST)
    lay = tx.array(np.zeros_like(vol), 0x09, 2, w, h, d, R.SURFACE_LDST | R.LAYERED)
    dev.launch("s3d_layered", d, (w, h, 1), tx.surface(src), tx.surface(lay), w, h, d)
    got = np.frombuffer(tx.memory.read(lay.obj.addr, vol.nbytes), np.int16).reshape(vol.shape)
    np.testing.assert_array_equal(got, vol[..., ::-1])

    faces = rng.uniform(0, 1, (6, 4, 4)).astype(np.float32)
    cube = tx.array(faces, 0x20, 1, 4, 4, 6, R.SURFACE_LDST | R.CUBEMAP)
    dev.launch("s_cubemap", 6, (4, 4, 1), tx.surface(cube), 4)
    got = np.frombuffer(tx.memory.read(cube.obj.addr, faces.nbytes), np.float32).reshape(faces.shape)
    np.testing.assert_allclose(got, faces + 100 * np.arange(6)[:, None, None], rtol=1e-6)
