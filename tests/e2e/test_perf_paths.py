"""The data path's fast paths keep CUDA's semantics: large copies in chunks, the same-host
shared-memory path (and its fallback to frames), with the server's log as the witness of which
path the bytes took."""
from __future__ import annotations

import re
import subprocess

import pytest
import zmq

from rgpu.client.server_client import request
from rgpu.paths import client_env
from rgpu.protocol import wire
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.protocol.generated.constants import RING_PIECE
from tests.support.daemons import wait_until

pytestmark = pytest.mark.e2e


def _run(exe, url, *args, **env):
    e = client_env([url])
    e.update(env)
    return subprocess.run([str(exe), *args], capture_output=True, text=True, env=e, timeout=120)


def _ended(handle):
    """The session_ended lines of the server's log (the worker logs how its bytes travelled)."""
    return wait_until(lambda: re.findall(r"event=session_ended .*", handle.output(200000)), 15, "session end")


def test_copies_through_shared_memory_are_exact_and_use_it(cuda_program, start_server):
    url, handle = start_server()
    exe = cuda_program("copy_roundtrip")
    p = _run(exe, url, "64", RGPU_SHM="1")
    assert p.returncode == 0 and "OK copy_roundtrip" in p.stdout, p.stdout + p.stderr
    log = handle.output(200000)
    assert "event=shm_attached " in log
    (line,) = _ended(handle)
    shm_in = int(re.search(r"shm_bytes_in=(\d+)", line).group(1))
    shm_out = int(re.search(r"shm_bytes_out=(\d+)", line).group(1))
    assert shm_in >= 64 << 20 and shm_out >= 64 << 20, line
    assert int(re.search(r"bytes_in=(\d+)", line).group(1)) < 1 << 20  # no bulk frames to speak of


def _pools(stderr: str) -> list[int]:
    """The processes whose client library started its copy threads (copies.c logs it at info)."""
    return [int(pid) for pid in re.findall(r"rgpu\[(\d+):\d+\] info: copy pool: 3 threads", stderr)]


@pytest.mark.parametrize("threads", ["1", "3"])
@pytest.mark.parametrize("pipeline", ["1", "0"])
def test_a_staged_copy_is_exact_pipelined_or_whole(cuda_program, start_server, pipeline, threads):
    """By default a large copy from pageable memory is staged in chunks after its call is sent, the
    worker copying each chunk as it arrives (session.c stage_progressive, staging.py run_staged), and
    one back into pageable memory is written into the segment in chunks the client copies out as
    they land (session.c take_early, staging.py _run_staged_out); RGPU_SHM_PIPELINE=0 stages each whole.
    The client's side of either is one thread's memcpy or, with RGPU_COPY_THREADS, several threads'."""
    url, handle = start_server()
    p = _run(cuda_program("copy_roundtrip"), url, "64", RGPU_SHM="1", RGPU_SHM_PIPELINE=pipeline,
             RGPU_COPY_THREADS=threads, RGPU_LOG="info")
    assert p.returncode == 0 and "OK copy_roundtrip" in p.stdout, p.stdout + p.stderr
    assert len(_pools(p.stderr)) == (threads == "3"), p.stderr
    (line,) = _ended(handle)
    assert int(re.search(r"shm_bytes_in=(\d+)", line).group(1)) >= 64 << 20, line
    assert int(re.search(r"shm_bytes_out=(\d+)", line).group(1)) >= 64 << 20, line
    assert int(re.search(r"\bbytes_in=(\d+)", line).group(1)) < 1 << 20
    assert int(re.search(r"\bbytes_out=(\d+)", line).group(1)) < 1 << 20


@pytest.mark.parametrize("pipeline", ["1", "0"])
def test_copies_by_several_threads_are_exact_and_a_forked_child_starts_its_own(cuda_program, start_server,
                                                                              pipeline):
    """With RGPU_COPY_THREADS=3 the client's part of a large same-host copy is split among threads
    (copies.c): exact at host offsets and lengths no slice divides, both ways, writing nothing around
    the destination. A child forked after them (the pool running) starts a pool of its own for a large
    host-to-host copy, instead of waiting on threads it does not have, and the parent's goes on."""
    url, handle = start_server()
    p = _run(cuda_program("copy_threads"), url, "24", RGPU_SHM="1", RGPU_SHM_PIPELINE=pipeline,
             RGPU_COPY_THREADS="3", RGPU_LOG="info")
    assert p.returncode == 0 and "OK copy_threads 24 MiB" in p.stdout, p.stdout + p.stderr
    parent, child = map(int, re.search(r"parent (\d+) child (\d+)", p.stdout).groups())
    assert f"OK child {child}" in p.stdout
    assert sorted(_pools(p.stderr)) == sorted([parent, child]), p.stderr
    (line,) = _ended(handle)
    assert int(re.search(r"shm_bytes_in=(\d+)", line).group(1)) >= 80 << 20, line  # the 84 MiB H2D, through the segment


