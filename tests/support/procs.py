"""Processes as /proc shows them, for tests that look at what a daemon or `rgpu run` started."""
from __future__ import annotations

import os


def _fields(pid: int | str) -> list[str]:
    """The fields of /proc/PID/stat after the command's name (which may hold spaces and parentheses)."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def state(pid: int) -> str:
    """The process's state letter: T stopped, Z a zombie; '' when it is gone."""
    try:
        return _fields(pid)[0]
    except (OSError, IndexError):
        return ""


def cmdline(pid: int) -> bytes:
    """Its command line, NUL-separated; b'' when it is gone."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""


def parents() -> dict[int, int]:
    """Every process's parent."""
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                out[int(entry)] = int(_fields(entry)[1])
            except (OSError, IndexError, ValueError):
                pass
    return out


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``."""
    children: dict[int, list[int]] = {}
    for child, parent in parents().items():
        children.setdefault(parent, []).append(child)
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out
