"""PTX from elsewhere in the same library, for modules that carry only SASS.

NVIDIA's libraries do not pair every kernel's SASS with its PTX: cuFFT keeps each sm_120 kernel in a
container of SASS alone and the PTX of the same kernels in 8,131 other containers of its .nv_fatbin
section, for its own JIT path. A real GPU runs the SASS; the software GPU runs PTX, so when the
client is refused a SASS-only module it sends the library's PTX containers once (a "companion"
bundle, cached by digest like any image) and the server loads, in place of the SASS, the PTX
container that defines every kernel of the refused module — the same kernels, compiled for the
same device, by the same build.
"""
from __future__ import annotations

import re
import struct
import threading

from . import fatbin
from .errors import SimError

_ENTRY = re.compile(rb"\.entry\s+([A-Za-z_$][\w$]*)\s*\(")
_indexes: dict[str, "CompanionIndex"] = {}
_lock = threading.Lock()


def kernel_names(image: bytes) -> set[str]:
    """The kernels of a module's SASS: the `.text.NAME` sections of its cubins."""
    names: set[str] = set()
    for e in fatbin.parse_image(image).cubins:
        try:
            names |= _elf_text_sections(e.data)
        except (struct.error, ValueError, IndexError):
            continue
    return names


def _elf_text_sections(elf: bytes) -> set[str]:
    shoff = struct.unpack_from("<Q", elf, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    strtab = struct.unpack_from("<Q", elf, shoff + shstrndx * shentsize + 0x18)[0]
    out = set()
    for i in range(shnum):
        name_off = struct.unpack_from("<I", elf, shoff + i * shentsize)[0]
        start = strtab + name_off
        name = elf[start:elf.index(b"\0", start)].decode()
        if name.startswith(".text."):
            out.add(name[len(".text."):])
    return out


class CompanionIndex:
    """Which container of a bundle defines which kernel, and where it lies."""

    def __init__(self, bundle: bytes):
        self.bundle = bundle
        self.containers: list[tuple[int, int, int]] = []  # (start, end, newest PTX arch)
        self.by_kernel: dict[str, list[int]] = {}
        pos, magic = 0, struct.pack("<I", fatbin.CONTAINER_MAGIC)
        while True:
            pos = bundle.find(magic, pos)
            if pos < 0:
                break
            entries, end = fatbin.parse_container(bundle, pos)
            ptx = [e for e in entries if e.is_ptx]
            if ptx:
                k = len(self.containers)
                self.containers.append((pos, end, max(e.arch for e in ptx)))
                for e in ptx:
                    for name in set(_ENTRY.findall(e.data)):
                        self.by_kernel.setdefault(name.decode(), []).append(k)
            pos = end

    def container_for(self, kernels: set[str], cc: tuple[int, int]) -> bytes:
        """The first container whose PTX (for an arch the device runs) defines every kernel."""
        dev = cc[0] * 10 + cc[1]
        missing = sorted(k for k in kernels if k not in self.by_kernel)
        if not kernels or missing:
            raise SimError("CUDA_ERROR_NO_BINARY_FOR_GPU",
                           "the module carries only SASS and its library has no PTX for "
                           + (", ".join(missing[:3]) + (" ..." if len(missing) > 3 else "") if missing
                              else "a module without kernels"))
        candidates = set.intersection(*(set(self.by_kernel[k]) for k in kernels))
        usable = [c for c in sorted(candidates) if self.containers[c][2] <= dev]
        if not usable:
            raise SimError("CUDA_ERROR_NO_BINARY_FOR_GPU",
                           f"no single PTX container of the library defines {', '.join(sorted(kernels)[:3])} "
                           f"for sm_{dev}")
        start, end, _ = self.containers[usable[0]]
        return self.bundle[start:end]


def index_of(digest: str, bundle: bytes) -> CompanionIndex:
    """One index per bundle per worker: building it reads every PTX entry of the library once."""
    with _lock:
        idx = _indexes.get(digest)
        if idx is None:
            idx = _indexes[digest] = CompanionIndex(bundle)
        return idx
