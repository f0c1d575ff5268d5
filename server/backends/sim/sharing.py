"""Device memory of the software GPU shared between sessions: what CUDA IPC (cuIpcGetMemHandle,
cuIpcOpenMemHandle) needs, since each session is its own worker process with a private arena.

A session that exports an allocation moves the pages that hold it into its memory file (a memfd the
size of its arena, each page at its own arena offset) and maps the file over them where they were:
its kernels and copies see the same addresses, and every later write lands in the file. A session
that opens the handle maps the same pages of that file into a reserved range of its own arena, so
both see each other's writes at once, as two contexts mapping one allocation do on a GPU.

Pages are whole: an allocation that shares a page with a neighbour shares that page's other bytes
too, but only the exact range of the export is an allocation in the opener's table, so its kernels
and copies still fault outside it. Pages once moved stay in the file until the session ends (a page
may hold another exported allocation); what a free gives back is punched out of the file.

The opener finds the file through /proc/PID/fd/N of the exporting worker (the same user's process)
and checks that it is that session's memory file, so a reused pid or descriptor opens nothing."""
from __future__ import annotations

import bisect
import ctypes
import mmap
import os
import secrets

from .errors import SimError

PAGE = mmap.PAGESIZE
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
MAP_FIXED = 0x10
MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000)


def _floor(n: int) -> int:
    return n // PAGE * PAGE


def _ceil(n: int) -> int:
    return -(-n // PAGE) * PAGE


def _map_over(addr: int, length: int, fd: int, offset: int) -> None:
    """Map [offset, offset+length) of the file `fd` (or fresh zero pages: fd -1) exactly at `addr`,
    replacing what was mapped there: the arena keeps its addresses, so numpy views of it stay valid."""
    flags = MAP_FIXED | (mmap.MAP_SHARED if fd >= 0 else mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_NORESERVE)
    got = _libc.mmap(addr, length, mmap.PROT_READ | mmap.PROT_WRITE, flags, fd, offset)
    if got != addr:
        err = ctypes.get_errno()
        raise SimError("CUDA_ERROR_OUT_OF_MEMORY", f"mapping shared device memory failed: {os.strerror(err)}")


class ArenaSharing:
    """The exported pages of one session's arena (exporter side) and the ranges it opened (opener side)."""

    def __init__(self, memory):
        self.memory = memory
        self.name = f"rgpu-sim-ipc-{secrets.token_hex(8)}"  # what the opener checks it found
        self.fd = -1
        self.shared: list[tuple[int, int]] = []  # sorted, disjoint [start, end) arena offsets in the file
        self.opened: dict[int, int] = {}  # reserved range's address -> its length

    @property
    def active(self) -> bool:
        return bool(self.shared or self.opened)

    def _base_ptr(self) -> int:
        return self.memory.arena.ctypes.data

    # -- exporter --
    def export(self, addr: int, size: int) -> dict:
        """Share [addr, addr+size) (an allocation): what another session needs to map it."""
        off = addr - self.memory.base
        lo, hi = _floor(off), _ceil(off + size)
        if self.fd < 0:
            self.fd = os.memfd_create(self.name, os.MFD_CLOEXEC)
            os.ftruncate(self.fd, len(self.memory.arena))  # sparse: only pages written cost memory
        for a, b in self._unshared(lo, hi):
            # the pages' bytes go into the file first, then the file replaces them in place
            view = memoryview(self.memory.arena[a:b])
            done = 0
            while done < b - a:
                done += os.pwrite(self.fd, view[done:], a + done)
            _map_over(self._base_ptr() + a, b - a, self.fd, a)
            self._add(a, b)
        return {"pid": os.getpid(), "fd": self.fd, "name": self.name, "offset": lo, "length": hi - lo,
                "shift": off - lo, "size": size}

    def _unshared(self, lo: int, hi: int) -> list[tuple[int, int]]:
        gaps, cur = [], lo
        for a, b in self.shared:
            if b <= cur or a >= hi:
                continue
            if a > cur:
                gaps.append((cur, a))
            cur = max(cur, b)
        if cur < hi:
            gaps.append((cur, hi))
        return gaps

    def _add(self, a: int, b: int) -> None:
        i = bisect.bisect_left(self.shared, (a, b))
        self.shared.insert(i, (a, b))
        merged: list[tuple[int, int]] = []
        for s, e in self.shared:
            if merged and s <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], e))
            else:
                merged.append((s, e))
        self.shared = merged

    def discard(self, first: int, last: int) -> None:
        """Pages [first, last) of the arena were freed: what of them is in the file leaves it too
        (unmapping alone would keep the file's copy, and its memory)."""
        for a, b in self.shared:
            s, e = max(a, first), min(b, last)
            if s < e:
                self.memory._map.madvise(mmap.MADV_REMOVE, s, e - s)

    # -- opener --
    def open(self, record: dict) -> int:
        """Map another session's export into this arena; returns the address of its first byte."""
        path = f"/proc/{int(record['pid'])}/fd/{int(record['fd'])}"
        try:
            fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        except OSError as e:
            raise SimError("CUDA_ERROR_INVALID_HANDLE", f"the exporting session is gone ({e.strerror})") from None
        try:
            # the descriptor must still be that session's memory file: a pid or fd reused names another
            if os.readlink(f"/proc/self/fd/{fd}") != f"/memfd:{record['name']} (deleted)" or \
                    record["offset"] + record["length"] > os.fstat(fd).st_size:
                raise SimError("CUDA_ERROR_INVALID_HANDLE", "the exporting session is gone")
            length = int(record["length"])
            addr = self.memory.reserve_range(length, PAGE)
            try:
                _map_over(self._base_ptr() + (addr - self.memory.base), length, fd, int(record["offset"]))
            except SimError:
                self.memory.unreserve_range(addr)
                raise
        finally:
            os.close(fd)
        start = addr + int(record["shift"])
        self.memory.expose(addr, addr + length, [(start, int(record["size"]))])
        self.opened[addr] = length
        return start

    def close(self, start: int) -> None:
        """Unmap what `open` mapped at `start`: the range reads as fresh memory and is free again."""
        addr = _floor(start - self.memory.base) + self.memory.base
        length = self.opened.pop(addr)
        self.memory.expose(addr, addr + length, [])
        _map_over(self._base_ptr() + (addr - self.memory.base), length, -1, 0)
        self.memory.unreserve_range(addr)

    def close_file(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
