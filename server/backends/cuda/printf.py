"""Device printf of a real GPU, for the client's stdout.

The driver prints a kernel's printf output on the host at the next synchronisation, to the stdout
of the process that owns the context — the session worker — through the C library's buffered
stdout. The worker therefore points its fd 1 at a pipe (Python's own sys.stdout keeps the original
stdout; logs go to stderr anyway) and, when a reply is due, flushes the C library's buffers and
takes what the pipe holds: the text goes back in the reply and the client writes it on its own
stdout, in order, at the synchronising call, as the software GPU's printf does. A thread drains the
pipe meanwhile, so a kernel that prints more than a pipe holds never blocks the driver."""
from __future__ import annotations

import ctypes
import os
import select
import sys
import threading

from . import compiled


class StdoutCapture:
    def __init__(self):
        native = compiled.library()
        if native is None:  # as the kernel clock, which every cuda device makes first, needs it too
            raise OSError(f"device printf capture needs {compiled.LIBRARY}: {compiled.unavailable()}")
        self._pending = native.rgpu_printf_pending  # flushes stdio, then counts what the pipe holds
        self._saved = os.dup(1)
        r, w = os.pipe()
        # Python's writes keep going where they went; only the C library's fd 1 is redirected.
        sys.stdout.flush()
        sys.stdout = open(self._saved, "w", buffering=1, closefd=False)
        os.dup2(w, 1)
        os.close(w)
        os.set_blocking(r, False)
        self._r = r
        self._buf = bytearray()
        # 1 while _buf holds output: the worker's compiled serving loop (server/native/serve.c), which
        # cannot see _buf, then leaves the reply to Python (`take`)
        self._buffered = compiled.ffi.new("int *")
        self._lock = threading.Lock()
        libc = ctypes.CDLL(None)
        self._fflush = libc.fflush
        self._fflush.argtypes = [ctypes.c_void_p]
        self._stop = False
        threading.Thread(target=self._drain, name="device-printf", daemon=True).start()

    def _read(self) -> None:
        """Everything the pipe holds now (lock held). The flag is set first: the compiled loop looks at
        the pipe and then at the flag, so output on its way from one to the other is seen in one."""
        self._buffered[0] = 1
        while True:
            try:
                chunk = os.read(self._r, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                return
            if not chunk:
                return
            self._buf += chunk

    def _drain(self) -> None:
        while not self._stop:
            try:
                ready, _, _ = select.select([self._r], [], [], 0.25)
            except (OSError, ValueError):
                return
            if ready:
                with self._lock:
                    self._read()

    @property
    def buffered(self) -> int:
        """The address of the flag that says output waits in the capture's buffer (an int)."""
        return int(compiled.ffi.cast("uintptr_t", self._buffered))

    @property
    def fd(self) -> int:
        """The pipe's read end (the compiled loop checks it: `take`'s `pending`)."""
        return self._r

    def take(self, pending: int = -1) -> str:
        """What kernels printed since the last take (the C library's buffers flushed first). At every
        synchronising reply: the pipe is read only when it holds something (one compiled call says,
        or has said: `pending` >= 0, the bytes it held after a flush), not with a read that mostly
        fails."""
        if pending < 0:
            pending = self._pending(self._r)  # flushes too
        with self._lock:  # the drain thread may be reading: what it read is in _buf once this is had
            if pending:
                self._read()
            if not self._buf:
                self._buffered[0] = 0
                return ""
            out = bytes(self._buf)
            self._buf.clear()
            self._buffered[0] = 0
        return out.decode(errors="replace")

    def close(self) -> None:
        """Point fd 1 back at the original stdout."""
        self._stop = True
        self._fflush(None)
        os.dup2(self._saved, 1)
