"""Leases: what a reserve hands out — placed vGPUs, a TTL renewed while in use, and a token.

A lease is ``active``, or ``degraded`` while one of its servers is down. It ends by release or
by expiry (``expires`` passed without a renew); ending frees its allocations. Expiry is found with
a heap of (expires, id) entries; a renew pushes a new entry and stale ones are skipped when popped.
"""
from __future__ import annotations

import heapq
import secrets
from dataclasses import dataclass, field

from rgpu.protocol import tokens

from .placement import Slot

DEFAULT_TTL = 60.0
MIN_TTL, MAX_TTL = 2.0, 7 * 24 * 3600.0
# Tokens live at least a lease's TTL and at most this past its last renew (see rgpu.protocol.tokens):
# a released lease's token then opens sessions for minutes, not a day, on a server that missed the
# release (issue 39, attack 7); each renew hands out a fresh one, which renewers keep where the
# lease's programs find it (client/lease_token_file.py).
DEFAULT_TOKEN_LIFETIME = 600.0


def new_lease_id() -> str:
    return "l-" + secrets.token_hex(5)


@dataclass(eq=False)
class Lease:
    id: str
    created: float
    expires: float
    ttl: float
    token_expires: float
    owner: str
    request: dict
    slots: list[Slot]
    state: str = "active"
    # vGPUs whose sessions were reclaimed (idle: checkpointed, their memory and compute given back
    # to the GPU, which no longer charges them) -> when
    reclaimed: dict[int, float] = field(default_factory=dict)

    def servers(self) -> set[str]:
        return {s.gpu.server.url for s in self.slots}

    @property
    def share_only(self) -> bool:
        """Placed and accounted, but its servers enforce no memory quota or compute limit on it (for
        applications that isolate themselves)."""
        return bool(self.request.get("share_only"))

    def vgpus(self) -> list[dict]:
        return [{"server": s.gpu.server.url, "gpu": s.gpu.uuid, "index": s.gpu.index,
                 "name": s.gpu.name, "memory": s.memory, "compute": s.compute, "limit": s.limit,
                 "exclusive": s.exclusive, "share_only": self.share_only, "reclaimed": i in self.reclaimed}
                for i, s in enumerate(self.slots)]

    def claims(self, moved: dict[int, Slot] | None = None) -> dict:
        """The token's claims; ``moved``: vGPUs at the place a migration takes them to."""
        slots = [(moved or {}).get(i, s) for i, s in enumerate(self.slots)]
        claims = {"lease": self.id, "owner": self.owner, "exp": self.token_expires,
                  "vgpus": [{"server": s.gpu.server.url, "uuid": s.gpu.uuid, "index": s.gpu.index,
                             "memory": s.memory, "compute": s.compute, "limit": s.limit, **self._share(s)}
                            for s in slots]}
        if self.request.get("reclaim_after"):
            claims["reclaim_after"] = self.request["reclaim_after"]
        if self.request.get("failover"):
            claims["failover"] = True  # its sessions answer checkpoint calls (server/failover.py)
        return claims

    def _share(self, s: Slot) -> dict:
        """A share-only vGPU has no quota of its own, but may never use what the GPU's other leases
        were placed with (issue 39, attack 2): ``others`` is that memory as of the token's issue; the
        server follows later placements from its heartbeats (``placed``)."""
        if not self.share_only:
            return {}
        return {"share_only": True, "others": max(0, s.gpu.memory_used - s.memory)}

    def token(self, secret: bytes, moved: dict[int, Slot] | None = None) -> str:
        return tokens.sign(self.claims(moved), secret)

    def to_wire(self, now: float) -> dict:
        return {"id": self.id, "lease": self.id, "state": "reclaimed" if self.reclaimed and self.state == "active"
                and len(self.reclaimed) == len(self.slots) else self.state, "owner": self.owner,
                "created": self.created, "expires": self.expires,
                "expires_in": round(self.expires - now, 3), "ttl": self.ttl,
                "request": self.request, "share_only": self.share_only, "vgpus": self.vgpus()}

    def row(self) -> dict:
        return {"id": self.id, "state": self.state, "created": self.created,
                "expires": self.expires, "ttl": self.ttl, "token_expires": self.token_expires,
                "owner": self.owner, "request": self.request}

    def allocation_rows(self) -> list[dict]:
        return [{"gpu": s.gpu.uuid, "memory": s.memory, "compute": s.compute, "limit": s.limit,
                 "exclusive": s.exclusive} for s in self.slots]


@dataclass
class LeaseBook:
    """Live leases by id, plus the expiry heap."""

    leases: dict[str, Lease] = field(default_factory=dict)
    _heap: list[tuple[float, str]] = field(default_factory=list)
    _by_server: dict[str, set[str]] = field(default_factory=dict)

    def add(self, lease: Lease) -> None:
        self.leases[lease.id] = lease
        for url in lease.servers():
            self._by_server.setdefault(url, set()).add(lease.id)
        heapq.heappush(self._heap, (lease.expires, lease.id))

    def renew(self, lease: Lease, expires: float, token_expires: float) -> None:
        lease.expires = expires
        lease.token_expires = max(lease.token_expires, token_expires)
        heapq.heappush(self._heap, (expires, lease.id))

    def reindex(self, lease: Lease, old_servers: set[str]) -> None:
        """A vGPU of ``lease`` moved: its servers changed."""
        for url in old_servers - lease.servers():
            self._by_server.get(url, set()).discard(lease.id)
        for url in lease.servers():
            self._by_server.setdefault(url, set()).add(lease.id)

    def remove(self, lease_id: str) -> Lease | None:
        lease = self.leases.pop(lease_id, None)
        if lease is not None:
            for url in lease.servers():
                self._by_server.get(url, set()).discard(lease_id)
        return lease

    def get(self, lease_id: str) -> Lease | None:
        return self.leases.get(lease_id)

    def due(self, now: float) -> list[Lease]:
        """Leases whose expiry has passed (they stay in the book until removed)."""
        out = []
        while self._heap and self._heap[0][0] <= now:
            expires, lease_id = heapq.heappop(self._heap)
            lease = self.leases.get(lease_id)
            if lease is not None and lease.expires == expires:
                out.append(lease)
        return out

    def on_server(self, url: str) -> list[Lease]:
        return [self.leases[i] for i in sorted(self._by_server.get(url, ()))]

    def __len__(self) -> int:
        return len(self.leases)

    def __iter__(self):
        return iter(list(self.leases.values()))
