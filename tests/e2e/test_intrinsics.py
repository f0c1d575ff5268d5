"""End to end: CUDA's integer, video and special-function intrinsics as nvcc compiles them
(tests/cuda/programs/intrinsics.cu), each checked against a reference written here from CUDA's
documentation of the intrinsic: exact for the integer ones, within a few ulp for the functions
(CUDA's own bounds are 2-6 ulp). The same program runs on a real GPU."""
from __future__ import annotations

import math
import statistics

import numpy as np
import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.e2e

N = 256
M = 0xFFFFFFFF


def _s32(v):
    v &= M
    return v - (1 << 32) if v >> 31 else v


def _bytes(v):
    return [(v >> (8 * k)) & 0xFF for k in range(4)]


def _from_bytes(bs):
    return sum((x & 0xFF) << (8 * k) for k, x in enumerate(bs))


def _sbyte(x):
    return x - 256 if x > 127 else x


# output slot -> reference(x, y, i), as the kernel `ints` computes it
INTS = {
    0: lambda x, y, i: ((((y << 32) | x) << (i & 31)) >> 32) & M,                    # __funnelshift_l
    1: lambda x, y, i: (((y << 32) | x) >> (i & 31)) & M,                             # __funnelshift_r
    2: lambda x, y, i: _from_bytes([(_bytes(x) + _bytes(y))[((0x5140 + (i & 7)) >> (4 * k)) & 7]
                                    for k in range(4)]),                               # __byte_perm
    3: lambda x, y, i: _from_bytes([abs(p - q) for p, q in zip(_bytes(x), _bytes(y))]),  # __vabsdiffu4
    4: lambda x, y, i: (sum(_sbyte(p) * _sbyte(q) for p, q in zip(_bytes(x), _bytes(y))) + i) & M,  # __dp4a
    5: lambda x, y, i: _from_bytes([(p + q) & 0xFF for p, q in zip(_bytes(x), _bytes(y))]),  # __vadd4
    6: lambda x, y, i: (abs((x & 0xFFFF) - (y & 0xFFFF)) + i) & M,                   # __usad
    7: lambda x, y, i: ((_s32(x) * _s32(y)) >> 32) & M,                              # __mulhi
    8: lambda x, y, i: ((((x << 32) | y) * ((y << 32) | x)) >> 64 >> 7) & M,          # __umul64hi
    9: lambda x, y, i: (64 - ((x << (i & 31)) & ((1 << 64) - 1)).bit_length())
    + bin((y << 32) | x).count("1") * 100,                                             # __clzll, __popcll
    10: lambda x, y, i: ((((x << 32) | y) & -((x << 32) | y)).bit_length())
    + int(f"{(x << 32) | y:064b}"[::-1], 2) % 1000,                                    # __ffsll, __brevll
    11: lambda x, y, i: _from_bytes([0xFF if p > q else 0 for p, q in zip(_bytes(x), _bytes(y))])
    ^ _from_bytes([max(p, q) for p, q in zip(_bytes(x), _bytes(y))]),                 # __vcmpgtu4, __vmaxu4
    12: lambda x, y, i: (abs(_s32(x) - _s32(y)) + 3) & M,                             # __sad
    13: lambda x, y, i: (((_s32(x) + _s32(y)) >> 1) + ((_s32(x >> 1) + _s32(y >> 1) + 1) >> 1)) & M,  # __hadd, __rhadd
    14: lambda x, y, i: ((x ^ y) & (x | (~y & M)) ^ (x & 0x0F0F0F0F)) & M,            # a three-input logic op
    15: lambda x, y, i: (((((x & 0xFFFF) - (y & 0xFFFF)) & 0xFFFF) | ((((x >> 16) - (y >> 16)) & 0xFFFF) << 16))
                         + ((((x & 0xFFFF) + (y & 0xFFFF) + 1) >> 1)
                            | ((((x >> 16) + (y >> 16) + 1) >> 1) << 16))) & M,      # __vsub2, __vavgu2
}


def _erfcinv(y):
    return -statistics.NormalDist().inv_cdf(y / 2) / math.sqrt(2)


def test_integer_and_video_intrinsics_and_special_functions(cuda_program, sim_server, tmp_path):
    out = tmp_path / "intrinsics.bin"
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("intrinsics")), str(out))
    assert p.returncode == 0 and "OK intrinsics" in p.stdout, p.stdout + p.stderr
    raw = np.fromfile(out, np.uint32)
    ints, floats = raw[:N * 16].reshape(N, 16), raw[N * 16:].view(np.float32).reshape(N, 12)
    a = [(2654435761 * (i + 1)) & M for i in range(N)]
    b = [((40503 * (i * 7 + 3)) & M) ^ 0xDEADBEEF for i in range(N)]
    for slot, ref in INTS.items():
        bad = [i for i in range(N) if int(ints[i, slot]) != ref(a[i], b[i], i)]
        assert not bad, f"slot {slot}: {len(bad)} wrong, first at i={bad[0]}"
    f = np.array([(i - 128) * 0.037 for i in range(N)], np.float32)
    x = f.astype(np.float64)
    refs = {
        0: x / 1.7, 1: 1 / np.sqrt(np.abs(x) + 0.5),
        2: np.array([_erfcinv(min(max(float(v) * 0.3 + 1, 0.05), 1.95)) for v in f]),
        3: np.array([math.lgamma(abs(v) + 0.3) for v in x]), 4: np.array([math.gamma(abs(v) * 0.5 + 0.3) for v in x]),
        5: np.array([statistics.NormalDist().cdf(v) for v in x]), 6: np.cbrt(x),
        9: x * x - 1, 10: np.hypot(x, 2) + np.arctan2(x, -1.5),
    }
    for slot, want in refs.items():
        err = np.abs(floats[:, slot] - want) / np.maximum(1, np.abs(want))
        assert err.max() < 2e-6, f"slot {slot}: relative error {err.max():.2e}"
    # half and bfloat16 arithmetic: exact in their formats
    halves = (f.astype(np.float16) * (np.float32(0.5) + f).astype(np.float16)).astype(np.float32)
    assert np.array_equal(floats[:, 7], halves)
    bf = lambda v: (np.asarray(v, np.float32).view(np.uint32) + 0x7FFF + ((np.asarray(v, np.float32).view(np.uint32) >> 16) & 1)) \
        & 0xFFFF0000  # round to nearest even
    expect_bf = bf(bf(f).view(np.float32) * 2 + 1).view(np.float32)
    assert np.array_equal(floats[:, 8], expect_bf)
