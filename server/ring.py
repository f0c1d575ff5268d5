"""The worker's end of the same-host call ring (libhook/src/transport/ring.h has the layout, ring.c the
client's end; server/native/ring.c, in librgpu_launches.so, the compiled wait and reply).

When the client's session segment (shm.py) offers a ring and the worker maps the segment, sync
messages come through the ring, and their replies go back the same way: no ZeroMQ hand-offs, no kernel
wake-up while both sides are spinning; so do messages of async calls only, several at a time, with no
reply. A message's data frames (an async copy's from pageable memory) travel in its record after its
head, and come out of `next` and `serve` as a socket's frames do. The worker waits on the ring's
doorbell, which the client rings for its socket messages too, so an idle session blocks on one futex;
messages the ring cannot carry (more than a record holds, pieces, anything past the room left) keep the
socket, in order.

A client can write anything into its segment: a record that cannot be (longer than the ring, past
what the client wrote, naming socket messages it never sent, a frame table naming bytes past it) ends
that session with a clear error (RingBroken), never a read past the ring."""
from __future__ import annotations

import cffi
import zmq

from rgpu.protocol import wire
# a record's flags: it wants no reply; data frames follow its head. The most frames it holds. WRAP: a record's
# length as the wrap marker; as a broken record's, a frame table that cannot be
from rgpu.protocol.generated.constants import RING_ASYNC as ASYNC
from rgpu.protocol.generated.constants import RING_FRAMES as FRAMES
from rgpu.protocol.generated.constants import RING_FRAMES_MAX as FRAMES_MAX
from rgpu.protocol.generated.constants import RING_WRAP as WRAP

# the structs below are also defined in C; tests/unit/server/test_native_layouts.py has gcc check that both
# lay them out alike, field by field
_CDEF = """
void rgpu_ring_serve(void *ring);
void rgpu_ring_layout(uint64_t out[11]);
int rgpu_ring_next(void *ring, uint64_t sock_received, uint64_t *head, double spin_s, double timeout_s,
                   uint32_t *len, uint32_t *flags, unsigned char *out);
int rgpu_ring_reply(void *ring, const char *msg, size_t len);
void rgpu_ring_reply_on_socket(void *ring);
uint64_t rgpu_ring_spin_hits(void);
void rgpu_ring_in_place_counts(uint64_t out[2]);
double rgpu_ring_spin_for(double spin_s, double gap_s);
double rgpu_ring_gap_after(double gap_s, double seen_s, double spin_s);
double rgpu_ring_gap_recent(void);
typedef struct {
    uint32_t served; uint64_t last_seq; int runtime; int settled; double done; int pending; uint32_t kernels;
} rgpu_launch_run;
typedef struct {
    void *lock;
    int32_t *busy;
    int8_t *waiting;
    double *device_time;
    int64_t *kernels;
    double *last;
    int32_t *group;
    double *weight, *limit, *vtime, *ready_at;
    int32_t *members;
    int32_t *hi;
    int32_t slot;
    double idle_s, launch_cost_s;
} rgpu_sched;
int rgpu_sched_take(rgpu_sched *s);
int rgpu_sched_give(rgpu_sched *s, double seconds, int64_t kernels);
int rgpu_sched_contended(rgpu_sched *s);
typedef struct {
    int sync; uint64_t out_len; uint64_t shm_in; uint64_t addr; int64_t size;
    uint32_t nplaced; uint64_t placed_addr[8]; int64_t placed_size[8];  /* RGPU_PLACE_MAX (launcher.h) */
} rgpu_copy_done;
typedef struct {
    void *lock; int64_t *usage, *peak, *quota; int32_t *group; int32_t slots, slot; int64_t capacity;
} rgpu_quota;
int rgpu_quota_reserve(rgpu_quota *q, int64_t delta);
typedef struct {
    double spin_s, next_spin_s, timeout_s, until, accounted;
    uint64_t sock_received;
    const int *printf_buffered;
    rgpu_sched *sched;
    unsigned char *copy;
    uint32_t len, served;
    uint64_t calls, launches, last_seq;
    int runtime, replied, answered;
    uint32_t steps;
    rgpu_launch_run wait;
    void *copier;
    unsigned char *seg;
    uint64_t seg_size;
    uint32_t copies;
    uint64_t shm_in, shm_out;
    rgpu_copy_done copied;
    rgpu_quota *quota;
    uint32_t mem_n;
    uint64_t mem_addr[64];
    int64_t mem_size[64];
    int copy_step;
    uint32_t req_flags;
    uint32_t batches;
    uint64_t late_bytes;
    unsigned char *frame;
    uint64_t frame_cap;
    int frame_step;
    uint64_t frame_len, frame_out;
    uint32_t pulls, pulls_due;
    uint64_t pull_bytes, pull_seq;
    int parts;
    uint32_t piece_msgs, frame_pieces;
    uint64_t frame_bytes_in;
    uint32_t out_pieces;
    uint64_t out_sent;
    uint32_t rec_len;
} rgpu_serve_state;
int rgpu_ring_frames(const unsigned char *rec, uint32_t len, uint32_t max, uint32_t *head_len, uint64_t *off,
                     uint64_t *n);
uint32_t rgpu_copier_pull_n(const void *c);
void rgpu_copier_pull_get(const void *c, uint32_t i, uint64_t *seq, uint64_t *off, uint64_t *count, uint8_t *digest,
                          int *same);
int rgpu_serve(void *ring, void *launcher, uint64_t *head, rgpu_serve_state *st);
int rgpu_sock_init(const char *path, int major, int minor, int patch);
void *rgpu_sock_open(void *sock, const unsigned char *peer, size_t peer_len);
void rgpu_sock_free(void *c);
void rgpu_sock_release(void *c);
size_t rgpu_sock_take(void *c, const char **ident, size_t *ident_len, const char **head, int *more, int *kept,
                      const char **refused);
void rgpu_sock_heads(void *c, void *heads);
int rgpu_sock_more(void *c);
void rgpu_sock_late_buffer(void *c, unsigned char *buf, uint64_t cap);
const char *rgpu_sock_meta(void *c, const char *property);
uint64_t rgpu_sock_received(void *c);
int rgpu_sock_frames(void *c, int on, const unsigned char *chan, size_t len);
uint32_t rgpu_sock_nframes(void *c);
size_t rgpu_sock_frame(void *c, uint32_t i, const char **data);
int rgpu_serve_socket(void *c, void *launcher, rgpu_serve_state *st, uint64_t copy_cap);
"""
ffi = cffi.FFI()
ffi.cdef(_CDEF)
_lib = None
_unavailable = ""

