"""Mapped ("zero-copy") host memory on the software GPU: a pinned segment of the program (server/
pinned.py) mapped into this session's arena, so that kernels and copies at its device addresses read
and write the program's own pages, as a GPU reads and writes mapped host memory over the bus. A
kernel's store is in the program's memory when the kernel ends; a host store before a launch is what
the kernel loads. Nothing is copied and no device memory is charged (the pages are the host's).

The segment's data pages go into a reserved range of the arena, mapped over it (sharing.py's
`_map_over`, as an opened IPC handle is), and that range is one allocation for the bounds checks;
unmapping puts fresh zero pages back and frees the range."""
from __future__ import annotations

import os

from .errors import SimError
from .sharing import PAGE, _ceil, _map_over


class HostMaps:
    """The pinned segments one session's arena maps, by device address."""

    def __init__(self, memory):
        self.memory = memory
        self.ranges: dict[int, int] = {}  # device address -> length mapped

    def map(self, fd: int, offset: int, length: int) -> int:
        """Map [offset, offset+length) of the segment file `fd` (page-aligned offset) into the arena;
        the device address of its first byte."""
        span = _ceil(length)
        addr = self.memory.reserve_range(span, PAGE)
        try:
            _map_over(self.memory.arena.ctypes.data + (addr - self.memory.base), span, fd, offset)
        except SimError:
            self.memory.unreserve_range(addr)
            raise
        self.memory.expose(addr, addr + span, [(addr, length)])
        self.ranges[addr] = span
        return addr

    def unmap(self, addr: int) -> None:
        span = self.ranges.pop(addr, None)
        if span is None:
            raise SimError("CUDA_ERROR_INVALID_VALUE", f"0x{addr:x} is no mapped host memory")
        self.memory.expose(addr, addr + span, [])
        _map_over(self.memory.arena.ctypes.data + (addr - self.memory.base), span, -1, 0)
        self.memory.unreserve_range(addr)


def map_segment(maps: HostMaps, mapping, data: int) -> int:
    """`mapping` (server/pinned.Mapping), from its data offset to its end, into the arena."""
    fd = mapping.open_again()
    try:
        return maps.map(fd, data, mapping.size - data)
    finally:
        os.close(fd)
