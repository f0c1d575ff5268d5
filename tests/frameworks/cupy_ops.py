"""Run by tests/e2e/test_frameworks.py with the frameworks' virtualenv (tests/support/frameworks.py)
through `rgpu run`: one CuPy operation on small inputs; the inputs and CuPy's result are saved to an
.npz the test compares with numpy.

    python cupy_ops.py OP OUT.npz        # OP: elementwise | reduction | matmul | fft | libraries
"""
import sys

import cupy as cp
import numpy as np


def inputs(shape, salt):
    n = int(np.prod(shape))
    return (((np.arange(n) * 7 + salt * 13) % 11 - 5) * 0.25).astype(np.float32).reshape(shape)


def elementwise():
    x, y = inputs((1000,), 1), inputs((1000,), 2)
    k = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * x - 2.5f * y", "rgpu_axpy_sq")
    gx, gy = cp.asarray(x), cp.asarray(y)
    z = k(gx, gy)
    # DLPack, as frameworks hand CuPy arrays to each other (it asks the memory's device and type)
    shared = cp.from_dlpack(z)
    assert shared.data.ptr == z.data.ptr
    return {"x": x, "y": y, "ufunc": cp.sin(gx * 2 + gy).get(), "kernel": z.get(), "dlpack": shared.get()}


def reduction():
    x = inputs((37, 129), 3)
    g = cp.asarray(x)
    return {"x": x, "sum": g.sum().get(), "sum_axis0": g.sum(axis=0).get(), "max_axis1": g.max(axis=1).get(),
            "argmin": g.argmin().get(), "cumsum": cp.cumsum(g.ravel()).get()}


def matmul():  # cuBLAS: SGEMM and DGEMM
    a, b = inputs((12, 9), 4), inputs((9, 10), 5)
    return {"a": a, "b": b, "s": (cp.asarray(a) @ cp.asarray(b)).get(),
            "d": (cp.asarray(a, dtype=cp.float64) @ cp.asarray(b, dtype=cp.float64)).get()}


def fft():  # cuFFT: C2C and R2C
    x, y = inputs((64,), 6), inputs((100,), 7)
    return {"x": x, "y": y, "c2c": cp.fft.fft(cp.asarray(x + 1j * y[:64], dtype=cp.complex64)).get(),
            "r2c": cp.fft.rfft(cp.asarray(y)).get()}


def libraries():
    """Library kernels that size their grids by the occupancy calculator (CUB's histogram, cuRAND)
    and cuSOLVER's symmetric eigensolver (whose steqr kernel reads shared memory through 32-bit
    addresses that wrap)."""
    counts = ((np.arange(1000) * 7) % 37).astype(np.int32)
    x = inputs((1000,), 8)
    a = inputs((12, 12), 9).astype(np.float64)
    sym = a + a.T + 12 * np.eye(12)
    cp.random.seed(7)
    first = cp.random.standard_normal(20000, dtype=cp.float32).get()
    cp.random.seed(7)
    again = cp.random.standard_normal(20000, dtype=cp.float32).get()
    return {"counts": counts, "x": x, "sym": sym, "bincount": cp.bincount(cp.asarray(counts)).get(),
            "histogram": cp.histogram(cp.asarray(x), bins=7)[0].get(), "normal": first, "normal_again": again,
            "eigvalsh": cp.linalg.eigvalsh(cp.asarray(sym)).get()}


if __name__ == "__main__":
    op, out = sys.argv[1], sys.argv[2]
    result = {"elementwise": elementwise, "reduction": reduction, "matmul": matmul, "fft": fft,
              "libraries": libraries}[op]()
    cp.cuda.Device().synchronize()
    np.savez(out, device=np.array(cp.cuda.runtime.getDeviceProperties(0)["name"]), **result)
    print(op, "ok")
