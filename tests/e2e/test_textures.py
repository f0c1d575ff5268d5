"""End to end: CUDA arrays, texture and surface objects through rgpu's runtime onto a software-GPU
server. tests/cuda/programs/textures.cu samples texels the test wrote, under every address mode,
filter mode and coordinate kind of each resource kind, and the test compares what the kernels
fetched with references written from the Programming Guide (tests/support/texref.py); the copy,
graph and error modes check themselves against their host data and CUDA's error codes. The Driver
API's forms are driver_arrays.cu's."""
from __future__ import annotations

import math

import numpy as np
import pytest

from rgpu.server.backends import resources as R
from tests.conftest import run_cli
from tests.support.texref import away_from_edges, ref_cube, ref_sample

pytestmark = pytest.mark.e2e

MODES = [R.WRAP, R.CLAMP, R.MIRROR, R.BORDER]  # the program's order
BORDER = (0.25, 0, 0, 0)


def _run(cuda_program, url, *args, name="textures"):
    p = run_cli("run", "--server", url, "--", str(cuda_program(name)), *args, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"OK {name} {args[0]}" in p.stdout, p.stdout + p.stderr
    return p.stdout


def _sample(cuda_program, url, tmp_path, mode_args, W, H, D, texels, x, y, z):
    src, out = tmp_path / "in.bin", tmp_path / "out.bin"
    n = len(x)
    with open(src, "wb") as f:
        f.write(np.array([W, H, D, n], np.int32).tobytes())
        for a in (texels, x, y, z):
            f.write(np.ascontiguousarray(a, np.float32).tobytes())
    _run(cuda_program, url, *mode_args, str(src), str(out))
    return np.fromfile(out, np.float32)


def _coords(rng, n, W, H, lo=-1.5, hi=2.5):
    return away_from_edges(rng, n, lo, hi, W), away_from_edges(rng, n, lo, hi, H)


@pytest.mark.parametrize("kind", ["array2d", "pitch2d"])
def test_2d_every_address_and_filter_mode(cuda_program, sim_server, tmp_path, kind):
    rng = np.random.default_rng(7)
    W, H, n = 7, 5, 96
    data = rng.uniform(-4, 4, (H, W)).astype(np.float32)
    x, y = _coords(rng, n, W, H)
    got = _sample(cuda_program, sim_server, tmp_path, ["sample", kind], W, H, 0, data, x, y, np.zeros(n))
    T = data[None, :, :, None]
    blocks = got.reshape(16, n)
    b = 0
    for mode in MODES:
        for linear in (False, True):
            for normalized in (False, True):
                scale = (np.float32(1), np.float32(1)) if normalized else (np.float32(W), np.float32(H))
                for k in range(n):
                    c = (x[k], y[k]) if normalized else (float(x[k] * scale[0]), float(y[k] * scale[1]))
                    want = ref_sample(T, c, [mode, mode], normalized, linear, BORDER)[0]
                    assert blocks[b, k] == pytest.approx(want, abs=1e-5), (mode, linear, normalized, k, c)
                b += 1


def test_3d_and_layered(cuda_program, sim_server, tmp_path):
    rng = np.random.default_rng(8)
    W, H, D, n = 5, 4, 3, 64
    data = rng.uniform(0, 10, (D, H, W)).astype(np.float32)
    x, y = _coords(rng, n, W, H)
    z = away_from_edges(rng, n, -1.5, 2.5, D)
    got = _sample(cuda_program, sim_server, tmp_path, ["sample", "tex3d"], W, H, D, data, x, y, z).reshape(16, n)
    T = data[..., None]
    b = 0
    for mode in MODES:
        for linear in (False, True):
            for normalized in (False, True):
                for k in range(n):
                    c = (x[k], y[k], z[k]) if normalized else (float(x[k] * np.float32(W)),
                                                               float(y[k] * np.float32(H)),
                                                               float(z[k] * np.float32(D)))
                    # an exact half in a 3D weight's split by y rounds either way on an H100 (texref)
                    want = {ref_sample(T, c, [mode] * 3, normalized, linear, BORDER, split_halves=h)[0]
                            for h in ("up", "down")}
                    assert any(got[b, k] == pytest.approx(w, abs=1e-4) for w in want), (mode, linear, normalized,
                                                                                          k, got[b, k], want)
                b += 1

    layer = rng.integers(0, D, n).astype(np.float32)
    got = _sample(cuda_program, sim_server, tmp_path, ["sample", "layered"], W, H, D, data, x, y, layer).reshape(16, n)
    b = 0
    for mode in MODES:
        for linear in (False, True):
            for normalized in (False, True):
                for k in range(n):
                    c = (x[k], y[k]) if normalized else (float(x[k] * np.float32(W)), float(y[k] * np.float32(H)))
                    want = ref_sample(T[int(layer[k]):int(layer[k]) + 1], c, [mode] * 2, normalized, linear, BORDER)[0]
                    assert got[b, k] == pytest.approx(want, abs=1e-5), (mode, linear, normalized, k)
                b += 1


def test_cubemap_faces(cuda_program, sim_server, tmp_path):
    rng = np.random.default_rng(9)
    w, n = 4, 200
    data = rng.uniform(0, 100, (6, w, w)).astype(np.float32)
    v = rng.normal(size=(3, n)).astype(np.float32)
    keep = []
    for k in range(n):  # directions whose face coordinates are not on a texel boundary
        f, s, t = ref_cube(*v[:, k])
        if min(abs(s * w - round(s * w)), abs(t * w - round(t * w))) > 0.02:
            keep.append(k)
    v = v[:, keep]
    n = v.shape[1]
    got = _sample(cuda_program, sim_server, tmp_path, ["sample", "cubemap"], w, w, 6, data, *v).reshape(4, n)
    want = []
    for k in range(n):
        f, s, t = ref_cube(*v[:, k])
        want.append(data[f, min(int(t * w), w - 1), min(int(s * w), w - 1)])
    for b in range(4):
        np.testing.assert_array_equal(got[b], want)


def test_linear_memory_fetch(cuda_program, sim_server, tmp_path):
    rng = np.random.default_rng(10)
    W, n = 50, 80
    data = rng.uniform(-1, 1, W).astype(np.float32)
    idx = rng.integers(-5, W + 5, n).astype(np.float32)
    got = _sample(cuda_program, sim_server, tmp_path, ["linear"], W, 0, 0, data, idx, idx, idx)
    want = [data[int(i)] if 0 <= i < W else 0.0 for i in idx]  # outside the memory: zeros
    np.testing.assert_array_equal(got, want)


def test_mipmapped_array_levels(cuda_program, sim_server, tmp_path):
    rng = np.random.default_rng(11)
    W, H, levels, n = 16, 8, 4, 64
    data = [rng.uniform(0, 1, (max(H >> lv, 1), max(W >> lv, 1))).astype(np.float32) + 10 * lv
            for lv in range(levels)]
    x, y = away_from_edges(rng, n, 0, 1, W), away_from_edges(rng, n, 0, 1, H)
    lod = rng.uniform(-1, 5, n).astype(np.float32)
    got = _sample(cuda_program, sim_server, tmp_path, ["mipmap"], W, H, levels,
                  np.concatenate([d.ravel() for d in data]), x, y, lod).reshape(2, n)

    def at(level, k):
        d = data[level]
        return d[min(int(y[k] * d.shape[0]), d.shape[0] - 1), min(int(x[k] * d.shape[1]), d.shape[1] - 1)]
    for k in range(n):
        lv = min(max(float(lod[k]), 0.0), levels - 1.0)
        assert got[0, k] == at(int(math.floor(lv + 0.5)), k), (k, lv)
        lo = int(math.floor(lv))
        f = lv - lo
        want = at(lo, k) if lo == levels - 1 else at(lo, k) * (1 - f) + at(lo + 1, k) * f
        assert got[1, k] == pytest.approx(want, abs=1.5 / 256 * 10), (k, lv)


def test_surface_writes_and_boundary_modes(cuda_program, sim_server, tmp_path):
    rng = np.random.default_rng(12)
    W, H, n = 9, 6, 40
    data = rng.uniform(-8, 8, (H, W)).astype(np.float32)
    xs = rng.integers(-3, W + 3, n).astype(np.float32)
    ys = rng.integers(-3, H + 3, n).astype(np.float32)
    got = _sample(cuda_program, sim_server, tmp_path, ["surface"], W, H, 0, data, xs, ys, np.zeros(n))
    img = got[:W * H].reshape(H, W)
    np.testing.assert_array_equal(img, 2 * data + 1)
    reads = got[W * H:].reshape(n, 2)
    for k in range(n):
        i, j = int(xs[k]), int(ys[k])
        inside = 0 <= i < W and 0 <= j < H
        assert reads[k, 0] == (img[j, i] if inside else 0.0)
        assert reads[k, 1] == img[min(max(j, 0), H - 1), min(max(i, 0), W - 1)]


def test_copies_to_and_from_arrays(cuda_program, sim_server):
    _run(cuda_program, sim_server, "copies")


def test_array_copy_nodes_in_graphs(cuda_program, sim_server):
    assert "graph nodes replayed" in _run(cuda_program, sim_server, "graph")


def test_bad_input_gets_cuda_errors_and_the_session_goes_on(cuda_program, sim_server):
    out = _run(cuda_program, sim_server, "errors")
    assert out.count("refused ") == 20, out


@pytest.mark.sim_only("reading a destroyed texture object is undefined behaviour; the software GPU faults "
                      "(cudaErrorIllegalAddress), an H200 (driver 580) ran the kernel and returned cudaSuccess")
def test_kernel_reading_a_destroyed_texture_object_faults(cuda_program, sim_server):
    out = _run(cuda_program, sim_server, "stale")
    assert "stale texture: cudaErrorIllegalAddress" in out


def test_driver_api_arrays_textures_surfaces_and_errors(cuda_program, sim_server):
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("driver_arrays")), timeout=300)
    assert p.returncode == 0 and p.stdout.splitlines()[-1] == "OK driver_arrays", p.stdout + p.stderr


