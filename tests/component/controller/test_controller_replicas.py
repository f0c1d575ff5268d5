"""Controller replicas on one etcd store: one leads, the others send clients to it, a killed
leader is replaced and its leases survive, a leader cut off from etcd stops placing, and a store
that cannot be used is refused at start."""
import os
import subprocess
import threading
import time
import sys

import pytest

from rgpu.client.controller_client import ControllerClient, ControllerError
from rgpu.controller.store_etcd import EtcdStore
from tests.component.controller.controller_fixtures import ControllerProc, fake_gpus, server_credential
from tests.support.daemons import free_port, wait_until
from tests.support.etcd import EtcdCluster

GiB = 1 << 30


def role(proc) -> str:
    try:
        with ControllerClient(proc.url, timeout=1.0, credential=server_credential()) as c:
            return c.ping().get("role", "")
    except ControllerError:
        return ""


def leader_of(procs):
    leaders = [p for p in procs if p.handle.alive() and role(p) == "leader"]
    return leaders[0] if len(leaders) == 1 else None


def replicas(daemons, tmp_path, store_url, n, extra=()):
    """``n`` replicas started one after another (they share one config dir: the first writes the
    admin credential); RGPU_CONTROLLER of each is the list of all."""
    procs = [ControllerProc(daemons, tmp_path, ["--heartbeat-timeout", "30", *extra], store=store_url,
                            name=f"controller-{i}") for i in range(n)]
    urls = ",".join(p.url for p in procs)
    for p in procs:
        p.env["RGPU_CONTROLLER"] = urls
        p.start()
    return procs, urls


@pytest.fixture
def etcd1(tmp_path):
    with EtcdCluster(tmp_path, members=1) as cluster:
        yield cluster


