"""Live migration as the controller sees it (fake clock, no servers): orders charge the target
first, go out with the source's heartbeat replies, and a report commits the move (the vGPU's
allocation moves, in the database too) or aborts it (the target's room comes back); moves without
room are refused before anything is ordered; drain and defrag order the right moves."""
import msgpack
import pytest

from rgpu.controller.handlers import handle
from rgpu.controller.requests import Request
from rgpu.controller.service import ApiError, Controller
from rgpu.controller.users import Peer
from rgpu.protocol import tokens

GiB = 1 << 30
SECRET = b"unit-test-secret-0123456789"
S1, S2 = "tcp://s1:7000", "tcp://s2:7000"


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def gpus(prefix, n=1, memory=16 * GiB):
    return [{"uuid": f"{prefix}{i}", "index": i, "name": "SimGPU", "memory_total": memory,
             "compute_capability": "8.0"} for i in range(n)]


@pytest.fixture
def env(open_store):
    clock = Clock()
    ctl = Controller(open_store(), SECRET, heartbeat_timeout=5.0, clock=clock)
    ctl.register(S1, gpus("A"), "sim", "b1")
    ctl.register(S2, gpus("B"), "sim", "b2")
    yield ctl, clock, open_store


def reserve(ctl, **req):
    return ctl.reserve(Request.from_wire(req), ttl=600, owner="t", wait=0.0)


def stored(open_store, lease_id):
    """The GPUs of ``lease_id``'s allocations as the store holds them (opened afresh)."""
    return [a["gpu"] for row in open_store().load_leases() if row["id"] == lease_id for a in row["allocations"]]


def report(ctl, url, boot, mid, **rep):
    ctl.heartbeat(url, boot, {"migrations": {mid: rep}})


def test_a_move_is_charged_first_ordered_with_heartbeats_and_committed_by_the_report(env):
    ctl, clock, tmp = env
    lease = reserve(ctl, memory=4 * GiB)
    src = lease.slots[0].gpu
    dst_url, boot = (S2, "b2") if src.server.url == S1 else (S1, "b1")
    [m] = ctl.migrate(lease.id, to=f"{dst_url}#0")
    dst = ctl.pool.gpus[m.target.gpu.uuid]
    assert dst.server.url == dst_url and dst.memory_used == 4 * GiB and src.memory_used == 4 * GiB
    assert lease.id in ctl.valid_leases(dst_url), "the target may restore the lease's sessions meanwhile"
    [order] = ctl.orders(src.server.url)
    assert order["id"] == m.id and order["vgpu"] == 0 and order["to"].startswith(dst_url + "@")
    claims = tokens.verify(order["token"], SECRET, now=clock.t)
    assert claims["vgpus"][0]["uuid"] == dst.uuid, "the token names the target's GPU"
    assert ctl.orders(dst_url) == []
    src_boot = "b1" if src.server.url == S1 else "b2"
    report(ctl, src.server.url, src_boot, m.id, state="running")
    assert ctl.orders(src.server.url) == [], "an order the server reported on is not sent again"
    report(ctl, src.server.url, src_boot, m.id, state="done", pause_s=0.05, memory_bytes=1234, sessions=1)
    assert m.state == "done" and lease.slots[0].gpu is dst
    assert src.memory_used == 0 and dst.memory_used == 4 * GiB
    assert lease.vgpus()[0]["server"] == dst_url and stored(tmp, lease.id) == [dst.uuid]
    assert lease.id not in ctl.valid_leases(src.server.url) and lease.id in ctl.valid_leases(dst_url)
    wire = handle(ctl, {"cmd": "migration", "migration": m.id}, Peer("user", "t"))
    assert wire["ok"] and wire["migration"]["pause_s"] == 0.05 and wire["migration"]["state"] == "done"
    msgpack.packb(wire)


def test_a_failed_move_gives_the_targets_room_back_and_the_lease_stays(env):
    ctl, clock, tmp = env
    lease = reserve(ctl, memory=4 * GiB)
    src = lease.slots[0].gpu
    [m] = ctl.migrate(lease.id)
    dst = m.target.gpu
    assert dst is not src and dst.memory_used == 4 * GiB
    report(ctl, src.server.url, "b1" if src.server.url == S1 else "b2", m.id, state="failed", message="boom")
    assert m.state == "failed" and m.message == "boom" and dst.memory_used == 0
    assert lease.slots[0].gpu is src and stored(tmp, lease.id) == [src.uuid]


