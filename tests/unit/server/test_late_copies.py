"""The worker's side of async copies into pinned memory it does not map (wire.OUT_LATER, issue 37):
the copy runs in its place and its data goes ahead of the next sync call's reply, as a LATE_OUT
message of its own; past LATE_MAX_COPIES waiting copies a copy fails, its error deferred to that
reply as an async call's is (a client keeps below it: libhook/src/transport/copy_late.c)."""
from __future__ import annotations

import mmap
import os

import structlog
import zmq

from rgpu.protocol import wire
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.server.backends.sim.device import SimDevice
from rgpu.server.dispatch import Dispatcher
from rgpu.server.pinned import PinnedHost
from rgpu.server.session import Session
from rgpu.server.shm import DATA, Segment
from rgpu.server.worker import _serve
from tests.support import segments

DTOH_ASYNC, SYNC = BY_NAME["cuMemcpyDtoHAsync_v2"], BY_NAME["cuStreamSynchronize"]
HTOD, MEMSET, ALLOC = BY_NAME["cuMemcpyHtoD_v2"], BY_NAME["cuMemsetD8_v2"], BY_NAME["cuMemAlloc_v2"]


class Sock:
    """What _serve sends, message by message (the identity dropped)."""

    def __init__(self):
        self.messages, self._part = [], []

    def send(self, data, flags=0):
        self._part.append(bytes(data))
        if not flags & zmq.SNDMORE:
            self.messages.append(self._part[1:])
            self._part = []

    def send_multipart(self, frames, copy=True):
        self.messages.append([bytes(f) for f in frames[1:]])


def serve(session, sock, calls, frames=()):
    """`calls` as lists, or as the envelope encodes them (bytes)."""
    session.messages += 1
    head = calls if isinstance(calls, bytes) else wire.pack(calls)
    assert _serve(sock, b"id", [zmq.Frame(head), *map(zmq.Frame, frames)], session,
                  Dispatcher("sim"), structlog.get_logger())


def alloc(session, sock, n: int) -> int:
    serve(session, sock, [[100, ALLOC, 1, [n], 0]])
    (reply,) = sock.messages.pop()
    return wire.unpack(reply)[2][0]


def test_a_late_copy_s_data_comes_before_the_next_reply_with_what_the_device_held_then():
    s, sock = Session(SimDevice(1 << 24)), Sock()
    addr = alloc(s, sock, 4096)
    serve(s, sock, [[1, HTOD, 0, [addr, 4096], 1]], [bytes(range(256)) * 16])
    # the copy, then the memory changed behind it, then a wait: the copy's data is what it read
    serve(s, sock, [[2, DTOH_ASYNC, wire.OUT_LATER, [addr, 4096, 0], 0], [3, MEMSET, 0, [addr, 7, 4096], 0]])
    assert sock.messages == [] and len(s.later) == 1
    serve(s, sock, [[4, SYNC, 1, [0], 0]])
    (late_head, data), (reply,) = sock.messages
    assert wire.unpack(late_head)[:2] == [2, wire.LATE_OUT] and data == bytes(range(256)) * 16
    assert wire.unpack(reply)[:4] == [4, 0, [], 0] and s.later == []


def test_past_the_limit_a_late_copy_fails_and_its_error_comes_with_the_reply():
    s, sock = Session(SimDevice(1 << 24)), Sock()
    addr = alloc(s, sock, 4096)
    copies = [[k + 1, DTOH_ASYNC, wire.OUT_LATER, [addr, 16, 0], 0] for k in range(wire.LATE_MAX_COPIES + 1)]
    serve(s, sock, copies + [[wire.LATE_MAX_COPIES + 2, SYNC, 1, [0], 0]])
    *late, (reply,) = sock.messages
    assert [wire.unpack(m[0])[0] for m in late] == list(range(1, wire.LATE_MAX_COPIES + 1))
    seq, rc, _, deferred, message = wire.unpack(reply)[:5]
    assert (seq, rc, deferred) == (wire.LATE_MAX_COPIES + 2, 0, 1) and "wait to go with the next reply" in message


def test_a_late_copy_naming_pinned_memory_here_is_written_there_before_the_next_reply_and_sends_nothing():
    s, sock = Session(SimDevice(1 << 24)), Sock()
    s.shm, s.pinned = Segment(mmap.mmap(-1, DATA + 4096), DATA + 4096), PinnedHost(s)  # the same host
    name, size = f"/rgpu-{os.getpid()}-h{os.urandom(8).hex()}", DATA + 65536
    nonce = segments.make(name, size)
    try:
        addr = alloc(s, sock, 4096)
        serve(s, sock, [[1, HTOD, 0, [addr, 4096], 1]], [bytes(range(256)) * 16])
        # the copy into [DATA + 512, +4096) of the segment, then the memory changed behind it
        serve(s, sock, wire.encode_requests([(2, DTOH_ASYNC, wire.OUT_LATER, [addr, 4096, 0], 0,
                                              wire.Pinned(name, nonce, size, DATA + 512, 4096)),
                                             (3, MEMSET, 0, [addr, 7, 4096], 0)]))
        assert sock.messages == [] and s.later == []
        with open("/dev/shm" + name, "rb") as f:
            assert os.pread(f.fileno(), 4096, DATA + 512) == bytes(range(256)) * 16
        assert s.pinned.bytes_out == 4096
        serve(s, sock, [[4, SYNC, 1, [0], 0]])
        (reply,), = sock.messages  # the reply alone: no LATE_OUT ahead of it
        assert wire.unpack(reply)[:4] == [4, 0, [], 0]
        sock.messages.clear()
        # a region outside the segment: the copy fails, its error deferred to the next reply
        serve(s, sock, wire.encode_requests([(5, DTOH_ASYNC, wire.OUT_LATER, [addr, 4096, 0], 0,
                                              wire.Pinned(name, nonce, size, size - 100, 4096)),
                                             (6, SYNC, 1, [0], 0)]))
        (reply,), = sock.messages
        seq, rc, _, deferred, message = wire.unpack(reply)[:5]
        assert (seq, rc, deferred) == (6, 0, 1) and "outside" in message, message
    finally:
        s.pinned.close()
        segments.unlink(name)
