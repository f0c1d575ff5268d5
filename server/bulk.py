"""A session's bulk channel: large frames beside a CURVE wire, sealed with AEGIS-256.

CURVE encrypts on one ZeroMQ I/O thread at each end with XSalsa20-Poly1305 (1.4-2.5 GB/s a core on
this project's VM), which held 64 MiB copies across hosts to a fifth of the plain wire's speed
(benchmarks/results/bed-2026-12-03-curve.md). Here the frames of at least BULK_MIN bytes after a
message's head go on a second connection to the worker instead, sealed in the threads that send and
receive them with AEGIS-256 (libsodium >= 1.0.19; 9-10 GB/s a core), under a key the client drew and
told the worker in its attach, over the CURVE wire (protocol/contract/constants.toml, BULK_MIN).

The control message keeps a small `sealed` record where the frame was (protocol/contract/
envelope.toml): the channel's name, the direction, the sender's count of sealed frames and the
length. The channel carries the same bytes, then the data and its 32-byte tag, sealed with those
bytes as associated data and a nonce made of the name, the direction and the count. A frame that
does not open under the key, or whose head is not the one the control message named, is not the
session's: from the client's connection it ends the session (its data would be wrong), from any
other connection (one that knew the PLAIN password: see BulkChannel) it is dropped.

The worker's end: the client library's is libhook/src/transport/bulk.c.
"""
from __future__ import annotations

import ctypes.util
import glob
import os
import time

import msgpack
import numpy as np
import zmq

from rgpu.protocol.generated.constants import BULK_HEAD_MAX, BULK_MIN
from rgpu.protocol.generated.envelope import BULK_CHANNEL, MalformedMessage, read_sealed, write_sealed

from . import session_ports

KEY_BYTES = 32
TAG_BYTES = 32       # crypto_aead_aegis256_ABYTES
TO_WORKER, TO_CLIENT = 0, 1
WAIT_S = 20.0        # how long a sealed frame may lag its message where no housekeeping judges the client
HELLO_WAIT_S = 5.0   # how long the client's hello may lag the first frame the worker would seal
SEND_TRY_MS = 1000   # how long one try to send a frame the client does not take waits


class BulkBroken(Exception):
    """The client's own connection sent a frame that does not open, or none came: the session ends."""


_CDEF = """
int sodium_init(void);
int crypto_aead_aegis256_encrypt_detached(unsigned char *c, unsigned char *mac, unsigned long long *maclen_p,
    const unsigned char *m, unsigned long long mlen, const unsigned char *ad, unsigned long long adlen,
    const unsigned char *nsec, const unsigned char *npub, const unsigned char *k);
int crypto_aead_aegis256_decrypt_detached(unsigned char *m, unsigned char *nsec, const unsigned char *c,
    unsigned long long clen, const unsigned char *mac, const unsigned char *ad, unsigned long long adlen,
    const unsigned char *npub, const unsigned char *k);
"""
_lib = None
_why_not = None


def _candidates() -> list[str]:
    """pyzmq's wheel carries the libsodium its libzmq uses (1.0.22 in pyzmq 27): first; then the system's."""
    out = []
    try:
        here = os.path.dirname(os.path.dirname(zmq.__file__))
        out += sorted(glob.glob(os.path.join(here, "pyzmq.libs", "libsodium*.so*")))
    except (AttributeError, TypeError):
        pass
    found = ctypes.util.find_library("sodium")
    if found:
        out.append(found)
    return out


def sodium():
    """(ffi, lib) of a libsodium with AEGIS-256, or None (why: `why_not()`)."""
    global _lib, _why_not
    if _lib is not None or _why_not is not None:
        return _lib
    import cffi
    ffi = cffi.FFI()
    ffi.cdef(_CDEF)
    for path in _candidates():
        try:
            lib = ffi.dlopen(path)
            lib.crypto_aead_aegis256_encrypt_detached  # noqa: B018 (libsodium < 1.0.19 has no AEGIS)
        except (OSError, AttributeError):
            continue
        if lib.sodium_init() < 0:
            continue
        _lib = (ffi, lib)
        return _lib
    _why_not = "no libsodium with AEGIS-256 (1.0.19 or later) here"
    return None


def why_not() -> str | None:
    sodium()
    return _why_not


def nonce(channel: bytes, direction: int, counter: int) -> bytes:
    """32 bytes never used twice under one key: the channel's name, the direction, the count."""
    return channel + bytes((direction,)) + counter.to_bytes(8, "little") + bytes(7)


def _nbytes(part) -> int:
    if isinstance(part, zmq.Frame):
        return len(part.buffer)
    return memoryview(part).nbytes


