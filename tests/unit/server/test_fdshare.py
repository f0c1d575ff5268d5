"""A worker's share of file descriptors (server/backends/cuda/fdshare.py): the physical memory of a
session's arena, exported for CUDA IPC, fetched by another worker with the token its handle's record
holds; nothing without the token, and nothing once the allocation was freed."""
from __future__ import annotations

import os
import socket

import pytest

from rgpu.server.backends.cuda import fdshare


@pytest.fixture
def share():
    s = fdshare.FdShare()
    yield s
    s.close()


def _memory_file(data: bytes) -> int:
    fd = os.memfd_create("fdshare-test")
    os.write(fd, data)
    return fd


def test_a_descriptor_is_fetched_with_its_token_and_is_the_same_file(share):
    token = share.offer(_memory_file(b"arena granule"))
    got = fdshare.fetch(share.name, token)
    try:
        assert os.pread(got, 13, 0) == b"arena granule"
        os.pwrite(got, b"A", 0)  # one file: what the opener writes, the exporter's memory holds
        again = fdshare.fetch(share.name, token)  # a second opener gets it too
        assert os.pread(again, 1, 0) == b"A"
        os.close(again)
    finally:
        os.close(got)


def test_a_wrong_or_withdrawn_token_gets_nothing(share):
    token = share.offer(_memory_file(b"x"))
    with pytest.raises(OSError, match="no memory under this handle"):
        fdshare.fetch(share.name, bytes(16))
    share.withdraw(token)  # the allocation was freed
    with pytest.raises(OSError, match="no memory under this handle"):
        fdshare.fetch(share.name, token)


def test_a_silent_or_short_caller_is_dropped_and_the_share_serves_on(share):
    token = share.offer(_memory_file(b"y"))
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as c:
        c.connect("\0" + share.name)
        c.sendall(b"short")  # then nothing: the share gives up on it after a second
        c.settimeout(5)
        assert c.recv(1) in (b"", b"\0")
    fd = fdshare.fetch(share.name, token)
    os.close(fd)


def test_a_closed_share_is_gone():
    s = fdshare.FdShare()
    token = s.offer(_memory_file(b"z"))
    s.close()
    with pytest.raises(OSError):
        fdshare.fetch(s.name, token, timeout=1)
