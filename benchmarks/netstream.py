"""The raw TCP stream of benchmarks/network.py: the bandwidth of a plain socket on the same path as rgpu's
copies, in the same run. Python is enough here: with 1 MiB sends and receives the time goes to the
kernel's copies and the link, not the interpreter.

    python benchmarks/netstream.py serve PORT [HOST]                       (on the far host; until killed)
    python benchmarks/netstream.py up|down HOST PORT BYTES N [MODE]        -> {"gbps": GB/s}

`up` moves BYTES N times to the far host (host to device's direction), `down` from it. MODE is what
the receiver does with the bytes, from the least work to what a copy must do:
- `discard` (the default): the sender sends one 1 MiB buffer over and over and the receiver receives
  into one 1 MiB buffer, both hot in the cache, and the sender hears once at the end (up) — the
  link's and the kernel's limit, but less than a copy can do, whose source is BYTES of memory to read
  and whose destination is BYTES of memory to write;
- `store`: as a copy's ends, the sender sends from a BYTES-long source and the receiver writes into a
  BYTES-long destination; one acknowledgement at the end as in `discard`;
- `bounce`: `store`, but the receiver receives each 1 MiB into one buffer hot in the cache and
  copies it into the destination from there (a second pass over the data, as a copy through a
  ZeroMQ message's buffer makes): the other way the bytes can land in memory, faster on some machines
  than the kernel's receive into memory not in the cache (benchmarks/test_landing.py);
- `sync`: `store`, and each BYTES is a round trip of its own, as N synchronous copies are: up, the
  receiver acknowledges each BYTES before the sender starts the next; down, the receiver asks for
  each BYTES and waits for all of it before asking again."""
from __future__ import annotations

import json
import socket
import struct
import sys
import threading
import time

CHUNK = 1 << 20
MODES = ("discard", "store", "bounce", "sync")
HEADER = struct.Struct("<ccQQ")  # way, mode's initial, BYTES, N


def _recv_exactly(sock: socket.socket, n: int, buf: memoryview) -> None:
    """n bytes, received into buf (wrapping round it when it is shorter)."""
    at = 0
    while n > 0:
        if at == len(buf):
            at = 0
        got = sock.recv_into(buf[at:at + min(n, CHUNK, len(buf) - at)])
        if got == 0:
            raise ConnectionError("the stream ended early")
        n -= got
        at += got


def _land(sock: socket.socket, n: int, buf: memoryview, hot: memoryview) -> None:
    """`_recv_exactly`, each CHUNK received into `hot` first and copied into buf from there."""
    at = 0
    while n > 0:
        if at == len(buf):
            at = 0
        want = min(n, CHUNK, len(buf) - at)
        _recv_exactly(sock, want, hot[:want])
        buf[at:at + want] = hot[:want]
        n -= want
        at += want


def _receive(sock: socket.socket, mode: bytes, n: int, buf: memoryview, hot: memoryview | None) -> None:
    if mode == b"b":
        _land(sock, n, buf, hot)
    else:
        _recv_exactly(sock, n, buf)


def _send(sock: socket.socket, n: int, block: memoryview) -> None:
    """n bytes from block (over and over when it is shorter), CHUNK a send."""
    at = 0
    while n > 0:  # slices of a view: no copy per send
        if at == len(block):
            at = 0
        k = min(n, CHUNK, len(block) - at)
        sock.sendall(block[at:at + k])
        n -= k
        at += k


def _buffer(mode: bytes, nbytes: int) -> memoryview:
    """A sender's source or a receiver's destination: 1 MiB reused (discard), or BYTES of memory."""
    if mode == b"d":
        return memoryview(bytearray(CHUNK))
    buf = bytearray(nbytes)
    buf[::4096] = b"\1" * len(range(0, nbytes, 4096))  # its pages are there before the clock starts
    return memoryview(buf)


def _hot(mode: bytes) -> memoryview | None:
    """`bounce`'s buffer, hot in the cache once the first CHUNK has passed through it."""
    return memoryview(bytearray(CHUNK)) if mode == b"b" else None


def _serve_one(conn: socket.socket) -> None:
    with conn:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        way, mode, nbytes, n = HEADER.unpack(conn.recv(HEADER.size, socket.MSG_WAITALL))
        if way == b"u":
            buf, hot = _buffer(mode, nbytes), _hot(mode)
            conn.sendall(b"r")  # the destination is ready
            for _ in range(n if mode == b"s" else 1):
                _receive(conn, mode, nbytes * (1 if mode == b"s" else n), buf, hot)
                conn.sendall(b"k")
        else:
            block = _buffer(mode, nbytes)
            conn.sendall(b"r")  # the source is ready
            for _ in range(n if mode == b"s" else 1):
                if mode == b"s" and conn.recv(1) != b"g":
                    return
                _send(conn, nbytes * (1 if mode == b"s" else n), block)


def serve(port: int, host: str = "0.0.0.0") -> None:
    """On every address of the host (a bed host's namespace), or on HOST alone (127.0.0.1 on this one)."""
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((host, port))
    srv.listen(8)
    print("ready", flush=True)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=_serve_one, args=(conn,), daemon=True).start()


def measure(way: str, host: str, port: int, nbytes: int, n: int, mode: str = "discard") -> float:
    m = mode[:1].encode()
    with socket.create_connection((host, port)) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(HEADER.pack(b"u" if way == "up" else b"d", m, nbytes, n))
        if way == "up":
            block = _buffer(m, nbytes)
            assert s.recv(1) == b"r"
            t0 = time.perf_counter()
            for _ in range(n if m == b"s" else 1):
                _send(s, nbytes * (1 if m == b"s" else n), block)
                assert s.recv(1) == b"k"
        else:
            buf, hot = _buffer(m, nbytes), _hot(m)
            assert s.recv(1) == b"r"
            t0 = time.perf_counter()
            for _ in range(n if m == b"s" else 1):
                if m == b"s":
                    s.sendall(b"g")
                _receive(s, m, nbytes * (1 if m == b"s" else n), buf, hot)
        return nbytes * n / (time.perf_counter() - t0) / 1e9


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(int(sys.argv[2]), *sys.argv[3:4])
    else:
        way, host, port, nbytes, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
        mode = sys.argv[6] if len(sys.argv) > 6 else "discard"
        if mode not in MODES:
            sys.exit(f"netstream: MODE is one of {', '.join(MODES)}")
        print(json.dumps({"gbps": round(measure(way, host, port, nbytes, n, mode), 4), "n": n, "mode": mode}))
