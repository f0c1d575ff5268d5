"""The names of a module image's variables (`__device__`, `__constant__`), read from the image as
the driver reads it: the object symbols of its cubins' symbol tables and the `.global`/`.const`
declarations of its PTX. The driver has no call that lists a module's variables (only kernels:
cuModuleEnumerateFunctions), and a session moved to another process must carry their contents:
a kernel may have changed them (server/backends/cuda/placement.py)."""
from __future__ import annotations

import re
import struct

STT_OBJECT = 1
SHN_UNDEF = 0
# `.visible .global .align 4 .b8 name[16] = {...};` and the like (`.align N`, `.v4`, `.u32` before it)
_PTX_VAR = re.compile(rb"^[ \t]*(?:\.visible[ \t]+|\.weak[ \t]+|\.extern[ \t]+)?\.(?:global|const)[ \t]+"
                      rb"(?:\.\w+(?:[ \t]+\d+)?[ \t]+)*([A-Za-z_$%][\w$]*)[ \t]*(?:\[|;|=)", re.M)


def _elf_objects(elf: bytes) -> set[str]:
    out = set()
    try:
        shoff = struct.unpack_from("<Q", elf, 0x28)[0]
        shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
        heads = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
        for _name, typ, _fl, _addr, off, size, link, _info, _align, entsize in heads:
            if typ != 2 or entsize < 24:  # SHT_SYMTAB
                continue
            stroff = heads[link][4]
            for i in range(size // entsize):
                name, info, _other, shndx = struct.unpack_from("<IBBH", elf, off + i * entsize)
                if info & 0xF != STT_OBJECT or shndx == SHN_UNDEF or not name:
                    continue
                end = elf.index(b"\0", stroff + name)
                out.add(elf[stroff + name:end].decode("latin-1"))
    except (struct.error, ValueError, IndexError):
        return set()
    return out


def names(image: bytes) -> set[str] | None:
    """Every variable the image may define (a name the driver does not know is skipped by the
    caller: cuModuleGetGlobal answers CUDA_ERROR_NOT_FOUND); None for an image this cannot read."""
    from ..sim import fatbin  # the container reader the software GPU uses (no sim state)
    try:
        img = fatbin.parse_image(bytes(image))
    except Exception:  # a format the reader does not know: the caller refuses to move the module
        return None
    out = set()
    for e in img.entries:
        if e.is_ptx:
            out.update(m.decode("latin-1") for m in _PTX_VAR.findall(e.data))
        else:
            out.update(_elf_objects(e.data))
    return out


def code_in(image: bytes) -> str:
    """What code an image carries, for a refusal's message: "sm_120 SASS, compute_120 PTX"."""
    from ..sim import fatbin
    try:
        img = fatbin.parse_image(bytes(image))
    except Exception:
        return "code in a format this server cannot read"
    kinds = sorted({(e.is_ptx, e.arch) for e in img.entries})
    return ", ".join(f"compute_{a} PTX" if ptx else f"sm_{a} SASS" for ptx, a in kinds) or "no code"
