"""Shared-memory segments as the client library makes them (libhook/src/transport/shm.c, the session's;
libhook/src/memory/hostmem.c, pinned memory): /dev/shm/NAME, mode 0600, a random nonce in its first
page. The caller unlinks it (`unlink`) when the test is done with it."""
from __future__ import annotations

import os


def make(name: str, size: int) -> bytes:
    """Create segment `name` (with its leading /) of `size` bytes; its nonce."""
    fd = os.open("/dev/shm" + name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
    try:
        os.ftruncate(fd, size)
        nonce = os.urandom(16)
        os.pwrite(fd, nonce, 0)
    finally:
        os.close(fd)
    return nonce


def unlink(name: str) -> None:
    os.unlink("/dev/shm" + name)
