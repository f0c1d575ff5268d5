"""Soak: many concurrent unmodified CUDA programs on a pool for a while — a controller and a
software-GPU server with two GPUs on one machine, programs started through `rgpu run --controller`
(so over CURVE, each on its own lease) in waves of RGPU_SOAK_PROGRAMS at once (default 16) for
RGPU_SOAK_SECONDS (default 60). It reports what matters after hours in production: programs that
failed (and why), the memory of the server's processes and of the controller at the start and the
end, sessions and leases left behind, and entries left in /dev/shm. A benchmark, not a test: it
records figures (benchmarks/out/soak.json and the benchmark's extra_info) and asserts nothing.

    scripts/bench.sh -k soak            RGPU_SOAK_SECONDS=600 RGPU_SOAK_PROGRAMS=32 scripts/bench.sh -k soak
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import cudabuild, procs
from tests.support.daemons import DaemonSet, wait_until
from tests.support.pool import Pool, stats

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "tests" / "cuda" / "programs"
CONCURRENCY = int(os.environ.get("RGPU_SOAK_PROGRAMS", "16"))
SECONDS = float(os.environ.get("RGPU_SOAK_SECONDS", "60"))
# (program, args, rgpu run options): copies, kernels with printf, streams and events, managed memory
MIX = [("copy_roundtrip", ["8"], ["--mem", "64MiB"]), ("kernels_basic", [], ["--mem", "64MiB"]),
       ("streams_events", [], ["--mem", "64MiB", "--compute", "10"]), ("managed_add", [], ["--mem", "64MiB"]),
       ("device_query", [], ["--mem", "32MiB"])]


def _tree_rss(pid: int) -> int:
    """Resident memory of a process and all its descendants, bytes."""
    tree = [pid, *procs.descendants(pid)]
    total = 0
    for p in tree:
        try:
            for line in open(f"/proc/{p}/status"):
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    with DaemonSet() as daemons:
        p = Pool(daemons, tmp_path_factory.mktemp("soak"))
        port = p.add_server(memory="2GiB")
        wait_until(lambda: p.states() == {port: "up"}, 30, "server up")
        p.server_url = port
        yield p


def test_soak(benchmark, pool):
    exes = {name: cudabuild.build(PROGRAMS / f"{name}.cu", "exe", [f"-I{PROGRAMS}"]) for name, _, _ in MIX}
    server, controller = pool.servers[pool.server_url], pool.controller.handle
    shm_before = set(os.listdir("/dev/shm"))
    result = {"programs": 0, "failed": 0, "failures": {}, "concurrency": CONCURRENCY, "seconds": SECONDS}
    rng = random.Random(16)

    def soak():
        result["server_rss_start"] = _tree_rss(server.pid)
        result["controller_rss_start"] = _tree_rss(controller.pid)
        running: list[tuple[str, subprocess.Popen]] = []
        end = time.monotonic() + SECONDS
        while time.monotonic() < end or running:
            while time.monotonic() < end and len(running) < CONCURRENCY:
                name, args, opts = rng.choice(MIX)
                env = dict(pool.env, RGPU_TIMEOUT="120")
                running.append((name, subprocess.Popen(
                    [sys.executable, "-m", "rgpu.client.cli", "run", "--controller", pool.url, "--wait", "60",
                     *opts, "--", str(exes[name]), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    text=True, env=env)))
            for item in list(running):
                name, proc = item
                if proc.poll() is None:
                    continue
                running.remove(item)
                out, err = proc.communicate()
                result["programs"] += 1
                if proc.returncode != 0 or f"OK {name}" not in out:
                    result["failed"] += 1
                    why = (err.strip().splitlines() or out.strip().splitlines() or ["?"])[-1][:160]
                    result["failures"][why] = result["failures"].get(why, 0) + 1
            time.sleep(0.05)  # the launcher's own pace, not a synchronisation
        wait_until(lambda: not stats(pool.server_url)["sessions"], 60, "every session reaped")
        result["server_rss_end"] = _tree_rss(server.pid)
        result["controller_rss_end"] = _tree_rss(controller.pid)

    benchmark.pedantic(soak, rounds=1, iterations=1)
    result["leases_left"] = len(pool.leases())
    result["sessions_left"] = len(stats(pool.server_url)["sessions"])
    result["memory_used_left"] = sum(g["memory_used"] for g in stats(pool.server_url)["gpus"])
    # (only the segments rgpu makes: other programs on the machine come and go in /dev/shm too)
    result["shm_left"] = sorted(n for n in set(os.listdir("/dev/shm")) - shm_before if n.startswith("rgpu-"))
    result["server_rss_growth_mib"] = round((result["server_rss_end"] - result["server_rss_start"]) / 2**20, 1)
    result["controller_rss_growth_mib"] = round(
        (result["controller_rss_end"] - result["controller_rss_start"]) / 2**20, 1)
    benchmark.extra_info.update(result)
    out = ROOT / "benchmarks" / "out"
    out.mkdir(exist_ok=True)
    (out / "soak.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nsoak: {result['programs']} programs ({CONCURRENCY} at once, {SECONDS:g} s), {result['failed']} failed "
          f"{result['failures'] or ''}; server tree RSS {result['server_rss_start'] / 2**20:.0f} -> "
          f"{result['server_rss_end'] / 2**20:.0f} MiB, controller {result['controller_rss_start'] / 2**20:.0f} -> "
          f"{result['controller_rss_end'] / 2**20:.0f} MiB; left: {result['leases_left']} leases, "
          f"{result['sessions_left']} sessions, {result['memory_used_left']} bytes, /dev/shm {result['shm_left']}")
