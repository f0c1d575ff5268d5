"""The stores: one suite run against SQLite and etcd (what is written comes back, each change is
all or nothing), then what only one of them has (SQLite's migrations and WAL; etcd's prefix
checks and fencing)."""
import sqlite3

import pytest

from rgpu.controller import etcd as E
from rgpu.controller.store import SCHEMA_VERSION, Store, StoreError
from rgpu.controller import store_etcd
from rgpu.controller.store_etcd import EtcdStore, Fenced

G = [{"uuid": "G0", "index": 0, "name": "Sim", "memory_total": 100, "sms": 8, "compute_capability": "8.0"}]
G2 = G + [{"uuid": "G1", "index": 1, "name": "Sim", "memory_total": 100, "sms": 8, "compute_capability": "8.0"}]
LEASE = {"id": "l-1", "state": "active", "created": 1.0, "expires": 2.0, "ttl": 1.0,
         "token_expires": 3.0, "owner": "me", "request": {"count": 1}}
ALLOC = [{"gpu": "G0", "memory": 10, "compute": 20, "limit": 30, "exclusive": False}]
MIGRATION = {"id": "m-1", "lease": "l-1", "seq": 0, "from_gpu": "G0", "to_gpu": "G1", "state": "pending",
             "reason": "user", "created": 4.0, "ended": None, "message": ""}


# ---- the shared suite (both stores) -------------------------------------------------------------
def test_round_trip_servers_leases_and_end(open_store):
    store = open_store()
    store.upsert_server("tcp://s:1", "up", "sim", "b1", G, 5.0)
    store.insert_lease(LEASE, ALLOC)
    store.close()
    store = open_store()
    [server] = store.load_servers()
    assert server["gpus"][0]["uuid"] == "G0" and server["gpus"][0]["present"]
    [lease] = store.load_leases()
    assert lease["allocations"] == [dict(a, reclaimed=False) for a in ALLOC] and lease["request"] == {"count": 1}
    assert store.gpu_commitments()["G0"]["compute"] == 20
    store.end_leases(["l-1"], "released", 9.0)
    assert store.load_leases() == [] and store.ended_state("l-1")[0] == "released"
    assert [r["id"] for r in store.ended_since(8.0)] == ["l-1"] and store.ended_since(9.5) == []
    assert store.gpu_commitments() == {}
    assert store.prune_ended(10.0) == 1 and store.ended_state("l-1") is None


def test_failed_transaction_leaves_nothing(open_store):
    store = open_store()
    with pytest.raises((sqlite3.IntegrityError, StoreError)):      # the GPU is unknown
        store.insert_lease(LEASE, ALLOC)
    assert store.load_leases() == [] and store.gpu_commitments() == {}


def test_server_state_draining_and_reregistration(open_store):
    store = open_store()
    store.upsert_server("tcp://s:1", "up", "sim", "b1", G2, 5.0)
    store.set_server_state("tcp://s:1", "down")
    store.set_draining("tcp://s:1", True)
    store.upsert_server("tcp://s:1", "up", "sim", "b2", G, 6.0)     # G1 no longer reported
    [server] = open_store().load_servers()
    assert (server["state"], server["boot_id"], server["draining"]) == ("up", "b2", True)
    assert [(g["uuid"], g["present"]) for g in server["gpus"]] == [("G0", True), ("G1", False)]
    store.delete_server("tcp://s:1")
    assert open_store().load_servers() == []


def test_lease_renew_states_reclaim_and_migration(open_store):
    store = open_store()
    store.upsert_server("tcp://s:1", "up", "sim", "b1", G2, 5.0)
    store.insert_lease(LEASE, ALLOC)
    store.renew_lease("l-1", 50.0, 60.0)
    store.set_lease_states(["l-1"], "degraded")
    store.set_reclaimed("l-1", 0, True)
    store.insert_migration(MIGRATION)
    again = open_store()
    [lease] = again.load_leases()
    assert (lease["expires"], lease["token_expires"], lease["state"]) == (50.0, 60.0, "degraded")
    assert lease["allocations"][0]["reclaimed"]
    assert [m["id"] for m in again.load_migrations()] == ["m-1"]
    store.move_allocation("l-1", 0, "G1", "m-1", "done", 7.0)
    again = open_store()
    assert again.load_leases()[0]["allocations"][0]["gpu"] == "G1"
    assert not again.load_leases()[0]["allocations"][0]["reclaimed"] and again.load_migrations() == []
    assert set(again.gpu_commitments()) == {"G1"}


# ---- SQLite only --------------------------------------------------------------------------------
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


# ---- etcd only: bad input is refused at start with nothing written; fencing ----------------------
def _keys(etcd_member, prefix):
    client = E.Etcd(etcd_member.endpoints)
    try:
        return [kv.key for kv in client.range(prefix + "/", prefix=True, keys_only=True)[0]]
    finally:
        client.close()


def _put(etcd_member, key, value):
    client = E.Etcd(etcd_member.endpoints)
    client.txn([], [E.put(key, value)])
    client.close()


