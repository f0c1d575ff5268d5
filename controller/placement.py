"""The pool in memory (servers → GPUs → what is charged to them) and placement of requests.

Placement must stay fast with thousands of GPUs, so GPUs that can take work are kept in sorted
lists (one per GPU model name) keyed by ``(memory_free, compute_free, node_memory_free, uuid)``:

* binpack — bisect to the first GPU with enough free memory and walk upward: the first one that
  fits is the fullest GPU that fits, ties going to the fullest node.
* spread — walk downward from the emptiest GPU (ties to the emptiest node), skipping GPUs already
  chosen for the same request.

A node's free memory is part of every one of its GPUs' keys, so charging one GPU re-keys its
siblings (a handful of bisects). Several vGPUs of one request are placed one after the other,
each charged before the next is chosen, and all are rolled back if one does not fit.
"""
from __future__ import annotations

from bisect import bisect_left, insort
from dataclasses import dataclass, field

from .requests import Request, fmt_bytes


class PlacementError(Exception):
    """The request is valid but does not fit now; the message says what is free."""


@dataclass(eq=False)
class Gpu:
    uuid: str
    server: "Server"
    index: int
    name: str
    memory_total: int
    sms: int = 0
    compute_capability: str = ""
    present: bool = True            # still reported by its server's last registration
    memory_used: int = 0
    compute_used: int = 0           # sum of compute guarantees
    allocations: int = 0
    exclusive: bool = False         # held whole by an exclusive allocation
    key: tuple | None = None        # position in the index; None while not placeable

    @property
    def memory_free(self) -> int:
        return 0 if self.exclusive else max(0, self.memory_total - self.memory_used)

    @property
    def compute_free(self) -> int:
        return 0 if self.exclusive else max(0, 100 - self.compute_used)

    def fits(self, req: Request) -> bool:
        if req.exclusive:
            return self.allocations == 0 and self.memory_total >= req.memory_for(self.memory_total)
        return (self.memory_free >= req.memory_for(self.memory_total)
                and self.compute_free >= req.compute)


@dataclass(eq=False)
class Server:
    url: str
    state: str = "up"                # up | down
    backend: str = ""
    boot_id: str = ""
    gpus: list[Gpu] = field(default_factory=list)
    last_seen: float = 0.0
    usage: dict = field(default_factory=dict)

    @property
    def memory_free(self) -> int:
        return sum(g.memory_free for g in self.gpus if g.present)


@dataclass(frozen=True)
class Slot:
    """One placed vGPU: the GPU and the quotas charged to it."""

    gpu: Gpu
    memory: int
    compute: int
    limit: int
    exclusive: bool


def _matches(name: str, model: str | None) -> bool:
    return model is None or model.lower() in name.lower()