RING, SOCKET, IDLE = 1, 2, 0  # what rgpu_ring_next found
# what the compiled serving loop (rgpu_serve, server/native/serve.c) returned on besides those: it served
# messages until the housekeeping deadline; it answered a wait whose reply or accounting is Python's
YIELD, ANSWERED, STEP, NOTIFY = 3, 4, 5, 6
# a copy or memset it served (cuda/native/copies.c) whose reply (printf output) or accounting is Python's
COPIED = 7
# the socket's door only (server/sock_loop.py): a message for Python, held by the loop
HANDED = 8


def library():
    """librgpu_launches.so, where the ring's compiled end is, or None (no ring: every call on the socket)."""
    global _lib, _unavailable
    if _lib is None and not _unavailable:
        from rgpu.paths import open_native
        # an older build may lack the ring or the serving loop
        _lib, _unavailable = open_native(ffi, "librgpu_launches.so", "rgpu_ring_next", "rgpu_serve")
        _unavailable = _unavailable or ""
    return _lib


def spin_hits() -> int:
    """Messages this process's rings found without blocking (spinning, or already there)."""
    lib = library()
    return int(lib.rgpu_ring_spin_hits()) if lib is not None else 0


def in_place() -> dict:
    """Records with data frames the compiled loop read in place (server/native/ring.c held), and of
    them those copied whole after all, for Python to serve."""
    lib = library()
    if lib is None or not hasattr(lib, "rgpu_ring_in_place_counts"):
        return {"ring_in_place": 0, "ring_in_place_settled": 0}
    out = ffi.new("uint64_t[2]")
    lib.rgpu_ring_in_place_counts(out)
    return {"ring_in_place": int(out[0]), "ring_in_place_settled": int(out[1])}


def layout() -> dict:
    """Offsets of the ring header's fields, its request area, its size, and the longest message a record
    holds (the worker's copy of a message is that long)."""
    out = ffi.new("uint64_t[11]")
    library().rgpu_ring_layout(out)
    names = ("magic", "doorbell", "sock_sent", "req_tail", "req_head", "rep_seq", "rep_len", "request", "size",
             "request_size", "record_max")
    return dict(zip(names, map(int, out)))


