"""The controller state machine with a fake clock: expiry, renew, release, heartbeats, the wait
queue, and a restart from the database."""
import pytest

from rgpu.controller.requests import Request
from rgpu.controller.service import ApiError, Controller
from rgpu.controller.waitqueue import Ticket
from rgpu.protocol import tokens

GiB = 1 << 30
SECRET = b"unit-test-secret-0123456789"


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def gpus(n, memory=16 * GiB):
    return [{"uuid": f"G{i}", "index": i, "name": "SimGPU", "memory_total": memory} for i in range(n)]


@pytest.fixture
def env(tmp_path, open_store):
    clock = Clock()
    ctl = Controller(open_store(), SECRET, heartbeat_timeout=5.0, clock=clock)
    ctl.register("tcp://s1:7000", gpus(2), "sim", "boot1")
    yield ctl, clock, open_store


def reserve(ctl, ttl=10, wait=0.0, **req):
    return ctl.reserve(Request.from_wire(req), ttl=ttl, owner="t", wait=wait)


def test_lease_expires_and_frees_its_gpu(env):
    ctl, clock, _ = env
    lease = reserve(ctl, count=2, policy="spread")
    assert all(g.compute_free == 0 for g in ctl.pool.gpus.values())
    clock.t += 9
    ctl.tick()
    assert ctl.leases.get(lease.id) is lease
    clock.t += 2
    ctl.tick()
    assert ctl.leases.get(lease.id) is None
    assert all(g.compute_free == 100 and g.allocations == 0 for g in ctl.pool.gpus.values())
    with pytest.raises(ApiError) as info:
        ctl.renew(lease.id)
    assert info.value.code == "lease_ended" and "expired" in info.value.message


def test_renew_pushes_expiry(env):
    ctl, clock, _ = env
    lease = reserve(ctl)
    clock.t += 8
    ctl.renew(lease.id)
    clock.t += 8
    ctl.tick()
    assert ctl.leases.get(lease.id) is lease


def test_a_lease_kept_while_used_lives_while_its_server_holds_sessions_of_it(env, open_store):
    """A program's own lease (env-only) stops being renewed when the program is stopped; its server
    still holding the program's sessions keeps it, and once they end it expires after its TTL."""
    ctl, clock, _ = env
    kept, plain = reserve(ctl, memory=GiB, kept_while_used=True), reserve(ctl, memory=GiB)
    assert kept.request["kept_while_used"] and "kept_while_used" not in plain.request
    ctl.register("tcp://s2:7000", [{**gpus(1)[0], "uuid": "H0"}], "sim", "boot2")
    both = {kept.id: {"sessions": 1}, plain.id: {"sessions": 1}}
    for _ in range(25):                  # 25 s of heartbeats, 2.5 TTLs, no renewal
        clock.t += 1
        ctl.heartbeat("tcp://s1:7000", "boot1", {"leases": both})
        # a server that holds none of its vGPUs cannot speak for it
        ctl.heartbeat("tcp://s2:7000", "boot2", {"leases": {kept.id: {"sessions": 1}}})
        ctl.tick()
    assert ctl.leases.get(kept.id) is kept and ctl.leases.get(plain.id) is None
    # the renewals are in the store: a restarted controller keeps it as well
    assert {x["id"]: x["expires"] for x in open_store().load_leases()}[kept.id] == kept.expires > clock.t
    for _ in range(11):                  # its sessions ended (the program died): no more keeping
        clock.t += 1
        ctl.heartbeat("tcp://s1:7000", "boot1", {"leases": {kept.id: {"sessions": 0}}})
        ctl.heartbeat("tcp://s2:7000", "boot2", {"leases": {kept.id: {"sessions": 1}}})
        ctl.tick()
    assert ctl.leases.get(kept.id) is None


def test_double_release_and_unknown_lease(env):
    ctl, _, _ = env
    lease = reserve(ctl)
    ctl.release(lease.id)
    with pytest.raises(ApiError) as info:
        ctl.release(lease.id)
    assert info.value.code == "lease_ended"
    with pytest.raises(ApiError) as info:
        ctl.release("l-nope")
    assert info.value.code == "unknown_lease"


