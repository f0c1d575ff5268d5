"""The failover log's message heads kept as differences (libhook/src/transport/log_delta.c), compiled
alone: a head laid back over its key must come out byte for byte as sent, whatever changed where (the
first byte, the last partial block, every block), and a head that differs too much is refused so that
the log keeps it whole."""
from __future__ import annotations

import ctypes
import random

import pytest

from tests.support import clib

BLOCK = 32


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return clib.log_delta(tmp_path_factory.mktemp("log_delta"))


def encode(lib, key: bytes, cur: bytes, cap: int) -> bytes:
    out = ctypes.create_string_buffer(max(cap, 1))
    n = lib.rgpu_delta_encode(key, cur, len(cur), out, cap)
    return out.raw[:n]


def apply(lib, key: bytes, delta: bytes) -> bytes:
    out = ctypes.create_string_buffer(len(key))
    lib.rgpu_delta_apply(key, delta, len(key), out)
    return out.raw


def bitmap_bytes(length: int) -> int:
    return ((length + BLOCK - 1) // BLOCK + 7) // 8


def changed_blocks(key: bytes, cur: bytes) -> int:
    return sum(key[o:o + BLOCK] != cur[o:o + BLOCK] for o in range(0, len(key), BLOCK))


@pytest.mark.parametrize("length", [1024, 1025, 4096 + 17, 212_000])
def test_a_head_with_a_few_changes_comes_back_byte_for_byte(lib, length):
    rng = random.Random(length)
    key = rng.randbytes(length)
    cur = bytearray(key)
    # a step's seqs and scalars: a few bytes here and there, the first and the last byte among them
    for at in [0, length - 1] + [rng.randrange(length) for _ in range(length // 2000 + 3)]:
        cur[at] ^= 0x5A
    cur = bytes(cur)
    delta = encode(lib, key, cur, length // 4)
    nmap = bitmap_bytes(length)
    last = length % BLOCK or BLOCK
    blocks = changed_blocks(key, cur)
    # the bitmap, then every changed block whole (the last one as long as it is)
    assert len(delta) == nmap + (blocks - 1) * BLOCK + last
    assert apply(lib, key, delta) == cur


def test_the_same_head_again_is_its_bitmap_alone(lib):
    key = random.Random(1).randbytes(212_000)
    delta = encode(lib, key, key, len(key) // 4)
    assert delta == bytes(len(delta)) and len(delta) == bitmap_bytes(212_000)
    assert apply(lib, key, delta) == key


def test_a_head_that_differs_too_much_is_refused(lib):
    rng = random.Random(2)
    key, other = rng.randbytes(8192), rng.randbytes(8192)
    assert encode(lib, key, other, 8192 // 4) == b""
    # just within the cap: kept
    cur = bytearray(key)
    for b in range(0, 8192 // 4 // BLOCK - 8):
        cur[b * BLOCK] ^= 1
    delta = encode(lib, key, bytes(cur), 8192 // 4)
    assert delta and apply(lib, key, delta) == bytes(cur)


def test_every_block_changed_round_trips_when_the_cap_allows(lib):
    rng = random.Random(3)
    key, cur = rng.randbytes(3000), rng.randbytes(3000)
    delta = encode(lib, key, cur, 4000)
    assert len(delta) == bitmap_bytes(3000) + 3000
    assert apply(lib, key, delta) == cur


@pytest.mark.parametrize("length", [2048, 2048 + 300 + 5])
def test_one_changed_byte_is_found_wherever_it_is(lib, length):
    """The encoder passes over runs of equal blocks several at a time: a single byte changed at any
    offset (in a run's first block or its last, in the tail shorter than a run, in a last block that
    is not whole) is still its block, and only it."""
    key = random.Random(length).randbytes(length)
    nmap = bitmap_bytes(length)
    for at in range(length):
        cur = bytearray(key)
        cur[at] ^= 0x01
        delta = encode(lib, key, bytes(cur), length // 4)
        block = at // BLOCK
        size = min(BLOCK, length - block * BLOCK)
        assert delta[:nmap] == bytes(b == block // 8 and 1 << (block % 8) for b in range(nmap)), at
        assert len(delta) == nmap + size, at
        assert apply(lib, key, delta) == bytes(cur), at
