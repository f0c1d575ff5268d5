"""A client session: the device it is bound to, the handles it was given, its sticky error.

Handles that reach the client are small integers issued here, never backend objects or pointers,
so a forged or stale handle is an invalid-handle error rather than a crash of a real driver."""
from __future__ import annotations

import itertools

from .backends.base import Device
from .errors import CudaError

DEFAULT_STREAMS = (0, 1, 2)  # NULL, cudaStreamLegacy, cudaStreamPerThread


class SessionEnding(BaseException):
    """Raised from inside a long call (a kernel at a time-slice checkpoint) when the session must
    end now: its lease ended or its client is gone. A BaseException so that no handler's error
    translation turns it into a CUDA error for a client that is not there."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Session:
    def __init__(self, device: Device, session_id: str = ""):
        self.device = device
        self.id = session_id
        self._handles: dict[int, tuple[str, object]] = {}
        self._next = itertools.count(0x1000, 8)
        self.sched = None  # GpuScheduler of this session's GPU (None: no other session to share with)
        self.slot = 0
        # The worker's check for "end this session now" (stop from the supervisor, client gone),
        # run at time-slice checkpoints of long kernels; raises SessionEnding.
        self.housekeeping = None
        self.managed: dict[int, int] = {}  # managed allocations: address -> size asked for (api/managed.py)
        # Texture and surface objects by ("texture" | "surface", value): kernels receive the value
        # itself, so it is the backend's own, not a handle of this session's (api/textures.py).
        self.objects: dict[tuple[str, int], object] = {}
        # (free, total) as the lease's quotas make them, when the worker knows better than the device
        # alone: every session of the vGPU shares its memory (workers.GpuShared.mem_info).
        self.memory_view = None
        self.sticky: CudaError | None = None
        self.deferred: CudaError | None = None
        self.calls = 0
        self.messages = 0
        self.bytes_in = 0
        self.bytes_out = 0

    def new_handle(self, kind: str, obj) -> int:
        h = next(self._next)
        self._handles[h] = (kind, obj)
        return h

    def get(self, kind: str, h: int):
        """The object behind handle h; default streams are None."""
        if not isinstance(h, int):
            raise CudaError("CUDA_ERROR_INVALID_HANDLE", f"a {kind} handle is an integer, not {type(h).__name__}")
        if kind == "stream" and h in DEFAULT_STREAMS:
            return None
        found = self._handles.get(h)
        if found is None or found[0] != kind:
            raise CudaError("CUDA_ERROR_INVALID_HANDLE", f"0x{h:x} is not a {kind} of this session")
        return found[1]

    def drop(self, kind: str, h: int):
        obj = self.get(kind, h)
        if obj is None:
            raise CudaError("CUDA_ERROR_INVALID_HANDLE", f"the default {kind} cannot be destroyed")
        del self._handles[h]
        return obj

    def mem_info(self) -> tuple[int, int]:
        """cudaMemGetInfo's answer: what this session can still allocate, and its vGPU's memory."""
        return self.memory_view() if self.memory_view is not None else self.device.mem_info()

    def run_kernel(self, launch) -> None:
        """Run `launch()` when the GPU's scheduler says it is this session's turn, charging it the
        device time the backend measured."""
        sched, device = self.sched, self.device
        charged = 0.0

        def slice_done(seconds: float) -> None:
            nonlocal charged
            if sched is not None:
                charged += seconds
                sched.yield_slice(self.slot, seconds)
            if self.housekeeping is not None:
                self.housekeeping()

        device.checkpoint = slice_done
        try:
            if sched is None:
                launch()
                return
            sched.acquire(self.slot)
            before = device.device_time
            try:
                launch()
            finally:
                sched.release(self.slot, max(device.device_time - before - charged, 0.0))
        finally:
            device.checkpoint = None

    def close(self) -> None:
        self._handles.clear()
        self.objects.clear()
        self.device.close()
