"""generated from protocol/contract/envelope.toml by protocol/codegen/envelope.py — do not edit

The data-path message envelope (protocol/contract/envelope.toml), its records and their codecs. A
request is [call, ...] then the calls' bulk frames in order; a reply is one `reply` record and its
frames. protocol/wire.py says what the calls and replies mean."""
from __future__ import annotations

from operator import itemgetter as _itemgetter

import msgpack

from ..limits import TooDeep as _TooDeep, check_depth as _check_depth

CALL_REGIONS = 16
REPLY_REGIONS = 4096
PIN_NAME = 47
PIN_NONCE = 16
SYNC_MAX = 4
REPLY_TEXT = 16777216
BULK_CHANNEL = 16
HEAD_BASE = 16
MAX_DEPTH = 32


class MalformedMessage(ValueError):
    """A message the envelope's records refuse; the text names the record and field."""


_INTS = (int, bool)
_CONTAINERS = (list, dict, tuple)
_unpackb = msgpack.unpackb
_packb = msgpack.packb


def _summary(value) -> str:
    from ..limits import summary
    return summary(value)


def _bad(where: str, want: str, got) -> MalformedMessage:
    return MalformedMessage(f"{where}: expected {want}, got {_summary(got)}")


def _args_ok(args: list, where: str) -> None:
    """Arguments nested deeper than MAX_DEPTH are refused here, before any handler, log line or error
    message walks them: one type test per argument when none is a container."""
    for a in args:
        if type(a) in _CONTAINERS:
            try:
                _check_depth(args, MAX_DEPTH - 1)
            except _TooDeep as e:
                raise MalformedMessage(f"{where}: {e}") from None
            return



class Region(tuple):
    """A byte range of the session's shared segment: [offset, length]."""
    __slots__ = ()
    FIELDS = ('offset', 'length')
    offset = property(_itemgetter(0))
    length = property(_itemgetter(1))

    def __new__(cls, offset, length):
        return tuple.__new__(cls, (offset, length,))

    def __repr__(self):
        return "Region(" + ", ".join(f"{n}={v!r}" for n, v in zip(self.FIELDS, self)) + ")"


def write_region(r) -> list:
    """Region as the array that goes on the wire."""
    return [r[0], r[1]]


Region.write = write_region


def read_region(v, where: str = "region") -> Region:
    """Region from a decoded msgpack value; MalformedMessage naming the field that fails."""
    if type(v) is not list or not len(v) == 2:
        raise _bad(where, "an array of 2 elements", v)
    f_offset = v[0]
    if type(f_offset) is not int or f_offset < 0:
        raise _bad(where + ".offset", "an unsigned integer", f_offset)
    f_length = v[1]
    if type(f_length) is not int or f_length < 0:
        raise _bad(where + ".length", "an unsigned integer", f_length)
    return tuple.__new__(Region, (f_offset, f_length,))


class Shm(tuple):
    """The call's bulk input is in the session segment (its regions come after any frames), and/or its
reply's bulk may be written there, up to `room` bytes (server/staging.py run_shm)."""
    __slots__ = ()
    TAG = 1
    FIELDS = ('regions', 'room')
    regions = property(_itemgetter(0))
    room = property(_itemgetter(1))

    def __new__(cls, regions, room):
        return tuple.__new__(cls, (regions, room,))

    def __repr__(self):
        return "Shm(" + ", ".join(f"{n}={v!r}" for n, v in zip(self.FIELDS, self)) + ")"


def write_shm(r) -> list:
    """Shm as the array that goes on the wire."""
    return [1, [write_region(e) for e in r[0]], r[1]]


Shm.write = write_shm


def read_shm(v, where: str = "shm") -> Shm:
    """Shm from a decoded msgpack value; MalformedMessage naming the field that fails."""
    if type(v) is not list or not len(v) == 3 or v[0] != 1:
        raise _bad(where, "an array of 3 elements starting with tag 1", v)
    f_regions = v[1]
    if type(f_regions) is not list or len(f_regions) > 16:
        raise _bad(where + ".regions", "an array of at most 16 region", f_regions)
    f_regions = [read_region(x, where + ".regions") for x in f_regions]
    f_room = v[2]
    if type(f_room) is not int or f_room < 0:
        raise _bad(where + ".room", "an unsigned integer", f_room)
    return tuple.__new__(Shm, (f_regions, f_room,))


