"""Idle reclaim: a session nobody has called for a while (a notebook between cells) gives its GPU
memory back while its program lives on, and gets it back at the program's next call.

The worker checkpoints the session (server/checkpoint) at a call boundary once it has been idle for
the lease's ``reclaim_after`` seconds, writes the image to the server's checkpoint directory, and
frees the device: memory goes back to the GPU (and to the vGPU's quota), compute is not used. The
worker process, its connection and the client's handles stay as they are. The next message from
the client restores the image into a fresh device at the same addresses and with the same handles,
then is served as if nothing happened: the program sees one slow call.

On a real GPU (the cuda backend) the driver checkpoints the worker's process instead
(backends/cuda/suspension.py): the memory moves into the worker's host memory rather than a file,
and the context, modules, streams and events stay where they are, at their addresses; the next
message has the driver restore it. Nothing is written to the checkpoint directory.

The restore is on the same GPU (the worker is bound to it). When the GPU has no room for the
session by then, the call waits, trying again, up to RESTORE_WAIT_S; after that it fails with
out-of-memory and the checkpoint stays, so a later call may still restore it. Restoring on another
GPU that fits is a live migration of the reclaimed session (not done yet).
"""
from __future__ import annotations

import os
import time
from pathlib import Path

from .checkpoint import session as ckpt
from .checkpoint.image import CheckpointError, Image
from .errors import CudaError
from .session import Session

RESTORE_WAIT_S = 30.0
RESTORE_RETRY_S = 0.5

# What a reclaim keeps of the worker's session object across the rebuild (the connection's and
# the worker's own, not the device's).
_KEPT = ("shm", "memory_view", "sched", "slot", "housekeeping", "messages", "bytes_in", "bytes_out", "last_seq",
         "calls")


