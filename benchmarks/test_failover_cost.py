"""Failover benchmark: what a ``--failover`` lease costs a program in steady state — the same program
under `rgpu run` with and without ``--failover``, in the same run, on a pool of two software-GPU
servers — and the time to resume once its server is killed (from the lost connection to the
program's call answered on the other server, as the client library logs it).

The program is tests/cuda/programs/migrate_streams.cu (kernels on several streams, events, a
module variable, managed memory, 24 MiB written once): its session's checkpoint travels to the
client at a synchronisation point at most every RGPU_FAILOVER_INTERVAL (1 s), and every message is
kept in the client's log until the next one.

The PyTorch rows (issue 43's figure: a steady-state cost of at most 5%) time a step of each workload of
tests/e2e/torch_workloads.py (the CNN's and the transformer's training steps, the decode loop) on a
pool of one cuda server on the null driver (benchmarks/native/nulldriver.c: no kernel runs, what is
timed is PyTorch on the CPU plus rgpu's path, where failover's own cost shows most): two programs
under `rgpu run`, one with ``--failover`` and one without, each serving every workload, measured
alternately in the same run, after WARM_S seconds of each workload (warm_up), PAIRS pairs of windows
of STEP_S seconds of steps or more each: the figure is the mean over them, checkpoints included (one comes at most every RGPU_FAILOVER_INTERVAL,
stretched to keep within RGPU_FAILOVER_BUDGET of the program's time, so a window may hold none and
the run as a whole holds them in proportion); the best window, the log's own cost, is in extra_info,
with the median and the spread of the pairs' ratios: on a shared two-core machine one window differs
from the next by 10-20%, so many short pairs, the two programs' windows side by side, say more than a
few long ones."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.e2e.test_failover import kill_its_server_at  # noqa: E402
from benchmarks.native import run as native  # noqa: E402
from benchmarks.transport import ROUNDS  # noqa: E402
from tests.support import cudabuild, torchenv  # noqa: E402
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
        out, err = kill_its_server_at(pool, proc, 6)
        assert proc.returncode == 0, out + err
        resumed.append(float(re.search(r"resumed on \S+ from .* in ([0-9.]+) s", err).group(1)))

    benchmark.pedantic(once, rounds=1, iterations=1)  # the pool has one server left after it
    benchmark.extra_info.update(resume_s_best=round(min(resumed), 3), resume_s_worst=round(max(resumed), 3))
    figures["failover time to resume"] = {"rgpu": min(resumed), "raw": None, "unit": "s"}


WORKLOADS = ROOT / "tests" / "e2e" / "torch_workloads.py"
TORCH_NAMES = ["cnn", "transformer", "decode"]
STEP_S = float(os.environ.get("RGPU_BENCH_FAILOVER_STEP_S", "3"))  # seconds of steps a measurement
PAIRS = int(os.environ.get("RGPU_BENCH_FAILOVER_PAIRS", "10"))  # windows of each program, alternately


@pytest.fixture(scope="module", params=["1", "0"], ids=["same-host", "across-hosts"])
def null_pool(request, tmp_path_factory):
    """A controller and one cuda server on the null driver; two trainers under `rgpu run` on it, one
    of a --failover lease, each serving every workload (tests/e2e/torch_workloads.py --serve).
    same-host: both have the server's shared segment and call ring (a --failover session's log keeps
    each message as it would have gone in frames, and its worker writes the program's pinned memory
    only where the log can check it: docs/failover.md); across-hosts: RGPU_SHM=0 for both, as when the
    server is on another host, the case of the network issue's workloads."""
    with DaemonSet() as d:
        p = Pool(d, tmp_path_factory.mktemp("failover-null"))
        a = p.add_server("4GiB", "--device", "cuda", "--log-level", "warning",
                         env={"RGPU_LIBCUDA": str(native.null_driver())})
        wait_until(lambda: p.states() == {a: "up"}, 60, "the server up")
        python = torchenv.python()
        trainers = {}
        try:
            for kept in (False, True):
                trainers[kept] = subprocess.Popen(
                    [sys.executable, "-m", "rgpu.client.cli", "run", "--controller", p.url, "--mem", "1GiB",
                     *(["--failover"] if kept else []), "--", str(python), str(WORKLOADS), *TORCH_NAMES, "--serve",
                     "--warmup", "5"], env=dict(p.env, RGPU_TIMEOUT="120", RGPU_SHM=request.param), stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, text=True)
                assert json.loads(trainers[kept].stdout.readline())["ready"] == TORCH_NAMES
            for kept, t in trainers.items():
                warm_up(t, kept)
            yield request.param, trainers
        finally:
            for t in trainers.values():
                t.stdin.close()
                t.wait(60)


WARM_S = 1.0  # seconds of steps of each workload before any is measured


def warm_up(trainer, failover: bool) -> None:
    """Steps of every workload before the measurements, and for the --failover trainer CNN steps until
    a checkpoint is taken after them (its log's bound asks for one within about 1,000 steps). A
    session's first checkpoint that holds the models (its memory read whole, 1.2-2.6 s here) and the
    first after each workload's first steps (its module images, sent once, 10-16 MB, and searched for
    their variables, 0.5-0.7 s) are the start, not the steady state the figure is of; the later ones
    are deltas of what changed (0.17-0.19 s here)."""
    for name in TORCH_NAMES:
        s = step(trainer, name, 20)["step_s"]
        step(trainer, name, max(20, int(WARM_S / s)))
    deadline = time.monotonic() + 120
    while failover and time.monotonic() < deadline:
        if step(trainer, "cnn", 200).get("by_call", {}).get("checkpoint", {}).get("round_trips"):
            break


