"""`rgpu-server --session-ports LO-HI` (issue 42): session workers listen within the range, so a
firewall can name the ports; when every port is taken a hello is refused saying so, and a port
that frees is used again."""
from __future__ import annotations

import socket
import subprocess

import zmq

from rgpu.client.server_client import ping, request
from rgpu.protocol import wire
from tests.conftest import server_argv
from tests.support.daemons import free_url, wait_until


def _free_pair() -> int:
    """A port P with P and P+1 both free (for a range of two)."""
    for _ in range(200):
        with socket.socket() as a:
            a.bind(("127.0.0.1", 0))
            p = a.getsockname()[1]
            if p >= 65535:
                continue
            with socket.socket() as b:
                try:
                    b.bind(("127.0.0.1", p + 1))
                except OSError:
                    continue
            return p
    raise RuntimeError("no two free ports in a row")


def _hello(url):
    return request(url, {"op": "hello", "proto": wire.PROTOCOL_VERSION, "client": "t", "cuda": 13000, "lease": "",
                         "gpu": 0}, timeout_s=15)


def _attach(r):
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(r["endpoint"].replace("tcp://*:", "tcp://127.0.0.1:"))
    sock.send(wire.encode_requests([(1, wire.ATTACH, 1, [r["session"], r["key"]], 0)]))
    assert sock.poll(10000) and wire.unpack(sock.recv_multipart()[0])[1] == 0
    return sock


def test_sessions_listen_in_the_range_and_a_full_range_is_refused_clearly(daemons, tmp_path):
    lo = _free_pair()
    url = free_url()
    log = tmp_path / "server.log"
    daemons.start(server_argv(url, "--sim-memory", "256MiB", "--session-ports", f"{lo}-{lo + 1}",
                              "--session-grace", "0.5"), ready=lambda: ping(url), deadline_s=30, log_path=log)
    first = _hello(url)
    assert first["ok"], first
    a = _attach(first)
    second = _hello(url)
    assert second["ok"], second
    b = _attach(second)
    ports = {int(r["endpoint"].rsplit(":", 1)[1]) for r in (first, second)}
    assert ports == {lo, lo + 1}                    # within the range, one port each
    third = _hello(url)                             # no port left for a worker
    assert not third["ok"] and third["error"] == "no_session_port", third
    assert f"--session-ports {lo}-{lo + 1}" in third["message"] and "widen the range" in third["message"]
    assert ping(url)                                # the server serves on
    a.close(0)                                      # a session ends: its port serves the next one
    again = wait_until(lambda: (r := _hello(url))["ok"] and r, 30, "a hello after a port freed")
    assert int(again["endpoint"].rsplit(":", 1)[1]) in (lo, lo + 1)
    b.close(0)
    assert log.read_text().count("event=session_ports_exhausted") >= 1


def test_a_bad_range_is_a_usage_error():
    for bad in ("7451", "9000-8000", "80-90", "a-b"):
        p = subprocess.run(server_argv(free_url(), "--session-ports", bad), capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and "--session-ports" in p.stderr and "Traceback" not in p.stderr, p.stderr