class Reclaimer:
    """The idle reclaim of one session; ``after_s`` None: never."""

    def __init__(self, after_s: float | None, directory: str | None, backend: str, new_device, log):
        self.after_s, self.backend, self.new_device, self.log = after_s, backend, new_device, log
        self.directory = Path(directory) if directory else None
        self.path: Path | None = None   # the checkpoint while reclaimed
        self.suspended = False  # reclaimed by the driver's checkpoint of this process (no file)
        self.last_active = time.monotonic()
        self.stats = {"reclaims": 0, "restores": 0, "stored_bytes": 0, "memory_bytes": 0, "reclaim_s": 0.0,
                      "restore_s": 0.0}

    @property
    def reclaimed(self) -> bool:
        return self.path is not None or self.suspended

    def touched(self, now: float) -> None:
        self.last_active = now

    def due(self, now: float) -> bool:
        return (self.after_s is not None and self.directory is not None and not self.reclaimed
                and now - self.last_active >= self.after_s)

    def reclaim(self, session) -> bool:
        """Checkpoint ``session`` to disk and free its device (or, on a backend that suspends in
        place, have its driver checkpoint it). False (the session untouched) when it cannot be
        captured; the reason is logged and the reclaim is not tried again until the session was
        used (never again where the backend or driver cannot do it at all)."""
        t0 = time.monotonic()
        if getattr(session, "ipc", None) is not None and session.ipc.active:
            # another process maps this memory (CUDA IPC): freeing it would pull it from under that one
            self.log.info("reclaim_deferred", reason="the session shares memory with another process (CUDA IPC)")
            self.last_active = time.monotonic()
            return False
        if session.device.queued:
            # a kernel still runs after its launch (sim/queue.py): the session is busy, not idle
            self.last_active = time.monotonic()
            return False
        if session.device.suspends_in_place:
            return self._suspend(session, t0)
        try:
            image = ckpt.capture(session, self.backend)
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            path = self.directory / f"{session.id}.ckpt"
            stored = image.save(path)
        except (CheckpointError, CudaError, OSError) as e:
            self.log.warning("reclaim_failed", reason=getattr(e, "message", None) or str(e))
            self.last_active = time.monotonic()
            if isinstance(e, CudaError) and e.code == "CUDA_ERROR_NOT_SUPPORTED":
                self.after_s = None  # this backend cannot checkpoint sessions: never again
            return False
        window = session.device.window()
        session.device.close()  # the memory goes back to the GPU and the vGPU's quota now
        self.window, self.path = window, path
        self.stats.update(reclaims=self.stats["reclaims"] + 1, stored_bytes=stored, memory_bytes=image.memory_bytes,
                          reclaim_s=round(time.monotonic() - t0, 4))
        self.log.info("session_reclaimed", idle_s=round(time.monotonic() - self.last_active, 1),
                      memory_bytes=image.memory_bytes, stored_bytes=stored, reclaim_s=self.stats["reclaim_s"])
        return True

    def _suspend(self, session, t0: float) -> bool:
        try:
            released = session.device.suspend()
        except CudaError as e:
            if e.code == "CUDA_ERROR_NOT_READY":  # busy, not idle: looked at again after another idle spell
                self.log.info("reclaim_deferred", reason=e.message)
            else:
                self.log.warning("reclaim_failed", reason=e.message)
            self.last_active = time.monotonic()
            if e.sticky:
                session.sticky = e  # the driver left the session unable to run: every call says so
            if e.sticky or e.code == "CUDA_ERROR_NOT_SUPPORTED":
                self.after_s = None  # this driver cannot, or must not be asked again
            return False
        self.suspended = True
        self.stats.update(reclaims=self.stats["reclaims"] + 1, stored_bytes=0, memory_bytes=released,
                          reclaim_s=round(time.monotonic() - t0, 4))
        self.log.info("session_reclaimed", idle_s=round(time.monotonic() - self.last_active, 1),
                      memory_bytes=released, by="driver checkpoint", reclaim_s=self.stats["reclaim_s"])
        return True

    def _until_room(self, attempt, must_end, t0: float) -> None:
        """Run ``attempt`` until the GPU has room for it, at most RESTORE_WAIT_S; any other
        refusal is final."""
        while True:
            try:
                return attempt()
            except CudaError as e:
                if e.code != "CUDA_ERROR_OUT_OF_MEMORY" or time.monotonic() - t0 > RESTORE_WAIT_S:
                    raise CudaError(e.code, f"the reclaimed session cannot be restored on this GPU: {e.message}") \
                        from None
            if must_end is not None:
                must_end()
            time.sleep(RESTORE_RETRY_S)  # waiting for room on the GPU, not for a result

    def restore(self, session, must_end=None) -> None:
        """Rebuild the reclaimed session in place; raises CudaError (out of memory once the GPU
        has had no room for RESTORE_WAIT_S, or the checkpoint unreadable)."""
        t0 = time.monotonic()
        if self.suspended:
            self._until_room(session.device.resume, must_end, t0)
            self.suspended = False
            self._restored(t0, self.stats["memory_bytes"])
            return
        try:
            image = Image.load(self.path)
        except CheckpointError as e:
            raise CudaError("CUDA_ERROR_ILLEGAL_STATE", f"the reclaimed session cannot be restored: {e}") from None

        def rebuild():
            device = self.new_device(self.window)
            kept = {k: getattr(session, k) for k in _KEPT}
            Session.__init__(session, device, session.id)
            for k, v in kept.items():
                setattr(session, k, v)
            try:
                ckpt.restore(session, image, self.backend)
            except (CudaError, CheckpointError):
                device.close()
                raise

        try:
            self._until_room(rebuild, must_end, t0)
        except CheckpointError as e:
            raise CudaError("CUDA_ERROR_ILLEGAL_STATE", f"the reclaimed session cannot be restored: {e}") from None
        try:
            os.unlink(self.path)
        except OSError:
            pass
        self.path = None
        self._restored(t0, image.memory_bytes)

    def _restored(self, t0: float, memory_bytes: int) -> None:
        self.last_active = time.monotonic()
        self.stats.update(restores=self.stats["restores"] + 1, restore_s=round(time.monotonic() - t0, 4))
        self.log.info("session_restored", restore_s=self.stats["restore_s"], memory_bytes=memory_bytes)

    def discard(self) -> None:
        """The session ends while reclaimed: its checkpoint goes (the driver's goes with the process)."""
        self.suspended = False
        if self.path is not None:
            try:
                os.unlink(self.path)
            except OSError:
                pass
            self.path = None
