"""The architectures a software GPU can present (`rgpu-server --sim-arch`), each with the limits of
a real part of that generation, so occupancy calculators, grid-size heuristics and libraries that
pick kernels by compute capability see a device that exists.

The default is the newest architecture CUDA 13.0 knows, sm_121: NVIDIA's libraries ship PTX only
for their newest target (cuBLAS and cuBLASLt 13.0: compute_120; cuRAND 10.4 and cuSOLVER 12.0:
compute_121), and PTX runs on a device at least as new as its target, never an older one. Programs
built with an older ``-arch`` (sm_80, ...) run on it as they do on a newer GPU: the driver's JIT
takes the newest PTX not newer than the device.
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
)}
DEFAULT = "sm_121"


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