def test_uchar4_read_as_normalised_float_srgb_and_elements(cuda_program, sim_server, tmp_path):
    rng = np.random.default_rng(13)
    W, H, n = 6, 4, 64
    data = rng.integers(0, 256, (H, W, 4)).astype(np.float32)
    x, y = away_from_edges(rng, n, -0.2, W + 0.2, 1), away_from_edges(rng, n, -0.2, H + 0.2, 1)
    got = _sample(cuda_program, sim_server, tmp_path, ["uchar4"], W, H, 0, data, x, y, np.zeros(n)).reshape(4, n, 4)
    T = (data / 255.0)[None]
    point = np.array([ref_sample(T, (x[k], y[k]), [R.CLAMP] * 2, False, False) for k in range(n)])
    linear = np.array([ref_sample(data[None], (x[k], y[k]), [R.CLAMP] * 2, False, True, unorm8=True) for k in range(n)])
    np.testing.assert_allclose(got[0], point, rtol=1e-6)
    np.testing.assert_allclose(got[1], linear, rtol=0, atol=1e-7)
    c = point[:, :3]
    # The sim decodes sRGB exactly. An H100's decode is a coarser table: 0.51953125 = 133/256 for
    # 0.5209956 (within 0.32% above 0.04), and for the smallest bytes steps of 2**-14 (35/16384 for
    # 7/255/12.92 = 0.0021247), so the test allows 2**-8 relative and 2**-14 absolute: a plain 2.2
    # power is off by 12% at 0.2, and a missing decode by up to 0.2.
    np.testing.assert_allclose(got[2, :, :3], np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4),
                               rtol=2 ** -8, atol=2 ** -14)
    np.testing.assert_allclose(got[2, :, 3], point[:, 3], rtol=1e-6)   # alpha is not converted
    np.testing.assert_array_equal(got[3], np.rint(point * 255))
