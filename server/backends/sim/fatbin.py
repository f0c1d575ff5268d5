"""Unpacking what nvcc embeds in a program: registration wrappers, fatbin containers, entries.

A host object carries a wrapper (``__fatbinwrap``: magic 0x466243B1, version 1 = one container,
version 2 = the per-unit containers of ``-rdc=true``); the client ships the wrapper followed by the
bytes it points to, or just the container(s). A container (magic 0xBA55ED50) holds entries back to
back: PTX text (kind 1) or a cubin ELF (kind 2) for one ``sm_XY``, optionally compressed with LZ4
(block format) or zstd. The software GPU executes PTX; cubins only serve their ``.nv.info``
records (parameter layout), exactly like the driver's JIT would prefer SASS but fall back to PTX.
"""
from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field

import lz4.block
import zstandard

from . import archs
from .errors import SimError

WRAPPER_MAGIC = 0x466243B1
CONTAINER_MAGIC = 0xBA55ED50
ELF_MAGIC = b"\x7fELF"
# What rgpu's cuLinkComplete hands out (libhook/src/module/library.c): this, the image's whole size
# (u64), then one container per linked input, back to back.
LINK_MAGIC = b"rgpulnk\0"
LINK_HEADER = 16

KIND_PTX = 1
KIND_ELF = 2
# rgpu's own entry kinds, in link images alone (libhook/src/module/library.c): an input the program
# gave the linker as a host object with device code inside (CU_JIT_INPUT_OBJECT) or an archive of
# them (CU_JIT_INPUT_LIBRARY: libcudadevrt.a). The cuda backend hands them to the driver as they
# came; the software GPU takes the PTX of the containers inside.
KIND_OBJECT = 0x103
KIND_LIBRARY = 0x104
LINK_KINDS = (KIND_PTX, KIND_ELF, KIND_OBJECT, KIND_LIBRARY)

# Entry flags (fatbinary.h calls them FATBIN_FLAG_*); only the compression bits change how we read.
FLAG_COMPRESSED_LZ4 = 0x2000
FLAG_COMPRESSED_ZSTD = 0x8000

_CONTAINER_HDR = struct.Struct("<IHHQ")  # magic, version, header size, size of the entries
# kind, version, header size, padded payload size, compressed size, ?, minor, major, arch,
# name offset, name length, flags, zero, decompressed size
_ENTRY_HDR = struct.Struct("<HHIQIIHHIIIQQQ")


@dataclass
class Entry:
    kind: int  # KIND_PTX or KIND_ELF
    arch: int  # 80 for sm_80 / compute_80
    data: bytes  # decompressed payload (PTX text without trailing NULs, or ELF bytes)
    flags: int = 0
    container: int = 0  # which container of the image (one per -rdc translation unit)

    @property
    def is_ptx(self) -> bool:
        return self.kind == KIND_PTX


@dataclass
class Image:
    """Everything found in one image handed to cuModuleLoadData / __cudaRegisterFatBinary."""

    entries: list[Entry] = field(default_factory=list)
    bare_cubin: bool = False  # the image is one cubin ELF, not a fatbin

    @property
    def ptx(self) -> list[Entry]:
        return [e for e in self.entries if e.kind == KIND_PTX]

    @property
    def cubins(self) -> list[Entry]:
        return [e for e in self.entries if e.kind == KIND_ELF]


def _decompress(flags: int, payload: bytes, csize: int, dsize: int) -> bytes:
    if flags & FLAG_COMPRESSED_ZSTD:
        # The payload is padded to 8 bytes after the frame; the exact frame size is in the header.
        return zstandard.ZstdDecompressor().decompress(payload[:csize], max_output_size=dsize or 1 << 30)
    if flags & FLAG_COMPRESSED_LZ4:
        return lz4.block.decompress(payload[:csize], uncompressed_size=dsize)
    return payload


def parse_container(buf: bytes, pos: int = 0, kinds=(KIND_PTX, KIND_ELF)) -> tuple[list[Entry], int]:
    """Entries of the container at ``pos`` (only those of ``kinds``: skipping the SASS of a
    library's containers saves decompressing most of their bytes); returns them and the offset just
    past the container."""
    magic, _version, hsize, fsize = _CONTAINER_HDR.unpack_from(buf, pos)
    if magic != CONTAINER_MAGIC:
        raise SimError("CUDA_ERROR_INVALID_IMAGE", f"no fatbin container at offset {pos}")
    end = pos + hsize + fsize
    if end > len(buf):
        raise SimError("CUDA_ERROR_INVALID_IMAGE", "fatbin container is truncated")
    p = pos + hsize
    entries = []
    while p + _ENTRY_HDR.size <= end:
        (kind, _ver, ehsize, psize, csize, _u, _minor, _major, arch, _noff, _nlen, flags, _z,
         dsize) = _ENTRY_HDR.unpack_from(buf, p)
        if ehsize < _ENTRY_HDR.size or p + ehsize + psize > end:
            raise SimError("CUDA_ERROR_INVALID_IMAGE", f"corrupt fatbin entry at offset {p}")
        if kind not in kinds:
            p += ehsize + psize
            continue
        payload = bytes(buf[p + ehsize:p + ehsize + psize])
        try:
            data = _decompress(flags, payload, csize, dsize)
        except Exception as exc:  # zstd/lz4 raise their own types; a corrupt image is the caller's error
            raise SimError("CUDA_ERROR_INVALID_IMAGE", f"cannot decompress fatbin entry: {exc}") from exc
        if kind == KIND_PTX:
            data = data.rstrip(b"\0")
        elif kind in (KIND_OBJECT, KIND_LIBRARY) and dsize:
            data = data[:dsize]  # the exact size: the client pads every entry to 8 bytes
        if kind in kinds:
            entries.append(Entry(kind, arch, data, flags))
        p += ehsize + psize
    return entries, end


