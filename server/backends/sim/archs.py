"""The architectures a software GPU can present (`rgpu-server --sim-arch`), each with the limits of
a real part of that generation, so occupancy calculators, grid-size heuristics and libraries that
pick kernels by compute capability see a device that exists.

The default, sm_130 (compute capability 13.0), is one generation past the newest CUDA 13.0 knows,
with the limits of the newest part (GB10). The software GPU runs PTX and never SASS, and a device
newer than every SASS in a fatbin is exactly the device the driver JITs that fatbin's PTX for: every
library then takes the PTX path it keeps for GPUs newer than it was built for. On a real
architecture the libraries pick kernels they only carry as SASS: cuBLASLt's DGEMM on sm_120/121 is
a CUTLASS kernel with no PTX anywhere in the library, so it fails with CUBLAS_STATUS_INTERNAL_ERROR,
while on 13.0 it runs a kernel from its compute_120 PTX. The libraries' PTX targets their newest
architecture (cuBLAS 13.0: compute_120; cuRAND and cuSOLVER: compute_121), and PTX runs on its own
architecture or any newer one, so nothing they carry is out of reach. Programs built with an older
``-arch`` (sm_80, ...) run on it as on any newer GPU. The real architectures stay available
(--sim-arch sm_80 ... sm_121) for programs that want a part that exists; on them a library kernel
with SASS alone is served from the same library's PTX where it has one (companion.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import SimError

KiB, MiB = 1024, 1024 * 1024


@dataclass(frozen=True)
class Arch:
    name: str  # "sm_80"
    part: str  # the real GPU whose limits these are
    major: int
    minor: int
    sms: int
    max_threads_per_sm: int
    max_blocks_per_sm: int
    shared_per_sm: int  # bytes of shared memory an SM holds
    shared_optin: int  # most a block may opt in to (cudaFuncAttributeMaxDynamicSharedMemorySize)
    reserved_shared: int  # what the system keeps per block (cooperative groups' barrier state)
    l2_bytes: int
    clock_khz: int
    memory_clock_khz: int
    bus_width: int
    fp64_ratio: int  # single- to double-precision throughput

    @property
    def cc(self) -> tuple[int, int]:
        return self.major, self.minor

    @property
    def number(self) -> int:
        """80 for sm_80, 121 for sm_121: how fatbin entries and PTX .target name architectures."""
        return self.major * 10 + self.minor

    @property
    def max_warps_per_sm(self) -> int:
        return self.max_threads_per_sm // 32


ARCHS = {a.name: a for a in (
    Arch("sm_75", "Tesla T4", 7, 5, 40, 1024, 16, 64 * KiB, 64 * KiB, 0, 4 * MiB, 1590000, 5001000, 256, 32),
    Arch("sm_80", "A100", 8, 0, 108, 2048, 32, 164 * KiB, 163 * KiB, KiB, 40 * MiB, 1410000, 1215000, 5120, 2),
    Arch("sm_86", "A10", 8, 6, 72, 1536, 16, 100 * KiB, 99 * KiB, KiB, 6 * MiB, 1695000, 6251000, 384, 32),
    Arch("sm_89", "L4", 8, 9, 58, 1536, 24, 100 * KiB, 99 * KiB, KiB, 48 * MiB, 2040000, 6251000, 192, 64),
    Arch("sm_90", "H100 SXM", 9, 0, 132, 2048, 32, 228 * KiB, 227 * KiB, KiB, 50 * MiB, 1980000, 2619000, 5120, 2),
    Arch("sm_100", "B200", 10, 0, 148, 2048, 32, 228 * KiB, 227 * KiB, KiB, 126 * MiB, 1965000, 3996000, 8192, 2),
    Arch("sm_120", "RTX 5090", 12, 0, 170, 1536, 32, 100 * KiB, 99 * KiB, KiB, 96 * MiB, 2407000, 14001000, 512, 64),
    Arch("sm_121", "GB10", 12, 1, 48, 1536, 32, 100 * KiB, 99 * KiB, KiB, 24 * MiB, 2418000, 4266000, 256, 64),
    # no such part yet: newer than every SASS NVIDIA's CUDA 13.0 libraries carry, with GB10's limits
    Arch("sm_130", "GB10 limits", 13, 0, 48, 1536, 32, 100 * KiB, 99 * KiB, KiB, 24 * MiB, 2418000, 4266000, 256, 64),
)}
DEFAULT = "sm_130"


def get(name: str | None = None) -> Arch:
    """The architecture called ``name`` ("sm_90", "90" or "9.0"; None: the default)."""
    key = name or DEFAULT
    if key not in ARCHS:
        digits = key.replace("sm_", "").replace("compute_", "").replace(".", "")
        key = f"sm_{digits}"
    arch = ARCHS.get(key)
    if arch is None:
        raise SimError("CUDA_ERROR_INVALID_VALUE",
                       f"the software GPU cannot present {name!r}: choose one of {', '.join(ARCHS)}")
    return arch
