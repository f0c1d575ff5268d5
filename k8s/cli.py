"""``rgpu-k8s``: the commands rgpu's Kubernetes manifests run.

    rgpu-k8s device-plugin --controller tcp://rgpu-controller.rgpu:7440     # DaemonSet, every node
    rgpu-k8s ensure-secret --name rgpu-cluster-secret                         # init container
"""
from __future__ import annotations

import os
import secrets
import shutil
import signal
import threading
import time
from pathlib import Path

import click

from rgpu import health, logs
from rgpu.client.controller_client import ControllerClient, ControllerError
from rgpu.commands import DaemonGroup
from rgpu.paths import LibraryMissing, libdir

from .kubeapi import KubeApi, KubeApiError
from .kubelet import KubeletError, PluginHost, devices_in_use
from .plugin import PluginConfig, VgpuPlugin
from .tenancy import ADOPTION_GRACE_S, Tenancy


@click.group(cls=DaemonGroup, name="rgpu-k8s", context_settings={"help_option_names": ["-h", "--help"]})
def cli():
    """rgpu on Kubernetes."""


def install_library(source: Path, target: Path) -> None:
    """Copy the client library (and the libraries bundled beside it) to ``target``, the host
    directory Allocate mounts into containers; the files are replaced atomically one by one, so
    a container starting meanwhile sees a whole old or new library."""
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.iterdir()):
        dest = target / path.name
        tmp = target / f".{path.name}.tmp"
        if tmp.is_symlink() or tmp.exists():
            tmp.unlink()
        if path.is_symlink():
            tmp.symlink_to(os.readlink(path))
        elif path.is_file():
            shutil.copy2(path, tmp)
        else:
            continue
        os.replace(tmp, dest)


@cli.command("device-plugin")
@click.option("--controller", envvar="RGPU_CONTROLLER", required=True, help="Controller URL (env RGPU_CONTROLLER).")
@click.option("--resource-name", default="rgpu.io/vgpu", show_default=True, help="The extended resource pods ask for.")
@click.option("--slots", type=click.IntRange(1, 1024), default=16, show_default=True,
              help="vGPUs the containers of this node may hold at once (devices advertised).")
@click.option("--node-name", envvar="NODE_NAME", default="", help="This node (env NODE_NAME): where pods are looked up.")
@click.option("--kube-api", default="in-cluster", show_default=True,
              help="Kubernetes API URL for reading pod annotations; 'none': no lookup (every vGPU a whole GPU).")
@click.option("--kube-token-file", type=click.Path(dir_okay=False), default=None, help="Bearer token for --kube-api URL.")
@click.option("--device-plugin-dir", default="/var/lib/kubelet/device-plugins", show_default=True,
              type=click.Path(file_okay=False), help="The kubelet's device-plugin directory.")
@click.option("--pod-resources-socket", default="/var/lib/kubelet/pod-resources/kubelet.sock", show_default=True,
              type=click.Path(dir_okay=False), help="The kubelet's pod-resources API (tells which pods ended).")
@click.option("--lib-install-dir", type=click.Path(file_okay=False), default=None,
              help="Where this process writes the client library (default: --lib-host-dir).")
@click.option("--lib-host-dir", default="/var/lib/rgpu/lib", show_default=True,
              help="That directory as the host sees it (the mount source Allocate returns).")
@click.option("--lib-container-dir", default="/usr/local/rgpu/lib", show_default=True,
              help="Where containers see the client library.")
@click.option("--state-file", type=click.Path(dir_okay=False), default="/var/lib/rgpu/device-plugin/state.json",
              show_default=True, help="The leases held for containers (kept across plugin restarts).")
@click.option("--lease-token-dir", type=click.Path(file_okay=False), default=None,
              help="Where the current token of each lease is kept for its container, which sees it as "
                   "/run/rgpu/lease/token (RGPU_LEASE_FILE): renewals refresh it (default: leases/ beside --state-file).")
@click.option("--lease-token-host-dir", default=None,
              help="That directory as the host sees it (the mount source Allocate returns; default: --lease-token-dir).")
@click.option("--lease-token-container-dir", default="/run/rgpu/lease", show_default=True,
              help="Where containers see their lease's token folder.")
@click.option("--lease-ttl", type=click.FloatRange(10, 7 * 24 * 3600), default=300.0, show_default=True,
              help="Seconds a lease outlives this plugin if it stops renewing.")
@click.option("--reconcile-interval", type=click.FloatRange(0.2, 600), default=5.0, show_default=True,
              help="Seconds between looks at which pods ended.")
@click.option("--release-grace", type=click.FloatRange(0, 3600), default=ADOPTION_GRACE_S, show_default=True,
              help="Seconds after an Allocate before its devices' absence from the pod-resources API "
                   "counts as the pod having ended (the kubelet records the assignment after Allocate returns).")
