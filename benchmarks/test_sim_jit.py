"""The software GPU's compiled path (server/backends/sim/jit) against its interpreter and against the
same kernels written in C and built with gcc -O2 (benchmarks/native/sim_jit_kernels.c), all measured
in this run: thread-instructions per second, where a C run is credited with the PTX
thread-instructions of the kernel it stands for.

Kernels: vector add (and a launch of it small enough to be mostly the launch), a saxpy that
prints, a tiled matmul, a warp-shuffle reduction, warp-synchronous sums and scans over volatile
shared memory, a shared-atomic histogram, float atomic sums (the project's own,
tests/cuda/kernels) and one real cuBLAS SGEMM kernel from the pinned libcublas.
Not a test: run with ``pytest benchmarks/test_sim_jit.py``. Each benchmark times the compiled
launch; ``extra_info`` holds ``jit``, ``interp`` and ``c`` rates, ``x_interp`` and ``x_c`` (goal of
issue 44: >= 100 and >= 0.3), and ``first_compile_s`` (the kernel's first compilation, no cache).
Worker threads: RGPU_SIM_JIT_THREADS (default: the CPUs this process may use).
"""
from __future__ import annotations

import ctypes
import shutil
import struct
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from rgpu.server.backends.sim import jit
from rgpu.server.backends.sim.jit import engine
from rgpu.server.backends.sim.kernels import KernelModule, launch
from rgpu.server.backends.sim.memory import DeviceMemory
from tests.support.cudabuild import build

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "tests" / "cuda" / "kernels"
TABLE: list[str] = []


@pytest.fixture(scope="module")
def clib(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed: no C baseline")
    so = tmp_path_factory.mktemp("simjit") / "kernels.so"
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", str(so), str(ROOT / "benchmarks/native/sim_jit_kernels.c")],
                   check=True)
    return ctypes.CDLL(str(so))


@pytest.fixture(scope="module")
def images():
    return {"simjit": build(KERNELS / "simjit.cu", "ptx").read_bytes(),
            "simcore": build(KERNELS / "simcore.cu", "ptx").read_bytes()}


@pytest.fixture(scope="module", autouse=True)
def table(tmp_path_factory):
    # a cache directory of this run's own: first compilations are measured, not read from disk
    import os
    old = os.environ.get("RGPU_SIM_CACHE")
    os.environ["RGPU_SIM_CACHE"] = str(tmp_path_factory.mktemp("sim-cache"))
    yield
    if old is None:
        os.environ.pop("RGPU_SIM_CACHE", None)
    else:
        os.environ["RGPU_SIM_CACHE"] = old
    print("\n" + "\n".join(["kernel            jit thr-instr/s  interp      C (gcc -O2)  x interp  x C    "
                            "first compile"] + TABLE))


def _ptr(a: np.ndarray):
    return a.ctypes.data_as(ctypes.c_void_p)


def _compare(benchmark, image, name, grid, block, setup, c_run, label=None, rounds=3):
    """Time the kernel compiled (benchmark), interpreted (once) and in C (best of 3). `image`: PTX
    text, or a module (a library's container) already loaded."""
    engine._by_digest.clear()  # the first compilation is part of the figures
    mod = KernelModule.load(image) if isinstance(image, bytes) else image
    mem = DeviceMemory(256 << 20)
    mod.bind(mem)
    params, read, reset = setup(mem)
    out: list[str] = []
    f = mod.functions[name]
    before = jit.enabled()
    try:
        jit.set_enabled(True)
        jit.set_after(0)
        t0 = time.perf_counter()
        compiled = mod.jitted(f)
        first = time.perf_counter() - t0
        assert compiled is not None, f"{name} is not compiled"
        stats = []
        benchmark.pedantic(lambda: stats.append(launch(mod, f, mem, grid, block, 0, params, out)),
                           rounds=rounds, iterations=1, warmup_rounds=1)
        reset(mem)
        launch(mod, f, mem, grid, block, 0, params, out)
        got = read(mem)
        jit.set_enabled(False)
        reset(mem)
        t0 = time.perf_counter()
        ref = launch(mod, f, mem, grid, block, 0, params, out)
        interp_s = time.perf_counter() - t0
    finally:
        jit.set_enabled(before)
        jit.set_after(None)
    assert got == read(mem)  # the interpreted run wrote the same result
    c_s = min(c_run() for _ in range(3))
    instr = ref.thread_instructions
    jit_rate, interp_rate, c_rate = instr / benchmark.stats.stats.min, instr / interp_s, instr / c_s
    info = {"thread_instructions": instr, "jit": jit_rate, "interp": interp_rate, "c": c_rate,
            "x_interp": jit_rate / interp_rate, "x_c": jit_rate / c_rate, "first_compile_s": first}
    benchmark.extra_info.update(info)
    TABLE.append(f"{label or name:17s} {jit_rate:14.3g}  {interp_rate:10.3g}  {c_rate:11.3g}  {info['x_interp']:8.1f}  "
                 f"{info['x_c']:5.2f}  {first:.3f} s")


