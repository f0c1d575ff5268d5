"""How one rgpu-server takes part in the pool: the identity of its GPUs, and the lease gate.

GPU identity
    A GPU is known to the controller by its uuid, shown as nvidia-smi shows it (``GPU-8-4-4-4-12``
    hex). Real GPUs report theirs; a software GPU derives a stable one from the server id and its
    index with ``sim_gpu_uuid`` (the same bytes ``SimDevice.uuid`` reports to CUDA programs), so
    a server restarted on the same host and address keeps its GPUs' identities and leases.

Lease gate
    With a cluster secret a server only opens sessions for lease holders. ``LeaseGate.admit``
    checks the token of a hello — signature and expiry (``tokens.verify``), a vGPU on the GPU the
    client asked for (``tokens.vgpus_on``), and that the lease has not left the controller's view —
    and returns the ``Grant`` whose quotas the session runs with. ``LeaseGate.see`` records the
    controller's view (lease ids valid on this server, as of ``at``, controller clock) after each
    heartbeat; ``gone`` tells whether a lease of a token issued at ``iat`` has ended. A lease
    created after ``at`` cannot be in that view, so a token with ``iat > at`` is never judged gone.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

from rgpu.protocol import tokens

from .backends.sim import identity as sim_identity


sim_gpu_uuid = sim_identity.uuid  # the 16 uuid bytes of software GPU ``index`` of server ``server_id``


def uuid_text(raw: bytes) -> str:
    """16 uuid bytes as nvidia-smi prints them: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx."""
    h = raw.hex()
    return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


class LeaseRefused(Exception):
    """A hello without a usable lease; ``reason`` is the token error code (or ``no_token``,
    ``lease_ended``)."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason, self.message = reason, message


@dataclass(frozen=True)
class Grant:
    """What a lease token allows on one GPU of this server."""
    lease: str = ""          # "" in direct mode (no secret): no lease, the whole GPU
    iat: float = 0.0
    memory: int | None = None
    compute: int = 100
    limit: int = 100


DIRECT = Grant()


class LeaseGate:
    def __init__(self, secret: bytes | None, pool: str = ""):
        self.secret, self.pool = secret, pool
        self._lock = threading.Lock()
        self._valid: frozenset[str] = frozenset()
        self._at = 0.0               # 0: no view yet (controller not reached since start)

    @property
    def enabled(self) -> bool:
        return self.secret is not None

    def see(self, valid: set[str], at: float) -> None:
        """The controller's view after a register/heartbeat (called from the registrar thread)."""
        with self._lock:
            self._valid, self._at = frozenset(valid), at

    def view(self) -> tuple[frozenset[str], float]:
        """(lease ids valid here, as of controller time ``at``); ``at`` is 0 before the first view."""
        with self._lock:
            return self._valid, self._at

    def gone(self, lease: str, iat: float) -> bool:
        with self._lock:
            return bool(lease) and self._at > 0 and iat <= self._at and lease not in self._valid

    def admit(self, token, gpu_uuid: str, gpu_index: int) -> Grant:
        """The grant of a hello's token for the GPU ``gpu_uuid``; raises LeaseRefused."""
        if not self.enabled:
            return DIRECT
        if not token:
            where = f"the pool of {self.pool}" if self.pool else "a pool"
            raise LeaseRefused("no_token", f"this server belongs to {where} and opens sessions only for lease "
                                           "holders: run the program with `rgpu run --controller URL -- ...` "
                                           "(or set RGPU_LEASE from `rgpu reserve`)")
        try:
            claims = tokens.verify(token, self.secret)
            vgpu = tokens.vgpus_on(claims, [gpu_uuid])[0]
        except tokens.TokenWrongGpu:
            raise LeaseRefused(tokens.TokenWrongGpu.code,
                               f"lease {claims.get('lease')} has no vGPU on GPU {gpu_index} of this server "
                               f"({gpu_uuid}); device i of a program is vGPU i of its lease") from None
        except tokens.TokenError as exc:
            raise LeaseRefused(exc.code, f"lease token refused: {exc}") from None
        lease, iat = str(claims.get("lease", "")), float(claims.get("iat") or 0.0)
        if self.gone(lease, iat):
            raise LeaseRefused("lease_ended", f"lease {lease} has ended (released or expired); reserve a new one")
        return Grant(lease, iat, int(vgpu.get("memory") or 0) or None,
                     int(vgpu.get("compute", 100)), int(vgpu.get("limit", 100)))
