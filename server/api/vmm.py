"""Virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap, cuMemSetAccess, ...): the
calls PyTorch's expandable segments and other growable allocators are built on.

The bookkeeping is here, the same for every backend: which address ranges are reserved, which
physical allocation is mapped where, what the program may access, and which handles name what. A
backend makes physical memory (charged to the quota at cuMemCreate: reserving and mapping take
none), reserves address space, maps, and exposes the accessible runs, so that copies, memsets and
kernels reach mapped memory like any allocation — a tensor that spans two mappings included.

The checks are CUDA's: sizes and offsets in whole granules, a mapping inside one reservation and
never over another, unmapping and access changes on whole mappings, a range freed only once it is
unmapped. A physical allocation lives while a handle or a mapping holds it (cuMemRelease of a
mapped allocation frees it at its unmap), and cuMemRetainAllocationHandle counts as one more hold.
Access descriptors name this session's GPU: vGPUs are separate devices without peer access, so a
descriptor of another device grants nothing here."""
from __future__ import annotations

import bisect
import struct
from dataclasses import dataclass, field

from ..errors import CudaError
from . import handles

PINNED, LOCATION_DEVICE = 1, 1  # CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_LOCATION_TYPE_DEVICE
PROT_NONE, PROT_READ, PROT_READWRITE = 0, 1, 3  # CU_MEM_ACCESS_FLAGS_PROT_*
GRANULARITY_MINIMUM, GRANULARITY_RECOMMENDED = 0, 1
PROP = struct.Struct("<iiii")  # CUmemAllocationProp: type, requestedHandleTypes, location {type, id}, ...
ACCESS_DESC = struct.Struct("<iiI")  # CUmemAccessDesc: location {type, id}, flags


def _invalid(why: str):
    return CudaError("CUDA_ERROR_INVALID_VALUE", why)


@dataclass(eq=False)
class Physical:
    obj: object  # the backend's
    size: int
    prop: bytes
    holds: int = 1  # handle holds: cuMemCreate and each cuMemRetainAllocationHandle
    handle: int = 0  # the session handle naming it while held
    mappings: int = 0


@dataclass(eq=False)
class Mapping:
    addr: int
    size: int
    phys: Physical
    offset: int
    access: int = PROT_NONE


@dataclass(eq=False)
class Reservation:
    addr: int
    size: int
    mappings: list[Mapping] = field(default_factory=list)  # sorted by address

    def mapping_at(self, addr: int) -> Mapping | None:
        i = bisect.bisect_right([m.addr for m in self.mappings], addr) - 1
        if i >= 0 and addr < self.mappings[i].addr + self.mappings[i].size:
            return self.mappings[i]
        return None

    def covering(self, addr: int, size: int) -> list[Mapping]:
        """The mappings that exactly tile [addr, addr+size), or invalid-value."""
        inside = [m for m in self.mappings if addr <= m.addr < addr + size]
        cursor = addr
        for m in inside:
            if m.addr != cursor:
                break
            cursor += m.size
        if not inside or cursor != addr + size or self.mapping_at(addr) is not inside[0]:
            raise _invalid(f"[0x{addr:x}, +{size}) is not a whole number of mappings")
        return inside


class Vmm:
    """One session's reservations (by address)."""

    def __init__(self):
        self.reservations: dict[int, Reservation] = {}
        self._starts: list[int] = []

    def reservation(self, addr: int, size: int = 1) -> Reservation:
        i = bisect.bisect_right(self._starts, addr) - 1
        if i >= 0:
            r = self.reservations[self._starts[i]]
            if addr + size <= r.addr + r.size:
                return r
        raise _invalid(f"[0x{addr:x}, +{size}) is not inside one reserved address range")

    def add(self, r: Reservation) -> None:
        self.reservations[r.addr] = r
        bisect.insort(self._starts, r.addr)

    def remove(self, r: Reservation) -> None:
        del self.reservations[r.addr]
        self._starts.remove(r.addr)


def _state(s) -> Vmm:
    if s.vmm is None:
        s.vmm = Vmm()
    return s.vmm


def _granule(s) -> int:
    return s.device.vmm_granularity(False)


def _check_prop(prop) -> bytes:
    if not isinstance(prop, bytes) or len(prop) < PROP.size:
        raise _invalid("CUmemAllocationProp missing")
    kind, _handle_types, loc_type, _loc_id = PROP.unpack_from(prop)
    if kind != PINNED:
        raise _invalid(f"allocation type {kind}: only CU_MEM_ALLOCATION_TYPE_PINNED device memory is served")
    if loc_type != LOCATION_DEVICE:
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"location type {loc_type}: rgpu serves device memory only")
    return prop


def _whole(s, what: str, *values: int) -> None:
    g = _granule(s)
    for v in values:
        if v % g:
            raise _invalid(f"{what} {v} is not a multiple of the allocation granularity ({g} bytes)")


def _expose(s, r: Reservation) -> None:
    """Tell the backend the accessible runs of `r`: adjacent accessible mappings merged."""
    runs: list[list[int]] = []
    for m in r.mappings:
        if m.access == PROT_NONE:
            continue
        if runs and runs[-1][0] + runs[-1][1] == m.addr:
            runs[-1][1] += m.size
        else:
            runs.append([m.addr, m.size])
    s.device.vmm_expose(r.addr, r.addr + r.size, [tuple(x) for x in runs])


def _let_go(s, p: Physical) -> None:
    """Free a physical allocation once neither a handle nor a mapping holds it."""
    if p.holds == 0 and p.mappings == 0:
        s.device.vmm_destroy(p.obj)


