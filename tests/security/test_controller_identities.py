"""The controller lets no one in where they do not belong (issue 16, "High" 1 and 2): strangers are
refused at the handshake, users act on their own leases only (a lease id grants nothing), only
holders of the cluster credential register servers, a GPU stays with the server that registered it,
a malformed heartbeat breaks nothing, and a restart expires no lease before its renewers are back."""
from __future__ import annotations

import time

import msgpack
import pytest
import zmq

from rgpu.client.controller_client import ControllerClient, ControllerError
from rgpu.client.credentials import Credential
from rgpu.protocol import curve
from tests.component.controller.controller_fixtures import GiB, fake_gpus
from tests.support.controller import CONTROLLER_KEY
from tests.support.daemons import wait_until


def _raw(url: str, frames: list, keys: curve.Keypair | None = None, timeout_ms: int = 1500):
    """What an attacker's socket gets back (None: nothing)."""
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    if keys is not None:
        curve.as_client(sock, keys, CONTROLLER_KEY)
    sock.connect(url)
    try:
        sock.send_multipart(frames)
        return msgpack.unpackb(sock.recv(), raw=False) if sock.poll(timeout_ms) else None
    finally:
        sock.close(0)


@pytest.fixture
def pool(controller):
    with controller.fleet() as fleet:
        fleet.register("tcp://gpu1:7000", "b1", "sim", fake_gpus(2, "A", memory=4 * GiB))
    return controller


def test_strangers_are_refused_before_any_message_is_read(pool):
    # before: any socket could send any command; now plain peers and unknown keys get nothing back
    for cmd in ({"cmd": "ping"}, {"cmd": "leases"},
                {"cmd": "register", "url": "tcp://rogue:1", "boot_id": "x", "gpus": fake_gpus(1, "R")}):
        assert _raw(pool.url, [msgpack.packb(cmd)]) is None
        assert _raw(pool.url, [msgpack.packb(cmd)], curve.new_keypair()) is None
    stranger = Credential("mallory", "user", curve.new_keypair(), CONTROLLER_KEY, "a key of her own")
    with ControllerClient(pool.url, timeout=5, credential=stranger) as c, pytest.raises(ControllerError) as info:
        c.ping()
    assert info.value.code == "unauthenticated" and "does not know the credential" in info.value.message
    with pool.client() as admin:
        assert [s["url"] for s in admin.ls()["servers"]] == ["tcp://gpu1:7000"]   # no rogue server joined


def test_a_lease_id_grants_nothing_to_another_user(pool):
    with pool.client(credential=pool.user("alice")) as alice, pool.client(credential=pool.user("mallory")) as mallory:
        lease = alice.reserve(memory=GiB, compute=25)
        lease_id = lease["lease"]
        # before: `renew` handed the token to whoever named the id, `release` ended anyone's lease
        for attempt in (lambda: mallory.renew(lease_id), lambda: mallory.release(lease_id),
                        lambda: mallory.lease(lease_id)):
            with pytest.raises(ControllerError) as info:
                attempt()
            assert info.value.code == "unknown_lease" and "token" not in str(info.value)
        # before: everyone's leases (ids, owners) were listed to everyone
        assert mallory.leases() == []
        tenants = [t for s in mallory.ls()["servers"] for g in s["gpus"] for t in g["tenants"]]
        assert tenants == [{"lease": "", "owner": "", "memory": GiB, "compute": 25, "limit": 100}]
        assert lease_id not in str(mallory.ls())
        # the owner still has it, renews it and sees its token
        assert alice.renew(lease_id)["token"].startswith("rgpu1.")
        assert [x["id"] for x in alice.leases()] == [lease_id]
    with pool.client() as admin:                           # an admin sees and acts on all
        assert [x["owner"] for x in admin.leases()] == ["alice"]
        admin.release(lease_id)