class RingBroken(Exception):
    """The client wrote a record the worker cannot take: its session ends with this message."""


class RingFrame(bytes):
    """A part of a message taken from the ring (its head, or a data frame its record carries),
    standing in for the zmq.Frame a socket gives (_serve reads .buffer)."""
    __slots__ = ()
    more = False

    @property
    def buffer(self) -> memoryview:
        return memoryview(self)

    @property
    def bytes(self) -> bytes:
        return bytes(self)


class ServingLoop:
    """What both doors of the compiled serving loop (server/native/serve.c) keep: its state, whose
    inputs are set for each call (`_load`), and the scheduler's view of the session's slot."""
    _st = None
    _sched = None  # the scheduler view serve passes (sched_view), kept alive with its slot
    _key = None  # what the state's pointers were last set from

    def _load(self, spin_s: float, next_spin_s: float, timeout_s: float, until: float, session, copier: int,
              quota):
        st = self._st
        st.spin_s, st.next_spin_s, st.timeout_s, st.until, st.accounted = \
            spin_s, next_spin_s, timeout_s, until, session.accounted
        printf = getattr(session.device, "printf_buffered", None)
        key = (printf, copier, quota, session.sched, session.slot)
        if key != self._key:  # (set again only when one changed: a cffi cast is a microsecond)
            self._key = key
            st.printf_buffered = ffi.cast("int *", printf or 0)
            st.sched = self._sched_of(session)
            st.copier = ffi.cast("void *", copier)
            st.quota = quota if quota is not None else ffi.NULL
        return st

    def _sched_of(self, session):
        """The scheduler's view for the compiled loop (server/native/sched.c) of the session's slot, or
        NULL without one the loop takes the GPU from (Session.loop_sched)."""
        sched = session.loop_sched
        if sched is None:
            return ffi.NULL
        if self._sched is None or self._sched[0] is not sched or self._sched[1] != session.slot:
            self._sched = (sched, session.slot, sched_view(sched, session.slot))
        return self._sched[2]

    @property
    def state(self):
        """What the last `serve` found (rgpu_serve_state)."""
        return self._st


