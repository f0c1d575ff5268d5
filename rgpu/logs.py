"""The one structlog configuration of rgpu: every daemon (controller, server and its workers, the
Kubernetes device plugin) and the CLI.

Daemons write one line per event to stderr, ``logfmt`` by default
(``timestamp=... level=info event=lease_created component=controller lease=l-3f...``) or one JSON
object per line with ``--log-format json`` (for log shippers). Event names are snake_case: what
happened (``session_opened``), with the details as keys. The level comes from ``--log-level``, else
``RGPU_LOG`` (error, warn, info, debug — the variable the client library reads too), else info.

The CLI is for people: it prints only warnings and errors (unless RGPU_LOG asks for more), as a
sentence — ``rgpu: warning: lease renew failed: ...`` — never as key=value records.
"""
from __future__ import annotations

import logging
import os
import sys

import click
import structlog

FORMATS = ("logfmt", "json")
LEVELS = ("debug", "info", "warning", "error")
_ALIASES = {"warn": "warning", "err": "error"}
_ORDER = ["timestamp", "level", "event", "component"]


def level_of(level: str | None, default: str = "info") -> int:
    """The logging level of ``level``, else of RGPU_LOG, else ``default``."""
    name = (level or os.environ.get("RGPU_LOG") or default).strip().lower()
    name = _ALIASES.get(name, name)
    return getattr(logging, name.upper(), None) if name in LEVELS else getattr(logging, default.upper())


def _human(_logger, method: str, event: dict) -> str:
    """A CLI line: ``rgpu: warning: lease renew failed: message (lease=l-...)``."""
    text = str(event.pop("event", "")).replace("_", " ")
    event.pop("level", None)
    message = event.pop("message", None)
    rest = " ".join(f"{k}={v}" for k, v in event.items() if k not in ("timestamp", "component", "pid"))
    return f"rgpu: {method}: {text}" + (f": {message}" if message else "") + (f" ({rest})" if rest else "")


class _StderrLogger:
    """Writes each line to the sys.stderr of the moment of writing, not of configuring: a CLI run
    inside another program (click's test runner, a notebook) may swap stderr and close the old one.

    A line and its newline go in one write. Under PYTHONUNBUFFERED (which container images commonly
    set) stderr writes through, and print() writes the two separately: a server's workers share one
    stderr, and two of them logging at the same instant left ``line line\n\n``, one record merged
    into another and lost to anything that reads the log by line."""

    def msg(self, message: str) -> None:
        stream = sys.stderr
        if stream is None:  # a process started without one (pythonw, a closed fd 2): nowhere to write
            return
        stream.write(message + "\n")
        stream.flush()

    log = debug = info = warning = warn = error = critical = exception = fatal = msg


def _stderr_logger(*_args) -> _StderrLogger:
    return _StderrLogger()


def configure(component: str, level: str | None = None, fmt: str = "logfmt") -> structlog.BoundLogger:
    """Set up structlog for this process; returns a logger bound to ``component`` and the pid."""
    if fmt not in FORMATS:
        raise ValueError(f"log format {fmt!r}: one of {', '.join(FORMATS)}")
    renderer = structlog.processors.JSONRenderer() if fmt == "json" else \
        structlog.processors.LogfmtRenderer(key_order=_ORDER, drop_missing=True)
    structlog.configure(
        processors=[structlog.processors.add_log_level, structlog.processors.TimeStamper(fmt="iso", utc=True),
                    structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(level_of(level)),
        logger_factory=_stderr_logger,
        cache_logger_on_first_use=False,
    )
    return structlog.get_logger().bind(component=component, pid=os.getpid())


def configure_cli() -> None:
    """The CLI's logging: sentences on stderr, warnings and errors only unless RGPU_LOG says more."""
    structlog.configure(
        processors=[structlog.processors.add_log_level, _human],
        wrapper_class=structlog.make_filtering_bound_logger(level_of(None, "warning")),
        logger_factory=_stderr_logger,
        cache_logger_on_first_use=False,
    )


def options(f):
    """``--log-level`` and ``--log-format`` of a daemon's command line."""
    f = click.option("--log-format", type=click.Choice(FORMATS), default="logfmt", show_default=True,
                     help="logfmt (key=value) lines, or one JSON object per line")(f)
    f = click.option("--log-level", type=click.Choice([*LEVELS, "warn"], case_sensitive=False), default=None,
                     help="debug, info, warning or error (default: RGPU_LOG, else info)")(f)
    return f
