"""The leases the device plugin holds for containers: reserved at Allocate, renewed while the pod
lives, released when it ends; remembered in a state file so a restarted plugin carries on.

An allocation is the set of device ids the kubelet gave one container (``vgpu-3``, ...) and the
lease reserved for it. When it ends, the pod's devices go back to the kubelet, which then no longer
lists them for any pod in its pod-resources API (``reconcile`` is given the ids still in use) and
may hand them to a new container (``allocate`` over ids that already hold a lease releases that
lease first: the kubelet reusing an id proves its holder is gone). Leases are renewed every third
of their TTL; if the plugin is down for longer than the TTL the controller expires them, and the
containers' next PreStartContainer (a restart) reports that.

Every controller call goes through ``ControllerClient`` — the one place credentials are applied.
"""
from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import structlog

from rgpu.client.controller_client import ControllerClient, ControllerError
from rgpu.client.leased_run import server_entry

from .pods import PodRef

log = structlog.get_logger("rgpu.k8s.tenancy")
GONE = ("lease_ended", "unknown_lease")   # controller error codes: the lease no longer exists
ADOPTION_GRACE_S = 30.0   # a fresh allocation may not be listed by the kubelet yet: not released before this


@dataclass
class Allocation:
    devices: list[str]
    lease: str
    token: str
    vgpus: list[dict]
    ttl: float
    created: float = field(default_factory=time.time)
    namespace: str = ""
    pod: str = ""
    uid: str = ""
    container: str = ""

    @property
    def key(self) -> tuple[str, ...]:
        return tuple(sorted(self.devices))

    def servers(self) -> str:
        """RGPU_SERVER: ``url@key#index`` per vGPU (the key: the server's, for CURVE), in the lease's
        device order."""
        return ",".join(server_entry(v) for v in self.vgpus)


class LeaseLost(Exception):
    """The lease of an allocation no longer exists at the controller."""


class Tenancy:
    def __init__(self, client: ControllerClient, state_file: str | os.PathLike | None, ttl: float,
                 grace: float = ADOPTION_GRACE_S):
        self.client, self.ttl, self.grace = client, ttl, grace
        self.state_file = Path(state_file) if state_file else None
        self._lock = threading.RLock()
        self.allocations: dict[tuple[str, ...], Allocation] = {}
        self._load()

    # ---- state file -------------------------------------------------------------------------------
    def _load(self) -> None:
        if self.state_file is None or not self.state_file.exists():
            return
        try:
            data = json.loads(self.state_file.read_text())
            for item in data.get("allocations", []):
                a = Allocation(**item)
                self.allocations[a.key] = a
        except (OSError, ValueError, TypeError) as exc:
            # A state file we cannot read loses only the ability to release those leases early:
            # nobody renews them, so the controller expires them after their TTL.
            log.warning("state.unreadable", path=str(self.state_file), error=str(exc))
            return
        log.info("state.loaded", path=str(self.state_file), allocations=len(self.allocations))

    def _save(self) -> None:
        if self.state_file is None:
            return
        self.state_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.state_file.with_name(self.state_file.name + ".tmp")
        tmp.write_text(json.dumps({"allocations": [asdict(a) for a in self.allocations.values()]}, indent=1))
        os.replace(tmp, self.state_file)   # atomic: a crash leaves the old file or the new one

    # ---- the lifecycle ----------------------------------------------------------------------------
    def taken(self) -> set[tuple[str, str]]:
        """(pod uid, container) pairs that already hold an allocation."""
        with self._lock:
            return {(a.uid, a.container) for a in self.allocations.values() if a.uid}

    def allocate(self, devices: list[str], request: dict, ref: PodRef) -> Allocation:
        """Reserve a lease for ``devices`` (raises ControllerError when the pool cannot)."""
        with self._lock:
            stale = [a for a in self.allocations.values() if set(a.devices) & set(devices)]
            for a in stale:
                log.info("lease.superseded", lease=a.lease, devices=a.devices, pod=a.pod)
                self._release(a)
            reply = self.client.reserve(**request, ttl=self.ttl, owner=ref.owner)
            a = Allocation(sorted(devices), reply["lease"], reply["token"], reply["vgpus"], float(reply["ttl"]),
                           namespace=ref.namespace, pod=ref.name, uid=ref.uid, container=ref.container)
            self.allocations[a.key] = a
            self._save()
            log.info("lease.reserved", lease=a.lease, devices=a.devices, pod=f"{a.namespace}/{a.pod}",
                     container=a.container, servers=a.servers())
            return a

    def find(self, devices: list[str]) -> Allocation | None:
        with self._lock:
            return self.allocations.get(tuple(sorted(devices)))

    def check(self, devices: list[str]) -> Allocation:
        """Before a container (re)starts: renew its lease; LeaseLost if it ended, KeyError if
        these devices hold no allocation."""
        a = self.find(devices)
        if a is None:
            raise KeyError(devices)
        try:
            self.client.renew(a.lease)
        except ControllerError as exc:
            if exc.code in GONE:
                self.forget(a)
                raise LeaseLost(exc.message) from None
            raise
        return a

    def forget(self, a: Allocation) -> None:
        with self._lock:
            if self.allocations.get(a.key) is a:
                del self.allocations[a.key]
                self._save()

    def _release(self, a: Allocation) -> None:
        try:
            self.client.release(a.lease)
            log.info("lease.released", lease=a.lease, pod=f"{a.namespace}/{a.pod}", container=a.container)
        except ControllerError as exc:
            if exc.code not in GONE:
                # The controller is unreachable: nobody renews the lease any more, so it expires.
                log.warning("lease.release_failed", lease=a.lease, error=exc.code, message=exc.message)
        self.allocations.pop(a.key, None)
        self._save()

    def release(self, a: Allocation) -> None:
        with self._lock:
            self._release(a)

    def reconcile(self, in_use: set[str], now: float | None = None) -> list[Allocation]:
        """Release the allocations none of whose devices the kubelet still assigns to a pod."""
        now = time.time() if now is None else now
        with self._lock:
            ended = [a for a in self.allocations.values()
                     if not set(a.devices) & in_use and now - a.created > self.grace]
            for a in ended:
                self._release(a)
        return ended

    def renew_all(self) -> None:
        for a in list(self.allocations.values()):
            try:
                self.client.renew(a.lease)
            except ControllerError as exc:
                if exc.code in GONE:
                    log.warning("lease.lost", lease=a.lease, pod=f"{a.namespace}/{a.pod}", message=exc.message)
                    self.forget(a)
                else:
                    log.warning("lease.renew_failed", lease=a.lease, error=exc.code, message=exc.message)