class CallRing(ServingLoop):
    def __init__(self, segment, offset: int, size: int):
        self._segment, self.offset = segment, offset  # it holds the mapping the pointers below point into
        self.size = size
        self._p = ffi.cast("void *", segment.addr + offset)
        self._taken = ffi.new("uint64_t *")  # the bytes of requests taken: the worker's own count
        self.sock_received = 0  # the client's messages taken from the socket since the attach
        self.calls = 0  # messages taken from the ring (logs)
        self.compiled = 0  # of those, served by the compiled loop without entering Python (serve)
        self.handed = 0  # of those, handed to Python (logs, tests)
        self._lib = library()
        self._lib.rgpu_ring_serve(self._p)
        self._replies = None
        self._st = ffi.new("rgpu_serve_state *")
        self._copy = ffi.new("unsigned char[]", layout()["record_max"])  # a whole request
        self._st.copy = self._copy
        self._frame_off = ffi.new("uint64_t[]", FRAMES_MAX)  # where a record's data frames are in the copy
        self._frame_n = ffi.new("uint64_t[]", FRAMES_MAX)
        # the segment the copies it serves move their data through, up to where the ring begins
        self._st.seg, self._st.seg_size = ffi.cast("unsigned char *", segment.addr), segment.size
        self.answered = None  # the wait `serve` answered and left to Python (ANSWERED), until taken

    @classmethod
    def attach(cls, segment, offer) -> tuple[CallRing | None, str]:
        """The ring the client offers at the end of its segment, served from now on; or (None, why not).
        The segment's data regions end where the ring begins (a region naming the ring is refused)."""
        off = offer.get("ring") if isinstance(offer, dict) else None
        if off is None:
            return None, "not offered"
        lib = library()
        if lib is None:
            return None, f"no compiled ring: {_unavailable}"
        size = layout()["size"]
        from .shm import DATA
        if not (type(off) is int and off >= DATA and off % 4096 == 0 and off + size == segment.size):
            return None, "malformed ring offer"
        segment.size = off
        return cls(segment, off, size), ""

    def next(self, spin_s: float, timeout_s: float):
        """What the client sent next: (RING, frame), (SOCKET, None) when its next message is on the
        socket, (IDLE, None) after timeout_s. Waits without the GIL. Raises RingBroken."""
        st = self._st  # the record's length and flags land where `serve` leaves them
        got = self._lib.rgpu_ring_next(self._p, self.sock_received, self._taken, spin_s, timeout_s,
                                       ffi.addressof(st, "rec_len"), ffi.addressof(st, "req_flags"), self._copy)
        if got == RING:
            self.calls += 1
            self.handed += 1
            return RING, self._message()
        if got < 0:
            self._broken(st.rec_len)
        return got, None

    def _message(self) -> list:
        """The record taken, as a socket's message is received: its head, then its data frames (ring.h
        RGPU_RING_FRAMES), each copied out of the worker's copy of the record. Raises RingBroken."""
        st, copy = self._st, self._copy
        if not st.req_flags & FRAMES:
            return [RingFrame(ffi.buffer(copy, st.rec_len)[:])]
        head_len, off, n = ffi.new("uint32_t *"), self._frame_off, self._frame_n
        k = self._lib.rgpu_ring_frames(copy, st.rec_len, FRAMES_MAX, head_len, off, n)
        if k < 0:
            self._broken(WRAP)
        return [RingFrame(ffi.buffer(copy, head_len[0])[:]),
                *(RingFrame(ffi.buffer(copy + off[i], n[i])[:]) for i in range(k))]

    @property
    def taken_async(self) -> bool:
        """Whether the message taken last wants no reply (async calls only): none goes to the ring."""
        return bool(self._st.req_flags & ASYNC)

    @staticmethod
    def _broken(n: int):
        if n == WRAP:  # ring.c rgpu_ring_frames, through serve.c ring_next or _message
            raise RingBroken("a call ring's record with data frames has a frame table that cannot be (a "
                             "frame past the record, or bytes left over): the client wrote over the ring")
        if n == 0xFFFFFFFF:  # ring.c check: RGPU_RING_ON_SOCKET, the length is not what is wrong
            raise RingBroken("the call ring's requests are not where the client said (a record past what it "
                             "wrote, or naming socket messages it never sent): the client wrote over the ring")
        raise RingBroken(f"a call ring's record claims {n} bytes, more than a record holds or than was "
                         f"written: the client wrote over the ring")

    def serve(self, launcher, spin_s: float, next_spin_s: float, timeout_s: float, until: float, session,
              copier: int = 0, quota=None):
        """`next`, with the compiled serving loop (server/native/serve.c) serving the hot calls it
        knows in between, without the GIL and without Python: what it returns on is `next`'s (a
        message for Python, the socket's turn, idle), YIELD (the housekeeping deadline `until`,
        time.monotonic's clock, passed after it served something), ANSWERED (a wait it answered whose
        reply or accounting is Python's: `answered`), STEP (a launch-and-wait step begun with the GPU
        held: the message comes back, its rest Python's; `state` says how far it went) or NOTIFY (a
        step's give-back found a session waiting for the GPU: Python wakes it) or COPIED (a copy or
        memset it served whose reply, with printf output, or accounting is Python's: `state.copied`).
        `launcher`: the address of the cuda backend's loop (launches.py, Launcher.loop); `copier`: of
        its compiled copies (copies.py, Copier.address), or 0; `quota`: the session's memory charge
        (quota_view; None: allocations and frees stay Python's), whose allocations and frees the
        state's mem log lists for Python's tables; `session`: whose device time
        charged (Session.accounted), printf capture and scheduler slot the loop keeps to. The state
        (served, calls, launches, last_seq, runtime, accounted) says what it served; Python adds it to
        the session's counts."""
        st = self._load(spin_s, next_spin_s, timeout_s, until, session, copier, quota)
        st.sock_received = self.sock_received
        got = self._lib.rgpu_serve(self._p, ffi.cast("void *", launcher), self._taken, st)
        n = st.served
        self.calls += n
        self.compiled += n
        if got == RING:
            self.calls += 1
            self.handed += 1
            return RING, self._message()
        if got < 0:
            self._broken(st.len)
        if got == ANSWERED:
            self.calls += 1
            self.compiled += st.replied
            self.answered = st.wait
        elif got == STEP:
            self.calls += 1
            self.compiled += st.replied  # else the reply, or the rest of the message, is Python's
            self.handed += not st.replied
            return STEP, self._message()
        return got, None

    def replies(self, sock):
        """The socket-like object _serve answers the ring message just taken through (Replies): one
        per ring, made ready for each message."""
        r = self._replies
        if r is None or r.sock is not sock:
            r = self._replies = Replies(sock, self)
        # a message that wants no reply has none waited for on the ring: anything said goes on the socket
        r.on_socket, r._ident = self.taken_async, None
        return r

    def reply(self, data) -> bool:
        if type(data) is not bytes:
            data = ffi.from_buffer(data)
        return self._lib.rgpu_ring_reply(self._p, data, len(data)) == 0

    def reply_on_socket(self) -> None:
        self._lib.rgpu_ring_reply_on_socket(self._p)


