"""The worker's end of heads sent as deltas (server/head_delta.py) against the client library's encoder
(libhook/src/transport/log_delta.c, compiled alone): a head made whole again is byte for byte the one
the client sent, whatever changed where; the table keeps what the client keeps; and a delta the worker
cannot make whole (its base not the one kept, a bitmap past the end, blocks missing or extra, a record
that is not one) is a malformed message, never a wrong head."""
from __future__ import annotations

import ctypes
import random

import msgpack
import pytest

from rgpu.protocol.generated.constants import HEAD_DELTA_MAX, HEAD_DELTA_MIN, HEAD_DELTA_SLOTS
from rgpu.protocol.generated.envelope import MalformedMessage
from rgpu.server import head_delta
from rgpu.server.head_delta import HeadTable, apply
from tests.support import clib


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return clib.log_delta(tmp_path_factory.mktemp("head_delta"))


@pytest.fixture(params=["native", "numpy"], autouse=True)
def way(request, monkeypatch):
    """The worker makes heads whole with librgpu_launches.so's rgpu_delta_apply where that library is
    built, with numpy where not: both, the same."""
    if request.param == "native":
        assert head_delta._native() is not None, "librgpu_launches.so without rgpu_delta_apply"
    else:
        monkeypatch.setattr(head_delta, "_lib", None)
        monkeypatch.setattr(head_delta, "_looked", True)
    return request.param


def encode(lib, key: bytes, cur: bytes) -> bytes:
    cap = len(cur) // 4  # log_delta.h's rgpu_delta_cap, as head_delta.c asks
    out = ctypes.create_string_buffer(cap)
    n = lib.rgpu_delta_encode(key, cur, len(cur), out, cap)
    return out.raw[:n]


def delta_message(lib, base: bytes, head: bytes, frames=()) -> list:
    """The frames head_delta.c sends for `head` against `base`."""
    record = msgpack.packb([len(head), base[:16]], use_bin_type=True)
    return [b"", record, encode(lib, base, head), *frames]


def changed(rng, head: bytes, spots: int) -> bytes:
    out = bytearray(head)
    for at in [0, len(head) - 1] + [rng.randrange(len(head)) for _ in range(spots)]:
        out[at] ^= 0xA5
    return bytes(out)


@pytest.mark.parametrize("length", [HEAD_DELTA_MIN, HEAD_DELTA_MIN + 17, 212_000, HEAD_DELTA_MAX])
def test_a_head_made_whole_is_the_one_sent(lib, length):
    rng = random.Random(length)
    base = rng.randbytes(length)
    head = changed(rng, base, length // 3000 + 3)
    delta = encode(lib, base, head)
    assert 0 < len(delta) < length // 4
    assert apply(base, delta, length) == head


def test_the_table_follows_the_clients_heads_and_counts_what_the_deltas_saved(lib):
    rng = random.Random(1)
    table = HeadTable()
    first = rng.randbytes(212_000)
    # a whole head of a kept length is its slot's base; its frames go on untouched
    assert table.take([first, b"frame"]) == [first, b"frame"]
    second = changed(rng, first, 40)
    got = table.take(delta_message(lib, first, second, [b"data"]))
    assert [bytes(got[0].buffer), got[1]] == [second, b"data"]
    # the next delta is against the head made whole last, as the client keeps the head it sent last
    third = changed(rng, second, 40)
    assert table.take(delta_message(lib, second, third))[0].bytes == third
    assert table.deltas == 2 and 0 < table.bytes_saved < 2 * 212_000
    # the buffers heads are made whole in are used again only once nothing holds them: a frame still
    # held keeps its bytes while later heads are made whole
    held, kept = table.take(delta_message(lib, third, changed(rng, third, 40))), None
    kept = bytes(held[0].buffer)
    last = held[0].bytes
    for _ in range(5):
        nxt = changed(rng, last, 40)
        assert table.take(delta_message(lib, last, nxt))[0].bytes == nxt
        last = nxt
    assert bytes(held[0].buffer) == kept
    third = last
    # heads too short or too long to be kept leave the table as it is
    table.take([b"x" * (HEAD_DELTA_MIN - 1)])
    table.take([b"y" * (HEAD_DELTA_MAX + 1)])
    assert bytes(table.slots[table.lengths.index(212_000)]) == third


def test_heads_of_the_lengths_used_most_recently_are_kept_and_the_least_recent_goes(lib):
    """A step's heads of lengths equal modulo the table's size each stay their length's base (the
    table had one slot per length % HEAD_DELTA_SLOTS, where they took turns and went whole); a length
    more than the table holds takes the slot used least recently, whose length then has no base."""
    rng = random.Random(2)
    table = HeadTable()
    a = rng.randbytes(HEAD_DELTA_MIN)
    b = rng.randbytes(HEAD_DELTA_MIN + HEAD_DELTA_SLOTS)  # one slot for both, under the old rule
    table.take([a])
    table.take([b])
    for _ in range(3):  # a step's two heads, step after step: each a delta from its own last
        a2, b2 = changed(rng, a, 3), changed(rng, b, 3)
        assert table.take(delta_message(lib, a, a2))[0].bytes == a2
        assert table.take(delta_message(lib, b, b2))[0].bytes == b2
        a, b = a2, b2
    assert table.deltas == 6
    # HEAD_DELTA_SLOTS - 1 more lengths fill the table; a's, used least recently since, then goes
    others = [rng.randbytes(HEAD_DELTA_MIN + 1 + i) for i in range(HEAD_DELTA_SLOTS - 1)]
    table.take([b2 := changed(rng, b, 1)])  # b used after a
    for head in others:
        table.take([head])
    assert sorted(table.lengths) == sorted([len(b)] + [len(h) for h in others])
    with pytest.raises(MalformedMessage, match="base is not the head"):
        table.take(delta_message(lib, a, changed(rng, a, 3)))
    fresh = HeadTable()  # b's base held on where a's went
    for head in [a, b2, *others]:
        fresh.take([head])
    b3 = changed(rng, b2, 3)
    assert fresh.take(delta_message(lib, b2, b3))[0].bytes == b3


@pytest.mark.parametrize("spoil", ["base", "bitmap past the end", "a block missing", "a block extra",
                                   "not a record", "no differences", "length out of range"])
def test_a_delta_that_cannot_be_made_whole_is_refused(lib, spoil):
    rng = random.Random(3)
    length = 10_000 + 5  # a short last block
    base = rng.randbytes(length)
    head = changed(rng, base, 10)
    table = HeadTable()
    table.take([base])
    msg = delta_message(lib, base, head)
    bitmap = (-(-length // 32) + 7) // 8
    if spoil == "base":
        msg[1] = msgpack.packb([length, bytes(16)], use_bin_type=True)
    elif spoil == "bitmap past the end":
        d = bytearray(msg[2])
        d[bitmap - 1] |= 0x80  # block 319's bit; the head has 313 blocks
        msg[2] = bytes(d)
    elif spoil == "a block missing":
        msg[2] = msg[2][:-1]
    elif spoil == "a block extra":
        msg[2] = msg[2] + bytes(32)
    elif spoil == "not a record":
        msg[1] = b"\xc1"
    elif spoil == "no differences":
        msg = msg[:2]
    else:
        msg[1] = msgpack.packb([HEAD_DELTA_MAX + 1, base[:16]], use_bin_type=True)
    before = list(table.used)
    with pytest.raises(MalformedMessage):
        table.take(msg)
    # the refused message changed nothing: the base is still the one kept
    assert bytes(table.slots[table.lengths.index(length)]) == base and table.used == before
