"""The device plugin's gRPC service (kubelet device-plugin API v1beta1): it advertises ``slots``
vGPU devices of one resource (``rgpu.io/vgpu``) and turns each Allocate into an rgpu lease.

The devices are admission tickets, not GPUs: ``vgpu-0`` ... ``vgpu-{slots-1}`` bound how many
vGPUs the containers of this node may hold at once, and the pool decides at Allocate time whether
there is room (a full pool fails the Allocate with the controller's message). They are Healthy
while the controller answers, Unhealthy while it does not, so the scheduler stops placing pods
that could not get a lease.

Allocate gives the container: the client library mounted read-only from the host
(``lib_host_dir`` → ``lib_container_dir``), ``LD_LIBRARY_PATH`` and ``LD_PRELOAD`` pointing at
it, ``RGPU_LEASE`` (the token its sessions open with), ``RGPU_SERVER`` (``url@key#index`` per vGPU,
device order) and ``RGPU_CONTROLLER``. A container that did not ask for the resource is never
allocated, so it gets none of this. PreStartContainer renews the lease before every (re)start and
refuses the start, with a message saying what to do, if the lease is gone.
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass

import grpc
import structlog

from rgpu.client.controller_client import ControllerError

from .generated import deviceplugin_v1beta1_pb2 as api
from .generated import deviceplugin_v1beta1_pb2_grpc as api_grpc
from .kubeapi import KubeApi, KubeApiError
from .pods import LEASE_ANNOTATION, PodRef, PodRequestError, match, reserve_request
from .tenancy import LeaseLost, Tenancy

log = structlog.get_logger("rgpu.k8s.plugin")
HEALTHY, UNHEALTHY = "Healthy", "Unhealthy"
COMPONENT = "rgpu-device-plugin"
# impossible: more than any GPU of the pool could ever hold (refused at once, never queued)
RESERVE_ERRORS = {"no_capacity": grpc.StatusCode.RESOURCE_EXHAUSTED, "impossible": grpc.StatusCode.RESOURCE_EXHAUSTED,
                  "bad_request": grpc.StatusCode.INVALID_ARGUMENT, "timeout": grpc.StatusCode.UNAVAILABLE}


@dataclass
class PluginConfig:
    resource: str = "rgpu.io/vgpu"
    slots: int = 16
    controller: str = ""
    node: str = ""
    lib_host_dir: str = "/var/lib/rgpu/lib"
    lib_container_dir: str = "/usr/local/rgpu/lib"
    # the host's view of the tenancy's token folder (None: the same path), mounted per lease
    token_host_dir: str | None = None
    token_container_dir: str = "/run/rgpu/lease"   # where a container sees its lease's current token

    def device_ids(self) -> list[str]:
        return [f"vgpu-{i}" for i in range(self.slots)]


def _slot(device_id: str) -> int:
    try:
        return int(device_id.rsplit("-", 1)[1])
    except (IndexError, ValueError):
        return 1 << 30


class VgpuPlugin(api_grpc.DevicePluginServicer):
    def __init__(self, config: PluginConfig, tenancy: Tenancy, kube: KubeApi | None = None):
        self.config, self.tenancy, self.kube = config, tenancy, kube
        self._health = HEALTHY
        self._changed = threading.Condition()
        self._generation = 0
        self.stopped = threading.Event()

    # ---- health (what ListAndWatch reports) --------------------------------------------------------
    def set_healthy(self, healthy: bool) -> None:
        state = HEALTHY if healthy else UNHEALTHY
        with self._changed:
            if state != self._health:
                log.info("devices_health", health=state)
                self._health = state
                self._generation += 1
                self._changed.notify_all()

    def stop(self) -> None:
        self.stopped.set()
        with self._changed:
            self._generation += 1
            self._changed.notify_all()

    def devices(self) -> api.ListAndWatchResponse:
        return api.ListAndWatchResponse(devices=[api.Device(ID=d, health=self._health)
                                                 for d in self.config.device_ids()])

    # ---- the API ------------------------------------------------------------------------------------
    def GetDevicePluginOptions(self, request, context):
        return api.DevicePluginOptions(pre_start_required=True, get_preferred_allocation_available=True)

    def ListAndWatch(self, request, context):
        """The device list now, and again whenever the health of the devices changes."""
        seen = -1
        while not self.stopped.is_set() and context.is_active():
            with self._changed:
                if seen == self._generation:
                    self._changed.wait(1.0)   # wake up now and then to notice a kubelet that left
                    continue
                seen = self._generation
                reply = self.devices()
            if self.stopped.is_set():
                return
            yield reply

    def GetPreferredAllocation(self, request, context):
        """The lowest-numbered free slots (any choice would do: slots are interchangeable)."""
        out = []
        for req in request.container_requests:
            chosen = list(req.must_include_deviceIDs)
            for d in sorted(req.available_deviceIDs, key=_slot):
                if len(chosen) >= req.allocation_size:
                    break
                if d not in chosen:
                    chosen.append(d)
            out.append(api.ContainerPreferredAllocationResponse(deviceIDs=chosen))
        return api.PreferredAllocationResponse(container_responses=out)

    def Allocate(self, request, context):
        done, responses = [], []
        try:
            for req in request.container_requests:
                devices = list(req.devices_ids)
                unknown = sorted(set(devices) - set(self.config.device_ids()))
                if unknown:
                    raise _Refused(grpc.StatusCode.INVALID_ARGUMENT, f"unknown device ids {unknown}")
                ref = self._pod_for(len(devices))
                try:
                    reserve = reserve_request(ref, len(devices))
                except PodRequestError as exc:
                    raise _Refused(grpc.StatusCode.INVALID_ARGUMENT, f"pod {ref.namespace}/{ref.name}: {exc}")
                try:
                    alloc = self.tenancy.allocate(devices, reserve, ref)
                except ControllerError as exc:
                    code = RESERVE_ERRORS.get(exc.code, grpc.StatusCode.UNAVAILABLE)
                    where = f" for pod {ref.namespace}/{ref.name} container {ref.container}" if ref else ""
                    raise _Refused(code, f"rgpu: no vGPU{where} from the controller at {self.config.controller}: "
                                         f"{exc.message} [{exc.code}]")
                done.append(alloc)
                responses.append(self._response(alloc))
                if ref and self.kube is not None:
                    threading.Thread(target=self._tell, args=(ref, alloc), daemon=True).start()
        except _Refused as exc:
            for alloc in done:      # all containers of the request or none
                self.tenancy.release(alloc)
            log.warning("allocate_refused", code=exc.code.name, message=exc.message)
            context.abort(exc.code, exc.message)
        return api.AllocateResponse(container_responses=responses)

    def PreStartContainer(self, request, context):
        devices = list(request.devices_ids)
        try:
            alloc = self.tenancy.check(devices)
        except KeyError:
            context.abort(grpc.StatusCode.FAILED_PRECONDITION,
                          f"rgpu: devices {devices} hold no lease on this node (was the plugin's state lost?); "
                          "delete the pod so that it gets a new one")
        except LeaseLost as exc:
            context.abort(grpc.StatusCode.FAILED_PRECONDITION,
                          f"rgpu: the lease of this container ended ({exc}); delete the pod so that it gets a new one")
        except ControllerError as exc:
            # The controller is away: the lease may well live on (the servers keep serving it).
            log.warning("prestart_renew_failed", devices=devices, error=exc.code, message=exc.message)
            return api.PreStartContainerResponse()
        log.info("prestart_renewed", lease=alloc.lease, devices=devices)
        return api.PreStartContainerResponse()

    # ---- helpers -----------------------------------------------------------------------------------
    def _pod_for(self, count: int) -> PodRef:
        if self.kube is None or not self.config.node:
            return PodRef()
        try:
            pods = self.kube.node_pods(self.config.node)
        except KubeApiError as exc:
            log.warning("pods_unlisted", node=self.config.node, error=exc.message)
            return PodRef()
        ref = match(pods, self.config.resource, count, self.tenancy.taken())
        if not ref:
            log.warning("pods_unmatched", node=self.config.node, count=count, pending=len(pods))
        return ref

    def _response(self, alloc) -> api.ContainerAllocateResponse:
        lib = self.config.lib_container_dir
        envs = {"LD_LIBRARY_PATH": lib, "LD_PRELOAD": f"{lib}/librgpu.so", "RGPU_LEASE": alloc.token,
                "RGPU_SERVER": alloc.servers(), "RGPU_CONTROLLER": self.config.controller,
                "RGPU_LEASE_ID": alloc.lease}
        mounts = [api.Mount(container_path=lib, host_path=self.config.lib_host_dir, read_only=True)]
        folder = self.tenancy.token_folder(alloc.lease)
        if folder is not None:
            # the lease's current token, which renewals refresh: tokens live minutes, and a process of
            # the container may open its sessions long after the container started
            host = os.path.join(self.config.token_host_dir or str(self.tenancy.token_dir), alloc.lease)
            mounts.append(api.Mount(container_path=self.config.token_container_dir, host_path=host, read_only=True))
            envs["RGPU_LEASE_FILE"] = f"{self.config.token_container_dir}/token"
        return api.ContainerAllocateResponse(envs=envs, annotations={LEASE_ANNOTATION: alloc.lease}, mounts=mounts)

    def _tell(self, ref: PodRef, alloc) -> None:
        """Write the lease on the pod (an annotation and an event `kubectl describe` shows);
        best effort: the container runs either way."""
        vgpus = ", ".join(f"{v['server']}#{v['index']} {v.get('name', '')} {v['memory'] >> 20} MiB "
                          f"{v['compute']}%".replace("  ", " ") for v in alloc.vgpus)
        try:
            self.kube.annotate_pod(ref.namespace, ref.name, {f"{LEASE_ANNOTATION}.{ref.container}": alloc.lease})
            self.kube.pod_event(ref.pod, "RgpuLeaseReserved",
                                f"container {ref.container}: lease {alloc.lease} ({vgpus})", COMPONENT)
        except KubeApiError as exc:
            log.warning("pod_not_annotated", pod=f"{ref.namespace}/{ref.name}", error=exc.message)


class _Refused(Exception):
    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(message)
        self.code, self.message = code, message
