"""The GPU probe: what the server knows of its GPUs before it serves them, and their identity.

A GPU is known to the controller by its uuid, shown as nvidia-smi shows it (``GPU-8-4-4-4-12``
hex). Real GPUs report theirs; a software GPU derives a stable one from the server id and its index
with ``sim_gpu_uuid`` (the same bytes ``SimDevice.uuid`` reports to CUDA programs), so a server
restarted on the same host and address keeps its GPUs' identities and leases."""
from __future__ import annotations

from dataclasses import dataclass

from . import backends
from .backends.sim import identity as sim_identity

sim_gpu_uuid = sim_identity.uuid  # the 16 uuid bytes of software GPU ``index`` of server ``server_id``


class NoDevice(Exception):
    """The asked-for backend cannot serve on this machine; the message says what to do."""


@dataclass(frozen=True)
class GpuSpec:
    """What the server knows of one of its GPUs before serving it."""
    memory: int
    name: str
    uuid: str
    sms: int = 108
    compute_capability: str = "8.0"


def uuid_text(raw: bytes) -> str:
    """16 uuid bytes as nvidia-smi prints them: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx."""
    h = raw.hex()
    return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def probe(device: str, count: int, sim_memory: int, server_id: str,
          sim_arch: str | None = None) -> tuple[str, list[GpuSpec]]:
    """(the backend that will serve, its GPUs) for ``--device`` sim, cuda or auto (cuda when it
    works here, else sim); raises NoDevice when cuda was asked for and cannot serve, ValueError
    for a ``sim_arch`` the software GPU cannot present."""
    kind = "sim" if device == "sim" else "cuda"
    try:
        found = backends.probe(kind, count=count, memory=sim_memory, server_id=server_id, arch=sim_arch)
    except backends.BackendUnavailable as e:
        if device == "cuda":
            raise NoDevice(f"{e}. On a machine without an NVIDIA GPU use --device sim.") from None
        kind, found = "sim", backends.probe("sim", count=count, memory=sim_memory, server_id=server_id,
                                            arch=sim_arch)
    return kind, [GpuSpec(g.memory, g.name, uuid_text(g.uuid), g.sms, g.compute_capability) for g in found]
