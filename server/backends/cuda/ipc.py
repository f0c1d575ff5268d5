"""CUDA IPC on a real GPU: the CudaDevice's part of the Device interface for it. The sessions of one
GPU are worker processes of one host, so the driver's own handles open across them; the program
never sees those: server/api/ipc.py hands it rgpu's handle, keeps the driver's in the server's
registry and decides who may open what. Opened memory joins the table `allocation()` searches, so
copies and memsets to it pass the handlers' range checks; it is not charged to the opener (the
exporting session's quota holds it)."""
from __future__ import annotations

from ...errors import CudaError

LAZY_ENABLE_PEER_ACCESS = 1  # CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS: what cudaIpcOpenMemHandle requires


class CudaIpc:
    """Mixed into CudaDevice: needs ``self._starts``, ``self._events``, ``_track_start`` /
    ``_untrack_start``, the table made by ``_ipc_tables`` and the module's driver."""

    def _ipc_tables(self) -> None:
        self._opened: dict[int, int] = {}  # opened address -> size of the exporter's allocation

    def ipc_export(self, addr: int, size: int) -> dict:
        ffi, lib, check = self._driver()
        if self.arena is not None and self.arena.contains(addr):
            # the driver exports only what cuMemAlloc made, and the session's memory comes from its
            # arena (arena.py) so that it can move
            raise CudaError("CUDA_ERROR_NOT_SUPPORTED", "CUDA IPC cannot export this memory: the server places "
                            "device memory where a move can place it again (VMM), which the driver does not "
                            "export; start rgpu-server with RGPU_ARENA=0 for programs that share device memory "
                            "through CUDA IPC")
        h = ffi.new("CUipcMemHandle *")
        check(lib.cuIpcGetMemHandle(h, addr))
        return {"driver": bytes(ffi.buffer(h)), "size": size}

    def ipc_open(self, record: dict) -> int:
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
            lib.cuIpcCloseMemHandle(a)
        self._opened.clear()
