"""Kernels from tests/cuda/kernels/simcore.cu run on the software GPU and compared with numpy,
for every way nvcc can package them (PTX, fatbin in each compression mode, -rdc=true, -G)."""
from __future__ import annotations

import struct

import numpy as np


def test_vector_add(dev, rng):
    n = 1000  # not a multiple of the block: the tail lanes must exit early
    a, b = rng.random(n, np.float32), rng.random(n, np.float32)
    pa, pb, pc = dev.put(a), dev.put(b), dev.zeros(n, np.float32)
    dev.launch("vec_add", 4, 256, pa, pb, pc, n)
    np.testing.assert_array_equal(dev.get(pc, n, np.float32), a + b)


def test_saxpy_grid_stride(dev, rng):
    n = 5000
    x, y = rng.random(n, np.float32), rng.random(n, np.float32)
    px, py = dev.put(x), dev.put(y)
    dev.launch("saxpy", 3, 128, n, 2.5, px, py)  # fewer threads than elements: loops per thread
    np.testing.assert_allclose(dev.get(py, n, np.float32), np.float32(2.5) * x + y, rtol=1e-6)


def test_tiled_matmul(dev, rng):
    M, N, K = 40, 36, 50  # not multiples of the tile: boundary predicates diverge
    A, B = rng.random((M, K), np.float32), rng.random((K, N), np.float32)
    pa, pb, pc = dev.put(A), dev.put(B), dev.zeros(M * N, np.float32)
    dev.launch("matmul", ((N + 15) // 16, (M + 15) // 16), (16, 16), pa, pb, pc, M, N, K)
    np.testing.assert_allclose(dev.get(pc, M * N, np.float32).reshape(M, N), A @ B, rtol=1e-5)


def test_tree_reduction(dev, rng):
    n = 3000
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    blocks = (n + 511) // 512
    px, po = dev.put(x), dev.zeros(blocks, np.int32)
    dev.launch("tree_reduce", blocks, 256, px, po, n)
    expect = [x[i * 512:(i + 1) * 512].sum() for i in range(blocks)]
    np.testing.assert_array_equal(dev.get(po, blocks, np.int32), expect)


def test_warp_shuffle_reduction_with_atomic_add(dev, rng):
    n = 4096
    x = rng.integers(0, 8, n).astype(np.float32)  # small integers: the float sum is exact in any order
    px, po = dev.put(x), dev.zeros(1, np.float32)
    dev.launch("warp_reduce", 4, 256, px, po, n)
    assert dev.get(po, 1, np.float32)[0] == x.sum()


def test_shuffle_modes(dev, rng):
    n = 128
    v = rng.integers(0, 1 << 30, n, dtype=np.int32)
    pv, po = dev.put(v), dev.zeros(4 * n, np.int32)
    dev.launch("shuffles", 2, 64, pv, po)
    out = dev.get(po, 4 * n, np.int32).reshape(n, 4)
    lane = np.arange(n) % 32
    warp = np.arange(n) // 32 * 32
    np.testing.assert_array_equal(out[:, 0], np.where(lane >= 3, v[np.maximum(np.arange(n) - 3, 0)], v))
    np.testing.assert_array_equal(out[:, 1], v[warp + (lane ^ 5)])
    np.testing.assert_array_equal(out[:, 2], v[warp + ((np.arange(n) % 64 * 7) & 31)])
    # width 16: shuffles stay inside each half-warp segment
    seg_end = lane // 16 * 16 + 15
    np.testing.assert_array_equal(out[:, 3], np.where(lane + 2 <= seg_end, v[np.minimum(np.arange(n) + 2, n - 1)], v))


def test_shared_atomic_histogram(dev, rng):
    n = 6000
    data = rng.integers(0, 256, n, dtype=np.uint8)
    pd, pb = dev.put(data), dev.zeros(64, np.uint32)
    dev.launch("histogram", 5, 128, pd, pb, n)
    np.testing.assert_array_equal(dev.get(pb, 64, np.uint32), np.bincount(data & 63, minlength=64))


def test_block_scan(dev, rng):
    x = rng.integers(-50, 50, 3 * 128, dtype=np.int32)
    px, po = dev.put(x), dev.zeros(x.size, np.int32)
    dev.launch("block_scan", 3, 128, px, po)
    np.testing.assert_array_equal(dev.get(po, x.size, np.int32), np.cumsum(x.reshape(3, 128), axis=1).ravel())


def test_transpose(dev, rng):
    h, w = 70, 45
    a = rng.random((h, w), np.float32)
    pa, po = dev.put(a), dev.zeros(a.size, np.float32)
    dev.launch("transpose", ((w + 31) // 32, (h + 31) // 32), (32, 8), pa, po, w, h)
    np.testing.assert_array_equal(dev.get(po, a.size, np.float32).reshape(w, h), a.T)


def test_struct_and_by_value_array_params(dev):
    # struct Params { int n; float scale; double offset; char tag; short coef[3]; }  (24 bytes)
    params = struct.pack("<ifdbxhhh", 20, 0.5, 100.25, 7, 3, -4, 5)
    arr = struct.pack("<5i", 10, 20, 30, 40, 50)
    po = dev.zeros(32, np.float64)
    dev.launch("struct_params", 1, 32, params, arr, np.int8(-2), po)
    i = np.arange(20)
    expect = 0.5 * i + 100.25 + np.array([10, 20, 30, 40, 50])[i % 5] - 2 + 7 + np.array([3, -4, 5])[i % 3]
    out = dev.get(po, 32, np.float64)
    np.testing.assert_allclose(out[:20], expect, rtol=1e-12)
    assert not out[20:].any()


def test_double_precision(dev, rng):
    n = 300
    x = rng.normal(0, 50, n)
    px, py = dev.put(x), dev.zeros(n, np.float64)
    dev.launch("dprec", 3, 128, px, py, n)
    expect = np.sqrt(np.abs(x)) * 1.5 + x / 3.0 - (x * x + 0.25) + np.trunc(x * 10.0)
    np.testing.assert_allclose(dev.get(py, n, np.float64), expect, rtol=1e-13, atol=1e-9)


def _int_reference(a, b):
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    ua, ub = a.view(np.uint32).astype(np.uint64), b.view(np.uint32).astype(np.uint64)
    q = np.trunc(a64 / b64).astype(np.int64)
    out = np.zeros((a.size, 12), np.int64)
    out[:, 0], out[:, 1] = q, a64 - q * b64
    out[:, 2], out[:, 3] = ua // ub, ua % ub
    out[:, 4] = [bin(int(v)).count("1") for v in ua]
    out[:, 5] = [32 - int(v).bit_length() for v in ua]
    out[:, 6] = [int(f"{int(v):032b}"[::-1], 2) for v in ua]
    out[:, 7] = [(int(v) & -int(v)).bit_length() for v in ua]
    out[:, 8] = (a64 >> (b64 & 31)) ^ (ua >> (ub & 31)).astype(np.int64)
    out[:, 9] = (a64 * b64) >> 32
    out[:, 10] = (ua * ub) >> np.uint64(32)

    def byte_perm(x, y, s):
        src = int(x) | (int(y) << 32)
        return sum(((src >> (8 * ((s >> (4 * k)) & 7))) & 0xFF) << (8 * k) for k in range(4))

    def funnel_l(lo, hi, sh):
        return (((int(hi) << 32 | int(lo)) << (sh & 31)) >> 32) & 0xFFFFFFFF

    out[:, 11] = (np.minimum(a64, b64) + np.maximum(ua, ub).astype(np.int64) + np.abs(a64)
                  + np.array([byte_perm(x, y, 0x5140) for x, y in zip(ua, ub)], np.int64)
                  + np.array([funnel_l(x, y, int(s)) for x, y, s in zip(ua, ub, b64)], np.int64))
    out = (out & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    o64 = (ua * ub + np.array([int(np.trunc((int(x) << 20) / (int(y) | 1))) for x, y in zip(a64, b64)],
                              dtype=np.int64).view(np.uint64))
    return out, o64


def test_integer_division_and_bit_tricks(dev, rng):
    n = 64
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    b = rng.integers(-70000, 70000, n, dtype=np.int32)
    b[b == 0] = 7
    a[:4] = [-7, 7, -2**31, 12345]
    b[:4] = [2, -2, 3, 1]
    pa, pb, po, p64 = dev.put(a), dev.put(b), dev.zeros(12 * n, np.int32), dev.zeros(n, np.uint64)
    dev.launch("int_ops", 1, n, pa, pb, po, p64)
    expect, e64 = _int_reference(a, b)
    got = dev.get(po, 12 * n, np.int32).reshape(n, 12)
    for col in range(12):
        np.testing.assert_array_equal(got[:, col], expect[:, col], err_msg=f"column {col}")
    np.testing.assert_array_equal(dev.get(p64, n, np.uint64), e64)


def _collatz_steps(v):
    s = 0
    while v != 1:
        v = 3 * v + 1 if v & 1 else v // 2
        s += 1
    return s


def test_non_inlined_device_functions(dev, rng):
    n = 100
    x = rng.random(n, np.float32)
    px, py, ps = dev.put(x), dev.zeros(n, np.float32), dev.zeros(n, np.int32)
    dev.launch("calls", 2, 64, px, py, ps, n)
    expect = []
    for i in range(n):
        r = np.float32(0)
        for j in range(i % 4 + 1):
            r = np.float32(r * x[i] + np.float32(j + 1))
        expect.append(r)
    np.testing.assert_allclose(dev.get(py, n, np.float32), expect, rtol=1e-6)
    np.testing.assert_array_equal(dev.get(ps, n, np.int32), [_collatz_steps(i + 1) for i in range(n)])


def test_local_arrays(dev, rng):
    n = 200
    idx = rng.integers(0, 1000, n, dtype=np.int32)
    pi, po = dev.put(idx), dev.zeros(n, np.int32)
    dev.launch("local_array", 2, 128, pi, po, n)
    i = np.arange(n)
    expect = sum(((idx[(i + k) % n] & 15) ** 2 + i) for k in range(4))
    np.testing.assert_array_equal(dev.get(po, n, np.int32), expect)


def test_warp_vote_and_ballot(dev, rng):
    v = rng.integers(-3, 10, 96, dtype=np.int32)
    v[32:64] = 5  # a warp where every lane votes yes
    v[64:96] = -1  # a warp where none does
    pv, po = dev.put(v), dev.zeros(4 * 96, np.uint32)
    dev.launch("vote", 1, 96, pv, po)
    out = dev.get(po, 4 * 96, np.uint32).reshape(96, 4)
    for w in range(3):
        yes = v[32 * w:32 * (w + 1)] > 0
        ballot = sum(1 << k for k in range(32) if yes[k])
        rows = out[32 * w:32 * (w + 1)]
        assert (rows[:, 0] == ballot).all()
        assert (rows[:, 1] == int(yes.all())).all()
        assert (rows[:, 2] == int(yes.any())).all()
        # __activemask inside `if (v > 0)`: exactly the lanes that took the branch
        np.testing.assert_array_equal(rows[:, 3], np.where(yes, ballot, 0))


def test_dynamic_shared_memory(dev, rng):
    x = rng.random(2 * 200, np.float32)
    px, po = dev.put(x), dev.zeros(x.size, np.float32)
    dev.launch("dyn_shared", 2, 200, px, po, x.size, shared=200 * 4)
    np.testing.assert_array_equal(dev.get(po, x.size, np.float32), (x.reshape(2, 200)[:, ::-1] * 2).ravel())


def test_module_variables(dev, rng):
    n = 300
    x = rng.random(n, np.float32)
    px, py = dev.put(x), dev.zeros(n, np.float32)
    dev.launch("globals", 3, 128, px, py, n)
    c = np.array([1.0, 0.5, 0.25, 0.125], np.float32)
    np.testing.assert_allclose(dev.get(py, n, np.float32), c[0] + c[1] * x + c[2] * x * x + c[3], rtol=1e-6)
    counter = dev.mod.addresses["counter"]
    assert dev.get(counter, 1, np.int32)[0] == n
    # cudaMemcpyToSymbol writes where bind() put the variable; the next launch sees it
    dev.mem.write(dev.mod.addresses["coeffs"], np.array([0, 0, 0, 2], np.float32).tobytes())
    dev.launch("globals", 3, 128, px, py, n)
    np.testing.assert_array_equal(dev.get(py, n, np.float32), np.full(n, 2, np.float32))


def test_atomics(dev):
    n = 64
    ia = dev.put(np.array([5, 1000, -1000, 0], np.int32))
    ua = dev.put(np.array([0, 0, 0xFFFFFFFF, 0, 0, 99], np.uint32))
    ull = dev.put(np.array([1, 0], np.uint64))
    fa, da = dev.put(np.array([1.0], np.float32)), dev.put(np.array([2.0], np.float64))
    old = dev.zeros(n, np.int32)
    dev.launch("atomics", 1, n, ia, ua, ull, fa, da, old)
    i = np.arange(n)
    got_i = dev.get(ia, 4, np.int32)
    assert got_i[0] == 5 + i.sum()
    assert got_i[1] == min(1000, (100 - i).min())
    assert got_i[2] == (i * 3 - 50).max()
    assert got_i[3] == 2 * n  # CAS loop: every thread adds 2 exactly once
    # atomicAdd's old values describe one serial order: each is the previous one plus that lane's add
    olds = dev.get(old, n, np.int32)
    order = np.argsort(olds, kind="stable")
    assert olds[order[0]] == 5
    np.testing.assert_array_equal(olds[order[1:]], olds[order[:-1]] + i[order[:-1]])
    inc = 0
    for _ in range(n):
        inc = 0 if inc >= 17 else inc + 1
    dec = 0
    for _ in range(n):
        dec = 9 if dec == 0 or dec > 9 else dec - 1
    x = 0
    for k in range(n):
        x ^= (k * 2654435761) & 0xFFFFFFFF
    got_u = dev.get(ua, 6, np.uint32)
    assert got_u[0] == inc and got_u[1] == dec
    assert got_u[2] == 0 and got_u[3] == 0xFFFFFFFF and got_u[4] == x
    assert got_u[5] in set(range(n))
    got_ull = dev.get(ull, 2, np.uint64)
    assert got_ull[0] == 1 + sum(k << 33 for k in range(n))
    assert got_ull[1] == (n - 1) * 1000000007
    assert dev.get(fa, 1, np.float32)[0] == 1.0 + 0.5 * n
    assert dev.get(da, 1, np.float64)[0] == 2.0 + 0.25 * n