def test_token_names_the_vgpus_and_verifies(env):
    ctl, clock, _ = env
    lease = reserve(ctl, memory=2 * GiB, compute=30, limit=60)
    claims = tokens.verify(lease.token(SECRET), SECRET, now=clock.t)
    assert claims["lease"] == lease.id
    assert claims["vgpus"] == [{"server": "tcp://s1:7000", "uuid": lease.slots[0].gpu.uuid,
                                "index": lease.slots[0].gpu.index, "memory": 2 * GiB,
                                "compute": 30, "limit": 60}]


def test_missed_heartbeats_mark_server_down_and_lease_degraded(env):
    ctl, clock, _ = env
    lease = reserve(ctl, ttl=3600)
    clock.t += 4
    assert ctl.heartbeat("tcp://s1:7000", "boot1", {}) == [lease.id]
    clock.t += 6
    ctl.tick()
    assert ctl.pool.servers["tcp://s1:7000"].state == "down" and lease.state == "degraded"
    with pytest.raises(ApiError) as info:
        reserve(ctl, memory=GiB)
    assert info.value.code == "no_capacity" and "1 down" in info.value.message
    ctl.heartbeat("tcp://s1:7000", "boot1", {})        # it comes back
    assert ctl.pool.servers["tcp://s1:7000"].state == "up" and lease.state == "active"
    with pytest.raises(ApiError) as info:
        ctl.heartbeat("tcp://s1:7000", "other-boot", {})
    assert info.value.code == "unknown_server"


def test_wait_queue_places_when_room_frees(env):
    ctl, clock, _ = env
    first = reserve(ctl, count=2, policy="spread")
    ticket = reserve(ctl, wait=30)
    assert isinstance(ticket, Ticket) and ctl.queue.position(ticket) == 1
    assert ctl.poll(ticket.id)[1] is None
    ctl.release(first.id)
    _, lease = ctl.poll(ticket.id)
    assert lease is not None and lease.slots[0].compute == 100
    with pytest.raises(ApiError):
        ctl.poll(ticket.id)                               # collected: forgotten


def test_wait_queue_times_out_with_free_summary(env):
    ctl, clock, _ = env
    reserve(ctl, count=2, policy="spread")
    ticket = reserve(ctl, wait=5)
    clock.t += 4
    ctl.heartbeat("tcp://s1:7000", "boot1", {})
    clock.t += 2
    ctl.tick()
    with pytest.raises(ApiError) as info:
        ctl.poll(ticket.id)
    assert info.value.code == "wait_timeout" and "0 of 2 GPUs" in info.value.message


def test_a_ticket_sent_again_after_a_restart_gets_its_lease_or_its_place_back(env):
    """Tickets live in the controller's memory: after a restart (a new leader), the client sends
    its request again with the ticket's id; the lease placed for it before is handed over, once."""
    ctl, clock, open_store = env
    first = reserve(ctl, count=2, policy="spread")
    placed, waiting = reserve(ctl, wait=60), reserve(ctl, wait=60)
    ctl.release(first.id)                  # room for both: the queue places them, nobody polls yet
    assert placed.lease_id and waiting.lease_id
    lease_of_placed = placed.lease_id
    ctl.release(waiting.lease_id)          # (its lease ends: this one must queue again below)
    reserve(ctl)                           # and the pool is full again
    ctl.store.close()
    again = Controller(open_store(), SECRET, clock=clock)
    assert len(again.queue) == 0
    got = again.reserve(Request.from_wire({}), ttl=10, owner="t", wait=60, ticket=placed.id)
    assert got.id == lease_of_placed and got.request["ticket"] == placed.id
    # another user naming that ticket gets nothing of it: a ticket of their own, queued
    other = again.reserve(Request.from_wire({}), ttl=10, owner="u", wait=60, ticket=placed.id)
    assert isinstance(other, Ticket) and other.owner == "u"
    queued = again.reserve(Request.from_wire({}), ttl=10, owner="t", wait=60, ticket=waiting.id)
    assert isinstance(queued, Ticket) and queued.id == waiting.id     # the same id: polls go on
    assert again.reserve(Request.from_wire({}), ttl=10, owner="t", wait=60, ticket=waiting.id) is queued
    with pytest.raises(ApiError) as info:
        again.reserve(Request.from_wire({}), ttl=10, owner="t", wait=60, ticket="../x")
    assert info.value.code == "bad_request"


