"""What a cuBLAS call on a small matrix costs the software GPU before it computes anything: loading
the module the kernel lives in and running the kernel, in a session that meets the module first
(nothing parsed yet on the server) and in the next one (its bodies in the server's parse cache).

The module is cuBLAS 13.0.2's biggest: 272 kernels, 7 MB of PTX, beside SASS for six
architectures; the kernel is its batched QR (geqr2) on three 6x4 matrices. Baseline, measured in
the same run: parsing the whole module at once, which is what loading cost before modules were
parsed a function at a time. Each figure's extra_info carries its seconds; the summary line
prints them side by side.

Not a test: run with ``pytest benchmarks/test_sim_libraries.py`` (the first run installs the
pinned cuBLAS wheel into .cache/nvlibs)."""
from __future__ import annotations

import os
import struct
import tempfile

import numpy as np
import pytest

from rgpu.server.backends.sim import fatbin
from rgpu.server.backends.sim.kernels import KernelModule, launch
from rgpu.server.backends.sim.memory import DeviceMemory
from rgpu.server.backends.sim.ptx import cache, parser
from tests.unit.sim import nvkernels

GEQR2 = "_Z24geqr2_batch_kernel_shmemIffLi2ELi128EEviiiPKPT_iS3_i"
RESULTS: dict[str, float] = {}


@pytest.fixture(scope="module")
def image():
    return nvkernels.container("cublas", GEQR2)


def _session(image: bytes) -> None:
    """One session's worth: load the module, run the kernel once."""
    mod = KernelModule.load(image, label="libcublas.so.13")
    mem = DeviceMemory(16 << 20)
    mod.bind(mem)
    m, n, batch, lda = 6, 4, 3, 7
    rng = np.random.default_rng(0)
    ptrs, taus = [], []
    for _ in range(batch):
        a = mem.alloc(lda * n * 4)
        mem.write(a, rng.standard_normal(lda * n).astype(np.float32).tobytes())
        ptrs.append(a)
        taus.append(mem.alloc(n * 4))
    pa, pt = mem.alloc(8 * batch), mem.alloc(8 * batch)
    mem.write(pa, np.array(ptrs, np.uint64).tobytes())
    mem.write(pt, np.array(taus, np.uint64).tobytes())
    params = struct.pack("<iiixxxxQixxxxQi", m, n, min(m, n), pa, lda, pt, batch)
    launch(mod, mod.functions[GEQR2], mem, (1, 1, 1), (2, 128, 1), 1536 + 128 * m * 4, params, [])


def _record(benchmark, name: str) -> None:
    RESULTS[name] = benchmark.stats.stats.mean
    benchmark.extra_info["seconds"] = benchmark.stats.stats.mean
    if len(RESULTS) == 3:
        base = RESULTS["eager"]
        print(f"\ncuBLAS geqr2 module (7 MB PTX): eager parse {base:.2f}s; first session {RESULTS['first']:.2f}s "
              f"({base / RESULTS['first']:.1f}x less); next session {RESULTS['next']:.2f}s "
              f"({base / RESULTS['next']:.1f}x less)")


def test_baseline_eager_parse(benchmark, image):
    ptx = fatbin.choose_ptx(fatbin.parse_image(image), (12, 1)).data
    benchmark.pedantic(lambda: parser.parse(ptx), rounds=2, iterations=1)
    _record(benchmark, "eager")


def test_first_session(benchmark, image, monkeypatch):
    def fresh_cache():
        monkeypatch.setenv("RGPU_SIM_CACHE", tempfile.mkdtemp(prefix="rgpu-bench-cache-"))
        return (), {}
    benchmark.pedantic(lambda: _session(image), setup=fresh_cache, rounds=3, iterations=1)
    _record(benchmark, "first")


def test_next_session(benchmark, image, monkeypatch):
    monkeypatch.setenv("RGPU_SIM_CACHE", tempfile.mkdtemp(prefix="rgpu-bench-cache-"))
    _session(image)  # the session before: fills the server's parse cache
    hits = cache.stats()["hits"]
    benchmark.pedantic(lambda: _session(image), rounds=3, iterations=1)
    assert cache.stats()["hits"] > hits and os.listdir(os.environ["RGPU_SIM_CACHE"])
    _record(benchmark, "next")


# The biggest body of cuBLAS's forward-compatible CUTLASS module (tensor-core GEMMs, mma.sync +
# ldmatrix + cp.async): what a real GEMM kernel costs to prepare before its first launch, parsed
# cold and then read back from the parse cache by the next session.
CUTLASS = "_ZN7cutlass6KernelI71cutlass_80_tensorop_s1688gemm_forwardCompat_grouped_128x128_16x6_align4EEvNT_6ParamsE"
BIG: dict[str, float] = {}


def _prepare(image: bytes) -> int:
    mod = KernelModule.load(image, label="libcublas.so.13")
    return len(mod.functions[CUTLASS].program.code)


def _record_big(benchmark, name):
    BIG[name] = benchmark.stats.stats.mean
    benchmark.extra_info["seconds"] = BIG[name]
    if len(BIG) == 2:
        print(f"\ncuBLAS CUTLASS tf32 GEMM kernel, load + first use: cold {BIG['cold']:.2f}s, "
              f"cached {BIG['cached']:.2f}s ({BIG['cold'] / BIG['cached']:.1f}x less)")


def test_big_kernel_cold(benchmark, monkeypatch):
    image = nvkernels.container("cublas", CUTLASS)

    def fresh_cache():
        monkeypatch.setenv("RGPU_SIM_CACHE", tempfile.mkdtemp(prefix="rgpu-bench-cache-"))
        return (), {}
    benchmark.pedantic(lambda: _prepare(image), setup=fresh_cache, rounds=3, iterations=1)
    _record_big(benchmark, "cold")


def test_big_kernel_cached(benchmark, monkeypatch):
    image = nvkernels.container("cublas", CUTLASS)
    monkeypatch.setenv("RGPU_SIM_CACHE", tempfile.mkdtemp(prefix="rgpu-bench-cache-"))
    n = _prepare(image)
    benchmark.pedantic(lambda: _prepare(image), rounds=3, iterations=1)
    benchmark.extra_info["instructions"] = n
    _record_big(benchmark, "cached")