class Replies:
    """What _serve sends in answer to a ring message: a reply of one frame goes back on the ring; one
    that does not fit, or comes with bulk frames (or pieces), goes on the socket, and the ring says so,
    once: everything after it for this message follows it there, in order."""

    def __init__(self, sock, ring: CallRing):
        self.sock, self.ring = sock, ring
        self.on_socket = False
        self._ident = None

    def send(self, data, flags=0, copy=True):
        # _serve sends a reply as the peer's identity (with SNDMORE) and then the reply: the first of
        # the two is kept (no test of the flag: a zmq enum's & costs more than the rest of this)
        if self._ident is None:
            self._ident = data
            return
        ident, self._ident = self._ident, None
        self.send_multipart([ident, data], copy=copy)

    def send_multipart(self, parts, flags=0, copy=True):
        if not self.on_socket and len(parts) == 2 and self.ring.reply(parts[1]):
            return
        self.sock.send_multipart(parts, flags, copy=copy)
        if not self.on_socket:
            self.on_socket = True
            self.ring.reply_on_socket()


def sched_view(sched, slot: int):
    """An rgpu_sched (server/native/sched.c) over GpuScheduler `sched`'s shared memory and the lock of
    its condition (a multiprocessing Lock: its POSIX semaphore), for `slot`."""
    import ctypes

    from . import sched as sched_mod

    def at(shared, ctype: str):
        return ffi.cast(ctype, ctypes.addressof(shared))

    v = ffi.new("rgpu_sched *")
    v.lock = ffi.cast("void *", sched.cond._lock._semlock.handle)
    v.busy, v.hi = at(sched.busy, "int32_t *"), at(sched.hi, "int32_t *")
    v.waiting, v.kernels = at(sched.waiting, "int8_t *"), at(sched.kernels, "int64_t *")
    v.group, v.members = at(sched.group, "int32_t *"), at(sched.members, "int32_t *")
    v.device_time, v.last = at(sched.device_time, "double *"), at(sched.last, "double *")
    v.weight, v.limit = at(sched.weight, "double *"), at(sched.limit, "double *")
    v.vtime, v.ready_at = at(sched.vtime, "double *"), at(sched.ready_at, "double *")
    v.slot, v.idle_s, v.launch_cost_s = slot, sched_mod.IDLE_S, sched_mod.LAUNCH_COST_S
    return v


def quota_view(gpu, slot: int, capacity: int):
    """An rgpu_quota (server/native/quota.c) over GpuShared `gpu`'s memory counters and its lock, for the
    session in `slot` of a worker lending `capacity` bytes: GpuShared.reserve's, in C."""
    import ctypes

    def at(shared, ctype: str):
        return ffi.cast(ctype, ctypes.addressof(shared))

    q = ffi.new("rgpu_quota *")
    q.lock = ffi.cast("void *", gpu.lock._semlock.handle)
    q.usage, q.peak, q.quota = at(gpu.usage, "int64_t *"), at(gpu.peak, "int64_t *"), at(gpu.quota, "int64_t *")
    q.group = at(gpu.sched.group, "int32_t *")
    q.slots, q.slot, q.capacity = len(gpu.usage), slot, capacity
    return q


def broken_notice(why: str) -> bytes:
    """The SESSION_ENDED notice the client hears when its ring broke (reported as the cause)."""
    return wire.encode_reply(0, wire.SESSION_ENDED, message=why)
