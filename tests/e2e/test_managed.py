"""End to end: programs using managed (unified) memory — cudaMallocManaged, kernels, a
synchronisation, host reads — run unchanged on a software-GPU server and give CUDA's results."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import pytest

from rgpu.client.server_client import stats
from tests.conftest import run_cli
from tests.support.daemons import wait_until

pytestmark = pytest.mark.e2e


def _run(exe, url, *args):
    return run_cli("run", "--server", url, "--", str(exe), *args)


def test_even_easier_introduction_add_gives_max_error_zero(cuda_program, sim_server):
    p = _run(cuda_program("managed_add"), sim_server)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "managedMemory 1 concurrentManagedAccess 0" in p.stdout
    assert "Max error: 0\n" in p.stdout
    assert "OK managed_add" in p.stdout


def test_host_writes_kernels_copies_prefetch_and_attributes_stay_coherent(cuda_program, sim_server):
    p = _run(cuda_program("managed_coherence"), sim_server)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "taken range: cudaErrorMemoryAllocation" in p.stdout
    assert "OK managed_coherence" in p.stdout
    assert stats(sim_server)["gpus"][0]["memory_used"] == 0


def test_driver_api_managed_memory(cuda_program, sim_server):
    p = _run(cuda_program("driver_managed"), sim_server)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "OK driver_managed" in p.stdout


@pytest.mark.sim_only("the device's memory is the software GPU's --sim-memory; on a GPU the quota comes from a "
                     "lease (test_qos) and exhausting a whole GPU with managed memory can hang it")
def test_managed_memory_counts_against_the_device_memory(cuda_program, start_server):
    url, _ = start_server(memory="64MiB")
    p = _run(cuda_program("managed_hold"), url, "exhaust", "8")
    assert p.returncode == 0, p.stdout + p.stderr
    allocated = int(re.search(r"allocated (\d+) ", p.stdout).group(1))
    assert 56 << 20 <= allocated <= 64 << 20, p.stdout  # a 64 MiB device holds 7 or 8 of 8 MiB
    assert "OK managed_hold exhaust" in p.stdout


def test_session_end_frees_managed_memory_not_freed_by_the_program(cuda_program, sim_server):
    p = _run(cuda_program("managed_hold"), sim_server, "leak", "32")
    assert p.returncode == 0, p.stdout + p.stderr
    wait_until(lambda: stats(sim_server)["gpus"][0]["memory_used"] == 0, 20, "managed memory returned")


def test_client_killed_returns_its_managed_memory(cuda_program, sim_server):
    env = dict(os.environ, RGPU_TIMEOUT="30")
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--server", sim_server, "--",
                             str(cuda_program("managed_hold")), "hold", "16"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert line.startswith("READY"), line + proc.stderr.read()
        assert stats(sim_server)["gpus"][0]["memory_used"] >= 16 << 20
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        wait_until(lambda: stats(sim_server)["gpus"][0]["memory_used"] == 0, 20, "memory returned")
    finally:
        proc.kill()
        proc.wait()


def test_managed_memory_on_two_devices_of_two_servers(cuda_program, start_server):
    a, _ = start_server()
    b, _ = start_server()
    p = run_cli("run", "--server", f"{a},{b}", "--", str(cuda_program("managed_multi")))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "OK managed_multi 2" in p.stdout
