"""A server listening on ipc://: its session workers each bind a path of their own. They once all
bound the same one, and a path bound again belongs to the last binder; the client then reached a spare
worker that had not been told of its session, which refused the connection, and about every other
program failed at its attach."""
from __future__ import annotations

from rgpu.client.server_client import ping
from tests.conftest import server_argv
from tests.support.session import Session


def test_every_session_attaches_to_its_own_worker(daemons, tmp_path):
    url = f"ipc://{tmp_path}/rgpu.sock"
    daemons.start(server_argv(url, "--sim-memory", "256MiB"), ready=lambda: ping(url), deadline_s=30)
    endpoints = set()
    for _ in range(6):  # one after another: each takes the spare the last one left started
        s = Session(url, timeout_s=10)
        try:
            rc, *_ = s.call("cuCtxSynchronize")
            assert rc == 0
            endpoints.add(s.endpoint)
        finally:
            s.close()
    together = [Session(url, timeout_s=10) for _ in range(3)]
    try:
        for s in together:
            assert s.call("cuCtxSynchronize")[0] == 0
            endpoints.add(s.endpoint)
    finally:
        for s in together:
            s.close()
    assert len(endpoints) == 9 and all(e.startswith(f"ipc://{tmp_path}/rgpu.sock.w") for e in endpoints)
