"""The worker's end of the call ring (server/ring.py over server/native/ring.c) on a segment of this
process's own, the client's part written here as libhook's ring.c writes it (or as a broken client
would): what the wait reports, what goes back on the ring and what on the socket."""
from __future__ import annotations

import ctypes
import mmap
import random
import struct

import pytest

from rgpu.protocol.generated.constants import SHM_DATA
from rgpu.server import ring as ring_mod
from rgpu.server.ring import IDLE, RING, SOCKET, CallRing, RingBroken
from tests.support import ring_records

DATA = 1 << 16


class Seg:
    """What CallRing needs of shm.Segment: the mapping, its address, its size."""

    def __init__(self, size: int):
        self._mm = mmap.mmap(-1, size)
        self.addr = ctypes.addressof(ctypes.c_char.from_buffer(self._mm))
        self.size = size


class Sock:
    def __init__(self):
        self.sent = []

    def send_multipart(self, parts, flags=0, copy=True):
        self.sent.append(list(parts))


@pytest.fixture
def ring():
    lay = ring_mod.layout()
    seg = Seg(SHM_DATA + DATA + lay["size"])
    r, why = CallRing.attach(seg, {"ring": SHM_DATA + DATA})
    assert r is not None, why
    assert seg.size == SHM_DATA + DATA  # data regions end where the ring begins
    r.seg, r.lay = seg, lay
    return r


def _get(r, field):
    return struct.unpack_from("<I", r.seg._mm, r.offset + r.lay[field])[0]


def _put(r, field, value, fmt="<I"):
    struct.pack_into(fmt, r.seg._mm, r.offset + r.lay[field], value)


def _request(r, data: bytes, length: int | None = None, **kw):
    ring_records.append(r.seg._mm, r.offset, r.lay, data, length=length, **kw)
    _put(r, "doorbell", _get(r, "doorbell") + 1)


def test_the_worker_serves_the_ring_it_accepted(ring):
    assert _get(ring, "magic") == ring_records.MAGIC


@pytest.mark.parametrize("offer", [{}, {"ring": 4096 + 1}, {"ring": "x"}, {"ring": 0}, {"ring": SHM_DATA}])
def test_a_ring_offer_that_does_not_fit_the_segment_is_declined(offer):
    seg = Seg(SHM_DATA + DATA + ring_mod.layout()["size"])
    r, why = CallRing.attach(seg, offer)
    assert r is None and why
    assert seg.size == SHM_DATA + DATA + ring_mod.layout()["size"]


def test_next_reports_a_request_a_socket_message_due_and_nothing(ring):
    assert ring.next(0.0, 0.01) == (IDLE, None)
    _request(ring, b"\x91\x95\x01\x02\x01\x90\x00")
    got, body = ring.next(0.0, 1.0)
    assert got == RING and bytes(body[0]) == b"\x91\x95\x01\x02\x01\x90\x00" and body[0].more is False
    assert body[0].buffer.tobytes() == bytes(body[0])
    assert ring.next(0.0, 0.01) == (IDLE, None)  # taken once
    _put(ring, "sock_sent", 1, "<Q")
    assert ring.next(0.0, 0.01) == (SOCKET, None)  # socket messages first, in order
    ring.sock_received = 1
    assert ring.next(0.0, 0.01) == (IDLE, None)


def test_a_record_longer_than_its_slot_is_refused_not_read(ring):
    _request(ring, b"\x91", length=0xFFFFFFF0)
    with pytest.raises(RingBroken, match="wrote over the ring"):
        ring.next(0.0, 1.0)


def test_replies_of_one_frame_go_on_the_ring_the_rest_on_the_socket_once_said(ring):
    sock = Sock()
    out = ring.replies(sock)
    seq = _get(ring, "rep_seq")
    out.send(b"peer", 2)
    out.send(b"reply-1")
    assert _get(ring, "rep_seq") == seq + 1 and _get(ring, "rep_len") == 7 and not sock.sent
    rep = ring.offset + ring.lay["size"] - (64 << 10)
    assert ring.seg._mm[rep:rep + 7] == b"reply-1"
    out = ring.replies(sock)  # the next message
    out.send_multipart([b"peer", b"head", b"bulk"])
    assert sock.sent == [[b"peer", b"head", b"bulk"]]
    assert _get(ring, "rep_seq") == seq + 2 and _get(ring, "rep_len") == 0xFFFFFFFF  # "on the socket"
    out.send_multipart([b"peer", b"small"])  # after that, the message's replies follow it there
    assert sock.sent[-1] == [b"peer", b"small"] and _get(ring, "rep_seq") == seq + 2
    out = ring.replies(sock)
    out.send_multipart([b"peer", b"x" * ((64 << 10) + 1)])  # larger than the slot
    assert sock.sent[-1][1] == b"x" * ((64 << 10) + 1) and _get(ring, "rep_len") == 0xFFFFFFFF


