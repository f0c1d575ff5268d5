"""End to end, isolation and QoS on one shared software GPU: memory quotas as the program sees
them, device-time shares by guarantee, a limit that caps a session alone, and per-lease
accounting kept after the program ends. Shares are measured from the server's own accounting
(device time per session) over a window of accumulated device time, never over a fixed sleep."""
from __future__ import annotations

import re
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import ENDLESS
from tests.support.daemons import wait_until
from tests.support.pool import Pool, stats

pytestmark = pytest.mark.e2e
MiB = 1 << 20


@pytest.fixture
def gpu(daemons, tmp_path):
    """A controller and one server with one GPU (of the test backend): every lease shares it. The
    software GPU interprets the kernels (--sim-jit off): the spinners' kernel lengths are calibrated
    on the interpreter, and a kernel compiled mid-test would shrink to where the fair queue's
    per-launch cost, not the device time under test, decides the split."""
    p = Pool(daemons, tmp_path)
    url = p.add_server("2GiB", "--sim-jit", "off")
    wait_until(lambda: p.states() == {url: "up"}, 20, "server up")
    p.server_url = url
    yield p
    for handle in p.servers.values():
        handle.stop()


def _spinner(pool, exe, iters, *opts):
    """spin_kernels for up to 120 s, its kernels `iters` long (sized to the device), once it runs."""
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--controller", pool.url, *opts,
                             "--", str(exe), "120", str(iters)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(pool.env, RGPU_TIMEOUT="60"))
    line = proc.stdout.readline()
    if not line.startswith("READY"):
        proc.kill()
        pytest.fail(f"spinner did not start: {line}{proc.communicate(timeout=10)}")
    return proc


def _device_times(url) -> dict:
    return {s["session"]: s["device_time_s"] for s in stats(url)["sessions"]}


def _window(url, sessions: int, device_seconds: float) -> tuple[dict, float]:
    """Device time each session got while `device_seconds` of it accumulated in total, and the
    wall time that took."""
    def all_running():
        t = _device_times(url)
        return t if len(t) == sessions else None

    before = wait_until(all_running, 20, "sessions")
    t0 = time.monotonic()

    def accumulated():
        t = _device_times(url)
        return t if sum(t.values()) - sum(before.values()) >= device_seconds else None
    after = wait_until(accumulated, 120, f"{device_seconds}s of device time")
    return {s: after[s] - before[s] for s in before}, time.monotonic() - t0


def _stop(*procs):
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)  # rgpu run forwards it and releases the lease
    for p in procs:
        try:
            p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()


def _shares(pool, cuda_program, iters, opts_a, opts_b, device_seconds=6.0):
    exe = cuda_program("spin_kernels")
    a = _spinner(pool, exe, iters, "--mem", "64MiB", *opts_a)
    sid_a = next(iter(_device_times(pool.server_url)))
    b = _spinner(pool, exe, iters, "--mem", "64MiB", *opts_b)
    try:
        got, _ = _window(pool.server_url, 2, device_seconds)
    finally:
        _stop(a, b)
    total = sum(got.values())
    print(f"shares {opts_a} vs {opts_b}: {100 * got[sid_a] / total:.1f}% of {total:.1f}s device time")
    return 100 * got[sid_a] / total


def test_memory_quota_is_the_device_the_program_sees(gpu, cuda_program):
    p = gpu.run("--mem", "256MiB", "--", str(cuda_program("alloc_until_fail")), "16")
    assert p.returncode == 0, p.stdout + p.stderr
    m = re.search(r"total (\d+) prop (\d+) free_before (\d+) allocated (\d+)", p.stdout)
    total, prop, free_before, allocated = map(int, m.groups())
    assert total == prop == 256 * MiB
    assert 256 * MiB - 16 * MiB < allocated <= 256 * MiB  # out of memory at the quota, within one chunk