def test_without_shared_memory_large_copies_travel_in_frames(cuda_program, start_server):
    url, handle = start_server()
    exe = cuda_program("copy_roundtrip")
    p = _run(exe, url, "80", RGPU_SHM="0")  # 80 MiB: 20 chunk frames each way
    assert p.returncode == 0 and "OK copy_roundtrip" in p.stdout, p.stdout + p.stderr
    (line,) = _ended(handle)
    assert "event=shm_attached " not in handle.output(200000)
    assert int(re.search(r"bytes_in=(\d+)", line).group(1)) >= 80 << 20
    assert "shm_bytes_in=0" in line
    # 80 MiB each way in PIECE_COUNT (16) pieces of 5 MiB: 15 before the sync call, each its own message
    assert re.search(r"\bpieces_in=15\b", line) and re.search(r"\bpieces_out=15\b", line), line


def _ring_pieces_in(n: int) -> int:
    """The PIECE_IN calls of an async copy of n bytes from pageable memory on the call ring: all its
    pieces of RING_PIECE (constants.toml: 240 KiB) but the last, the copy's own call."""
    return -(-n // RING_PIECE) - 1


@pytest.mark.parametrize("shm", ["0", "whole", "pipelined", "8MiB segment", "pipelined, 3 copy threads"])
def test_large_copies_in_pieces_are_exact_and_refused_whole(cuda_program, start_server, shm):
    """Without shared memory a large sync copy travels in pieces (server/pieces.py): exact at sizes that
    do and do not divide, in both faces; one past its allocation's end fails whole, writing nothing.
    With shared memory the same program's sync copies move their data through the segment instead."""
    url, handle = start_server()
    env = {"RGPU_SHM": "0"} if shm == "0" else {"RGPU_SHM": "1", "RGPU_SHM_PIPELINE": "0" if shm == "whole" else "1"}
    if shm.endswith("copy threads"):
        env.update(RGPU_COPY_THREADS="3", RGPU_LOG="info")
    if shm == "8MiB segment":
        env["RGPU_SHM_SIZE"] = "8"  # copies larger than the segment travel in frames: in pieces
    p = _run(cuda_program("driver_copy_pieces"), url, "16", **env)
    assert p.returncode == 0 and "OK driver_copy_pieces 16 MiB" in p.stdout, p.stdout + p.stderr
    assert len(_pools(p.stderr)) == shm.endswith("copy threads"), p.stderr
    (line,) = _ended(handle)
    pieces_in, pieces_out = (int(re.search(rf"{k}=(\d+)", line).group(1)) for k in ("pieces_in", "pieces_out"))
    # Async copies from pageable memory travel in frames, on the same host in pieces a call-ring record
    # holds (RING_PIECE, 240 KiB): the async 16 and 8 MiB, and the refused one's end
    ring = _ring_pieces_in(16 << 20) + _ring_pieces_in(8 << 20) + 1
    if shm == "8MiB segment":
        # the sync 16 MiB copies as without shared memory, the 4 MiB + 1 and 8 MiB ones through the segment
        assert pieces_in == 3 * 7 + 2 + ring and pieces_out == 3 * 7 + 7 + 7, line
    elif shm != "0":
        assert pieces_in == ring and pieces_out == 0, line
    else:
        # Pieces of 2 MiB at these sizes: 16 MiB (or less, not by much) goes in 8, the copy's last call
        # and 7 before it; 8 MiB in 4, 4 MiB + 1 in 3. H2D: three sync copies of 16 MiB, the small one,
        # the async 16 and 8 MiB, and one piece run of each of the three refused copies (the end of the
        # range goes first; the rest are skipped). D2H: the three, the small one, the 8 MiB read back
        # twice, the async copies' 16 MiB read back sync and async; none for the refused one, which is
        # checked whole first.
        assert pieces_in == 3 * 7 + 2 + 7 + 3 + 3 and pieces_out == 3 * 7 + 2 + 3 + 3 + 7 + 7, line


def _session(url, offer=None):
    r = request(url, {"op": "hello", "proto": wire.PROTOCOL_VERSION, "client": "test", "cuda": 13000,
                      "lease": "", "gpu": 0})
    assert r["ok"], r
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(r["endpoint"].replace("tcp://*:", "tcp://127.0.0.1:"))
    args = [r["session"], r["key"]] + ([offer] if offer is not None else [])
    sock.send(wire.encode_requests([(1, wire.ATTACH, 1, args, 0)]))
    assert sock.poll(10000)
    return sock, wire.unpack(sock.recv_multipart()[0])


def test_a_segment_that_is_not_shared_is_declined_and_frames_still_work(start_server, device_kind):
    url, handle = start_server()
    offer = {"name": "/rgpu-1-0-deadbeef", "size": 1 << 20, "nonce": b"x" * 16, "boot": "another-host"}
    sock, reply = _session(url, offer)
    assert reply[1] == 0 and reply[2][:2] == [False, device_kind]
    assert reply[2][2]["attrs"] and reply[2][2]["props"]  # the device's facts come with the attach
    assert "event=shm_declined " in handle.output()
    malloc, memcpy = BY_NAME["cudaMalloc"], BY_NAME["cudaMemcpy"]
    sock.send(wire.encode_requests([(2, malloc, 1, [4096], 0)]))
    assert sock.poll(10000)
    addr = wire.unpack(sock.recv_multipart()[0])[2][0]
    # a call naming shared-memory regions on a session without a segment: an error, not a crash
    sock.send(wire.encode_requests([(3, memcpy, 1, [addr, 0, 16, 1], 0, wire.Shm([[4096, 16]], 0))]))
    assert sock.poll(10000)
    seq, rc, *_rest = wire.unpack(sock.recv_multipart()[0])
    assert seq == 3 and rc != 0
    # the same copy with its data as a frame works
    sock.send_multipart([wire.encode_requests([(4, memcpy, 1, [addr, 0, 16, 1], 1)]), b"y" * 16])
    assert sock.poll(10000)
    assert wire.unpack(sock.recv_multipart()[0])[1] == 0
    sock.send(wire.encode_requests([(5, memcpy, 1, [0, addr, 16, 2], 0)]))
    assert sock.poll(10000)
    frames = sock.recv_multipart()
    assert wire.unpack(frames[0])[1] == 0 and frames[1] == b"y" * 16
    sock.close()


def test_pieces_on_the_wire(start_server):
    """The piece protocol as a client speaks it (server/pieces.py): a D2H copy asked with
    SYNC_PIECES_OUT comes back as PIECE_OUT replies at their offsets, then the reply; a PIECE_IN that
    is no H2D copy is the next sync call's error, and the session goes on."""
    url, _handle = start_server()
    sock, reply = _session(url)
    assert reply[1] == 0
    malloc, memcpy = BY_NAME["cudaMalloc"], BY_NAME["cudaMemcpy"]
    n = 6 << 20
    data = bytes(range(256)) * (n // 256)

    def call(seq, cid, args, *frames, sync=1):
        sock.send_multipart([wire.encode_requests([(seq, cid, sync, args, len(frames))]), *frames])

    call(2, malloc, [n])
    assert sock.poll(10000)
    addr = wire.unpack(sock.recv_multipart()[0])[2][0]
    # H2D in two pieces: the second half first, then the first as the sync call
    call(3, memcpy, [addr + n // 2, 0, n // 2, 1], data[n // 2:], sync=wire.PIECE_IN)
    call(4, memcpy, [addr, 0, n // 2, 1], data[:n // 2])
    assert sock.poll(10000) and wire.unpack(sock.recv_multipart()[0])[:2] == [4, 0]
    call(5, memcpy, [0, addr, n, 2], sync=wire.SYNC_PIECES_OUT)
    got, offsets = b"", []
    while True:
        assert sock.poll(10000)
        frames = sock.recv_multipart()
        head = wire.unpack(frames[0])
        assert head[0] == 5
        if head[1] != wire.PIECE_OUT:
            assert head[1] == 0
            got += b"".join(frames[1:])
            break
        offsets.append(head[2][0])
        assert head[2][0] == len(got)
        got += b"".join(frames[1:])
    assert got == data and offsets == [0, 2 << 20]  # 6 MiB in 2 MiB pieces, the last one the reply's
    # a piece that is not a host-to-device copy: the next sync call answers its error, then all is well
    call(6, malloc, [4096], sync=wire.PIECE_IN)
    call(7, memcpy, [addr, 0, 16, 1], b"z" * 16)
    assert sock.poll(10000)
    seq, rc, _outs, _d, msg, *_ = wire.unpack(sock.recv_multipart()[0])
    assert seq == 7 and rc != 0 and "not a host-to-device copy" in msg
    call(8, memcpy, [addr, 0, 16, 1], b"z" * 16)
    assert sock.poll(10000) and wire.unpack(sock.recv_multipart()[0])[:2] == [8, 0]
    sock.close()


@pytest.mark.parametrize("shm", ["1", "0"], ids=["pipelined", "pieces"])
def test_a_copy_waiting_behind_kernels_does_not_spin(cuda_program, start_server, device_sizes, device_kind, shm):
    """A large copy back into pageable memory queued behind about a second of kernels: the client
    waits for the worker to start on it without spending the host's CPU (session.c take_early sleeps
    in the poll until the chunks come). The software GPU interprets the kernels here (--sim-jit off):
    the wait's length is calibrated on the interpreter, and compiled spin kernels end too soon for
    the copy to wait at all."""
    url, _handle = start_server(*(("--sim-jit", "off") if device_kind == "sim" else ()))
    p = _run(cuda_program("wait_then_copy"), url, str(device_sizes["spin_iters"]), str(device_sizes["wait_kernels"]),
             "16", RGPU_SHM=shm)
    assert p.returncode == 0, p.stdout + p.stderr
    wall, cpu = (float(v) for v in re.search(r"WAIT wall=([\d.]+) cpu=([\d.]+)", p.stdout).groups())
    assert wall > 0.3, p.stdout  # the copy did wait for the kernels
    assert cpu < 0.3 * wall, p.stdout
