"""How a worker's connections find a peer that is gone: its host froze, lost its power or was cut
off, and no FIN or RST will ever come.

A session's client is judged by its host's kernel, not by the program (`ClientHost`). A program
stopped by Ctrl-Z or held at a debugger's breakpoint runs none of its threads, ZeroMQ's I/O thread
included, so it answers no ZeroMQ heartbeat; but its host's kernel still acknowledges every segment
and every probe, as it would for a program using a local GPU for as long as its user likes. The
worker pings the client every second (`watch_client`: for the client library's sake, which judges
the worker by them), so something of the worker's is always on its way; `ClientHost` reads the
connection's TCP_INFO at each housekeeping and takes the host for gone once data of the worker's (a
ping, a reply, a probe of a closed window) has waited SILENCE_MS with no acknowledgement at all.
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

import zmq

PING_MS = 1000
SILENCE_MS = 5000  # a session's client host, or a move's target, silent this long is gone

_libc = ctypes.CDLL(None, use_errno=True)


def watch_client(sock: zmq.Socket) -> None:
    """Pings to the client every second, on a session socket before it binds: by them the client
    library knows the worker lives (connection.c, rgpu_worker_silent). The worker never judges by
    their answers (a stopped program sends none): no timeout (0)."""
    sock.setsockopt(zmq.HEARTBEAT_IVL, PING_MS)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, 0)


def tcp_state(fd: int) -> tuple[int, int, float] | None:
    """(segments unacknowledged, probes unanswered, seconds since the last acknowledgement) of the TCP
    connection `fd` (Linux's struct tcp_info), or None when `fd` is no TCP socket."""
    buf = ctypes.create_string_buffer(104)
    size = ctypes.c_uint32(len(buf))
    if _libc.getsockopt(fd, socket.IPPROTO_TCP, socket.TCP_INFO, buf, ctypes.byref(size)) != 0 or size.value < 60:
        return None
    raw = buf.raw
    return (int.from_bytes(raw[24:28], "little"), raw[3],                # tcpi_unacked, tcpi_probes
            int.from_bytes(raw[56:60], "little") / 1000)                 # tcpi_last_ack_recv (ms)


class ClientHost:
    """Whether the host of a session's client is gone although the connection is up: data of the
    worker's has waited SILENCE_MS for it with no acknowledgement. Waiting is counted from the first
    look that saw data outstanding (the last acknowledgement may be old on a connection where the
    worker sent nothing for a while), and ends at any look that saw none."""

    def __init__(self) -> None:
        self.waiting_since: float | None = None

    def gone(self, fd: int | None, now: float) -> bool:
        state = tcp_state(fd) if fd is not None else None
        if state is None or not (state[0] or state[1]):
            self.waiting_since = None
            return False
        if self.waiting_since is None:
            self.waiting_since = now
        return min(state[2], now - self.waiting_since) >= SILENCE_MS / 1000


def watch_link(sock: zmq.Socket) -> None:
    """Heartbeats and TCP_USER_TIMEOUT on a move's link, before it connects."""
    sock.setsockopt(zmq.HEARTBEAT_IVL, PING_MS)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, SILENCE_MS)
    sock.setsockopt(zmq.TCP_MAXRT, SILENCE_MS)
