"""A session's data stream: large frames beside a plain wire, as raw bytes on a TCP connection.

Through ZeroMQ a large frame crosses an I/O thread and a fresh message buffer at each end. On the
bed's veth pair that held 64 MiB copies across hosts to 0.52-0.66x a raw TCP stream on the same path
(benchmarks/results/landing-2026-12-05.md). On a plain wire to another host, frames of at least
STREAM_MIN bytes after a message's head go on a TCP connection of their own instead: the client library
writes them from the program's buffer and reads them into it (libhook/src/transport/data_stream.c),
and the worker reads and writes them here. The framing is the bulk channel's (server/bulk.py): in the
message a `sealed` record (protocol/contract/envelope.toml) stands where the frame was, naming the
channel, the direction, the sender's count of such frames and the length. The stream carries the data,
unsealed, in the order the records name it, after the message that names it.

Neither end may wait for the other while the other waits for it:
- the client writes a message's data only after the message's last frame (the worker reads the data
  when it has the whole message), and the worker reads it while it serves the message;
- the worker streams only data the client is waiting for: a sync call's reply and its PIECE_OUT
  pieces. A LATE_OUT copy, which the client takes at its next wait while it may be writing the
  stream, stays on the session socket.

A stream that stops moving is judged as the session socket is: by the client's host, not by the
program (server/liveness.py). A program stopped (Ctrl-Z, a debugger) in the middle of a streamed copy
runs none of its threads, for as long as its user likes; its host's kernel still answers for it. So
while a frame's data is awaited, or the client takes none of the worker's, the worker runs its
housekeeping every second (`tick`: it ends the session once the session socket's far host has
acknowledged nothing for 5 s, or the lease is gone), and judges the stream's own connection as well:
TCP keepalives while it reads (answered by the host's kernel; a path gone for the stream alone fails
the read within about KEEPALIVE_IDLE_S + KEEPALIVE_COUNT seconds) and the same TCP_INFO judgement as
the session socket's while it writes (liveness.ClientHost). WAIT_S bounds only what a live program
does not do: connect its stream after naming a frame on it.

The stream belongs to the session by its name: 16 random bytes the client drew and told the worker in
its attach, and writes as the connection's first bytes. The worker takes the first connection that
says them; any other connection is closed unread. The wire is plain: this is the same guarantee the
session socket has there, whose key also travels in the clear. A CURVE wire uses the sealed bulk
channel instead.
"""
from __future__ import annotations

import collections
import hmac
import random
import select
import socket
import struct
import threading
import time

import msgpack
import numpy as np
import zmq

from rgpu.protocol.generated.constants import LATE_OUT, STREAM_MIN
from rgpu.protocol.generated.envelope import BULK_CHANNEL, write_sealed

from . import liveness
from .bulk import BulkBroken, client_record, is_record

TO_WORKER, TO_CLIENT = 0, 1
WAIT_S = 20.0        # how long the client's connection may lag the first frame its message names
HELLO_WAIT_S = 5.0   # how long the client's connection may lag the first frame the worker would stream
NAME_WAIT_S = 1.0    # how long a connection may take to say the stream's name before it is closed
TICK_S = 1.0
# A read's connection silent KEEPALIVE_IDLE_S is probed (a stopped program's kernel answers), and
# KEEPALIVE_COUNT probes a second apart unanswered end it: about 15 s, for a path gone for the stream
# alone. A host gone is the housekeeping's to find first (5 s of silence and its grace), so that the
# session ends as `client_gone`, as on the socket.
KEEPALIVE_IDLE_S = 10
KEEPALIVE_COUNT = 5


def offer_ok(offer) -> bool:
    """Whether an attach's offer is a data stream's: [name (16 bytes)]."""
    return isinstance(offer, (list, tuple)) and len(offer) == 1 and isinstance(offer[0], bytes) \
        and len(offer[0]) == BULK_CHANNEL


