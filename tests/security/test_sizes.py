"""Sizes on the wire (issue 39, attack 5): a size, count, pitch or extent that no C caller could pass
(negative), or one that wraps a 64-bit sum (offset + length, rows x pitch), sent straight to a
worker, is refused with an invalid-value error before a byte moves — on the software GPU and on the
cuda backend (the null driver, which memsets and copies whatever it is given, as a real driver
trusts its caller's sizes). Before: cuMemsetD8Async with a count of -1 returned success on the sim
and wrote from the allocation to the end of the GPU's memory."""
from __future__ import annotations

import sys

import pytest

from rgpu.client.server_client import ping
from tests.support.daemons import DaemonSet, free_url
from tests.support.session import Session

MiB = 1 << 20
U64 = (1 << 64) - 1
INVALID = 1  # cudaErrorInvalidValue and CUDA_ERROR_INVALID_VALUE alike
D2D = 3


def _start(daemons, backend: str) -> str:
    url = free_url()
    argv = [sys.executable, "-m", "rgpu.server.cli", "--device", backend, "--listen", url, "--log-level", "info"]
    env = None
    if backend == "sim":
        argv += ["--sim-memory", "256MiB"]
    else:
        import os

        from benchmarks.native import run as native
        env = {**os.environ, "RGPU_LIBCUDA": str(native.null_driver())}
    daemons.start(argv, ready=lambda: ping(url), deadline_s=60, env=env)
    return url


@pytest.fixture(scope="module", params=["sim", "cuda"])
def victim(request):
    """(session, a, b): a session with two 1 MiB allocations, a filled with 0x11 and b with 0x5A."""
    with DaemonSet() as daemons:
        s = Session(_start(daemons, request.param))
        rc, (a,), _, _ = s.call("cudaMalloc", MiB)
        rc2, (b,), _, _ = s.call("cudaMalloc", MiB)
        assert rc == rc2 == 0
        assert s.call("cudaMemset", a, 0x11, MiB)[0] == 0 and s.call("cudaMemset", b, 0x5A, MiB)[0] == 0
        yield s, a, b
        s.close()


# (name, args(a, b)): each would touch bytes outside a and b if its numbers were taken as they are
ATTACKS = [
    ("cuMemsetD8Async", lambda a, b: [a, 0xAB, -1, 0]),                      # the reported one
    ("cuMemsetD8_v2", lambda a, b: [a, 0xAB, U64]),
    ("cuMemsetD32_v2", lambda a, b: [a, 0xAB, 1 << 62]),                     # 4 x count wraps to 0
    ("cuMemsetD16Async", lambda a, b: [a + MiB - 2, 0xAB, 1 << 63, 0]),
    ("cudaMemset", lambda a, b: [a, 0xAB, -1]),
    ("cudaMemsetAsync", lambda a, b: [a, 0xAB, U64, 0]),
    ("cudaMemset2D", lambda a, b: [a, -1, 0xAB, 16, 2]),                      # a negative pitch
    ("cudaMemset2D", lambda a, b: [a, 4096, 0xAB, -4096, 2]),
    ("cuMemsetD2D8_v2", lambda a, b: [a, 4096, 0xAB, 4096, U64]),           # rows without end
    ("cuMemsetD2D32_v2", lambda a, b: [a, 1 << 62, 0xAB, 1, 5]),            # pitch x rows wraps
    ("cudaMemcpy", lambda a, b: [b, a, -1, D2D]),
    ("cuMemcpyDtoD_v2", lambda a, b: [b, a, U64]),
    ("cuMemcpyDtoD_v2", lambda a, b: [a + MiB - 8, b, (1 << 64) - 8]),      # offset + length wraps
    ("cuMemcpyDtoDAsync_v2", lambda a, b: [b, a - 64, 128, 0]),             # starts before a
    ("cuMemcpyDtoH_v2", lambda a, b: [a, -1]),
    ("cuMemcpyDtoH_v2", lambda a, b: [a + MiB - 8, U64]),
    ("cudaMemcpy2D", lambda a, b: [b, 4096, a, 4096, 4096, U64, D2D]),
    ("cudaMemcpy2D", lambda a, b: [b, 4096, a, -4096, 4096, 2, D2D]),
    # 3D: src device a (pitch, rows), dst device b; WidthInBytes, Height, Depth last
    ("cuMemcpy3D_v2", lambda a, b: [0, a, 4096, 16, 0, 0, 0, 0, b, 4096, 16, 0, 0, 0, 4096, 16, 1 << 63]),
    ("cuMemcpy3D_v2", lambda a, b: [0, a, 4096, 16, 0, -1, 0, 0, b, 4096, 16, 0, 0, 0, 4096, 1, 1]),
    ("cuMemcpy3D_v2", lambda a, b: [0, a, 4096, 16, 0, 0, 0, 0, b, 4096, 16, 0, 0, 0, -4096, 16, 1]),
]


@pytest.mark.parametrize("name, args", ATTACKS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(ATTACKS)])
def test_a_size_no_caller_could_pass_moves_nothing(victim, name, args):
    s, a, b = victim
    rc, _, _, message = s.call(name, *args(a, b))
    assert rc == INVALID, (rc, message)
    # nothing moved: both allocations hold what they held, and the session serves on
    for ptr, fill in ((a, 0x11), (b, 0x5A)):
        rc, _, data, _ = s.call("cuMemcpyDtoH_v2", ptr, MiB)
        assert rc == 0 and b"".join(bytes(d) for d in data) == bytes([fill]) * MiB
    rc, (free, _total), _, _ = s.call("cudaMemGetInfo")
    assert rc == 0 and free > 0
