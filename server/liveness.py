"""How a worker's connections find a peer that is gone: its host froze, lost its power or was cut
off, and no FIN or RST will ever come.

A session's client is judged by its host's kernel, not by the program (`watch_client`). A program
stopped by Ctrl-Z or held at a debugger's breakpoint runs none of its threads, ZeroMQ's I/O thread
included, so it answers no ZeroMQ heartbeat; but its host's kernel still acknowledges every segment
and every keepalive probe, as it would for a program using a local GPU for as long as its user
likes. So the session socket sends TCP keepalive probes after a second of quiet, one a second, and
TCP_USER_TIMEOUT (zmq.TCP_MAXRT) ends the connection once nothing of it has been acknowledged for
SILENCE_MS: a probe unanswered, or a reply the worker is in the middle of sending. A stopped program
keeps its session; a dead host loses it within SILENCE_MS, and its grace then runs. (What bounds a
stopped program's hold on a pool's GPU is its lease: nobody renews it while the program is stopped.)
One case is taken for a dead host although it is not: a program stopped while more of a reply is on
its way than its kernel buffers, whose window then stays closed (this kernel ends zero-window probing
at TCP_USER_TIMEOUT too).

A move's target is judged by the target process itself (`watch_link`): ZeroMQ's heartbeats ping every
second and drop the connection when nothing comes back within SILENCE_MS, since the program waits
out the move and a target that does not answer must fail it. A socket in the middle of writing a
message queues its ping behind it, so TCP_USER_TIMEOUT covers a target gone mid-request. That is
safe there because the target reads each request whole while alive.

The client library does not set TCP_USER_TIMEOUT on its own session socket (connection.c): a
worker's queue of messages is bounded, so a worker whose serving thread waits out a long kernel
stops reading, its window closes, and TCP_USER_TIMEOUT would take that live worker for a dead one."""
from __future__ import annotations

import zmq

PING_MS = 1000
SILENCE_MS = 5000  # a session's client host, or a move's target, silent this long is gone


def watch_client(sock: zmq.Socket) -> None:
    """Kernel keepalives and TCP_USER_TIMEOUT on a session socket, before it binds."""
    sock.setsockopt(zmq.TCP_KEEPALIVE, 1)
    sock.setsockopt(zmq.TCP_KEEPALIVE_IDLE, PING_MS // 1000)
    sock.setsockopt(zmq.TCP_KEEPALIVE_INTVL, PING_MS // 1000)
    # TCP_USER_TIMEOUT decides when unanswered probes end it; the count only has to outlast that
    sock.setsockopt(zmq.TCP_KEEPALIVE_CNT, 2 * SILENCE_MS // PING_MS)
    sock.setsockopt(zmq.TCP_MAXRT, SILENCE_MS)


def watch_link(sock: zmq.Socket) -> None:
    """Heartbeats and TCP_USER_TIMEOUT on a move's link, before it connects."""
    sock.setsockopt(zmq.HEARTBEAT_IVL, PING_MS)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, SILENCE_MS)
    sock.setsockopt(zmq.TCP_MAXRT, SILENCE_MS)