class Staged(tuple):
    """A large sync copy staged chunk by chunk while the worker copies (server/staging.py run_staged):
H2D with one input region, or D2H with room and no regions; `seq` is the call's own, which the
progress word in the segment's first page names."""
    __slots__ = ()
    TAG = 2
    FIELDS = ('regions', 'room', 'seq')
    regions = property(_itemgetter(0))
    room = property(_itemgetter(1))
    seq = property(_itemgetter(2))

    def __new__(cls, regions, room, seq):
        return tuple.__new__(cls, (regions, room, seq,))

    def __repr__(self):
        return "Staged(" + ", ".join(f"{n}={v!r}" for n, v in zip(self.FIELDS, self)) + ")"


def write_staged(r) -> list:
    """Staged as the array that goes on the wire."""
    return [2, [write_region(e) for e in r[0]], r[1], r[2]]


Staged.write = write_staged


def read_staged(v, where: str = "staged") -> Staged:
    """Staged from a decoded msgpack value; MalformedMessage naming the field that fails."""
    if type(v) is not list or not len(v) == 4 or v[0] != 2:
        raise _bad(where, "an array of 4 elements starting with tag 2", v)
    f_regions = v[1]
    if type(f_regions) is not list or len(f_regions) > 16:
        raise _bad(where + ".regions", "an array of at most 16 region", f_regions)
    f_regions = [read_region(x, where + ".regions") for x in f_regions]
    f_room = v[2]
    if type(f_room) is not int or f_room < 0:
        raise _bad(where + ".room", "an unsigned integer", f_room)
    f_seq = v[3]
    if type(f_seq) is not int or f_seq < 0:
        raise _bad(where + ".seq", "an unsigned integer", f_seq)
    return tuple.__new__(Staged, (f_regions, f_room, f_seq,))


class Pinned(tuple):
    """The copy's host side is the program's pinned memory (server/pinned.py): no data travels. The
segment's /dev/shm name, its nonce and size, and the copy's [offset, +length) in it."""
    __slots__ = ()
    TAG = 3
    FIELDS = ('name', 'nonce', 'size', 'offset', 'length')
    name = property(_itemgetter(0))
    nonce = property(_itemgetter(1))
    size = property(_itemgetter(2))
    offset = property(_itemgetter(3))
    length = property(_itemgetter(4))

    def __new__(cls, name, nonce, size, offset, length):
        return tuple.__new__(cls, (name, nonce, size, offset, length,))

    def __repr__(self):
        return "Pinned(" + ", ".join(f"{n}={v!r}" for n, v in zip(self.FIELDS, self)) + ")"


def write_pinned(r) -> list:
    """Pinned as the array that goes on the wire."""
    return [3, r[0], r[1], r[2], r[3], r[4]]


Pinned.write = write_pinned


def read_pinned(v, where: str = "pinned") -> Pinned:
    """Pinned from a decoded msgpack value; MalformedMessage naming the field that fails."""
    if type(v) is not list or not len(v) == 6 or v[0] != 3:
        raise _bad(where, "an array of 6 elements starting with tag 3", v)
    f_name = v[1]
    if type(f_name) is not str or len(f_name) > 47:
        raise _bad(where + ".name", "a string of at most 47 bytes", f_name)
    f_nonce = v[2]
    if type(f_nonce) is not bytes or len(f_nonce) != 16:
        raise _bad(where + ".nonce", "16 bytes", f_nonce)
    f_size = v[3]
    if type(f_size) is not int or f_size < 0:
        raise _bad(where + ".size", "an unsigned integer", f_size)
    f_offset = v[4]
    if type(f_offset) is not int or f_offset < 0:
        raise _bad(where + ".offset", "an unsigned integer", f_offset)
    f_length = v[5]
    if type(f_length) is not int or f_length < 0:
        raise _bad(where + ".length", "an unsigned integer", f_length)
    return tuple.__new__(Pinned, (f_name, f_nonce, f_size, f_offset, f_length,))