def _listener(bind_url: str, ports) -> socket.socket:
    host = bind_url[len("tcp://"):].rsplit(":", 1)[0]
    host = "" if host in ("*", "0.0.0.0") else host.strip("[]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    candidates = [0] if ports is None else random.sample(range(ports[0], ports[1] + 1), ports[1] - ports[0] + 1)
    for port in candidates:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            sock.close()
            if ports is None:
                raise
            continue
        sock.listen(4)
        sock.setblocking(False)
        return sock
    raise OSError("no free port in the session port range for the data stream")


class DataStream:
    """The worker's end of one session's data stream: a TCP listener bound beside its session socket,
    and the client's connection once it said the stream's name."""
    streams = True
    min_frame = STREAM_MIN  # the smallest frame it carries (constants.toml says why)

    def __init__(self, bind_url: str, ports, channel: bytes, max_frame: int):
        self.channel = bytes(channel)
        self.max_frame = max_frame
        self.listener = _listener(bind_url, ports)
        self.port = self.listener.getsockname()[1]
        self.endpoint = f"tcp://*:{self.port}"
        self.conn = None
        self.hello_missed = False
        self.send_failed = None  # why the stream stopped taking the worker's frames
        self.broken = None       # why the client's data can no longer be taken in its order
        self.sent = self.got = 0
        self.bytes_in = self.bytes_out = self.frames_in = self.frames_out = self.dropped = 0
        # frames of the message being served not read yet, in the stream's order (Streamed); reads
        # may come from the software GPU's executor thread too
        self.unread: collections.deque = collections.deque()
        self.lock = threading.Lock()
        self.tick = None  # the session's housekeeping (the worker sets it at attach): raises what ends it

    def close(self) -> None:
        self.listener.close()
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    # -- the client's connection -------------------------------------------------------------------
    def _accept(self, deadline: float, tick=None) -> bool:
        """Waits until `deadline` for the connection that says the stream's name."""
        while self.conn is None:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            waiting = select.poll()  # (not select.select: no limit on the descriptor's number)
            waiting.register(self.listener, select.POLLIN)
            if not waiting.poll(min(left, TICK_S) * 1000):
                if tick is not None:
                    tick()
                continue
            try:
                conn, _ = self.listener.accept()
            except BlockingIOError:
                continue
            conn.settimeout(NAME_WAIT_S)
            name = b""
            try:
                while len(name) < len(self.channel):
                    got = conn.recv(len(self.channel) - len(name))
                    if not got:
                        break
                    name += got
            except OSError:
                pass
            if not hmac.compare_digest(name, self.channel):
                self.dropped += 1  # a stranger's connection, or one that said nothing in time
                conn.close()
                continue
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, KEEPALIVE_IDLE_S)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 1)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, KEEPALIVE_COUNT)
            # Blocking, each wait bounded by the kernel (TICK_S): a frame is read with MSG_WAITALL and
            # written whole in one call each, where Python's own timeouts poll before every partial
            # recv or send (a 4 MiB frame took dozens of those).
            conn.settimeout(None)
            wait = struct.pack("ll", int(TICK_S), int(TICK_S % 1 * 1e6))  # a struct timeval
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, wait)
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, wait)
            self.conn = conn
            self.listener.close()  # the session's connection is here: any later one is refused by the kernel
        return True

    # -- the client to the worker ------------------------------------------------------------------
    def placeholder(self, part) -> bool:
        """Whether a frame of the client's message is a `sealed` record of this stream."""
        return is_record(part, self.channel)

    def open_parts(self, body: list) -> list:
        """The client's message with each record after its head replaced by the data it names
        (Streamed), read from the stream where it is used, in order, or by `settle` once the message
        is served (BulkBroken when that cannot be done: the session ends). Its `tick`, called about every
        second while data is awaited, raises what ends the session meanwhile (its client gone, its
        lease ended)."""
        named = [self.placeholder(p) for p in body[1:]]
        if not any(named):
            return body
        self.settle()
        return [body[0], *(self._name(p) if n else p for p, n in zip(body[1:], named))]

    def settle(self) -> None:
        """Reads every frame of the served message its calls left unread into a buffer of its own:
        the client writes all of a message's data before it reads the reply, so the stream must be
        empty of it before the worker waits for the next message. A frame a queued copy takes later
        is copied from that buffer."""
        with self.lock:
            while self.unread:
                self._read_next()

    def _name(self, part) -> "Streamed":
        if self.broken is not None:
            raise BulkBroken(self.broken)
        _, rec = client_record(part, self.channel, "streamed")
        if rec.counter != self.got + 1:
            raise BulkBroken(f"the client named streamed frame {rec.counter} where {self.got + 1} comes next")
        if rec.length > self.max_frame:
            raise BulkBroken(f"a streamed frame of {rec.length} bytes is larger than the largest frame taken "
                             f"({self.max_frame})")
        if not self._accept(time.monotonic() + WAIT_S, self.tick):
            raise BulkBroken(f"the client's data stream did not connect within {WAIT_S:.0f} s")
        self.got += 1
        frame = Streamed(self, rec.length)
        self.unread.append(frame)
        return frame

    def _read_next(self, into=None) -> None:
        """Reads the first unread frame: into `into` (a writable buffer of its length) or a buffer of its own.
        The lock held."""
        if self.broken is not None:
            raise BulkBroken(self.broken)
        frame = self.unread[0]
        out = np.empty(frame.n, np.uint8) if into is None else into  # (all of it is written)
        self._read_into(memoryview(out).cast("B"))
        self.unread.popleft()
        frame.data = out if into is None else True
        self.frames_in += 1
        self.bytes_in += frame.n

    def _read_into(self, view: memoryview) -> None:
        """Reads all of `view` from the stream: for as long as the client's host answers (the module's
        docstring), with the session's housekeeping every TICK_S meanwhile."""
        conn, off, n = self.conn, 0, len(view)
        while off < n:
            try:  # all of it, or what came within TICK_S (none: BlockingIOError)
                k = conn.recv_into(view[off:], n - off, socket.MSG_WAITALL)
            except (socket.timeout, BlockingIOError):
                if self.tick is not None:
                    self.tick()
                continue
            except OSError as e:  # a keepalive unanswered (ETIMEDOUT) among them: the client's host is gone
                self._break(f"the data stream failed with {off} of a frame's {n} bytes read: {e}")
            if k == 0:
                self._break(f"the data stream closed with {off} of a frame's {n} bytes read")
            off += k

    def _break(self, why: str):
        self.broken = why
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        raise BulkBroken(why)

    # -- the worker to the client ------------------------------------------------------------------
    def knows_peer(self) -> bool:
        """Whether the client's connection is here to stream to: the first time a frame would be
        streamed before it was taken, it is waited for HELLO_WAIT_S at most; none by then (the client
        could not connect), frames go on the session socket from then on (the client takes either)."""
        if self.conn is None and not self.hello_missed and self.broken is None:
            self.hello_missed = not self._accept(time.monotonic() + HELLO_WAIT_S)
        return self.conn is not None

    @staticmethod
    def takes(head) -> bool:
        """Whether a message of the worker's (its head frame) may stream: not a LATE_OUT copy, which
        the client reads only at its next wait (the module's docstring says why)."""
        try:
            rep = msgpack.unpackb(head.buffer if isinstance(head, zmq.Frame) else head)
        except (ValueError, msgpack.ExtraData):
            return False
        return isinstance(rep, (list, tuple)) and len(rep) > 1 and rep[1] != LATE_OUT

    def record(self, part) -> tuple[bytes, memoryview]:
        """The `sealed` record that stands for a frame in the message, and the data to stream after it."""
        data = part.buffer if isinstance(part, zmq.Frame) else memoryview(part).cast("B")
        self.sent += 1
        head = msgpack.packb(write_sealed((self.channel, TO_CLIENT, self.sent, len(data))), use_bin_type=True)
        return head, data

    def write(self, datas: list) -> None:
        """Streams the data of a message just sent on the session socket, in its order. A client that
        takes none of it is waited for while its host answers (the module's docstring): a host that
        acknowledges nothing for liveness.SILENCE_MS, or a connection that fails, ends the stream, and
        the client, missing the data its message named, ends the session."""
        conn, host = self.conn, liveness.ClientHost()
        try:
            for data in datas:
                off, n = 0, len(data)
                while off < n:
                    try:  # all of it, or what the client took within TICK_S (none: BlockingIOError)
                        off += conn.send(data[off:])
                    except (socket.timeout, BlockingIOError):
                        if host.gone(conn.fileno(), time.monotonic()):
                            raise OSError(f"the client's host acknowledged nothing for "
                                          f"{liveness.SILENCE_MS / 1000:.0f} s") from None
                        if self.tick is not None:
                            self.tick()
                self.frames_out += 1
                self.bytes_out += n
        except OSError as e:
            self.send_failed = self.broken = f"the data stream stopped taking the worker's frames: {e}"
            conn.close()
            self.conn = None

    def stats(self) -> dict:
        return {"bulk_bytes_in": self.bytes_in, "bulk_bytes_out": self.bytes_out,
                "bulk_frames_in": self.frames_in, "bulk_frames_out": self.frames_out,
                "bulk_dropped": self.dropped, "bulk_kind": "stream",
                **({"bulk_send_failed": self.send_failed} if self.send_failed else {})}


