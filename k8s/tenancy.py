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

from rgpu.client import lease_token_file
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
                 grace: float = ADOPTION_GRACE_S, token_dir: str | os.PathLike | None = None):
        """``token_dir``: where each lease's current token is kept for its container
        (``<token_dir>/<lease>/token``, the folder mounted into the container): tokens live minutes
        past a renew, and a container's process that opens a session later needs a fresh one."""
        self.client, self.ttl, self.grace = client, ttl, grace
        self.state_file = Path(state_file) if state_file else None
        self.token_dir = Path(token_dir) if token_dir else None
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
            log.warning("state_unreadable", path=str(self.state_file), error=str(exc))
            return
        log.info("state_loaded", path=str(self.state_file), allocations=len(self.allocations))

    def _save(self) -> None:
        if self.state_file is None:
            return
        self.state_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.state_file.with_name(self.state_file.name + ".tmp")
        tmp.write_text(json.dumps({"allocations": [asdict(a) for a in self.allocations.values()]}, indent=1))
        os.replace(tmp, self.state_file)   # atomic: a crash leaves the old file or the new one

    # ---- each lease's current token, for its container --------------------------------------------
    def token_folder(self, lease: str) -> Path | None:
        if self.token_dir is None or not lease_token_file.path(lease):
            return None
        return self.token_dir / lease

    def _keep_token(self, lease: str, token: str) -> None:
        """Written whole and renamed in the lease's folder (a bind-mounted folder shows the rename; a
        bind-mounted file would keep showing the old one). Readable by the container's user, whoever
        that is: the token is in its environment anyway; the folder above is the plugin's alone."""
        folder = self.token_folder(lease)
        if folder is None:
            return
        try:
            self.token_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            folder.mkdir(mode=0o755, exist_ok=True)
            tmp = folder / ".token.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(token)
            os.replace(tmp, folder / "token")
        except OSError as exc:
            log.warning("token_unkept", lease=lease, error=str(exc))

    def _drop_token(self, lease: str) -> None:
        folder = self.token_folder(lease)
        if folder is not None:
            for name in ("token", ".token.tmp"):
                try:
                    (folder / name).unlink()
                except OSError:
                    pass
            try:
                folder.rmdir()
            except OSError:
                pass

    def _renew(self, a: Allocation) -> None:
        reply = self.client.renew(a.lease)
        if isinstance(reply, dict) and isinstance(reply.get("token"), str):
            self._keep_token(a.lease, reply["token"])

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
                log.info("lease_superseded", lease=a.lease, devices=a.devices, pod=a.pod)
                self._release(a)
            reply = self.client.reserve(**request, ttl=self.ttl, owner=ref.owner)
            a = Allocation(sorted(devices), reply["lease"], reply["token"], reply["vgpus"], float(reply["ttl"]),
                           namespace=ref.namespace, pod=ref.name, uid=ref.uid, container=ref.container)
            self.allocations[a.key] = a
            self._save()
            self._keep_token(a.lease, a.token)
            log.info("lease_reserved", lease=a.lease, devices=a.devices, pod=f"{a.namespace}/{a.pod}",
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
            self._renew(a)
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
            self._drop_token(a.lease)

    def _release(self, a: Allocation) -> None:
        try:
            self.client.release(a.lease)
            log.info("lease_released", lease=a.lease, pod=f"{a.namespace}/{a.pod}", container=a.container)
        except ControllerError as exc:
            if exc.code not in GONE:
                # The controller is unreachable: nobody renews the lease any more, so it expires.
                log.warning("lease_release_failed", lease=a.lease, error=exc.code, message=exc.message)
        self.allocations.pop(a.key, None)
        self._save()
        self._drop_token(a.lease)

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
                self._renew(a)
            except ControllerError as exc:
                if exc.code in GONE:
                    log.warning("lease_lost", lease=a.lease, pod=f"{a.namespace}/{a.pod}", message=exc.message)
                    self.forget(a)
                else:
                    log.warning("lease_renew_failed", lease=a.lease, error=exc.code, message=exc.message)
