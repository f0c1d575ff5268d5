"""CUDA IPC on a real GPU: the CudaDevice's part of the Device interface for it. The sessions of one
GPU are worker processes of one host, so the driver's own handles open across them; the program
never sees those: server/api/ipc.py hands it rgpu's handle, keeps the driver's in the server's
registry and decides who may open what. Opened memory joins the table `allocation()` searches, so
copies and memsets to it pass the handlers' range checks; it is not charged to the opener (the
exporting session's quota holds it).

The memory of a session's arena (arena.py) is not the driver's to export by IPC: its physical
allocation is exported as a file descriptor (cuMemExportToShareableHandle), which the opening worker
fetches from the exporter's share (fdshare.py) with the token the record holds, imports
(cuMemImportFromShareableHandle) and maps at an address of its own. A small allocation shares its
granule with others of the exporter's: the opener maps the granule and is given the allocation's
address in it; its copies and memsets are checked against that allocation alone (and IPC opens only
in sessions of the exporter's lease and vGPU, server/api/ipc.py)."""
from __future__ import annotations

import os

from ...errors import CudaError
from . import fdshare

LAZY_ENABLE_PEER_ACCESS = 1  # CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS: what cudaIpcOpenMemHandle requires
POSIX_FD = 1  # CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
READ_WRITE = 3  # CU_MEM_ACCESS_FLAGS_PROT_READWRITE


class CudaIpc:
    """Mixed into CudaDevice: needs ``self._starts``, ``self._events``, ``_track_start`` /
    ``_untrack_start``, the table made by ``_ipc_tables`` and the module's driver."""

    def _ipc_tables(self) -> None:
        self._opened: dict[int, int] = {}  # opened address -> size of the exporter's allocation
        self._imported: dict[int, tuple[int, int]] = {}  # opened arena memory -> (mapped start, length)
        self._shared: dict[int, bytes] = {}  # exported arena allocation -> its descriptor's token
        self._fdshare: fdshare.FdShare | None = None

    def ipc_export(self, addr: int, size: int) -> dict:
        ffi, lib, check = self._driver()
        if self.arena is not None and self.arena.contains(addr):
            return self._export_arena(addr, size)
        h = ffi.new("CUipcMemHandle *")
        check(lib.cuIpcGetMemHandle(h, addr))
        return {"driver": bytes(ffi.buffer(h)), "size": size}

    def _export_arena(self, addr: int, size: int) -> dict:
        ffi, lib, check = self._driver()
        if not self.arena.shareable:
            raise CudaError("CUDA_ERROR_NOT_SUPPORTED", "CUDA IPC cannot export this memory: the session's memory is "
                            "not exportable as a file descriptor (RGPU_ARENA_IPC=0, or a driver that refuses it); "
                            "start rgpu-server with RGPU_ARENA=0 for programs that share device memory through "
                            "CUDA IPC")
        handle, start, span = self.arena.physical(addr)
        fd = ffi.new("int *")
        check(lib.cuMemExportToShareableHandle(fd, handle, POSIX_FD, 0))
        if self._fdshare is None:
            self._fdshare = fdshare.FdShare()
        token = self._fdshare.offer(fd[0])
        self._shared[addr] = token
        return {"vmm": {"share": self._fdshare.name, "token": token, "offset": addr - start, "span": span},
                "size": size}

    def ipc_unexport(self, addr: int) -> None:
        """The exported allocation at `addr` was freed: its descriptor goes (its memory with the last map)."""
        token = self._shared.pop(addr, None)
        if token is not None and self._fdshare is not None:
            self._fdshare.withdraw(token)

    def _open_arena(self, record: dict) -> int:
        ffi, lib, check = self._driver()
        v = record["vmm"]
        try:
            fd = fdshare.fetch(str(v["share"]), bytes(v["token"]))
        except OSError as e:
            raise CudaError("CUDA_ERROR_INVALID_HANDLE", f"the exported memory is gone: {e}") from None
        h = ffi.new("CUmemGenericAllocationHandle *")
        try:
            check(lib.cuMemImportFromShareableHandle(h, ffi.cast("void *", fd), POSIX_FD))
        finally:
            os.close(fd)  # imported (or refused): the descriptor is not needed any more
        span = int(v["span"])
        p = ffi.new("CUdeviceptr *")
        mapped = False
        try:
            check(lib.cuMemAddressReserve(p, span, 0, 0, 0))
            try:
                check(lib.cuMemMap(p[0], span, 0, h[0], 0))
                mapped = True
                access = ffi.new("CUmemAccessDesc *")
                access.location.type, access.location.id, access.flags = 1, self.dev, READ_WRITE
                check(lib.cuMemSetAccess(p[0], span, access, 1))
            except CudaError:
                if mapped:
                    lib.cuMemUnmap(p[0], span)
                lib.cuMemAddressFree(p[0], span)
                raise
        finally:
            lib.cuMemRelease(h[0])  # the mapping holds the memory now
        at = p[0] + int(v["offset"])
        self._imported[at] = (p[0], span)
        self._opened[at] = int(record["size"])
        self._track_start(at)
        return at

    @staticmethod
    def _unimport(lib, start: int, span: int, check=lambda rc: rc) -> None:
        """Opened arena memory gone from this worker: its mapping and its range (the import's memory
        with the mapping)."""
        check(lib.cuMemUnmap(start, span))
        check(lib.cuMemAddressFree(start, span))

    def ipc_open(self, record: dict) -> int:
        if "vmm" in record:
            return self._open_arena(record)
        ffi, lib, check = self._driver()
        h = ffi.new("CUipcMemHandle *")
        ffi.memmove(h, record["driver"], ffi.sizeof(h[0]))
        p = ffi.new("CUdeviceptr *")
        check(lib.cuIpcOpenMemHandle_v2(p, h[0], LAZY_ENABLE_PEER_ACCESS))
        self._opened[p[0]] = int(record["size"])
        self._track_start(p[0])
        return p[0]

    def ipc_close(self, addr: int) -> None:
        _, lib, check = self._driver()
        if addr in self._imported:
            self._unimport(lib, *self._imported.pop(addr), check)
        else:
            check(lib.cuIpcCloseMemHandle(addr))
        del self._opened[addr]
        self._untrack_start(addr)

    def ipc_event_export(self, event) -> dict:
        ffi, lib, check = self._driver()
        h = ffi.new("CUipcEventHandle *")
        check(lib.cuIpcGetEventHandle(h, event))
        return {"driver": bytes(ffi.buffer(h))}

    def ipc_event_open(self, record: dict):
        ffi, lib, check = self._driver()
        h = ffi.new("CUipcEventHandle *")
        ffi.memmove(h, record["driver"], ffi.sizeof(h[0]))
        e = ffi.new("CUevent *")
        check(lib.cuIpcOpenEventHandle(e, h[0]))
        self._events.add(e[0])
        return e[0]

    def _ipc_close_all(self) -> None:
        _, lib, _ = self._driver()
        for a in self._opened:
            if a in self._imported:
                self._unimport(lib, *self._imported[a])
            else:
                lib.cuIpcCloseMemHandle(a)
        self._opened.clear(), self._imported.clear(), self._shared.clear()
        if self._fdshare is not None:
            self._fdshare.close()
