"""The kernel a GPU digests a session's memory with for checkpoints (server/backends/cuda/digests.py)
run on the software GPU, which executes its PTX as a GPU does, against the same function written for
the host (server/native/device_digest.h, librgpu_launches.so's rgpu_digest_chunk, the digest the
copier takes of the bytes it reads): bit for bit, for chunks of every shape a checkpoint makes (whole
256 KiB chunks, an allocation's short last one ending at any byte, one shorter than a 16-byte word),
and every byte of each read (a change anywhere shows), none past a chunk's end (the software GPU
faults on a read outside an allocation)."""
from __future__ import annotations

import cffi
import numpy as np
import pytest

from rgpu.paths import libdir
from rgpu.server.backends.cuda import digests
from rgpu.server.backends.sim.kernels import KernelModule

CHUNK = 256 << 10


@pytest.fixture(scope="module")
def host_digest():
    ffi = cffi.FFI()
    ffi.cdef("void rgpu_digest_chunk(const void *data, uint64_t n, uint64_t out[2]);")
    lib = ffi.dlopen(str(libdir() / "librgpu_launches.so"))

    def digest(data: bytes) -> bytes:
        out = ffi.new("uint64_t[2]")
        lib.rgpu_digest_chunk(data, len(data), out)
        return bytes(ffi.buffer(out))
    return digest


@pytest.fixture
def gpu(make_device):
    return make_device(KernelModule.load(digests.PTX.encode()), capacity=16 << 20)


def run(gpu, pieces: list[tuple[int, int]]) -> list[bytes]:
    ranges = np.array([v for p in pieces for v in p], dtype=np.uint64)
    r = gpu.put(ranges)
    out = gpu.zeros(2 * len(pieces) + 2, np.uint64)
    gpu.launch("rgpu_chunk_digests", (len(pieces), 1, 1), (digests.THREADS, 1, 1), r, out, len(pieces))
    raw = gpu.get(out, 2 * len(pieces) + 2, np.uint64).tobytes()
    assert raw[16 * len(pieces):] == bytes(16), "the kernel wrote past its last digest"
    return [raw[16 * i:16 * i + 16] for i in range(len(pieces))]


# lengths: whole chunks, an allocation's last chunk ending at odd places, tails of 1-15 bytes
# taken by thread 0, by a middle thread and by thread 255 (the word after a multiple of 256 words)
LENGTHS = [CHUNK, 4096, 4096 + 7, 16 * 255 + 9, 16 * 256 + 15, 16 * 300 + 1, 1, 15, 16, 17, 1000]


def test_the_kernel_gives_the_host_s_digest_of_each_chunk(gpu, host_digest):
    rng = np.random.default_rng(7)
    pieces, contents = [], []
    for n in LENGTHS:
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        pieces.append((gpu.put(np.frombuffer(data, np.uint8)), n))  # an allocation of exactly n bytes
        contents.append(data)
    got = run(gpu, pieces)
    assert got == [host_digest(d) for d in contents]
    assert len(set(got)) == len(got)


def test_a_change_of_any_byte_or_of_the_length_changes_the_digest(gpu, host_digest):
    rng = np.random.default_rng(8)
    n = 16 * 256 + 13  # every thread a word, thread 1 one more and the tail
    data = bytearray(rng.integers(0, 256, n, dtype=np.uint8).tobytes())
    addr = gpu.put(np.frombuffer(bytes(data), np.uint8))
    [before] = run(gpu, [(addr, n)])
    for at in (0, 7, 8, 15, 16, 16 * 255 + 3, 16 * 256, n - 1):  # first and second half of words, the tail
        changed = bytearray(data)
        changed[at] ^= 0x20
        gpu.mem.write(addr, bytes(changed))
        [after] = run(gpu, [(addr, n)])
        assert after != before and after == host_digest(bytes(changed)), at
    gpu.mem.write(addr, bytes(data))
    shorter, same = run(gpu, [(addr, n - 1), (addr, n)])
    assert same == before and shorter != before
    zeros = gpu.zeros(64, np.uint8)
    assert len(set(run(gpu, [(zeros, k) for k in (1, 15, 16, 17, 32, 64)]))) == 6  # zeros differ by length


def test_the_host_function_s_words_meet_in_order(host_digest):
    """Two words of one thread swapped (words t and t + 256) give another digest: each thread folds
    its words in order, not as a sum."""
    rng = np.random.default_rng(9)
    data = bytearray(rng.integers(0, 256, 16 * 512, dtype=np.uint8).tobytes())
    swapped = bytearray(data)
    swapped[0:16], swapped[16 * 256:16 * 257] = data[16 * 256:16 * 257], data[0:16]
    assert host_digest(bytes(data)) != host_digest(bytes(swapped))
