"""PTX from elsewhere in the same library, for modules that carry only SASS.

NVIDIA's libraries do not pair every kernel's SASS with its PTX: cuFFT keeps each sm_120 kernel in a
container of SASS alone and the PTX of the same kernels in 8,131 other containers of its .nv_fatbin
section, for its own JIT path. A real GPU runs the SASS; the software GPU runs PTX, so when the
client is refused a SASS-only module it sends the library's PTX containers once (a "companion"
bundle, cached by digest like any image) and the server loads, in place of the SASS, the PTX
container that defines every kernel of the refused module — the same kernels, compiled for the
same device, by the same build.

A program built with -rdc (separate compilation) is the other case: nvlink links its units, and the
device runtime for dynamic parallelism, into one image of SASS alone, while each unit's own fatbin,
PTX and all, stays in the program's section. No one container defines every function of that image,
so the server links the units that do, one container for each function not yet defined, as the
units were linked at build time. What only the device runtime's unit defines, and not for the
device (its PTX is for sm_121), is left out: the software GPU provides the device runtime's calls
itself (ptx/ops_cdp.py). Any other kernel without PTX for the device refuses the module, as when a
library's kernel has none.
"""
from __future__ import annotations

import re
import struct
import threading

from . import fatbin
from .errors import SimError

# a definition of a kernel or a device function (not an .extern declaration): a SASS module's .text
# sections name both
_DEFINED = re.compile(rb"^[ \t]*(?:\.(?:visible|weak)[ \t]+)?\.(?:entry|func)[ \t]+(?:\([^)]*\)[ \t]*)?"
                      rb"([A-Za-z_$][\w$]*)[ \t]*\(", re.M)
# functions only the device runtime (libcudadevrt) defines: a container defining one is its unit
RUNTIME_MARKS = {"__cudaCDP2LaunchDeviceV2", "cudaLaunchDeviceV2", "cudaCGSynchronize"}
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
        self.runtime_units: set[int] = set()  # the device runtime's containers (RUNTIME_MARKS)
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
                    names = {n.decode() for n in _DEFINED.findall(e.data)}
                    if names & RUNTIME_MARKS:
                        self.runtime_units.add(k)
                    for name in names:
                        self.by_kernel.setdefault(name, []).append(k)
            pos = end

    def container_for(self, kernels: set[str], cc: tuple[int, int]) -> bytes:
        """The first container whose PTX (for an arch the device runs) defines every kernel; else
        the containers that define them between them, back to back (an -rdc program's units), where
        what none defines for the device is the device runtime's alone."""
        dev = cc[0] * 10 + cc[1]
        usable = {k: [c for c in self.by_kernel.get(k, ()) if self.containers[c][2] <= dev] for k in kernels}
        if kernels and all(usable.values()):
            common = set.intersection(*(set(cs) for cs in usable.values()))
            if common:
                start, end, _ = self.containers[min(common)]
                return self.bundle[start:end]
        # a kernel no container has PTX of would not be found when launched: refused, as before
        missing = sorted(k for k, cs in usable.items() if not cs and not self._runtime_only(k))
        if not kernels or missing:
            raise SimError("CUDA_ERROR_NO_BINARY_FOR_GPU",
                           f"the module carries only SASS and its library has no PTX for sm_{dev} of "
                           + (", ".join(missing[:3]) + (" ..." if len(missing) > 3 else "") if missing
                              else "a module without kernels"))
        units = self._units_for(usable)
        return b"".join(self.bundle[self.containers[c][0]:self.containers[c][1]] for c in units)

    def _runtime_only(self, name: str) -> bool:
        """Whether `name` is defined only by the device runtime's PTX (libcudadevrt's unit): its calls
        are the software GPU's own, and its other functions serve them."""
        cs = self.by_kernel.get(name)
        return bool(cs) and all(c in self.runtime_units for c in cs)

    @staticmethod
    def _units_for(usable: dict[str, list[int]]) -> list[int]:
        """Containers that define between them every name `usable` has some for (name -> the
        containers with PTX the device runs that define it), in bundle order: for each name not yet
        defined by one already taken, the first that defines it."""
        taken: set[int] = set()
        for name in sorted(usable):
            cs = usable[name]
            if cs and not taken.intersection(cs):
                taken.add(cs[0])
        return sorted(taken)


def index_of(digest: str, bundle: bytes) -> CompanionIndex:
    """One index per bundle per worker: building it reads every PTX entry of the library once."""
    with _lock:
        idx = _indexes.get(digest)
        if idx is None:
            idx = _indexes[digest] = CompanionIndex(bundle)
        return idx
