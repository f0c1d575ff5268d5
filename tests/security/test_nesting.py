"""Issue 39, attack 1: a small request nested deep ends no daemon. A 1 KB msgpack map whose
``cmd`` is a list nested 1000 deep used to end ``rgpu-controller`` (its error path called
``str()`` on the request, which raised RecursionError outside every handler), and the same nesting
ended the sender's session worker. Every decoder now refuses values nested deeper than
``protocol.limits.MAX_DEPTH`` where the message enters, with a plain error reply, and the daemon
serves on."""
from __future__ import annotations

import msgpack
import pytest
import zmq

from rgpu.protocol import curve, limits, wire
from rgpu.protocol.generated.calltable import BY_NAME
from tests.security.test_server_wire import _token, _uuid
from tests.support.controller import CONTROLLER_KEY
from tests.support.session import Session, connect, exchange


def nested(depth: int, leaf=0):
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def raw_nested(depth: int, prefix: bytes = b"") -> bytes:
    """msgpack bytes of a list nested ``depth`` deep (msgpack's packer refuses to write past 512)."""
    return prefix + b"\x91" * depth + b"\x00"


def nested_map(depth: int):
    value = 0
    for _ in range(depth):
        value = {"k": value}
    return value


@pytest.mark.parametrize("depth", [64, 1000, 5000])
def test_check_depth_refuses_deep_values_without_recursing(depth):
    with pytest.raises(limits.TooDeep):
        limits.check_depth(nested(depth))
    with pytest.raises(limits.TooDeep):
        limits.check_depth({"cmd": nested_map(depth)})
    limits.check_depth(nested(limits.MAX_DEPTH - 1))       # the limit itself is allowed


def test_unpack_refuses_deep_and_garbage_input_with_one_error_type():
    for payload in (msgpack.packb({"cmd": nested(1000)}), b"\xc1", b"\x91" * 3000 + b"\x00", b"\xdd\xff\xff\xff\xff"):
        with pytest.raises(wire.MalformedMessage):
            limits.unpack(payload)
    assert limits.unpack(msgpack.packb({"cmd": "ping", "x": nested(8)})) == {"cmd": "ping", "x": nested(8)}


def _controller_socket(controller, keys):
    s = zmq.Context.instance().socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    curve.as_client(s, keys, CONTROLLER_KEY)
    s.connect(controller.url)
    return s


def test_a_deeply_nested_request_does_not_end_the_controller(controller):
    sock = _controller_socket(controller, controller.admin().keys)
    try:
        for req in (raw_nested(1000, b"\x81\xa3cmd"), raw_nested(400, b"\x82\xa3cmd\xa4ping\xa2id"),
                    msgpack.packb({"cmd": nested_map(400)}), msgpack.packb({"cmd": "reserve", "memory": nested(300)}),
                    raw_nested(1000), raw_nested(100000, b"\x81\xa3cmd")):
            sock.send(req)
            assert sock.poll(10000), "the controller did not answer a nested request"
            reply = msgpack.unpackb(sock.recv(), raw=False)
            assert reply["ok"] is False and reply["error"] == "bad_request", reply
        assert controller.handle.alive()
        sock.send(msgpack.packb({"cmd": "ping", "id": 7}))
        assert sock.poll(10000)
        reply = msgpack.unpackb(sock.recv(), raw=False)
        assert reply["ok"] is True and reply["id"] == 7
    finally:
        sock.close(0)
    with controller.client() as admin:
        assert admin.ping()["ok"]


def test_a_deeply_nested_call_ends_neither_the_worker_nor_the_supervisor(secret_server):
    plain_url, url, handle = secret_server()
    token = _token(plain_url, _uuid(url))
    # the supervisor: a nested hello
    sup = connect(url)
    try:
        for hello in (raw_nested(1000, b"\x81\xa2op"), raw_nested(1000, b"\x82\xa2op\xa5hello\xa5lease"),
                      raw_nested(3000)):
            got = exchange(sup, [hello], 10)
            assert got is not None, "the supervisor did not answer a nested hello"
            assert wire.unpack(got[0])["ok"] is False
    finally:
        sup.close(0)
    # the worker: a call whose arguments, or whose entry, nest deep
    session = Session(url, lease=token)
    rc, (ptr,), _, _ = session.call("cudaMalloc", 4096)
    assert rc == 0
    malloc = BY_NAME["cudaMalloc"]
    for frames in ([wire.pack([[1000, malloc, 1, [nested(400)], 0]])],
                   [raw_nested(1000, b"\x91")], [raw_nested(3000)], [wire.pack([[1001, malloc, nested(400), [], 0]])]):
        got = exchange(session.sock, frames, 10)
        assert got is not None, "the worker did not answer a nested call"
    # the session is still served, and the server opens new ones
    assert session.call("cudaMemcpy", ptr, 0, 4, 1, bulk=[b"good"])[0] == 0
    rc, _, back, _ = session.call("cudaMemcpy", 0, ptr, 4, 2)
    assert (rc, b"".join(back)) == (0, b"good")
    session.close()
    fresh = Session(url, lease=token)
    assert fresh.call("cudaMalloc", 4096)[0] == 0
    fresh.close()
    assert handle.alive()
