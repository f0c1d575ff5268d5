"""Live migrations of leases' vGPUs as the controller sees them: where a vGPU goes, the orders
servers fetch with their heartbeats, and the policies that use them (drain a server, defragment
the pool).

A migration moves one vGPU of a lease from its GPU to another (same backend; the same compute
capability unless an admin names a target of another model: see ``compatible``). The target is charged when the
migration is ordered — so it fits, and nothing else is placed into the room it needs — and the
lease's allocation moves there when the source server reports the move done (its sessions restored
there, ``server/migration``); a failed or timed-out one gives the target's room back. Meanwhile the
lease is valid on both servers (either may hold its sessions). Orders and outcomes travel with the
heartbeats, the way the servers already talk to the controller: a move starts within a heartbeat.

    pending -> done | failed        (state; ``reason``: user, drain, defrag, restore)
"""
from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field

from .placement import Gpu, Pool, Slot

TIMEOUT_S = 600.0   # a migration no server has reported on for this long is given up


@dataclass(eq=False)
class Migration:
    id: str
    lease: str
    vgpu: int
    source: Slot
    target: Slot
    reason: str
    created: float
    state: str = "pending"
    message: str = ""
    ended: float | None = None
    report: dict = field(default_factory=dict)   # the source server's: pause, bytes, sessions
    sent: bool = False                           # delivered with a heartbeat reply

    def to_wire(self) -> dict:
        return {"id": self.id, "lease": self.lease, "vgpu": self.vgpu, "reason": self.reason,
                "from": f"{self.source.gpu.server.url}#{self.source.gpu.index}",
                "to": f"{self.target.gpu.server.url}#{self.target.gpu.index}",
                "state": self.state, "message": self.message, "created": self.created, "ended": self.ended,
                **{k: self.report[k] for k in ("pause_s", "memory_bytes", "precopy_bytes", "final_bytes",
                                               "wire_bytes", "sessions", "restore_s") if k in self.report}}

    def row(self) -> dict:
        return {"id": self.id, "lease": self.lease, "seq": self.vgpu, "from_gpu": self.source.gpu.uuid,
                "to_gpu": self.target.gpu.uuid, "state": self.state, "reason": self.reason,
                "created": self.created, "ended": self.ended, "message": self.message}


def new_id() -> str:
    return "m-" + secrets.token_hex(5)


def compatible(a: Gpu, b: Gpu, same_model: bool = True) -> bool:
    """Whether a session of GPU ``a`` can be restored on ``b``: the same backend, and where the
    controller chooses (placement, drain, defrag, failover) the same compute capability, so the
    properties the program read stay true. A move an admin names (``rgpu migrate --to``) may cross
    models: its modules are loaded again from their PTX or SASS for the target, and a module with no
    code for it fails the move at the target, the program running on where it was."""
    return a.server.backend == b.server.backend and (not same_model or a.compute_capability == b.compute_capability)


def fits(gpu: Gpu, slot: Slot) -> bool:
    if slot.exclusive:
        return gpu.allocations == 0 and gpu.memory_total >= slot.memory
    return gpu.memory_free >= slot.memory and gpu.compute_free >= slot.compute


def choose_target(pool: Pool, slot: Slot, *, avoid_servers=(), avoid_gpus=(), policy: str = "binpack") -> Gpu | None:
    """The GPU a vGPU should move to: placeable (server up and not draining), compatible, with room;
    binpack takes the fullest that fits, spread the emptiest."""
    found = [g for g in pool.gpus.values()
             if g.key is not None and g is not slot.gpu and g.uuid not in avoid_gpus
             and g.server.url not in avoid_servers and compatible(slot.gpu, g) and fits(g, slot)]
    if not found:
        return None
    return (min if policy == "binpack" else max)(found, key=lambda g: g.key)


def plan_defrag(pool: Pool, placed: list[tuple[str, int, Slot]], max_moves: int = 16) -> list[tuple[str, int, Gpu]]:
    """Moves that empty GPUs: take the least used GPUs holding vGPUs first and try to put every vGPU
    they hold onto fuller GPUs (never onto a GPU being emptied); a GPU whose vGPUs cannot all move
    stays as it is. ``placed`` is [(lease, vgpu index, slot)] of every live vGPU. Returns
    [(lease, vgpu, target GPU)], simulated in a copy of the free space (nothing is charged here)."""
    by_gpu: dict[str, list[tuple[str, int, Slot]]] = {}
    for lease, v, slot in placed:
        by_gpu.setdefault(slot.gpu.uuid, []).append((lease, v, slot))
    free = {g.uuid: [g.memory_free, g.compute_free, g.allocations] for g in pool.gpus.values() if g.key is not None}
    emptied: set[str] = set()
    moves: list[tuple[str, int, Gpu]] = []
    candidates = sorted((pool.gpus[u] for u in by_gpu if u in free), key=lambda g: (g.memory_used, g.uuid))
    for gpu in candidates:
        plan, trial = [], {u: list(v) for u, v in free.items()}
        for lease, v, slot in sorted(by_gpu[gpu.uuid], key=lambda e: -e[2].memory):
            targets = [pool.gpus[u] for u, (mem, comp, n) in trial.items()
                       if u != gpu.uuid and u not in emptied and compatible(gpu, pool.gpus[u])
                       and pool.gpus[u].memory_used >= gpu.memory_used
                       and (mem >= slot.memory and comp >= slot.compute if not slot.exclusive else n == 0)]
            if not targets:
                plan = None
                break
            best = min(targets, key=lambda g: (trial[g.uuid][0], g.uuid))  # the fullest that fits
            trial[best.uuid][0] -= slot.memory
            trial[best.uuid][1] -= slot.compute
            trial[best.uuid][2] += 1
            plan.append((lease, v, best))
        if plan and len(moves) + len(plan) <= max_moves:
            moves += plan
            free = trial
            emptied.add(gpu.uuid)
    return moves


class MigrationBook:
    """Migrations by id; the pending ones by source server (whose heartbeats carry their orders)."""

    def __init__(self):
        self.all: dict[str, Migration] = {}

    def add(self, m: Migration) -> None:
        self.all[m.id] = m

    def get(self, mid: str) -> Migration | None:
        return self.all.get(mid)

    def pending(self) -> list[Migration]:
        return [m for m in self.all.values() if m.state == "pending"]

    def pending_for(self, lease: str, vgpu: int | None = None) -> list[Migration]:
        return [m for m in self.pending() if m.lease == lease and (vgpu is None or m.vgpu == vgpu)]

    def from_server(self, url: str) -> list[Migration]:
        return [m for m in self.pending() if m.source.gpu.server.url == url]

    def to_server(self, url: str) -> list[Migration]:
        return [m for m in self.pending() if m.target.gpu.server.url == url]

    def overdue(self, now: float) -> list[Migration]:
        return [m for m in self.pending() if now - m.created > TIMEOUT_S]

    def forget_ended(self, before: float) -> None:
        for mid in [k for k, m in self.all.items() if m.ended is not None and m.ended < before]:
            del self.all[mid]


def now() -> float:
    return time.time()
