"""Kernels of NVIDIA's real libraries as the software GPU would receive them: the whole fatbin
container a kernel lives in (its SASS for every architecture plus its PTX), cut out of the pinned
shared object (tests/support/nvlibs.py) and loaded through KernelModule.load like any module."""
from __future__ import annotations

from functools import lru_cache

from rgpu.server.backends.sim import archs, fatbin
from rgpu.server.backends.sim.kernels import KernelModule
from rgpu.server.backends.sim.ptx import scan
from tests.support import nvlibs


@lru_cache(maxsize=None)
def container(library: str, kernel: str) -> bytes:
    """The bytes of the container of ``library`` whose PTX defines ``.entry kernel``."""
    data = nvlibs.library(library).read_bytes()
    needle = f".entry {kernel}(".encode()
    for _pos, blob in scan.containers(data):
        img = fatbin.Image(fatbin.parse_container(blob, 0, (fatbin.KIND_PTX,))[0])
        if any(needle in e.data for e in img.ptx):
            return blob
    raise LookupError(f"no container of {library} defines {kernel}")


def load(library: str, kernel: str, arch: str | None = None) -> KernelModule:
    return KernelModule.load(container(library, kernel), arch=archs.get(arch),
                             label=nvlibs.LIBRARIES[library][1])