def is_record(part, channel: bytes) -> bool:
    """Whether a frame of the client's message is a `sealed` record naming `channel` (the bulk channel's
    or the data stream's, server/data_stream.py): at most BULK_HEAD_MAX bytes, the name past its first byte."""
    if isinstance(part, zmq.Frame):
        part = part.buffer
    return len(part) <= BULK_HEAD_MAX and bytes(part).find(channel) > 0


def client_record(part, channel: bytes, kind: str):
    """(its bytes, the record) of a `sealed` record from the client naming `channel`; BulkBroken when it
    is malformed or names another channel or direction. `kind` names the frame in the reason."""
    head = bytes(part.buffer if isinstance(part, zmq.Frame) else part)
    try:
        rec = read_sealed(msgpack.unpackb(head))
    except (MalformedMessage, ValueError, msgpack.ExtraData) as e:
        raise BulkBroken(f"a {kind} frame's record is malformed: {e}") from None
    if rec.channel != channel or rec.dir != TO_WORKER:
        raise BulkBroken(f"a {kind} frame's record names another channel or direction")
    return head, rec


class SealingSocket(zmq.Socket):
    """The worker's ROUTER: a message to the session's client (`bulk_for`) sends its large frames on
    the bulk channel once one is open, each replaced by its `sealed` record."""
    bulk = None
    bulk_for = None

    def send_multipart(self, msg_parts, flags=0, copy=True, track=False, **kwargs):
        bulk = self.bulk
        if bulk is not None and len(msg_parts) > 2 and msg_parts[0] == self.bulk_for:
            large = [_nbytes(p) >= bulk.min_frame for p in msg_parts[2:]]
            if bulk.streams:  # a plain wire's data stream (server/data_stream.py): the data after the message
                if any(large) and bulk.takes(msg_parts[1]) and bulk.knows_peer():
                    parts, datas = [msg_parts[0], msg_parts[1]], []
                    for p, big in zip(msg_parts[2:], large):
                        if big:
                            head, data = bulk.record(p)
                            parts.append(head)
                            datas.append(data)
                        else:
                            parts.append(p)
                    out = super().send_multipart(parts, flags=flags, copy=copy, track=track, **kwargs)
                    bulk.write(datas)
                    return out
            elif any(large) and bulk.knows_peer():  # (only a large frame waits for the client's hello)
                msg_parts = [msg_parts[0], msg_parts[1],
                             *(bulk.seal_or_keep(p) if big else p for p, big in zip(msg_parts[2:], large))]
        return super().send_multipart(msg_parts, flags=flags, copy=copy, track=track, **kwargs)


