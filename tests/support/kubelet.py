"""A fake kubelet that speaks the real gRPC protocols to a device plugin, on unix sockets in a
temporary directory: the Registration service on ``kubelet.sock`` (then, like the kubelet, it
dials the plugin's endpoint, asks its options and follows its ListAndWatch stream), the
device-plugin calls a kubelet makes (Allocate, PreStartContainer, GetPreferredAllocation), and
the pod-resources API on its own socket, answering with the assignments a test sets.

    kubelet = FakeKubelet(tmp_path)
    ...start the plugin with --device-plugin-dir kubelet.plugin_dir
                            --pod-resources-socket kubelet.pod_resources_socket...
    kubelet.wait_registered()
    reply = kubelet.allocate(["vgpu-0"])
    kubelet.assign("ns", "pod", "main", ["vgpu-0"])      # what List now reports
    kubelet.restart()                                    # deletes the sockets, as a kubelet does
    kubelet.stop()
"""
from __future__ import annotations

import threading
import time
from concurrent import futures
from pathlib import Path

import grpc

from rgpu.k8s.generated import deviceplugin_v1beta1_pb2 as api
from rgpu.k8s.generated import deviceplugin_v1beta1_pb2_grpc as api_grpc
from rgpu.k8s.generated import podresources_v1_pb2 as pr
from rgpu.k8s.generated import podresources_v1_pb2_grpc as pr_grpc


class _Registration(api_grpc.RegistrationServicer):
    def __init__(self, kubelet: "FakeKubelet"):
        self.kubelet = kubelet

    def Register(self, request, context):
        if request.version != "v1beta1":
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"unsupported version {request.version}")
        self.kubelet._registered(request)
        return api.Empty()


class _PodResources(pr_grpc.PodResourcesListerServicer):
    def __init__(self, kubelet: "FakeKubelet"):
        self.kubelet = kubelet

    def List(self, request, context):
        with self.kubelet.lock:
            assigned = dict(self.kubelet.assigned)
        pods = {}
        for (ns, pod, container), (resource, ids) in assigned.items():
            p = pods.setdefault((ns, pod), pr.PodResources(name=pod, namespace=ns))
            p.containers.append(pr.ContainerResources(
                name=container, devices=[pr.ContainerDevices(resource_name=resource, device_ids=ids)]))
        return pr.ListPodResourcesResponse(pod_resources=list(pods.values()))


class FakeKubelet:
    def __init__(self, root: Path):
        self.plugin_dir = Path(root) / "device-plugins"
        self.plugin_dir.mkdir(parents=True, exist_ok=True)
        self.pod_resources_socket = Path(root) / "pod-resources" / "kubelet.sock"
        self.pod_resources_socket.parent.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Condition()
        self.registrations: list = []
        self.device_lists: list[list[tuple[str, str]]] = []   # every ListAndWatch answer, in order
        self.options = None
        self.assigned: dict = {}
        self._channel = None
        self._stub = None
        self._pr_server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        pr_grpc.add_PodResourcesListerServicer_to_server(_PodResources(self), self._pr_server)
        self._pr_server.add_insecure_port(f"unix://{self.pod_resources_socket}")
        self._pr_server.start()
        self._server = None
        self._serve_registration()

    def _serve_registration(self) -> None:
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        api_grpc.add_RegistrationServicer_to_server(_Registration(self), self._server)
        self._server.add_insecure_port(f"unix://{self.plugin_dir / 'kubelet.sock'}")
        self._server.start()

    # ---- what the kubelet does after a registration ------------------------------------------------
    def _registered(self, request) -> None:
        channel = grpc.insecure_channel(f"unix://{self.plugin_dir / request.endpoint}")
        stub = api_grpc.DevicePluginStub(channel)
        with self.lock:
            if self._channel is not None:
                self._channel.close()
            self._channel, self._stub = channel, stub
            self.registrations.append(request)
            self.lock.notify_all()
        # The kubelet answers the registration first and dials the plugin afterwards.
        threading.Thread(target=self._follow, args=(stub,), daemon=True).start()

    def _follow(self, stub) -> None:
        try:
            self.options = stub.GetDevicePluginOptions(api.Empty(), timeout=5)
            for reply in stub.ListAndWatch(api.Empty()):
                with self.lock:
                    self.device_lists.append([(d.ID, d.health) for d in reply.devices])
                    self.lock.notify_all()
        except grpc.RpcError:
            pass    # the plugin went away, or we closed the channel

    # ---- test API ----------------------------------------------------------------------------------
    def wait(self, predicate, deadline_s: float = 20.0, what: str = "condition"):
        deadline = time.monotonic() + deadline_s
        with self.lock:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"fake kubelet: {what} not reached within {deadline_s:g}s")
                self.lock.wait(min(left, 0.2))
            return predicate()

    def wait_registered(self, count: int = 1, deadline_s: float = 20.0):
        self.wait(lambda: len(self.registrations) >= count and self.device_lists, deadline_s, "registration")
        return self.registrations[-1]

    def latest_devices(self) -> list[tuple[str, str]]:
        with self.lock:
            return list(self.device_lists[-1]) if self.device_lists else []

    def allocate(self, *containers: list[str]) -> api.AllocateResponse:
        return self._stub.Allocate(api.AllocateRequest(container_requests=[
            api.ContainerAllocateRequest(devices_ids=ids) for ids in containers]), timeout=30)

    def prestart(self, ids: list[str]) -> api.PreStartContainerResponse:
        return self._stub.PreStartContainer(api.PreStartContainerRequest(devices_ids=ids), timeout=30)

    def preferred(self, available: list[str], must: list[str], size: int) -> list[str]:
        reply = self._stub.GetPreferredAllocation(api.PreferredAllocationRequest(container_requests=[
            api.ContainerPreferredAllocationRequest(available_deviceIDs=available, must_include_deviceIDs=must,
                                                    allocation_size=size)]), timeout=10)
        return list(reply.container_responses[0].deviceIDs)

    def assign(self, namespace: str, pod: str, container: str, ids: list[str], resource: str = "rgpu.io/vgpu"):
        with self.lock:
            self.assigned[(namespace, pod, container)] = (resource, list(ids))

    def unassign(self, namespace: str, pod: str, container: str) -> None:
        with self.lock:
            self.assigned.pop((namespace, pod, container), None)

    def restart(self) -> None:
        """What a restarting kubelet does: stop, delete every socket in the directory, serve anew."""
        self._server.stop(0).wait()
        with self.lock:
            if self._channel is not None:
                self._channel.close()
                self._channel = None
        for sock in self.plugin_dir.glob("*.sock"):
            sock.unlink()
        self._serve_registration()

    def stop(self) -> None:
        with self.lock:
            if self._channel is not None:
                self._channel.close()
        self._server.stop(0).wait()
        self._pr_server.stop(0).wait()
