"""The CUDA IPC handles exported on one server: a private directory every worker of the server reads
(the supervisor makes it before the first worker and removes it at shutdown).

A handle's record is a file named by its token and the exporting worker's pid, written whole
(rename) by that worker, removed by it when the allocation or event goes or its session ends, and
by the supervisor when the worker exits however it ends. The token is 16 random bytes: a handle
cannot be guessed, and what opens it is still checked against who exported it (server/api/ipc.py).

The directory's name carries the supervisor's pid and its pid namespace: a server that was killed
(SIGKILL, a lost machine's reboot without a tmpfs) cannot remove its own, so the next server started
here removes those whose process is gone, instead of /tmp filling with one per crash. Only its own
namespace's: a container sharing this /tmp sees pids that are not the same processes."""
from __future__ import annotations

import glob
import os
import re
import shutil
import tempfile

import msgpack

PREFIX = "rgpu-ipc-"
_NAMED = re.compile(r"(\d+)-[^/]+$")  # after the namespace: the pid, then mkdtemp's letters


def _namespace() -> int:
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def prefix(pid: int | None = None) -> str:
    """The start of the name of the directory of the server whose supervisor is `pid` (this
    process by default), in this process's pid namespace."""
    return f"{PREFIX}{_namespace()}-{os.getpid() if pid is None else int(pid)}-"


def make() -> str:
    sweep()
    # 0700: only this server's user reads records
    return tempfile.mkdtemp(prefix=prefix())


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False


def sweep() -> list[str]:
    """Remove this user's directories whose server is no longer running; returns them."""
    removed = []
    ours = f"{PREFIX}{_namespace()}-"
    for path in glob.glob(os.path.join(tempfile.gettempdir(), ours + "*")):
        m = _NAMED.match(os.path.basename(path)[len(ours):])
        try:
            mine = os.lstat(path).st_uid == os.getuid()
        except OSError:
            continue
        if m and mine and os.path.isdir(path) and not os.path.islink(path) and _gone(int(m.group(1))):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def remove_all(directory: str) -> None:
    shutil.rmtree(directory, ignore_errors=True)


def _path(directory: str, token: bytes, pid: int) -> str:
    return os.path.join(directory, f"{token.hex()}.{int(pid)}")


def write(directory: str, token: bytes, pid: int, record: dict) -> None:
    path = _path(directory, token, pid)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".new-")
    with os.fdopen(fd, "wb") as f:
        f.write(msgpack.packb(record, use_bin_type=True))
    os.rename(tmp, path)


def read(directory: str, token: bytes, pid: int) -> dict | None:
    try:
        with open(_path(directory, token, pid), "rb") as f:
            return msgpack.unpackb(f.read(), raw=False)
    except (OSError, ValueError, msgpack.UnpackException):
        return None


def remove(directory: str, token: bytes, pid: int) -> None:
    try:
        os.unlink(_path(directory, token, pid))
    except FileNotFoundError:
        pass


def forget_pid(directory: str, pid: int) -> None:
    """The records of a worker that exited: its handles open nothing any more."""
    for path in glob.glob(os.path.join(directory, f"*.{int(pid)}")):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
