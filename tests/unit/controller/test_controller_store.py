"""The SQLite store: migrations, WAL, and that what is written comes back."""
import sqlite3

import pytest

from rgpu.controller.store import SCHEMA_VERSION, Store, StoreError

G = [{"uuid": "G0", "index": 0, "name": "Sim", "memory_total": 100, "sms": 8, "compute_capability": "8.0"}]
LEASE = {"id": "l-1", "state": "active", "created": 1.0, "expires": 2.0, "ttl": 1.0,
         "token_expires": 3.0, "owner": "me", "request": {"count": 1}}
ALLOC = [{"gpu": "G0", "memory": 10, "compute": 20, "limit": 30, "exclusive": False}]


def test_fresh_db_is_migrated_and_uses_wal(tmp_path):
    store = Store(tmp_path / "a.db")
    assert store.version() == SCHEMA_VERSION
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()


def test_old_version_is_migrated_forward(tmp_path):
    path = tmp_path / "old.db"
    from rgpu.controller import store as store_mod
    db = sqlite3.connect(path)
    db.executescript(store_mod.MIGRATIONS[0] + "; PRAGMA user_version=1;")
    db.execute("INSERT INTO servers VALUES ('tcp://x:1','up','sim','b',1.0)")
    db.commit()
    db.close()
    store = Store(path)
    assert store.version() == SCHEMA_VERSION
    names = {r[0] for r in store.db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert "allocations_gpu" in names
    assert [s["url"] for s in store.load_servers()] == ["tcp://x:1"]
    store.close()


def test_newer_schema_refused(tmp_path):
    path = tmp_path / "new.db"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match="newer"):
        Store(path)


def test_round_trip_servers_leases_and_end(tmp_path):
    store = Store(tmp_path / "a.db")
    store.upsert_server("tcp://s:1", "up", "sim", "b1", G, 5.0)
    store.insert_lease(LEASE, ALLOC)
    store.close()
    store = Store(tmp_path / "a.db")
    [server] = store.load_servers()
    assert server["gpus"][0]["uuid"] == "G0" and server["gpus"][0]["present"]
    [lease] = store.load_leases()
    assert lease["allocations"] == ALLOC and lease["request"] == {"count": 1}
    assert store.gpu_commitments()["G0"]["compute"] == 20
    store.end_leases(["l-1"], "released", 9.0)
    assert store.load_leases() == [] and store.ended_state("l-1")[0] == "released"
    assert store.gpu_commitments() == {}
    assert store.prune_ended(10.0) == 1 and store.ended_state("l-1") is None
    store.close()


def test_failed_transaction_leaves_nothing(tmp_path):
    store = Store(tmp_path / "a.db")
    with pytest.raises(sqlite3.IntegrityError):      # the GPU is unknown: foreign key fails
        store.insert_lease(LEASE, ALLOC)
    assert store.load_leases() == []
    store.close()
