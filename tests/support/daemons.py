"""Start daemons for component tests: free ports, readiness polled with a deadline, always stopped.

    handle = start_daemon([sys.executable, "-m", "rgpu.controller.daemon", ...],
                          ready=lambda: answers_ping(url), deadline_s=15)
    try: ...
    finally: handle.stop()

or, in a fixture, ``with DaemonSet() as daemons: daemons.start(...)`` which stops every daemon it
started on exit. Output goes to a log file whose tail is included in every failure message, so a
daemon that dies at start says why; without a path of its own, in $RGPU_TEST_DAEMON_LOGS (the test
session's temporary directory, tests/conftest.py), else the system's.
"""
from __future__ import annotations

import os
import random
import re
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable


class DaemonError(RuntimeError):
    pass


def _ephemeral_floor() -> int:
    """The lowest port the kernel gives outgoing connections."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


_given: set[int] = set()   # ports this process handed out: a daemon stopped for a restart leaves its port unbound


def _worker_slice(lo: int, hi: int) -> tuple[int, int]:
    """This test process's share of [lo, hi): pytest-xdist's workers each pick from their own
    slice, so two workers never race for one port (a CI run lost a controller to a port the other
    worker had picked the same moment, or held unbound across a restart)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    index = int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else 0
    if count <= 1 or index >= count:
        return lo, hi
    width = (hi - lo) // count
    return lo + index * width, lo + (index + 1) * width


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on right now, below the kernel's ephemeral range: a port the OS
    hands out for bind(0) is also what it gives the next outgoing connection its local end, and on a
    busy host (12 test workers, each with clients connecting) one took a port a daemon was about to
    listen on. A random pick within this worker's slice of the ~20,000 below the range (never one
    this process gave before), checked by binding it; bind(0) where nothing there is free."""
    floor = _ephemeral_floor()
    lo, hi = _worker_slice(max(1024, floor - 22000), floor)
    if len(_given) > (hi - lo) // 2:
        _given.clear()
    rng = random.SystemRandom()
    for _ in range(50):
        port = rng.randrange(lo, hi)
        if port in _given:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind((host, port))
            except OSError:
                continue
        _given.add(port)
        return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def free_url(host: str = "127.0.0.1") -> str:
    return f"tcp://{host}:{free_port(host)}"


def wait_until(predicate: Callable[[], object], deadline_s: float, what: str = "condition",
               interval_s: float = 0.05):
    """Poll ``predicate`` until it returns something truthy (returned) or the deadline passes."""
    deadline = time.monotonic() + deadline_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise TimeoutError(f"{what} not reached within {deadline_s:g}s")
        time.sleep(interval_s)


@dataclass
class DaemonHandle:
    argv: list[str]
    proc: subprocess.Popen
    log_path: Path
    _log_file: object = field(repr=False, default=None)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def output(self, tail: int = 4000) -> str:
        """The log's last `tail` characters, whole lines only while the daemon runs: a record is one
        write(2), but a write that crosses a page reaches the file one page at a time, so a read beside
        it can see the start of a line without its end (a session_ended record cut before its last
        counts). A line without its newline is output only once the daemon has exited."""
        running = self.alive()  # before the read: a daemon that exits after it may still have been writing
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        if running:
            text = text[:text.rfind("\n") + 1]
        return text[-tail:]

    def log_size(self) -> int:
        """Characters the daemon has logged so far: `session_ended`'s `after`."""
        return len(self.output(1 << 62))

    def session_ended(self, after: int = 0, deadline_s: float = 20) -> dict:
        """The key=value fields of the first session_ended line the daemon logged after its first `after`
        characters, waited for."""
        def line():
            return next((x for x in self.output(1 << 62)[after:].splitlines() if "event=session_ended" in x), None)
        return dict(re.findall(r"(\w+)=(\S+)", wait_until(line, deadline_s, "the session's end in the log")))

    def signal(self, sig: int) -> None:
        if self.alive():
            self.proc.send_signal(sig)

    def kill(self) -> int:
        """SIGKILL — for fault tests (a daemon that dies without cleaning up)."""
        if self.alive():
            self.proc.kill()
        return self.proc.wait(10)

    def stop(self, timeout_s: float = 10.0) -> int | None:
        """SIGTERM, wait, then SIGKILL; returns the exit code. Safe to call twice."""
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout_s)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        return self.proc.returncode


def start_daemon(argv: list[str], ready: Callable[[], bool], deadline_s: float = 15.0, *,
                 env: dict | None = None, cwd: str | None = None,
                 log_path: str | os.PathLike | None = None) -> DaemonHandle:
    """Start ``argv`` and poll ``ready()`` until true; stop it and raise if it exits or the
    deadline passes first. ``ready`` may raise; that counts as not ready."""
    if log_path is None:
        fd, name = tempfile.mkstemp(prefix="daemon-", suffix=".log", dir=os.environ.get("RGPU_TEST_DAEMON_LOGS"))
        os.close(fd)
        log_path = name
    log_path = Path(log_path)
    log_file = open(log_path, "ab")
    proc = subprocess.Popen(argv, stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=env, cwd=cwd)
    handle = DaemonHandle(list(argv), proc, log_path, log_file)
    deadline = time.monotonic() + deadline_s
    while True:
        if not handle.alive():
            code = handle.stop()
            raise DaemonError(f"{argv[0]} exited with {code} before it was ready:\n{handle.output()}")
        try:
            if ready():
                return handle
        except Exception:
            pass
        if time.monotonic() >= deadline:
            handle.stop()
            raise DaemonError(f"{' '.join(map(str, argv))} not ready within {deadline_s:g}s:\n{handle.output()}")
        time.sleep(0.05)


class DaemonSet:
    """Tracks daemons started in a test and stops them all on exit (teardown)."""

    def __init__(self):
        self.handles: list[DaemonHandle] = []

    def start(self, argv, ready, deadline_s: float = 15.0, **kw) -> DaemonHandle:
        handle = start_daemon(argv, ready, deadline_s, **kw)
        self.handles.append(handle)
        return handle

    def stop_all(self) -> None:
        for handle in reversed(self.handles):
            handle.stop()
        self.handles.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop_all()
