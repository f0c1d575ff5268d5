"""Benchmark (issue 6): how exactly compute shares hold on one shared software GPU, and what the
scheduler adds to a launch.

- share error: two saturating programs on leases with guarantees 25/75, 10/90 and 50/50 (limits
  100) over 30 s of device time each; the error is |measured share - guarantee| in points, from
  the server's per-session device time (goal <= 3 points).
- added latency: an uncontended acquire+release of the GPU scheduler, against the baseline of the
  plain cross-process lock it is built on, measured in the same run."""
from __future__ import annotations

import multiprocessing as mp
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rgpu.server.sched import GpuScheduler
from tests.support import cudabuild
from tests.support.daemons import DaemonSet, wait_until
from tests.support.pool import Pool, stats

ROOT = Path(__file__).resolve().parents[1]
SECONDS = float(os.environ.get("RGPU_BENCH_QOS_SECONDS", "30"))


@pytest.fixture(scope="module")
def spinner():
    src = ROOT / "tests" / "cuda" / "programs" / "spin_kernels.cu"
    return cudabuild.build(src, "exe", [f"-I{src.parent}"])


@pytest.fixture
def gpu(tmp_path):
    with DaemonSet() as daemons:
        pool = Pool(daemons, tmp_path)
        url = pool.add_server(memory="2GiB")
        wait_until(lambda: pool.states() == {url: "up"}, 20, "server up")
        pool.server_url = url
        yield pool


def _start(pool, exe, guarantee):
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--controller", pool.url,
                             "--mem", "64MiB", "--compute", str(guarantee), "--limit", "100", "--", str(exe),
                             str(SECONDS * 4)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=pool.env)
    assert proc.stdout.readline().startswith("READY")
    return proc


@pytest.mark.parametrize("split", [(25, 75), (10, 90), (50, 50)], ids=lambda s: f"{s[0]}-{s[1]}")
def test_share_error(gpu, spinner, split, figures):
    a = _start(gpu, spinner, split[0])
    first = stats(gpu.server_url)["sessions"][0]["session"]
    b = _start(gpu, spinner, split[1])
    try:
        def times():
            t = {s["session"]: s["device_time_s"] for s in stats(gpu.server_url)["sessions"]}
            return t if len(t) == 2 else None
        before = wait_until(times, 20, "two sessions")
        after = wait_until(lambda: (t := times()) and sum(t.values()) - sum(before.values()) >= SECONDS and t,
                           SECONDS * 5, "device time")
    finally:
        for p in (a, b):
            p.send_signal(signal.SIGTERM)
        for p in (a, b):
            p.communicate(timeout=30)
    got = {s: after[s] - before[s] for s in before}
    share = 100 * got[first] / sum(got.values())
    error = abs(share - split[0])
    figures[f"share error {split[0]}/{split[1]}"] = {"rgpu": error, "raw": None, "unit": "points (goal <= 3)"}
    print(f"\n{split[0]}/{split[1]}: measured {share:.2f}/{100 - share:.2f} over {sum(got.values()):.1f}s of "
          f"device time, error {error:.2f} points")


def _acquire_release(sched, n):
    for _ in range(n):
        sched.acquire(0)
        sched.release(0, 0.0)


def _lock_unlock(lock, n):
    for _ in range(n):
        with lock:
            pass


def test_scheduler_added_latency(benchmark, figures):
    ctx = mp.get_context("spawn")
    sched = GpuScheduler(ctx, 256)
    for slot in range(8):  # a GPU with a few sessions configured, one of them launching
        sched.configure(slot, 10, 100)
    n = 2000
    t0 = time.perf_counter()
    _lock_unlock(ctx.Lock(), n)
    base = (time.perf_counter() - t0) / n
    benchmark.pedantic(_acquire_release, args=(sched, n), rounds=5, iterations=1)
    per_launch = benchmark.stats.stats.min / n
    figures["scheduler per launch"] = {"rgpu": per_launch * 1e6, "raw": base * 1e6, "unit": "µs (raw: bare lock)"}
