"""What a user asks for: one vGPU request (memory, compute guarantee/limit, count, policy, ...),
its validation, and the size parsing shared with the CLI."""
from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass

POLICIES = ("binpack", "spread")
MAX_COUNT = 64
_UNITS = {"": 1, "b": 1, "k": 1000, "kb": 1000, "m": 1000**2, "mb": 1000**2, "g": 1000**3,
          "gb": 1000**3, "t": 1000**4, "tb": 1000**4, "kib": 1024, "mib": 1024**2,
          "gib": 1024**3, "tib": 1024**4}


class RequestError(ValueError):
    """The request itself is invalid (as opposed to not fitting the pool right now)."""


def parse_memory(text: str) -> tuple[int | None, float | None]:
    """``"8GiB"`` → (bytes, None); ``"0.5"`` or ``"50%"`` → (None, fraction of the GPU).

    A bare number below or equal to 1 is a fraction; a bare integer above 1 is bytes."""
    s = str(text).strip().lower().replace(" ", "")
    if s.endswith("%"):
        try:
            pct = float(s[:-1])
        except ValueError:
            raise RequestError(f"memory {text!r}: expected a percentage like 50%") from None
        if not 0 < pct <= 100:
            raise RequestError(f"memory {text!r}: a percentage must be in (0, 100]")
        return None, pct / 100
    m = re.fullmatch(r"([0-9]*\.?[0-9]+)([a-z]*)", s)
    if not m or m.group(2) not in _UNITS:
        raise RequestError(f"memory {text!r}: use bytes, a unit (512MiB, 8GiB, 16GB) or a fraction "
                           "of the GPU (0.5 or 50%)")
    value, unit = float(m.group(1)), m.group(2)
    if unit == "" and 0 < value <= 1:
        return None, value
    nbytes = int(value * _UNITS[unit])
    if nbytes <= 0:
        raise RequestError(f"memory {text!r} must be more than zero")
    return nbytes, None


def fmt_bytes(n: int | float) -> str:
    for unit, size in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if abs(n) >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} B"


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
        return cls(memory=memory, memory_fraction=fraction, compute=compute, limit=limit,
                   count=count, policy=policy, same_node=bool(d.get("same_node", False)),
                   model=model or None, exclusive=bool(d.get("exclusive", False)))

    def to_wire(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}

    def memory_for(self, memory_total: int) -> int:
        """Bytes this request needs on a GPU of ``memory_total`` bytes."""
        if self.memory is not None:
            return self.memory
        return max(1, math.floor(self.memory_fraction * memory_total))

    def describe(self) -> str:
        mem = fmt_bytes(self.memory) if self.memory is not None else f"{self.memory_fraction:.0%} of memory"
        extra = "".join([f", model ~{self.model}" if self.model else "",
                         ", exclusive" if self.exclusive else "",
                         ", same node" if self.same_node and self.count > 1 else ""])
        return (f"{self.count} × ({mem}, compute {self.compute}%, limit {self.limit}%{extra}; "
                f"policy {self.policy})")