class Call(tuple):
    """One call of a request (client DEALER -> worker ROUTER; a request's first frame is an array of
them, its bulk frames follow, each call claiming the next `nbulk`). `sync`: 0 async, 1 sync, or one of
the copy kinds PIECE_IN, SYNC_PIECES_OUT, OUT_LATER (constants.toml). `copy`: how a same-host copy's data
moves instead of in frames. `seq` is written 4 bytes wide at least by the client library (uint(wide)):
a loop's successive messages then differ in their seqs' bytes alone, not in where everything after
them lies, and a --failover session's log keeps each head as its differences from an earlier one
(libhook/src/transport/log_delta.h); any msgpack unsigned integer is read."""
    __slots__ = ()
    FIELDS = ('seq', 'call_id', 'sync', 'args', 'nbulk', 'copy')
    seq = property(_itemgetter(0))
    call_id = property(_itemgetter(1))
    sync = property(_itemgetter(2))
    args = property(_itemgetter(3))
    nbulk = property(_itemgetter(4))
    copy = property(_itemgetter(5))

    def __new__(cls, seq, call_id, sync, args, nbulk, copy=None):
        return tuple.__new__(cls, (seq, call_id, sync, args, nbulk, copy,))

    def __repr__(self):
        return "Call(" + ", ".join(f"{n}={v!r}" for n, v in zip(self.FIELDS, self)) + ")"


def write_call(r) -> list:
    """Call as the array that goes on the wire."""
    v = [r[0], r[1], r[2], list(r[3]), r[4]]
    if r[5] is None:
        return v
    v.append(r[5].write())
    return v


Call.write = write_call


def read_call(v, where: str = "call") -> Call:
    """Call from a decoded msgpack value; MalformedMessage naming the field that fails."""
    if type(v) is not list or not 5 <= len(v) <= 6:
        raise _bad(where, "an array of 5 to 6 elements", v)
    f_seq = v[0]
    if type(f_seq) is not int or f_seq < 0:
        raise _bad(where + ".seq", "an unsigned integer", f_seq)
    f_call_id = v[1]
    if type(f_call_id) is not int or f_call_id < 0:
        raise _bad(where + ".call_id", "an unsigned integer", f_call_id)
    f_sync = v[2]
    if type(f_sync) not in _INTS or not 0 <= f_sync <= 4:
        raise _bad(where + ".sync", "an integer from 0 to 4", f_sync)
    f_args = v[3]
    if type(f_args) is not list:
        raise _bad(where + ".args", "an array", f_args)
    _args_ok(f_args, where + ".args")
    f_nbulk = v[4]
    if type(f_nbulk) is not int or f_nbulk < 0:
        raise _bad(where + ".nbulk", "an unsigned integer", f_nbulk)
    f_copy = v[5] if len(v) > 5 else None
    if f_copy is not None:
        f_copy = _read_copy(f_copy, where + ".copy")
    return tuple.__new__(Call, (f_seq, f_call_id, f_sync, f_args, f_nbulk, f_copy,))


def _read_copy(v, where):
    """One of shm, staged, pinned, chosen by its tag."""
    if type(v) is not list or not v or type(v[0]) is not int:
        raise _bad(where, "a tagged array: shm (1) or staged (2) or pinned (3)", v)
    read = _COPY_TAGS.get(v[0])
    if read is None:
        raise _bad(where, "a known tag: shm (1) or staged (2) or pinned (3)", v[0])
    return read(v, where)


class Reply(tuple):
    """The reply to a sync call (and the worker's notices, seq 0: SESSION_ENDED, MOVED; and PIECE_OUT,
LATE_OUT data): its result, outs, the deferred error of an earlier async call, the message, the device
printf text since the last reply, and `regions` where its bulk data is in the session segment instead
of in frames."""
    __slots__ = ()
    FIELDS = ('seq', 'result', 'outs', 'deferred', 'message', 'output', 'regions')
    seq = property(_itemgetter(0))
    result = property(_itemgetter(1))
    outs = property(_itemgetter(2))
    deferred = property(_itemgetter(3))
    message = property(_itemgetter(4))
    output = property(_itemgetter(5))
    regions = property(_itemgetter(6))

    def __new__(cls, seq, result, outs, deferred, message, output, regions=None):
        return tuple.__new__(cls, (seq, result, outs, deferred, message, output, regions,))

    def __repr__(self):
        return "Reply(" + ", ".join(f"{n}={v!r}" for n, v in zip(self.FIELDS, self)) + ")"


