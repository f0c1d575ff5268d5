"""CUDA IPC: cudaIpcGetMemHandle / cudaIpcOpenMemHandle / cudaIpcCloseMemHandle, the event handles,
and their driver forms — how PyTorch's multiprocessing hands CUDA tensors (and the events that
order their use) to another process, and how CuPy and MPI-style programs share buffers.

Each process of a program is its own session and worker here, so the memory is shared between the
workers of one GPU: the backend maps it (sim: sharing.py; cuda: the driver's own handles). The
program's handle is rgpu's, never the backend's: 64 bytes of a magic, a random token and the
exporting worker's pid. The token names a record in the
server's registry (server/ipc_registry.py) that says what the backend needs and who may open it:
sessions of the same lease and vGPU on the same GPU (without a lease gate, any session of the
GPU), so a handle that leaks to another tenant opens nothing. A handle from another server finds
no record.

As on a GPU: a handle names a whole allocation (any pointer into it gives the same handle, and
opening it gives the allocation's base: programs that share part of one send the offset
themselves, as PyTorch, numba and tensorpipe do), opening your own handle fails, opening one
twice in a session returns the same pointer and counts (each open needs its close), opened memory is released by cudaIpcCloseMemHandle
(cudaFree refuses it), and a handle dies with its allocation, event or session. The opener is not
charged for the memory: the exporter's quota holds it."""
from __future__ import annotations

import os
import secrets
import struct
from dataclasses import dataclass, field

from .. import ipc_registry
from ..errors import CudaError
from . import handles

MAGIC = b"rgpuIPC\x01"
HANDLE = struct.Struct("<8s16sII")  # magic, token, exporter's pid, kind
HANDLE_SIZE = 64  # cudaIpcMemHandle_t / cudaIpcEventHandle_t
MEMORY, EVENT = 1, 2
LAZY_ENABLE_PEER_ACCESS = 0x1  # the only flag cudaIpcOpenMemHandle takes


@dataclass
class IpcState:
    registry: str  # the server's directory of records
    owner: list  # who may open this session's handles: [lease, vGPU, GPU index]
    exports: dict[int, bytes] = field(default_factory=dict)  # allocation base -> token
    events: dict[int, bytes] = field(default_factory=dict)  # session event handle -> token
    opened: dict[bytes, list] = field(default_factory=dict)  # token -> [address, size, opens]

    @property
    def active(self) -> bool:
        return bool(self.exports or self.opened)

    def opened_at(self, addr: int):
        """The token and entry of the opened memory containing `addr`, or (None, None). A scan: a
        process opens few handles, and a program without any pays one empty loop per cudaFree."""
        for token, entry in self.opened.items():
            if entry[0] <= addr < entry[0] + entry[1]:
                return token, entry
        return None, None

    def close(self) -> None:
        """The session ends: its handles open nothing any more (the mappings go with its device)."""
        for token in [*self.exports.values(), *self.events.values()]:
            ipc_registry.remove(self.registry, token, os.getpid())
        self.exports.clear(), self.events.clear(), self.opened.clear()


def _state(s) -> IpcState:
    st = s.ipc
    if st is None:
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", "this session cannot share memory with other processes")
    return st


def _handle(token: bytes, kind: int) -> bytes:
    return HANDLE.pack(MAGIC, token, os.getpid(), kind).ljust(HANDLE_SIZE, b"\0")


def _export(s, st: IpcState, kind: int, backend: dict) -> bytes:
    token = secrets.token_bytes(16)
    ipc_registry.write(st.registry, token, os.getpid(),
                       {"kind": kind, "owner": st.owner, "session": s.id, "backend": backend})
    return token


def _record(s, st: IpcState, handle, kind: int):
    """The registry's record a program's handle names, checked: (record, token)."""
    handle = bytes(handle or b"")
    if len(handle) < HANDLE.size or not handle.startswith(MAGIC):
        raise CudaError("CUDA_ERROR_INVALID_VALUE", "not an IPC handle rgpu made")
    _, token, pid, got_kind = HANDLE.unpack_from(handle)
    if got_kind != kind:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", "an event's handle where memory's is asked, or the reverse")
    record = ipc_registry.read(st.registry, token, pid)
    if record is None:
        raise CudaError("CUDA_ERROR_INVALID_HANDLE", "no live allocation or event has this handle on this server (freed, "
                                                     "its process ended, or it comes from another server)")
    if record.get("owner") != st.owner:
        raise CudaError("CUDA_ERROR_INVALID_HANDLE", "the handle belongs to another lease, vGPU or GPU")
    if record.get("session") == s.id:
        raise CudaError("CUDA_ERROR_INVALID_CONTEXT", "the handle was exported by this process: use the pointer itself")
    return record, token