# The worker's spin after a message adapts to the client's recent gaps (server/native/ring.c
# rgpu_ring_spin_for, rgpu_ring_gap_after): the figures below are that policy's, for --spin-us 200.
BASE = 200e-6


def test_the_spin_stretches_to_twice_the_client_s_recent_gap_within_eight_times_the_base():
    spin_for = ring_mod.library().rgpu_ring_spin_for
    assert spin_for(BASE, 0.0) == BASE  # no gap seen: the base
    assert spin_for(BASE, 50e-6) == BASE  # gaps shorter than the base never shorten it
    assert spin_for(BASE, 400e-6) == pytest.approx(800e-6)
    assert spin_for(BASE, 1e-3) == pytest.approx(8 * BASE)  # at most eight times the base
    assert spin_for(BASE, 8 * BASE) == pytest.approx(8 * BASE)
    # gaps longer than the longest spin cannot be caught spinning: the base, not 1.6 ms for nothing
    assert spin_for(BASE, 2e-3) == BASE
    assert spin_for(0.0, 400e-6) == 0.0  # --spin-us 0: the worker never spins


def test_the_recent_gap_follows_regular_gaps_and_one_long_pause_does_not_undo_it():
    lib = ring_mod.library()
    gap = 0.0
    for _ in range(40):
        gap = lib.rgpu_ring_gap_after(gap, 500e-6, BASE)
    assert gap == pytest.approx(500e-6, rel=0.01)
    assert lib.rgpu_ring_spin_for(BASE, gap) == pytest.approx(1e-3, rel=0.01)
    paused = lib.rgpu_ring_gap_after(gap, 10.0, BASE)  # one ten-second pause, clipped at 3.2 ms
    assert paused == pytest.approx(500e-6 + (3.2e-3 - 500e-6) / 8, rel=1e-6)
    assert lib.rgpu_ring_spin_for(BASE, paused) > BASE  # still spinning for the steps around it
    for _ in range(40):  # pauses are now the rule: spinning longer would catch nothing
        paused = lib.rgpu_ring_gap_after(paused, 10.0, BASE)
    assert lib.rgpu_ring_spin_for(BASE, paused) == BASE


def test_the_ring_learns_its_client_s_gaps_from_the_waits_after_messages(ring):
    """A wait after a message (spin_s > 0) that found nothing within its timeout counts a gap of at
    least that timeout; a wait with no spin (the first, or after an idle timeout) teaches nothing."""
    lib = ring_mod.library()
    ring.next(0.0, 0.001)  # this ring's
    before = lib.rgpu_ring_gap_recent()
    for _ in range(3):
        assert ring.next(0.0, 0.002) == (IDLE, None)
    assert lib.rgpu_ring_gap_recent() == before
    assert ring.next(BASE, 0.002) == (IDLE, None)
    learned = lib.rgpu_ring_gap_after(before, 0.002, BASE)
    assert learned > 0 and lib.rgpu_ring_gap_recent() == pytest.approx(learned)
    _request(ring, b"\x91\x95\x01\x02\x01\x90\x00")
    got, _ = ring.next(BASE, 1.0)  # already there: a gap of next to nothing
    assert got == RING
    assert lib.rgpu_ring_gap_recent() < learned


def _get64(r, field):
    return struct.unpack_from("<Q", r.seg._mm, r.offset + r.lay[field])[0]


def test_a_request_takes_its_turn_between_the_socket_messages_sent_before_and_after_it(ring):
    _put(ring, "sock_sent", 1, "<Q")
    _request(ring, b"\x91\x95\x02\x02\x00\x90\x00", async_=True, sock_before=1)
    assert ring.next(0.0, 0.01) == (SOCKET, None)  # the one sent before it first
    assert _get64(ring, "req_head") == 0  # not taken: the client may not write over it
    ring.sock_received = 1
    got, body = ring.next(0.0, 1.0)
    assert got == RING and bytes(body[0]) == b"\x91\x95\x02\x02\x00\x90\x00"
    assert _get64(ring, "req_head") == _get64(ring, "req_tail")  # copied out: the client may write there
    _put(ring, "sock_sent", 2, "<Q")  # one more on the socket, after the next request
    _request(ring, b"\x91\x95\x03\x02\x00\x90\x00", async_=True, sock_before=1)
    got, body = ring.next(0.0, 1.0)
    assert got == RING and bytes(body[0]) == b"\x91\x95\x03\x02\x00\x90\x00"  # before the later socket message
    assert ring.next(0.0, 0.01) == (SOCKET, None)