def write_reply(r) -> list:
    """Reply as the array that goes on the wire."""
    v = [r[0], r[1], list(r[2]), r[3], r[4], r[5]]
    if r[6] is None:
        return v
    v.append([write_region(e) for e in r[6]])
    return v


Reply.write = write_reply


def read_reply(v, where: str = "reply") -> Reply:
    """Reply from a decoded msgpack value; MalformedMessage naming the field that fails."""
    if type(v) is not list or not 6 <= len(v) <= 7:
        raise _bad(where, "an array of 6 to 7 elements", v)
    f_seq = v[0]
    if type(f_seq) is not int or f_seq < 0:
        raise _bad(where + ".seq", "an unsigned integer", f_seq)
    f_result = v[1]
    if type(f_result) is not int:
        raise _bad(where + ".result", "an integer", f_result)
    f_outs = v[2]
    if type(f_outs) is not list:
        raise _bad(where + ".outs", "an array", f_outs)
    _args_ok(f_outs, where + ".outs")
    f_deferred = v[3]
    if type(f_deferred) is not int:
        raise _bad(where + ".deferred", "an integer", f_deferred)
    f_message = v[4]
    if type(f_message) is not str or len(f_message) > 16777216:
        raise _bad(where + ".message", "a string of at most 16777216 bytes", f_message)
    f_output = v[5]
    if type(f_output) is not str or len(f_output) > 16777216:
        raise _bad(where + ".output", "a string of at most 16777216 bytes", f_output)
    f_regions = v[6] if len(v) > 6 else None
    if f_regions is not None:
        if type(f_regions) is not list or len(f_regions) > 4096:
            raise _bad(where + ".regions", "an array of at most 4096 region", f_regions)
        f_regions = [read_region(x, where + ".regions") for x in f_regions]
    return tuple.__new__(Reply, (f_seq, f_result, f_outs, f_deferred, f_message, f_output, f_regions,))


class PieceOut(tuple):
    """The outs of a PIECE_OUT reply: where the piece's data (its one frame) goes in the copy."""
    __slots__ = ()
    FIELDS = ('offset',)
    offset = property(_itemgetter(0))

    def __new__(cls, offset):
        return tuple.__new__(cls, (offset,))

    def __repr__(self):
        return "PieceOut(" + ", ".join(f"{n}={v!r}" for n, v in zip(self.FIELDS, self)) + ")"


def write_piece_out(r) -> list:
    """PieceOut as the array that goes on the wire."""
    return [r[0]]


PieceOut.write = write_piece_out


def read_piece_out(v, where: str = "piece_out") -> PieceOut:
    """PieceOut from a decoded msgpack value; MalformedMessage naming the field that fails."""
    if type(v) is not list or not len(v) == 1:
        raise _bad(where, "an array of 1 elements", v)
    f_offset = v[0]
    if type(f_offset) is not int or f_offset < 0:
        raise _bad(where + ".offset", "an unsigned integer", f_offset)
    return tuple.__new__(PieceOut, (f_offset,))


class Moved(tuple):
    """The outs of a MOVED notice (seq 0): where the session went (server/migration) and the seq of the
last call the old worker ran; the client attaches there and resends what came after."""
    __slots__ = ()
    FIELDS = ('url', 'endpoint', 'session', 'key', 'last_seq')
    url = property(_itemgetter(0))
    endpoint = property(_itemgetter(1))
    session = property(_itemgetter(2))
    key = property(_itemgetter(3))
    last_seq = property(_itemgetter(4))

    def __new__(cls, url, endpoint, session, key, last_seq):
        return tuple.__new__(cls, (url, endpoint, session, key, last_seq,))

    def __repr__(self):
        return "Moved(" + ", ".join(f"{n}={v!r}" for n, v in zip(self.FIELDS, self)) + ")"


def write_moved(r) -> list:
    """Moved as the array that goes on the wire."""
    return [r[0], r[1], r[2], r[3], r[4]]


