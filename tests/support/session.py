"""A session opened from Python as the client library opens one — hello to the supervisor, attach
to the worker, calls by name — over a plain or a CURVE wire (for tests that play a client, or an
attacker, at the protocol level)."""
from __future__ import annotations

import itertools

import zmq

from rgpu.protocol import curve, wire
from rgpu.protocol.generated.calltable import BY_NAME


class Refused(Exception):
    def __init__(self, reply: dict):
        super().__init__(reply.get("message"))
        self.reply = reply


def connect(url: str, keys: curve.Keypair | None = None, server_key: bytes | None = None) -> zmq.Socket:
    """A DEALER to ``url`` (``URL@KEY`` or ``server_key`` make it CURVE, as ``keys``)."""
    address, key = curve.split_server_url(url)
    key = key or server_key
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    if key is not None:
        curve.as_client(sock, keys or curve.new_keypair(), key)
    sock.connect(address.split("#", 1)[0])
    return sock


def exchange(sock: zmq.Socket, frames: list, timeout_s: float = 10.0) -> list[bytes] | None:
    sock.send_multipart(frames)
    if not sock.poll(int(timeout_s * 1000)):
        return None
    return sock.recv_multipart()


class Session:
    """hello + attach; ``call(name, *args, bulk=[...])`` -> (rc, outs, bulk frames, message)."""

    def __init__(self, url: str, lease: str = "", gpu: int = 0, vgpu: int | None = None,
                 keys: curve.Keypair | None = None, timeout_s: float = 30.0, route=None, window: int | None = None):
        """``route(endpoint) -> url``: where to reach the worker instead (a relay in between);
        ``window``: the address window asked for (the hello's, as the client library sends)."""
        self.url, self.timeout_s = url, timeout_s
        address, self.server_key = curve.split_server_url(url)
        self.keys = keys or (curve.new_keypair() if self.server_key else None)
        hello = {"op": "hello", "proto": wire.PROTOCOL_VERSION, "client": "test", "cuda": 13000,
                 "lease": lease, "gpu": gpu}
        if vgpu is not None:
            hello["vgpu"] = vgpu
        if window is not None:
            hello["window"] = window
        sup = connect(url, self.keys)
        try:
            got = exchange(sup, [wire.pack(hello)], timeout_s)
        finally:
            sup.close(0)
        if got is None:
            raise TimeoutError(f"{url} did not answer the hello")
        reply = wire.unpack(got[0])
        if not reply.get("ok"):
            raise Refused(reply)
        self._seq = itertools.count(1)
        self.route = route
        self.moves = 0
        self._attach(address, reply["endpoint"], reply["session"], reply["key"])

    def _attach(self, address: str, endpoint: str, session: str, key: str) -> None:
        self.session, self.key = session, key
        host = address.split("#", 1)[0].rsplit(":", 1)[0]
        self.endpoint = endpoint.replace("tcp://*", host)
        self.sock = connect(self.route(self.endpoint) if self.route else self.endpoint, self.keys, self.server_key)
        rc, *_ = self.raw_call(wire.ATTACH, [self.session, self.key])
        if rc != 0:
            raise Refused({"message": f"attach refused: {rc}"})

    def _follow(self, outs: list) -> int:
        """The session moved (a MOVED notice): attach where it went, as the client library does;
        returns the seq of the last call the old worker ran."""
        url, endpoint, session, key, done = outs
        address, self.server_key = curve.split_server_url(url.split("#", 1)[0])
        self.sock.close(0)
        self._attach(address, endpoint, session, key)
        self.moves += 1
        return done

    def raw_call(self, call_id: int, args: list, bulk: list = (), sync: bool = True, field: int | None = None):
        """`field`: the call's `sync` field as sent, when not 1/0 (wire.PIECE_IN, wire.SYNC_PIECES_OUT)."""
        seq = next(self._seq)
        field = int(sync) if field is None else field
        frames = [wire.encode_requests([(seq, call_id, field, list(args), len(bulk))]), *bulk]
        if not sync:
            self.sock.send_multipart(frames)
            return None
        got = exchange(self.sock, frames, self.timeout_s)
        while True:
            if got is None:
                raise TimeoutError("the worker did not answer")
            head = wire.unpack(got[0])
            if head[0] == 0 and head[1] == wire.MOVED:
                done = self._follow(head[2])
                got = exchange(self.sock, frames, self.timeout_s) if seq > done else self._wait(seq)
                continue
            if head[0] != seq:
                got = self._wait(seq)  # a reply to something else (a notice already followed)
                continue
            return head[1], head[2], got[1:], head[4]

    def _wait(self, seq: int):
        if not self.sock.poll(int(self.timeout_s * 1000)):
            return None
        return self.sock.recv_multipart()

    def call(self, name: str, *args, bulk: list = ()):
        return self.raw_call(BY_NAME[name], list(args), list(bulk))

    def close(self) -> None:
        try:
            self.sock.send(wire.encode_requests([(next(self._seq), wire.GOODBYE, 0, [], 0)]))
        except zmq.ZMQError:
            pass
        # not 0: a goodbye still queued would be dropped, and the session then ends only when the worker
        # finds the client gone (a test waiting for its session_ended line times out under load)
        self.sock.close(linger=500)
