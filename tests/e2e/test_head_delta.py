"""Heads sent as their differences from the last head of the same length, across hosts
(libhook/src/transport/head_delta.c, server/head_delta.py): a loop whose steps queue the same kernels
with kilobytes of parameters each (failover_launches.cu, as a foreach optimizer's) computes the same
with them as without, while the worker makes nearly every step's head whole from a few hundred bytes;
on one host (the worker maps the client's segment) none is sent; and a delta the worker cannot make
whole ends that session alone, with the reason, while the server serves the next."""
from __future__ import annotations

import os
import re

import msgpack
import pytest

from rgpu.client.server_client import ping
from tests.conftest import run_cli
from tests.support.daemons import wait_until
from tests.support.null_server import start as start_null_server
from tests.support.session import Session

STEPS = 12


def ended(handle, n: int) -> list[str]:
    """The first n session_ended lines of a server's log, waited for."""
    got = wait_until(lambda: (lambda lines: lines if len(lines) >= n else None)(
        re.findall(r"event=session_ended .*", handle.output(1_000_000))), 20, f"{n} sessions' end")
    return got[:n]


def field(line: str, name: str) -> int | None:
    m = re.search(rf"\b{name}=(\d+)", line)
    return int(m.group(1)) if m else None


@pytest.mark.parametrize("backend", ["test", "null"], ids=["test-backend", "cuda-null-driver"])
def test_a_loops_heads_cross_as_differences_and_compute_the_same(cuda_program, daemons, start_server, backend):
    url, handle = start_server() if backend == "test" else start_null_server(daemons)
    exe = str(cuda_program("failover_launches"))
    runs = {}
    for name, env in (("whole", {"RGPU_SHM": "0", "RGPU_HEAD_DELTA": "0"}), ("deltas", {"RGPU_SHM": "0"}),
                      ("same host", {"RGPU_SHM": "1"})):
        p = run_cli("run", "--server", url, "--", exe, str(STEPS), "0", env={**os.environ, **env})
        assert p.returncode == 0 and " OK" in p.stdout, name + ": " + p.stdout + p.stderr[-3000:]
        runs[name] = p.stdout.strip().splitlines()[-1]
    # the same kernels with the same scalars, step by step: the digest of all of the memory tells
    assert runs["deltas"] == runs["whole"] == runs["same host"], runs
    # the three sessions' ends, in whatever order their workers logged them: one whose client sent
    # heads whole, one whose every step's head (24 launches of 1.2 KB) after the first came as its
    # differences from the last step's, and one on this host, whose worker keeps no table
    lines = sorted(ended(handle, 3), key=lambda line: -1 if field(line, "head_deltas") is None
                   else field(line, "head_deltas"))
    same, whole, deltas = lines
    assert field(same, "head_deltas") is None, lines
    assert field(whole, "head_deltas") == 0, lines
    assert field(deltas, "head_deltas") >= STEPS - 1, deltas
    assert field(deltas, "head_bytes_saved") >= (STEPS - 1) * 24_000, deltas


def test_a_delta_the_worker_cannot_make_whole_ends_that_session_alone(start_server):
    url, handle = start_server()
    s = Session(url)  # attaches without a segment, as a client on another host
    rc, (ptr,), _, _ = s.call("cudaMalloc", 4096)
    assert rc == 0
    # a delta against a base this worker never kept: nothing runs, the session ends with the reason
    record = msgpack.packb([8192, bytes(16)], use_bin_type=True)
    s.sock.send_multipart([b"", record, bytes(256 // 8)])
    assert s.sock.poll(10_000), "no notice came"
    reply = msgpack.unpackb(s.sock.recv_multipart()[0], raw=False)
    assert reply[0] == 0 and "could not be made whole" in reply[4], reply
    line = ended(handle, 1)[0]
    assert "reason=malformed_message" in line, line
    # the server carries on: a new session works
    assert ping(url)
    fresh = Session(url)
    rc, (ptr,), _, _ = fresh.call("cudaMalloc", 4096)
    assert rc == 0 and fresh.call("cudaMemcpy", ptr, 0, 4, 1, bulk=[b"good"])[0] == 0
    rc, _, back, _ = fresh.call("cudaMemcpy", 0, ptr, 4, 2)
    assert (rc, b"".join(back)) == (0, b"good")
    fresh.close()
    s.sock.close(0)