def test_etcd_foreign_keys_under_the_prefix_are_refused(etcd_member):
    _put(etcd_member, "/foreign/registry/pods/x", "{}")
    with pytest.raises(StoreError, match="not rgpu's"):
        EtcdStore(etcd_member.store_url("/foreign"))
    assert _keys(etcd_member, "/foreign") == ["/foreign/registry/pods/x"]


def test_etcd_newer_schema_is_refused(etcd_member):
    _put(etcd_member, "/newer/schema", str(store_etcd.SCHEMA_VERSION + 1))
    with pytest.raises(StoreError, match="newer"):
        EtcdStore(etcd_member.store_url("/newer"))
    assert _keys(etcd_member, "/newer") == ["/newer/schema"]


def test_etcd_wrong_endpoint_is_refused(etcd_member):
    from tests.support.daemons import free_port
    with pytest.raises(StoreError, match="cannot reach etcd"):
        EtcdStore(f"etcd://127.0.0.1:{free_port()}/x")
    with pytest.raises(StoreError, match="etcd://HOST:PORT"):
        EtcdStore("etcd:///nohost")


def test_etcd_a_deposed_leaders_writes_are_refused(etcd_member):
    """Fencing: a store writing as the leader elected at one revision cannot write once the
    leader key was created again (another replica won the election)."""
    store = EtcdStore(etcd_member.store_url("/fence"))
    store.upsert_server("tcp://s:1", "up", "sim", "b1", G, 5.0)
    leader = store.key("leader")
    client = E.Etcd(etcd_member.endpoints)
    ok, reply = client.txn([E.cmp_create(leader, 0)], [E.put(leader, "a")])
    store.fence = (leader, int(reply["header"]["revision"]))
    store.insert_lease(LEASE, ALLOC)                      # leading: written
    client.txn([], [E.delete(leader)])
    client.txn([], [E.put(leader, "b")])                  # another replica leads now
    with pytest.raises(Fenced):
        store.end_leases(["l-1"], "released", 9.0)
    assert [lease["id"] for lease in EtcdStore(etcd_member.store_url("/fence")).load_leases()] == ["l-1"]
    client.close()
    store.close()


def test_etcd_a_batch_commits_its_changes_together_or_not_at_all(etcd_member):
    """Group commit: a server's registration, a lease on its GPU and another lease placed and
    ended, all in one transaction; a fenced batch writes nothing and says why."""
    store = EtcdStore(etcd_member.store_url("/batch"))
    watcher = EtcdStore(etcd_member.store_url("/batch"))
    with store.batch():
        store.upsert_server("tcp://s:1", "up", "sim", "b1", G, 5.0)
        store.insert_lease(LEASE, ALLOC)
        store.insert_lease(dict(LEASE, id="l-2"), ALLOC)
        store.end_leases(["l-2"], "released", 6.0)
        assert store.ended_state("l-2") == ("released", "me")      # seen before it is committed
        assert watcher.load_servers() == []                       # nothing in etcd yet
    assert store.failed is None
    assert [lease["id"] for lease in watcher.load_leases()] == ["l-1"]
    assert watcher.ended_state("l-2") == ("released", "me") and watcher.gpu_commitments()["G0"]["memory"] == 10
    leader = store.key("leader")
    ok, reply = store.etcd.txn([E.cmp_create(leader, 0)], [E.put(leader, "a")])
    store.fence = (leader, int(reply["header"]["revision"]) + 1)  # a revision it does not hold
    with pytest.raises(Fenced):
        with store.batch():
            store.end_leases(["l-1"], "released", 9.0)
    assert isinstance(store.failed, Fenced) and [lease["id"] for lease in watcher.load_leases()] == ["l-1"]
    store.close()
    watcher.close()


def test_etcd_a_transaction_whose_reply_was_lost_is_known_committed(etcd_member, monkeypatch):
    """A member that applies a transaction and dies before answering: Etcd.post sends it again,
    where it is refused (the lease it creates exists). The store's commit mark tells it apart
    from a real conflict: the change is reported stored, not "nothing was done" (CI's failover
    test: a release repeated by the client was then answered "already released")."""
    store = EtcdStore(etcd_member.store_url("/lost-reply"))
    store.upsert_server("tcp://s:1", "up", "sim", "b1", G, 5.0)
    real, lost = store.etcd._post_to, []

    def answer_lost(endpoint, path, body):
        reply = real(endpoint, path, body)
        if path.endswith("/txn") and not lost:
            lost.append(path)
            raise ConnectionResetError("the member died before its answer left")
        return reply

    monkeypatch.setattr(store.etcd, "_post_to", answer_lost)
    with store.batch():
        store.insert_lease(LEASE, ALLOC)
        store.end_leases(["l-1"], "released", 6.0)
        store.insert_lease(dict(LEASE, id="l-2"), ALLOC)
    assert lost and store.failed is None
    watcher = EtcdStore(etcd_member.store_url("/lost-reply"))
    assert [lease["id"] for lease in watcher.load_leases()] == ["l-2"]
    assert watcher.ended_state("l-1") == ("released", "me")
    with pytest.raises(store_etcd.Conflict):                        # a real conflict still is one
        store.insert_lease(dict(LEASE, id="l-2"), ALLOC)
    store.close()
    assert _keys(etcd_member, "/lost-reply/commits") == []             # closing removes the mark
    watcher.close()
