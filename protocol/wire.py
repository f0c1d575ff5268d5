"""The data-path wire format, shared by the server and by Python tools and tests.

Request (client DEALER -> worker ROUTER): frame 0 is a msgpack array of calls, each
``[seq, call_id, sync, args, nbulk]``; then the bulk frames of all calls, in order.
Reply (only for sync calls): ``[seq, result, outs, deferred, message, output]`` and bulk frames;
``output`` is device printf text produced since the last reply, for the client's stdout.
Call id 0 is attach ``[session, key]``; 1 is goodbye. Hello (client -> supervisor) is a map
``{op: "hello", proto, client, cuda, lease, gpu}`` answered by ``{ok, endpoint, session, key}``
or ``{ok: false, error, message}``.
"""
from __future__ import annotations

from dataclasses import dataclass

import msgpack

PROTOCOL_VERSION = 1
ATTACH, GOODBYE = 0, 1


class MalformedMessage(ValueError):
    pass


@dataclass(slots=True)
class Request:
    seq: int
    call_id: int
    sync: bool
    args: list
    bulk: list  # memoryviews / zmq Frames


def decode_requests(frames: list) -> list[Request]:
    """Split one multipart message into its calls; raises MalformedMessage with a reason."""
    if not frames:
        raise MalformedMessage("empty message")
    try:
        calls = msgpack.unpackb(frames[0], raw=False, strict_map_key=False)
    except Exception as e:  # msgpack raises several types for bad input
        raise MalformedMessage(f"header is not msgpack: {e}") from None
    if not isinstance(calls, list):
        raise MalformedMessage("header must be an array of calls")
    bulk, out = list(frames[1:]), []
    for c in calls:
        if not (isinstance(c, list) and len(c) == 5 and isinstance(c[0], int) and isinstance(c[1], int)
                and isinstance(c[3], list) and isinstance(c[4], int) and 0 <= c[4] <= len(bulk)):
            raise MalformedMessage(f"bad call entry {str(c)[:80]}")
        out.append(Request(c[0], c[1], bool(c[2]), c[3], bulk[:c[4]]))
        bulk = bulk[c[4]:]
    if bulk:
        raise MalformedMessage(f"{len(bulk)} bulk frames not claimed by any call")
    return out


def encode_reply(seq: int, result: int, outs=(), deferred: int = 0, message: str = "", output: str = "") -> bytes:
    return msgpack.packb([seq, result, list(outs), deferred, message, output], use_bin_type=True)


def encode_requests(calls) -> bytes:
    """For Python clients and tests: calls are (seq, call_id, sync, args, nbulk) tuples."""
    return msgpack.packb([list(c) for c in calls], use_bin_type=True)


def pack(obj) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def unpack(data):
    return msgpack.unpackb(data, raw=False, strict_map_key=False)
