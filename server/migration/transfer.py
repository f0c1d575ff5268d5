"""The messages between a source and a target worker, and the source's end of the connection.

A message is a msgpack map ``{"op": NAME, "rid": N, ...}`` followed by raw frames (compressed
memory chunks, module images); a reply is ``{"ok": true, "rid": N, ...}`` or ``{"ok": false, "rid": N,
"message": TEXT}``. The target also sends one unsolicited message, ``{"op": "attached"}``, when the
client has reached it."""
from __future__ import annotations

import itertools
import time

import zmq
import zmq.utils.monitor

from rgpu.protocol import curve, wire

from .. import liveness

REPLY_TIMEOUT_S = 60.0   # a restore of many GiB takes a while; a target silent for longer is gone
MAX_FRAME = 1 << 31


class MigrationFailed(Exception):
    """The migration cannot go on; the session stays where it is. The message says why."""


def is_transfer(first) -> bool:
    """Whether a message whose first frame is ``first`` is of the transfer protocol (a msgpack map)
    rather than calls (an array)."""
    head = first.bytes[:1] if hasattr(first, "bytes") else bytes(first[:1])
    return bool(head) and ((head[0] & 0xF0) == 0x80 or head[0] in (0xDE, 0xDF))


class Link:
    """The source's DEALER to the target worker: requests answered in order, replies matched by
    ``rid`` (``submit`` several, then ``wait`` for each: the pre-copy's batches overlap the source's
    reading and compression with the wire and the target's restore); unsolicited messages from the
    target are kept for ``events``."""

    def __init__(self, ctx: zmq.Context, endpoint: str, server_key: bytes | None, keys: curve.Keypair | None):
        self.sock = ctx.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.setsockopt(zmq.SNDHWM, 0)
        # A target that dies is noticed at once (its connection drops) or within seconds (its host
        # froze or vanished, even while a request's memory is on its way: server/liveness.py), not
        # after a reply timeout sized for restoring many GiB
        liveness.watch_link(self.sock)
        curve.limit(self.sock, MAX_FRAME)
        if server_key is not None:
            curve.as_client(self.sock, keys, server_key)
        # Until the first connection is up, nothing but the connect's own retries would tell of a
        # target that died between its supervisor's answer and the link's connect (no connection,
        # so no heartbeat and no disconnect): not up within liveness.SILENCE_MS is gone too
        self._up = zmq.EVENT_HANDSHAKE_SUCCEEDED if server_key is not None else zmq.EVENT_CONNECTED
        self.monitor = self.sock.get_monitor_socket(self._up | zmq.EVENT_DISCONNECTED | zmq.EVENT_HANDSHAKE_FAILED_AUTH |
                                                    zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL |
                                                    zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL)
        self.connected, self._connect_by = False, time.monotonic() + liveness.SILENCE_MS / 1000
        self.sock.connect(endpoint)
        self._rids = itertools.count(1)
        self._events: list[dict] = []
        self._early: dict[int, dict] = {}  # replies that came while another was waited for
        self.lost = False

    def request(self, header: dict, frames=(), timeout_s: float = REPLY_TIMEOUT_S) -> dict:
        return self.wait(self.submit(header, frames), header["op"], timeout_s)

    def submit(self, header: dict, frames=()) -> int:
        """Sends a request without waiting for its reply: its rid, for ``wait``."""
        rid = next(self._rids)
        self.sock.send_multipart([wire.pack({**header, "rid": rid}), *frames], copy=False)
        return rid

    def wait(self, rid: int, op: str, timeout_s: float = REPLY_TIMEOUT_S) -> dict:
        """The reply to request ``rid`` (``op``: its name, for the errors); MigrationFailed when the
        target refused it, went away, or said nothing for ``timeout_s``."""
        if rid in self._early:
            return self._checked(self._early.pop(rid), op)
        deadline = time.monotonic() + timeout_s
        poller = zmq.Poller()
        poller.register(self.sock, zmq.POLLIN)
        poller.register(self.monitor, zmq.POLLIN)
        while True:
            left = deadline - time.monotonic()
            # not yet connected: woken to check the connect's deadline, which no event marks
            step = left if self.connected else min(left, 0.2)
            ready = dict(poller.poll(int(step * 1000) + 1)) if left > 0 else {}
            if self.sock not in ready:
                if self._gone():  # also when an earlier events() saw it go
                    raise MigrationFailed(f"the target went away during {op}")
                if left <= 0:
                    raise MigrationFailed(f"the target did not answer {op} within {timeout_s:g} s")
                continue
            msg = wire.unpack(self.sock.recv_multipart()[0])
            self.connected = True  # whatever its monitor has not said yet
            if not isinstance(msg, dict):
                continue
            if msg.get("rid") == rid:
                return self._checked(msg, op)
            if "op" in msg:
                self._events.append(msg)
            elif type(msg.get("rid")) is int and len(self._early) < 1024:
                self._early[msg["rid"]] = msg  # another request's, submitted before this one

    @staticmethod
    def _checked(msg: dict, op: str) -> dict:
        if not msg.get("ok"):
            raise MigrationFailed(f"the target refused {op}: {msg.get('message')}")
        return msg

    def send(self, header: dict) -> None:
        """A message that gets no reply (alive, client_gone, abort)."""
        try:
            self.sock.send(wire.pack(header), zmq.NOBLOCK)
        except zmq.ZMQError:
            pass

    def _gone(self) -> bool:
        while self.monitor.poll(0):
            if zmq.utils.monitor.recv_monitor_message(self.monitor)["event"] == self._up:
                self.connected = True
            else:
                self.lost = True
        if not self.connected and time.monotonic() > self._connect_by:
            self.lost = True
        return self.lost

    def events(self) -> list[dict]:
        self._gone()
        while self.sock.poll(0):
            msg = wire.unpack(self.sock.recv_multipart()[0])
            if isinstance(msg, dict) and "op" in msg:
                self._events.append(msg)
        out, self._events = self._events, []
        return out

    def close(self) -> None:
        self.sock.disable_monitor()
        self.monitor.close(0)
        self.sock.close(0)


def reply(rid, ok: bool = True, **fields) -> bytes:
    return wire.pack({"ok": ok, "rid": rid, **fields})
