"""End to end, the Kubernetes device plugin (`rgpu-k8s device-plugin`) against a fake kubelet that
speaks the real gRPC protocols on unix sockets (Registration, ListAndWatch, Allocate,
PreStartContainer, GetPreferredAllocation, the pod-resources API) and a fake API server holding
the pods: a controller and a software-GPU server that joined it, pods asking for vGPUs with
annotations, the environment Allocate returns running real CUDA programs, and the ends of a pod's
life — its leases released when the kubelet stops listing its devices, across plugin and kubelet
restarts."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import grpc
import pytest

from tests.support.daemons import wait_until
from tests.support.kubeapi import FakeKubeApi, pod
from tests.support.kubelet import FakeKubelet
from tests.support.pool import Pool, keyed, stats

pytestmark = pytest.mark.e2e
MiB = 1 << 20
NODE = "node-1"


class Cluster:
    """A pool, a fake kubelet and a fake API server, and the plugin under test."""

    def __init__(self, daemons, tmp_path: Path):
        self.daemons, self.tmp_path = daemons, tmp_path
        self.pool = Pool(daemons, tmp_path)
        self.server = self.pool.add_server("1GiB")
        wait_until(lambda: self.pool.states() == {self.server: "up"}, 20, "server up")
        # unix socket paths are limited to 107 bytes: the kubelet's directory is short
        self.root = Path(tempfile.mkdtemp(prefix="kl", dir="/tmp"))
        self.kubelet = FakeKubelet(self.root)
        self.kube = FakeKubeApi(token="sa-token")
        self.token_file = tmp_path / "token"
        self.token_file.write_text("sa-token\n")
        self.host_lib = tmp_path / "host" / "var-lib-rgpu-lib"
        self.container_lib = tmp_path / "container" / "usr-local-rgpu-lib"
        self.state_file = tmp_path / "state" / "state.json"
        self.plugin = None

    def start_plugin(self, *extra: str):
        before = len(self.kubelet.registrations)
        argv = [sys.executable, "-m", "rgpu.k8s.cli", "device-plugin", "--controller", self.pool.url,
                "--node-name", NODE, "--kube-api", self.kube.url, "--kube-token-file", str(self.token_file),
                "--device-plugin-dir", str(self.kubelet.plugin_dir),
                "--pod-resources-socket", str(self.kubelet.pod_resources_socket),
                "--lib-host-dir", str(self.host_lib), "--lib-container-dir", str(self.container_lib),
                "--state-file", str(self.state_file), "--slots", "4",
                "--lease-token-container-dir", str(self.tmp_path / "container" / "run-rgpu-lease"), "--lease-ttl", "30",
                "--reconcile-interval", "0.3", "--release-grace", "3", *extra]
        self.plugin = self.daemons.start(argv, ready=lambda: len(self.kubelet.registrations) > before,
                                         deadline_s=30, env=self.pool.controller.env,
                                         log_path=self.tmp_path / "plugin.log")
        self.kubelet.wait_registered(before + 1)
        return self.plugin

    def leases(self) -> dict:
        return self.pool.leases()

    def close(self):
        self.kubelet.stop()
        self.kube.close()
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture
def cluster(daemons, tmp_path):
    c = Cluster(daemons, tmp_path)
    yield c
    c.close()


def _lease_of(token: str) -> str:
    from rgpu.protocol import tokens
    from tests.support.controller import SECRET
    return tokens.verify(token, SECRET.encode())["lease"]


def container_env(reply) -> tuple[dict, list]:
    """The one container's environment and mounts (the client library's, its lease's token
    folder) of an AllocateResponse."""
    [resp] = reply.container_responses
    return dict(resp.envs), list(resp.mounts)


def run_in_container(env: dict, mounts, argv: list[str]) -> subprocess.CompletedProcess:
    """Run ``argv`` as the container would: with only the environment Allocate returned (and a
    PATH) and the mounts in place (a symlink stands in for the runtime's bind mount)."""
    for mount in mounts:
        target = Path(mount.container_path)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(mount.host_path)
    return subprocess.run(argv, env={"PATH": os.environ["PATH"], **env}, capture_output=True, text=True, timeout=120)


def test_the_plugin_registers_and_advertises_healthy_vgpus(cluster):
    cluster.start_plugin()
    reg = cluster.kubelet.registrations[-1]
    assert (reg.version, reg.resource_name) == ("v1beta1", "rgpu.io/vgpu")
    assert reg.options.pre_start_required and reg.options.get_preferred_allocation_available
    assert Path(cluster.kubelet.plugin_dir / reg.endpoint).is_socket()
    cluster.kubelet.wait(lambda: cluster.kubelet.options is not None, what="options asked")
    assert cluster.kubelet.options.pre_start_required
    assert cluster.kubelet.latest_devices() == [(f"vgpu-{i}", "Healthy") for i in range(4)]
    # the preferred allocation keeps what must be included, then takes the lowest slots
    assert cluster.kubelet.preferred(["vgpu-3", "vgpu-1", "vgpu-2"], ["vgpu-2"], 2) == ["vgpu-2", "vgpu-1"]
    # the client library was installed where Allocate mounts it from
    assert (cluster.host_lib / "librgpu.so").is_file() and os.readlink(cluster.host_lib / "libcuda.so.1") == "librgpu.so"


def test_allocate_reserves_what_the_pod_asks_and_its_environment_runs_cuda_programs(cluster, cuda_program):
    query, copy = cuda_program("device_query"), cuda_program("copy_roundtrip")
    cluster.start_plugin()
    train = cluster.kube.add_pod(pod("train", node=NODE, annotations={"rgpu.io/memory": "256MiB",
                                                                       "rgpu.io/compute": "50"}))
    # another node's pod and an older pod of this node that asks for no vGPU are not candidates
    cluster.kube.add_pod(pod("elsewhere", node="node-2", created="2025-01-01T00:00:00Z"))
    cluster.kube.add_pod(pod("cpu-only", node=NODE, vgpus=0, created="2025-01-01T00:00:00Z"))

    env, mounts = container_env(cluster.kubelet.allocate(["vgpu-0"]))
    cluster.kubelet.assign("default", "train", "main", ["vgpu-0"])     # as the kubelet records it
    [lease] = cluster.leases().values()
    assert lease["owner"] == "k8s:default/train/main"
    [vgpu] = lease["vgpus"]
    assert (vgpu["memory"], vgpu["compute"], vgpu["server"]) == (256 * MiB, 50, cluster.server)
    lib = str(cluster.container_lib)
    assert env["LD_LIBRARY_PATH"] == lib and env["LD_PRELOAD"] == f"{lib}/librgpu.so"
    assert env["RGPU_SERVER"] == f"{keyed(cluster.server)}#{vgpu['index']}"     # with its key: CURVE
    assert env["RGPU_CONTROLLER"] == cluster.pool.url and env["RGPU_LEASE_ID"] == lease["id"]
    library, tokens = mounts
    assert (library.host_path, library.container_path, library.read_only) == (str(cluster.host_lib), lib, True)
    # the lease's current token, in a folder of its own that renewals rewrite (tokens live minutes)
    assert tokens.read_only and env["RGPU_LEASE_FILE"] == f"{tokens.container_path}/token"
    assert Path(tokens.host_path).name == lease["id"]
    kept = Path(tokens.host_path) / "token"
    assert _lease_of(kept.read_text()) == _lease_of(env["RGPU_LEASE"]) == lease["id"]

    p = run_in_container(env, mounts, [str(query)])
    assert p.returncode == 0, p.stdout + p.stderr
    assert "devices 1" in p.stdout and " mem 268435456 " in p.stdout, p.stdout
    p = run_in_container(env, mounts, [str(copy), "16"])
    assert p.returncode == 0 and "OK copy_roundtrip 16 MiB" in p.stdout, p.stdout + p.stderr

    # the lease is written on the pod, where `kubectl describe pod` shows it
    wait_until(lambda: cluster.kube.events, 10, "an event on the pod")
    assert train["metadata"]["annotations"]["rgpu.io/lease.main"] == lease["id"]
    [event] = cluster.kube.events
    assert event["involvedObject"]["name"] == "train" and event["reason"] == "RgpuLeaseReserved"
    assert lease["id"] in event["message"] and "256 MiB 50%" in event["message"]

    # while the kubelet lists the pod's devices the lease lives, and every container (re)start renews
    # it (a restart gets no new Allocate: the container keeps its devices and environment)
    before = kept.read_text()
    cluster.kubelet.prestart(["vgpu-0"])
    assert list(cluster.leases()) == [lease["id"]]
    # ... and its token folder gets the renewal's fresh token
    assert kept.read_text() != before and _lease_of(kept.read_text()) == lease["id"]
    # the pod ends: the kubelet stops listing its devices, and the plugin releases the lease
    cluster.kubelet.unassign("default", "train", "main")
    wait_until(lambda: cluster.leases() == {}, 10, "lease released after the pod ended")
    assert not Path(tokens.host_path).exists()
    with pytest.raises(grpc.RpcError) as err:
        cluster.kubelet.prestart(["vgpu-0"])
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "delete the pod" in err.value.details()


def test_bad_requests_fail_the_allocate_with_a_message_and_hold_no_lease(cluster):
    cluster.start_plugin()
    cluster.kube.add_pod(pod("bad", node=NODE, annotations={"rgpu.io/memory": "lots"}))
    with pytest.raises(grpc.RpcError) as err:
        cluster.kubelet.allocate(["vgpu-0"])
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "default/bad" in err.value.details() and "rgpu.io/memory" in err.value.details()
    cluster.kube.find_pod("bad")["status"]["phase"] = "Failed"     # as the kubelet marks it

    cluster.kube.add_pod(pod("huge", node=NODE, annotations={"rgpu.io/memory": "64GiB"}))
    with pytest.raises(grpc.RpcError) as err:
        cluster.kubelet.allocate(["vgpu-0"])
    # more than any GPU of the pool has: refused at once as impossible, not queued
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "impossible" in err.value.details()
    cluster.kube.find_pod("huge")["status"]["phase"] = "Failed"

    # two containers in one request: the second one's bad annotation takes back the first's lease
    two = [{"name": n, "image": "app", "resources": {"limits": {"rgpu.io/vgpu": "1"}}} for n in ("a", "b")]
    cluster.kube.add_pod(pod("pair", node=NODE, containers=two, annotations={"rgpu.io/compute.b": "150"}))
    with pytest.raises(grpc.RpcError) as err:
        cluster.kubelet.allocate(["vgpu-0"], ["vgpu-1"])
    assert "rgpu.io/compute" in err.value.details()
    assert cluster.leases() == {}
    assert "Traceback" not in cluster.plugin.output()


def test_leases_survive_plugin_and_kubelet_restarts_and_follow_controller_health(cluster):
    cluster.start_plugin()
    cluster.kube.add_pod(pod("a", node=NODE, vgpus=2, annotations={"rgpu.io/memory": "128MiB"}))
    env, _ = container_env(cluster.kubelet.allocate(["vgpu-1", "vgpu-2"]))
    assert len(env["RGPU_SERVER"].split(",")) == 2
    cluster.kubelet.assign("default", "a", "main", ["vgpu-1", "vgpu-2"])
    [lease_id] = cluster.leases()

    # a kubelet restart deletes the plugin's socket: the plugin serves and registers again
    cluster.kubelet.restart()
    cluster.kubelet.wait_registered(2)
    # a plugin restart (upgrade) reads its state file and keeps the lease
    cluster.plugin.stop()
    cluster.start_plugin()
    assert list(cluster.leases()) == [lease_id]
    cluster.kubelet.prestart(["vgpu-2", "vgpu-1"])

    # the controller away: the devices turn Unhealthy (the scheduler stops sending pods), then back
    cluster.pool.controller.stop()
    cluster.kubelet.wait(lambda: cluster.kubelet.latest_devices()[0][1] == "Unhealthy", 20, what="Unhealthy")
    cluster.pool.controller.start()
    cluster.kubelet.wait(lambda: cluster.kubelet.latest_devices()[0][1] == "Healthy", 20, what="Healthy again")

    # the new plugin process releases the lease when the pod ends
    cluster.kubelet.unassign("default", "a", "main")
    wait_until(lambda: cluster.leases() == {}, 10, "lease released by the restarted plugin")


def test_without_the_api_server_a_container_gets_a_whole_gpu(cluster):
    cluster.start_plugin("--kube-api", "none")
    env, _ = container_env(cluster.kubelet.allocate(["vgpu-3"]))
    cluster.kubelet.assign("default", "p1", "main", ["vgpu-3"])
    [lease] = cluster.leases().values()
    whole = stats(cluster.server)["gpus"][0]["memory_total"]
    assert lease["owner"] == "k8s:unmatched" and lease["vgpus"][0]["memory"] == whole
    # the kubelet handing the same device to a new container proves the old one is gone
    cluster.kubelet.unassign("default", "p1", "main")
    env2, _ = container_env(cluster.kubelet.allocate(["vgpu-3"]))
    cluster.kubelet.assign("default", "p2", "main", ["vgpu-3"])
    assert env2["RGPU_LEASE_ID"] != env["RGPU_LEASE_ID"] and list(cluster.leases()) == [env2["RGPU_LEASE_ID"]]
