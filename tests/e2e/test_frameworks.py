"""End to end, CUDA frameworks from their wheels (tests/support/frameworks.py: CuPy and numba-cuda,
pinned, in a virtualenv of their own) run unchanged through `rgpu run`; every result is compared with
numpy here, in the test process (the scripts in tests/frameworks/ save inputs and results to an .npz).

CuPy compiles its kernels with NVRTC on the client (a fresh kernel cache per test, so every run
compiles) and calls NVIDIA's cuBLAS and cuFFT, whose private runtimes run over rgpu's driver; on the
software GPU all of it runs as PTX at the default architecture. numba-cuda compiles with NVVM and
links through the driver's cuLink* (rgpu's); it compiles for the device's exact architecture, so on
the software GPU it needs one its toolkit knows (docs/frameworks.md, "CuPy and numba on rgpu")."""
from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from rgpu.server.backends.sim import archs
from rgpu.server.backends.sim.ptx import scan

from tests.conftest import run_cli
from tests.support import frameworks

pytestmark = pytest.mark.e2e

SCRIPTS = os.path.join(os.path.dirname(__file__), "..", "frameworks")
NUMBA_SIM_ARCH = "sm_120"  # the newest part CUDA 13.0's NVVM and cuLink* target (sm_130 is past them)
BLOCK = 128  # numba_kernels.py's block size


@pytest.fixture(scope="module")
def fw_python():
    return str(frameworks.python())


def run_script(url: str, python: str, script: str, *args: str, env: dict):
    return run_cli("run", "--server", url, "--", python, os.path.join(SCRIPTS, script), *args, env=env, timeout=300)


def cupy_op(url, python, op, tmp_path):
    out = tmp_path / f"{op}.npz"
    env = frameworks.cupy_env({**os.environ, "CUPY_CACHE_DIR": str(tmp_path / "cupy-kernels")})
    p = run_script(url, python, "cupy_ops.py", op, str(out), env=env)
    assert p.returncode == 0 and f"{op} ok" in p.stdout, p.stdout + p.stderr
    # every table NVIDIA's runtimes and NVRTC ask for is one rgpu knows (answered or declined)
    assert "unknown table" not in p.stderr, p.stderr
    return np.load(out)


def test_cupy_elementwise_matches_numpy(fw_python, sim_server, tmp_path):
    """A ufunc and an ElementwiseKernel: both compiled by NVRTC on the client; a DLPack export and
    import of the result (NVIDIA's cudaPointerGetAttributes finds where the memory is)."""
    r = cupy_op(sim_server, fw_python, "elementwise", tmp_path)
    x, y = r["x"], r["y"]
    assert np.allclose(r["ufunc"], np.sin(x * 2 + y), atol=1e-5)
    assert np.allclose(r["kernel"], x * x - 2.5 * y, atol=1e-6)
    assert np.array_equal(r["dlpack"], r["kernel"])


def test_cupy_reductions_match_numpy(fw_python, sim_server, tmp_path):
    """CuPy's reduction kernels (CUB-style block reductions over shared memory) and a scan."""
    r = cupy_op(sim_server, fw_python, "reduction", tmp_path)
    x = r["x"]
    assert np.isclose(r["sum"], x.sum(), rtol=1e-5)
    assert np.allclose(r["sum_axis0"], x.sum(axis=0), atol=1e-5)
    assert np.array_equal(r["max_axis1"], x.max(axis=1))
    assert r["argmin"] == x.argmin()
    assert np.allclose(r["cumsum"], np.cumsum(x.ravel()), atol=1e-3)


def test_cupy_matmul_matches_numpy(fw_python, sim_server, tmp_path):
    """cuBLAS SGEMM and DGEMM through CuPy."""
    r = cupy_op(sim_server, fw_python, "matmul", tmp_path)
    a, b = r["a"], r["b"]
    assert np.allclose(r["s"], a @ b, atol=1e-5)
    assert np.allclose(r["d"], a.astype(np.float64) @ b.astype(np.float64))


def test_cupy_fft_matches_numpy(fw_python, sim_server, tmp_path):
    """cuFFT C2C and R2C through CuPy's plans."""
    r = cupy_op(sim_server, fw_python, "fft", tmp_path)
    x, y = r["x"], r["y"]
    assert np.allclose(r["c2c"], np.fft.fft(x + 1j * y[:64]), atol=1e-4)
    assert np.allclose(r["r2c"], np.fft.rfft(y), atol=1e-4)


def test_cupy_library_kernels_sized_by_occupancy_match_numpy(fw_python, sim_server, tmp_path):
    """CUB's histogram (CuPy's bincount and histogram) launches occupancy x SMs blocks and cuRAND
    divides by the occupancy: both need the calculator to find blocks resident at a kernel's launch
    bounds. cuSOLVER's eigensolver needs 32-bit shared addresses to wrap as a GPU's do."""
    r = cupy_op(sim_server, fw_python, "libraries", tmp_path)
    np.testing.assert_array_equal(r["bincount"], np.bincount(r["counts"]))
    np.testing.assert_array_equal(r["histogram"], np.histogram(r["x"], bins=7)[0])
    normal = r["normal"]
    assert np.array_equal(normal, r["normal_again"]) and len(np.unique(normal)) > 19000  # seeded, not constant
    assert abs(normal.mean()) < 0.05 and abs(normal.std() - 1) < 0.05
    np.testing.assert_allclose(r["eigvalsh"], np.linalg.eigvalsh(r["sym"]), rtol=1e-10, atol=1e-10)


