"""``--failover`` leases as the controller sees them (fake clock, no servers): the request records it
and the token says so (the servers keep checkpoints only for such sessions); ``failover`` moves a
vGPU off its server at once, to another server with room, in the store too, and answers the lease
as it is now; a lease without ``--failover``, or a pool with no other room, is refused."""
import pytest

from rgpu.controller.handlers import handle
from rgpu.controller.requests import Request
from rgpu.controller.service import ApiError, Controller
from rgpu.controller.users import Peer
from rgpu.protocol import tokens

GiB = 1 << 30
SECRET = b"unit-test-secret-0123456789"
S1, S2 = "tcp://s1:7000", "tcp://s2:7000"


def gpus(prefix, memory=16 * GiB):
    return [{"uuid": f"{prefix}0", "index": 0, "name": "SimGPU", "memory_total": memory, "compute_capability": "8.0"}]


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


@pytest.fixture
def ctl(open_store):
    clock = Clock()
    c = Controller(open_store(), SECRET, heartbeat_timeout=5.0, clock=clock)
    c.clock_ = clock
    c.register(S1, gpus("A"), "sim", "b1")
    c.register(S2, gpus("B"), "sim", "b2")
    c.open_store = open_store
    return c


def reserve(ctl, **req):
    return ctl.reserve(Request.from_wire(req), ttl=600, owner="t", wait=0.0)


def test_the_request_and_the_token_carry_failover(ctl):
    lease = reserve(ctl, memory=4 * GiB, failover=True)
    assert lease.request["failover"] is True
    assert tokens.verify(lease.token(SECRET), SECRET, now=ctl.clock_.t)["failover"] is True
    plain = reserve(ctl, memory=4 * GiB)
    assert "failover" not in plain.request and "failover" not in tokens.verify(plain.token(SECRET), SECRET, now=ctl.clock_.t)
    reply = handle(ctl, {"cmd": "lease", "lease": lease.id}, Peer("user", "t"))
    assert reply["ok"] and reply["lease"]["request"]["failover"] is True


def test_failover_moves_the_vgpu_to_another_server_now(ctl):
    lease = reserve(ctl, memory=4 * GiB, failover=True)
    src = lease.slots[0].gpu
    other = S2 if src.server.url == S1 else S1
    reply = handle(ctl, {"cmd": "failover", "lease": lease.id, "vgpu": 0}, Peer("user", "t"))
    assert reply["ok"] and reply["failover"] is True
    assert [v["server"] for v in reply["vgpus"]] == [other] and reply["vgpus"][0]["server_key"]
    dst = lease.slots[0].gpu
    assert dst.server.url == other and src.memory_used == 0 and dst.memory_used == 4 * GiB
    claims = tokens.verify(reply["token"], SECRET, now=ctl.clock_.t)
    assert claims["vgpus"][0]["uuid"] == dst.uuid, "the new token opens sessions on the new GPU"
    stored = [a["gpu"] for row in ctl.open_store().load_leases() if row["id"] == lease.id for a in row["allocations"]]
    assert stored == [dst.uuid], "the move is in the store: a restarted controller keeps it"
    assert lease.id not in ctl.valid_leases(src.server.url), "the old server ends what is left of the session"


def test_failover_is_refused_without_the_option_or_without_room(ctl):
    plain = reserve(ctl, memory=4 * GiB)
    with pytest.raises(ApiError) as e:
        ctl.fail_over(plain.id, 0)
    assert e.value.code == "no_failover"
    big = reserve(ctl, memory=12 * GiB, failover=True)
    reserve(ctl, memory=12 * GiB)  # the other server's room is taken
    where = big.slots[0].gpu
    with pytest.raises(ApiError) as e:
        ctl.fail_over(big.id, 0)
    assert e.value.code == "no_capacity" and big.slots[0].gpu is where, "nothing moved"
    with pytest.raises(ApiError) as e:
        ctl.fail_over(big.id, 3)
    assert e.value.code == "bad_request"
    other_user = handle(ctl, {"cmd": "failover", "lease": big.id, "vgpu": 0}, Peer("user", "someone-else"))
    assert not other_user["ok"]


def test_a_lease_degraded_by_its_dead_server_is_active_again_once_it_left_it(ctl):
    lease = reserve(ctl, memory=4 * GiB, failover=True)
    dead = lease.slots[0].gpu.server.url
    live, boot = (S2, "b2") if dead == S1 else (S1, "b1")
    ctl.clock_.t += 10
    ctl.heartbeat(live, boot, {})
    ctl._check_heartbeats(ctl.clock_.t)
    assert lease.state == "degraded"
    ctl.fail_over(lease.id, 0)
    assert lease.state == "active" and lease.slots[0].gpu.server.url == live
    assert next(row for row in ctl.open_store().load_leases() if row["id"] == lease.id)["state"] == "active"


def test_a_second_process_that_lost_the_same_server_finds_the_vgpu_moved_already(ctl):
    lease = reserve(ctl, memory=4 * GiB, failover=True)
    lost = lease.slots[0].gpu.server.url
    first = handle(ctl, {"cmd": "failover", "lease": lease.id, "vgpu": 0, "lost": lost}, Peer("user", "t"))
    moved_to = lease.slots[0].gpu
    assert first["ok"] and moved_to.server.url != lost
    second = handle(ctl, {"cmd": "failover", "lease": lease.id, "vgpu": 0, "lost": lost}, Peer("user", "t"))
    assert second["ok"] and lease.slots[0].gpu is moved_to, "not moved again: it left that server already"
    assert second["vgpus"][0]["server"] == moved_to.server.url


def test_servers_lost_earlier_in_the_recovery_are_not_chosen_again(ctl):
    """The program lost its server, then the one it was placed on before its session resumed there: it
    asks again naming that one (lost) and the first (avoid), which the pool still counts as up (their
    heartbeats are not late yet). The vGPU goes to the third server, or nowhere: no_capacity."""
    S3 = "tcp://s3:7000"
    ctl.register(S3, gpus("C"), "sim", "b3")
    lease = reserve(ctl, memory=4 * GiB, failover=True)
    first = lease.slots[0].gpu.server.url
    handle(ctl, {"cmd": "failover", "lease": lease.id, "vgpu": 0, "lost": first}, Peer("user", "t"))
    second = lease.slots[0].gpu.server.url
    reply = handle(ctl, {"cmd": "failover", "lease": lease.id, "vgpu": 0, "lost": second, "avoid": [first]},
                   Peer("user", "t"))
    [third] = {S1, S2, S3} - {first, second}
    assert reply["ok"] and reply["vgpus"][0]["server"] == third == lease.slots[0].gpu.server.url
    reply = handle(ctl, {"cmd": "failover", "lease": lease.id, "vgpu": 0, "lost": third, "avoid": [first, second]},
                   Peer("user", "t"))
    assert not reply["ok"] and reply["error"] == "no_capacity", reply
    assert lease.slots[0].gpu.server.url == third, "nothing moved"
    for bad in ("tcp://s1:7000", [1], ["x"] * 65):
        reply = handle(ctl, {"cmd": "failover", "lease": lease.id, "vgpu": 0, "lost": third, "avoid": bad},
                       Peer("user", "t"))
        assert not reply["ok"] and reply["error"] == "bad_request", (bad, reply)
