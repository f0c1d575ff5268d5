"""The data-path wire format, shared by the server and by Python tools and tests.

Request (client DEALER -> worker ROUTER): frame 0 is a msgpack array of calls, each
``[seq, call_id, sync, args, nbulk]``; then the bulk frames of all calls, in order.
Reply (only for sync calls): ``[seq, result, outs, deferred, message, output]`` and bulk frames;
``output`` is device printf text produced since the last reply, for the client's stdout.
Call id ATTACH is attach ``[session, key]`` or ``[session, key, shm offer]``, answered with outs
``[offer accepted, backend, facts]`` (server/shm.py; facts: ``{attrs: {attribute: value}, props: cudaDeviceProp
bytes}`` or ``{}``, what the client answers attribute and property queries from); GOODBYE ends the session,
its args the client's counts ``[round trips waited for, async calls, messages of async calls only]`` (or none);
BARRIER is a sync no-op. A reply with seq 0 and result SESSION_ENDED says the server is ending the session
(its message says why). A reply
with seq 0 and result MOVED says the session moved (server/migration): outs ``[URL@KEY#GPU, endpoint,
session, key, last seq run]``. A sync call may carry a 6th element naming
shared-memory regions instead of bulk frames; its reply then names them in a 7th. A copy (sync or
async) whose host side is the program's pinned memory carries ``[[], 0, [segment name, nonce, segment
size, offset, length]]`` there and no data either way (server/pinned.py); UNPIN ``[name]`` (sync) says
the client freed that segment (and unmaps it from the device if MAP_HOST mapped it there); MAP_HOST
``[name, nonce, size]`` (sync) maps a pinned segment into the device's address space, answered with outs
``[device address of its first data byte]`` (mapped host memory). PARAMS ``[function]`` (sync) is answered with the function's
parameter layout, outs ``[offset, size, ...]``. A large sync H2D copy staged progressively carries
``[regions, 0, seq]``: its data arrives in the segment while the worker copies, the segment's first
page saying how much (server/staging.py, run_staged). Where frames carry the data, a large sync copy goes in pieces
(server/pieces.py): H2D as calls whose ``sync`` is PIECE_IN, each its own message, before the sync call;
D2H, asked with ``sync`` SYNC_PIECES_OUT, as replies with result PIECE_OUT and outs ``[offset]`` before
the reply. An async D2H copy into pinned memory the worker does not map goes with ``sync`` OUT_LATER:
its data comes before the next sync call's reply, as a message ``[seq, LATE_OUT, [], 0, ""]`` and its
data frames. Hello (client -> supervisor) is a map
``{op: "hello", proto, client, cuda, lease, gpu}`` answered by ``{ok, endpoint, session, key}``
or ``{ok: false, error, message}``.
"""
from __future__ import annotations

from dataclasses import dataclass

import msgpack

from . import limits
from .generated.constants import (  # noqa: F401  (shared with libhook)
    ATTACH, BARRIER, GOODBYE, LATE_MAX_BYTES, LATE_MAX_COPIES, LATE_OUT, MOVED, OUT_LATER, PARAMS, PARAMS_MAX,
    MAP_HOST, PIECE_IN, PIECE_OUT, PROTOCOL_VERSION, SESSION_ENDED, SYNC_PIECES_OUT, UNPIN)


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
                and type(c[2]) in _SYNC_TYPES and isinstance(c[3], list) and isinstance(c[4], int)
                and 0 <= c[4] <= len(bulk)):
            raise MalformedMessage(f"bad call entry {limits.summary(c)}")
        _check_args(c[3])
        out.append(Request(c[0], c[1], bool(c[2]), c[3], bulk[:c[4]]))
        bulk = bulk[c[4]:]
    if bulk:
        raise MalformedMessage(f"{len(bulk)} bulk frames not claimed by any call")
    return out