def _is_ptx_text(buf: bytes) -> bool:
    head = buf[:4096].lstrip()
    return (b".version" in head or b".target" in head) and b"\0" not in buf.rstrip(b"\0")[:4096]


def parse_image(image: bytes) -> Image:
    """Classify and unpack ``image``: wrapper + containers, containers, a link image (one container
    per input of cuLinkComplete), a ``.fatbin`` file, a cubin, or PTX text."""
    buf = bytes(image)
    if not buf:
        raise SimError("CUDA_ERROR_INVALID_IMAGE", "empty module image")
    linked = buf[:len(LINK_MAGIC)] == LINK_MAGIC
    if linked:
        if len(buf) < LINK_HEADER + _CONTAINER_HDR.size or \
                struct.unpack_from("<I", buf, LINK_HEADER)[0] != CONTAINER_MAGIC:
            raise SimError("CUDA_ERROR_INVALID_IMAGE", "link image without a container after its header")
        buf = buf[LINK_HEADER:]
    if buf[:4] == ELF_MAGIC:
        return Image([Entry(KIND_ELF, elf_arch(buf), buf)], bare_cubin=True)
    if _is_ptx_text(buf):
        return Image([Entry(KIND_PTX, ptx_target_arch(buf), buf.rstrip(b"\0"))])
    magic = struct.unpack_from("<I", buf, 0)[0] if len(buf) >= 4 else 0
    pos = 0
    if magic == WRAPPER_MAGIC:
        # The wrapper's pointers mean nothing here; the payload the client appended follows it
        # (16 bytes on 32-bit layouts, 24 on 64-bit): find the first container after the magic.
        pos = find_container(buf, 8)
        if pos < 0:
            raise SimError("CUDA_ERROR_INVALID_IMAGE", "fatbin wrapper without a container after it")
    elif magic != CONTAINER_MAGIC:
        raise SimError("CUDA_ERROR_INVALID_IMAGE",
                       "image is neither PTX, a cubin, nor a fatbin (bad magic 0x%08x)" % magic)
    img = Image()
    unit = 0
    while pos >= 0 and pos + _CONTAINER_HDR.size <= len(buf):
        entries, end = parse_container(buf, pos, LINK_KINDS if linked else (KIND_PTX, KIND_ELF))
        for e in entries:
            if e.kind in (KIND_OBJECT, KIND_LIBRARY):
                # a host object or an archive of them: each container inside is a unit of the link
                for _pos, blob in embedded_containers(e.data):
                    inner, _ = parse_container(blob, 0)
                    for x in inner:
                        x.container = unit
                    img.entries.extend(inner)
                    unit += 1
                continue
            e.container = unit
            img.entries.append(e)
        unit += 1
        # Several containers (one per -rdc unit) sit back to back, each 8-byte aligned.
        pos = find_container(buf, end)
    if not img.entries:
        raise SimError("CUDA_ERROR_INVALID_IMAGE", "fatbin holds no PTX or ELF entry")
    return img


def embedded_containers(data: bytes, aligned: bool = False) -> Iterator[tuple[int, bytes]]:
    """(offset, bytes) of every fatbin container inside a shared object, a host object or an
    archive. ``aligned``: only at 8-byte offsets, where a shared object's .nv_fatbin places them;
    a host object's __nv_relfatbin inside an archive may sit anywhere (members are 2-byte aligned)."""
    magic = struct.pack("<I", CONTAINER_MAGIC)
    pos = data.find(magic)
    while pos >= 0:
        if aligned and pos % 8:
            pos = data.find(magic, pos + 4)
            continue
        _m, _v, hsize, fsize = _CONTAINER_HDR.unpack_from(data, pos) if pos + _CONTAINER_HDR.size <= len(data) \
            else (0, 0, 0, 0)
        end = pos + hsize + fsize
        if hsize == _CONTAINER_HDR.size and end <= len(data):
            yield pos, data[pos:end]
            pos = data.find(magic, end)
        else:
            pos = data.find(magic, pos + 4)


def find_container(buf: bytes, start: int) -> int:
    magic = struct.pack("<I", CONTAINER_MAGIC)
    p = buf.find(magic, start)
    while p >= 0 and p % 8:
        p = buf.find(magic, p + 1)
    return p


