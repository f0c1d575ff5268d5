"""The source's end of a move (server/migration/transfer.py Link) against a target that freezes: a
process stopped mid-request stands for a GPU host that hangs or loses its power while a move's
memory is on its way to it. The request fails as "the target went away" once nothing of it was
acknowledged for the link's silence bound (TCP_USER_TIMEOUT: server/liveness.py), not as a target
that did not answer within the reply timeout sized for restoring many GiB."""
from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest
import zmq

from rgpu.server import liveness
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


# a target that refuses the requests whose op is "bad", and answers every other one with its rid
PICKY = """
import zmq
from rgpu.protocol import wire
sock = zmq.Context().socket(zmq.ROUTER)
print(sock.bind_to_random_port("tcp://127.0.0.1"), flush=True)
while True:
    ident, head, *frames = sock.recv_multipart()
    msg = wire.unpack(head)
    ok = msg["op"] != "bad"
    sock.send_multipart([ident, wire.pack({"ok": ok, "rid": msg["rid"], "frames": len(frames), "echo": msg["n"],
                                           **({} if ok else {"message": "no room for it"})})])
"""


def test_requests_in_flight_together_each_get_their_own_reply_whatever_order_they_are_waited_in():
    """The pre-copy sends several batches before it waits (server/migration/source.py IN_FLIGHT): a
    reply that comes while another is waited for is kept for its own wait, and a refusal among them
    fails the request it answers only, with the target's reason."""
    proc = subprocess.Popen([sys.executable, "-c", PICKY], stdout=subprocess.PIPE, text=True)
    ctx = zmq.Context()
    try:
        link = Link(ctx, f"tcp://127.0.0.1:{int(proc.stdout.readline())}", None, None)
        rids = [link.submit({"op": "chunks" if n != 3 else "bad", "n": n}, [bytes(n)] * n) for n in range(6)]
        # the last first: every earlier reply arrives while it is waited for and is kept
        assert link.wait(rids[5], "chunks")["echo"] == 5
        assert [link.wait(rids[n], "chunks")["frames"] for n in (0, 1, 2)] == [0, 1, 2]
        with pytest.raises(MigrationFailed, match="the target refused chunks: no room for it"):
            link.wait(rids[3], "chunks")
        assert link.wait(rids[4], "chunks")["echo"] == 4
        assert link.request({"op": "commit", "n": 7})["echo"] == 7  # one at a time, as before
    finally:
        link.sock.close(0)
        link.monitor.close(0)
        ctx.term()
        proc.kill()
        proc.wait(10)


def test_a_target_that_dies_before_the_link_connects_is_gone_within_the_links_silence_bound():
    """The target's supervisor answered with the worker's endpoint and the worker died before the
    source's link connected (the CI run that saw a move wait out its reply timeout): no connection
    means no heartbeat and no disconnect, so the link takes a connect that is not up within the
    silence bound for a target gone, whatever the request's own timeout."""
    ctx = zmq.Context()
    proc = subprocess.Popen([sys.executable, "-c", TARGET], stdout=subprocess.PIPE, text=True)
    port = int(proc.stdout.readline())
    proc.kill()  # its port is closed now: every connect is refused
    proc.wait(10)
    link = Link(ctx, f"tcp://127.0.0.1:{port}", None, None)
    try:
        # "went away", not "did not answer transfer within 60 s": the connect's bound ended it
        with pytest.raises(MigrationFailed, match="the target went away during transfer"):
            link.request({"op": "transfer"}, timeout_s=60)
        # and a link that did connect is not judged by that bound: a target's reply after it passed
        live = subprocess.Popen([sys.executable, "-c", TARGET], stdout=subprocess.PIPE, text=True)
        try:
            up = Link(ctx, f"tcp://127.0.0.1:{int(live.stdout.readline())}", None, None)
            assert up.request({"op": "hello"}, timeout_s=10)["ok"]
            time.sleep(liveness.SILENCE_MS / 1000 + 0.5)
            assert up.request({"op": "later"}, timeout_s=10)["ok"] and not up.lost
            up.close()
        finally:
            live.kill()
            live.wait(10)
    finally:
        link.close()
        ctx.term()
