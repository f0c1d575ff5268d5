"""End to end: programs using managed (unified) memory — cudaMallocManaged, kernels, a
synchronisation, host reads — run unchanged on a software-GPU server and give CUDA's results."""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys

import pytest

from rgpu.client.server_client import ping, stats
from rgpu.server.backends.sim.device import default_window
from tests.conftest import run_cli, server_argv
from tests.support.daemons import free_url, wait_until
from tests.support.null_server import start as start_null_server

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
    # an address the program already uses is not given to its managed memory: the client asks again
    assert "taken range: cudaSuccess, elsewhere" in p.stdout and "cannot map" not in p.stderr
    assert "OK managed_coherence" in p.stdout
    # the program's goodbye is not waited for at exit: its session (and the module memory it still
    # holds) ends on the server a moment later, as a GPU's memory returns after its process exits
    wait_until(lambda: not stats(sim_server)["sessions"], 20, "session ended")
    assert stats(sim_server)["gpus"][0]["memory_used"] == 0


def test_driver_api_managed_memory(cuda_program, sim_server):
    p = _run(cuda_program("driver_managed"), sim_server)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "OK driver_managed" in p.stdout


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_managed_variables_are_host_memory_kept_coherent(cuda_program, sim_server, cudart):
    """__managed__ variables: nvcc's host code reaches them through the pointer __cudaInitModule fills
    (rgpu's runtime's, or with nvcc's default static cudart NVIDIA's, which asks cuLibraryGetManaged)."""
    p = _run(cuda_program("managed_vars", cudart), sim_server)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "OK managed_vars" in p.stdout


def test_managed_variables_on_the_cuda_backend(cuda_program, daemons):
    """The same through the cuda backend (the null driver: copies to the symbols stand for kernels)."""
    url = start_null_server(daemons)[0]
    p = _run(cuda_program("managed_vars"), url, "copy")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "OK managed_vars" in p.stdout


@pytest.mark.parametrize("backend", ["test", "null"], ids=["test-backend", "cuda-null-driver"])
@pytest.mark.parametrize("shm", ["1", "0"], ids=["same-host", "frames"])
@pytest.mark.parametrize("host", [False, True], ids=["global", "host-attached-too"])
def test_managed_memory_after_each_legacy_stream_synchronisation_costs_no_round_trip_of_its_own(
        cuda_program, daemons, sim_server, backend, shm, host):
    """A loop that reads two managed allocations after every synchronisation of the legacy stream (as
    a PyTorch step reads cuDNN's managed buffers after its `.item()`). On the call ring the pull goes
    ahead of the synchronisation, async copies into pinned shadows the worker writes straight into
    (libhook/src/managed/managed.c, plan_ahead): before it, each allocation cost a copy's round trip
    after every synchronisation (64 for 30 iterations). In frames the copies follow the call in its
    message. A non-blocking stream's synchronisation and the device's keep the pull after the call: 2
    allocations each, on the ring. An allocation attached to the host merges its pull (a round trip
    each synchronisation, the host's own writes kept), in frames too: there it was not pulled at all
    before, and a memset the program made on it through the API never reached the host."""
    url = sim_server if backend == "test" else start_null_server(daemons)[0]
    p = run_cli("run", "--server", url, "--", str(cuda_program("managed_stream_sync")), "30",
                *(["host"] if host else []), env={**os.environ, "RGPU_STATS": "1", "RGPU_SHM": shm})
    assert p.returncode == 0 and f"OK managed_stream_sync 30{' host' if host else ''}" in p.stdout, \
        p.stdout + p.stderr[-3000:]
    trips = {k: int(v) for k, v in re.findall(r"rgpu stats: call (\w+) round_trips=(\d+)", p.stderr)}
    assert trips["cudaStreamSynchronize"] == 31 and trips["cudaDeviceSynchronize"] == 1, trips
    merges = 32 if host else 0  # the host-attached allocation's, at each synchronisation
    assert trips.get("cuMemcpyDtoH_v2", 0) == (merges + 4 if shm == "1" else merges), trips


@pytest.mark.parametrize("backend", ["test", "null"], ids=["test-backend", "cuda-null-driver"])
def test_a_pull_across_hosts_sends_only_the_allocations_the_device_changed(cuda_program, daemons, start_server,
                                                                        backend):
    """In frames (a server on another host), an allocation the device did not write since the last
    pull does not cross again: the pull names the digest the worker gave of what the client holds,
    and the worker sends the data only when the contents' digest differs (rgpuManagedPull). Of
    failover_managed's two 64 KiB allocations, `busy` changes at every step, `quiet` at steps 1, 5,
    9 and 13 (the device's memsets) and 3 and 10 (the host's writes, pushed: the client's copy is then
    no longer one the worker digested), and the first pull has nothing to name: 16 + 7 of the 32
    pulls bring data. The program checks both allocations whole after every step."""
    url, handle = start_server() if backend == "test" else start_null_server(daemons)
    p = run_cli("run", "--server", url, "--", str(cuda_program("failover_managed")), "16", "0",
                env={**os.environ, "RGPU_SHM": "0"})
    assert p.returncode == 0 and " OK" in p.stdout, p.stdout + p.stderr[-3000:]
    line = wait_until(lambda: re.search(r"event=session_ended .*", handle.output(500000)), 15, "the session's end")
    sent = int(re.search(r"\bbytes_out=(\d+)", line.group(0)).group(1))
    assert 23 * 65536 <= sent < 24 * 65536, sent  # the data of 23 pulls, and the replies' heads


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


def _urls_of_one_window(tries: int = 4000) -> tuple[str, str]:
    """Two free URLs whose servers would, on their own, put their GPU 0's memory in the same address
    window (the sim's default_window, by server identity: 1 chance in 512 for any two servers)."""
    seen: dict[int, str] = {}
    for _ in range(tries):
        url = free_url()
        window = default_window(f"{socket.gethostname()}:{url}", 0)
        if window in seen and seen[window] != url:
            return seen[window], url
        seen[window] = url
    raise AssertionError(f"no two of {tries} free ports share a window")


@pytest.mark.sim_only("the software GPU's address windows; a real driver places its own memory")
def test_devices_of_two_servers_whose_windows_coincide_keep_distinct_pointers(cuda_program, daemons):
    """Each server alone would give out the same addresses; the client names a window per device of
    the program, so its devices' memory stays apart and managed memory maps at both addresses."""
    urls = _urls_of_one_window()
    for url in urls:
        daemons.start(server_argv(url, "--sim-memory", "1GiB"), ready=lambda url=url: ping(url), deadline_s=30)
    p = run_cli("run", "--server", ",".join(urls), "--", str(cuda_program("managed_multi")))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "OK managed_multi 2" in p.stdout
    at = [int(a, 16) for a in re.findall(r"device \d managed at (0x[0-9a-f]+)", p.stdout)]
    assert len(at) == 2 and at[0] != at[1]
