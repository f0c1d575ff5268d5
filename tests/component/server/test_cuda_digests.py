"""A checkpoint's digests taken where the memory is (server/backends/cuda/digests.py), on the null
driver (benchmarks/native/nulldriver.c, which runs that one kernel with the same C function the
software GPU is checked against in tests/unit/sim/test_device_digest.py), in a process of its own
that loaded it, as a worker does: each piece's digest as the host function gives it, None for a piece
freed since the layout was read — by Python, or by the compiled serving loop before Python's tables
heard of it; a pass after the first (a checkpoint's, a move's pre-copy rounds and stop-and-copy:
server/checkpoint/memory.py) reads only the chunks whose digest changed, where the host path reads
every one; a pre-copy's digests and reads, on their own thread, hold off the loop's frees; and
RGPU_DEVICE_DIGEST=0 turns it off."""
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
    first = [(a, n) for a, n, _ in copier.changed(copier.pieces(layout))]
    dev.write_memory(allocs[1] + 2 * CHUNK + 17, b"changed")
    del reads[:]
    second = [(a, n) for a, n, _ in copier.changed(copier.pieces(layout))]
    print(json.dumps({"first": len(first), "second": second, "reads": reads,
                      "want": [[allocs[1] + 2 * CHUNK, CHUNK]]}))
"""


def test_a_pass_after_the_first_reads_only_the_chunks_whose_gpu_digest_changed():
    """The first pass reads everything (nothing to compare with) and digests it on the host; the next
    (a checkpoint's delta, a pre-copy round, the stop-and-copy) compares the GPU's digests with those."""
    out = run(BODY)
    assert out["first"] == 12
    assert out["second"] == out["want"] and out["reads"] == out["want"]


def test_without_the_gpu_s_digests_every_chunk_is_read_and_only_the_changed_one_sent():
    """The host path, as before: RGPU_DEVICE_DIGEST=0."""
    out = run(BODY, RGPU_DEVICE_DIGEST="0")
    assert out["first"] == 12 and out["second"] == out["want"]
    assert len(out["reads"]) == 12


def test_memory_the_serving_loop_freed_is_neither_digested_nor_read():
    """The compiled loop frees an allocation (copies.c's free_one: the arena unmaps it, the copier's
    table forgets it) before Python's tables hear of it (after the loop's message): a pre-copy that
    looked at _allocs alone would run the kernel over, or copy from, unmapped memory (on a GPU the
    context's end; on the null driver, whose device memory is the worker's own, a SIGSEGV)."""
    out = run("""
        assert dev.copier is not None and dev.arena is not None
        big = 4 << 20  # more than a granule: the arena unmaps it when it is freed
        a, b = dev.mem_alloc(big), dev.mem_alloc(big)
        dev.write_memory(b, os.urandom(big))
        dev.arena.free(a)        # what the loop's free_one does ...
        dev.copier.untrack(a)    # ... and its table; _allocs still holds a
        assert a in dict(dev.allocations())
        got = dev.digest_ranges([(a, CHUNK), (b, CHUNK)])
        try:
            read(a, CHUNK)
            refused = ""
        except Exception as e:
            refused = str(e)
        print(json.dumps({"gone": got[0] is None, "kept": got[1] == host_digest(read(b, CHUNK)),
                          "refused": refused}))
    """)
    assert out["gone"] and out["kept"]
    assert "no longer allocated" in out["refused"]


def test_a_pre_copy_s_hold_keeps_the_loop_s_frees_waiting():
    """While a pre-copy thread holds the copier (placement.py _no_frees), the loop's frees and table
    changes (here an untrack, which a free makes under the same lock) wait for it to let go."""
    out = run("""
        import threading
        a = dev.mem_alloc(CHUNK)
        held, done = threading.Event(), threading.Event()
        def loop():
            held.wait()
            dev.copier.untrack(a)
            done.set()
        t = threading.Thread(target=loop)
        t.start()
        with dev.copier.held():
            held.set()
            waited = not done.wait(0.3)
            live = bool(dev.copier.live(__import__("numpy").array([[a, CHUNK]], "uint64"))[0])
        t.join(10)
        after = bool(dev.copier.live(__import__("numpy").array([[a, CHUNK]], "uint64"))[0])
        print(json.dumps({"waited": waited, "live": live, "done": done.is_set(), "after": after}))
    """)
    assert out == {"waited": True, "live": True, "done": True, "after": False}


def test_a_first_pass_over_no_memory_readies_the_kernel_for_later_ones():
    """A session's first checkpoint may come before it allocated anything: the kernel is readied
    (with scratch of its own) all the same, and the passes after it digest on the GPU."""
    out = run("""
        copier = Copier(dev)
        empty = list(copier.changed(copier.pieces([])))
        a = dev.mem_alloc(2 * CHUNK)
        dev.write_memory(a, os.urandom(2 * CHUNK))
        layout = [[a, 2 * CHUNK, 2 * CHUNK]]
        first = len(list(copier.changed(copier.pieces(layout))))
        dev.write_memory(a + 5, b"x")
        del reads[:]
        second = [(p, n) for p, n, _ in copier.changed(copier.pieces(layout))]
        print(json.dumps({"empty": empty, "first": first, "second": second, "reads": reads, "a": a}))
    """)
    assert out["empty"] == [] and out["first"] == 2
    assert out["second"] == out["reads"] == [[out["a"], 256 << 10]]