def test_competing_sessions_get_device_time_by_guarantee(gpu, cuda_program, device_sizes):
    share = _shares(gpu, cuda_program, device_sizes["spin_iters"], ["--compute", "25", "--limit", "100"], ["--compute", "75", "--limit", "100"])
    assert abs(share - 25) <= 5, f"25/75 split gave {share:.1f}/{100 - share:.1f}"


def test_a_guarantee_holds_against_a_greedy_neighbour(gpu, cuda_program, device_sizes):
    share = _shares(gpu, cuda_program, device_sizes["spin_iters"], ["--compute", "30", "--limit", "100"], [])
    assert share >= 25, f"guarantee 30 got {share:.1f}%"


def test_a_session_alone_stays_under_its_limit(gpu, cuda_program, device_sizes):
    proc = _spinner(gpu, cuda_program("spin_kernels"), device_sizes["spin_iters"], "--mem", "64MiB", "--compute", "10", "--limit", "50")
    try:
        got, wall = _window(gpu.server_url, 1, 3.0)
    finally:
        _stop(proc)
    used = 100 * sum(got.values()) / wall
    print(f"limit 50 alone: {used:.1f}% of the GPU over {wall:.1f}s")
    assert used <= 55, f"limit 50 used {used:.1f}% of the GPU"


def test_lease_accounting_outlives_its_sessions(gpu, cuda_program):
    reserved = gpu.cli_json("reserve", "--mem", "128MiB")
    lease = reserved["lease"]
    p = gpu.run("--lease", lease, "--", str(cuda_program("kernels_basic")))
    assert p.returncode == 0, p.stdout + p.stderr

    def accounted():
        row = gpu.leases().get(lease)
        return row if row and row["device_time_s"] > 0 and row["sessions"] == 0 else None
    row = wait_until(accounted, 30, "the ended session's device time in `rgpu leases`")
    assert row["kernels"] >= 4 and row["memory_used_bytes"] == 0 and row["memory_peak_bytes"] > 0
    assert row["calls"] > row["kernels"] and row["bytes_in"] >= 10000 * 4 and row["bytes_out"] >= 10000 * 4
    assert gpu.cli("release", lease).returncode == 0
    assert lease not in gpu.leases()


def test_a_kernel_that_never_ends_neither_starves_its_neighbour_nor_outlives_its_lease(gpu, cuda_program,
                                                                                       device_sizes):
    exe = cuda_program("spin_kernels")
    lease = gpu.cli_json("reserve", "--mem", "64MiB", "--compute", "50")["lease"]
    # The software GPU time-slices the endless kernel; a GPU runs it beside the neighbour's, and its
    # worker, waiting in the driver, is ended by the server when the lease ends.
    stuck = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--controller", gpu.url, "--lease", lease,
                              "--", str(exe), "120", str(ENDLESS)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=dict(gpu.env, RGPU_TIMEOUT="60"))
    try:
        assert stuck.stdout.readline().startswith("READY")
        # Device time is charged slice by slice while the kernel runs, not only when it ends.
        wait_until(lambda: sum(_device_times(gpu.server_url).values()) > 0.5, 30, "the endless kernel's device time")
        neighbour = gpu.run("--mem", "64MiB", "--compute", "50", "--", str(exe), "2", str(device_sizes["spin_iters"]))
        assert neighbour.returncode == 0, neighbour.stdout + neighbour.stderr
        ran = int(re.search(r"kernels (\d+)", neighbour.stdout).group(1))
        assert ran >= 8 and stuck.poll() is None
        # Releasing the lease ends the session inside its kernel, and its memory returns.
        assert gpu.cli("release", lease).returncode == 0
        wait_until(lambda: not stats(gpu.server_url)["sessions"], 20, "the stuck session to end")
        assert all(g["memory_used"] == 0 for g in stats(gpu.server_url)["gpus"])
        # Its program learns that the device is gone instead of waiting forever.
        out, err = stuck.communicate(timeout=60)
        assert stuck.returncode != 0 and "OK spin_kernels" not in out
    finally:
        _stop(stuck)
