"""Run by tests/e2e/test_frameworks.py with the frameworks' virtualenv (tests/support/frameworks.py)
through `rgpu run`: numba-cuda kernels on small inputs; inputs and results are saved to an .npz the
test compares with numpy.

    python numba_kernels.py OUT.npz
"""
import math
import sys

import numpy as np
from numba import cuda, float32

BLOCK = 128


@cuda.jit
def axpy(r, a, x, y):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = a * x[i] + y[i]


@cuda.jit
def block_sums(out, x):
    """One partial sum per block: a tree in shared memory, a barrier between levels."""
    buf = cuda.shared.array(BLOCK, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    s = BLOCK // 2
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = buf[0]


@cuda.jit
def histogram(counts, x):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(counts, x[i] % counts.size, 1)


@cuda.jit
def half_squares(out, a):
    """cuda.fp16: numba links a shim of cuda_fp16.h, compiled by NVRTC, into the kernel's module."""
    i = cuda.grid(1)
    if i < a.size:
        out[i] = cuda.fp16.hmul(a[i], a[i])


@cuda.jit
def sines(out, x):
    """libdevice's sinf: large arguments take its Payne-Hanek reduction (mad.cc/madc chains)."""
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.sin(x[i])


@cuda.jit
def rotate_across_blocks(out):
    """A grid group's sync (numba links libcudadevrt and launches cooperatively): every thread
    reads what a thread of the next block wrote before the sync."""
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    out[i] = i * 3
    g.sync()
    v = out[(i + cuda.blockDim.x) % out.size]
    g.sync()
    out[i] = v


if __name__ == "__main__":
    n = 1000
    blocks = (n + BLOCK - 1) // BLOCK
    x = (np.arange(n, dtype=np.float32) * 7 % 11 - 5) * 0.25
    y = np.ones(n, dtype=np.float32)
    r = cuda.device_array_like(x)
    axpy[blocks, BLOCK](r, np.float32(2.0), cuda.to_device(x), cuda.to_device(y))
    sums = cuda.device_array(blocks, dtype=np.float32)
    block_sums[blocks, BLOCK](sums, cuda.to_device(x))
    keys = (np.arange(n, dtype=np.int32) * 13) % 97
    counts = cuda.to_device(np.zeros(10, dtype=np.int32))
    histogram[blocks, BLOCK](counts, cuda.to_device(keys))
    halves = (np.arange(64) * 0.25 - 8).astype(np.float16)
    squares = cuda.device_array(64, dtype=np.float16)
    half_squares[1, 64](squares, cuda.to_device(halves))
    angles = np.concatenate([x, [1e4, -3.5e5, 12345.678, 1e30]]).astype(np.float32)
    sin = cuda.device_array_like(angles)
    sines[(angles.size + BLOCK - 1) // BLOCK, BLOCK](sin, cuda.to_device(angles))
    # numba's own reduction: a partial warp's lane 0 sums it after the barrier the rest wait at
    reduced = [float(cuda.reduce(lambda a, b: a + b)(cuda.to_device(np.arange(k, dtype=np.float32))))
               for k in (40, 64, 300)]
    rotated = cuda.device_array(4 * BLOCK, dtype=np.int32)
    rotate_across_blocks[4, BLOCK](rotated)
    cuda.synchronize()
    np.savez(sys.argv[1], device=np.array(cuda.get_current_device().name), x=x, y=y, keys=keys,
             axpy=r.copy_to_host(), block_sums=sums.copy_to_host(), histogram=counts.copy_to_host(),
             halves=halves, half_squares=squares.copy_to_host(), angles=angles, sin=sin.copy_to_host(),
             reduced=np.array(reduced), rotated=rotated.copy_to_host())
    print("numba ok")