@handles("cuMemGetAllocationGranularity")
def get_granularity(s, prop, option):
    """[prop, option] -> [granularity]"""
    _check_prop(prop)
    if option not in (GRANULARITY_MINIMUM, GRANULARITY_RECOMMENDED):
        raise _invalid(f"granularity option {option}")
    return (s.device.vmm_granularity(option == GRANULARITY_RECOMMENDED),)


@handles("cuMemCreate")
def create(s, size, prop, flags):
    """[size, prop, flags] -> [handle]: physical memory, charged to the lease's quota."""
    _check_prop(prop)
    if flags or size <= 0:
        raise _invalid(f"cuMemCreate of {size} bytes with flags {flags}")
    _whole(s, "size", size)
    p = Physical(s.device.vmm_create(size, prop), size, prop)
    p.handle = s.new_handle("memhandle", p)
    return (p.handle,)


@handles("cuMemRelease")
def release(s, handle):
    """[handle]: one hold less; the memory goes with the last hold and the last mapping."""
    p = s.get("memhandle", handle)
    p.holds -= 1
    if p.holds == 0:
        s.drop("memhandle", handle)
        p.handle = 0
        _let_go(s, p)
    return ()


@handles("cuMemRetainAllocationHandle")
def retain(s, addr):
    """[addr] -> [handle]: the physical allocation mapped at addr, held once more."""
    m = _state(s).reservation(addr).mapping_at(addr)
    if m is None:
        raise _invalid(f"0x{addr:x} is not mapped")
    p = m.phys
    p.holds += 1
    if not p.handle:
        p.handle = s.new_handle("memhandle", p)
    return (p.handle,)


@handles("cuMemGetAllocationPropertiesFromHandle")
def properties(s, handle):
    """[handle] -> [prop]: as the program made it."""
    return (s.get("memhandle", handle).prop,)


@handles("cuMemAddressReserve")
def address_reserve(s, size, alignment, addr, flags):
    """[size, alignment, addr, flags] -> [ptr]: address space, at addr when it is free."""
    g = _granule(s)
    if flags or size <= 0 or (alignment and (alignment & (alignment - 1))):
        raise _invalid(f"cuMemAddressReserve of {size} bytes aligned {alignment} with flags {flags}")
    _whole(s, "size", size)
    align = max(alignment, g)
    hint = addr if addr and addr % align == 0 else 0
    r = Reservation(s.device.vmm_reserve(size, align, hint), size)
    _state(s).add(r)
    return (r.addr,)


@handles("cuMemAddressFree")
def address_free(s, ptr, size):
    """[ptr, size]: a whole reservation, once nothing is mapped in it."""
    v = _state(s)
    r = v.reservations.get(ptr)
    if r is None or r.size != size:
        raise _invalid(f"[0x{ptr:x}, +{size}) was not reserved by cuMemAddressReserve")
    if r.mappings:
        raise _invalid(f"[0x{ptr:x}, +{size}) still has {len(r.mappings)} mapping(s): cuMemUnmap them first")
    s.device.vmm_unreserve(ptr, size)
    v.remove(r)
    return ()


@handles("cuMemMap")
def map_memory(s, ptr, size, offset, handle, flags):
    """[ptr, size, offset, handle, flags]: [offset, offset+size) of the allocation at ptr, not yet accessible."""
    p = s.get("memhandle", handle)
    if flags or size <= 0:
        raise _invalid(f"cuMemMap of {size} bytes with flags {flags}")
    _whole(s, "address, size or offset", ptr, size, offset)
    if offset + size > p.size:
        raise _invalid(f"[{offset}, +{size}) is outside the {p.size}-byte physical allocation")
    r = _state(s).reservation(ptr, size)
    if any(m.addr < ptr + size and ptr < m.addr + m.size for m in r.mappings):
        raise _invalid(f"[0x{ptr:x}, +{size}) overlaps a mapping")
    s.device.vmm_map(ptr, size, p.obj, offset)
    m = Mapping(ptr, size, p, offset)
    bisect.insort(r.mappings, m, key=lambda x: x.addr)
    p.mappings += 1
    return ()


@handles("cuMemUnmap")
def unmap(s, ptr, size):
    """[ptr, size]: whole mappings; an allocation already released goes with its last mapping."""
    r = _state(s).reservation(ptr, size)
    gone = r.covering(ptr, size)
    for m in gone:
        s.device.vmm_unmap(m.addr, m.size, m.phys.obj, m.offset)
        r.mappings.remove(m)
        m.phys.mappings -= 1
    _expose(s, r)
    for m in gone:
        _let_go(s, m.phys)
    return ()


@handles("cuMemSetAccess")
def set_access(s, ptr, size, desc, count):
    """[ptr, size, desc[count], count]: this GPU's access to whole mappings."""
    if not isinstance(desc, bytes) or count <= 0 or len(desc) != count * ACCESS_DESC.size:
        raise _invalid("cuMemSetAccess needs at least one CUmemAccessDesc")
    flags = PROT_NONE
    for i in range(count):
        loc_type, _loc_id, f = ACCESS_DESC.unpack_from(desc, i * ACCESS_DESC.size)
        if loc_type != LOCATION_DEVICE or f not in (PROT_NONE, PROT_READ, PROT_READWRITE):
            raise _invalid(f"access descriptor {i}: location type {loc_type}, flags {f}")
        flags = max(flags, f)
    r = _state(s).reservation(ptr, size)
    ms = r.covering(ptr, size)
    s.device.vmm_set_access(ptr, size, flags)
    for m in ms:
        m.access = flags
    _expose(s, r)
    return ()


@handles("cuMemGetAccess")
def get_access(s, location, ptr):
    """[location, ptr] -> [flags]"""
    m = _state(s).reservation(ptr).mapping_at(ptr)
    if m is None:
        raise _invalid(f"0x{ptr:x} is not mapped")
    return (m.access,)
