"""Requests written into a call ring's request area as libhook's ring.c writes them (ring.h: a record's
length, flags and the socket messages sent before it, then the message padded to 8 bytes; a wrap
marker where a record would run past the area's end), or as a broken client would, for the tests of
the worker's end."""
from __future__ import annotations

import struct

from rgpu.protocol.generated.constants import RING_ASYNC as ASYNC
from rgpu.protocol.generated.constants import RING_FRAMES as FRAMES  # data frames after the head
from rgpu.protocol.generated.constants import RING_WRAP as WRAP

MAGIC = 0x34474E52  # "RNG4" (ring.h RGPU_RING_MAGIC): 1 MiB of request records holding data frames too
RECORD = struct.Struct("<IIQ")


def _pad8(b: bytes) -> bytes:
    return b + bytes(-len(b) % 8)


def with_frames(head: bytes, frames: list[bytes], *, nframes: int | None = None, head_len: int | None = None,
                lengths: list[int] | None = None) -> bytes:
    """A record's body holding `head` and its data `frames` as ring.c writes it (the head padded to 8,
    each frame's length and its data padded to 8, then the head's length and the frames' number), or
    with the table's `nframes`, `head_len` or frame `lengths` a broken client's lie."""
    body = _pad8(head)
    for i, f in enumerate(frames):
        body += struct.pack("<Q", len(f) if lengths is None else lengths[i]) + _pad8(f)
    return body + struct.pack("<II", len(head) if head_len is None else head_len,
                              len(frames) if nframes is None else nframes)


def append(mm, off: int, lay: dict, payload: bytes, *, length: int | None = None, async_: bool = False,
           sock_before: int | None = None, frames: bool = False) -> None:
    """Appends `payload` to the ring at `off` of mapping `mm` (`lay`: ring.layout()): its record says
    `length` bytes if given (a lie a broken client tells), no reply wanted with `async_`, data frames
    after its head with `frames` (payload: with_frames), and `sock_before` socket messages sent before
    it (default: as many as the header says were sent)."""
    u64 = struct.Struct("<Q")
    tail = u64.unpack_from(mm, off + lay["req_tail"])[0]
    head = u64.unpack_from(mm, off + lay["req_head"])[0]
    cap, area = lay["request_size"], off + lay["request"]
    size = RECORD.size + (len(payload) + 7) // 8 * 8
    at = tail % cap
    skip = cap - at if at + size > cap else 0
    assert tail - head + skip + size <= cap, "no room in the ring: the worker has not taken what is there"
    if skip:
        struct.pack_into("<I", mm, area + at, WRAP)
        at = 0
    if sock_before is None:
        sock_before = u64.unpack_from(mm, off + lay["sock_sent"])[0]
    RECORD.pack_into(mm, area + at, len(payload) if length is None else length,
                     (ASYNC if async_ else 0) | (FRAMES if frames else 0), sock_before)
    mm[area + at + RECORD.size:area + at + RECORD.size + len(payload)] = payload
    u64.pack_into(mm, off + lay["req_tail"], tail + skip + size)
