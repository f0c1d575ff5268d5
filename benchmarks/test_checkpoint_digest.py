"""A --failover checkpoint's delta pass on the cuda backend (server/checkpoint/memory.py, a quiet pass):
256 MiB of incompressible device memory of which one 256 KiB chunk changed since the last pass, with
the digests taken where the memory is (server/backends/cuda/digests.py: a kernel, then only the
changed chunk read) against the host's path (`RGPU_DEVICE_DIGEST=0`: every chunk read, then digested
on the host), each in a process of its own on the null driver (benchmarks/native/nulldriver.c, whose
"GPU" is this host's memory and CPU, so the kernel runs at the CPU's speed), best of five passes.
The baseline, measured in the same process: the memory read once by the host (one cuMemcpyDtoH of
all of it into a buffer already touched; on the null driver a memcpy, which is also the least the
kernel must do there). On a GPU the kernel reads at the GPU's bandwidth (some TB/s) while the host
path reads across PCIe and digests at the host's speed: `RGPU_BENCH_DIGEST_DEVICE=cuda` runs the
same on the real driver (scripts/gpu_check.sh --steps digest, 1 GiB)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.native import run as native  # noqa: E402

MIB = int(os.environ.get("RGPU_BENCH_DIGEST_MIB", "256"))

PASSES = f"""
import json, os, time
from rgpu.server.backends.cuda import device
from rgpu.server.checkpoint.memory import CHUNK, Copier
size = {MIB} << 20
dev = device.CudaDevice(0, size + (1 << 30))
a = dev.mem_alloc(size)
dev.write_memory(a, os.urandom(size))
layout = [[a, size, size]]
copier = Copier(dev)
assert sum(1 for _ in copier.changed(copier.pieces(layout), quiet=True)) == size // CHUNK
passes, sent = [], []
for k in range(5):
    dev.write_memory(a + (k * 37 % (size // CHUNK)) * CHUNK + 5, os.urandom(1000))
    dev.synchronize()
    t = time.perf_counter()
    sent.append(sum(1 for _ in copier.changed(copier.pieces(layout), quiet=True)))
    passes.append(time.perf_counter() - t)
ffi, lib = device.ffi(), device.lib()
into = bytearray(size)  # one buffer, its pages touched by the first read: the best is the copy alone
reads = []
for _ in range(5):
    t = time.perf_counter()
    lib.cuMemcpyDtoHAsync_v2(ffi.from_buffer(into), a, size, ffi.NULL)
    lib.cuStreamSynchronize(ffi.NULL)
    reads.append(time.perf_counter() - t)
print(json.dumps({{"pass_s": min(passes), "read_s": min(reads), "sent": sent}}))
"""


def passes(device_digest: bool) -> dict:
    env = {**os.environ, "RGPU_DEVICE_DIGEST": "1" if device_digest else "0"}
    if os.environ.get("RGPU_BENCH_DIGEST_DEVICE", "null") == "null":
        env["RGPU_LIBCUDA"] = str(native.null_driver())
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(PASSES)], capture_output=True, text=True, timeout=600,
                       env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("where", ["gpu", "host"])
def test_checkpoint_delta_pass(benchmark, figures, where):
    got = {}

    def once():
        got.update(passes(where == "gpu"))

    benchmark.pedantic(once, rounds=1, iterations=1)
    assert got["sent"] == [1] * 5, got  # one changed chunk a pass, whichever path
    benchmark.extra_info.update(pass_ms=round(got["pass_s"] * 1e3, 2), memory_read_ms=round(got["read_s"] * 1e3, 2),
                                MiB=MIB)
    # raw: the memory read once by the host, the same process (the table's "raw" column)
    figures[f"ckpt delta {MIB}MiB, {where}"] = {"rgpu": got["pass_s"] * 1e3, "raw": got["read_s"] * 1e3, "unit": "ms"}
