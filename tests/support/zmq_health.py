"""Is a libzmq context still healthy? For tests of code that closes sockets against slow or dead peers.

libzmq destroys a closed socket later, in its reaper thread, once the context's I/O thread has
ended the socket's connections; until then the socket keeps its mailbox, an eventfd. So the
process's eventfd count tells how many sockets libzmq still holds, and a socket that never gets a
message to a live peer tells that the context's I/O thread is stuck.

    peer = LivePeer()
    baseline = eventfds()
    ...                                   # the code under test, on context ctx
    assert peer.reached_from(ctx)
    assert eventfds_back_to(baseline, 5.0) <= baseline
    peer.close()
"""
from __future__ import annotations

import os
import time

import zmq


def eventfds() -> int:
    """Open eventfds of this process: one per socket libzmq holds, and a few per context."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += "eventfd" in os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            pass                     # closed between listdir and readlink
    return count


def eventfds_back_to(target: int, deadline_s: float) -> int:
    """Poll until the count is down to ``target`` or the deadline passes; return the last count."""
    deadline = time.monotonic() + deadline_s
    while (now := eventfds()) > target and time.monotonic() < deadline:
        time.sleep(0.02)
    return now


class LivePeer:
    """A ROUTER on a port it picks, in a context of its own (so it answers whatever state the
    context under test is in)."""

    def __init__(self):
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.ROUTER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.url = f"tcp://127.0.0.1:{self.sock.bind_to_random_port('tcp://127.0.0.1')}"

    def reached_from(self, ctx: zmq.Context, timeout_s: float = 2.0) -> bool:
        """Whether a fresh socket of ``ctx`` gets a message here (it takes ctx's I/O thread)."""
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        try:
            sock.connect(self.url)
            sock.send(b"probe")
            if not self.sock.poll(int(timeout_s * 1000)):
                return False
            self.sock.recv_multipart()
            return True
        finally:
            sock.close(0)

    def close(self) -> None:
        self.sock.close(0)
        self.ctx.term()
