"""How a worker's connections find a peer that is gone: its host froze, lost its power or was cut
off, and no FIN or RST will ever come.

A session's client is judged by its host's kernel, not by the program (`ClientHost`). A program
stopped by Ctrl-Z or held at a debugger's breakpoint runs none of its threads, ZeroMQ's I/O thread
included, so it answers no ZeroMQ heartbeat; but its host's kernel still acknowledges every segment
and every probe, as it would for a program using a local GPU for as long as its user likes. The
worker pings the client every second (`watch_client`: for the client library's sake, which judges
the worker by them), so something of the worker's is always on its way; `ClientHost` reads the
connection's TCP_INFO at each housekeeping and takes the host for gone once data of the worker's (a
ping, a reply, a probe of a closed window) has waited SILENCE_MS with no acknowledgement at all, and
what the worker's kernel sent last went unanswered. The last condition is for a stopped program's
kernel that dropped segments it had no room for (TCPRcvQDrop): they stay unacknowledged while it is
stopped, the worker's kernel resends them with its backoff (0.2, 0.4 ... 6.4 s apart), and the host
answers each resend at once with a window of 0; between two resends no acknowledgement comes for
more than SILENCE_MS, yet the last resend was answered. A host that is gone answers none.
Not TCP_USER_TIMEOUT: on this kernel it also ends zero-window probing, so a program stopped while
more of a reply was on its way than its kernel buffers hold (its window closed, each probe
answered) would lose its session after SILENCE_MS. What bounds a stopped program's hold on a pool's
GPU is its lease, which nobody renews while it is stopped.

A move's target is judged by the target process itself (`watch_link`): ZeroMQ's heartbeats ping every
second and drop the connection when nothing comes back within SILENCE_MS, since the program waits
out the move and a target that does not answer must fail it. A socket in the middle of writing a
message queues its ping behind it, so TCP_USER_TIMEOUT covers a target gone mid-request. That is
safe there because the target reads each request whole while alive.

The client library judges its worker by what comes from it: the worker pings it every second, so
TCP_INFO's time since data last came says whether the worker's process and host live
(connection.c); ZeroMQ's heartbeat timeout would judge the same but cannot tell a program that was
stopped from a worker that was silent."""
from __future__ import annotations

import ctypes
import socket
from typing import NamedTuple

import zmq

PING_MS = 1000
SILENCE_MS = 5000  # a session's client host, or a move's target, silent this long is gone
ANSWER_MS = PING_MS  # what a live host takes at most to answer a resend or a probe, WAN included

_libc = ctypes.CDLL(None, use_errno=True)


def watch_client(sock: zmq.Socket) -> None:
    """Pings to the client every second, on a session socket before it binds: by them the client
    library knows the worker lives (connection.c, rgpu_worker_silent). The worker never judges by
    their answers (a stopped program sends none): no timeout (0)."""
    sock.setsockopt(zmq.HEARTBEAT_IVL, PING_MS)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, 0)


class TcpState(NamedTuple):
    unacked: int       # segments sent and not acknowledged (tcpi_unacked)
    probes: int        # probes of a closed window unanswered (tcpi_probes)
    since_ack: float   # seconds since the last acknowledgement came (tcpi_last_ack_recv)
    since_sent: float  # seconds since data last left, a resend included (tcpi_last_data_sent)


def tcp_state(fd: int) -> TcpState | None:
    """What Linux's struct tcp_info says of the TCP connection `fd`, or None when `fd` is no TCP
    socket."""
    buf = ctypes.create_string_buffer(104)
    size = ctypes.c_uint32(len(buf))
    if _libc.getsockopt(fd, socket.IPPROTO_TCP, socket.TCP_INFO, buf, ctypes.byref(size)) != 0 or size.value < 60:
        return None
    raw = buf.raw

    def ms(at: int) -> float:
        return int.from_bytes(raw[at:at + 4], "little") / 1000

    return TcpState(int.from_bytes(raw[24:28], "little"), raw[3], ms(56), ms(44))


class ClientHost:
    """Whether the host of a session's client is gone although the connection is up: data of the
    worker's has waited SILENCE_MS for it with no acknowledgement, and the last thing the worker's
    kernel sent (a resend, a probe) has had ANSWER_MS to be answered and was not. Waiting is counted
    from the first look that saw data outstanding (the last acknowledgement may be old on a
    connection where the worker sent nothing for a while), and ends at any look that saw none."""

    def __init__(self) -> None:
        self.waiting_since: float | None = None

    def gone(self, fd: int | None, now: float) -> bool:
        state = tcp_state(fd) if fd is not None else None
        if state is None or not (state.unacked or state.probes):
            self.waiting_since = None
            return False
        if self.waiting_since is None:
            self.waiting_since = now
        if min(state.since_ack, now - self.waiting_since) < SILENCE_MS / 1000:
            return False
        # an acknowledgement after the last data sent answered it (a resend into a full buffer gets
        # one with a window of 0); a probe carries no data, and is outstanding until one comes
        unanswered = state.since_sent < state.since_ack and state.since_sent >= ANSWER_MS / 1000
        return unanswered or bool(state.probes)


def watch_link(sock: zmq.Socket) -> None:
    """Heartbeats and TCP_USER_TIMEOUT on a move's link, before it connects."""
    sock.setsockopt(zmq.HEARTBEAT_IVL, PING_MS)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, SILENCE_MS)
    sock.setsockopt(zmq.TCP_MAXRT, SILENCE_MS)
