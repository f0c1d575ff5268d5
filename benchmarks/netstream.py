"""The raw TCP stream of benchmarks/network.py: the bandwidth of a plain socket on the same path as rgpu's
copies, in the same run. Python is enough here: with 1 MiB sends and receives into one buffer the time
goes to the kernel's copies and the link, not the interpreter.

    python benchmarks/netstream.py serve PORT                      (on the far host; serves until killed)
    python benchmarks/netstream.py up|down HOST PORT BYTES N       -> {"gbps": GB/s}
`up` sends BYTES N times and waits for the server's count (host to far host); `down` receives them."""
from __future__ import annotations

import json
import socket
import struct
import sys
import threading
import time

CHUNK = 1 << 20


def _recv_exactly(sock: socket.socket, n: int, buf: memoryview) -> None:
    while n > 0:
        got = sock.recv_into(buf[:min(n, len(buf))])
        if got == 0:
            raise ConnectionError("the stream ended early")
        n -= got


def _serve_one(conn: socket.socket) -> None:
    with conn:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        hdr = conn.recv(17, socket.MSG_WAITALL)
        way, total = hdr[:1], struct.unpack("<Q", hdr[1:9])[0]
        if way == b"u":
            _recv_exactly(conn, total, memoryview(bytearray(CHUNK)))
            conn.sendall(b"k")
        else:
            block = memoryview(bytes(CHUNK))  # slices of a view: no copy per send
            while total > 0:
                n = min(total, CHUNK)
                conn.sendall(block[:n])
                total -= n


def serve(port: int) -> None:
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", port))
    srv.listen(8)
    print("ready", flush=True)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=_serve_one, args=(conn,), daemon=True).start()


def measure(way: str, host: str, port: int, nbytes: int, n: int) -> float:
    total = nbytes * n
    with socket.create_connection((host, port)) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall((b"u" if way == "up" else b"d") + struct.pack("<Q", total) + bytes(8))
        t0 = time.perf_counter()
        if way == "up":
            block = memoryview(bytes(CHUNK))
            left = total
            while left > 0:
                k = min(left, CHUNK)
                s.sendall(block[:k])
                left -= k
            assert s.recv(1) == b"k"
        else:
            _recv_exactly(s, total, memoryview(bytearray(CHUNK)))
        return total / (time.perf_counter() - t0) / 1e9


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(int(sys.argv[2]))
    else:
        way, host, port, nbytes, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
        print(json.dumps({"gbps": round(measure(way, host, port, nbytes, n), 4), "n": n}))
