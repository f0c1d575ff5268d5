"""The GPU probe: what the server knows of its GPUs before it serves them, and their identity.

A GPU is known to the controller by its uuid, shown as nvidia-smi shows it (``GPU-8-4-4-4-12``
hex). Real GPUs report theirs; a software GPU derives a stable one from the server id and its index
with ``sim_gpu_uuid`` (the same bytes ``SimDevice.uuid`` reports to CUDA programs), so a server
restarted on the same host and address keeps its GPUs' identities and leases.

A server started with ``--gpu-part I/N`` serves part I of N of each of its GPUs (``partition``): 1/N
of the memory, under the GPU's uuid with ``/part-I-of-N`` after it, so that N servers on one GPU
join one pool as N GPUs (the controller takes a uuid once) and a lease, a failover or a move goes from
one part to another as between GPUs. Programs still see the GPU's own uuid (as a process does beside
others on a GPU), and NVML is asked by it."""
from __future__ import annotations

from dataclasses import dataclass, replace

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

    @property
    def device_uuid(self) -> str:
        """The GPU's own uuid, without a part's suffix: what NVML knows it by."""
        return self.uuid.split("/", 1)[0]


PART_ALIGN = 2 << 20  # a part's memory in whole 2 MiB granules, as the arena maps them


def parse_part(text: str) -> tuple[int, int]:
    """``I/N`` (1 <= I <= N <= 64) -> (I, N); ValueError saying what is wrong."""
    i, sep, n = text.partition("/")
    if not sep or not i.strip().isdigit() or not n.strip().isdigit():
        raise ValueError(f"{text!r} is not I/N (part I of N, e.g. 1/2)")
    i, n = int(i), int(n)
    if not 1 <= i <= n <= 64:
        raise ValueError(f"part {i} of {n}: wants 1 <= I <= N <= 64")
    return i, n


def partition(gpus: list[GpuSpec], part: tuple[int, int] | None) -> list[GpuSpec]:
    """Each GPU as part ``part`` = (I, N) of it: 1/N of its memory (whole granules) and an identity of
    its own; the GPUs as they are without one."""
    if part is None:
        return gpus
    i, n = part
    return [replace(g, memory=g.memory // n // PART_ALIGN * PART_ALIGN, uuid=f"{g.uuid}/part-{i}-of-{n}")
            for g in gpus]


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
