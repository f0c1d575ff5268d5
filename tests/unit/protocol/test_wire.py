"""Wire format: requests split into calls with their bulk frames; malformed input is refused."""
from __future__ import annotations

import msgpack
import pytest

from rgpu.protocol import wire


def test_batch_with_bulk_frames_splits_in_order():
    head = wire.encode_requests([(1, 10, 0, [1, 2], 1), (2, 11, 1, ["x"], 0), (3, 12, 0, [], 2)])
    reqs = wire.decode_requests([head, b"a", b"b", b"c"])
    assert [(r.seq, r.call_id, r.sync, r.args, list(r.bulk)) for r in reqs] == [
        (1, 10, False, [1, 2], [b"a"]), (2, 11, True, ["x"], []), (3, 12, False, [], [b"b", b"c"])]


@pytest.mark.parametrize("frames, reason", [
    ([], "empty"),
    ([b"\xc1\xff garbage"], "not msgpack"),
    ([msgpack.packb({"a": 1})], "array of calls"),
    ([msgpack.packb([[1, 2, 3]])], "call: expected an array of 5 to 6"),
    ([msgpack.packb([[1, 2, 1, [], 2]]), b"only one"], "claims 2 bulk frames, 1 are left"),
    ([msgpack.packb([[1, 2, 1, [], 0]]), b"stray"], "not claimed"),
])
def test_malformed_messages_are_refused_with_a_reason(frames, reason):
    with pytest.raises(wire.MalformedMessage, match=reason):
        wire.decode_requests(frames)


def test_reply_shape():
    assert wire.unpack(wire.encode_reply(7, 2, [1, b"x"], 700, "boom", "hi\n")) == \
        [7, 2, [1, b"x"], 700, "boom", "hi\n"]


def test_a_copy_may_name_pinned_memory_or_a_progressive_stage_instead_of_data():
    pin = wire.Pinned("/rgpu-1-h0123456789abcdef", b"n" * 16, 8192, 4096, 64)
    calls = wire.decode_calls([wire.encode_calls([(1, 7, 0, [1, 2, 3], 0, pin),
                                                  (2, 7, 1, [1, 2, 3], 0, wire.Staged([[4096, 64]], 0, 2))])])
    assert calls[0][5] == pin and type(calls[0][5]) is wire.Pinned and calls[0][2] == 0  # async: no reply
    assert type(calls[1][5]) is wire.Staged and calls[1][5].regions == [(4096, 64)] and calls[1][5].seq == 2


@pytest.mark.parametrize("pin", [[3, "/rgpu-1-h00", b"n" * 16, 8192, 4096], [3, "/x", "not bytes", 1, 2, 3],
                                 [3, 1, b"n" * 16, 8192, 4096, 64], [3, "/x", b"n", 8192, 4096, 64.0], "text",
                                 [3, "/x" * 40, b"n" * 16, 8192, 4096, 64]])
def test_malformed_pinned_references_are_refused(pin):
    with pytest.raises(wire.MalformedMessage, match="call.copy"):
        wire.decode_calls([msgpack.packb([[1, 7, 1, [], 0, pin]], use_bin_type=True)])
