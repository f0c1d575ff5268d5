"""rgpu-controller migrate-store: a SQLite pool copied into etcd comes back the same (servers,
leases and their charges, ended leases, pending migrations); a dry run and a second copy write
nothing."""
from click.testing import CliRunner

from rgpu.controller import etcd as E
from rgpu.controller.migrate_store import migrate_store
from rgpu.controller.requests import Request
from rgpu.controller.service import Controller
from rgpu.controller.store import Store
from rgpu.controller.store_etcd import EtcdStore

GiB = 1 << 30
SECRET = b"unit-test-secret-0123456789"


def gpus(prefix, n):
    return [{"uuid": f"{prefix}{i}", "index": i, "name": "SimGPU", "memory_total": 16 * GiB,
             "compute_capability": "8.0"} for i in range(n)]


def test_a_sqlite_pool_is_copied_into_etcd(tmp_path, etcd_member):
    db = tmp_path / "c.db"
    ctl = Controller(Store(db), SECRET)
    ctl.register("tcp://s1:7000", gpus("A", 2), "sim", "b1")
    ctl.register("tcp://s2:7000", gpus("B", 1), "sim", "b2")
    kept = [ctl.reserve(Request.from_wire({"memory": 4 * GiB, "compute": 30}), ttl=600, owner="ann") for _ in range(3)]
    ctl.release(ctl.reserve(Request.from_wire({"memory": GiB}), ttl=600, owner="bob").id)
    elsewhere = "tcp://s1:7000" if kept[0].slots[0].gpu.server.url == "tcp://s2:7000" else "tcp://s2:7000"
    [moving] = ctl.migrate(kept[0].id, to=elsewhere)
    ctl.store.close()
    url = etcd_member.store_url("/copied")
    runner = CliRunner()

    dry = runner.invoke(migrate_store, ["--from", f"sqlite:{db}", "--to", url, "--dry-run"])
    assert dry.exit_code == 0 and "3 servers" not in dry.output and "2 servers, 3 gpus, 3 leases" in dry.output, dry.output
    probe = E.Etcd(etcd_member.endpoints)
    assert probe.range("/copied/", prefix=True)[0] == []          # nothing written

    done = runner.invoke(migrate_store, ["--from", f"sqlite:{db}", "--to", url])
    assert done.exit_code == 0 and "copied 2 servers, 3 gpus, 3 leases, 3 allocations, 1 ended, 1 migrations" \
        in done.output, done.output
    again = Controller(EtcdStore(url), SECRET)
    assert sorted(again.leases.leases) == sorted(lease.id for lease in kept)
    assert {u: g.memory_used for u, g in again.pool.gpus.items()} == \
        {u: g.memory_used for u, g in ctl.pool.gpus.items()}
    assert [m.id for m in again.migrations.pending()] == [moving.id]
    assert again.store.ended_state(next(iter(ctl.recently_ended)))[0] == "released"
    again.store.close()

    twice = runner.invoke(migrate_store, ["--from", f"sqlite:{db}", "--to", url])
    assert twice.exit_code != 0 and "already holds a pool" in twice.output
    probe.close()


def test_a_copy_into_an_etcd_that_serves_tls(tmp_path):
    """--to etcds:// with --etcd-cacert/--etcd-cert/--etcd-key (or RGPU_ETCD_*); without the client
    certificate the copy is refused, nothing written."""
    from tests.support.etcd import EtcdCluster
    from tests.support.pki import make_pki
    db = tmp_path / "c.db"
    ctl = Controller(Store(db), SECRET)
    ctl.register("tcp://s1:7000", gpus("A", 1), "sim", "b1")
    ctl.reserve(Request.from_wire({"memory": GiB}), ttl=600, owner="ann")
    ctl.store.close()
    with EtcdCluster(tmp_path, members=1, tls=make_pki(tmp_path / "pki")) as etcd:
        url, pki = etcd.store_url("/copied"), etcd.tls
        runner = CliRunner()
        refused = runner.invoke(migrate_store, ["--from", f"sqlite:{db}", "--to", url, "--etcd-cacert", str(pki.ca)])
        assert refused.exit_code != 0 and "client certificate" in refused.output, refused.output
        done = runner.invoke(migrate_store, ["--from", f"sqlite:{db}", "--to", url],
                             env={"RGPU_ETCD_CACERT": str(pki.ca), "RGPU_ETCD_CERT": str(pki.client_cert),
                                  "RGPU_ETCD_KEY": str(pki.client_key)})
        assert done.exit_code == 0 and "copied 1 servers, 1 gpus, 1 leases" in done.output, done.output
        store = EtcdStore(url, tls=etcd.client_tls())
        assert len(store.load_leases()) == 1
        store.close()
