"""The raw-transport baseline server: a bare pyzmq ROUTER with the session worker's socket options
and nothing else — no decoding, no dispatch, no device. benchmarks/harness/bench.c's raw mode talks
to it. Frame 0 is an op letter and a little-endian u64: 's' reply now, 'a' no reply, 'h' (bulk
frame follows) reply now, 'd' reply with that many bytes, 'q' quit. It receives and replies as the
session worker does (server/worker.py: the identity, then the parts, each Frame saying whether more
follow; a reply without data as two sends; polling for the next message, yielding, for the worker's
default --spin-us before it blocks), so a ratio against it is what rgpu adds, not a cheaper idiom.

    python benchmarks/rawserver.py BIND_URL   (prints the bound endpoint, then serves)"""
import os
import struct
import sys
import time

import zmq

SPIN_S = 200e-6  # server/worker.py SPIN_US


def main(bind: str) -> None:
    ctx = zmq.Context()
    sock = ctx.socket(zmq.ROUTER)
    sock.setsockopt(zmq.SNDHWM, 0)
    sock.setsockopt(zmq.RCVHWM, 0)
    sock.bind(bind)
    print(sock.getsockopt_string(zmq.LAST_ENDPOINT), flush=True)
    payload = b""
    ok = b"ok"
    events, clock = sock.getsockopt, time.perf_counter
    while True:
        until = clock() + SPIN_S
        while not events(zmq.EVENTS) & zmq.POLLIN and clock() < until:
            os.sched_yield()
        ident = sock.recv()
        part = sock.recv(copy=False)
        hdr = part.bytes
        while part.more:  # the bulk frame of 'h'
            part = sock.recv(copy=False)
        op = hdr[:1]
        if op == b"a":
            continue
        if op == b"q":
            break
        if op == b"d":
            (size,) = struct.unpack("<Q", hdr[1:9])
            if len(payload) != size:
                payload = bytes(size)
            sock.send_multipart([ident, ok, payload], copy=False)
        else:
            sock.send(ident, zmq.SNDMORE)
            sock.send(ok)
    sock.close(0)
    ctx.term()


if __name__ == "__main__":
    main(sys.argv[1])