def _sharable(s, st: IpcState, addr: int) -> tuple[int, int]:
    found = s.device.allocation(addr)
    if found is None:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"0x{addr:x} is not device memory of this process")
    base, size = found
    if base in s.managed:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", "managed memory cannot be exported by IPC")
    if s.pools is not None and base in s.pools.of:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", "memory of a pool (cudaMallocAsync) is exported with "
                                                    "cudaMemPoolExportPointer, not cudaIpcGetMemHandle")
    if s.vmm is not None and any(r.addr <= base < r.addr + r.size for r in s.vmm.reservations.values()):
        raise CudaError("CUDA_ERROR_INVALID_VALUE", "memory mapped with cuMemMap is exported with "
                                                    "cuMemExportToShareableHandle, not cudaIpcGetMemHandle")
    if st.opened_at(base)[0] is not None:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", "memory opened from another process cannot be exported again")
    return base, size


def plain(s, addr: int, yes: bool) -> None:
    """Tells the cuda backend's compiled copies (cuda/copies.py) whether the allocation at `addr` is
    plain: one its serving loop may free itself."""
    copier = getattr(s.device, "copier", None)
    if copier is not None:
        copier.plain(addr, yes)


@handles("cudaIpcGetMemHandle", "cuIpcGetMemHandle")
def get_mem_handle(s, addr):
    st = _state(s)
    base, size = _sharable(s, st, addr)
    token = st.exports.get(base)
    if token is None:
        token = _export(s, st, MEMORY, s.device.ipc_export(base, size))
        st.exports[base] = token
        plain(s, base, False)  # its free is Python's now (the export goes with it)
    return (_handle(token, MEMORY),)


@handles("cudaIpcOpenMemHandle", "cuIpcOpenMemHandle_v2")
def open_mem_handle(s, handle, flags):
    st = _state(s)
    if flags & ~LAZY_ENABLE_PEER_ACCESS:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"flags 0x{flags:x}")
    record, token = _record(s, st, handle, MEMORY)
    entry = st.opened.get(token)
    if entry is None:
        entry = st.opened[token] = [s.device.ipc_open(record["backend"]), int(record["backend"]["size"]), 0]
    entry[2] += 1
    return (entry[0],)


@handles("cudaIpcCloseMemHandle", "cuIpcCloseMemHandle")
def close_mem_handle(s, addr):
    st = _state(s)
    token, entry = st.opened_at(addr)
    if token is None:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"0x{addr:x} was not returned by cudaIpcOpenMemHandle")
    entry[2] -= 1
    if entry[2] == 0:
        s.device.ipc_close(entry[0])
        del st.opened[token]
    return ()


@handles("cudaIpcGetEventHandle", "cuIpcGetEventHandle")
def get_event_handle(s, event):
    st = _state(s)
    obj = s.get("event", event)
    token = st.events.get(event)
    if token is None:  # the backend refuses an event made without cudaEventInterprocess
        token = _export(s, st, EVENT, s.device.ipc_event_export(obj))
        st.events[event] = token
    return (_handle(token, EVENT),)


@handles("cudaIpcOpenEventHandle", "cuIpcOpenEventHandle")
def open_event_handle(s, handle):
    st = _state(s)
    record, _ = _record(s, st, handle, EVENT)
    return (s.new_handle("event", s.device.ipc_event_open(record["backend"])),)


# -- what the memory and event handlers ask ----------------------------------------------------------
def check_free(s, addr: int) -> None:
    """cudaFree of opened memory is refused (CUDA: cudaIpcCloseMemHandle releases it)."""
    st = s.ipc
    if st is not None and st.opened_at(addr)[0] is not None:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"0x{addr:x} was opened by cudaIpcOpenMemHandle: "
                                                    "cudaIpcCloseMemHandle releases it")


def freed(s, addr: int) -> None:
    """An allocation went: its handle opens nothing any more (memory already opened stays mapped)."""
    st = s.ipc
    if st is not None and (token := st.exports.pop(addr, None)) is not None:
        ipc_registry.remove(st.registry, token, os.getpid())
        unexport = getattr(s.device, "ipc_unexport", None)  # the cuda arena's descriptor (cuda/ipc.py)
        if unexport is not None:
            unexport(addr)


def event_destroyed(s, event: int) -> None:
    st = s.ipc
    if st is not None and (token := st.events.pop(event, None)) is not None:
        ipc_registry.remove(st.registry, token, os.getpid())
