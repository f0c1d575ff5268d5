"""Where a session worker listens: the port of the system's choosing (``supervisor.worker_bind``),
or with ``rgpu-server --session-ports LO-HI`` a free port of that range, so that a firewall can
name the ports clients open their sessions on. A server needs one port per open session and one per
GPU (each GPU keeps a worker started ahead, bound and waiting for the next hello)."""
from __future__ import annotations

import random

import zmq


def parse_range(text: str) -> tuple[int, int]:
    """``"7451-7499"`` -> (7451, 7499); a ValueError says what is wrong."""
    lo, sep, hi = str(text).strip().partition("-")
    if not sep or not lo.strip().isdigit() or not hi.strip().isdigit():
        raise ValueError(f"{text!r} is not a port range: use LO-HI, e.g. 7451-7499")
    lo_, hi_ = int(lo), int(hi)
    if not 1024 <= lo_ <= hi_ <= 65535:
        raise ValueError(f"{text!r}: a range of ports from 1024 to 65535, LO no larger than HI")
    return lo_, hi_


def bind(sock, bind_url: str, ports: tuple[int, int] | None) -> str | None:
    """Bind ``sock`` where ``bind_url`` says (``tcp://HOST:*`` or an ipc:// path start, as
    worker_bind makes it); with ``ports``, to a free port of that range, tried in a random order.
    Returns the endpoint clients are told (``tcp://*:PORT`` for a wildcard host), or None when
    every port of the range is taken."""
    if bind_url.startswith("ipc://"):
        import os
        sock.bind(f"{bind_url}-{os.getpid()}")
        return sock.getsockopt_string(zmq.LAST_ENDPOINT)
    host = bind_url[len("tcp://"):].rsplit(":", 1)[0]
    if ports is None:
        sock.bind(bind_url)
    else:
        candidates = list(range(ports[0], ports[1] + 1))
        random.shuffle(candidates)   # workers starting together rarely try the same port twice
        for port in candidates:
            try:
                sock.bind(f"tcp://{host}:{port}")
                break
            except zmq.ZMQError as exc:
                if exc.errno != zmq.EADDRINUSE:
                    raise
        else:
            return None
    endpoint = sock.getsockopt_string(zmq.LAST_ENDPOINT)
    return f"tcp://*:{endpoint.rsplit(':', 1)[1]}" if host == "*" else endpoint
