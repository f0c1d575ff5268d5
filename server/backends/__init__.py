"""Device backends behind one selection point. `--device` names one: ``sim`` (the software GPU,
server/backends/sim) or ``cuda`` (the real driver, server/backends/cuda); ``auto`` takes cuda when
`probe` finds a usable GPU. Everything above the `Device` interface (handles, quotas, errors) is the
same for both, and so is the end-to-end suite (RGPU_TEST_DEVICE=sim|cuda).

What each backend serves is `handlers_for(kind)`: the API handlers (server/api, written against the
`Device` interface, so they serve both), and on cuda also the generic path that calls the real
driver for the forwarded calls no handler covers (server/backends/cuda/generic.py). A call's record
declares the backends that do not serve it; tests/unit/server/test_backend_coverage.py checks that
the two agree for every call that crosses the wire."""
from __future__ import annotations

from dataclasses import dataclass

from .base import Device

KINDS = ("sim", "cuda")


class BackendUnavailable(RuntimeError):
    """The backend cannot serve on this machine (no driver, no GPU); the message says why."""


@dataclass
class GpuInfo:
    """One GPU as the supervisor inventories it (and the controller shows it)."""
    memory: int
    name: str
    uuid: bytes  # 16 bytes
    sms: int
    compute_capability: str  # "8.0"


def probe(kind: str, *, count: int = 1, memory: int = 0, server_id: str = "", arch: str | None = None) -> list[GpuInfo]:
    """The GPUs backend `kind` would serve; raises BackendUnavailable when it cannot serve here."""
    if kind == "cuda":
        from .cuda import device as cuda
        try:
            return [GpuInfo(g["memory"], g["name"], g["uuid"], g["sms"], g["compute_capability"])
                    for g in cuda.probe()]
        except cuda.CudaUnavailable as e:
            raise BackendUnavailable(str(e)) from None
    if kind == "sim":
        from .sim import archs, identity
        from .sim.errors import SimError
        try:
            a = archs.get(arch)
        except SimError as e:
            raise ValueError(e.message) from None
        return [GpuInfo(memory, identity.name(i, a.name), identity.uuid(server_id, i), a.sms,
                        f"{a.major}.{a.minor}") for i in range(count)]
    raise ValueError(f"unknown device backend {kind!r}: one of {', '.join(KINDS)}")


def handlers_for(kind: str) -> dict[str, object]:
    """Call name -> handler(session, *args) for every call backend `kind` serves."""
    if kind not in KINDS:
        raise ValueError(f"unknown device backend {kind!r}: one of {', '.join(KINDS)}")
    from ..api import load_all
    handlers = dict(load_all())
    if kind == "sim":
        from .sim import tensormaps as sim_maps
        handlers.update(sim_maps.handlers())  # the software GPU's own encoding (the im2col maps: refused)
        from .sim import stream_attrs
        handlers.update(stream_attrs.handlers())  # kept per stream (the cuda backend asks its driver)
        from .sim import stream_memops
        handlers.update(stream_memops.handlers())  # in submission order (the cuda backend: its driver)
    if kind == "cuda":
        from .cuda import generic
        generic_handlers = generic.handlers()
        for name, fn in generic_handlers.items():
            handlers.setdefault(name, fn)
        # the real driver lists a module's functions itself (the API handlers list the sim's)
        for name in ("cuModuleGetFunctionCount", "cuModuleEnumerateFunctions"):
            handlers[name] = generic_handlers[name]
        from .cuda import tensormaps
        handlers.update(tensormaps.handlers())  # encoded by the driver: the sim serves none (their records)
    return handlers


def open_device(kind: str, *, gpu: int, memory: int, server_id: str = "", reserve=None,
                arch: str | None = None, window: int | None = None) -> Device:
    """The device one session of GPU `gpu` runs on, limited to `memory` bytes (a sim presents `arch`;
    `window`: the address window the program's client asked for, or that of a session restored from a
    checkpoint; the sim's memory lies there, and a cuda session's arena: cuda/arena.py)."""
    if kind == "sim":
        from .sim.device import SimDevice
        return SimDevice(memory, gpu, server_id, reserve=reserve, arch=arch, window=window)
    if kind == "cuda":
        from .cuda.device import CudaDevice
        return CudaDevice(gpu, memory, reserve=reserve, capture_printf=True, window=window)
    raise ValueError(f"unknown device backend {kind!r}: one of {', '.join(KINDS)}")
