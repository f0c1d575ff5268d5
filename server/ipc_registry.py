"""The CUDA IPC handles exported on one server: a private directory every worker of the server reads
(the supervisor makes it before the first worker and removes it at shutdown).

A handle's record is a file named by its token and the exporting worker's pid, written whole
(rename) by that worker, removed by it when the allocation or event goes or its session ends, and
by the supervisor when the worker exits however it ends. The token is 16 random bytes: a handle
cannot be guessed, and what opens it is still checked against who exported it (server/api/ipc.py)."""
from __future__ import annotations

import glob
import os
import shutil
import tempfile

import msgpack


def make() -> str:
    return tempfile.mkdtemp(prefix="rgpu-ipc-")  # 0700: only this server's user reads records


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