def test_one_replica_leads_and_clients_of_any_replica_reach_it(etcd1, daemons, tmp_path):
    procs, urls = replicas(daemons, tmp_path, etcd1.store_url("/ha"), 2)
    leader = wait_until(lambda: leader_of(procs), 15, "one leader")
    follower = next(p for p in procs if p is not leader)
    assert role(follower) == "follower"
    # a client listing the follower first is sent on to the leader
    with ControllerClient(f"{follower.url},{leader.url}", credential=server_credential()) as fleet:
        fleet.register("tcp://s1:7000", "b1", "sim", fake_gpus(2, "G", memory=4 * GiB))
        assert fleet.url == leader.url
    # a client that knows only the follower is redirected to the leader's advertised URL
    with ControllerClient(follower.url, credential=leader.admin()) as c:
        lease = c.reserve(memory=GiB, ttl=60)["lease"]
        assert c.url == leader.url
    assert EtcdStore(etcd1.store_url("/ha")).gpu_commitments()["G-0"]["memory"] == GiB
    # the CLI takes the list too
    out = subprocess.run([sys.executable, "-m", "rgpu.client.cli", "leases", "--json"], env=follower.env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and lease in out.stdout, out.stderr


def test_a_killed_leader_is_replaced_and_its_leases_live_on(etcd1, daemons, tmp_path):
    procs, urls = replicas(daemons, tmp_path, etcd1.store_url("/ha"), 2)
    leader = wait_until(lambda: leader_of(procs), 15, "one leader")
    with ControllerClient(urls, credential=server_credential()) as fleet:
        fleet.register("tcp://s1:7000", "b1", "sim", fake_gpus(1, "G", memory=4 * GiB))
    with ControllerClient(urls, credential=leader.admin()) as c:
        lease = c.reserve(memory=3 * GiB, ttl=60)["lease"]
        leader.kill()
        new = wait_until(lambda: leader_of(procs), 15, "a new leader")
        assert new is not leader
        assert c.renew(lease)["lease"] == lease          # not lost: renewed on the new leader
        with pytest.raises(ControllerError) as info:     # and still charged: no room for another
            c.reserve(memory=2 * GiB, ttl=60)
        assert info.value.code == "no_capacity"
        assert c.url == new.url


def test_a_leader_cut_off_from_etcd_stops_placing(daemons, tmp_path):
    with EtcdCluster(tmp_path, members=3) as etcd:
        cut = ControllerProc(daemons, tmp_path, ["--heartbeat-timeout", "30"],
                             store=f"etcd://{etcd.endpoints[0]}/ha", name="controller-cut").start()
        wait_until(lambda: role(cut) == "leader", 15, "the first replica leads")
        other = ControllerProc(daemons, tmp_path, ["--heartbeat-timeout", "30"],
                               store="etcd://" + ",".join(etcd.endpoints[1:]) + "/ha", name="controller-other").start()
        with ControllerClient(cut.url, credential=server_credential()) as fleet:
            fleet.register("tcp://s1:7000", "b1", "sim", fake_gpus(1, "G", memory=4 * GiB))
        etcd.kill(0)
        with ControllerClient(cut.url, credential=cut.admin()) as c:
            with pytest.raises(ControllerError):          # its write fails: nothing placed
                c.reserve(memory=GiB, ttl=60)
        wait_until(lambda: role(other) == "leader", 15, "the replica that reaches etcd leads")
        wait_until(lambda: role(cut) == "follower", 15, "the cut-off replica steps down")
        with ControllerClient(f"{cut.url},{other.url}", credential=cut.admin()) as c:
            c.reserve(memory=GiB, ttl=60)
            assert c.url == other.url
        store = EtcdStore("etcd://" + ",".join(etcd.endpoints[1:]) + "/ha")
        assert store.gpu_commitments()["G-0"]["allocations"] == 1
        daemons.stop_all()          # while etcd runs: a replica gives up its lead as it stops


def test_an_unusable_store_is_refused_at_start(tmp_path, etcd1):
    env = {**os.environ, "RGPU_CLUSTER_SECRET": "component-test-secret-0123456789",
           "RGPU_CONFIG_DIR": str(tmp_path / "cfg")}
    base = [sys.executable, "-m", "rgpu.controller.daemon", "--listen", f"tcp://127.0.0.1:{free_port()}"]
    out = subprocess.run(base + ["--store", f"etcd://127.0.0.1:{free_port()}/x"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "cannot reach etcd" in out.stderr
    client = EtcdStore(etcd1.store_url("/other")).etcd
    client.txn([], [{"request_put": {"key": "L2ZvcmVpZ24vYXBwL2NvbmZpZw==", "value": "e30="}}])  # /foreign/app/config
    out = subprocess.run(base + ["--store", etcd1.store_url("/foreign")], env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode != 0 and "not rgpu's" in out.stderr
    assert [kv.key for kv in client.range("/foreign/", prefix=True)[0]] == ["/foreign/app/config"]
    out = subprocess.run(base + ["--store", "redis://x:1"], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "etcd://" in out.stderr
    # a replica must say where clients reach it: followers send them to the leader's URL
    out = subprocess.run([*base[:3], "--listen", f"tcp://0.0.0.0:{free_port()}", "--store", etcd1.store_url("/ok")],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "--advertise" in out.stderr


def test_a_waiting_reservation_survives_the_leaders_death(etcd1, daemons, tmp_path):
    """`rgpu reserve --wait` (reserve_waiting) queued on a leader that is killed: its client sends
    the request again under the ticket's id to the new leader, which places it once room frees."""
    procs, urls = replicas(daemons, tmp_path, etcd1.store_url("/ha"), 2)
    leader = wait_until(lambda: leader_of(procs), 15, "one leader")
    with ControllerClient(urls, credential=server_credential()) as fleet:
        fleet.register("tcp://s1:7000", "b1", "sim", fake_gpus(1, "G", memory=4 * GiB))
    holder = ControllerClient(urls, credential=leader.admin())
    held = holder.reserve(memory=4 * GiB, ttl=60)["lease"]
    seen, outcome = [], {}

    def wait():
        with ControllerClient(urls, credential=leader.admin()) as c:
            try:
                outcome["reply"] = c.reserve_waiting({"memory": 4 * GiB, "ttl": 60}, 60,
                                                     lambda r: seen.append((time.monotonic(), r)))
            except ControllerError as exc:
                outcome["error"] = exc
    waiter = threading.Thread(target=wait)
    waiter.start()
    try:
        wait_until(lambda: seen, 15, "the request queued")
        ticket = seen[0][1]["ticket"]
        leader.kill()
        new = wait_until(lambda: leader_of(procs), 20, "a new leader")
        elected = time.monotonic()
        # the waiting client hears from the new leader that it waits there, under the same ticket
        wait_until(lambda: seen[-1][0] > elected + 1, 30, "the request queued on the new leader")
        assert not outcome and {r["ticket"] for _, r in seen} == {ticket}
        holder.release(held)                                   # room frees, on the new leader
    finally:
        waiter.join(60)
        holder.close()
    assert "reply" in outcome, outcome
    lease = outcome["reply"]["lease"]
    with ControllerClient(urls, credential=new.admin()) as c:
        assert c.lease(lease)["request"]["ticket"] == ticket
        assert [x["id"] for x in c.leases()] == [lease]
    store = EtcdStore(etcd1.store_url("/ha"))
    try:
        assert store.gpu_commitments()["G-0"]["allocations"] == 1
    finally:
        store.close()
    daemons.stop_all()
