"""The compiled serving loop on the session's socket: across hosts (server/native/sock_serve.c), and on
the same host where the call ring is off (RGPU_RING=0), with the copies' data in the session segment.

A client on another host reaches its worker through the session's ROUTER socket only, and until this
door every one of its messages went through Python: the receive, the checks, the step's C calls one by
one, the reply's send. The same loop that serves the call ring (server/native/serve.c, ring.py) now
waits on that socket too, without the GIL, and serves the messages it can serve whole: one part from
the session's client, a head that is neither a delta nor a base the head table keeps. Anything else it
hands over held: Python takes its identity and first part from here and receives its other parts
itself (worker.py). What it serves it counts in the same state the ring's loop fills, which
loop_served.py adds to the session's counts."""
from __future__ import annotations

import os
import types

import zmq

from rgpu.protocol.generated.constants import BULK_MIN, HEAD_DELTA_MIN

from .ring import ANSWERED, HANDED, STEP, RingFrame, ServingLoop, ffi, library

META = ("User-Id", "Peer-Address")  # what the worker's checks ask a frame (curve.peer_id)

LATE_CAP = BULK_MIN - 1  # the late copies' data a step the door serves may end with, and a D2H copy's
_why_not: str | None = None


def _libzmq_path() -> str | None:
    """The file of the libzmq this process loaded: pyzmq's (its wheel carries one; a pyzmq built
    against the system's loads that). None where the maps show none, or more than one."""
    found = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.rstrip("\n").split(None, 5)[5:]
                if path and os.path.basename(path[0]).startswith("libzmq"):
                    found.add(path[0])
    except OSError:
        return None
    return found.pop() if len(found) == 1 else None


def unavailable() -> str:
    """Why the socket's door cannot open in this process ("": it can): an older build of
    librgpu_launches.so, or no single libzmq to call through."""
    global _why_not
    if _why_not is None:
        lib = library()
        if lib is None:
            _why_not = "no compiled serving loop (librgpu_launches.so)"
        else:
            try:
                lib.rgpu_sock_init
            except AttributeError:
                _why_not = "librgpu_launches.so predates the socket's door"
            else:
                path = _libzmq_path()
                if path is None:
                    _why_not = "not one libzmq loaded (pyzmq's) to call through"
                else:
                    rc = lib.rgpu_sock_init(path.encode(), *zmq.zmq_version_info())
                    _why_not = "" if rc == 0 else f"libzmq at {path} refused ({rc})"
    return _why_not


class HeldFrame(RingFrame):
    """A message's first part the loop handed over, standing in for the zmq.Frame a receive gives:
    its bytes, and the properties of its connection the worker asks of one (META), as Frame.get
    answers them (an unknown one raises)."""
    meta: dict = {}

    def get(self, prop):
        try:
            return self.meta[prop]
        except (KeyError, TypeError):
            raise zmq.ZMQError(zmq.EINVAL) from None