def step(trainer, name: str, steps: int) -> dict:
    trainer.stdin.write(f"{name} {steps}\n")
    trainer.stdin.flush()
    return json.loads(trainer.stdout.readline())


@pytest.mark.parametrize("name", TORCH_NAMES)
def test_failover_pytorch_step_cost(benchmark, null_pool, figures, name):
    """A step's time with --failover against without, the two programs alternately, the mean of PAIRS
    windows each."""
    shm, trainers = null_pool
    steps = max(20, int(STEP_S / step(trainers[False], name, 20)["step_s"]))
    got: dict[bool, list] = {False: [], True: []}
    last: dict = {}

    def once():
        for _ in range(PAIRS):
            for kept in (False, True):
                last[kept] = step(trainers[kept], name, steps)
                got[kept].append(last[kept]["step_s"])
    benchmark.pedantic(once, rounds=1, iterations=1)
    # steady state: the mean over every window, checkpoints included (a checkpoint comes once in
    # RGPU_FAILOVER_BUDGET's stretch of its own time, often longer than a window: the best window
    # would leave it out); the best window: a call's own cost, the log's
    plain, kept = sum(got[False]) / len(got[False]) * 1e6, sum(got[True]) / len(got[True]) * 1e6
    best_plain, best_kept = min(got[False]) * 1e6, min(got[True]) * 1e6
    pairs = sorted(k / p for p, k in zip(got[False], got[True]))
    where = "same host" if shm == "1" else "across hosts"
    benchmark.extra_info.update(where=where, steps=steps, plain_us=round(plain, 1), failover_us=round(kept, 1),
                                overhead_pct=round((kept / plain - 1) * 100, 2),
                                best_overhead_pct=round((best_kept / best_plain - 1) * 100, 2),
                                median_pair_pct=round((pairs[len(pairs) // 2] - 1) * 100, 2),
                                pair_pct_range=[round((pairs[0] - 1) * 100, 1), round((pairs[-1] - 1) * 100, 1)],
                                # CHECKPOINT round trips a step (about steps a second / interval when the
                                # server keeps checkpoints; it refuses sessions it cannot move, see docs)
                                checkpoints_per_step=last[True].get("by_call", {}).get("checkpoint", {}).get("round_trips"),
                                round_trips_per_step={k: last[k].get("round_trips") for k in (False, True)},
                                all_plain_us=[round(x * 1e6, 1) for x in got[False]],
                                all_failover_us=[round(x * 1e6, 1) for x in got[True]])
    figures[f"failover {name} step {where} (null driver)"] = {"rgpu": kept, "raw": plain, "unit": "µs (raw: without --failover)"}


# The data path of a --failover session (benchmarks/harness/bench.c under `rgpu run`, with and without
# --failover, alternately, best of ROUNDS): a sync round trip, 4 KiB copies each way (a call's own cost:
# the log's entry and the digest of what the program saw), and 4 MiB D2H (the digest over the data).
# On the same host the --failover session has the shared segment and call ring too; across hosts
# (RGPU_SHM=0) neither has them.
DATA_PATH = {"sync round trip": (["ssync", "3000"], "us"),
             "D2H 4 KiB": (["d2h", "4096", "2000"], "gbps"),
             "H2D 4 KiB": (["h2d", "4096", "2000"], "gbps"),
             "D2H 4 MiB": (["d2h", str(4 << 20), "50"], "gbps")}


@pytest.fixture(scope="module")
def null_server_pool(tmp_path_factory):
    """A controller and one cuda server on the null driver (no GPU work: rgpu's own path is timed)."""
    from benchmarks.transport import build_harness
    with DaemonSet() as d:
        p = Pool(d, tmp_path_factory.mktemp("failover-data-path"))
        a = p.add_server("4GiB", "--device", "cuda", "--log-level", "warning",
                         env={"RGPU_LIBCUDA": str(native.null_driver())})
        wait_until(lambda: p.states() == {a: "up"}, 60, "the server up")
        p.harness = build_harness()
        yield p


@pytest.mark.parametrize("shm", ["1", "0"], ids=["same-host", "across-hosts"])
def test_failover_data_path_cost(benchmark, null_server_pool, figures, shm):
    pool = null_server_pool
    got: dict = {}

    def run(args, failover: bool) -> dict:
        p = subprocess.run([sys.executable, "-m", "rgpu.client.cli", "run", "--controller", pool.url, "--mem", "1GiB",
                            *(["--failover"] if failover else []), "--", str(pool.harness), "rgpu", *args],
                           env=dict(pool.env, RGPU_TIMEOUT="120", RGPU_SHM=shm), capture_output=True, text=True,
                           timeout=300)
        assert p.returncode == 0, p.stdout + p.stderr
        return json.loads(p.stdout.strip().splitlines()[-1])

    def once():
        for _ in range(ROUNDS):
            for name, (args, key) in DATA_PATH.items():
                for kept in (False, True):
                    v = run(args, kept)[key]
                    v = v if key == "us" else int(args[1]) / (v * 1e9) * 1e6  # µs a copy
                    got.setdefault((name, kept), []).append(v)
    benchmark.pedantic(once, rounds=1, iterations=1)
    where = "same host" if shm == "1" else "across hosts"
    for name in DATA_PATH:
        plain, kept = min(got[(name, False)]), min(got[(name, True)])
        benchmark.extra_info[name] = {"plain_us": round(plain, 2), "failover_us": round(kept, 2),
                                      "ratio": round(kept / plain, 2)}
        figures[f"failover {name} {where} (null driver)"] = {"rgpu": kept, "raw": plain,
                                                             "unit": "µs (raw: without --failover)"}
