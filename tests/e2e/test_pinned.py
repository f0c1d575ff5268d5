"""Pinned host memory the workers map (libhook/src/memory/hostmem.c, server/pinned.py): copies from and
to it are exact, synchronous and asynchronous, on several streams and devices, and carry no data — the
server's log says how many bytes moved through pinned mappings, through the session segment and in
frames. A stranger cannot make a worker map someone else's segment; a client that dies leaves no
segment behind."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import time

import pytest
import zmq

from rgpu.paths import client_env
from rgpu.protocol import wire
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.server.shm import boot_id
from tests.support.daemons import wait_until

pytestmark = pytest.mark.e2e

MIB = 1 << 20


def _run(exe, urls, *args, **env):
    e = client_env(urls)
    e.update(env)
    p = subprocess.Popen([str(exe), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)
    p.stdout, p.stderr = p.communicate(timeout=300)
    return p


def _ended(handle, count=1):
    lines = wait_until(lambda: (lambda f: f if len(f) >= count else None)(
        re.findall(r"event=session_ended .*", handle.output(400000))), 20, "session end")
    return lines


def _field(line, name):
    return int(re.search(rf"\b{name}=(\d+)", line).group(1))


def _segments(pid=None):
    pre = f"rgpu-{pid}-h" if pid else "rgpu-"
    return sorted(f for f in os.listdir("/dev/shm") if f.startswith(pre) and "-h" in f)


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_pinned_copies_are_exact_and_move_no_data(cuda_program, start_server, cudart):
    """`static`: NVIDIA's runtime inside the program pins through rgpu's driver (cuMemHostAlloc)."""
    url, handle = start_server()
    exe = cuda_program("pinned_copies", cudart=cudart)
    p = _run(exe, [url], "8")
    assert p.returncode == 0 and "OK pinned_copies 1 device(s) 8 MiB" in p.stdout, p.stdout + p.stderr
    (line,) = _ended(handle)
    # H2D from pinned: 8 MiB sync + 4 MiB at an offset + 8 MiB on streams + 8 MiB then freed + the
    # shared buffer's 8 MiB; D2H into pinned: as many again, less the registered range's
    assert _field(line, "pinned_bytes_in") >= 36 * MIB, line
    assert _field(line, "pinned_bytes_out") >= 28 * MIB, line
    # the registered range (the staged path) is the only bulk data: through the session segment
    assert _field(line, "shm_bytes_in") <= 8 * MIB + 4096 and _field(line, "bytes_in") < MIB, line
    assert "pinned_segments=0" in line  # every segment was unmapped at its cudaFreeHost
    assert not _segments(p.pid), "the program's pinned segments are gone after its exit"


def test_pinned_memory_is_portable_across_two_servers(cuda_program, start_server):
    (a, ha), (b, hb) = start_server(), start_server()
    p = _run(cuda_program("pinned_copies"), [a, b], "4")
    assert p.returncode == 0 and "OK pinned_copies 2 device(s) 4 MiB" in p.stdout, p.stdout + p.stderr
    for h in (ha, hb):
        (line,) = _ended(h)
        assert _field(line, "pinned_bytes_in") >= 16 * MIB and _field(line, "bytes_in") < MIB, line


def test_without_shared_memory_pinned_copies_travel_in_frames(cuda_program, start_server):
    url, handle = start_server()
    p = _run(cuda_program("pinned_copies"), [url], "4", RGPU_SHM="0")
    assert p.returncode == 0 and "OK pinned_copies" in p.stdout, p.stdout + p.stderr
    (line,) = _ended(handle)
    assert _field(line, "pinned_bytes_in") == 0 and _field(line, "bytes_in") >= 16 * MIB, line


def _session(url):
    """A raw session with a genuine same-host segment (as the client library offers one)."""
    from rgpu.client.server_client import request
    r = request(url, {"op": "hello", "proto": wire.PROTOCOL_VERSION, "client": "test", "cuda": 13000,
                      "lease": "", "gpu": 0})
    assert r["ok"], r
    name = f"/rgpu-{os.getpid()}-0-{os.urandom(4).hex()}"
    fd = os.open("/dev/shm" + name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
    os.ftruncate(fd, 1 << 20)
    nonce = os.urandom(16)
    os.pwrite(fd, nonce, 0)
    os.close(fd)
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(r["endpoint"].replace("tcp://*:", "tcp://127.0.0.1:"))
    offer = {"name": name, "size": 1 << 20, "nonce": nonce, "boot": boot_id()}
    sock.send(wire.encode_requests([(1, wire.ATTACH, 1, [r["session"], r["key"], offer], 0)]))
    assert sock.poll(10000)
    reply = wire.unpack(sock.recv_multipart()[0])
    os.unlink("/dev/shm" + name)
    assert reply[2][0] is True, reply
    return sock


def _pinned_segment(size=1 << 16, pid=None):
    name = f"/rgpu-{pid or os.getpid()}-h{os.urandom(8).hex()}"
    fd = os.open("/dev/shm" + name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
    os.ftruncate(fd, size)
    nonce = os.urandom(16)
    os.pwrite(fd, nonce, 0)
    os.pwrite(fd, b"z" * 64, 4096)
    os.close(fd)
    return name, nonce, size


def _call(sock, seq, call, args, pin):
    sock.send(wire.pack([[seq, BY_NAME[call], 1, args, 0, [[], 0, pin]]]))
    assert sock.poll(10000)
    return wire.unpack(sock.recv_multipart()[0])


def test_a_stranger_cannot_make_a_worker_map_a_segment(start_server):
    """Only the nonce the segment's creator wrote opens it: a client naming another's segment (the
    same user could open it, a worker of any user's server would try) is refused, and so are names
    not of the client library's form, paths out of /dev/shm, regions outside the segment."""
    url, handle = start_server()
    sock = _session(url)
    name, nonce, size = _pinned_segment()
    try:
        seq, rc, outs, *_ = wire.unpack(_raw(sock, 2, "cudaMalloc", [4096]))
        addr = outs[0]
        reply = _call(sock, 3, "cudaMemcpy", [addr, 0, 64, 1], [name, b"w" * 16, size, 4096, 64])
        assert reply[1] != 0 and "nonce differs" in reply[4], reply
        for bad in ("/../etc/passwd", "/rgpu-1-hdeadbeef", name + "/x"):
            assert _call(sock, 4, "cudaMemcpy", [addr, 0, 64, 1], [bad, nonce, size, 4096, 64])[1] != 0
        assert _call(sock, 5, "cudaMemcpy", [addr, 0, 64, 1], [name, nonce, size, 0, 64])[1] != 0  # the nonce page
        assert _call(sock, 6, "cudaMemcpy", [addr, 0, 64, 1], [name, nonce, size, size - 32, 64])[1] != 0
        assert _call(sock, 7, "cudaMemcpy", [addr, 0, 64, 1], [name, nonce, size + 4096, 4096, 64])[1] != 0
        # the genuine reference works: the bytes come from the segment
        assert _call(sock, 8, "cudaMemcpy", [addr, 0, 64, 1], [name, nonce, size, 4096, 64])[1] == 0
        frames = _raw(sock, 9, "cudaMemcpy", [0, addr, 64, 2], frames=True)
        assert bytes(frames[1]) == b"z" * 64
        # a call whose record does not allow the same-host path cannot name one
        assert _call(sock, 10, "cudaMemset", [addr, 0, 64], [name, nonce, size, 4096, 64])[1] != 0
    finally:
        os.unlink("/dev/shm" + name)
        sock.close()


def _raw(sock, seq, call, args, frames=False):
    sock.send(wire.encode_requests([(seq, BY_NAME[call], 1, args, 0)]))
    assert sock.poll(10000)
    got = sock.recv_multipart()
    return got if frames else got[0]


def test_a_client_that_dies_leaves_no_segment(cuda_program, start_server):
    """Killed while the worker has its pinned memory mapped: the worker unlinks the dead client's
    segments it mapped when the session ends, and the next program that pins memory sweeps the rest."""
    url, handle = start_server("--session-grace", "1")
    exe = cuda_program("pinned_copies")
    p = subprocess.Popen([str(exe), "256"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env=client_env([url]))
    try:
        wait_until(lambda: "event=pinned_mapped" in handle.output(200000), 120, "a pinned segment mapped")
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    assert _segments(p.pid)  # what the program had pinned (the worker may not have them all)
    (line,) = _ended(handle)
    assert "reason=client_gone" in line
    mapped = set(re.findall(r"event=pinned_mapped .*?name=/(\S+)", handle.output(400000)))
    assert mapped
    wait_until(lambda: not mapped & set(_segments(p.pid)), 10, "the worker unlinking what it had mapped")
    q = _run(exe, [url], "1")
    assert q.returncode == 0, q.stdout + q.stderr
    assert not _segments(p.pid), "the next program that pinned memory swept the rest"
