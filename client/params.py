"""What the ``rgpu`` commands share: the URL parameter type, the waiting line of a queued request,
and failing cleanly (a sentence on stderr, or one JSON error under ``--json``; never a traceback;
the exit code says the class of failure: client/exits.py)."""
from __future__ import annotations

import json
import re
import sys
import time

import click

from . import exits

_PORT = r"[0-9]{1,5}"


class Url(click.ParamType):
    """A ZeroMQ URL: ``tcp://HOST:PORT`` or ``ipc://PATH``; ``HOST:PORT`` (or ``:PORT``, this host)
    means ``tcp://HOST:PORT``. A server URL may add ``@KEY`` (the server's public key, 64 hex digits)
    and ``#N`` (its GPU N), as RGPU_SERVER entries do; ``server=True`` allows those and commas
    between several; ``several=True`` allows commas between several (a controller's replicas)."""

    def __init__(self, server: bool = False, several: bool = False):
        self.server, self.several = server, several or server
        self.name = "url"

    def normalise(self, text: str) -> str:
        text = text.strip()
        tail = ""
        if self.server:
            m = re.search(r"(@[0-9a-fA-F]{64})?(#[0-9]+)?$", text)
            tail, text = m.group(0), text[:m.start()]
        if text.startswith("ipc://") and len(text) > 6:
            return text + tail
        if text.startswith("tcp://"):
            text = text[6:]
        elif "://" in text:
            raise ValueError(f"{text!r}: only tcp:// and ipc:// URLs are served")
        host, sep, port = text.rpartition(":")
        if not sep or not re.fullmatch(_PORT, port) or not 0 < int(port) < 65536 or " " in host:
            raise ValueError(f"{text!r} is not a URL: use tcp://HOST:PORT (or HOST:PORT), or ipc://PATH")
        return f"tcp://{host or '127.0.0.1'}:{port}" + tail

    def convert(self, value, param, ctx):
        if value is None:
            return None
        try:
            if self.several:
                return ",".join(self.normalise(v) for v in str(value).split(",") if v.strip())
            return self.normalise(str(value))
        except ValueError as e:
            self.fail(str(e), param, ctx)


CONTROLLER_URL = Url()
CONTROLLER_URLS = Url(several=True)   # the replicas of one controller cluster
SERVER_URL = Url(server=True)


def fail(as_json: bool, code: str, message: str, exit_code: int | None = None):
    """End the command: ``rgpu: error: message`` on stderr, or ``{"ok": false, ...}`` on stdout; the
    exit code is the class of ``code`` (client/exits.py) unless given."""
    if exit_code is None:
        exit_code = exits.for_error(code)
    if as_json:
        click.echo(json.dumps({"ok": False, "error": code, "message": message}))
    else:
        click.echo(f"rgpu: error: {message}", err=True)
    sys.exit(exit_code)


class ProgressLine:
    """The one line a long wait shows: on a terminal it is rewritten in place (with the elapsed
    time); elsewhere (a log, a pipe) a line is written only when what it says, other than the
    time, changes."""

    def __init__(self, stream=None, clock=time.monotonic):
        self.stream = stream or sys.stderr
        self.clock = clock
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = clock()
        self.last: tuple | None = None
        self.shown = False

    def elapsed(self) -> float:
        return self.clock() - self.start

    def show(self, text: str, key: tuple) -> None:
        """Show ``text``; ``key``: what it says apart from the time (a changed key is a new line
        off a terminal)."""
        if self.tty:
            width = 200
            try:
                import shutil
                width = shutil.get_terminal_size((200, 20)).columns - 1
            except OSError:
                pass
            self.stream.write("\r\033[K" + text[:width])
            self.stream.flush()
            self.shown = True
        elif key != self.last:
            self.stream.write(text + "\n")
            self.stream.flush()
        self.last = key

    def done(self) -> None:
        """End the line on a terminal (the next output starts on a line of its own)."""
        if self.tty and self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False


class WaitLine(ProgressLine):
    """A queued request's line: elapsed time, position, why it does not fit yet."""

    def __call__(self, reply: dict) -> None:
        position, message = reply.get("position", 0), str(reply.get("message", ""))
        self.show(f"rgpu: waiting {self.elapsed():.0f}s, position {position} in queue: {message}",
                  (position, message))
