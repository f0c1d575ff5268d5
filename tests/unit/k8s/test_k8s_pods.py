"""Which pod an Allocate is for, and the reserve request its annotations make (rgpu.k8s.pods)."""
from __future__ import annotations

import pytest

from rgpu.k8s.pods import PodRef, PodRequestError, match, reserve_request
from tests.support.kubeapi import pod

R = "rgpu.io/vgpu"


def container(name: str, vgpus: int = 0, key: str = "limits") -> dict:
    return {"name": name, "image": "x", "resources": {key: {R: str(vgpus)}} if vgpus else {}}


def test_the_oldest_pending_pod_with_a_container_asking_this_many_wins():
    young = pod("young", node="n", vgpus=1, created="2026-01-02T00:00:00Z")
    old = pod("old", node="n", vgpus=1, created="2026-01-01T00:00:00Z")
    two = pod("two", node="n", vgpus=2, created="2025-01-01T00:00:00Z")
    ref = match([young, old, two], R, 1, set())
    assert (ref.name, ref.container, ref.uid) == ("old", "main", old["metadata"]["uid"])
    assert match([young, old, two], R, 2, set()).name == "two"
    # once a container holds an allocation, the next Allocate of the same size is the next pod's
    assert match([young, old, two], R, 1, {(old["metadata"]["uid"], "main")}).name == "young"
    assert not match([young, old], R, 3, set())


def test_pods_that_never_asked_running_or_deleted_pods_are_never_matched():
    cpu = pod("cpu", node="n", vgpus=0)
    running = pod("running", node="n", vgpus=1, phase="Running")
    deleted = pod("deleted", node="n", vgpus=1)
    deleted["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    assert not match([cpu, running, deleted], R, 1, set())
    other = pod("other", node="n", vgpus=1, resource="example.com/gpu")
    assert not match([other], R, 1, set())


def test_a_pods_containers_are_matched_in_the_kubelets_order_init_containers_first():
    p = pod("p", node="n", containers=[container("app", 1), container("side", 2)])
    p["spec"]["initContainers"] = [container("init", 1, key="requests"), container("plain")]
    uid = p["metadata"]["uid"]
    assert match([p], R, 1, set()).container == "init"
    assert match([p], R, 1, {(uid, "init")}).container == "app"
    # the next container in order asks for 2: an Allocate of 1 is not this pod's
    assert not match([p], R, 1, {(uid, "init"), (uid, "app")})
    assert match([p], R, 2, {(uid, "init"), (uid, "app")}).container == "side"


def ref(annotations: dict, container: str = "main") -> PodRef:
    return PodRef("ns", "p", "uid-1", container, tuple(sorted(annotations.items())))


def test_annotations_make_the_request_and_a_container_specific_one_wins():
    assert reserve_request(PodRef(), 2) == {"count": 2}
    assert PodRef().owner == "k8s:unmatched" and ref({}).owner == "k8s:ns/p/main"
    req = reserve_request(ref({"rgpu.io/memory": "8GiB", "rgpu.io/compute": "50", "rgpu.io/limit": "80%",
                               "rgpu.io/policy": "spread", "rgpu.io/model": "A100", "rgpu.io/exclusive": "false",
                               "rgpu.io/same-node": "true", "other.io/memory": "1GiB"}), 2)
    assert req == {"count": 2, "memory": 8 << 30, "compute": 50, "limit": 80, "policy": "spread",
                   "model": "A100", "same_node": True}
    assert reserve_request(ref({"rgpu.io/memory": "50%"}), 1) == {"count": 1, "memory_fraction": 0.5}
    both = {"rgpu.io/memory": "8GiB", "rgpu.io/memory.trainer": "2GiB"}
    assert reserve_request(ref(both, "trainer"), 1)["memory"] == 2 << 30
    assert reserve_request(ref(both, "sidecar"), 1)["memory"] == 8 << 30
    assert reserve_request(ref({"rgpu.io/exclusive": "yes"}), 1)["exclusive"] is True


@pytest.mark.parametrize("key,value,says", [
    ("memory", "lots", "rgpu.io/memory"), ("memory", "0", "rgpu.io/memory"),
    ("compute", "101", "rgpu.io/compute"), ("compute", "half", "rgpu.io/compute"),
    ("limit", "0", "rgpu.io/limit"), ("policy", "random", "binpack, spread"),
    ("exclusive", "maybe", "true or false"),
])
def test_a_bad_annotation_is_an_error_that_names_it(key, value, says):
    with pytest.raises(PodRequestError, match=says.replace(".", r"\.")):
        reserve_request(ref({f"rgpu.io/{key}": value}), 1)
