"""The failover digests (libhook/src/transport/digest.c), compiled alone: what a program saw of a D2H
copy is digested from its buffer, and the replay's data from the frames another server sends, so the
digest must be the same for the same bytes however they are cut into parts, and differ for other bytes
or another length."""
from __future__ import annotations

import ctypes
import random

import pytest

from tests.support import clib


class Dig(ctypes.Structure):
    _fields_ = [("h", ctypes.c_uint64 * 4), ("words", ctypes.c_uint64), ("pend", ctypes.c_uint64),
                ("npend", ctypes.c_uint)]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    so = clib.build(tmp_path_factory.mktemp("digest") / "libdigest.so", clib.TRANSPORT / "digest.c")
    so.rgpu_dig_start.restype = Dig
    so.rgpu_dig_end.restype = ctypes.c_uint64
    so.rgpu_dig_end.argtypes = [ctypes.POINTER(Dig)]
    so.rgpu_dig_add.argtypes = [ctypes.POINTER(Dig), ctypes.c_char_p, ctypes.c_size_t]
    return so


def digest(lib, parts: list[bytes]) -> int:
    d = lib.rgpu_dig_start()
    for p in parts:
        lib.rgpu_dig_add(ctypes.byref(d), p, len(p))
    return lib.rgpu_dig_end(ctypes.byref(d))


def cut(data: bytes, rng: random.Random, largest: int) -> list[bytes]:
    out, at = [], 0
    while at < len(data):
        k = rng.randint(0, largest)
        out.append(data[at:at + k])
        at += k
    return out


def test_the_same_bytes_give_the_same_digest_however_they_are_cut(lib):
    rng = random.Random(7)
    data = rng.randbytes(100_003)
    whole = digest(lib, [data])
    for largest in (1, 7, 9, 31, 33, 100, 5000, 70_000):
        for _ in range(5):
            assert digest(lib, cut(data, rng, largest)) == whole, largest


def test_other_bytes_or_another_length_give_another_digest(lib):
    rng = random.Random(8)
    data = bytearray(rng.randbytes(4099))
    whole = digest(lib, [bytes(data)])
    seen = {whole}
    for at in (0, 5, 8, 31, 32, 33, 4000, 4098):  # a bit in each lane, the open tail word
        data[at] ^= 0x10
        seen.add(digest(lib, [bytes(data)]))
        data[at] ^= 0x10
    assert len(seen) == 9
    assert digest(lib, [bytes(data) + b"\0"]) != whole      # a zero byte more
    assert digest(lib, [bytes(data[:-1])]) != whole         # a byte less
    assert digest(lib, [b""]) != digest(lib, [b"\0" * 8])   # nothing, and a zero word