def test_only_servers_register_and_heartbeat(pool):
    with pool.client(credential=pool.user("mallory")) as mallory:
        for cmd, fields in (("register", {"url": "tcp://rogue:1", "boot_id": "x", "backend": "sim",
                                          "gpus": fake_gpus(1, "H100", name="NVIDIA H100")}),
                            ("heartbeat", {"url": "tcp://gpu1:7000", "boot_id": "b1", "usage": {}})):
            reply = mallory.call_raw(cmd, **fields)
            assert (reply["ok"], reply["error"]) == (False, "forbidden"), reply
    with pool.fleet() as fleet:                            # servers cannot reserve either
        assert fleet.call_raw("reserve", memory=GiB)["error"] == "forbidden"


def test_a_gpu_stays_with_the_server_that_registered_it_until_forgotten(pool):
    taken = fake_gpus(2, "A", memory=4 * GiB)              # tcp://gpu1:7000's GPUs
    with pool.fleet() as fleet:
        with pytest.raises(ControllerError) as info:
            fleet.register("tcp://rogue:7000", "r", "sim", taken)
        assert info.value.code == "gpu_taken" and "tcp://gpu1:7000" in info.value.message
        with pool.client() as admin:
            gpus = {g["uuid"]: s["url"] for s in admin.ls()["servers"] for g in s["gpus"]}
            assert set(gpus.values()) == {"tcp://gpu1:7000"}
            # an admin forgets the server once it is down; then its GPUs may register elsewhere
            assert admin.call_raw("forget_server", url="tcp://gpu1:7000")["error"] == "server_up"
            wait_until(lambda: admin.ls()["servers"][0]["state"] == "down", 10, "server down")
            with pool.client(credential=pool.user("bob")) as bob:
                assert bob.call_raw("forget_server", url="tcp://gpu1:7000")["error"] == "forbidden"
            admin.call("forget_server", url="tcp://gpu1:7000")
        fleet.register("tcp://moved:7000", "m", "sim", taken)


@pytest.mark.parametrize("usage", [{"leases": [1, 2]}, {"leases": {"l-1": "junk"}}, {"gpus": "x"}, [1],
                                   {"leases": {"l-1": {"device_time_s": "lots", "sessions": [1]}}}])
def test_a_malformed_heartbeat_breaks_nothing(pool, usage):
    with pool.fleet() as fleet:
        reply = fleet.call_raw("heartbeat", url="tcp://gpu1:7000", boot_id="b1", usage=usage)
        assert reply["ok"] or reply["error"] == "bad_request", reply
    with pool.client() as admin:                           # before: `leases` failed for everyone after it
        admin.reserve(memory=GiB)
        assert len(admin.leases()) == 1 and admin.ls()["ok"]


def test_a_restarted_controller_expires_no_lease_before_its_renewers_are_back(pool):
    with pool.client() as admin:
        lease = admin.reserve(memory=GiB, ttl=2)["lease"]
    pool.stop()
    wait_until(lambda: not pool.handle.alive(), 10, "controller stopped")
    time.sleep(3)          # an outage longer than the lease's TTL (before: it expired at once on restart)
    pool.start()
    with pool.client() as admin:
        assert [x["id"] for x in admin.leases()] == [lease]
        admin.renew(lease)


def test_one_user_cannot_fill_the_wait_queue(pool):
    with pool.client(credential=pool.user("mallory")) as mallory:
        hog = mallory.reserve(count=2, policy="spread", memory=4 * GiB)["lease"]       # the pool is full
        replies = [mallory.call_raw("reserve", memory=GiB, wait=60) for _ in range(20)]
        assert [r.get("queued", False) for r in replies] == [True] * 16 + [False] * 4
        assert {r["error"] for r in replies[16:]} == {"busy"}
        with pool.client(credential=pool.user("alice")) as alice:     # others may still queue
            assert alice.call_raw("reserve", memory=GiB, wait=60)["queued"]
        mallory.release(hog)
