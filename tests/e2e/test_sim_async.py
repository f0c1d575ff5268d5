"""The software GPU with its kernels running after their launch (RGPU_SIM_ASYNC=1, the default; sim/queue.py):
a session answers stream and event queries while a kernel runs, as a GPU does, and still ends a
session whose client is gone inside a kernel that never ends."""
from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from rgpu.client.server_client import stats
from tests.conftest import ENDLESS, run_cli
from tests.support.daemons import wait_until

pytestmark = pytest.mark.e2e

ASYNC = {"RGPU_SIM_ASYNC": "1"}


@pytest.fixture
def async_server(start_server, device_kind):
    # a real GPU runs its kernels after their launch anyway: the option is the software GPU's
    return start_server(env=ASYNC if device_kind == "sim" else None)[0]


def test_a_stream_query_answers_not_ready_while_its_kernel_runs(cuda_program, async_server):
    exe = cuda_program("query_while_running")
    p = run_cli("run", "--server", async_server, "--", str(exe), "1.0")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "OK query_while_running" in p.stdout
    # the queries, right after the launch, found the one-second kernel running
    assert "stream query: cudaErrorNotReady, event query: cudaErrorNotReady" in p.stdout, p.stdout
    assert "\nrunning\n" in p.stdout


def test_programs_run_with_kernels_after_their_launch(cuda_program, async_server):
    for name in ("streams_events", "faults", "driver_async_error", "kernels_basic"):
        p = run_cli("run", "--server", async_server, "--", str(cuda_program(name)))
        assert p.returncode == 0 and f"OK {name}" in p.stdout, (name, p.stdout + p.stderr)


def test_client_killed_while_its_endless_kernel_runs_after_its_launch(cuda_program, async_server):
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--server", async_server, "--",
                             str(cuda_program("spin_kernels")), "120", str(ENDLESS)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("READY")
        wait_until(lambda: any(s["device_time_s"] > 0.3 for s in stats(async_server)["sessions"]), 30,
                   "kernel running")
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        wait_until(lambda: not stats(async_server)["sessions"], 30, "session reaped")
        assert stats(async_server)["gpus"][0]["memory_used"] == 0
    finally:
        proc.kill()