class SocketLoop(ServingLoop):
    """The door for one session: its worker's socket (pyzmq's) and its client's identity. The socket
    outlives it (close() first)."""

    def __init__(self, sock: zmq.Socket, peer: bytes):
        self._lib = library()
        ch = self._lib.rgpu_sock_open(ffi.cast("void *", sock.underlying), peer, len(peer))
        if ch == ffi.NULL:
            raise ValueError("the socket's door did not open (rgpu_sock_init first; an identity of at most 255 bytes)")
        self._ch = ch
        self.peer = peer
        self._st = ffi.new("rgpu_serve_state *")
        self._copy = ffi.new("unsigned char[]", HEAD_DELTA_MIN)  # the longest head it serves, and less
        self._st.copy = self._copy
        # no session segment across hosts; on the same host with the call ring off (RGPU_RING=0, or a
        # client whose ring the worker declined) the copies through the session's segment are served
        # here as the ring's loop serves them (serve.c rgpu_copier_serve): set at each serve (_segment)
        self._st.seg, self._st.seg_size = ffi.NULL, 0
        self._seg = None  # the Segment the state's pointer was last set from
        # a step's late copies (OUT_LATER) go ahead of its reply from here: each smaller than a frame the
        # bulk channel would take (SealingSocket seals those; Python's then)
        self._late = ffi.new("unsigned char[]", LATE_CAP)
        self._lib.rgpu_sock_late_buffer(ch, self._late, LATE_CAP)
        # and a sync D2H copy's data, the reply's frame (a kernel's result read back with cudaMemcpy)
        self._frame = ffi.new("unsigned char[]", LATE_CAP)
        self._st.frame, self._st.frame_cap = self._frame, LATE_CAP
        self._out = types.SimpleNamespace(ident=ffi.new("const char **"), ident_len=ffi.new("size_t *"),
                                          head=ffi.new("const char **"), more=ffi.new("int *"),
                                          kept=ffi.new("int *"), refused=ffi.new("const char **"))
        self._heads = None  # the session's table of bases the door takes heads into (head_delta.py)
        self._meta, self._meta_of = {}, None  # the last identity's connection properties
        self._launcher = None  # the launcher's address, and as a pointer
        self._frames = None  # the bulk channel's name the door was given (rgpu_sock_frames), as last set
        self.answered = None  # a wait `serve` answered and left to Python (ANSWERED), until taken
        self.compiled = 0  # messages served without entering Python (logs, tests)
        self.handed = 0    # messages handed to Python
        self.pieces = 0    # of those served, pieces of large H2D copies alone (logs, tests)

    def close(self) -> None:
        if self._ch is not None:
            self._lib.rgpu_sock_free(self._ch)
            self._ch = None

    def serve(self, launcher, spin_s: float, next_spin_s: float, timeout_s: float, until: float, session,
              copier: int = 0, quota=None):
        """As CallRing.serve, on the socket: (got, None), or (HANDED, (identity, head, more, kept, taken))
        for a message Python serves, and (STEP, (...)) for a step begun with the GPU held whose rest is
        Python's; `more`: its other parts are still on the socket, Python's to receive; `kept`: the
        session's head table took its head already (a delta made whole: `head` is the whole head);
        `taken`: the data frames the door took after the head, before those still on the socket.
        A delta the table refused comes as (HANDED, (identity, None, why, False, ())): the session ends."""
        st = self._load(spin_s, next_spin_s, timeout_s, until, session, copier, quota)
        if session.shm is not self._seg:  # attached, or closed or replaced by another attach
            self._segment(session.shm)
        if self._launcher is None or self._launcher[0] != launcher:
            self._launcher = (launcher, ffi.cast("void *", launcher))
        if session.heads is not self._heads:  # (a table per attach)
            self._heads = session.heads
            address = getattr(session.heads, "address", 0)  # (a table in Python: every delta is Python's)
            self._lib.rgpu_sock_heads(self._ch, ffi.cast("void *", address))
        # data frames the door may take, but a bulk channel's sealed records (bulk.py placeholder)
        channel = session.bulk.channel if session.bulk is not None else b""
        if channel != self._frames:
            self._frames = channel
            self._lib.rgpu_sock_frames(self._ch, 1, channel, len(channel))
        got = self._lib.rgpu_serve_socket(self._ch, self._launcher[1], st, HEAD_DELTA_MIN)
        n = st.served
        self.compiled += n
        self.pieces += st.piece_msgs
        if got == ANSWERED:
            self.compiled += st.replied
            self.answered = st.wait
        elif got == HANDED or got == STEP:
            if got == STEP:
                self.compiled += st.replied
            self.handed += got == HANDED or not st.replied
            return got, self._take()
        return got, None

    def _segment(self, seg) -> None:
        """The session segment the copies the door serves move their data through, or none: its data
        regions end where a call ring would begin (CallRing.attach)."""
        self._seg = seg
        if seg is None:
            self._st.seg, self._st.seg_size = ffi.NULL, 0
        else:
            self._st.seg, self._st.seg_size = ffi.cast("unsigned char *", seg.addr), seg.size

    def _take(self):
        """The held message's identity and head, copied out and let go, and whether parts follow on the
        socket. The connection's properties (META) are read for an identity not seen before: they are
        the connection's, the same for every message it sends."""
        o = self._out
        n = self._lib.rgpu_sock_take(self._ch, o.ident, o.ident_len, o.head, o.more, o.kept, o.refused)
        ident = ffi.unpack(o.ident[0], o.ident_len[0])
        if o.refused[0] != ffi.NULL:
            why = ffi.string(o.refused[0]).decode()
            self._lib.rgpu_sock_release(self._ch)
            return ident, None, why, False, ()
        head = HeldFrame(ffi.unpack(o.head[0], n) if n else b"")
        if ident != self._meta_of:
            self._meta = {p: ffi.string(v).decode() for p in META
                          if (v := self._lib.rgpu_sock_meta(self._ch, p.encode())) != ffi.NULL}
            self._meta_of = ident
        head.meta = self._meta
        more, kept = bool(o.more[0]), bool(o.kept[0])
        # data frames taken and then not served whole: a piece the loop could not run, a message it
        # declined or began (Python finishes it), a malformed one; copied, as the door lets them go here
        taken = []
        for i in range(self._lib.rgpu_sock_nframes(self._ch)):
            n = self._lib.rgpu_sock_frame(self._ch, i, o.head)
            taken.append(zmq.Frame(ffi.buffer(o.head[0], n)[:] if n else b""))
        self._lib.rgpu_sock_release(self._ch)
        return ident, head, more, kept, taken

    def pulls(self, copier: int) -> list[tuple[int, bytes, bytes | None]]:
        """The managed pulls of the step the loop answered whose replies are Python's (state.pulls_due),
        as Launcher.pulls gives them: (seq, digest, data or None where the client has it)."""
        c = ffi.cast("void *", copier)
        seq, off, count = ffi.new("uint64_t *"), ffi.new("uint64_t *"), ffi.new("uint64_t *")
        digest, same = ffi.new("uint8_t[16]"), ffi.new("int *")
        out = []
        for i in range(self._lib.rgpu_copier_pull_n(c)):
            self._lib.rgpu_copier_pull_get(c, i, seq, off, count, digest, same)
            data = None if same[0] else ffi.buffer(self._late + off[0], count[0])[:]
            out.append((int(seq[0]), ffi.buffer(digest, 16)[:], data))
        return out

    @property
    def received(self) -> int:
        """Messages the loop took from the socket, served or handed over."""
        return int(self._lib.rgpu_sock_received(self._ch))

    def frame(self) -> bytes:
        """The data of the copy a step the loop answered read back (state.frame_step), copied: the
        buffer is the loop's again at its next call."""
        return ffi.buffer(self._frame, self._st.frame_len)[:]

    def replies(self, sock):
        """Where Python answers what the loop left it: the socket itself."""
        return sock