Moved.write = write_moved


def read_moved(v, where: str = "moved") -> Moved:
    """Moved from a decoded msgpack value; MalformedMessage naming the field that fails."""
    if type(v) is not list or not len(v) == 5:
        raise _bad(where, "an array of 5 elements", v)
    f_url = v[0]
    if type(f_url) is not str or len(f_url) > 4096:
        raise _bad(where + ".url", "a string of at most 4096 bytes", f_url)
    f_endpoint = v[1]
    if type(f_endpoint) is not str or len(f_endpoint) > 4096:
        raise _bad(where + ".endpoint", "a string of at most 4096 bytes", f_endpoint)
    f_session = v[2]
    if type(f_session) is not str or len(f_session) > 4096:
        raise _bad(where + ".session", "a string of at most 4096 bytes", f_session)
    f_key = v[3]
    if type(f_key) is not str or len(f_key) > 4096:
        raise _bad(where + ".key", "a string of at most 4096 bytes", f_key)
    f_last_seq = v[4]
    if type(f_last_seq) is not int or f_last_seq < 0:
        raise _bad(where + ".last_seq", "an unsigned integer", f_last_seq)
    return tuple.__new__(Moved, (f_url, f_endpoint, f_session, f_key, f_last_seq,))


class Sealed(tuple):
    """A frame of a message whose data travels beside the session socket instead: it stands in the
message where the data frame was. The channel's name (random, told the worker in the attach), the
direction (0 client to worker, 1 worker to client), the sender's count of such frames in that direction
and the data's length. Beside a CURVE wire, the bulk channel (server/bulk.py, libhook/src/transport/
bulk.c) carries the same bytes, then the data sealed with them as associated data, the count its AEAD
nonce (never used twice under the channel's key). Beside a plain wire, the data stream (server/
data_stream.py, libhook/src/transport/data_stream.c) carries the data alone, after the message, in the
order of the counts."""
    __slots__ = ()
    FIELDS = ('channel', 'dir', 'counter', 'length')
    channel = property(_itemgetter(0))
    dir = property(_itemgetter(1))
    counter = property(_itemgetter(2))
    length = property(_itemgetter(3))

    def __new__(cls, channel, dir, counter, length):
        return tuple.__new__(cls, (channel, dir, counter, length,))

    def __repr__(self):
        return "Sealed(" + ", ".join(f"{n}={v!r}" for n, v in zip(self.FIELDS, self)) + ")"


def write_sealed(r) -> list:
    """Sealed as the array that goes on the wire."""
    return [r[0], r[1], r[2], r[3]]


Sealed.write = write_sealed


def read_sealed(v, where: str = "sealed") -> Sealed:
    """Sealed from a decoded msgpack value; MalformedMessage naming the field that fails."""
    if type(v) is not list or not len(v) == 4:
        raise _bad(where, "an array of 4 elements", v)
    f_channel = v[0]
    if type(f_channel) is not bytes or len(f_channel) != 16:
        raise _bad(where + ".channel", "16 bytes", f_channel)
    f_dir = v[1]
    if type(f_dir) not in _INTS or not 0 <= f_dir <= 1:
        raise _bad(where + ".dir", "an integer from 0 to 1", f_dir)
    f_counter = v[2]
    if type(f_counter) is not int or f_counter < 0:
        raise _bad(where + ".counter", "an unsigned integer", f_counter)
    f_length = v[3]
    if type(f_length) is not int or f_length < 0:
        raise _bad(where + ".length", "an unsigned integer", f_length)
    return tuple.__new__(Sealed, (f_channel, f_dir, f_counter, f_length,))


class HeadDelta(tuple):
    """A message whose head travels as its differences from an earlier head (constants.toml,
HEAD_DELTA_MIN): the message's first frame is empty, this record is the second, the differences the
third (a bitmap of the head's 32-byte blocks that differ, then those blocks: libhook/src/transport/
log_delta.h), then the message's frames. `length` is the head's, which names the slot of the base;
`base` the base's first 16 bytes, which hold the seq of its first call (seqs are not used twice in a
session): a worker whose slot holds another head refuses the message instead of running wrong calls."""
    __slots__ = ()
    FIELDS = ('length', 'base')
    length = property(_itemgetter(0))
    base = property(_itemgetter(1))

    def __new__(cls, length, base):
        return tuple.__new__(cls, (length, base,))

    def __repr__(self):
        return "HeadDelta(" + ", ".join(f"{n}={v!r}" for n, v in zip(self.FIELDS, self)) + ")"


