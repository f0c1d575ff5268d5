"""What a user asks for: one vGPU request (memory, compute guarantee/limit, count, policy, ...),
its validation, and the size parsing shared with the CLI."""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from rgpu.units import SizeError, check_vgpu_memory, format_size, parse_vgpu_memory

POLICIES = ("binpack", "spread")
MAX_COUNT = 64
MIN_RECLAIM_S, MAX_RECLAIM_S = 1.0, 30 * 24 * 3600.0
FLAGS = ("share_only", "failover", "kept_while_used")   # left off the wire when false


class RequestError(ValueError):
    """The request itself is invalid (as opposed to not fitting the pool right now)."""


def parse_memory(text: str) -> tuple[int | None, float | None]:
    """``"8GiB"``, ``"8G"`` or ``"512"`` (MiB) → (bytes, None); ``"50%"`` → (None, fraction of the
    GPU). rgpu/units.py holds the grammar (shared by every command and daemon)."""
    try:
        return parse_vgpu_memory(text)
    except SizeError as exc:
        raise RequestError(str(exc)) from None


fmt_bytes = format_size


def _int_field(d: dict, name: str, default, lo: int, hi: int):
    value = d.get(name)
    if value is None:   # absent or nil: the default (a nil limit must not reach the comparisons)
        value = default
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise RequestError(f"{name} must be a whole number (1% steps for compute), got {value!r}")
    if not lo <= value <= hi:
        raise RequestError(f"{name} must be between {lo} and {hi}, got {value}")
    return value


@dataclass(frozen=True)
class Request:
    """One reserve request. Defaults: nothing given → a whole GPU (all memory, 100/100);
    memory without compute → compute guarantee 0 (best effort) up to ``limit``; compute without
    memory → the same fraction of memory as of compute; limit defaults to 100."""

    memory: int | None = None
    memory_fraction: float | None = None
    compute: int = 100
    limit: int = 100
    count: int = 1
    policy: str = "binpack"
    same_node: bool = False
    model: str | None = None
    exclusive: bool = False
    reclaim_after: float | None = None   # seconds idle after which the vGPU's sessions may be reclaimed
    share_only: bool = False     # placed and accounted, but no quota or limit is enforced on it
    failover: bool = False       # its sessions keep checkpoints their programs resume from on another server
    # a program's own lease (env-only, libhook/src/transport/lease.c): also kept alive while its
    # servers hold sessions of it, since the program's renewer thread stops whenever the program does
    kept_while_used: bool = False

    @classmethod
    def from_wire(cls, d: dict) -> "Request":
        if not isinstance(d, dict):
            raise RequestError("request must be a map")
        memory = d.get("memory")
        fraction = d.get("memory_fraction")
        if isinstance(memory, str):
            memory, fraction = parse_memory(memory)
        if memory is not None and (isinstance(memory, bool) or not isinstance(memory, int) or memory <= 0):
            raise RequestError(f"memory must be a positive number of bytes, got {memory!r}")
        if memory is not None:
            try:
                check_vgpu_memory(memory)
            except SizeError as exc:
                raise RequestError(str(exc)) from None
        if fraction is not None:
            if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 < fraction <= 1:
                raise RequestError(f"memory_fraction must be in (0, 1], got {fraction!r}")
            fraction = float(fraction)
        if memory is not None and fraction is not None:
            raise RequestError("give memory in bytes or as a fraction, not both")
        compute = _int_field(d, "compute", None, 0, 100)
        limit = _int_field(d, "limit", 100, 1, 100)
        if memory is None and fraction is None:
            fraction = 1.0 if compute is None else max(compute, 1) / 100
        if compute is None:
            compute = 100 if (d.get("memory") is None and d.get("memory_fraction") is None) else 0
        if compute > limit:
            raise RequestError(f"compute guarantee {compute}% exceeds its limit {limit}%")
        count = _int_field(d, "count", 1, 1, MAX_COUNT)
        policy = d.get("policy") or "binpack"
        if policy not in POLICIES:
            raise RequestError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
        model = d.get("model")
        if model is not None and not isinstance(model, str):
            raise RequestError("model must be a string (matched against GPU names)")
        reclaim = d.get("reclaim_after")
        if reclaim is not None and (isinstance(reclaim, bool) or not isinstance(reclaim, (int, float))
                                    or not MIN_RECLAIM_S <= reclaim <= MAX_RECLAIM_S):
            raise RequestError(f"reclaim_after must be seconds in [{MIN_RECLAIM_S:g}, {MAX_RECLAIM_S:g}], "
                               f"got {reclaim!r}")
        return cls(memory=memory, memory_fraction=fraction, compute=compute, limit=limit,
                   count=count, policy=policy, same_node=bool(d.get("same_node", False)),
                   model=model or None, exclusive=bool(d.get("exclusive", False)),
                   reclaim_after=float(reclaim) if reclaim is not None else None,
                   share_only=bool(d.get("share_only", False)), failover=bool(d.get("failover", False)),
                   kept_while_used=bool(d.get("kept_while_used", False)))

    def to_wire(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None and not (k in FLAGS and not v)}

    def memory_for(self, memory_total: int) -> int:
        """Bytes this request needs on a GPU of ``memory_total`` bytes."""
        if self.memory is not None:
            return self.memory
        return max(1, math.floor(self.memory_fraction * memory_total))

    def describe(self) -> str:
        mem = fmt_bytes(self.memory) if self.memory is not None else f"{self.memory_fraction:.0%} of memory"
        extra = "".join([f", model ~{self.model}" if self.model else "",
                         ", exclusive" if self.exclusive else "",
                         f", reclaimable after {self.reclaim_after:g}s idle" if self.reclaim_after else "",
                         ", failover" if self.failover else "",
                         ", share-only" if self.share_only else "",
                         ", kept while used" if self.kept_while_used else "",
                         ", same node" if self.same_node and self.count > 1 else ""])
        return (f"{self.count} × ({mem}, compute {self.compute}%, limit {self.limit}%{extra}; "
                f"policy {self.policy})")
