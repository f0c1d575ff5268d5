"""A TCP relay that records every byte it passes (a passive observer on the network path)."""
from __future__ import annotations

import selectors
import socket
import threading


class Relay:
    """Listens on 127.0.0.1:<free port> and forwards each connection to ``target`` (host, port);
    ``seen()`` is everything that went through, both ways."""

    def __init__(self, target: tuple[str, int]):
        self.target = target
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.port = self.server.getsockname()[1]
        self._seen = bytearray()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"tcp://127.0.0.1:{self.port}"

    def seen(self) -> bytes:
        with self._lock:
            return bytes(self._seen)

    def _run(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(self.server, selectors.EVENT_READ)
        peers: dict[socket.socket, socket.socket] = {}
        while not self._stop.is_set():
            for key, _ in sel.select(0.1):
                sock = key.fileobj
                if sock is self.server:
                    client, _ = self.server.accept()
                    upstream = socket.create_connection(self.target)
                    peers[client], peers[upstream] = upstream, client
                    sel.register(client, selectors.EVENT_READ)
                    sel.register(upstream, selectors.EVENT_READ)
                    continue
                try:
                    data = sock.recv(1 << 20)
                except OSError:
                    data = b""
                other = peers.get(sock)
                if not data or other is None:
                    for s in (sock, other):
                        if s is not None and s in peers:
                            sel.unregister(s)
                            peers.pop(s, None)
                            s.close()
                    continue
                with self._lock:
                    self._seen += data
                other.sendall(data)
        for s in list(peers):
            s.close()
        sel.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.server.close()
