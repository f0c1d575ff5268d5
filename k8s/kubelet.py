"""The device plugin's side of the kubelet: serve the plugin on a unix socket in the kubelet's
device-plugin directory, register it, notice a kubelet restart, and read which devices the
kubelet still assigns to pods (the pod-resources API).

A restarting kubelet deletes every socket in the device-plugin directory, ours included, and
forgets its plugins: ``PluginHost.watch`` sees our socket vanish and serves and registers again.
The pod-resources ``List`` first frees the devices of pods that ended (the kubelet's
UpdateAllocatedResources), so its answer is exactly the devices live pods hold.
"""
from __future__ import annotations

import os
import threading
from concurrent import futures
from pathlib import Path

import grpc
import structlog

from .generated import deviceplugin_v1beta1_pb2 as api
from .generated import deviceplugin_v1beta1_pb2_grpc as api_grpc
from .generated import podresources_v1_pb2 as pr
from .generated import podresources_v1_pb2_grpc as pr_grpc

log = structlog.get_logger("rgpu.k8s.kubelet")
API_VERSION = "v1beta1"
KUBELET_SOCKET = "kubelet.sock"
RPC_TIMEOUT_S = 5.0


class KubeletError(RuntimeError):
    pass


def _channel(path: str | os.PathLike) -> grpc.Channel:
    return grpc.insecure_channel(f"unix://{os.path.abspath(path)}")


def register(plugin_dir: Path, endpoint: str, resource: str, options: api.DevicePluginOptions) -> None:
    """Register the plugin serving on ``plugin_dir/endpoint`` with the kubelet of ``plugin_dir``."""
    with _channel(plugin_dir / KUBELET_SOCKET) as channel:
        try:
            grpc.channel_ready_future(channel).result(timeout=RPC_TIMEOUT_S)
            api_grpc.RegistrationStub(channel).Register(
                api.RegisterRequest(version=API_VERSION, endpoint=endpoint, resource_name=resource, options=options),
                timeout=RPC_TIMEOUT_S)
        except (grpc.RpcError, grpc.FutureTimeoutError) as exc:
            detail = exc.details() if isinstance(exc, grpc.RpcError) else "no answer"
            raise KubeletError(f"kubelet at {plugin_dir / KUBELET_SOCKET} refused or did not answer the "
                               f"registration of {resource}: {detail}") from None


def devices_in_use(socket: str | os.PathLike, resource: str) -> set[str]:
    """The device ids of ``resource`` the kubelet assigns to live pods (pod-resources API List)."""
    with _channel(socket) as channel:
        try:
            reply = pr_grpc.PodResourcesListerStub(channel).List(pr.ListPodResourcesRequest(), timeout=RPC_TIMEOUT_S)
        except grpc.RpcError as exc:
            raise KubeletError(f"pod-resources API at {socket}: {exc.details()}") from None
    return {d for pod in reply.pod_resources for c in pod.containers for dev in c.devices
            if dev.resource_name == resource for d in dev.device_ids}


class PluginHost:
    """Serves one DevicePlugin servicer on a unix socket and keeps it registered."""

    def __init__(self, servicer, plugin_dir: str | os.PathLike, endpoint: str, resource: str):
        self.servicer, self.plugin_dir = servicer, Path(plugin_dir)
        self.endpoint, self.resource = endpoint, resource
        self.socket = self.plugin_dir / endpoint
        self.server: grpc.Server | None = None
        self.registered = threading.Event()

    def start(self) -> None:
        """Serve and register (raises KubeletError when the kubelet refuses)."""
        self.stop_serving()
        try:
            self.socket.unlink()
        except FileNotFoundError:
            pass
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="rgpu-dp"))
        api_grpc.add_DevicePluginServicer_to_server(self.servicer, self.server)
        self.server.add_insecure_port(f"unix://{self.socket}")
        self.server.start()
        register(self.plugin_dir, self.endpoint, self.resource,
                 self.servicer.GetDevicePluginOptions(api.Empty(), None))
        self.registered.set()
        log.info("plugin_registered", resource=self.resource, socket=str(self.socket))

    def stop_serving(self) -> None:
        self.registered.clear()
        if self.server is not None:
            self.server.stop(grace=1.0).wait(2.0)
            self.server = None

    def watch(self, stop: threading.Event, interval: float = 1.0, on_tick=None) -> None:
        """Until ``stop``: re-serve and re-register whenever our socket disappears (kubelet
        restart) or registration failed; ``on_tick()`` runs every ``interval``."""
        while not stop.is_set():
            if not self.registered.is_set() or not self.socket.exists():
                if self.registered.is_set():
                    log.info("kubelet_restarted", socket=str(self.socket))
                try:
                    self.start()
                except KubeletError as exc:
                    log.warning("plugin_unregistered", error=str(exc))
                    self.stop_serving()
            if on_tick is not None:
                try:
                    on_tick()
                except Exception:
                    log.exception("plugin_tick_failed")
            stop.wait(interval)
        self.stop_serving()
        try:
            self.socket.unlink()
        except FileNotFoundError:
            pass