class BulkChannel:
    """The worker's end of one session's bulk channel: a ROUTER bound beside its session socket."""
    streams = False  # its frames are sealed messages of their own (server/data_stream.py's are not)
    tick = None      # the session's housekeeping (the worker sets it at attach): raises what ends it
    min_frame = BULK_MIN

    def __init__(self, ctx, bind_url: str, ports, key: bytes, channel: bytes, max_frame: int):
        self.ffi, self.lib = sodium()
        self.key, self.channel = bytes(key), bytes(channel)
        self.sock = ctx.socket(zmq.ROUTER)
        # Admitted at the handshake (the worker's ZAP handler, server/worker.py Admission): ZeroMQ's
        # PLAIN mechanism, whose password is the channel's name (password()), from the client's
        # address. PLAIN sends it in the clear: a stranger who can read the path can connect (and
        # could read the name off the sealed frames' heads anyway), but still cannot seal a frame
        # the worker takes; one who cannot is refused before a byte of theirs is queued.
        self.sock.plain_server = True
        self.sock.zap_domain = b"rgpu"
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.setsockopt(zmq.MAXMSGSIZE, max_frame + TAG_BYTES)
        self.sock.setsockopt(zmq.ROUTER_MANDATORY, 1)
        # a client that stops reading holds the worker's sends, which run its housekeeping between tries
        self.sock.setsockopt(zmq.SNDHWM, 16)
        self.sock.setsockopt(zmq.SNDTIMEO, SEND_TRY_MS)
        self.sock.setsockopt(zmq.RCVHWM, 64)  # frames ahead of their messages: TCP holds the rest back
        self.endpoint = session_ports.bind(self.sock, bind_url, ports)
        if self.endpoint is None:
            self.sock.close(0)
            raise OSError("no free port for the bulk channel")
        self.port = int(self.endpoint.rsplit(":", 1)[1])
        self.peer = None      # the client's connection, once a frame of its opened under the key
        self.hello_missed = False
        self.send_failed = None  # why the channel stopped taking the worker's frames
        self.sent = 0         # sealed frames sent to the client (their nonces' count)
        self.bytes_in = self.bytes_out = self.frames_in = self.frames_out = self.dropped = 0

    def close(self) -> None:
        self.sock.close(0)

    # -- the client to the worker ------------------------------------------------------------------
    def placeholder(self, part) -> bool:
        """Whether a frame of the client's message is a `sealed` record of this channel."""
        return is_record(part, self.channel)

    def open_parts(self, body: list) -> list:
        """The client's message with each `sealed` record after its head replaced by the data it
        stands for, taken from the channel (BulkBroken when that cannot be done). Its `tick`, called about
        every second while a frame is awaited, raises what ends the session meanwhile (its client
        gone, its lease ended: the worker's housekeeping)."""
        sealed = [self.placeholder(p) for p in body[1:]]
        if not any(sealed):
            return body
        return [body[0], *(self.take(p) if s else p for p, s in zip(body[1:], sealed))]

    def take(self, part):
        """The frame `part` names. With the channel's `tick` (the session's housekeeping), awaited for as long as that
        keeps the session: a program stopped (Ctrl-Z) in the middle of sending it sends nothing while
        its host answers for it (server/liveness.py); without, WAIT_S at most."""
        head, rec = client_record(part, self.channel, "sealed")
        deadline = None if self.tick is not None else time.monotonic() + WAIT_S
        while True:
            left = 1.0 if deadline is None else deadline - time.monotonic()
            if left <= 0:
                raise BulkBroken(f"a sealed frame of {rec.length} bytes did not come on the bulk channel "
                                 f"within {WAIT_S:.0f} s")
            if not self.sock.poll(int(min(left, 1.0) * 1000) + 1):
                if self.tick is not None:
                    self.tick()
                continue
            parts = self.sock.recv_multipart(copy=False)
            ident = parts[0].bytes
            if len(parts) != 3 or (self.peer is not None and ident != self.peer):
                self.dropped += 1
                continue
            got_head = parts[1].bytes
            if self.peer is not None and got_head == head and len(parts[2]) == rec.length + TAG_BYTES:
                # the client's own connection, the frame named: opened where its data goes (Sealed)
                self.frames_in += 1
                self.bytes_in += rec.length
                return Sealed(self, head, rec.counter, rec.length, parts[2])
            got, data = self._check(got_head, parts[2].buffer)
            if got is None:
                if self.peer is None:
                    self.dropped += 1  # not sealed under the key: a stranger's
                    continue
                raise BulkBroken(data)
            self.peer = ident
            if got.length == 0 and got.counter == 0:
                continue  # the client's hello: its connection is known now
            if got_head != head:
                raise BulkBroken(f"the bulk channel sent frame {got.counter} where the message named {rec.counter}")
            self.frames_in += 1
            self.bytes_in += len(data)
            return _Opened(data)

    def _check(self, head: bytes, sealed):
        """(record, data) of a frame sealed to the worker under the key, or (None, why it is not)."""
        try:
            got = read_sealed(msgpack.unpackb(head))
        except (MalformedMessage, ValueError, msgpack.ExtraData):
            got = None
        if got is None or got.channel != self.channel or got.dir != TO_WORKER or len(sealed) != got.length + TAG_BYTES:
            return None, "the bulk channel sent a frame that is not a sealed one"
        data = self._open(head, got, sealed)
        if data is None:
            return None, "a frame on the bulk channel did not open under the session's key"
        return got, data

    def _open(self, head: bytes, rec, sealed):
        out = np.empty(rec.length, np.uint8)  # not zeroed: all of it is written (bytearray's memset cost 2% of a copy)
        return out if self.open_into(head, rec.counter, sealed, out) else None

    def open_into(self, head: bytes, counter: int, sealed, out) -> bool:
        """Opens the client's frame `counter` (its record `head`; data and tag in `sealed`) into `out`,
        a writable buffer of its length; False (and `out` cleared) when it does not open."""
        ffi, lib = self.ffi, self.lib
        n = len(sealed) - TAG_BYTES
        src = ffi.from_buffer(sealed)
        return lib.crypto_aead_aegis256_decrypt_detached(
            ffi.from_buffer(out, require_writable=True) if n else ffi.NULL, ffi.NULL, src, n, src + n, head,
            len(head), nonce(self.channel, TO_WORKER, counter), self.key) == 0

    # -- the worker to the client ------------------------------------------------------------------
    def knows_peer(self) -> bool:
        """Whether the client's connection is known, to send to it: its hello (sent right after the
        attach's reply, on another connection than the calls) is looked for the first time a frame is
        to be sealed before the client sent one, for HELLO_WAIT_S at most; none by then, the frames
        go on the session's socket (the client takes either)."""
        if self.peer is None and not self.hello_missed:
            deadline = time.monotonic() + HELLO_WAIT_S
            while self.peer is None and time.monotonic() < deadline:
                if not self.sock.poll(int(max(0.0, deadline - time.monotonic()) * 1000) + 1):
                    break
                ident, *rest = self.sock.recv_multipart()
                got = self._check(*rest)[0] if len(rest) == 2 else None
                if got is not None and got.counter == 0 and got.length == 0:  # the hello
                    self.peer = ident
                else:
                    self.dropped += 1
            self.hello_missed = self.peer is None
        return self.peer is not None

    def seal_or_keep(self, part):
        """The frame's `sealed` record, its data sent on the channel; or the frame itself, to go on
        the session's socket, once the channel cannot take it (the client's connection to it gone; or
        not reading for WAIT_S where no housekeeping judges the client): the client takes either."""
        try:
            return self.seal(part)
        except zmq.ZMQError as e:
            self.peer, self.hello_missed, self.send_failed = None, True, str(e)
            return part

    def seal(self, part) -> bytes:
        """Sends one frame's data sealed on the channel; returns the `sealed` record that stands for it
        in the control message (the channel's frame goes first: the client finds it waiting)."""
        data = part.buffer if isinstance(part, zmq.Frame) else memoryview(part).cast("B")
        n = len(data)
        self.sent += 1
        head = msgpack.packb(write_sealed((self.channel, TO_CLIENT, self.sent, n)), use_bin_type=True)
        out = np.empty(n + TAG_BYTES, np.uint8)
        ffi, lib = self.ffi, self.lib
        dst = ffi.from_buffer(out)
        lib.crypto_aead_aegis256_encrypt_detached(dst, dst + n, ffi.NULL, ffi.from_buffer(data), n, head,
                                                  len(head), ffi.NULL, nonce(self.channel, TO_CLIENT, self.sent),
                                                  self.key)
        waited = 0.0
        while True:
            try:  # (a ROUTER refuses at a message's first frame: a try that timed out sent nothing)
                self.sock.send_multipart([self.peer, head, out], copy=False)
                break
            except zmq.Again:
                # the client takes none of it: a program stopped (Ctrl-Z) is waited for while the
                # session's housekeeping keeps the session (its host answers for it); without it, WAIT_S
                waited += SEND_TRY_MS / 1000
                if self.tick is not None:
                    self.tick()
                elif waited >= WAIT_S:
                    raise
        self.frames_out += 1
        self.bytes_out += n
        return head

    def stats(self) -> dict:
        return {"bulk_bytes_in": self.bytes_in, "bulk_bytes_out": self.bytes_out,
                "bulk_frames_in": self.frames_in, "bulk_frames_out": self.frames_out,
                "bulk_dropped": self.dropped, **({"bulk_send_failed": self.send_failed} if self.send_failed else {})}


