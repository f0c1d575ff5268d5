"""How a worker judges its client's host (server/liveness.py ClientHost) on a real TCP connection of
this machine's kernel, in the case that once ended a stopped program's session: the program's kernel
dropped segments it had no room for, so they stay unacknowledged while the program is stopped, and
the worker's kernel resends them with its backoff, more than five seconds apart, each answered at once
with a window of 0."""
from __future__ import annotations

import socket
import time

from rgpu.server import liveness


def test_a_reader_whose_kernel_drops_what_it_has_no_room_for_is_a_host_alive():
    chunk = b"x" * (1 << 20)
    with socket.create_server(("127.0.0.1", 0)) as srv, socket.create_connection(srv.getsockname()) as reader:
        worker, _ = srv.accept()
        with worker:
            worker.setblocking(False)
            # the reader takes 64 MiB, so its window opens wide; then it stops reading (the program
            # stopped) and its buffer shrinks below the window it advertised: what comes beyond its
            # room is dropped (TcpExtTCPRcvQDrop), as a stopped program's kernel short of memory does
            got = 0
            while got < (64 << 20):
                try:
                    worker.send(chunk)
                except BlockingIOError:
                    pass
                got += len(reader.recv(1 << 20))
            reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            host, seen, verdicts = liveness.ClientHost(), [], []
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    worker.send(chunk)
                except BlockingIOError:
                    pass
                state = liveness.tcp_state(worker.fileno())
                seen.append(state)
                verdicts.append(host.gone(worker.fileno(), time.monotonic()))
                if state.unacked and state.since_ack > liveness.SILENCE_MS / 1000 + 0.5:
                    break
                time.sleep(0.25)
            # the case arose: data unacknowledged with no acknowledgement for more than the silence
            # (between two resends), the last resend answered
            last = seen[-1]
            assert last.unacked and last.since_ack > liveness.SILENCE_MS / 1000 + 0.5, seen[-8:]
            assert last.since_sent >= last.since_ack, last
            assert not any(verdicts), list(zip(seen, verdicts))[-8:]
            # the program continued: it reads, and what was resent arrives
            reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
            reader.settimeout(10)
            assert reader.recv(1 << 16)
