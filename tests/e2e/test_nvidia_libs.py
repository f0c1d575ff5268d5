"""End to end, NVIDIA's own libraries from their wheels (tests/support/nvlibs.py) run unchanged on
rgpu: a program linked to the real cuBLAS, cuBLASLt, cuSPARSE, cuSOLVER, cuRAND and cuFFT runs
through `rgpu run` on a software GPU, whose interpreter runs the PTX those libraries ship; every
result is compared with numpy (cuRAND's device generator with cuRAND's own host generator). The
library's private runtime asks rgpu's driver for its export tables, loads its modules lazily, and
launches its kernels like any program's (tests/cuda/libs/)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import run_cli
from tests.support import cudabuild, nvlibs

pytestmark = pytest.mark.e2e

LIBS = Path(__file__).parent.parent / "cuda" / "libs"


def inputs(n: int, salt: int) -> np.ndarray:
    """tests/cuda/libs/report.h's input(i, salt) for i < n."""
    i = np.arange(n)
    return ((i * 7 + salt * 13) % 11 - 5) * 0.25


def col_major(v: np.ndarray, rows: int, cols: int) -> np.ndarray:
    return v.reshape(cols, rows).T


def results(stdout: str) -> dict[str, tuple[int, np.ndarray]]:
    out = {}
    for line in stdout.splitlines():
        words = line.split()
        if len(words) >= 2 and words[1].lstrip("-").isdigit():
            out[words[0]] = (int(words[1]), np.array([float(w) for w in words[2:]]))
    return out


@pytest.fixture(scope="module")
def blas_program():
    return cudabuild.build(LIBS / "blas.cu", "exe", [f"-I{LIBS}", *nvlibs.link_flags("cublas", "cublasLt")],
                           arch_flags=["-arch=sm_80"])


def test_cublas_and_cublaslt_gemms_match_numpy(blas_program, sim_server):
    p = run_cli("run", "--server", sim_server, "--", str(blas_program), timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    r = results(p.stdout)
    m, n, k, batch = 12, 10, 9, 3
    st, c = r["sgemm"]
    a, b, c0 = col_major(inputs(m * k, 1), m, k), col_major(inputs(k * n, 2), k, n), col_major(inputs(m * n, 3), m, n)
    assert st == 0 and np.allclose(c, (1.5 * a @ b - 0.5 * c0).T.ravel()), p.stdout + p.stderr
    st, c = r["dgemm"]
    a, b = col_major(inputs(k * m, 4), k, m), col_major(inputs(k * n, 5), k, n)
    assert st == 0 and np.allclose(c, (a.T @ b).T.ravel()), p.stdout + p.stderr
    st, c = r["sgemm_batched"]
    a, b = inputs(m * k * batch, 7), inputs(k * n * batch, 8)
    ref = [(col_major(a[i * m * k:(i + 1) * m * k], m, k) @ col_major(b[i * k * n:(i + 1) * k * n], k, n)).T.ravel()
           for i in range(batch)]
    assert st == 0 and np.allclose(c, np.concatenate(ref)), p.stdout + p.stderr
    st, d = r["lt_matmul"]
    a, b = col_major(inputs(m * k, 10), m, k), col_major(inputs(k * n, 11), k, n)
    assert st == 0 and np.allclose(d, (a @ b).T.ravel()), p.stdout + p.stderr


@pytest.fixture(scope="module")
def sparse_solver_rand():
    return cudabuild.build(LIBS / "sparse_solver_rand.cu", "exe",
                           [f"-I{LIBS}", *nvlibs.link_flags("cusparse", "cusolver", "curand")], arch_flags=["-arch=sm_80"])


def test_cusparse_spmv_matches_numpy(sparse_solver_rand, sim_server):
    p = run_cli("run", "--server", sim_server, "--", str(sparse_solver_rand), "spmv", timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    st, y = results(p.stdout)["spmv"]
    a = np.array([[inputs(6 * i + j + 1, 1)[-1] if (i + 2 * j) % 3 == 0 else 0.0 for j in range(6)] for i in range(6)])
    x = inputs(6, 2)
    assert st == 0 and np.allclose(y, 2.0 * a @ x), p.stdout + p.stderr


def test_cusolver_lu_solve_matches_numpy(sparse_solver_rand, sim_server):
    """getrf + getrs: cuSOLVER's pivoting kernel has every block wait for the pivots of the blocks
    before it (a spin on a flag in global memory), and getrs runs cuBLAS's TRSM."""
    p = run_cli("run", "--server", sim_server, "--", str(sparse_solver_rand), "getrs", timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    st, x = results(p.stdout)["getrs"]
    n = 5
    a = col_major(inputs(n * n, 3) + np.where(np.arange(n * n) % (n + 1) == 0, 8.0, 0.0), n, n)
    assert st == 0 and np.allclose(x, np.linalg.solve(a, inputs(n, 4))), p.stdout + p.stderr


def test_curand_device_generator_matches_its_host_generator(sparse_solver_rand, sim_server):
    p = run_cli("run", "--server", sim_server, "--", str(sparse_solver_rand), "curand", timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    r = results(p.stdout)
    (st, dev), (sth, host) = r["curand_device"], r["curand_host"]
    assert st == 0 and sth == 0 and len(dev) == 256, p.stdout + p.stderr
    assert np.array_equal(dev, host) and 0.0 < dev.min() and dev.max() <= 1.0 and len(set(dev)) > 250


@pytest.mark.parametrize("n", [16, 100])
def test_cufft_c2c_and_r2c_match_numpy(n, sim_server):
    exe = cudabuild.build(LIBS / "fft.cu", "exe", [f"-I{LIBS}", *nvlibs.link_flags("cufft")], arch_flags=["-arch=sm_80"])
    p = run_cli("run", "--server", sim_server, "--", str(exe), "", str(n), timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    r = results(p.stdout)
    st, y = r["c2c"]
    assert st == 0 and np.allclose(y[0::2] + 1j * y[1::2], np.fft.fft(inputs(n, 1) + 1j * inputs(n, 2)),
                                   atol=1e-4), p.stdout + p.stderr
    st, y = r["r2c"]
    assert st == 0 and np.allclose(y[0::2] + 1j * y[1::2], np.fft.rfft(inputs(n, 3)), atol=1e-4), \
        p.stdout + p.stderr
