"""The few things the software GPU reads from a cubin ELF: per-kernel ``.nv.info.<kernel>``
attribute records, which give the launch-buffer layout of the kernel's parameters exactly as the
driver sees it (EIATTR_KPARAM_INFO) and the total parameter size (EIATTR_CBANK_PARAM_SIZE), and the
module-wide ``.nv.info`` records of each kernel's register count (EIATTR_REGCOUNT, by symbol), what
the driver reports as CU_FUNC_ATTRIBUTE_NUM_REGS.

Records are ``u8 format, u8 attribute`` followed by a 2-byte value (formats 1-3) or a ``u16 size``
and that many bytes (format 4, EIFMT_SVAL).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

from .errors import SimError

EIFMT_SVAL = 0x04
EIATTR_KPARAM_INFO = 0x17
EIATTR_KPARAM_INFO_V2 = 0x45
EIATTR_CBANK_PARAM_SIZE = 0x19
EIATTR_REGCOUNT = 0x2F


@dataclass(frozen=True)
class Param:
    offset: int
    size: int
    align: int


def _sections(elf: bytes) -> dict[str, bytes]:
    if elf[:4] != b"\x7fELF" or elf[4] != 2:
        raise SimError("CUDA_ERROR_INVALID_IMAGE", "not a 64-bit ELF cubin")
    try:
        shoff = struct.unpack_from("<Q", elf, 0x28)[0]
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
        heads = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
        stroff = heads[shstrndx][4]
        out = {}
        for name, _typ, _fl, _addr, off, size, *_ in heads:
            end = elf.index(b"\0", stroff + name)
            out[elf[stroff + name:end].decode("latin-1")] = elf[off:off + size]
        return out
    except (struct.error, ValueError, IndexError) as exc:
        raise SimError("CUDA_ERROR_INVALID_IMAGE", f"corrupt cubin section table: {exc}") from exc


def _records(blob: bytes):
    p = 0
    while p + 4 <= len(blob):
        fmt, attr = blob[p], blob[p + 1]
        if fmt == EIFMT_SVAL:
            size = struct.unpack_from("<H", blob, p + 2)[0]
            yield attr, blob[p + 4:p + 4 + size]
            p += 4 + size
        else:
            yield attr, blob[p + 2:p + 4]
            p += 4


def _natural_align(offset: int, size: int) -> int:
    # KPARAM_INFO does not record a parameter's own alignment; the largest power of two (up to 16)
    # dividing both its offset and its size is the one the layout implies.
    a = 1
    while a < 16 and size % (2 * a) == 0 and offset % (2 * a) == 0:
        a *= 2
    return a


def kparam_info(elf: bytes) -> dict[str, tuple[list[Param], int]]:
    """kernel name -> (params in launch-buffer order, total parameter bytes)."""
    out = {}
    for name, blob in _sections(elf).items():
        if not name.startswith(".nv.info."):
            continue
        kernel = name[len(".nv.info."):]
        params: dict[int, Param] = {}
        total = None
        for attr, val in _records(blob):
            if attr in (EIATTR_KPARAM_INFO, EIATTR_KPARAM_INFO_V2) and len(val) >= 12:
                _index, ordinal, offset, info = struct.unpack_from("<IHHI", val, 0)
                # V2 is what ptxas writes for a kernel with a parameter past KPARAM_INFO's 14-bit
                # size (CUDA 12.1's 32764-byte limit): its last word is u16 size, u16 attributes
                size = info & 0xFFFF if attr == EIATTR_KPARAM_INFO_V2 else (info >> 18) & 0x3FFF
                params[ordinal] = Param(offset, size, _natural_align(offset, size))
            elif attr == EIATTR_CBANK_PARAM_SIZE:
                total = struct.unpack_from("<H", val, 0)[0]
        plist = [params[k] for k in sorted(params)]
        if total is None:
            total = max((p.offset + p.size for p in plist), default=0)
        out[kernel] = (plist, total)
    return out


def _symbol_names(sections: dict[str, bytes]) -> list[str]:
    """Names of the ELF symbols, by index (Elf64_Sym: name u32, info, other, shndx, value, size)."""
    symtab, strtab = sections.get(".symtab", b""), sections.get(".strtab", b"")
    names = []
    for off in range(0, len(symtab) - 23, 24):
        at = struct.unpack_from("<I", symtab, off)[0]
        end = strtab.find(b"\0", at)
        names.append(strtab[at:end if end >= 0 else len(strtab)].decode("latin-1"))
    return names


def register_counts(elf: bytes) -> dict[str, int]:
    """kernel name -> the registers a thread of it uses, as ptxas allocated them."""
    sections = _sections(elf)
    names = _symbol_names(sections)
    out = {}
    for attr, val in _records(sections.get(".nv.info", b"")):
        if attr == EIATTR_REGCOUNT and len(val) >= 8:
            sym, count = struct.unpack_from("<II", val, 0)
            if 0 <= sym < len(names) and names[sym]:
                out[names[sym]] = count
    return out
