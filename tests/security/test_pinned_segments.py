"""Pinned host memory a worker maps (server/pinned.py): a client can make the worker map only a
segment whose nonce it knows — the one its own library wrote — and only regions of it past the nonce
page; names not of the client library's form (paths out of /dev/shm, session segments) are refused.
The segments are 0600, so a client of another user cannot open them at all."""
from __future__ import annotations

import os

import pytest
import zmq

from rgpu.protocol import wire
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.server.shm import boot_id
from tests.support import segments

pytestmark = pytest.mark.e2e


def _session(url):
    """A raw session with a genuine same-host segment (as the client library offers one)."""
    from rgpu.client.server_client import request
    r = request(url, {"op": "hello", "proto": wire.PROTOCOL_VERSION, "client": "test", "cuda": 13000,
                      "lease": "", "gpu": 0})
    assert r["ok"], r
    name = f"/rgpu-{os.getpid()}-0-{os.urandom(4).hex()}"
    nonce = segments.make(name, 1 << 20)
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(r["endpoint"].replace("tcp://*:", "tcp://127.0.0.1:"))
    offer = {"name": name, "size": 1 << 20, "nonce": nonce, "boot": boot_id()}
    sock.send(wire.encode_requests([(1, wire.ATTACH, 1, [r["session"], r["key"], offer], 0)]))
    assert sock.poll(10000)
    reply = wire.unpack(sock.recv_multipart()[0])
    segments.unlink(name)
    assert reply[2][0] is True, reply
    return sock


def _pinned_segment(size=1 << 16, pid=None):
    name = f"/rgpu-{pid or os.getpid()}-h{os.urandom(8).hex()}"
    nonce = segments.make(name, size)
    with open("/dev/shm" + name, "r+b") as f:  # the program's memory begins after the nonce page
        f.seek(4096)
        f.write(b"z" * 64)
    return name, nonce, size


def _call(sock, seq, call, args, pin):
    sock.send(wire.encode_requests([(seq, BY_NAME[call], 1, args, 0, wire.Pinned(*pin))]))
    assert sock.poll(10000)
    return wire.unpack(sock.recv_multipart()[0])


def test_a_stranger_cannot_make_a_worker_map_a_segment(start_server):
    """Only the nonce the segment's creator wrote opens it: a client naming another's segment (the
    same user could open it, a worker of any user's server would try) is refused, and so are names
    not of the client library's form, paths out of /dev/shm, regions outside the segment."""
    url, handle = start_server()
    sock = _session(url)
    name, nonce, size = _pinned_segment()
    try:
        seq, rc, outs, *_ = wire.unpack(_raw(sock, 2, "cudaMalloc", [4096]))
        addr = outs[0]
        reply = _call(sock, 3, "cudaMemcpy", [addr, 0, 64, 1], [name, b"w" * 16, size, 4096, 64])
        assert reply[1] != 0 and "nonce differs" in reply[4], reply
        for bad in ("/../etc/passwd", "/rgpu-1-hdeadbeef", name + "/x", "/rgpu-1-0-deadbeef"):
            assert _call(sock, 4, "cudaMemcpy", [addr, 0, 64, 1], [bad, nonce, size, 4096, 64])[1] != 0
        assert _call(sock, 5, "cudaMemcpy", [addr, 0, 64, 1], [name, nonce, size, 0, 64])[1] != 0  # the nonce page
        assert _call(sock, 6, "cudaMemcpy", [addr, 0, 64, 1], [name, nonce, size, size - 32, 64])[1] != 0
        assert _call(sock, 7, "cudaMemcpy", [addr, 0, 64, 1], [name, nonce, size + 4096, 4096, 64])[1] != 0
        # the genuine reference works: the bytes come from the segment
        assert _call(sock, 8, "cudaMemcpy", [addr, 0, 64, 1], [name, nonce, size, 4096, 64])[1] == 0
        frames = _raw(sock, 9, "cudaMemcpy", [0, addr, 64, 2], frames=True)
        assert bytes(frames[1]) == b"z" * 64
        # a call whose record does not allow the same-host path cannot name one
        assert _call(sock, 10, "cudaMemset", [addr, 0, 64], [name, nonce, size, 4096, 64])[1] != 0
    finally:
        segments.unlink(name)
        sock.close()


def _raw(sock, seq, call, args, frames=False):
    sock.send(wire.encode_requests([(seq, BY_NAME[call], 1, args, 0)]))
    assert sock.poll(10000)
    got = sock.recv_multipart()
    return got if frames else got[0]


def test_a_staged_copy_to_a_bad_address_is_refused_at_once_not_waited_for(start_server):
    """A progressively staged copy (RGPU_SHM_PIPELINE) whose destination is outside any allocation is
    refused before the worker waits for data that a client may never stage."""
    import time
    url, _handle = start_server()
    sock = _session(url)
    try:
        t0 = time.monotonic()
        sock.send(wire.encode_requests([(2, BY_NAME["cudaMemcpy"], 1, [0xdead0000, 0, 512 << 10, 1], 0,
                                         wire.Staged([[4096, 512 << 10]], 0, 2))]))
        assert sock.poll(5000)
        reply = wire.unpack(sock.recv_multipart()[0])
        assert reply[0] == 2 and reply[1] != 0 and time.monotonic() - t0 < 5
    finally:
        sock.close()