def test_restart_restores_servers_leases_and_charges(env):
    ctl, clock, open_store = env
    lease = reserve(ctl, ttl=3600, memory=4 * GiB, compute=40, count=2, policy="spread")
    gone = reserve(ctl, memory=GiB, compute=0)
    ctl.release(gone.id)
    ctl.store.close()
    again = Controller(open_store(), SECRET, clock=clock)
    restored = again.leases.get(lease.id)
    assert restored is not None and restored.vgpus() == lease.vgpus()
    assert again.leases.get(gone.id) is None
    assert {u: (g.memory_used, g.compute_used) for u, g in again.pool.gpus.items()} == \
        {"G0": (4 * GiB, 40), "G1": (4 * GiB, 40)}
    with pytest.raises(ApiError) as info:
        again.release(gone.id)
    assert info.value.code == "lease_ended"


def test_reregistration_with_fewer_gpus_keeps_allocations(env):
    ctl, _, _ = env
    lease = reserve(ctl, count=2, policy="spread")
    ctl.register("tcp://s1:7000", gpus(1), "sim", "boot2")
    assert ctl.valid_leases("tcp://s1:7000") == [lease.id]
    ctl.release(lease.id)
    assert reserve(ctl).slots[0].gpu.uuid == "G0"
    with pytest.raises(ApiError):
        reserve(ctl)                                     # G1 is no longer reported


def test_bad_ttl(env):
    ctl, _, _ = env
    with pytest.raises(ApiError) as info:
        reserve(ctl, ttl=-1)
    assert info.value.code == "bad_request"


def test_the_parts_of_one_gpu_join_as_gpus_only_in_parts_of_one_count(env):
    """`rgpu-server --gpu-part I/N` registers GPU-x/part-I-of-N: the halves of a GPU are two GPUs of
    the pool; a third of it, or the whole of it, beside them would promise some of its memory twice
    and is refused (gpu_taken, naming the server that serves it); a part already held stays with its
    server; once the parts' servers are forgotten the GPU may be served whole."""
    ctl, clock, _ = env
    half = [{"uuid": f"GPU-x/part-{i}-of-2", "index": 0, "name": "H200", "memory_total": 70 * GiB} for i in (1, 2)]
    ctl.register("tcp://a:7450", half[:1], "cuda", "ba")
    ctl.register("tcp://b:7450", half[1:], "cuda", "bb")
    assert {"GPU-x/part-1-of-2", "GPU-x/part-2-of-2"} <= set(ctl.pool.gpus)
    for uuid in ("GPU-x/part-1-of-3", "GPU-x"):
        with pytest.raises(ApiError) as info:
            ctl.register("tcp://c:7450", [{"uuid": uuid, "index": 0, "name": "H200", "memory_total": GiB}], "cuda", "bc")
        assert info.value.code == "gpu_taken" and "twice" in info.value.message and "tcp://a:7450" in info.value.message
    with pytest.raises(ApiError) as info:
        ctl.register("tcp://c:7450", half[:1], "cuda", "bc")
    assert info.value.code == "gpu_taken" and "tcp://a:7450" in info.value.message
    assert "tcp://c:7450" not in ctl.pool.servers
    ctl.register("tcp://a:7450", half[:1], "cuda", "ba2")  # its own server again: a restart
    clock.t += 10
    ctl.tick()  # both down: no heartbeats
    for url in ("tcp://a:7450", "tcp://b:7450"):
        ctl.forget_server(url)
    ctl.register("tcp://c:7450", [{"uuid": "GPU-x", "index": 0, "name": "H200", "memory_total": 140 * GiB}], "cuda", "bc")
    assert "GPU-x" in ctl.pool.gpus and not any(u.startswith("GPU-x/") for u in ctl.pool.gpus)
