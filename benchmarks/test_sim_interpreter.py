"""Software-GPU interpreter throughput: simulated thread-instructions per second.

Not a test: run with ``pytest benchmarks/test_sim_interpreter.py``. Each benchmark stores the
rate in ``extra_info['thread_instr_per_s']`` (goal of issue 3: >= 2e7 on a 2-core machine).
``test_tiny_launches`` measures the fixed cost of a launch instead: ``extra_info['launches_per_s']``
of a one-warp kernel that does almost nothing (what ML frameworks issue by the thousand).
"""
from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from rgpu.server.backends.sim.kernels import KernelModule, launch
from rgpu.server.backends.sim.memory import DeviceMemory
from tests.support.cudabuild import build

KERNELS = Path(__file__).resolve().parents[1] / "tests" / "cuda" / "kernels"


@pytest.fixture(scope="module")
def module():
    return KernelModule.load(build(KERNELS / "simcore.cu", "fatbin").read_bytes())


def _rate(benchmark, run):
    stats = []
    benchmark.pedantic(lambda: stats.append(run()), rounds=3, iterations=1, warmup_rounds=1)
    instr = stats[-1].thread_instructions
    rate = instr / benchmark.stats.stats.mean
    benchmark.extra_info["thread_instructions"] = instr
    benchmark.extra_info["thread_instr_per_s"] = rate
    print(f"\n{benchmark.name}: {instr} thread-instructions, {rate:.3g} thread-instr/s")


def test_vector_add_1m(benchmark, module):
    n = 1 << 20
    mem = DeviceMemory(64 << 20)
    module.bind(mem)
    rng = np.random.default_rng(0)
    a, b = rng.random(n, np.float32), rng.random(n, np.float32)
    pa, pb, pc = mem.alloc(4 * n), mem.alloc(4 * n), mem.alloc(4 * n)
    mem.write(pa, a.tobytes())
    mem.write(pb, b.tobytes())
    params = struct.pack("<QQQi", pa, pb, pc, n)
    out: list[str] = []
    f = module.functions["vec_add"]
    _rate(benchmark, lambda: launch(module, f, mem, (n // 256, 1, 1), (256, 1, 1), 0, params, out))
    assert np.array_equal(np.frombuffer(mem.read(pc, 4 * n), np.float32), a + b)


def test_tiled_matmul_256(benchmark, module):
    M = N = K = 256
    mem = DeviceMemory(64 << 20)
    module.bind(mem)
    rng = np.random.default_rng(0)
    A, B = rng.random((M, K), np.float32), rng.random((K, N), np.float32)
    pa, pb, pc = mem.alloc(A.nbytes), mem.alloc(B.nbytes), mem.alloc(4 * M * N)
    mem.write(pa, A.tobytes())
    mem.write(pb, B.tobytes())
    params = struct.pack("<QQQiii", pa, pb, pc, M, N, K)
    out: list[str] = []
    f = module.functions["matmul"]
    _rate(benchmark, lambda: launch(module, f, mem, (N // 16, M // 16, 1), (16, 16, 1), 0, params, out))
    C = np.frombuffer(mem.read(pc, 4 * M * N), np.float32).reshape(M, N)
    np.testing.assert_allclose(C, A @ B, rtol=1e-4)


def test_tiny_launches(benchmark):
    """Launches per second of ``bump`` (one block of 32 threads, 5 instructions per thread)."""
    module = KernelModule.load(build(KERNELS / "simlaunch.cu", "ptx").read_bytes())
    mem = DeviceMemory(1 << 20)
    module.bind(mem)
    counter = mem.alloc(4)
    mem.write(counter, bytes(4))
    params = struct.pack("<Q", counter)
    out: list[str] = []
    f = module.functions["bump"]
    n = 2000

    def run():
        for _ in range(n):
            stats = launch(module, f, mem, (1, 1, 1), (32, 1, 1), 0, params, out)
        return stats

    stats = []
    benchmark.pedantic(lambda: stats.append(run()), rounds=3, iterations=1, warmup_rounds=1)
    per_launch = benchmark.stats.stats.mean / n
    benchmark.extra_info["launches_per_s"] = 1 / per_launch
    benchmark.extra_info["us_per_launch"] = per_launch * 1e6
    benchmark.extra_info["thread_instr_per_s"] = stats[-1].thread_instructions / per_launch
    print(f"\n{benchmark.name}: {1 / per_launch:.3g} launches/s ({per_launch * 1e6:.1f} us each), "
          f"{stats[-1].thread_instructions / per_launch:.3g} thread-instr/s")
    assert np.frombuffer(mem.read(counter, 4), np.int32)[0] == 4 * n