def _nothing(mem):
    pass


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def test_vector_add(benchmark, images, clib):
    n = 1 << 20
    rng = np.random.default_rng(0)
    a, b = rng.random(n, np.float32), rng.random(n, np.float32)

    def setup(mem):
        pa, pb, pc = mem.alloc(4 * n), mem.alloc(4 * n), mem.alloc(4 * n)
        mem.write(pa, a.tobytes())
        mem.write(pb, b.tobytes())
        return struct.pack("<QQQi", pa, pb, pc, n), lambda m: m.read(pc, 4 * n), _nothing
    c = np.zeros(n, np.float32)
    # 21 rounds: a launch is about a millisecond, and the best of three moved by a third between runs
    _compare(benchmark, images["simjit"], "vadd", (n // 256, 1, 1), (256, 1, 1), setup,
             lambda: _timed(lambda: clib.vadd(_ptr(a), _ptr(b), _ptr(c), n)), rounds=21)


def test_small_launch(benchmark, images, clib):
    """A launch of 16 blocks (vector add of 4,096 floats, a PyTorch elementwise op's size): what is
    timed is mostly the launch itself. It runs on one worker (jit/runner.py: too little work to pay
    for handing blocks to another); `every_worker_us` in extra_info is the same launch on every
    worker, timed here too."""
    from rgpu.server.backends.sim.jit import runner
    n = 4096
    rng = np.random.default_rng(0)
    a, b = rng.random(n, np.float32), rng.random(n, np.float32)
    kept = {}

    def setup(mem):
        pa, pb, pc = mem.alloc(4 * n), mem.alloc(4 * n), mem.alloc(4 * n)
        mem.write(pa, a.tobytes())
        mem.write(pb, b.tobytes())
        kept.update(mem=mem, params=struct.pack("<QQQi", pa, pb, pc, n))
        return kept["params"], lambda m: m.read(pc, 4 * n), _nothing
    c = np.zeros(n, np.float32)
    _compare(benchmark, images["simjit"], "vadd", (n // 256, 1, 1), (256, 1, 1), setup,
             lambda: _timed(lambda: clib.vadd(_ptr(a), _ptr(b), _ptr(c), n)), label="vadd 16 blocks", rounds=31)
    mod = KernelModule.load(images["simjit"])
    mod.bind(kept["mem"])
    f = mod.functions["vadd"]
    jit.set_after(0)
    old = runner.WORK_PER_WORKER
    try:
        runner.WORK_PER_WORKER = 0
        times = [_timed(lambda: launch(mod, f, kept["mem"], (n // 256, 1, 1), (256, 1, 1), 0, kept["params"], []))
                 for _ in range(31)]
    finally:
        runner.WORK_PER_WORKER = old
        jit.set_after(None)
    one = benchmark.stats.stats.min
    benchmark.extra_info.update(every_worker_us=min(times) * 1e6, one_worker_us=one * 1e6)
    TABLE.append(f"  (vadd 16 blocks: {one * 1e6:.0f} us a launch on one worker, {min(times) * 1e6:.0f} us on every "
                 f"worker)")


def test_saxpy_that_prints(benchmark, images, clib):
    """A saxpy whose first thread prints a line: vprintf is a WAIT point, so the kernel runs in the
    block loop of kernels with sync points (jit/driver.py) rather than thread after thread; before
    printf was compiled it ran interpreted, whole."""
    n = 1 << 20
    rng = np.random.default_rng(0)
    x, y0 = rng.random(n, np.float32), rng.random(n, np.float32)

    def setup(mem):
        px, py = mem.alloc(4 * n), mem.alloc(4 * n)
        mem.write(px, x.tobytes())
        mem.write(py, y0.tobytes())
        return (struct.pack("<f4xQQi", 1.5, px, py, n), lambda m: m.read(py, 4 * n),
                lambda m: m.write(py, y0.tobytes()))
    y = y0.copy()
    _compare(benchmark, images["simjit"], "saxpy_say", (n // 256, 1, 1), (256, 1, 1), setup,
             lambda: _timed(lambda: clib.saxpy(ctypes.c_float(1.5), _ptr(x), _ptr(y), n)))


def test_tiled_matmul(benchmark, images, clib):
    M = N = K = 128
    rng = np.random.default_rng(0)
    A, B = rng.random((M, K), np.float32), rng.random((K, N), np.float32)

    def setup(mem):
        pa, pb, pc = mem.alloc(A.nbytes), mem.alloc(B.nbytes), mem.alloc(4 * M * N)
        mem.write(pa, A.tobytes())
        mem.write(pb, B.tobytes())
        return struct.pack("<QQQiii", pa, pb, pc, M, N, K), lambda m: m.read(pc, 4 * M * N), _nothing
    C = np.zeros((M, N), np.float32)
    _compare(benchmark, images["simjit"], "tiled_matmul", (N // 16, M // 16, 1), (16, 16, 1), setup,
             lambda: _timed(lambda: clib.tiled_matmul(_ptr(A), _ptr(B), _ptr(C), M, N, K)))


def test_warp_shuffle_reduction(benchmark, images, clib):
    n, blocks, threads = 1 << 20, 64, 256
    x = np.random.default_rng(0).integers(-1000, 1000, n).astype(np.int32)

    def setup(mem):
        px, ps, pn = mem.alloc(4 * n), mem.alloc(4 * blocks * threads // 32), mem.alloc(4 * blocks * threads // 32)
        mem.write(px, x.tobytes())
        return struct.pack("<QQQi", px, ps, pn, n), lambda m: m.read(ps, 4 * blocks * threads // 32), _nothing
    sums, negs = np.zeros(blocks * threads // 32, np.int32), np.zeros(blocks * threads // 32, np.uint32)
    _compare(benchmark, images["simjit"], "warp_sums", (blocks, 1, 1), (threads, 1, 1), setup,
             lambda: _timed(lambda: clib.warp_sums(_ptr(x), _ptr(sums), _ptr(negs), n, blocks * threads)))


def test_lockstep_volatile(benchmark, images, clib):
    """Warp-synchronous code over volatile shared memory: each volatile access is a point the
    compiled threads stop at (jit/codegen.kernel_sync_kinds), the cost of lockstep."""
    blocks = 4096
    x = np.random.default_rng(0).integers(-1000, 1000, blocks * 128).astype(np.int32)

    def setup(mem):
        px, ps, pc = mem.alloc(x.nbytes), mem.alloc(4 * blocks), mem.alloc(x.nbytes)
        mem.write(px, x.tobytes())
        return struct.pack("<QQQ", px, ps, pc), lambda m: m.read(ps, 4 * blocks) + m.read(pc, x.nbytes), _nothing
    sums, scans = np.zeros(blocks, np.int32), np.zeros(blocks * 128, np.uint32)
    _compare(benchmark, images["simjit"], "lockstep_volatile", (blocks, 1, 1), (128, 1, 1), setup,
             lambda: _timed(lambda: clib.lockstep_volatile(_ptr(x), _ptr(sums), _ptr(scans), blocks)))


def test_shared_histogram(benchmark, images, clib):
    n, blocks, threads = 1 << 20, 64, 256
    d = np.random.default_rng(0).integers(0, 256, n).astype(np.uint8)

    def setup(mem):
        pd, pb = mem.alloc(n), mem.alloc(256)
        mem.write(pd, d.tobytes())
        return struct.pack("<QQi", pd, pb, n), lambda m: m.read(pb, 256), lambda m: m.write(pb, bytes(256))
    bins = np.zeros(64, np.uint32)
    _compare(benchmark, images["simcore"], "histogram", (blocks, 1, 1), (threads, 1, 1), setup,
             lambda: _timed(lambda: clib.histogram(_ptr(d), _ptr(bins), n, blocks, threads)))


def test_float_atomics(benchmark, images, clib):
    """f32 and f64 atomic adds whose sums round: each is a point the compiled threads stop at, so a
    block's lanes add in lane order (jit/codegen.kernel_sync_kinds), and a compare-and-swap loop in
    global memory; the C version adds in plain loops."""
    blocks = 1024
    x = np.random.default_rng(0).standard_normal(blocks * 160).astype(np.float32)

    def setup(mem):
        px, ps, pd = mem.alloc(x.nbytes), mem.alloc(16 * blocks), mem.alloc(8 * blocks)
        po, psh = mem.alloc(x.nbytes), mem.alloc(16 * blocks)
        mem.write(px, x.tobytes())

        def reset(m):
            for p, n in ((ps, 16 * blocks), (pd, 8 * blocks), (po, x.nbytes), (psh, 16 * blocks)):
                m.write(p, bytes(n))
        return (struct.pack("<QQQQQ", px, ps, pd, po, psh),
                lambda m: m.read(ps, 16 * blocks) + m.read(pd, 8 * blocks) + m.read(po, x.nbytes), reset)
    sums, dsums = np.zeros(4 * blocks, np.float32), np.zeros(blocks, np.float64)
    olds, shared = np.zeros(blocks * 160, np.float32), np.zeros(4 * blocks, np.float32)
    _compare(benchmark, images["simjit"], "float_atomics", (blocks, 1, 1), (160, 1, 1), setup,
             lambda: _timed(lambda: clib.float_atomics(_ptr(x), _ptr(sums), _ptr(dsums), _ptr(olds), _ptr(shared),
                                                       blocks)))


def test_cublas_sgemm(benchmark, clib):
    """A real cuBLAS kernel: gemm_kernel1x1_core<float> from the pinned libcublas (the container it
    ships in, SASS beside PTX), 128 x 128 x 128, column-major, alpha and beta by value."""
    from tests.unit.sim import nvkernels
    name = "_Z19gemm_kernel1x1_coreIfLb0ELb0ELb0ELb0ELb0EEvPT_PKS0_S3_iiiiiiS1_S1_S0_S0_i"
    try:
        mod = nvkernels.load("cublas", name)
    except Exception as exc:  # noqa: BLE001  (the pinned wheel cannot be installed here)
        pytest.skip(f"the pinned cuBLAS is not available: {exc}")
    m = n = k = 128
    lda = ldb = ldc = 128
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((k, lda)).astype(np.float32), rng.standard_normal((n, ldb)).astype(np.float32)
    C0 = rng.standard_normal((n, ldc)).astype(np.float32)  # column j of each is row j here
    alpha, beta = 1.5, -0.5

    def setup(mem):
        pa, pb, pc = mem.alloc(A.nbytes), mem.alloc(B.nbytes), mem.alloc(C0.nbytes)
        mem.write(pa, A.tobytes())
        mem.write(pb, B.tobytes())
        mem.write(pc, C0.tobytes())
        params = struct.pack("<QQQiiiiiiQQffi", pc, pa, pb, m, n, k, lda, ldb, ldc, 0, 0, alpha, beta, 0)
        return params, lambda mm: mm.read(pc, C0.nbytes), lambda mm: mm.write(pc, C0.tobytes())
    C = C0.copy()
    f32 = ctypes.c_float
    _compare(benchmark, mod, name, (m // 16, n // 16, 1), (16, 16, 1), setup,
             lambda: _timed(lambda: clib.sgemm_colmajor(_ptr(A), _ptr(B), _ptr(C), m, n, k, lda, ldb, ldc,
                                                        f32(alpha), f32(beta))), label="cublas_sgemm")
