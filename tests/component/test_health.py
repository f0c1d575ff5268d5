"""`--metrics-listen` (old name `--health-listen`): the daemons answer GET /healthz (what container health checks and Kubernetes
probes ask), 200 while they serve and 503 when the daemon behind it does not answer."""
from __future__ import annotations

import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from rgpu import health
from tests.support.controller import ControllerProc
from tests.support.daemons import free_port, wait_until


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def probe(url: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rgpu.health", url], capture_output=True, text=True, timeout=30)


def test_controller_and_server_serve_healthz(daemons, tmp_path, start_server):
    port = free_port()
    ControllerProc(daemons, tmp_path, ["--health-listen", f"127.0.0.1:{port}"]).start()
    url = f"http://127.0.0.1:{port}/healthz"
    assert get(url) == (200, "ok\n")
    status, text = get(f"http://127.0.0.1:{port}/metrics")     # --health-listen is --metrics-listen's old name
    assert status == 200 and "rgpu_pool_gpus 0.0" in text
    assert get(f"http://127.0.0.1:{port}/other")[0] == 404
    assert probe(url).returncode == 0
    sport = free_port()
    start_server("--health-listen", f"127.0.0.1:{sport}")
    assert get(f"http://127.0.0.1:{sport}/healthz") == (200, "ok\n")


def test_a_daemon_that_does_not_answer_is_unhealthy():
    # the checks ask the daemon through its own socket: nobody answering there is a 503 that says so
    for check in (health.controller_check(f"tcp://0.0.0.0:{free_port()}"), health.server_check(f"tcp://127.0.0.1:{free_port()}")):
        port = free_port()
        server = health.serve(f"127.0.0.1:{port}", check)
        try:
            url = f"http://127.0.0.1:{port}/healthz"
            status, text = get(url)
            assert status == 503 and "does not answer on tcp://127.0.0.1:" in text
            failed = probe(url)
            assert failed.returncode == 1 and "HTTP 503" in failed.stderr
        finally:
            server.shutdown()
            server.server_close()


def test_nothing_listening_is_a_failed_probe_and_bad_addresses_are_refused():
    p = probe(f"http://127.0.0.1:{free_port()}/healthz")
    assert p.returncode == 1 and "refused" in p.stderr.lower()
    with pytest.raises(ValueError, match="HOST:PORT"):
        health.parse_address("9440")
    assert health.parse_address(":9440") == ("0.0.0.0", 9440)
    assert health.local_url("tcp://0.0.0.0:7440") == "tcp://127.0.0.1:7440"
    assert health.local_url("ipc:///run/rgpu.sock") == "ipc:///run/rgpu.sock"
