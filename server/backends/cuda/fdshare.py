"""File descriptors a worker hands to another worker of its server: the physical memory of a session's
arena, exported for CUDA IPC (ipc.py). The driver's own IPC handle carries everything in 64 bytes;
an exported VMM allocation is a file descriptor, valid only in the process that exported it, so the
opening worker fetches it over a Unix socket in the abstract namespace (SCM_RIGHTS).

Who may take one: whoever presents its token, 16 random bytes kept in the server's IPC registry with
the handle's record, which api/ipc.py gives only to sessions of the exporter's lease and vGPU on the
same GPU. A connection that does not send a known token within a second gets nothing."""
from __future__ import annotations

import os
import secrets
import socket
import threading

import structlog

log = structlog.get_logger()

TOKEN = 16


class FdShare:
    """The worker's share: tokens -> descriptors, served by a daemon thread once the first is offered."""

    def __init__(self):
        self.name = f"rgpu-fdshare-{os.getpid()}-{secrets.token_hex(8)}"
        self._fds: dict[bytes, int] = {}
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None

    def offer(self, fd: int) -> bytes:
        """The token that fetches `fd` (the share owns it from now on: closed by withdraw or close)."""
        token = secrets.token_bytes(TOKEN)
        with self._lock:
            if self._sock is None:
                self._listen()
            self._fds[token] = fd
        return token

    def withdraw(self, token: bytes) -> None:
        with self._lock:
            fd = self._fds.pop(token, None)
        if fd is not None:
            os.close(fd)

    def close(self) -> None:
        with self._lock:
            fds, self._fds = list(self._fds.values()), {}
            sock, self._sock = self._sock, None
        for fd in fds:
            os.close(fd)
        if sock is not None:
            sock.close()

    def _listen(self) -> None:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        s.bind("\0" + self.name)
        s.listen(16)
        self._sock = s
        threading.Thread(target=self._serve, args=(s,), name="rgpu-fdshare", daemon=True).start()

    def _serve(self, s: socket.socket) -> None:
        while True:
            try:
                conn, _ = s.accept()
            except OSError:
                return  # closed
            with conn:
                try:
                    conn.settimeout(1.0)
                    token = _read(conn, TOKEN)
                    with self._lock:
                        fd = self._fds.get(token)
                    if fd is None:
                        conn.sendall(b"\0")
                    else:
                        socket.send_fds(conn, [b"\1"], [fd])
                except OSError as e:
                    log.warning("fdshare_refused", reason=str(e))


def _read(conn: socket.socket, n: int) -> bytes:
    out = b""
    while len(out) < n:
        part = conn.recv(n - len(out))
        if not part:
            break
        out += part
    return out


def fetch(name: str, token: bytes, timeout: float = 5.0) -> int:
    """The descriptor another worker's share offers under `token` (a new descriptor of this process's,
    the caller's to close); OSError when it has none."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC) as c:
        c.settimeout(timeout)
        c.connect("\0" + name)
        c.sendall(token)
        msg, fds, _, _ = socket.recv_fds(c, 1, 1)
    if msg != b"\1" or not fds:
        for fd in fds:
            os.close(fd)
        raise OSError(f"the exporting worker has no memory under this handle any more ({name})")
    return fds[0]
