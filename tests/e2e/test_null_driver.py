"""The cuda backend end to end without a GPU: the project's programs whose checks need no kernel's
result (copies of every shape and path, device facts, managed memory, pointer queries, events)
through a `--device cuda` server on benchmarks/native/nulldriver.c, a driver that does no GPU work
(device memory is host memory in a window of its own, kernels are counted and not run). On a GPU
host the same programs run on the real driver in the rest of the suite; here they are the only
end-to-end check of the cuda backend's own code (its copies, pinned mappings registered with the
driver, managed allocations, events, the compiled launch loop) that CI has."""
from __future__ import annotations

import os
import sys

import pytest

from benchmarks.native import run as native
from rgpu.client.server_client import ping
from tests.conftest import run_cli
from tests.support.daemons import DaemonSet, free_url

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def null_server():
    with DaemonSet() as daemons:
        url = free_url()
        daemons.start([sys.executable, "-m", "rgpu.server.cli", "--device", "cuda", "--listen", url,
                       "--log-level", "info"], ready=lambda: ping(url), deadline_s=60,
                      env={**os.environ, "RGPU_LIBCUDA": str(native.null_driver())})
        yield url


@pytest.mark.parametrize("name, args, ok", [
    ("copy_roundtrip", ["16"], "OK copy_roundtrip 16 MiB"),
    ("copy_threads", ["12"], "OK copy_threads 12 MiB"),           # pooled client copies, odd offsets, a fork
    ("driver_copy_pieces", ["8"], "OK driver_copy_pieces 8 MiB"),
    ("memcpy3d", [], "OK memcpy3d"),
    ("driver_memcpy2d", [], "OK driver_memcpy2d"),
    ("device_query", [], "OK device_query"),
    ("driver_device_facts", [], "OK device_facts 132 SMs"),      # the null driver's Hopper: 132 SMs
    ("driver_managed", [], "OK driver_managed"),
    ("pointer_kinds", [], "OK pointer_kinds 1 devices"),
    ("streams_events", [], "OK streams_events"),                  # a timing-less event has no elapsed time
])
def test_program_runs_on_the_cuda_backend_without_a_gpu(name, args, ok, cuda_program, null_server):
    p = run_cli("run", "--server", null_server, "--", str(cuda_program(name)), *args)
    assert p.returncode == 0 and ok in p.stdout, p.stdout + p.stderr
