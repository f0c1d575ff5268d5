"""The lease gate of one rgpu-server: which hellos open a session, with which quotas, and when a
lease is gone.

With a cluster secret a server only opens sessions for lease holders. ``LeaseGate.admit`` checks
the token of a hello — signature and expiry (``tokens.verify``), a vGPU on the GPU the client asked
for (``tokens.vgpus_on``), and that the lease has not left the controller's view — and returns the
``Grant`` whose quotas the session runs with. ``LeaseGate.see`` records the controller's view (lease
ids valid on this server, as of ``at``, controller clock) after each heartbeat; ``gone`` tells
whether a lease of a token issued at ``iat`` has ended. A lease created after ``at`` cannot be in
that view, so a token with ``iat > at`` is never judged gone. Without a controller and without a
configured secret the gate is open (direct mode): anyone may open a session on a whole GPU.

Tokens outlive their leases (by up to the controller's --token-lifetime, 10 minutes, past the last
renew: liveness comes from heartbeats), so a server must refuse
a released lease's token on its own, also when it restarts while the controller is down (issue 39,
attack 7): the controller pushes the leases of this server that ended with their tokens' expiry
(``revoked``), and the gate keeps them — and its last view — in a private file (``state``) until the
tokens expire, read again at start.
"""
from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass

from rgpu.protocol import tokens


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
    vgpu: int = 0            # which of the lease's vGPUs (its sessions share that vGPU's quotas)
    reclaim_after: float | None = None  # idle seconds after which its sessions are reclaimed (server/reclaim.py)
    share_only: bool = False  # placed with these quotas, but none is enforced (the program isolates itself)
    owner: str = ""           # the lease's owner (its token's), whose module images its sessions share
    failover: bool = False    # a --failover lease: its sessions answer CHECKPOINT and RESTORE (server/failover.py)
    others: int = 0  # share-only: the memory placed for the GPU's other leases when the token was issued

    @property
    def tenant(self) -> str:
        """Who the session belongs to, for what one tenant may hold: the owner, or for a token that
        names none, its lease ("" in direct mode)."""
        return self.owner or self.lease


DIRECT = Grant()