def write_head_delta(r) -> list:
    """HeadDelta as the array that goes on the wire."""
    return [r[0], r[1]]


HeadDelta.write = write_head_delta


def read_head_delta(v, where: str = "head_delta") -> HeadDelta:
    """HeadDelta from a decoded msgpack value; MalformedMessage naming the field that fails."""
    if type(v) is not list or not len(v) == 2:
        raise _bad(where, "an array of 2 elements", v)
    f_length = v[0]
    if type(f_length) is not int or f_length < 0:
        raise _bad(where + ".length", "an unsigned integer", f_length)
    f_base = v[1]
    if type(f_base) is not bytes or len(f_base) != 16:
        raise _bad(where + ".base", "16 bytes", f_base)
    return tuple.__new__(HeadDelta, (f_length, f_base,))


_COPY_TAGS = {1: read_shm, 2: read_staged, 3: read_pinned}

def decode_calls(frames: list) -> list[tuple]:
    """A request's calls as (seq, call_id, sync, args, bulk frames, copy) tuples, every call checked
    against its record and every frame claimed before any runs; MalformedMessage otherwise. `copy` is
    None or one of the `call.copy` records. The common call (no copy) is checked inline."""
    if not frames:
        raise MalformedMessage("empty message")
    try:
        calls = _unpackb(frames[0], raw=False, strict_map_key=False)
    except Exception as e:  # msgpack raises several types for bad input
        raise MalformedMessage(f"header is not msgpack: {e}") from None
    if type(calls) is not list:
        raise MalformedMessage(f"header must be an array of calls, got {_summary(calls)}")
    nframes, used, out = len(frames) - 1, 0, []
    for c in calls:
        if type(c) is list and len(c) == 5:
            seq, call_id, sync, args, nbulk = c
            copy = None
            if (type(seq) is int and seq >= 0
                    and type(call_id) is int and call_id >= 0
                    and type(sync) is int and 0 <= sync <= 4
                    and type(args) is list
                    and type(nbulk) is int and nbulk >= 0):
                for a in args:
                    if type(a) in _CONTAINERS:
                        _args_ok(args, "call.args")
                        break
            else:
                seq, call_id, sync, args, nbulk, copy = read_call(c)
        else:
            seq, call_id, sync, args, nbulk, copy = read_call(c)
        if nbulk > nframes - used:
            raise MalformedMessage(f"call.nbulk: call {seq} claims {nbulk} bulk frames, {nframes - used} are left")
        out.append((seq, call_id, sync, args, frames[1 + used:1 + used + nbulk] if nbulk else (), copy))
        used += nbulk
    if used != nframes:
        raise MalformedMessage(f"{nframes - used} bulk frames not claimed by any call")
    return out


def encode_calls(calls) -> bytes:
    """A request's first frame: `calls` are Call records or (seq, call_id, sync, args, nbulk[, copy])."""
    return _packb([write_call(c if type(c) is Call else Call(*c)) for c in calls], use_bin_type=True)


_OK_TAIL = b'\x00\x90\x00\xa0\xa0'  # every field after the first at its default


def encode_reply(seq, result=0, outs=(), deferred=0, message='', output='', regions=None) -> bytes:
    """A reply record's bytes; the common one (success, nothing else) packed without msgpack."""
    if regions is None and not (result or outs or deferred or message or output):
        return b'\x96' + _packb(seq) + _OK_TAIL
    v = [seq, result, list(outs), deferred, message, output]
    if regions is not None:
        v.append([list(e) for e in regions])
    return _packb(v, use_bin_type=True)


def decode_reply(data) -> Reply:
    """A reply's first frame as a Reply record; MalformedMessage on anything else."""
    try:
        value = _unpackb(data, raw=False, strict_map_key=False)
    except Exception as e:
        raise MalformedMessage(f"reply is not msgpack: {e}") from None
    return read_reply(value)
