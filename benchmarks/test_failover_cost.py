"""Failover benchmark: what a ``--failover`` lease costs a program in steady state — the same program
under `rgpu run` with and without ``--failover``, in the same run, on a pool of two software-GPU
servers — and the time to resume once its server is killed (from the lost connection to the
program's call answered on the other server, as the client library logs it).

The program is tests/cuda/programs/migrate_streams.cu (kernels on several streams, events, a
module variable, managed memory, 24 MiB written once): its session's checkpoint travels to the
client at a synchronisation point at most every RGPU_FAILOVER_INTERVAL (1 s), and every message is
kept in the client's log until the next one."""
from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.e2e.test_failover import kill_server, lease_of, progress_to  # noqa: E402
from tests.support import cudabuild  # noqa: E402
from tests.support.daemons import DaemonSet, wait_until  # noqa: E402
from tests.support.pool import Pool  # noqa: E402

PROGRAMS = ROOT / "tests" / "cuda" / "programs"
ITERS = "30"


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    with DaemonSet() as d:
        p = Pool(d, tmp_path_factory.mktemp("failover-pool"))
        a, b = p.add_server("512MiB"), p.add_server("512MiB")
        wait_until(lambda: p.states() == {a: "up", b: "up"}, 60, "both servers up")
        p.exe = cudabuild.build(PROGRAMS / "migrate_streams.cu", "exe", [f"-I{PROGRAMS}"],
                                arch_flags=["-cudart", "shared", "-arch=sm_80"])
        yield p


def run_once(pool, failover: bool) -> float:
    t0 = time.perf_counter()
    p = pool.run("--mem", "128MiB", *(["--failover"] if failover else []), "--", str(pool.exe), ITERS, "0")
    took = time.perf_counter() - t0
    assert p.returncode == 0 and " OK" in p.stdout, p.stdout + p.stderr
    return took


def test_failover_steady_state_cost(benchmark, pool, figures):
    plain, kept = [], []

    def both():
        plain.append(run_once(pool, False))
        kept.append(run_once(pool, True))

    benchmark.pedantic(both, rounds=3, iterations=1)
    benchmark.extra_info.update(plain_s=round(min(plain), 3), failover_s=round(min(kept), 3),
                                overhead_pct=round((min(kept) / min(plain) - 1) * 100, 1))
    figures["failover steady state (program wall time)"] = {"rgpu": min(kept), "raw": min(plain), "unit": "s"}


def test_failover_time_to_resume(benchmark, pool, figures):
    """Runs after the steady-state one: it kills one of the pool's two servers."""
    resumed = []

    def once():
        env = dict(pool.env, RGPU_TIMEOUT="60", RGPU_LOG="info")
        proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--controller", pool.url, "--mem",
                                 "128MiB", "--failover", "--", str(pool.exe), ITERS, "100"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        try:
            assert proc.stdout.readline().startswith("READY")
            _, a = lease_of(pool)
            progress_to(proc, 6)
            kill_server(pool, a)
            out, err = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 0, out + err
        resumed.append(float(re.search(r"resumed on \S+ from .* in ([0-9.]+) s", err).group(1)))

    benchmark.pedantic(once, rounds=1, iterations=1)  # the pool has one server left after it
    benchmark.extra_info.update(resume_s_best=round(min(resumed), 3), resume_s_worst=round(max(resumed), 3))
    figures["failover time to resume"] = {"rgpu": min(resumed), "raw": None, "unit": "s"}
