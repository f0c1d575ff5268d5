"""A lease renewed from a process of its own, for ``rgpu run``.

Ctrl-Z stops the terminal's whole foreground process group: the program and ``rgpu run`` with it.
A renewer thread inside ``rgpu run`` stopped too, so a program left stopped longer than its lease's
TTL (30 s for ``rgpu run``) came back to a lease the controller had ended, and failed at its next
call, although its GPU host had kept its sessions. With a local GPU, CUDA keeps a stopped
process's context for as long as it stays stopped; the keeper gives a leased program the same.

The keeper runs in a session of its own (setsid): the terminal's job control (Ctrl-Z, Ctrl-C, a
hang-up) does not reach it. It lives exactly as long as ``rgpu run``: it waits on a pipe whose only
writer is ``rgpu run`` and ends at its end of file, which comes when ``rgpu run`` closes it or dies
(even of SIGKILL; the lease then expires after its TTL, as before). The lease itself is released by
``rgpu run``, not here.

    python -m rgpu.client.lease_keeper URL LEASE INTERVAL     (stdin: the pipe)
"""
from __future__ import annotations

import os
import select
import subprocess
import sys

import structlog

from . import lease_token_file
from .controller_client import ControllerClient, ControllerError

log = structlog.get_logger("rgpu.client.lease_keeper")
GONE = ("lease_ended", "unknown_lease")


def renew(client: ControllerClient, lease: str) -> str | None:
    """Renew ``lease`` once. Returns None, or the controller's message when the lease is gone (a
    failure that may pass, such as an unreachable controller, is logged and tried again later)."""
    try:
        # a fresh token for the sessions the program opens from now on
        lease_token_file.write(lease, client.renew(lease)["token"])
    except ControllerError as exc:
        if exc.code in GONE:
            log.warning("lease_lost", lease=lease, message=exc.message)
            return exc.message
        log.warning("lease_renew_failed", lease=lease, message=str(exc))
    return None


def keep(url: str, lease: str, interval: float, pipe: int) -> int:
    """Renew ``lease`` every ``interval`` seconds until ``pipe`` reads end of file (0), or the
    controller says the lease is gone (1)."""
    interval = max(0.5, interval)
    with ControllerClient(url, timeout=min(5.0, interval)) as client:
        while True:
            readable, _, _ = select.select([pipe], [], [], interval)
            if readable and not os.read(pipe, 64):
                return 0
            if not readable and renew(client, lease) is not None:
                return 1
            # readable with data: nothing is ever written; only the pipe's end matters


class LeaseKeeper:
    """The keeper process of one lease, seen from ``rgpu run``."""

    def __init__(self, url: str, lease: str, interval: float):
        self.url, self.lease, self.interval = url, lease, interval
        self.proc: subprocess.Popen | None = None
        self._pipe: int | None = None

    def start(self) -> None:
        # os.pipe's ends are not inherited by what rgpu run starts later: the keeper's stdin is
        # the read end, and rgpu run alone holds the write end
        read_end, self._pipe = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "rgpu.client.lease_keeper", self.url, self.lease, str(self.interval)],
                stdin=read_end, stdout=subprocess.DEVNULL, start_new_session=True)
        finally:
            os.close(read_end)

    def stop(self) -> None:
        """End the keeper (it has no lease to release; rgpu run does that) and wait for it."""
        if self._pipe is not None:
            os.close(self._pipe)
            self._pipe = None
        if self.proc is not None:
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def main(argv: list[str] | None = None) -> int:
    from rgpu import logs
    logs.configure_cli()
    url, lease, interval = argv if argv is not None else sys.argv[1:]
    try:
        return keep(url, lease, float(interval), sys.stdin.fileno())
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