class LeaseGate:
    def __init__(self, secret: bytes | None, pool: str = "", state: str | None = None):
        """``state``: the file the gate keeps its revocations and last view in (None: memory only)."""
        self.secret, self.pool, self.state = secret, pool, state
        self._lock = threading.Lock()
        self._valid: frozenset[str] = frozenset()
        self._ended: dict[str, str] = {}   # lease -> how it ended (expired, released), lately
        self._at = 0.0               # 0: no view yet (controller not reached since start)
        self._revoked: dict[str, float] = {}  # lease -> when its tokens expire: refused until then
        if state:
            self._load()

    def _load(self) -> None:
        try:
            with open(self.state, encoding="utf-8") as f:
                saved = json.load(f)
            now = time.time()
            self._revoked = {k: float(v) for k, v in saved.get("revoked", {}).items()
                             if isinstance(k, str) and isinstance(v, (int, float)) and v > now}
            if isinstance(saved.get("at"), (int, float)) and isinstance(saved.get("valid"), list):
                self._valid = frozenset(v for v in saved["valid"] if isinstance(v, str))
                self._at = float(saved["at"])
        except (OSError, ValueError, AttributeError):
            pass  # none yet, or unreadable: the controller's next view rebuilds it

    def _save(self) -> None:
        """Written whole to a private temporary and renamed into place (called with the lock held)."""
        if not self.state:
            return
        tmp = f"{self.state}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(os.path.abspath(self.state)), mode=0o700, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"revoked": self._revoked, "valid": sorted(self._valid), "at": self._at}, f)
            os.replace(tmp, self.state)
        except OSError:
            pass  # kept in memory: the controller's views go on protecting the running server

    @property
    def enabled(self) -> bool:
        return self.secret is not None

    def see(self, valid: set[str], at: float, ended: dict | None = None, revoked: dict | None = None) -> None:
        """The controller's view after a register/heartbeat (called from the registrar thread);
        ``ended``: how leases of this server that ended lately ended (expired, released); ``revoked``:
        those leases, with when their tokens expire."""
        with self._lock:
            changed = frozenset(valid) != self._valid
            self._valid, self._at = frozenset(valid), at
            if ended is not None:
                self._ended = {k: v for k, v in ended.items() if isinstance(k, str) and isinstance(v, str)}
            now = time.time()
            for lease, exp in (revoked or {}).items():
                if isinstance(lease, str) and isinstance(exp, (int, float)) and exp > now \
                        and lease not in self._revoked:
                    self._revoked[lease] = float(exp)
                    changed = True
            for lease in [k for k, exp in self._revoked.items() if exp <= now]:
                del self._revoked[lease]
            if changed:
                self._save()

    def revoked(self, lease: str) -> bool:
        with self._lock:
            exp = self._revoked.get(lease)
        return exp is not None and exp > time.time()

    def why_gone(self, lease: str) -> str:
        """What a program whose lease is gone is told: expired (nobody renewed it) or released."""
        with self._lock:
            how = self._ended.get(lease)
        if how == "expired":
            return f"lease {lease} expired: nobody renewed it in time (is `rgpu run` or its renewer still alive?)"
        if how == "released":
            return f"lease {lease} was released"
        return f"lease {lease} has ended (released or expired)"

    def view(self) -> tuple[frozenset[str], float]:
        """(lease ids valid here, as of controller time ``at``); ``at`` is 0 before the first view."""
        with self._lock:
            return self._valid, self._at

    def gone(self, lease: str, iat: float) -> bool:
        with self._lock:
            if lease in self._revoked:
                return True
            return bool(lease) and self._at > 0 and iat <= self._at and lease not in self._valid

    def admit(self, token, gpu_uuid: str, gpu_index: int, vgpu: int | None = None) -> Grant:
        """The grant of a hello's token for the GPU ``gpu_uuid``; raises LeaseRefused. ``vgpu`` (the
        program's device index) picks the lease's vGPU when it is on this GPU; else the first of the
        lease's vGPUs on this GPU is taken."""
        if not self.enabled:
            return DIRECT
        if not token:
            where = f"the pool of {self.pool}" if self.pool else "a pool"
            raise LeaseRefused("no_token", f"this server belongs to {where} and opens sessions only for lease "
                                           "holders: run the program with `rgpu run --controller URL -- ...` "
                                           "(or set RGPU_LEASE from `rgpu reserve`)")
        try:
            claims = tokens.verify(token, self.secret)
            tokens.vgpus_on(claims, [gpu_uuid])
        except tokens.TokenWrongGpu:
            raise LeaseRefused(tokens.TokenWrongGpu.code,
                               f"lease {claims.get('lease')} has no vGPU on GPU {gpu_index} of this server "
                               f"({gpu_uuid}); device i of a program is vGPU i of its lease") from None
        except tokens.TokenError as exc:
            raise LeaseRefused(exc.code, f"lease token refused: {exc}") from None
        listed = claims.get("vgpus") or []
        index = vgpu if isinstance(vgpu, int) and 0 <= vgpu < len(listed) and isinstance(listed[vgpu], dict) \
            and listed[vgpu].get("uuid") == gpu_uuid else \
            next(i for i, v in enumerate(listed) if isinstance(v, dict) and v.get("uuid") == gpu_uuid)
        chosen = listed[index]
        lease, iat = str(claims.get("lease", "")), float(claims.get("iat") or 0.0)
        if self.gone(lease, iat):
            raise LeaseRefused("lease_ended", f"{self.why_gone(lease)}; reserve a new one")
        reclaim = claims.get("reclaim_after")
        return Grant(lease, iat, int(chosen.get("memory") or 0) or None,
                     int(chosen.get("compute", 100)), int(chosen.get("limit", 100)), index,
                     reclaim_after=float(reclaim) if isinstance(reclaim, (int, float)) and reclaim > 0 else None,
                     share_only=chosen.get("share_only") is True, failover=claims.get("failover") is True,
                     others=_bytes(chosen.get("others")),
                     owner=owner if isinstance(owner := claims.get("owner"), str) else "")


def _bytes(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def gate_for(controller: str | None, secret_file: str | None, init_secret: bool = False,
             state: str | None = None) -> LeaseGate:
    """The gate of a server started with these options: in a pool, or with a secret configured,
    sessions need a lease token; else direct mode (``state``: where a pool server's gate keeps its
    revocations). Raises tokens.SecretError (a --secret-file that is not there, unless
    ``init_secret``)."""
    configured = (secret_file or init_secret or os.environ.get(tokens.ENV_SECRET)
                  or os.environ.get(tokens.ENV_SECRET_FILE))
    if not controller and not configured:
        return LeaseGate(None)
    # Joining a pool on a single machine may come before the controller ever ran: create the
    # default secret file then, atomically, as the controller would (never a file the user named).
    return LeaseGate(tokens.load_secret(secret_file, create=bool(controller), init=init_secret), controller or "",
                     state if controller else None)