def ptx_target_arch(text: bytes) -> int:
    import re

    m = re.search(rb"\.target\s+(?:sm|compute)_(\d+)", text)
    return int(m.group(1)) if m else 0


def elf_arch(elf: bytes) -> int:
    # e_flags of a CUDA ELF carry the SM number: bits 0-7 before ELF ABI v8, bits 8-15 after.
    flags = struct.unpack_from("<I", elf, 0x30)[0]
    abiver = elf[8]
    return (flags >> 8) & 0xFF if abiver >= 7 or (flags & 0xFF) == 0 else flags & 0xFF


def choose_ptx_units(img: Image, cc: tuple[int, int]) -> list[Entry]:
    """The PTX of every translation unit (container) the driver would JIT for a ``cc`` device."""
    units = sorted({e.container for e in img.ptx})
    out = []
    for u in units:
        sub = Image([e for e in img.entries if e.container == u])
        try:
            out.append(choose_ptx(sub, cc))
        except SimError:
            continue
    return out or [choose_ptx(img, cc)]


def sass_stand_in(img: Image, dev: int) -> Entry | None:
    """PTX of a later revision of the device's own major architecture, where the image carries SASS
    that a GPU of arch ``dev`` runs and no PTX the driver would JIT for it; else None.

    A GPU runs a cubin built for its major architecture and an older or equal minor revision (sm_120
    SASS on an sm_120 or sm_121 part); the software GPU runs only PTX. NVIDIA's libraries sometimes
    pair their SASS with PTX of their newest part alone: cuRAND 10.4 carries sm_75 ... sm_121 SASS and
    compute_121 PTX, so on an sm_120 software GPU (what numba-cuda needs) none of its kernels loaded,
    where an sm_120 GPU runs them. That PTX is the same kernels, compiled from the same source for the
    next minor revision of the same architecture: the software GPU runs it in place of the SASS a GPU
    would run, and the program sees what it sees on that GPU. Never across a major architecture: a GPU
    does not run another major's SASS, and the driver refuses it there too."""
    major = dev // 10
    if not any(c.arch // 10 == major and c.arch <= dev for c in img.cubins):
        return None
    later = [e for e in img.ptx if e.arch // 10 == major and e.arch > dev]
    return min(later, key=lambda e: e.arch) if later else None


def choose_ptx(img: Image, cc: tuple[int, int]) -> Entry:
    """The PTX the driver would JIT for a ``cc`` device: the newest one not newer than the device (or
    the stand-in for SASS of the device's own architecture: sass_stand_in)."""
    dev = cc[0] * 10 + cc[1]
    usable = [e for e in img.ptx if e.arch <= dev]
    if usable:
        return max(usable, key=lambda e: e.arch)
    stand_in = sass_stand_in(img, dev)
    if stand_in is not None:
        return stand_in
    if img.ptx:
        have = ", ".join(f"compute_{e.arch}" for e in img.ptx)
        oldest = min(e.arch for e in img.ptx)
        raise SimError("CUDA_ERROR_NO_BINARY_FOR_GPU",
                       f"the module's PTX ({have}) is newer than the software GPU (sm_{dev}): start "
                       f"rgpu-server with --sim-arch sm_{oldest} (or newer), or rebuild with -arch=sm_{dev}")
    sass_archs = sorted({e.arch for e in img.cubins})
    sass = ", ".join(f"sm_{a}" for a in sass_archs) or "no code"
    if img.bare_cubin:
        # A cubin handed to the driver as it is: often a JIT's output, not a build's. numba-cuda
        # (through cuda.core) links with nvJitLink whenever it can load it, and nvJitLink's output
        # keeps no PTX (its tool note may name only ptxas, so the message covers every bare cubin);
        # the driver's cuLink* (rgpu's, on the client) keeps it.
        raise SimError("CUDA_ERROR_NO_BINARY_FOR_GPU",
                       f"the software GPU runs PTX, and this module is a bare {sass} cubin (SASS alone): load "
                       f"its PTX, or a fatbin that carries PTX, instead. JIT compilers make such cubins: CuPy "
                       f"unless CUPY_COMPILE_WITH_PTX=1 (`rgpu run` and `rgpu env` set it for a software GPU), "
                       f"numba-cuda whenever nvJitLink is installed: run numba where nvJitLink is not "
                       f"(numba-cuda without its [cu13] extra; it then links through the driver's cuLink*, which "
                       f"keeps the PTX), or on a real GPU")
    # The rebuild keeps the program's own target where the device can run its PTX.
    fit = max([a for a in sass_archs if a <= dev], default=min(dev, 80))
    raise SimError("CUDA_ERROR_NO_BINARY_FOR_GPU",
                   f"the software GPU runs PTX, and this module holds only {sass} SASS: rebuild with "
                   f"-arch=sm_{fit} (which embeds compute_{fit} PTX) or add "
                   f"-gencode arch=compute_{fit},code=compute_{fit}; a library whose kernel this is picks its "
                   f"PTX kernels on a device newer than its SASS: start rgpu-server with a --sim-arch newer "
                   f"than sm_{sass_archs[-1] if sass_archs else dev} ({archs.DEFAULT}, the default, is)")

