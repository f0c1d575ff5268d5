"""How a worker's connections find a peer that fell silent: its host froze, lost its power or was
cut off, and no FIN or RST will ever come.

ZeroMQ's heartbeats ping every second and drop the connection when nothing comes back within
SILENCE_MS. But a socket in the middle of writing a message queues its ping behind it, so a worker
stuck sending a large reply to a silent client (or a move's source stuck sending memory to a silent
target) never pings, and the kernel would retransmit for about 15 minutes. TCP_USER_TIMEOUT
(zmq.TCP_MAXRT) ends such a connection once nothing of it has been acknowledged for SILENCE_MS.

That is safe on these two sockets because their peers take in everything sent to them while
alive: the client library's session socket queues without a limit, and a move's target reads each
request whole. The client library does not set it on its own session socket (connection.c): a
worker's queue of messages is bounded, so a worker whose serving thread waits out a long kernel
stops reading, its window closes, and TCP_USER_TIMEOUT would take that live worker for a dead one."""
from __future__ import annotations

import zmq

PING_MS = 1000
SILENCE_MS = 5000  # a session's client, or a move's target, silent this long is gone


def watch(sock: zmq.Socket) -> None:
    """Heartbeats and TCP_USER_TIMEOUT on `sock`, before it binds or connects."""
    sock.setsockopt(zmq.HEARTBEAT_IVL, PING_MS)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, SILENCE_MS)
    sock.setsockopt(zmq.TCP_MAXRT, SILENCE_MS)
