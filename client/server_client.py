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
    address, server_key = curve.split_server_url(url)
    sock = zmq.Context.instance().socket(zmq.DEALER)
    try:
        sock.setsockopt(zmq.LINGER, 0)  # the request may never leave: a dead server must not keep it
        curve.limit(sock, MAX_REPLY)
        if server_key is not None:
            curve.as_client(sock, keys or curve.new_keypair(), server_key)
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


# What a program should be told when one of its devices is a software GPU, which runs PTX and never
# SASS: CuPy then asks NVRTC for PTX instead of a cubin (it reads the variable once, at import).
SOFTWARE_GPU_ENV = {"CUPY_COMPILE_WITH_PTX": "1"}


def software_gpu_env(backends) -> dict:
    """SOFTWARE_GPU_ENV when any of ``backends`` (a server's "device": sim, cuda) is the software
    GPU, else {}."""
    return dict(SOFTWARE_GPU_ENV) if "sim" in set(backends) else {}


def backends(urls: list[str], timeout_s: float = 2.0) -> list[str]:
    """The backend each reachable server of ``urls`` runs (ping's "device": any client may ask,
    where stats needs the cluster credential); a server that does not answer is left out (the
    program itself will report it)."""
    out = []
    for url in dict.fromkeys(u.split("#", 1)[0] for u in urls):
        try:
            out.append(request(url, {"op": "ping"}, timeout_s).get("device", ""))
        except ServerUnavailable:
            pass
    return out