class _Opened:
    """A data frame taken from the bulk channel, opened, where the message's frames are zmq.Frames."""
    __slots__ = ("buffer",)
    more = False

    def __init__(self, data):
        self.buffer = memoryview(data)

    def __len__(self) -> int:
        return len(self.buffer)

    @property
    def bytes(self) -> bytes:
        return bytes(self.buffer)


class Sealed:
    """A data frame of the client's own connection, the one its message named, still sealed: opened
    where it is used, so that an H2D copy's data is written once, by the cipher, into device memory
    (`open_into`, which the software GPU's memory calls) instead of into a buffer copied there after;
    `buffer` opens it into one of its own for every other use. A frame that does not open then raises
    BulkBroken, which ends the session as at its arrival (libsodium clears what it wrote)."""
    __slots__ = ("_channel", "_head", "_counter", "_n", "_frame", "_buffer")
    more = False

    def __init__(self, channel: BulkChannel, head: bytes, counter: int, n: int, frame):
        self._channel, self._head, self._counter, self._n, self._frame = channel, head, counter, n, frame
        self._buffer = None

    def __len__(self) -> int:
        return self._n

    def open_into(self, out) -> None:
        if not self._channel.open_into(self._head, self._counter, self._frame.buffer, out):
            raise BulkBroken("a frame on the bulk channel did not open under the session's key")

    @property
    def buffer(self) -> memoryview:
        if self._buffer is None:
            out = np.empty(self._n, np.uint8)
            self.open_into(out)
            self._buffer = memoryview(out)
        return self._buffer

    @property
    def bytes(self) -> bytes:
        return bytes(self.buffer)


def password(channel: bytes) -> bytes:
    """The PLAIN password the client connects to the channel with: its name, in hex."""
    return channel.hex().encode()


def offer_ok(offer) -> bool:
    """Whether an attach's bulk offer is [key (32 bytes), channel name (16 bytes)]."""
    return isinstance(offer, (list, tuple)) and len(offer) == 2 and isinstance(offer[0], bytes) \
        and len(offer[0]) == KEY_BYTES and isinstance(offer[1], bytes) and len(offer[1]) == BULK_CHANNEL