class Pool:
    def __init__(self):
        self.servers: dict[str, Server] = {}
        self.gpus: dict[str, Gpu] = {}
        self._index: dict[str, list[tuple]] = {}      # GPU name → sorted keys of placeable GPUs
        self._min_total = 0

    # ---- membership -------------------------------------------------------------------------
    def upsert_server(self, url: str, gpus: list[dict], *, state="up", backend="", boot_id="",
                      now=0.0) -> Server:
        """Add or refresh a server and its GPUs (dicts with uuid, index, name, memory_total, sms,
        compute_capability). GPUs it no longer reports stay known (allocations may name them)
        but leave placement."""
        server = self.servers.get(url) or Server(url=url)
        self.servers[url] = server
        self._unindex_server(server)
        server.state, server.backend, server.boot_id, server.last_seen = state, backend, boot_id, now
        reported = set()
        for g in gpus:
            gpu = self.gpus.get(g["uuid"])
            if gpu is None:
                gpu = Gpu(uuid=g["uuid"], server=server, index=g["index"], name=g["name"],
                          memory_total=g["memory_total"])
                self.gpus[gpu.uuid] = gpu
            elif gpu.server is not server:          # a GPU moved to another server URL
                gpu.server.gpus.remove(gpu)
                gpu.server = server
            if gpu not in server.gpus:
                server.gpus.append(gpu)
            gpu.index, gpu.name, gpu.memory_total = g["index"], g["name"], g["memory_total"]
            gpu.sms, gpu.compute_capability = g.get("sms", 0), g.get("compute_capability", "")
            gpu.present = True
            reported.add(gpu.uuid)
        for gpu in server.gpus:
            gpu.present = gpu.uuid in reported
        server.gpus.sort(key=lambda x: x.index)
        totals = [g.memory_total for g in self.gpus.values()]
        self._min_total = min(totals) if totals else 0
        self._index_server(server)
        return server

    def remove_server(self, url: str) -> None:
        """Drop a server and its GPUs (none may hold an allocation)."""
        server = self.servers.pop(url)
        self._unindex_server(server)
        for gpu in server.gpus:
            self.gpus.pop(gpu.uuid, None)
        totals = [g.memory_total for g in self.gpus.values()]
        self._min_total = min(totals) if totals else 0

    def set_state(self, server: Server, state: str) -> None:
        self._unindex_server(server)
        server.state = state
        self._index_server(server)

    # ---- charging ---------------------------------------------------------------------------
    def charge(self, gpu: Gpu, memory: int, compute: int, exclusive: bool, sign: int = 1) -> None:
        """Add (sign=1) or remove (sign=-1) an allocation's share of ``gpu``."""
        self._unindex_server(gpu.server)
        gpu.memory_used += sign * memory
        gpu.compute_used += sign * compute
        gpu.allocations += sign
        if exclusive:
            gpu.exclusive = sign > 0
        self._index_server(gpu.server)

    # ---- the index --------------------------------------------------------------------------
    def _unindex_server(self, server: Server) -> None:
        for gpu in server.gpus:
            if gpu.key is not None:
                keys = self._index[gpu.name]
                del keys[bisect_left(keys, gpu.key)]
                gpu.key = None

    def _index_server(self, server: Server) -> None:
        if server.state != "up":
            return
        node_free = server.memory_free
        for gpu in server.gpus:
            if gpu.present:
                gpu.key = (gpu.memory_free, gpu.compute_free, node_free, gpu.uuid)
                insort(self._index.setdefault(gpu.name, []), gpu.key)

    def _best_in(self, keys: list[tuple], req: Request, skip: set) -> Gpu | None:
        floor = req.memory if req.memory is not None else int(req.memory_fraction * self._min_total)
        if req.exclusive:
            floor = 0                      # an exclusive GPU is judged by its total, not its free
        if req.policy == "binpack":
            for i in range(bisect_left(keys, (floor,)), len(keys)):
                gpu = self.gpus[keys[i][3]]
                if gpu.uuid not in skip and gpu.fits(req):
                    return gpu
        else:
            for i in range(len(keys) - 1, -1, -1):
                if keys[i][0] < floor and not req.exclusive:
                    break
                gpu = self.gpus[keys[i][3]]
                if gpu.uuid not in skip and gpu.fits(req):
                    return gpu
        return None

    def _best(self, req: Request, skip: set) -> Gpu | None:
        found = [g for name, keys in self._index.items() if _matches(name, req.model)
                 for g in [self._best_in(keys, req, skip)] if g is not None]
        if not found:
            return None
        pick = min if req.policy == "binpack" else max
        return pick(found, key=lambda g: g.key)

    # ---- placement --------------------------------------------------------------------------
    def _slot(self, gpu: Gpu, req: Request) -> Slot:
        if req.exclusive:
            return Slot(gpu, gpu.memory_total, 100, 100, True)
        return Slot(gpu, req.memory_for(gpu.memory_total), req.compute, req.limit, False)

    def _place_each(self, req: Request, choose) -> list[Slot] | None:
        slots: list[Slot] = []
        for _ in range(req.count):
            gpu = choose({s.gpu.uuid for s in slots} if req.policy == "spread" else set())
            if gpu is None:
                self.release(slots)
                return None
            slot = self._slot(gpu, req)
            self.charge(gpu, slot.memory, slot.compute, slot.exclusive)
            slots.append(slot)
        return slots

    def place(self, req: Request) -> list[Slot]:
        """Choose and charge GPUs for ``req``; raise ``PlacementError`` saying what is free."""
        if req.same_node and req.count > 1:
            slots = self._place_same_node(req)
        else:
            slots = self._place_each(req, lambda skip: self._best(req, skip))
        if slots is None:
            raise PlacementError(self.explain(req))
        return slots

    def _place_same_node(self, req: Request) -> list[Slot] | None:
        nodes = [s for s in self.servers.values() if s.state == "up"]
        nodes.sort(key=lambda s: (s.memory_free, s.url), reverse=req.policy == "spread")
        for node in nodes:
            def choose(skip, node=node):
                fitting = [g for g in node.gpus if g.key is not None and g.uuid not in skip
                           and _matches(g.name, req.model) and g.fits(req)]
                if not fitting:
                    return None
                return (min if req.policy == "binpack" else max)(fitting, key=lambda g: g.key)
            slots = self._place_each(req, choose)
            if slots is not None:
                return slots
        return None

    def release(self, slots) -> None:
        for s in slots:
            self.charge(s.gpu, s.memory, s.compute, s.exclusive, sign=-1)

    def explain(self, req: Request) -> str:
        """Say why ``req`` does not fit: how many GPUs could take one vGPU, and what is free."""
        up = [g for s in self.servers.values() if s.state == "up" for g in s.gpus if g.present]
        down = sum(1 for s in self.servers.values() if s.state != "up")
        if not up:
            return (f"cannot place {req.describe()}: no GPU is available "
                    f"({len(self.servers)} servers registered, {down} down)")
        models = [g for g in up if _matches(g.name, req.model)]
        if not models:
            names = sorted({g.name for g in up})
            return f"cannot place {req.describe()}: no GPU matches model {req.model!r}; models: {', '.join(names)}"
        fitting = [g for g in models if g.fits(req)]
        top = sorted(models, key=lambda g: (g.memory_free, g.compute_free), reverse=True)[:3]
        free = "; ".join(f"{g.server.url}#{g.index} ({g.name}) {fmt_bytes(g.memory_free)} of "
                         f"{fmt_bytes(g.memory_total)}, {g.compute_free}% compute" for g in top)
        total = sum(g.memory_free for g in models)
        why = f"{len(fitting)} of {len(models)} GPUs can take one such vGPU"
        if req.same_node and len(fitting) >= req.count:
            why += ", but no single server can hold all of them"
        return (f"cannot place {req.describe()}: {why}. Most free: {free}. "
                f"Free in total: {fmt_bytes(total)} on {len(models)} GPUs "
                f"({len(self.servers) - down} servers up, {down} down)")
