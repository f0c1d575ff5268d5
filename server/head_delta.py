"""Message heads that come as their differences from an earlier head: the worker's end of
libhook/src/transport/head_delta.c, which says why (a training loop sends nearly the same head every
step, most of a step's bytes across hosts).

A client whose worker does not share its memory may send a head of HEAD_DELTA_MIN to HEAD_DELTA_MAX
bytes as a message whose first frame is empty, whose second is a `head_delta` record (envelope.toml:
the head's length and its base's first 16 bytes) and whose third is the differences (a bitmap of the
head's 32-byte blocks that differ from the base, then those blocks: libhook/src/transport/log_delta.h).
Both ends keep the last head of each of the HEAD_DELTA_SLOTS lengths in that range used most recently,
every one sent or received on the session's socket after the attach, in its order, by the same rule
(`HeadTable.slot_for`, head_delta.c's `slot_for`). A delta whose base is not the one in its slot, or
whose differences do not fit its length, is a malformed message: it runs nothing, and the session
ends (its later messages would lean on the head it lost)."""
from __future__ import annotations

import sys

import cffi
import numpy as np
import zmq

from rgpu.protocol import wire
from rgpu.protocol.generated.constants import HEAD_DELTA_MAX, HEAD_DELTA_MIN, HEAD_DELTA_SLOTS
from rgpu.protocol.generated.envelope import MalformedMessage, read_head_delta

from .ring import RingFrame

BLOCK = 32  # log_delta.h's RGPU_DELTA_BLOCK

ffi = cffi.FFI()
ffi.cdef("""
void rgpu_delta_apply(const uint8_t *key, const uint8_t *delta, size_t len, uint8_t *out);
void *rgpu_heads_new(void);
void rgpu_heads_free(void *h);
void rgpu_heads_keep(void *h, const unsigned char *head, uint64_t len);
const char *rgpu_heads_apply(void *h, const unsigned char *rec, size_t rec_len, const unsigned char *delta,
                             size_t dlen, uint64_t *len, const char **why);
uint64_t rgpu_heads_slot(const void *h, int i, const unsigned char **base, uint64_t *used);
void rgpu_heads_counts(const void *h, uint64_t *deltas, uint64_t *bytes_saved);
""")
_lib = None
_looked = False


def _native():
    """librgpu_launches.so's rgpu_delta_apply (the client's own log_delta.c), or None where that
    library is not built: numpy does it then."""
    global _lib, _looked
    if not _looked:
        _looked = True
        from rgpu.paths import open_native
        _lib, _ = open_native(ffi, "librgpu_launches.so", "rgpu_delta_apply")
    return _lib


def _bytes(part) -> memoryview:
    return memoryview(part.buffer if hasattr(part, "buffer") else part).cast("B")