def decode_calls(frames: list) -> list[tuple]:
    """decode_requests for the server's hot path: (seq, call_id, sync, args, bulk, shm) tuples, the
    same checks, no per-call objects. Every entry is checked before any runs. ``shm`` is None, or
    ``[input regions [[offset, length]...], room for the reply's bulk]`` in the session's shared
    segment (the same-host path: a sync call's 6th element)."""
    if not frames:
        raise MalformedMessage("empty message")
    try:
        calls = _unpackb(frames[0], raw=False, strict_map_key=False)
    except Exception as e:  # msgpack raises several types for bad input
        raise MalformedMessage(f"header is not msgpack: {e}") from None
    if type(calls) is not list:
        raise MalformedMessage("header must be an array of calls")
    nframes, used, out = len(frames) - 1, 0, []
    for c in calls:
        if not (type(c) is list and len(c) == 5 and type(c[0]) is int and type(c[1]) is int
                and type(c[3]) is list and type(c[4]) is int and 0 <= c[4] <= nframes - used):
            if isinstance(c, list) and len(c) in (5, 6) and all(isinstance(c[i], int) for i in (0, 1, 4)) \
                    and isinstance(c[3], list) and 0 <= c[4] <= nframes - used \
                    and (len(c) == 5 or _shm_ok(c[5])):
                pass  # a shared-memory entry, or bool/int subclasses
            else:
                raise MalformedMessage(f"bad call entry {limits.summary(c)}")
        if type(c[2]) not in _SYNC_TYPES:
            raise MalformedMessage(f"bad call entry {limits.summary(c)}: sync must be an integer")
        # arguments nested deep are refused here, before any handler, log line or error message
        # walks them (issue 39): one type test per argument when none is a container
        for a in c[3]:
            if type(a) in _CONTAINERS:
                _check_args(c[3])
                break
        n = c[4]
        out.append((c[0], c[1], c[2], c[3], frames[1 + used:1 + used + n] if n else (),
                    c[5] if len(c) == 6 else None))
        used += n
    if used != nframes:
        raise MalformedMessage(f"{nframes - used} bulk frames not claimed by any call")
    return out


def _shm_ok(shm) -> bool:
    return (isinstance(shm, list) and len(shm) in (2, 3) and isinstance(shm[0], list) and isinstance(shm[1], int)
            and all(isinstance(r, list) and len(r) == 2 and all(isinstance(x, int) for x in r) for r in shm[0])
            and (len(shm) == 2 or type(shm[2]) is int or _pin_ok(shm[2])))


def _pin_ok(pin) -> bool:
    """[segment name, nonce, segment size, offset, length]: the program's pinned host memory (server/pinned.py)."""
    return (isinstance(pin, list) and len(pin) == 5 and isinstance(pin[0], str) and isinstance(pin[1], bytes)
            and all(type(x) is int for x in pin[2:]))


_unpackb = msgpack.unpackb
_SYNC_TYPES = (int, bool)
_CONTAINERS = (list, dict)


def _check_args(args: list) -> None:
    try:
        limits.check_args(args)
    except limits.TooDeep as e:
        raise MalformedMessage(f"call arguments {e}") from None

_packb = msgpack.packb
_OK_TAIL = b"\x00\x90\x00\xa0\xa0"  # result 0, no outs, no deferred error, no message, no output


def encode_reply(seq: int, result: int, outs=(), deferred: int = 0, message: str = "", output: str = "",
                 shm=None) -> bytes:
    """``shm``: the [[offset, length]...] regions of the session's shared segment holding the
    reply's bulk data (the same-host path), sent as a 7th element instead of frames."""
    if shm is not None:
        return _packb([seq, result, list(outs), deferred, message, output, shm], use_bin_type=True)
    if not (result or outs or deferred or message or output):
        return b"\x96" + _packb(seq) + _OK_TAIL
    return _packb([seq, result, list(outs), deferred, message, output], use_bin_type=True)


def encode_requests(calls) -> bytes:
    """For Python clients and tests: calls are (seq, call_id, sync, args, nbulk) tuples."""
    return msgpack.packb([list(c) for c in calls], use_bin_type=True)


def pack(obj) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def unpack(data):
    """One msgpack value as it enters from a peer, bounded (limits.unpack): MalformedMessage on
    anything else."""
    return limits.unpack(data)
