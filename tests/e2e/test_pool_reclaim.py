"""End to end, idle reclaim through the pool: a program under `rgpu run --reclaim-after` that goes
idle between steps (a notebook between cells) has its vGPU reclaimed — the server's GPU memory is
free, the controller charges its GPU no more and `rgpu leases` says so — and its next CUDA call
restores it; it ends bit-exact to a run that was never reclaimed."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from benchmarks.native import run as native
from rgpu.client import server_client
from rgpu.paths import client_env
from tests.support.daemons import wait_until
from tests.support.pool import Pool, one_server, stats

pytestmark = pytest.mark.e2e


@pytest.fixture
def pool(daemons, tmp_path):
    yield from one_server(daemons, tmp_path)


def gpu(pool: Pool) -> dict:
    return pool.cli_json("ls")["servers"][0]["gpus"][0]


@pytest.mark.sim_only("migrate_streams holds managed memory, which the driver's checkpoint (the cuda backend's "
                      "reclaim) refuses: test_a_reclaim_the_driver_refuses_loses_nothing; idle_state, without it, is "
                      "reclaimed by the real driver in test_a_cuda_servers_idle_program_is_reclaimed_by_its_driver...")
def test_an_idle_program_is_reclaimed_and_restored_at_its_next_call(pool, cuda_program, device_sizes):
    pause_ms = device_sizes["reclaim_pause_ms"]
    exe = cuda_program("migrate_streams")
    base = pool.run("--mem", "128MiB", "--", str(exe), "3", "0")
    assert base.returncode == 0 and " OK" in base.stdout, base.stdout + base.stderr
    expected = base.stdout.strip().splitlines()[-1]
    [server] = pool.servers
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--controller", pool.url,
                             "--mem", "128MiB", "--reclaim-after", "1s", "--", str(exe), "3", str(pause_ms)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(pool.env, RGPU_TIMEOUT="60"))
    try:
        assert proc.stdout.readline().startswith("READY")
        assert proc.stdout.readline().startswith("PROGRESS 0")
        [(lease, _)] = pool.leases().items()
        # idle for its pause: reclaimed on the server, and in the controller's view, within the pause
        # (less a second for what is asked below before its next call restores it)
        wait_until(lambda: pool.leases()[lease]["state"] == "reclaimed", pause_ms / 1000 - 1, "the lease reclaimed")
        assert pool.leases()[lease]["vgpus"][0]["reclaimed"] is True
        g = gpu(pool)
        assert g["memory_free"] == g["memory_total"], "the controller charges the GPU nothing for it"
        [s] = stats(server)["sessions"]
        assert s["state"] == "reclaimed" and stats(server)["gpus"][0]["memory_used"] == 0
        assert proc.stdout.readline().startswith("PROGRESS 1"), "its next calls restored it"
        [s] = stats(server)["sessions"]  # (it may be idle, and reclaimed, again by now)
        assert s["reclaim"]["restores"] >= 1 and s["reclaim"]["restore_s"] > 0
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == expected, (out, expected)


def test_a_cuda_servers_idle_program_is_reclaimed_by_its_driver_and_the_pool_sees_it(daemons, tmp_path,
                                                                                      cuda_program, device_kind):
    """The same through the pool on the cuda backend (on a GPU host its driver; elsewhere the null
    driver, which answers the driver's checkpoint calls): the controller charges the GPU nothing
    while the driver holds the session's memory in the worker's process, and the program's next
    call restores it."""
    p = Pool(daemons, tmp_path)
    driver = {} if device_kind == "cuda" else {"RGPU_LIBCUDA": str(native.null_driver())}
    server = p.add_server("512MiB", "--device", "cuda", env=driver)
    wait_until(lambda: p.states() == {server: "up"}, 60, "the cuda server up in `rgpu ls`")
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--controller", p.url,
                             "--mem", "128MiB", "--reclaim-after", "1s", "--", str(cuda_program("idle_state")),
                             "6000", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(p.env, RGPU_TIMEOUT="60"))
    try:
        assert proc.stdout.readline().startswith("PAUSE 0")
        [(lease, _)] = p.leases().items()
        wait_until(lambda: p.leases()[lease]["state"] == "reclaimed", 5, "the lease reclaimed")
        g = gpu(p)
        assert g["memory_free"] == g["memory_total"], "the controller charges the GPU nothing for it"
        [s] = stats(server)["sessions"]
        assert s["state"] == "reclaimed" and s["reclaim"]["stored_bytes"] == 0, s  # the driver's, not a file
        assert proc.stdout.readline().startswith("ROUND 0 OK"), "its next calls restored it"
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and "OK idle_state 1 rounds" in out, out + err
    for handle in p.servers.values():
        handle.stop()


@pytest.mark.gpu_only("the GPU driver's refusal; the software GPU checkpoints managed memory (the first test)")
def test_a_reclaim_the_driver_refuses_loses_nothing(start_server, cuda_program, tmp_path):
    """The driver's checkpoint holds no managed (UVM) memory (CUDA_ERROR_NOT_SUPPORTED): an idle program
    with some is not reclaimed, the server's log says why, and the program runs on and ends right. The
    server's managed memory is UVM only without the arena (RGPU_ARENA=0; with it, it is VMM memory
    like the rest: server/backends/cuda/device.py mem_alloc_managed)."""
    url, server = start_server("--reclaim-after", "1", "--checkpoint-dir", str(tmp_path / "ckpt"),
                               env={"RGPU_ARENA": "0"})
    proc = subprocess.Popen([str(cuda_program("migrate_streams")), "3", "3000"],
                            env={**client_env([url]), "RGPU_TIMEOUT": "60"}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("READY")
        assert proc.stdout.readline().startswith("PROGRESS 0")
        refused = wait_until(lambda: re.search(r"event=reclaim_failed .*reason=(.*)", server.output(tail=100_000)),
                             10, "the reclaim refused")
        assert "CUDA_ERROR_NOT_SUPPORTED" in refused.group(1) and "managed" in refused.group(1), refused.group(0)
        [s] = server_client.stats(url)["sessions"]  # a server of its own, outside the pool
        assert s["state"] == "live", s
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and " OK" in out.strip().splitlines()[-1], out + err
