"""deploy/kubernetes: every object validates against the Kubernetes schemas of a current release
(kubernetes-validate, strict: unknown fields are errors), the kustomizations render to exactly the
files they list (and so does `kubectl kustomize` where kubectl is installed), and the objects agree
with each other and with the code they run: command lines parse with the real click commands,
probes ask the ports /healthz is served on, mounts cover the paths the device plugin uses, the
RBAC rules allow the API calls rgpu makes, and names refer to objects that exist."""
from __future__ import annotations

import copy
import os
import shlex
import shutil
import subprocess
from pathlib import Path
from unittest import mock

import click
import pytest
import yaml
from kubernetes_validate import utils as kv

from rgpu import health
from rgpu.controller.daemon import main as controller_main
from rgpu.k8s.cli import cli as k8s_cli
from rgpu.server.cli import main as server_main

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy" / "kubernetes"
OVERLAYS = ("gpu", "sim")
VERSION = "1.37.0"     # the newest release kubernetes-validate 1.37.0 carries schemas for


def load(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def render(directory: Path) -> list[dict]:
    """A kustomization that only lists resources, as kustomize builds it: the listed files' objects."""
    k = yaml.safe_load((directory / "kustomization.yaml").read_text())
    assert set(k) <= {"apiVersion", "kind", "resources"}, f"{directory}: only resources are used, no transformers"
    out = []
    for item in k["resources"]:
        path = directory / item
        out += render(path) if path.is_dir() else load(path)
    return out


def key(obj: dict) -> tuple:
    return obj["kind"], obj["metadata"].get("namespace", ""), obj["metadata"]["name"]


def manifest_files() -> list[Path]:
    return sorted(p for p in DEPLOY.rglob("*.yaml") if p.name != "kustomization.yaml")


@pytest.fixture(scope="module")
def objects() -> dict[str, dict[tuple, dict]]:
    return {name: {key(o): o for o in render(DEPLOY / name)} for name in OVERLAYS}


def pod_spec(obj: dict) -> dict:
    return obj["spec"] if obj["kind"] == "Pod" else obj["spec"]["template"]["spec"]


def workloads(objs: dict) -> list[dict]:
    return [o for o in objs.values() if o["kind"] in ("Deployment", "DaemonSet")]


def command_line(container: dict, env: dict | None = None) -> list[str]:
    """command + args with $(VAR) expanded as the kubelet expands it."""
    argv = list(container.get("command", [])) + list(container.get("args", []))
    for name, value in (env or {}).items():
        argv = [a.replace(f"$({name})", value) for a in argv]
    return argv


def parse_container(container: dict) -> click.Context:
    """The container's command line parsed by the real click command, in the container's plain
    environment (options read from the environment see it); $(POD_IP) stands for any address."""
    env = {e["name"]: e["value"] for e in container.get("env", []) if "value" in e}
    with mock.patch.dict(os.environ, env):
        return parse(command_line(container, {"POD_IP": "10.0.0.1"}))


def parse(argv: list[str]) -> click.Context:
    commands = {"rgpu-server": server_main, "rgpu-controller": controller_main, "rgpu-k8s": k8s_cli}
    command = commands[argv[0]]
    if isinstance(command, click.Group):
        parent = click.Context(command, info_name=argv[0])
        return command.get_command(parent, argv[1]).make_context(argv[1], argv[2:], parent=parent)
    return command.make_context(argv[0], argv[1:])


@pytest.mark.parametrize("path", manifest_files(), ids=lambda p: str(p.relative_to(DEPLOY)))
def test_every_object_validates_against_the_kubernetes_schemas(path):
    for obj in load(path):
        assert kv.validate(obj, VERSION, strict=True) == VERSION[:4]


def test_the_validator_is_strict():
    obj = load(DEPLOY / "base" / "controller.yaml")[1]
    bad = copy.deepcopy(obj)
    bad["spec"]["replica"] = 1
    with pytest.raises(kv.ValidationError):
        kv.validate(bad, VERSION, strict=True)
    bad = copy.deepcopy(obj)
    bad["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"] = "7440"
    with pytest.raises(kv.ValidationError):
        kv.validate(bad, VERSION, strict=True)


def test_the_overlays_hold_the_common_part_and_their_servers(objects):
    base = {key(o) for o in render(DEPLOY / "base")}
    for name, objs in objects.items():
        assert base < set(objs), name
        servers = [o for o in workloads(objs) if o["metadata"]["name"].startswith("rgpu-server")]
        assert [o["kind"] for o in servers] == ["DaemonSet"]
        device = parse_container(pod_spec(servers[0])["containers"][0]).params["device"]
        assert device == {"gpu": "cuda", "sim": "sim"}[name]
    # every file under deploy/kubernetes except the examples belongs to an overlay
    listed = {str(p) for name in OVERLAYS for p in _listed(DEPLOY / name)}
    assert {str(p) for p in manifest_files() if "examples" not in p.parts} == listed


def _listed(directory: Path) -> list[Path]:
    out = []
    for item in yaml.safe_load((directory / "kustomization.yaml").read_text())["resources"]:
        path = (directory / item).resolve()
        out += _listed(path) if path.is_dir() else [path]
    return out


@pytest.mark.skipif(not shutil.which("kubectl"), reason="kubectl is not installed here")
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_kubectl_kustomize_renders_the_same_objects(overlay, objects):
    p = subprocess.run(["kubectl", "kustomize", str(DEPLOY / overlay)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rendered = {key(o): o for o in yaml.safe_load_all(p.stdout) if o}
    assert rendered == objects[overlay]


def test_the_cuda_servers_ask_for_gpus_and_run_on_gpu_nodes(objects):
    ds = objects["gpu"][("DaemonSet", "rgpu", "rgpu-server-cuda")]
    spec = pod_spec(ds)
    assert int(spec["containers"][0]["resources"]["limits"]["nvidia.com/gpu"]) >= 1
    assert spec["nodeSelector"] == {"nvidia.com/gpu.present": "true"}


def test_command_lines_parse_and_probes_ask_the_healthz_port(objects):
    for objs in objects.values():
        for workload in workloads(objs):
            for container in pod_spec(workload)["containers"]:
                ctx = parse_container(container)
                _, port = health.parse_address(ctx.params.get("metrics_listen") or ctx.params["health_listen"])
                ports = {p["name"]: p["containerPort"] for p in container["ports"]}
                assert ports["health"] == port
                for probe in ("livenessProbe", "readinessProbe"):
                    if probe in container:
                        assert container[probe]["httpGet"] == {"path": health.PATH, "port": "health"}
                assert "livenessProbe" in container, container["name"]


def test_everyone_reaches_the_controller_through_its_service(objects):
    for objs in objects.values():
        svc = objs[("Service", "rgpu", "rgpu-controller")]
        deployment = objs[("Deployment", "rgpu", "rgpu-controller")]
        assert svc["spec"]["selector"].items() <= deployment["spec"]["template"]["metadata"]["labels"].items()
        controller = parse_container(pod_spec(deployment)["containers"][0])
        port = int(controller.params["listen"].rsplit(":", 1)[1])
        assert {p["port"] for p in svc["spec"]["ports"] if p["name"] == "rpc"} == {port}
        url = f"tcp://rgpu-controller.rgpu.svc:{port}"
        for workload in workloads(objs):
            container = pod_spec(workload)["containers"][0]
            if workload is not deployment:
                assert parse_container(container).params["controller"] == url
        # replicas: each tells clients the Service sent to a follower where the leader is (its pod)
        assert deployment["spec"]["replicas"] == 3
        assert controller.params["advertise"] == "tcp://10.0.0.1:7440"


def test_the_controller_replicas_keep_their_state_in_the_etcd_members(objects):
    """Three replicas on three etcd members: --store names every member by its stable name under
    the headless Service, and the members' --initial-cluster names the same pods."""
    from rgpu.controller import etcd as E
    for objs in objects.values():
        deployment = objs[("Deployment", "rgpu", "rgpu-controller")]
        controller = parse_container(pod_spec(deployment)["containers"][0])
        assert controller.params["db_path"] is None
        endpoints, prefix = E.parse_url(controller.params["store_spec"])
        sts = objs[("StatefulSet", "rgpu", "rgpu-etcd")]
        svc = objs[("Service", "rgpu", sts["spec"]["serviceName"])]
        assert svc["spec"]["clusterIP"] == "None" and svc["spec"]["publishNotReadyAddresses"] is True
        assert svc["spec"]["selector"].items() <= sts["spec"]["template"]["metadata"]["labels"].items()
        client_port = {p["name"]: p["port"] for p in svc["spec"]["ports"]}["client"]
        members = [f"rgpu-etcd-{i}" for i in range(sts["spec"]["replicas"])]
        assert endpoints == [f"{m}.rgpu-etcd.rgpu.svc:{client_port}" for m in members] and prefix == "/rgpu"
        [etcd] = pod_spec(sts)["containers"]
        args = etcd["args"]
        flags = {args[i]: args[i + 1] for i in range(0, len(args), 2)}
        peers = dict(item.split("=", 1) for item in flags["--initial-cluster"].split(","))
        assert list(peers) == members
        assert all(url == f"http://{m}.rgpu-etcd.rgpu.svc:2380" for m, url in peers.items())
        assert flags["--advertise-client-urls"] == f"http://$(POD_NAME).rgpu-etcd.rgpu.svc:{client_port}"
        assert flags["--name"] == "$(POD_NAME)"
        assert {p["containerPort"] for p in etcd["ports"]} == {client_port, 2380}
        # its data on the member's own claim; quorum kept through voluntary disruptions
        mount = next(m["mountPath"] for m in etcd["volumeMounts"] if m["name"] == "data")
        assert flags["--data-dir"].startswith(mount + "/")
        assert [t["metadata"]["name"] for t in sts["spec"]["volumeClaimTemplates"]] == ["data"]
        for name, need in (("rgpu-etcd", 2), ("rgpu-controller", 2)):
            assert objs[("PodDisruptionBudget", "rgpu", name)]["spec"]["minAvailable"] == need


def test_the_cluster_secret_is_made_by_the_init_container_and_read_by_the_servers(objects):
    objs = objects["gpu"]
    deployment = objs[("Deployment", "rgpu", "rgpu-controller")]
    [init] = pod_spec(deployment)["initContainers"]
    made = parse_container(init).params
    for workload in workloads(objs):
        if workload["metadata"]["name"] == "rgpu-device-plugin":
            continue
        container = pod_spec(workload)["containers"][0]
        [ref] = [e["valueFrom"]["secretKeyRef"] for e in container["env"] if e["name"] == "RGPU_CLUSTER_SECRET"]
        assert ref == {"name": made["name"], "key": made["key"]}


def test_the_device_plugins_paths_are_mounted_from_the_host(objects):
    ds = objects["sim"][("DaemonSet", "rgpu", "rgpu-device-plugin")]
    spec = pod_spec(ds)
    [container] = spec["containers"]
    params = parse_container(container).params
    host = {v["name"]: v["hostPath"]["path"] for v in spec["volumes"]}
    mounts = {m["mountPath"]: host[m["name"]] for m in container["volumeMounts"]}

    def on_host(path: str) -> str:
        """Where a path of the plugin's container is on the host."""
        for mount, source in mounts.items():
            if path == mount or path.startswith(mount + "/"):
                return source + path[len(mount):]
        raise AssertionError(f"{path} is not on a host mount")

    assert on_host(params["device_plugin_dir"]) == "/var/lib/kubelet/device-plugins"
    assert on_host(params["pod_resources_socket"]) == "/var/lib/kubelet/pod-resources/kubelet.sock"
    # the library is written where Allocate tells the kubelet to mount it from
    assert on_host(params["lib_install_dir"]) == params["lib_host_dir"]
    assert on_host(params["state_file"]).startswith("/var/lib/rgpu/")
    assert params["resource_name"] == "rgpu.io/vgpu"
    env = {e["name"]: e for e in container["env"]}
    assert env["NODE_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "spec.nodeName"
    assert {"operator": "Exists"} in spec["tolerations"]


def _allowed(objs: dict, account: str, namespace: str, verb: str, resource: str, name: str = "") -> bool:
    for binding in (o for o in objs.values() if o["kind"] in ("RoleBinding", "ClusterRoleBinding")):
        if not any(s["kind"] == "ServiceAccount" and s["name"] == account and s["namespace"] == namespace
                   for s in binding["subjects"]):
            continue
        ref = binding["roleRef"]
        role = objs[(ref["kind"], binding["metadata"].get("namespace", "") if ref["kind"] == "Role" else "", ref["name"])]
        for rule in role["rules"]:
            if (verb in rule["verbs"] and resource in rule["resources"] and "" in rule["apiGroups"]
                    and (not rule.get("resourceNames") or name in rule["resourceNames"])):
                return True
    return False


def test_rbac_allows_the_calls_rgpu_makes_and_no_more(objects):
    objs = objects["gpu"]
    # rgpu.k8s.kubeapi: node_pods (list), annotate_pod (patch), pod_event (create events)
    for verb, resource in (("list", "pods"), ("patch", "pods"), ("create", "events")):
        assert _allowed(objs, "rgpu-device-plugin", "rgpu", verb, resource), (verb, resource)
    # ensure-secret: get_secret, create_secret
    assert _allowed(objs, "rgpu-controller", "rgpu", "get", "secrets", "rgpu-cluster-secret")
    assert _allowed(objs, "rgpu-controller", "rgpu", "create", "secrets")
    assert not _allowed(objs, "rgpu-device-plugin", "rgpu", "get", "secrets", "rgpu-cluster-secret")
    assert not _allowed(objs, "rgpu-controller", "rgpu", "get", "secrets", "another-secret")
    assert not _allowed(objs, "rgpu-server", "rgpu", "list", "pods")
    for workload in workloads(objs):
        account = pod_spec(workload)["serviceAccountName"]
        assert ("ServiceAccount", "rgpu", account) in objs


def test_the_example_pod_asks_for_a_vgpu_the_plugin_can_read():
    from rgpu.k8s.pods import reserve_request, PodRef
    [p] = load(DEPLOY / "examples" / "pod-vgpu.yaml")
    [container] = p["spec"]["containers"]
    assert container["resources"]["limits"]["rgpu.io/vgpu"] == 1
    ref = PodRef("default", p["metadata"]["name"], "uid", container["name"],
                 tuple(sorted(p["metadata"]["annotations"].items())))
    assert reserve_request(ref, 1) == {"count": 1, "memory": 2 << 30, "compute": 50}
    assert shlex.join(container["command"]).startswith("/opt/rgpu-demo/bin/")
