"""Shared-memory segments as the client library makes them (libhook/src/transport/shm.c, the session's;
libhook/src/memory/hostmem.c, pinned memory): /dev/shm/NAME, mode 0600, a random nonce in its first
page. The caller unlinks it (`unlink`) when the test is done with it."""
from __future__ import annotations

import mmap
import os

import zmq


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


def attached_session(url: str, size: int, ring: int | None = None) -> tuple[mmap.mmap, zmq.Socket]:
    """A session of the server at `url` opened as the client library opens one on the worker's host: a
    hello, then an attach offering a genuine segment of `size` bytes, with the call ring at offset `ring`
    when given. The segment's mapping and the session's DEALER socket, the offer accepted; the segment's
    name is unlinked once the worker has mapped it."""
    from rgpu.client.server_client import request
    from rgpu.protocol import wire
    from rgpu.server.shm import boot_id
    r = request(url, {"op": "hello", "proto": wire.PROTOCOL_VERSION, "client": "test", "cuda": 13000,
                      "lease": "", "gpu": 0})
    assert r["ok"], r
    name = f"/rgpu-{os.getpid()}-0-{os.urandom(4).hex()}"
    nonce = make(name, size)
    try:
        fd = os.open("/dev/shm" + name, os.O_RDWR)
        mm = mmap.mmap(fd, size)
        os.close(fd)
        sock = zmq.Context.instance().socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(r["endpoint"].replace("tcp://*:", "tcp://127.0.0.1:"))
        offer = {"name": name, "size": size, "nonce": nonce, "boot": boot_id(),
                 **({"ring": ring} if ring is not None else {})}
        sock.send(wire.encode_requests([(1, wire.ATTACH, 1, [r["session"], r["key"], offer], 0)]))
        assert sock.poll(10000), "the attach's reply"
        reply = wire.unpack(sock.recv_multipart()[0])
    finally:
        unlink(name)
    assert reply[2][0] is True, reply  # the worker mapped the segment
    return mm, sock
