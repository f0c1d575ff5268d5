"""A small Python client of rgpu-server's supervisor: ping and stats (for the CLI and tests)."""
from __future__ import annotations

import zmq

from rgpu.protocol import wire


class ServerUnavailable(RuntimeError):
    pass


def request(url: str, msg: dict, timeout_s: float = 5.0) -> dict:
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    try:
        sock.connect(url.split("#", 1)[0])
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


def stats(url: str, timeout_s: float = 5.0) -> dict:
    return request(url, {"op": "stats"}, timeout_s)
