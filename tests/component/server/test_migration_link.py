"""The source's end of a move (server/migration/transfer.py Link) against a target that freezes: a
process stopped mid-request stands for a GPU host that hangs or loses its power while a move's
memory is on its way to it. The request fails as "the target went away" once nothing of it was
acknowledged for the link's silence bound (TCP_USER_TIMEOUT: server/liveness.py), not as a target
that did not answer within the reply timeout sized for restoring many GiB."""
from __future__ import annotations

import signal
import subprocess
import sys

import pytest
import zmq

from rgpu.server.migration.transfer import Link, MigrationFailed

# a target stand-in: a ROUTER that answers every request ok, as the target worker does
TARGET = """
import sys, zmq
from rgpu.protocol import wire
sock = zmq.Context().socket(zmq.ROUTER)
port = sock.bind_to_random_port("tcp://127.0.0.1")
print(port, flush=True)
while True:
    ident, head, *frames = sock.recv_multipart()
    msg = wire.unpack(head)
    sock.send_multipart([ident, wire.pack({"ok": True, "rid": msg["rid"], "frames": len(frames)})])
"""


@pytest.fixture
def target():
    proc = subprocess.Popen([sys.executable, "-c", TARGET], stdout=subprocess.PIPE, text=True)
    try:
        yield proc, int(proc.stdout.readline())
    finally:
        proc.send_signal(signal.SIGCONT)
        proc.kill()
        proc.wait(10)


def test_a_target_that_freezes_mid_request_is_gone_within_the_links_silence_bound(target):
    proc, port = target
    ctx = zmq.Context()
    link = Link(ctx, f"tcp://127.0.0.1:{port}", None, None)
    try:
        assert link.request({"op": "hello"}, timeout_s=10)["ok"]
        proc.send_signal(signal.SIGSTOP)
        # far more than the sockets' buffers on the way hold: the link is mid-message when they fill,
        # where ZeroMQ sends no heartbeat; only TCP_USER_TIMEOUT ends the connection then
        chunk = bytes(256 << 20)
        with pytest.raises(MigrationFailed, match="the target went away during pages"):
            link.request({"op": "pages"}, [chunk], timeout_s=120)
    finally:
        link.sock.close(0)
        link.monitor.close(0)
        ctx.term()
