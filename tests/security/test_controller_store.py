"""What the controller keeps and shows (issue 39, attacks 7 and 8): its database is readable by its
owner alone, a damaged one stops it with a message (not a traceback, and not a silent start on a bad
page), and its unauthenticated /metrics says how full the pool is, not who holds what, unless the
operator asks. Before: controller.db was 0644, /metrics listed every lease id with its owner, and a
damaged database started silently or failed with a raw traceback."""
from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import urllib.request

import pytest

from rgpu.controller.store import Store
from tests.component.controller.controller_fixtures import GiB, fake_gpus
from tests.support.controller import ControllerProc, cluster_env
from tests.support.daemons import free_port, free_url, wait_until

MiB = 1 << 20
PAGE = 4096


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_the_database_is_private(daemons, tmp_path, monkeypatch):
    monkeypatch.delenv("RGPU_TEST_STORE", raising=False)   # SQLite's file: what this is about, on any store
    controller = ControllerProc(daemons, tmp_path).start()
    with controller.client(credential=controller.user("alice")) as alice, controller.fleet() as fleet:
        fleet.register("tcp://gpu1:7000", "b1", "sim", fake_gpus(1, "A", memory=4 * GiB))
        alice.reserve(memory=16 * MiB)
    files = [p for p in tmp_path.iterdir() if p.name.startswith("controller.db")]
    assert files and {p.name: _mode(p) for p in files} == {p.name: 0o600 for p in files}   # before: 0644
    controller.stop()
    # a database an older controller left readable is tightened at the next start
    os.chmod(controller.db, 0o644)
    controller.start()
    assert _mode(controller.db) == 0o600


def _damaged(tmp_path):
    """A controller database of 3000 ended leases (never read at start), one of its pages overwritten."""
    path = tmp_path / "controller.db"
    store = Store(path)
    for i in range(3000):
        store.insert_lease({"id": f"l-{i:06d}", "state": "active", "created": 1.0, "expires": 2.0, "ttl": 60.0,
                            "token_expires": 3.0, "owner": "alice", "request": {"memory": 1, "pad": "x" * 100}}, [])
    store.end_leases([f"l-{i:06d}" for i in range(3000)], "released", 5.0)
    store.close()
    data = bytearray(path.read_bytes())
    data[40 * PAGE + 100:40 * PAGE + 500] = bytes(range(256)) + bytes(144)
    path.write_bytes(bytes(data))
    return path


def _start(tmp_path, db) -> tuple[int | None, str]:
    """(exit code, stderr) of a controller started on ``db``; None when it was still serving after 30 s."""
    url = free_url()
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.controller.daemon", "--listen", url, "--db", str(db)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=cluster_env(tmp_path, url))
    try:
        _, err = proc.communicate(timeout=30)
        return proc.returncode, err
    except subprocess.TimeoutExpired:
        proc.kill()
        return None, proc.communicate()[1]


@pytest.mark.parametrize("damage", ["page", "header"])
def test_a_damaged_database_stops_the_controller_with_a_message(tmp_path, damage):
    if damage == "page":
        db = _damaged(tmp_path)
        with pytest.raises(sqlite3.DatabaseError):                   # it is damaged indeed
            list(sqlite3.connect(db).execute("SELECT * FROM leases"))
    else:
        db = tmp_path / "controller.db"
        db.write_bytes(b"this is not a database " * 400)
    rc, err = _start(tmp_path, db)
    # before: a damaged page went unnoticed (the controller served), a bad header was a traceback
    assert rc not in (0, None), err
    assert "is damaged" in err and "restore it from a backup" in err and "Traceback" not in err, err


def _metrics(port: int) -> str:
    return urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()


@pytest.mark.parametrize("tenants", [False, True])
def test_metrics_name_no_tenant_unless_asked(daemons, tmp_path, tenants):
    port = free_port()
    extra = ["--metrics-listen", f"127.0.0.1:{port}"] + (["--metrics-tenants"] if tenants else [])
    controller = ControllerProc(daemons, tmp_path, extra).start()
    with controller.client(credential=controller.user("alice")) as alice, controller.fleet() as fleet:
        fleet.register("tcp://gpu1:7000", "b1", "sim", fake_gpus(1, "A", memory=4 * GiB))
        lease = alice.reserve(memory=16 * MiB)["lease"]
    text = wait_until(lambda: (t := _metrics(port)) and 'rgpu_pool_leases{state="active"} 1.0' in t and t, 10,
                      "the lease counted in /metrics")
    assert "rgpu_pool_memory_free_bytes" in text
    shown = lease in text or 'owner="alice"' in text
    assert shown == tenants, text                                  # before: always shown