def test_a_move_without_room_is_refused_before_anything_is_ordered(env):
    ctl, _, _ = env
    lease = reserve(ctl, memory=10 * GiB)
    other = reserve(ctl, memory=10 * GiB)
    assert other.slots[0].gpu is not lease.slots[0].gpu
    target = other.slots[0].gpu
    with pytest.raises(ApiError) as info:
        ctl.migrate(lease.id, to=f"{target.server.url}#0")
    assert info.value.code == "no_capacity" and "cannot take" in info.value.message
    with pytest.raises(ApiError) as info:
        ctl.migrate(lease.id)
    assert info.value.code == "no_capacity"
    assert target.memory_used == 10 * GiB and not ctl.migrations.pending()
    with pytest.raises(ApiError) as info:
        ctl.migrate(lease.id, to="tcp://nowhere:1")
    assert info.value.code == "unknown_server"
    reply = handle(ctl, {"cmd": "migrate", "lease": lease.id, "vgpu": "x"}, Peer("user", "t"))
    assert reply["error"] == "bad_request"


def test_someone_elses_lease_cannot_be_moved(env):
    ctl, _, _ = env
    lease = reserve(ctl, memory=GiB)
    reply = handle(ctl, {"cmd": "migrate", "lease": lease.id}, Peer("user", "mallory"))
    assert reply["error"] == "unknown_lease" and not ctl.migrations.pending()


def test_drain_moves_every_vgpu_off_a_server_and_places_nothing_new_there(env, open_store):
    ctl, clock, _ = env
    leases = [reserve(ctl, memory=GiB) for _ in range(3)]
    on = {lease.slots[0].gpu.server.url for lease in leases}
    assert on == {S1} or on == {S2}, "binpack put them together"
    [url] = on
    moves = ctl.drain(url)
    assert len(moves) == 3 and all(m.target.gpu.server.url != url and m.reason == "drain" for m in moves)
    fresh = reserve(ctl, memory=GiB, policy="spread")
    assert fresh.slots[0].gpu.server.url != url
    # a restart keeps the server draining and the pending moves charged
    ctl.store.close()
    again = Controller(open_store(), SECRET, heartbeat_timeout=5.0, clock=clock)
    assert again.pool.servers[url].draining and len(again.migrations.pending()) == 3
    target = again.pool.gpus[moves[0].target.gpu.uuid]
    assert target.memory_used == 4 * GiB   # 3 moving in + the fresh lease


def test_defrag_empties_the_least_used_gpu(env):
    ctl, _, _ = env
    big = reserve(ctl, memory=8 * GiB)
    small = reserve(ctl, memory=GiB, policy="spread")
    assert small.slots[0].gpu is not big.slots[0].gpu
    assert ctl.defrag(dry_run=True) == [{"lease": small.id, "vgpu": 0,
                                         "from": f"{small.slots[0].gpu.server.url}#0",
                                         "to": f"{big.slots[0].gpu.server.url}#0"}]
    assert not ctl.migrations.pending()
    [move] = ctl.defrag()
    assert ctl.migrations.get(move["migration"]).target.gpu is big.slots[0].gpu


def test_a_reclaimed_vgpu_is_not_charged_until_its_server_reports_it_restored(env, open_store):
    ctl, clock, _ = env
    lease = reserve(ctl, memory=4 * GiB, reclaim_after=60)
    gpu = lease.slots[0].gpu
    url, boot = gpu.server.url, "b1" if gpu.server.url == S1 else "b2"
    assert tokens.verify(lease.token(SECRET), SECRET, now=clock.t)["reclaim_after"] == 60
    ctl.heartbeat(url, boot, {"reclaimed": [[lease.id, 0, 0, 0.0]]})
    assert gpu.memory_used == 0 and lease.to_wire(clock.t)["state"] == "reclaimed"
    assert lease.vgpus()[0]["reclaimed"] is True
    with pytest.raises(ApiError) as info:
        ctl.migrate(lease.id)
    assert info.value.code == "reclaimed"
    # a restart keeps it uncharged
    ctl.store.close()
    again = Controller(open_store(), SECRET, heartbeat_timeout=5.0, clock=clock)
    relo = again.leases.get(lease.id)
    assert relo.reclaimed and again.pool.gpus[gpu.uuid].memory_used == 0
    again.register(url, [g for g in gpus("A" if url == S1 else "B")], "sim", boot)
    again.heartbeat(url, boot, {"reclaimed": []})
    assert not relo.reclaimed and again.pool.gpus[gpu.uuid].memory_used == 4 * GiB
    assert relo.to_wire(clock.t)["state"] == "active"
    again.release(relo.id)
    assert again.pool.gpus[gpu.uuid].memory_used == 0