@pytest.mark.sim_only("what the software GPU's interpreter implements")
def test_every_opcode_of_the_ptx_in_cupys_wheel_is_implemented(fw_python):
    """CuPy's prebuilt CUB and Thrust modules carry PTX (their reductions, sorts, scans and random
    generators run from it on the software GPU): every opcode of it, with all its modifiers, is one
    the interpreter implements (the scan of tests/unit/sim/test_nvlibs_ptx.py, over CuPy's .so files;
    it found the packed 16-bit min/max of CUB's int16 reductions)."""
    site = next(Path(fw_python).parent.parent.glob("lib/python3*/site-packages"))
    libraries = sorted(site.glob("cupy/**/*.so"))
    ops, modules = Counter(), 0
    for lib in libraries:
        for _pos, entry in scan.modules(lib.read_bytes(), archs.get().cc):
            if entry is not None:
                modules += 1
                ops.update(scan.opcodes(entry.data))
    assert modules >= 3, [lib.name for lib in libraries]  # cub, thrust, the random generators
    assert scan.unsupported(ops) == {}


def test_cuda_bindings_ask_and_set_pointer_attributes_as_the_driver_answers(fw_python, sim_server):
    """NVIDIA's driver bindings (cuda-bindings, which cuda-python installs) size each attribute's buffer
    themselves: every attribute they know reads the same one at a time and in one list, on managed,
    device and pool memory; SYNC_MEMOPS set through them reads back; a freed allocation's BUFFER_ID is
    not given to the next one; the pool and the legacy-IPC flag are the memory's own."""
    p = run_script(sim_server, fw_python, "cuda_bindings_pointers.py", env=frameworks.numba_env())
    assert p.returncode == 0 and "pointers ok" in p.stdout, p.stdout + p.stderr


def test_numba_kernels_match_numpy(fw_python, start_server, tmp_path):
    """@cuda.jit kernels: an axpy, a block reduction through shared memory and barriers, a
    histogram with atomics, cuda.fp16 (a second module linked in), math.sin, cuda.reduce and a grid
    group's sync (libcudadevrt linked in); numba links them through rgpu's cuLink*."""
    url, _ = start_server("--sim-arch", NUMBA_SIM_ARCH)
    out = tmp_path / "numba.npz"
    p = run_script(url, fw_python, "numba_kernels.py", str(out), env=frameworks.numba_env())
    assert p.returncode == 0 and "numba ok" in p.stdout, p.stdout + p.stderr
    r = np.load(out)
    x, y, keys = r["x"], r["y"], r["keys"]
    assert np.array_equal(r["axpy"], 2 * x + y)
    assert np.allclose(r["block_sums"], np.add.reduceat(x, np.arange(0, x.size, 128)), atol=1e-5)
    assert np.array_equal(r["histogram"], np.bincount(keys % 10, minlength=10))
    # cuda.fp16's shim reaches the kernel through the link (the client's link image, linked whole)
    assert np.array_equal(r["half_squares"], r["halves"] * r["halves"])
    # sinf within a few ulp, large arguments included (libdevice's extended-precision reduction)
    assert np.allclose(r["sin"], np.sin(r["angles"].astype(np.float64)), rtol=0, atol=2e-6)
    # cuda.reduce: a barrier waits for a partial warp's sum computed after it in the code
    assert r["reduced"].tolist() == [float(sum(range(k))) for k in (40, 64, 300)]
    # a grid group's sync: libcudadevrt in the link, a cooperative launch
    assert r["rotated"].tolist() == [(i + BLOCK) % (4 * BLOCK) * 3 for i in range(4 * BLOCK)]


@pytest.mark.sim_only("a real GPU runs the SASS nvJitLink links")
def test_numba_with_nvjitlink_is_refused_naming_the_fix(fw_python, start_server, tmp_path):
    """With nvJitLink loadable, numba-cuda links its kernels to a bare cubin (SASS alone): the software
    GPU cannot run it, and the user is told, without asking for logs, how to run numba there."""
    url, _ = start_server("--sim-arch", NUMBA_SIM_ARCH)
    p = run_script(url, fw_python, "numba_kernels.py", str(tmp_path / "numba.npz"), env=frameworks.cupy_env())
    assert p.returncode != 0 and "CUDA_ERROR_NO_BINARY_FOR_GPU" in p.stderr, p.stdout + p.stderr
    assert "refused a module (209)" in p.stderr and "numba-cuda without its [cu13] extra" in p.stderr, p.stderr
