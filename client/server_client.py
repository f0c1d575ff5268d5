"""A small Python client of rgpu-server's supervisor: ping, stats and hello (for the CLI and tests).

A URL may carry the server's public key, ``tcp://host:port@KEY`` (64 hex digits, as ``RGPU_SERVER``
entries do): the request then goes over CURVE, as the given ``keys`` (default: a fresh keypair; the
cluster's server keys may ask for stats)."""
from __future__ import annotations

import zmq

from rgpu.protocol import curve, wire

MAX_REPLY = 64 << 20


class ServerUnavailable(RuntimeError):
    pass


def request(url: str, msg: dict, timeout_s: float = 5.0, keys: curve.Keypair | None = None) -> dict:
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    curve.limit(sock, MAX_REPLY)
    address, server_key = curve.split_server_url(url)
    if server_key is not None:
        curve.as_client(sock, keys or curve.new_keypair(), server_key)
    try:
        sock.connect(address.split("#", 1)[0])
        sock.send(wire.pack(msg))
        if not sock.poll(int(timeout_s * 1000)):
            raise ServerUnavailable(f"{url} did not answer within {timeout_s:g}s")
        return wire.unpack(sock.recv())
    finally:
        sock.close(0)


def ping(url: str, timeout_s: float = 1.0) -> bool:
    try:
        return bool(request(url, {"op": "ping"}, timeout_s).get("ok"))
    except ServerUnavailable:
        return False


def stats(url: str, timeout_s: float = 5.0, keys: curve.Keypair | None = None) -> dict:
    return request(url, {"op": "stats"}, timeout_s, keys)
