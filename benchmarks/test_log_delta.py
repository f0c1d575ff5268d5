"""A --failover log's head kept as its differences (libhook/src/transport/log_delta.c, rgpu_delta_encode),
which a --failover session pays once a message: a CNN training step's 212 KB head, about 6 KB of it
changed since the last one of its length (the step's seqs and scalars), encoded against its key.
The baseline, in the same run and through the same ctypes call: libc's memcmp of the two heads whole,
the least any encoder must do (read both) where nothing differs. Built as libhook/build.sh builds it
(gcc -O2), hot in the cache as a step's head and its key are in the program that just wrote them."""
from __future__ import annotations

import ctypes
import ctypes.util
import random
import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402

from tests.support import clib  # noqa: E402

HEAD = 212_000
CHANGES = 180  # bytes changed here and there: about 6 KB of 32-byte blocks


@pytest.fixture(scope="module")
def heads(tmp_path_factory):
    so = clib.log_delta(tmp_path_factory.mktemp("log_delta"))
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.memcmp.restype = ctypes.c_int
    libc.memcmp.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    rng = random.Random(38)
    key = rng.randbytes(HEAD)
    cur = bytearray(key)
    for _ in range(CHANGES):
        cur[rng.randrange(HEAD)] ^= 0x5A
    k, c = ctypes.create_string_buffer(key, HEAD), ctypes.create_string_buffer(bytes(cur), HEAD)
    same = ctypes.create_string_buffer(key, HEAD)
    out = ctypes.create_string_buffer(HEAD // 4)
    return so, libc, k, c, same, out


def test_head_delta_encode(benchmark, heads, figures):
    so, libc, k, c, same, out = heads
    n = benchmark(so.rgpu_delta_encode, k, c, HEAD, out, HEAD // 4)
    assert 0 < n < HEAD // 4  # kept as differences, not whole
    encode_us = benchmark.stats.stats.min * 1e6

    # the baseline: the two heads compared whole, equal (memcmp reads both to the end)
    t = timeit.Timer(lambda: libc.memcmp(k, same, HEAD))
    loops = 2000
    base_us = min(t.repeat(repeat=5, number=loops)) / loops * 1e6
    assert libc.memcmp(k, same, HEAD) == 0
    benchmark.extra_info.update(head_bytes=HEAD, delta_bytes=n, encode_us=round(encode_us, 2),
                                memcmp_whole_us=round(base_us, 2))
    figures["failover log: a 212 KB head encoded as differences"] = {
        "rgpu": encode_us, "raw": base_us, "unit": "µs (raw: memcmp of the two heads whole)"}
