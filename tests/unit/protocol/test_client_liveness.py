"""How the client library judges its worker (libhook/src/transport/liveness.c), compiled alone: by how
long its connection has brought no data, as the kernel saw it (TCP_INFO), counted on the waiting
thread's own clock, so that a program continued after a stop is not taken for a worker's silence."""
from __future__ import annotations

import ctypes
import os
import socket
import time

import pytest

from tests.support import clib


class Watch(ctypes.Structure):
    _fields_ = [("start", ctypes.c_double), ("last", ctypes.c_double)]


@pytest.fixture
def lib(tmp_path):
    so = clib.build(tmp_path / "libliveness.so", clib.TRANSPORT / "liveness.c")
    so.rgpu_watch_begin.argtypes = [ctypes.POINTER(Watch), ctypes.c_double]
    so.rgpu_watch_look.argtypes = [ctypes.POINTER(Watch), ctypes.c_int, ctypes.c_double, ctypes.c_double,
                                   ctypes.POINTER(ctypes.c_double)]
    return so


@pytest.fixture
def pair():
    """A TCP connection on loopback: (the client's end, the worker's end)."""
    with socket.create_server(("127.0.0.1", 0)) as srv:
        client = socket.create_connection(srv.getsockname())
        worker, _ = srv.accept()
    worker.sendall(b"ping")
    assert client.recv(4) == b"ping"
    yield client, worker
    client.close()
    worker.close()


def look(lib, w: Watch, fd: int, now: float, silence: float):
    quiet = ctypes.c_double(-1)
    verdict = lib.rgpu_watch_look(ctypes.byref(w), fd, now, silence, ctypes.byref(quiet))
    return verdict, quiet.value


def test_a_connection_that_brings_nothing_for_the_silence_is_a_worker_gone(lib, pair):
    client, _ = pair
    w = Watch()
    lib.rgpu_watch_begin(ctypes.byref(w), 100.0)
    time.sleep(0.4)  # nothing comes: the kernel's count of quiet passes 0.3 s
    assert look(lib, w, client.fileno(), 100.5, 0.3)[0] == 0  # no look within a second of the last
    verdict, quiet = look(lib, w, client.fileno(), 101.0, 0.3)
    assert verdict == 1 and quiet >= 0.3


def test_data_that_came_lately_is_a_worker_alive(lib, pair):
    client, worker = pair
    w = Watch()
    lib.rgpu_watch_begin(ctypes.byref(w), 100.0)
    time.sleep(0.4)
    worker.sendall(b"ping")  # a ping of the worker's: the kernel took it even if nobody read it yet
    time.sleep(0.05)
    verdict, quiet = look(lib, w, client.fileno(), 101.0, 0.3)
    assert verdict == 0 and quiet < 0.3


def test_a_gap_between_looks_is_a_program_stopped_and_the_count_starts_again(lib, pair):
    client, _ = pair
    w = Watch()
    lib.rgpu_watch_begin(ctypes.byref(w), 100.0)
    time.sleep(0.4)
    # the program was stopped 5 s mid-wait (a gap of more than 3 s between looks): whatever the kernel
    # saw meanwhile, this wait has watched nothing yet
    assert look(lib, w, client.fileno(), 105.0, 0.3)[0] == 0
    assert look(lib, w, client.fileno(), 106.0, 0.3)[0] == 1  # a second of its own, still nothing


def test_both_counts_must_reach_the_silence_the_waits_own_and_the_kernels(lib, pair):
    client, _ = pair
    time.sleep(0.4)
    w = Watch()
    lib.rgpu_watch_begin(ctypes.byref(w), 200.0)
    assert look(lib, w, client.fileno(), 201.0, 2.0)[0] == 0
    assert look(lib, w, client.fileno(), 202.0, 2.0)[0] == 0  # watched 2 s, but the kernel saw 0.4 s
    assert look(lib, w, client.fileno(), 203.0, 0.3)[0] == 1


def test_what_is_no_tcp_socket_gives_no_verdict(lib):
    r, wfd = os.pipe()
    w = Watch()
    lib.rgpu_watch_begin(ctypes.byref(w), 0.0)
    try:
        assert look(lib, w, r, 100.0, 0.0) == (0, -1.0)
        assert look(lib, w, -1, 200.0, 0.0) == (0, -1.0)
    finally:
        os.close(r)
        os.close(wfd)