def apply(base, delta, length: int, out: bytearray | None = None) -> bytearray:
    """The head: `base` (`length` bytes) with the delta's blocks laid over it, into `out` (a new buffer
    when None), the delta checked whole first (its bitmap within the head's blocks, its blocks exactly
    those the bitmap names)."""
    blocks = -(-length // BLOCK)
    bitmap = (blocks + 7) // 8
    delta = _bytes(delta)
    if len(base) != length or len(delta) < bitmap:
        raise MalformedMessage("head_delta: the differences are shorter than their bitmap")
    bits = int.from_bytes(delta[:bitmap], "little")
    if bits >> blocks:
        raise MalformedMessage("head_delta: the bitmap names blocks past the head's end")
    tail = length % BLOCK
    short = bool(tail) and (bits >> (blocks - 1)) & 1
    need = bits.bit_count() * BLOCK - (BLOCK - tail if short else 0)
    if len(delta) - bitmap != need:
        raise MalformedMessage(f"head_delta: {len(delta) - bitmap} bytes of blocks where the bitmap names {need}")
    out = bytearray(length) if out is None else out
    lib = _native()
    if lib is not None:
        lib.rgpu_delta_apply(ffi.from_buffer(base), ffi.from_buffer(delta), length, ffi.from_buffer(out))
        return out
    o = np.frombuffer(out, np.uint8)
    o[:] = np.frombuffer(base, np.uint8)
    changed = np.flatnonzero(np.unpackbits(np.frombuffer(delta, np.uint8, bitmap), bitorder="little")[:blocks])
    whole = changed[:-1] if short else changed
    data = np.frombuffer(delta, np.uint8)[bitmap:]
    if len(whole):
        o[:(length // BLOCK) * BLOCK].reshape(-1, BLOCK)[whole] = data[:len(whole) * BLOCK].reshape(-1, BLOCK)
    if short:
        o[length - tail:] = data[len(whole) * BLOCK:]
    return out


def _spare(pool: list, length: int) -> bytearray:
    """A buffer of `length` bytes that nothing but the pool holds (a head made whole goes to the serving
    paths as a frame of it, and is the slot's base after: the last two stay held), else a new one. A
    head of 200 KB in memory new to the process cost 50-60 us of page faults a message here, three
    times the delta's own work."""
    for buf in pool:
        if len(buf) == length and sys.getrefcount(buf) == 3:  # the pool's, the loop's, the call's
            return buf
    buf = bytearray(length)
    pool.append(buf)
    if len(pool) > 3:
        pool.pop(0)
    return buf


def HeadTable():
    """One session's table of bases: librgpu_launches.so's (server/native/heads.c), which the serving
    loop's socket door (sock_serve.c) takes heads into as well, or where that library is not built (nor
    then the door), this module's own."""
    lib = _native()
    if lib is not None:
        try:
            lib.rgpu_heads_new
        except AttributeError:  # an older build
            return PyHeadTable()
        return NativeHeadTable(lib)
    return PyHeadTable()


class NativeHeadTable:
    """One session's bases, in C (server/native/heads.c): the same table for Python's receives and the
    socket door's."""

    def __init__(self, lib):
        self._lib = lib
        self._h = ffi.gc(lib.rgpu_heads_new(), lib.rgpu_heads_free)
        self._len, self._why = ffi.new("uint64_t *"), ffi.new("const char **")

    @property
    def address(self) -> int:
        """The table's address, for the socket door (sock_loop.py)."""
        return int(ffi.cast("uintptr_t", self._h))

    def take(self, body: list) -> list:
        """As PyHeadTable.take: a delta's three frames made the head they stand for (a frame of its own
        bytes), a head of a length the table keeps kept as its slot's base."""
        head = _bytes(body[0]) if body else None
        if head is not None and len(head) == 0:
            if len(body) < 3:
                raise MalformedMessage("head_delta: an empty first frame without a record and differences")
            rec, delta = _bytes(body[1]), _bytes(body[2])
            p = self._lib.rgpu_heads_apply(self._h, ffi.from_buffer(rec), len(rec), ffi.from_buffer(delta), len(delta),
                                           self._len, self._why)
            if p == ffi.NULL:
                raise MalformedMessage(ffi.string(self._why[0]).decode())
            return [RingFrame(ffi.unpack(p, self._len[0])), *body[3:]]  # copied: the base is the table's
        if head is not None and HEAD_DELTA_MIN <= len(head) <= HEAD_DELTA_MAX:
            self._lib.rgpu_heads_keep(self._h, ffi.from_buffer(head), len(head))
        return body

    def _slots(self):
        base, used = ffi.new("const unsigned char **"), ffi.new("uint64_t *")
        for i in range(HEAD_DELTA_SLOTS):
            n = self._lib.rgpu_heads_slot(self._h, i, base, used)
            yield int(n), (ffi.unpack(ffi.cast("char *", base[0]), n) if base[0] != ffi.NULL else None), int(used[0])

    @property
    def lengths(self) -> list[int]:
        return [n for n, _, _ in self._slots()]

    @property
    def slots(self) -> list[bytes | None]:
        return [b for _, b, _ in self._slots()]

    @property
    def used(self) -> list[int]:
        return [u for _, _, u in self._slots()]

    def _counts(self) -> tuple[int, int]:
        d, b = ffi.new("uint64_t *"), ffi.new("uint64_t *")
        self._lib.rgpu_heads_counts(self._h, d, b)
        return int(d[0]), int(b[0])

    @property
    def deltas(self) -> int:
        return self._counts()[0]

    @property
    def bytes_saved(self) -> int:
        return self._counts()[1]


class PyHeadTable:
    """One session's bases, as the client keeps them, in Python (where librgpu_launches.so is not built)."""

    def __init__(self) -> None:
        self.slots: list[memoryview | None] = [None] * HEAD_DELTA_SLOTS
        self.lengths = [0] * HEAD_DELTA_SLOTS  # what the client's slots hold (0: nothing yet)
        self.used = [0] * HEAD_DELTA_SLOTS
        self.clock = 0
        self.pools: list[list] = [[] for _ in range(HEAD_DELTA_SLOTS)]
        self.deltas = 0        # messages whose head came as a delta
        self.bytes_saved = 0   # the heads' bytes less the deltas' (the record and the differences)

    def slot_for(self, length: int) -> int:
        """The slot of a head of `length` bytes, as the client chooses it: the one that holds that
        length, else the one used least recently (an empty one first), which takes the length (its
        base gone). Marked used now."""
        if length in self.lengths:
            slot = self.lengths.index(length)
        else:
            slot = min(range(HEAD_DELTA_SLOTS), key=self.used.__getitem__)  # the first of equals, as in C
            self.lengths[slot], self.slots[slot] = length, None
        self.clock += 1
        self.used[slot] = self.clock
        return slot

    def take(self, body: list) -> list:
        """The message with its head whole: a delta's three frames made the head they stand for; a head
        of a length the table keeps kept as its slot's base (a view of its frame, which nothing writes)."""
        head = _bytes(body[0]) if body else None
        if head is not None and len(head) == 0:
            if len(body) < 3:
                raise MalformedMessage("head_delta: an empty first frame without a record and differences")
            rec = read_head_delta(wire.unpack(bytes(_bytes(body[1]))))
            if not HEAD_DELTA_MIN <= rec.length <= HEAD_DELTA_MAX:
                raise MalformedMessage(f"head_delta: a head of {rec.length} bytes is not sent as a delta")
            slot = self.lengths.index(rec.length) if rec.length in self.lengths else None
            base = self.slots[slot] if slot is not None else None
            if base is None or len(base) != rec.length or base[:len(rec.base)] != rec.base:
                raise MalformedMessage("head_delta: its base is not the head this worker kept for its length")
            delta = _bytes(body[2])
            whole = apply(base, delta, rec.length, _spare(self.pools[slot], rec.length))
            self.deltas += 1
            self.bytes_saved += rec.length - len(delta) - len(_bytes(body[1]))
            self.slot_for(rec.length)  # marked used only once made whole: a refused delta changes nothing
            self.slots[slot] = memoryview(whole)  # held: _spare passes it by
            return [zmq.Frame(whole), *body[3:]]  # a frame, as the socket's: the serving paths read .buffer
        if head is not None and HEAD_DELTA_MIN <= len(head) <= HEAD_DELTA_MAX:
            self.slots[self.slot_for(len(head))] = head
        return body