class Streamed:
    """A data frame of the client's message, on the stream, where the message's frames are zmq.Frames.
    An H2D copy's is read straight into device memory (`open_into`, which the software GPU's memory
    calls, as for a sealed frame: server/bulk.py Sealed) when it is the next on the stream, instead of
    into a buffer copied there after; `buffer` reads it (and any unread before it) into one of its own.
    Once read into device memory it is spent: its data lives there, not here."""
    __slots__ = ("_stream", "n", "data")
    more = False

    def __init__(self, stream: DataStream, n: int):
        self._stream, self.n, self.data = stream, n, None

    def __len__(self) -> int:
        return self.n

    def open_into(self, out) -> None:
        s = self._stream
        with s.lock:
            if self.data is None:
                while s.unread[0] is not self:  # frames ahead of it in the stream: into buffers of their own
                    s._read_next()
                s._read_next(out)
                return
        if self.data is True:
            raise BulkBroken("a streamed frame was read into device memory once already")
        memoryview(out).cast("B")[:] = memoryview(self.data)

    @property
    def buffer(self) -> memoryview:
        if self.data is None:
            with self._stream.lock:
                while self.data is None:
                    self._stream._read_next()
        if self.data is True:
            raise BulkBroken("a streamed frame was read into device memory: it has no buffer")
        return memoryview(self.data)

    @property
    def bytes(self) -> bytes:
        return bytes(self.buffer)
