"""Share-only leases (issue 39, attack 2): a share-only lease enforces no memory quota or compute
limit of its own, so only an operator grants one, and even then it never takes the memory another
lease was placed with. Before: an ordinary user reserved --mem 16 --share-only and allocated the whole
GPU; another tenant's lease already placed there then had nothing."""
from __future__ import annotations

import pytest

from rgpu.client.controller_client import ControllerError
from tests.component.controller.controller_fixtures import GiB, fake_gpus
from tests.support.controller import ControllerProc
from tests.support.daemons import wait_until
from tests.support.pool import Pool, keyed
from tests.support.session import Session

MiB = 1 << 20
OOM = 2  # cudaErrorMemoryAllocation


def _one_gpu(controller):
    with controller.fleet() as fleet:
        fleet.register("tcp://gpu1:7000", "b1", "sim", fake_gpus(1, "A", memory=4 * GiB))
    return controller


def test_share_only_is_for_operators(controller):
    _one_gpu(controller)
    with controller.client(credential=controller.user("mallory")) as mallory, controller.client() as admin:
        with pytest.raises(ControllerError) as info:               # before: granted to anyone
            mallory.reserve(memory=16 * MiB, share_only=True)
        assert info.value.code == "forbidden" and "operator" in info.value.message
        assert mallory.reserve(memory=16 * MiB)["vgpus"][0]["share_only"] is False  # a plain lease is hers
        granted = admin.reserve(memory=16 * MiB, share_only=True, owner="mallory")  # an admin grants it
        assert granted["vgpus"][0]["share_only"] is True
        assert [x["id"] for x in mallory.leases() if x["share_only"]] == [granted["lease"]]


def test_an_operator_grants_share_only_per_user(daemons, tmp_path):
    controller = _one_gpu(ControllerProc(daemons, tmp_path, ["--share-only-user", "trusted"]).start())
    with controller.client(credential=controller.user("trusted")) as trusted, \
            controller.client(credential=controller.user("mallory")) as mallory:
        assert trusted.reserve(memory=16 * MiB, share_only=True)["vgpus"][0]["share_only"] is True
        with pytest.raises(ControllerError):
            mallory.reserve(memory=16 * MiB, share_only=True)


def _allocate_all(s: Session, step: int = 64 * MiB) -> tuple[int, list[int]]:
    got = []
    while True:
        rc, outs, _, _ = s.call("cudaMalloc", step)
        if rc == OOM:
            return len(got) * step, got
        assert rc == 0
        got.append(outs[0])


def test_share_only_never_takes_a_placed_lease_memory(daemons, tmp_path):
    pool = Pool(daemons, tmp_path)
    url = pool.add_server("1GiB")
    wait_until(lambda: pool.states() == {url: "up"}, 60, "the server up")
    ctl = pool.controller
    with ctl.client(credential=ctl.user("alice")) as alice, ctl.client(credential=ctl.user("bob")) as bob, \
            ctl.client() as admin:
        placed = alice.reserve(memory=256 * MiB)                  # placed; no session opened yet
        shared = admin.reserve(memory=16 * MiB, share_only=True)
        greedy = Session(keyed(url), lease=shared["token"])
        took, chunks = _allocate_all(greedy)
        # before: 1024 MiB, the whole GPU; now what no other lease was placed with
        assert took == 768 * MiB
        rc, (free, _), _, _ = greedy.call("cudaMemGetInfo")
        assert rc == 0 and free < 64 * MiB
        tenant = Session(keyed(url), lease=placed["token"])
        assert tenant.call("cudaMalloc", 256 * MiB)[0] == 0      # alice's guarantee is there

        # a lease placed after the share-only one's token: honoured from the controller's next view on
        later = bob.reserve(memory=128 * MiB)
        for ptr in chunks[-4:]:
            assert greedy.call("cudaFree", ptr)[0] == 0            # 256 MiB given back ...
        wait_until(lambda: greedy.call("cudaMemGetInfo")[1][0] == 128 * MiB, 20,
                   "the share-only vGPU's room shrunk by bob's placement")
        assert _allocate_all(greedy)[0] == 128 * MiB             # ... of which it may retake only half
        assert Session(keyed(url), lease=later["token"]).call("cudaMalloc", 128 * MiB)[0] == 0