@click.option("--health-listen", default=None, metavar="HOST:PORT", help="Serve GET /healthz over HTTP here.")
@click.option("--log-level", default="info", show_default=True)
def device_plugin(controller, resource_name, slots, node_name, kube_api, kube_token_file, device_plugin_dir,
                  pod_resources_socket, lib_install_dir, lib_host_dir, lib_container_dir, state_file, lease_token_dir,
                  lease_token_host_dir, lease_token_container_dir, lease_ttl,
                  reconcile_interval, release_grace, health_listen, log_level):
    """Advertise vGPUs of the rgpu pool to the kubelet; each Allocate reserves a lease for the
    container and mounts the client library into it; a pod that ends releases its leases."""
    log = logs.configure("device-plugin", log_level)
    try:
        install_library(libdir(build=False), Path(lib_install_dir or lib_host_dir))
    except (LibraryMissing, OSError) as exc:
        raise click.ClickException(f"cannot install the client library into {lib_install_dir or lib_host_dir}: {exc}")
    kube = None
    if kube_api == "in-cluster":
        try:
            kube = KubeApi.in_cluster()
        except KubeApiError as exc:
            log.warning("pods_no_api", reason=exc.message)
    elif kube_api != "none":
        kube = KubeApi(kube_api, kube_token_file)
    config = PluginConfig(resource_name, slots, controller, node_name, lib_host_dir, lib_container_dir,
                          lease_token_host_dir, lease_token_container_dir)
    client = ControllerClient(controller, timeout=5.0)
    tenancy = Tenancy(client, state_file, lease_ttl, release_grace,
                      token_dir=lease_token_dir or (Path(state_file).parent / "leases" if state_file else None))
    plugin = VgpuPlugin(config, tenancy, kube)
    endpoint = "rgpu-" + resource_name.replace("/", "-").replace(".", "-") + ".sock"
    host = PluginHost(plugin, device_plugin_dir, endpoint, resource_name)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    if health_listen:
        health.serve(health_listen, lambda: None if host.registered.is_set() else "not registered with the kubelet")
    schedule = {"renew": 0.0, "reconcile": 0.0, "ping": 0.0}

    def tick():
        now = time.monotonic()
        if now >= schedule["ping"]:
            schedule["ping"] = now + 5.0
            try:
                client.ping(timeout=2.0)
                plugin.set_healthy(True)
            except ControllerError:
                plugin.set_healthy(False)
        if now >= schedule["renew"]:
            schedule["renew"] = now + lease_ttl / 3
            tenancy.renew_all()
        if now >= schedule["reconcile"]:
            schedule["reconcile"] = now + reconcile_interval
            try:
                tenancy.reconcile(devices_in_use(pod_resources_socket, resource_name))
            except KubeletError as exc:
                log.warning("pods_resources_unavailable", error=str(exc))

    log.info("plugin_starting", resource=resource_name, slots=slots, controller=controller, node=node_name or None,
             pod_lookup=kube.url if kube else None)
    host.watch(stop, interval=min(1.0, reconcile_interval), on_tick=tick)
    plugin.stop()
    client.close()
    log.info("plugin_stopped")


@cli.command("ensure-secret")
@click.option("--name", default="rgpu-cluster-secret", show_default=True, help="The Secret's name.")
@click.option("--key", default="cluster-secret", show_default=True, help="The key that holds the secret.")
@click.option("--namespace", default=None, help="Default: the namespace of this pod's service account.")
@click.option("--kube-api", default="in-cluster", show_default=True, help="Kubernetes API URL.")
@click.option("--kube-token-file", type=click.Path(dir_okay=False), default=None, help="Bearer token for --kube-api URL.")
def ensure_secret(name, key, namespace, kube_api, kube_token_file):
    """Create the cluster secret (random, 64 hex digits) as a Kubernetes Secret unless it exists;
    an existing one is left as it is, so every restart keeps the pool's tokens valid."""
    try:
        kube = KubeApi.in_cluster() if kube_api == "in-cluster" else KubeApi(kube_api, kube_token_file)
        namespace = namespace or KubeApi.own_namespace()
        existing = kube.get_secret(namespace, name)
        if existing is not None:
            if key not in (existing.get("data") or {}):
                raise click.ClickException(f"Secret {namespace}/{name} exists without key {key!r}: "
                                           f"delete it or add the key")
            click.echo(f"Secret {namespace}/{name} exists; kept")
            return
        try:
            kube.create_secret(namespace, name, {key: secrets.token_hex(32)},
                               labels={"app.kubernetes.io/part-of": "rgpu"})
        except KubeApiError as exc:
            if exc.status != 409:       # 409: another pod created it first, which is as good
                raise
        click.echo(f"Secret {namespace}/{name} created")
    except KubeApiError as exc:
        raise click.ClickException(exc.message) from None


def main() -> None:
    cli(prog_name="rgpu-k8s")


if __name__ == "__main__":
    main()
