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


@pytest.fixture(scope="module", autouse=True)
def interpreted():
    """These figures are the interpreter's: the compiled path (benchmarks/test_sim_jit.py) is off."""
    from rgpu.server.backends.sim import jit
    before = jit.enabled()
    jit.set_enabled(False)
    yield
    jit.set_enabled(before)


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


def test_module_loads_with_many_variables(benchmark):
    """Loading a module of 1,300 variables (what each of CuPy's CUB reductions declares) after 40
    others: ``extra_info['last_over_first']`` compares the last load with the first, measured in
    the same run (goal ~1: a load costs the same however many modules came before; it grew with
    them, to 40 s a reduction, while every variable was an allocation of its own)."""
    import time

    from rgpu.server.backends.sim.device import SimDevice

    ptx = ".version 9.0\n.target sm_80\n.address_size 64\n" + "".join(
        f".global .align 4 .u32 v{k} = {k};\n" for k in range(1300)) + ".visible .entry k() { ret; }\n"
    image = ptx.encode()

    def run():
        dev = SimDevice(1 << 30)
        times = []
        for _ in range(40):
            t0 = time.perf_counter()
            dev.module_load(image)
            times.append(time.perf_counter() - t0)
        return times

    times = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(first_s=times[0], last_s=times[-1], last_over_first=times[-1] / times[0])


def test_many_allocations(benchmark):
    """8,000 cudaMalloc-sized allocations in one session: ``extra_info['last_over_first']`` is the
    time of the last 1,000 over the first 1,000, in the same run (goal ~1; 20 s in all when every
    allocation scanned every earlier one in Python)."""
    import time

    def run():
        mem = DeviceMemory(1 << 30)
        marks = [time.perf_counter()]
        for k in range(8000):
            mem.alloc(256)
            if k % 1000 == 999:
                marks.append(time.perf_counter())
        mem.close()
        return [b - a for a, b in zip(marks, marks[1:])]

    chunks = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(first_1000_s=chunks[0], last_1000_s=chunks[-1], last_over_first=chunks[-1] / chunks[0])
