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
    ([msgpack.packb([[1, 2, 3]])], "bad call entry"),
    ([msgpack.packb([[1, 2, 1, [], 2]]), b"only one"], "bad call entry"),
    ([msgpack.packb([[1, 2, 1, [], 0]]), b"stray"], "not claimed"),
])
def test_malformed_messages_are_refused_with_a_reason(frames, reason):
    with pytest.raises(wire.MalformedMessage, match=reason):
        wire.decode_requests(frames)


def test_reply_shape():
    assert wire.unpack(wire.encode_reply(7, 2, [1, b"x"], 700, "boom", "hi\n")) == \
        [7, 2, [1, b"x"], 700, "boom", "hi\n"]