def test_several_async_requests_wait_on_the_ring_and_come_out_in_order_across_its_end(ring):
    """Messages of async calls only need no reply, so the client writes the next before the worker
    took the last: they queue in the request area, and one that would run past its end starts again at
    its beginning (a wrap marker left where it would not fit)."""
    cap = ring.lay["request_size"]
    sent = [bytes([i]) * (cap // 20 + 37 * i) for i in range(40)]  # over twice round the area in all
    taken = []
    for m in sent:
        while True:
            try:
                _request(ring, m, async_=True)
                break
            except AssertionError:  # full: the worker takes the oldest, and the client tries again
                got, body = ring.next(0.0, 1.0)
                assert got == RING and ring.taken_async
                taken.append(bytes(body[0]))
    assert _get64(ring, "req_tail") > 2 * cap
    while (got := ring.next(0.0, 0.01))[0] == RING:
        taken.append(bytes(got[1][0]))
    assert taken == sent


def test_nothing_said_about_an_async_request_goes_on_the_ring(ring):
    """A message of async calls only has no reply waited for on the ring: anything the worker says
    about it (an error it could not defer) goes on the socket, and the ring's reply count, which the
    client matches against its sync requests, does not move."""
    _request(ring, b"\x91\x95\x02\x02\x00\x90\x00", async_=True)
    assert ring.next(0.0, 1.0)[0] == RING and ring.taken_async
    seq, sock = _get(ring, "rep_seq"), Sock()
    out = ring.replies(sock)
    out.send(b"peer", 2)
    out.send(b"notice")
    assert sock.sent == [[b"peer", b"notice"]] and _get(ring, "rep_seq") == seq
    _request(ring, b"\x91\x95\x03\x02\x01\x90\x00")  # a sync one: its reply on the ring again
    assert ring.next(0.0, 1.0)[0] == RING and not ring.taken_async
    ring.replies(sock).send_multipart([b"peer", b"reply"])
    assert _get(ring, "rep_seq") == seq + 1 and len(sock.sent) == 1


@pytest.mark.parametrize("lie", ["socket messages never sent", "a tail past the area", "a tail behind the head",
                                 "a record past the tail", "a record longer than a record holds"])
def test_a_request_that_cannot_be_is_refused_not_followed(ring, lie):
    _put(ring, "sock_sent", 1, "<Q")
    if lie == "socket messages never sent":
        _request(ring, b"\x91", async_=True, sock_before=5)
    elif lie == "a tail past the area":
        _request(ring, b"\x91")
        _put(ring, "req_tail", ring.lay["request_size"] + 64, "<Q")
    elif lie == "a tail behind the head":
        _request(ring, b"\x91", sock_before=0)
        assert ring.next(0.0, 1.0)[0] == RING
        _put(ring, "req_tail", 8, "<Q")
    elif lie == "a record past the tail":
        _request(ring, b"\x91" * 64, sock_before=0)
        _put(ring, "req_tail", 24, "<Q")  # the record says 64 bytes; the tail, 8
    else:  # written whole and within the area, but longer than the worker's copy of a message
        _request(ring, b"\x91" * (ring.lay["record_max"] + 8), sock_before=0)
    with pytest.raises(RingBroken, match="wrote over the ring"):
        ring.next(0.0, 1.0)


def test_a_record_with_data_frames_comes_out_as_its_head_then_its_frames(ring):
    """A message whose data frames travel in its record (ring.h RGPU_RING_FRAMES: an async copy in from
    pageable memory): taken as the socket gives one, its head then each frame, byte for byte, and the
    next record after it."""
    head, frames = b"\x91\x95\x03\x02\x01\x90\x01", [b"abc", b"", bytes(range(256)) * 16, b"x" * 9]
    _request(ring, ring_records.with_frames(head, frames), frames=True)
    _request(ring, b"\x91")
    got, parts = ring.next(0.0, 1.0)
    assert got == RING and [bytes(p) for p in parts] == [head, *frames]
    assert ring.next(0.0, 1.0)[0] == RING and not ring.taken_async


@pytest.mark.parametrize("lie", ["a frame past the record", "more frames than a record holds",
                                 "a head past the record", "bytes left over", "shorter than its table"])
def test_a_frame_table_that_cannot_be_is_refused_not_followed(ring, lie):
    head, frames = b"\x91\x01", [b"a" * 16, b"b" * 5]
    if lie == "a frame past the record":
        body = ring_records.with_frames(head, frames, lengths=[16, 1 << 40])
    elif lie == "more frames than a record holds":
        body = ring_records.with_frames(head, [b""] * 257)
    elif lie == "a head past the record":
        body = ring_records.with_frames(head, frames, head_len=1 << 20)
    elif lie == "bytes left over":
        body = ring_records.with_frames(head, frames, nframes=1)
    else:
        body = b"\x91\x01\x00\x00"
    _request(ring, body, frames=True)
    with pytest.raises(RingBroken, match="frame table that cannot be"):
        ring.next(0.0, 1.0)


def _scribbled(ring, seed: int):
    """500 records with data frames (seeded), a few bytes of each body scribbled over, each written to
    the ring before its body is yielded."""
    rnd = random.Random(seed)
    for _ in range(500):
        frames = [rnd.randbytes(rnd.choice((0, 1, 7, 64, 4096))) for _ in range(rnd.randint(0, 4))]
        body = bytearray(ring_records.with_frames(b"\x91\x01", frames))
        for _ in range(rnd.randint(0, 3)):
            body[rnd.randrange(len(body))] = rnd.randrange(256)
        _request(ring, bytes(body), frames=True)
        yield body


def test_frame_tables_scribbled_over_are_taken_whole_or_refused_never_read_past(ring):
    """A fuzz (seeded): records with data frames, a few bytes of each scribbled over. Each comes out
    with parts inside its record, or is refused (RingBroken); the next record is read where it is."""
    taken = refused = 0
    for body in _scribbled(ring, 38):
        try:
            got, parts = ring.next(0.0, 1.0)
        except RingBroken:
            refused += 1
            continue
        assert got == RING and sum(map(len, parts)) <= len(body), parts
        taken += 1
    assert taken > 100 and refused > 10, (taken, refused)


def _in_place_lib():
    """The compiled loop's door to the ring (server/native/serve.c ring_next), declared here: Python's
    own end never takes a record in place. The same library as the ring's, so the same record held."""
    import cffi

    from rgpu.paths import libdir
    ffi = cffi.FFI()
    ffi.cdef("""
        int rgpu_ring_next_in_place(void *ring, uint64_t sock_received, uint64_t *head, double spin_s,
                                    double timeout_s, uint32_t *len, uint32_t *flags, unsigned char *out);
        const unsigned char *rgpu_ring_held(void);
        void rgpu_ring_settle(void);
        void rgpu_ring_done(void);
        int rgpu_ring_frames(const unsigned char *rec, uint32_t len, uint32_t max, uint32_t *head_len,
                             uint64_t *off, uint64_t *n);
    """)
    return ffi, ffi.dlopen(str(libdir() / "librgpu_launches.so"))


def test_a_record_taken_in_place_keeps_its_frames_in_the_ring_until_the_worker_is_done(ring):
    """The compiled loop takes a record with data frames in place (ring.c held): its head and frame
    table copied into the worker's copy, each frame read where the client wrote it, and the area not
    handed back (req_head) until the loop is done with it. Settled for Python, the copy holds the frames
    too, and what the client writes over the table meanwhile changes nothing the worker reads."""
    ffi, lib = _in_place_lib()
    head, frames = b"\x91\x95\x03\x02\x01\x90\x01", [b"abc", bytes(range(256)) * 16, b"x" * 9]
    body = ring_records.with_frames(head, frames)
    _request(ring, body, frames=True)
    p, taken = ffi.cast("void *", ring.seg.addr + ring.offset), ffi.new("uint64_t *")
    out = ffi.new("unsigned char[]", ring.lay["record_max"])
    n, flags = ffi.new("uint32_t *"), ffi.new("uint32_t *")
    assert lib.rgpu_ring_next_in_place(p, 0, taken, 0.0, 1.0, n, flags, out) == RING and n[0] == len(body)
    held = lib.rgpu_ring_held()
    assert held != ffi.NULL and _get64(ring, "req_head") == 0 < taken[0]  # not the client's yet
    head_len, off, size = ffi.new("uint32_t *"), ffi.new("uint64_t[8]"), ffi.new("uint64_t[8]")
    assert lib.rgpu_ring_frames(out, n[0], 8, head_len, off, size) == 3 and head_len[0] == len(head)
    assert ffi.buffer(out, len(head))[:] == head
    assert [ffi.buffer(held + off[i], size[i])[:] for i in range(3)] == frames  # in the ring
    assert ffi.buffer(out + off[1], size[1])[:] == bytes(size[1])  # not copied: the copy is as it was
    # the client (broken) writes over the table in the area: the worker's copy of it is its own
    area = ring.offset + ring.lay["request"] + ring_records.RECORD.size
    struct.pack_into("<II", ring.seg._mm, area + len(body) - 8, 1 << 20, 200)
    lib.rgpu_ring_settle()
    assert lib.rgpu_ring_held() == ffi.NULL and _get64(ring, "req_head") == taken[0]  # handed back
    assert lib.rgpu_ring_frames(out, n[0], 8, head_len, off, size) == 3
    assert [ffi.buffer(out + off[i], size[i])[:] for i in range(3)] == frames  # now in the copy too

    # the next take hands the record before back first, whoever takes it; one without frames, or whose
    # table cannot be, is copied whole as ever (and refused from the copy)
    _request(ring, ring_records.with_frames(head, [b"y" * 64]), frames=True)
    assert lib.rgpu_ring_next_in_place(p, 0, taken, 0.0, 1.0, n, flags, out) == RING
    assert lib.rgpu_ring_held() != ffi.NULL and _get64(ring, "req_head") < taken[0]
    _request(ring, ring_records.with_frames(head, [b"z" * 8], lengths=[1 << 40]), frames=True)
    assert lib.rgpu_ring_next_in_place(p, 0, taken, 0.0, 1.0, n, flags, out) == RING
    assert lib.rgpu_ring_held() == ffi.NULL and _get64(ring, "req_head") == taken[0]
    assert lib.rgpu_ring_frames(out, n[0], 8, head_len, off, size) == -1
    _request(ring, b"\x91")
    assert lib.rgpu_ring_next_in_place(p, 0, taken, 0.0, 1.0, n, flags, out) == RING
    assert lib.rgpu_ring_held() == ffi.NULL and _get64(ring, "req_head") == taken[0] and bytes(out[0:1]) == b"\x91"


def test_records_scribbled_over_taken_in_place_are_held_whole_or_copied_and_refused(ring):
    """The fuzz above for the compiled loop's take (ring.c walk_frames, copying the client's frame table
    as it reads it): each record is held with its frames inside it and a table the worker's copy parses,
    or copied whole and refused from the copy, never both or neither; the data in the ring or the copy
    is the client's, byte for byte."""
    from rgpu.server.ring import FRAMES_MAX
    ffi, lib = _in_place_lib()
    p, taken = ffi.cast("void *", ring.seg.addr + ring.offset), ffi.new("uint64_t *")
    out = ffi.new("unsigned char[]", ring.lay["record_max"])
    n, flags = ffi.new("uint32_t *"), ffi.new("uint32_t *")
    head_len, off, size = ffi.new("uint32_t *"), ffi.new("uint64_t[]", FRAMES_MAX), ffi.new("uint64_t[]", FRAMES_MAX)
    held = copied = 0
    for body in _scribbled(ring, 3838):
        assert lib.rgpu_ring_next_in_place(p, 0, taken, 0.0, 1.0, n, flags, out) == RING and n[0] == len(body)
        at = lib.rgpu_ring_held()
        k = lib.rgpu_ring_frames(out, n[0], FRAMES_MAX, head_len, off, size)
        if at != ffi.NULL:
            held += 1
            assert k >= 0 and all(off[i] + size[i] <= len(body) for i in range(k))
            assert [ffi.buffer(at + off[i], size[i])[:] for i in range(k)] == \
                [bytes(body[off[i]:off[i] + size[i]]) for i in range(k)]
        else:
            copied += 1
            assert k == -1 and ffi.buffer(out, len(body))[:] == bytes(body)
    lib.rgpu_ring_done()
    assert _get64(ring, "req_head") == taken[0] and held > 100 and copied > 10, (held, copied)
