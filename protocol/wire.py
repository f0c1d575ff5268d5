"""The data-path wire format, shared by the server and by Python tools and tests.

The envelope (what carries every call and reply) is typed records in protocol/contract/envelope.toml,
whose codecs are generated for both ends (protocol/generated/envelope.py here, libhook's
rgpu_envelope.h in the client): no end decodes it by hand. What the records mean:

Request (client DEALER -> worker ROUTER): frame 0 is an array of `call` records ``[seq, call_id, sync,
args, nbulk(, copy)]``; then the bulk frames of all calls, in order.
Reply (only for sync calls): a `reply` record ``[seq, result, outs, deferred, message, output(,
regions)]`` and bulk frames; ``output`` is device printf text produced since the last reply, for the
client's stdout. Call id ATTACH is attach ``[session, key]``, ``[session, key, shm offer]`` or
``[session, key, shm offer or None, bulk offer]``, answered with outs ``[offer accepted, backend,
facts]`` (server/shm.py; facts: ``{attrs: {attribute: value}, props: cudaDeviceProp bytes}`` or
``{}``, what the client answers attribute and property queries from), and to a bulk offer ``[key,
channel name]`` a fourth out, the port of the session's bulk channel or None (server/bulk.py: on a
CURVE wire whose worker does not map the client's segment, every frame of BULK_MIN bytes or more
after a message's head, either way, travels there sealed, a `sealed` record in its place); GOODBYE ends the session, its args the client's counts ``[round trips waited for, async calls,
messages of async calls only]`` (or none); BARRIER is a sync no-op. A reply with seq 0 and result
SESSION_ENDED says the server is ending the session (its message says why). A reply with seq 0 and
result MOVED says the session moved (server/migration): its outs a `moved` record.

A call's `copy` (a tagged record, one of): `shm` — its bulk input is in the session's shared segment
(regions) and/or its reply's may go there (room; the reply's `regions` then say where); `pinned` — the
host side is the program's pinned memory, no data either way (server/pinned.py); UNPIN ``[name]``
(sync) says the client freed that segment (and unmaps it from the device if MAP_HOST mapped it there);
MAP_HOST ``[name, nonce, size]`` (sync) maps a pinned segment into the device's address space, answered
with outs ``[device address of its first data byte]`` (mapped host memory); `staged` — a large sync copy whose data moves through the
segment while the worker copies, the segment's first page saying how much (server/staging.py,
run_staged). PARAMS ``[function]`` (sync) is answered with the function's parameter layout, outs
``[offset, size, ...]``. Where frames carry the data, a large sync copy goes in pieces
(server/pieces.py): H2D as calls whose ``sync`` is PIECE_IN, each its own message, before the sync
call; D2H, asked with ``sync`` SYNC_PIECES_OUT, as replies with result PIECE_OUT and outs a
`piece_out` record before the reply. An async D2H copy into pinned memory the worker does not map goes
with ``sync`` OUT_LATER: its data comes before the next sync call's reply, as a reply with result
LATE_OUT and its data frames; with a `pinned` copy record (a --failover session on the worker's host)
the worker writes the data into that memory before its next reply instead, and sends no LATE_OUT. Hello (client -> supervisor) is a map ``{op: "hello", proto, client,
cuda, lease, gpu}`` answered by ``{ok, endpoint, session, key}`` or ``{ok: false, error, message}``.
"""
from __future__ import annotations

from dataclasses import dataclass

import msgpack

from . import limits
from .generated.constants import (  # noqa: F401  (shared with libhook)
    ATTACH, BARRIER, CHECKPOINT, GOODBYE, LATE_MAX_BYTES, LATE_MAX_COPIES, LATE_OUT, MOVED, OUT_LATER, PARAMS, PARAMS_MAX,
    MAP_HOST, PIECE_IN, PIECE_OUT, PROTOCOL_VERSION, RESTORE, SESSION_ENDED, SYNC_PIECES_OUT, UNPIN)
from .generated.envelope import (  # noqa: F401  (the envelope's records and codecs, generated)
    Call, MalformedMessage, Moved, PieceOut, Pinned, Region, Reply, Shm, Staged, decode_calls, decode_reply,
    encode_calls, encode_reply, write_moved, write_piece_out)


@dataclass(slots=True)
class Request:
    seq: int
    call_id: int
    sync: bool
    args: list
    bulk: list  # memoryviews / zmq Frames
    copy: object = None  # None, or the call's `copy` record (Shm, Staged, Pinned)


def decode_requests(frames: list) -> list[Request]:
    """decode_calls as objects, for tools and the worker's cold paths; raises MalformedMessage."""
    return [Request(seq, call_id, bool(sync), args, list(bulk), copy)
            for seq, call_id, sync, args, bulk, copy in decode_calls(frames)]


def encode_requests(calls) -> bytes:
    """For Python clients and tests: calls are Call records or (seq, call_id, sync, args, nbulk[, copy])."""
    return encode_calls(calls)


def pack(obj) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def unpack(data):
    """One msgpack value as it enters from a peer, bounded (limits.unpack): MalformedMessage on
    anything else."""
    return limits.unpack(data)
