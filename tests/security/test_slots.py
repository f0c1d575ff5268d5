"""What one tenant may hold (issue 39, attack 3): sessions per user on a server and leases per user at
the controller are bounded, with refusals that say which bound and how to change it, so one tenant
cannot take every session slot of a GPU. Before: 16 leases of 16 sessions each took all 256 slots of
a GPU (the next tenant was refused), and one user held 87 leases."""
from __future__ import annotations

import pytest

from rgpu.client.controller_client import ControllerError
from tests.component.controller.controller_fixtures import GiB, fake_gpus
from tests.security.test_module_cache import _owned_token
from tests.security.test_server_wire import _uuid
from tests.support.controller import ControllerProc
from tests.support.daemons import wait_until
from tests.support.pool import stats
from tests.support.session import Refused, Session

MiB = 1 << 20


def test_one_user_cannot_take_every_session_slot(secret_server):
    plain_url, url, _ = secret_server("--max-sessions-per-lease", "3", "--max-sessions-per-user", "4")
    uuid = _uuid(url)
    first, second = (_owned_token(plain_url, uuid, "mallory", f"l-mallory-{i}") for i in (1, 2))
    held = [Session(url, lease=first) for _ in range(3)] + [Session(url, lease=second)]
    with pytest.raises(Refused) as info:            # her second lease is under its own bound, not hers
        Session(url, lease=second)
    assert info.value.reply["error"] == "busy"
    assert "mallory already has 4 sessions" in info.value.reply["message"]
    assert "--max-sessions-per-user" in info.value.reply["message"]
    alice = Session(url, lease=_owned_token(plain_url, uuid, "alice", "l-alice"))   # another tenant gets in
    assert alice.call("cudaMalloc", MiB)[0] == 0
    held.pop().close()                              # a session of hers ends: she may open one again
    wait_until(lambda: len(stats(plain_url)["sessions"]) == 4, 20, "the closed session reaped")
    held.append(Session(url, lease=second))
    for s in held + [alice]:
        s.close()


def _one_gpu(controller):
    with controller.fleet() as fleet:
        fleet.register("tcp://gpu1:7000", "b1", "sim", fake_gpus(1, "A", memory=64 * GiB))
    return controller


def test_leases_per_user_are_bounded(controller):
    _one_gpu(controller)
    with controller.client(credential=controller.user("mallory")) as mallory, \
            controller.client(credential=controller.user("alice")) as alice, controller.client() as admin:
        leases = [mallory.reserve(memory=16 * MiB, compute=0)["lease"] for _ in range(32)]   # the default bound
        with pytest.raises(ControllerError) as info:            # before: 87 and counting
            mallory.reserve(memory=16 * MiB, compute=0)
        assert info.value.code == "busy" and "mallory already holds 32 leases" in info.value.message
        assert "--max-leases-per-user" in info.value.message
        assert alice.reserve(memory=16 * MiB, compute=0)["lease"]                 # others are not held up
        with pytest.raises(ControllerError):                    # an admin reserving for her counts for her
            admin.reserve(memory=16 * MiB, compute=0, owner="mallory")
        assert admin.reserve(memory=16 * MiB, compute=0)["lease"]                 # an admin's own: not capped
        mallory.release(leases[0])
        assert mallory.reserve(memory=16 * MiB, compute=0)["lease"]


def test_the_lease_bound_is_the_operators_to_set(daemons, tmp_path):
    controller = _one_gpu(ControllerProc(daemons, tmp_path, ["--max-leases-per-user", "2"]).start())
    with controller.client(credential=controller.user("mallory")) as mallory:
        mallory.reserve(memory=16 * MiB, compute=0)
        mallory.reserve(memory=16 * MiB, compute=0)
        with pytest.raises(ControllerError) as info:
            mallory.reserve(memory=16 * MiB, compute=0)
        assert "holds 2 leases" in info.value.message


def test_a_tenant_opening_sessions_fast_is_paced_and_nobody_else_waits(secret_server):
    """A session flood (issue 39, attack 3's figure): past --session-open-burst, one user's hellos
    wait for their turn at --session-open-rate, behind nobody else's. Before: every hello was given
    a worker at once, and a tenant churning at its cap cost a neighbour 4.5-16x its p99."""
    import threading
    plain_url, url, _ = secret_server("--session-open-burst", "2", "--session-open-rate", "0.1")
    uuid = _uuid(url)
    mallory = _owned_token(plain_url, uuid, "mallory", "l-mallory")
    held = [Session(url, lease=mallory) for _ in range(2)]           # her burst: at once
    third: list = []
    opener = threading.Thread(target=lambda: third.append(Session(url, lease=mallory)), daemon=True)
    opener.start()
    wait_until(lambda: stats(plain_url)["hellos_waiting"].get("mallory") == 1, 20, "mallory's third hello waiting")
    alice = Session(url, lease=_owned_token(plain_url, uuid, "alice", "l-alice"))   # not behind mallory's
    assert not third, "mallory's third hello was served before its turn"
    assert alice.call("cudaMalloc", MiB)[0] == 0
    opener.join(25)                                                  # her turn comes (one open per 10 s)
    assert third and third[0].call("cudaMalloc", MiB)[0] == 0
    for s in held + third + [alice]:
        s.close()
