"""server/pieces.py's D2H pieces, against a fake device and socket: the offsets and data a client is sent,
and a copy the socket's door began (its first pieces sent from compiled code: server/native/serve.c
d2h_out) sent on from where it stopped, not again from its start."""
from __future__ import annotations

import types

from rgpu.protocol import wire
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.protocol.generated.constants import PIECE_MIN
from rgpu.server.dispatch import Result
from rgpu.server.pieces import piece_size, run_d2h_pieces

BASE = 1 << 32
MEM = bytes(i * 7 % 251 for i in range(10 << 20))  # 10 MiB of device memory: pieces of 2 MiB


class _Device:
    def allocation(self, addr):
        return (BASE, len(MEM)) if BASE <= addr < BASE + len(MEM) else None


class _Sock:
    def __init__(self):
        self.sent = []

    def send_multipart(self, frames, copy=True):
        self.sent.append([bytes(f) for f in frames])


def _run(session, call_id, args, bulk):
    src, n = args[0], args[1]
    session.runs.append((src - BASE, n))
    return Result(0, bulk=(MEM[src - BASE:src - BASE + n],))


def _copy(start: int):
    session = types.SimpleNamespace(device=_Device(), d2h_sent=start, bytes_out=0, pieces_out=0, runs=[])
    sock = _Sock()
    res = run_d2h_pieces(sock, b"id", 9, session, _run, BY_NAME["cuMemcpyDtoH_v2"], [BASE, len(MEM)])
    offsets = [wire.unpack(f[1])[2][0] for f in sock.sent]
    assert all(f[0] == b"id" and wire.unpack(f[1])[:2] == [9, wire.PIECE_OUT] for f in sock.sent)
    return session, offsets, b"".join(f[2] for f in sock.sent) + bytes(res.bulk[0]), res


def test_a_d2h_copy_goes_in_pieces_at_their_offsets():
    size = piece_size(len(MEM))
    assert size == PIECE_MIN // 2
    session, offsets, data, res = _copy(0)
    assert res.rc == 0 and data == MEM
    assert offsets == list(range(0, len(MEM) - size, size))
    assert session.pieces_out == len(offsets) == 4 and session.bytes_out == len(MEM) - size


def test_a_copy_the_door_began_is_sent_on_from_where_it_stopped():
    size = piece_size(len(MEM))
    session, offsets, data, res = _copy(2 * size)  # the door sent two pieces, then stopped
    assert res.rc == 0 and data == MEM[2 * size:]
    assert offsets == [2 * size, 3 * size] and session.runs[0] == (2 * size, size)
    assert session.pieces_out == 2 and session.d2h_sent == 0  # taken: the next copy starts at 0
    session, offsets, data, _ = _copy(4 * size)  # it sent all but the last (its reply must carry printf output)
    assert offsets == [] and data == MEM[4 * size:] and session.runs == [(4 * size, size)]
