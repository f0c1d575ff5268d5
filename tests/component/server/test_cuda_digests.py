"""A --failover checkpoint's digests taken where the memory is (server/backends/cuda/digests.py), on
the null driver (benchmarks/native/nulldriver.c, which runs that one kernel with the same C function
the software GPU is checked against in tests/unit/sim/test_device_digest.py), in a process of its own
that loaded it, as a worker does: each piece's digest as the host function gives it, None for a piece
freed since the layout was read; a quiet pass (server/checkpoint/memory.py: a checkpoint, a move's
stop-and-copy) reads only the chunks whose digest changed, after a quiet pass or after a pre-copy
round that read everything, where the host path reads every one; a pass while the program runs
(pre-copy) still reads every one; and RGPU_DEVICE_DIGEST=0 turns it off."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from benchmarks.native import run as native

PRELUDE = """
import json, os
import cffi
from rgpu.paths import libdir
from rgpu.server.backends.cuda import device
from rgpu.server.checkpoint.memory import CHUNK, Copier

ffi = cffi.FFI()
ffi.cdef("void rgpu_digest_chunk(const void *data, uint64_t n, uint64_t out[2]);")
host = ffi.dlopen(str(libdir() / "librgpu_launches.so"))

def host_digest(data):
    out = ffi.new("uint64_t[2]")
    host.rgpu_digest_chunk(bytes(data), len(data), out)
    return bytes(ffi.buffer(out))

dev = device.CudaDevice(0, 1 << 30)
reads = []
read = dev.read_memory
def counted(addr, n, *a):
    reads.append((addr, n))
    return read(addr, n, *a)
dev.read_memory = counted
"""


def run(body: str, **env: str) -> dict:
    p = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(body)], capture_output=True, text=True,
                       timeout=120, env={**os.environ, "RGPU_LIBCUDA": str(native.null_driver()), **env})
    assert p.returncode == 0, p.stdout + p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_the_gpu_digests_each_piece_as_the_host_function_does_and_none_once_freed():
    out = run("""
        a, b, c = dev.mem_alloc(3 * CHUNK + 5), dev.mem_alloc(1000), dev.mem_alloc(64)
        for addr, n in ((a, 3 * CHUNK + 5), (b, 1000), (c, 64)):
            dev.write_memory(addr, os.urandom(n))
        dev.mem_free(c)
        pieces = [(a, CHUNK), (a + 3 * CHUNK, 5), (b, 1000), (b, 999), (c, 64)]
        got = dev.digest_ranges(pieces)
        want = [host_digest(read(p, n)) for p, n in pieces[:4]] + [None]
        print(json.dumps({"same": got == want, "distinct": len(set(got[:4])) == 4}))
    """)
    assert out == {"same": True, "distinct": True}


BODY = """
    allocs = [dev.mem_alloc(4 * CHUNK) for _ in range(3)]
    for a in allocs:
        dev.write_memory(a, os.urandom(4 * CHUNK))
    layout = [[a, 4 * CHUNK, 4 * CHUNK] for a in allocs]
    copier = Copier(dev)
    first = [(a, n) for a, n, _ in copier.changed(copier.pieces(layout), quiet={first})]
    dev.write_memory(allocs[1] + 2 * CHUNK + 17, b"changed")
    del reads[:]
    second = [(a, n) for a, n, _ in copier.changed(copier.pieces(layout), quiet={second})]
    print(json.dumps({{"first": len(first), "second": second, "reads": reads,
                      "want": [[allocs[1] + 2 * CHUNK, CHUNK]]}}))
"""


@pytest.mark.parametrize("first", [True, False], ids=["after-a-checkpoint", "after-a-pre-copy-round"])
def test_a_quiet_pass_reads_only_the_chunks_whose_gpu_digest_changed(first):
    """After another quiet pass (failover's chain), or after a pre-copy round that read and digested
    every chunk on the host (a move's stop-and-copy): the GPU's digests compare with the host's."""
    out = run(BODY.format(first=first, second=True))
    assert out["first"] == 12
    assert out["second"] == out["want"] and out["reads"] == out["want"]


def test_without_the_gpu_s_digests_every_chunk_is_read_and_only_the_changed_one_sent():
    """The host path, as before: RGPU_DEVICE_DIGEST=0, and any pass taken while the program runs."""
    for out in (run(BODY.format(first=True, second=True), RGPU_DEVICE_DIGEST="0"),
                run(BODY.format(first=False, second=False))):
        assert out["first"] == 12 and out["second"] == out["want"]
        assert len(out["reads"]) == 12


def test_a_first_pass_over_no_memory_readies_the_kernel_for_later_ones():
    """A session's first checkpoint may come before it allocated anything: the kernel is readied
    (with scratch of its own) all the same, and the passes after it digest on the GPU."""
    out = run("""
        copier = Copier(dev)
        empty = list(copier.changed(copier.pieces([]), quiet=True))
        a = dev.mem_alloc(2 * CHUNK)
        dev.write_memory(a, os.urandom(2 * CHUNK))
        layout = [[a, 2 * CHUNK, 2 * CHUNK]]
        first = len(list(copier.changed(copier.pieces(layout), quiet=True)))
        dev.write_memory(a + 5, b"x")
        del reads[:]
        second = [(p, n) for p, n, _ in copier.changed(copier.pieces(layout), quiet=True)]
        print(json.dumps({"empty": empty, "first": first, "second": second, "reads": reads, "a": a}))
    """)
    assert out["empty"] == [] and out["first"] == 2
    assert out["second"] == out["reads"] == [[out["a"], 256 << 10]]
