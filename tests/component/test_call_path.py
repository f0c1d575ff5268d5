"""benchmarks/call_path.py: the file path of one CUDA call through an instrumented librgpu, against a
cuda-backend server on the null driver (started on a free port, stopped in teardown)."""
from __future__ import annotations

import shutil

import pytest

from benchmarks import call_path
from tests.support import null_server
from tests.support.daemons import DaemonSet

pytestmark = pytest.mark.skipif(shutil.which("addr2line") is None, reason="no addr2line (binutils) on this host")


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    with DaemonSet() as daemons:
        url, _ = null_server.start(daemons)
        lib, exe = call_path.build_traced(tmp_path_factory.mktemp("traced"))
        yield lambda fn, args, env: call_path.trace(lib, exe, url, fn, args, env)


def test_a_copy_is_traced_from_the_runtime_call_down_to_the_call_ring(traced):
    p = traced("cudaMemcpy", ["h2d", "4096", "200"], {"RGPU_SHM": "1"})
    assert p.frames[0][:2] == (0, "cudaMemcpy") and p.frames[0][2] == "memory/memcpy.c"
    assert all(d >= 1 for d, _, _ in p.frames[1:])  # nothing outside the traced call
    names = {name for _, name, _ in p.frames}
    # the same host's 4 KiB copy goes through the session segment and the ring, and waits there
    assert {"rgpu_addr_of", "rgpu_sync", "rgpu_ring_send", "rgpu_ring_wait"} <= names
    assert {"transport/shm.c", "transport/ring.c", "submit/call.c"} <= set(p.files)
    assert p.visits[0] == "memory/memcpy.c" and len(p.visits) >= len(p.files)


def test_across_tcp_the_copy_never_reaches_the_segment_or_sends_on_the_ring(traced):
    p = traced("cudaMemcpy", ["h2d", "4096", "200"], {"RGPU_SHM": "0"})
    names = {name for _, name, _ in p.frames}
    assert "rgpu_sync" in names and "rgpu_ring_send" not in names
    assert "transport/shm.c" not in p.files


def test_an_async_launch_is_queued_without_waiting(traced):
    p = traced("cuLaunchKernel", ["launch", "2000"], {"RGPU_SHM": "1"})
    names = {name for _, name, _ in p.frames}
    assert p.files[0] == "module/launch.c"
    assert "rgpu_async" in names and "rgpu_queue_async" in names
    assert not names & {"rgpu_sync", "rgpu_ring_wait", "rgpu_sync_one"}
