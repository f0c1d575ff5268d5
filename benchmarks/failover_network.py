"""What a ``--failover`` lease costs the network issue's PyTorch workloads across hosts, on the test bed
(tests/support/testbed.py): the controller on the head host, a cuda rgpu-server on the null driver
(benchmarks/native/nulldriver.c) on each GPU host, and on the CPU host two programs serving
tests/e2e/torch_workloads.py under `rgpu run --mem 1GiB`, one of them with ``--failover``: its
session keeps the client's log of every call and takes a checkpoint at a synchronisation point once
in RGPU_FAILOVER_INTERVAL (stretched by RGPU_FAILOVER_BUDGET), as users run it.

    .venv/bin/python -m pytest benchmarks/failover_network.py -p no:xdist    (root; writes out/failover_network.json, .md)

At each of the network issue's round trips (the relay's 0.05, 1, 10 and 30 ms) and for each workload
(the CNN's and the transformer's training steps, the latter in mixed precision too, the decode loop,
alone and in a CUDA graph: benchmarks/network.py's), PAIRS windows of each program
alternately, the two measured side by side so that the machine's load hurts both alike: the figure is
the mean step over all windows, checkpoints included (issue 43's steady-state cost, goal ≤ 5%), with
the median and range of the pairs' ratios. The baseline is the same program without ``--failover``
on the same path in the same run. The same-host rows (shared segment and call ring) are
benchmarks/test_failover_cost.py's."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import testbed
from tests.support.bedpool import BedPool
from tests.support.daemons import DaemonSet, wait_until
from tests.e2e.test_pool_migration import NULL_UUIDS

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
ROOT = HERE.parent
WORKLOADS = ROOT / "tests" / "e2e" / "torch_workloads.py"
# the network issue's workloads, as benchmarks/network.py runs them
NAMES = {"cnn": "CNN training step", "transformer": "transformer training step",
         "transformer_amp": "transformer training step, mixed precision", "decode": "decode loop, a token a step",
         "decode_graph": "decode loop in a CUDA graph, a token a step"}
RTTS_MS = [0.05, 1, 10, 30]
PAIRS = int(os.environ.get("RGPU_BENCH_FAILOVER_PAIRS", "8"))
WINDOW_S = float(os.environ.get("RGPU_BENCH_FAILOVER_STEP_S", "1.5"))  # seconds of steps a window, at least 3 steps
PORT = 7405
ROWS: list[dict] = []


class Trainers:
    """The two programs on the CPU host, each serving every workload, one with --failover."""

    def __init__(self, pool: BedPool):
        from tests.support import torchenv
        python = torchenv.python()
        self.procs: dict[bool, subprocess.Popen] = {}
        for kept in (False, True):
            p = pool.bed.popen("cpu", [sys.executable, "-m", "rgpu.client.cli", "run", "--controller", pool.url,
                                       "--mem", "1GiB", *(["--failover"] if kept else []), "--", str(python),
                                       str(WORKLOADS), *NAMES, "--serve", "--warmup", "3"],
                               env={**pool.env, "RGPU_TIMEOUT": "300", **(self.knobs() if kept else {})},
                               cwd=str(ROOT), stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
            self.procs[kept] = p
            assert json.loads(p.stdout.readline())["ready"] == list(NAMES)

    @staticmethod
    def knobs() -> dict:
        """The --failover program's own settings, where this run is given them (what its checkpoints
        cost: RGPU_FAILOVER_INTERVAL=3600 takes none after the warm-up's)."""
        return {k: os.environ[k] for k in ("RGPU_FAILOVER_INTERVAL", "RGPU_FAILOVER_BUDGET", "RGPU_FAILOVER_LOG_MAX") if k in os.environ}

    def step(self, kept: bool, name: str, steps: int) -> dict:
        p = self.procs[kept]
        p.stdin.write(f"{name} {steps}\n")
        p.stdin.flush()
        return json.loads(p.stdout.readline())

    def close(self) -> None:
        for p in self.procs.values():
            p.stdin.close()
        for p in self.procs.values():
            p.wait(60)


@pytest.fixture(scope="module")
def trainers(tmp_path_factory):
    from benchmarks.native import run as native
    try:
        with testbed.for_test() as bed, DaemonSet() as daemons:
            pool = BedPool(bed, daemons, tmp_path_factory.mktemp("failover-bed"), device="cuda")
            # two servers, two GPUs (each null driver reports the UUID it is given): a --failover lease
            # is placed where its session could resume elsewhere
            urls = [pool.add_server(host, PORT, "--log-level", "warning",
                                    env={**pool.env, "RGPU_LIBCUDA": str(native.null_driver()),
                                         "RGPU_NULL_UUID": uuid})
                    for host, uuid in zip(("gpu1", "gpu2"), NULL_UUIDS)]
            wait_until(lambda: pool.states() == {u: "up" for u in urls}, 60, "both servers up in `rgpu ls`")
            bed.rtt(0.05)
            t = Trainers(pool)
            try:
                warm_up(t)
                yield bed, t
            finally:
                t.close()
    finally:
        write_tables()


def warm_up(t: Trainers) -> None:
    """Steps of every workload, then CNN steps until the --failover program's session has taken a
    checkpoint after them: its first ones (the models' memory whole, each workload's module images sent
    once) are its start, not the steady state measured (benchmarks/test_failover_cost.py warm_up)."""
    for name in NAMES:
        for kept in (False, True):
            t.step(kept, name, 10)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if t.step(True, "cnn", 100).get("by_call", {}).get("checkpoint", {}).get("round_trips"):
            break


@pytest.mark.parametrize("rtt_ms", RTTS_MS)
@pytest.mark.parametrize("name", list(NAMES))
def test_failover_step_cost_across_hosts(benchmark, trainers, name, rtt_ms):
    bed, t = trainers
    bed.rtt(rtt_ms)
    probe = t.step(False, name, 3)["step_s"]
    steps = max(3, int(WINDOW_S / probe))
    got: dict[bool, list] = {False: [], True: []}
    checkpoints: list[float] = []  # the --failover program's, each window
    last: dict = {}

    def once():
        for _ in range(PAIRS):
            for kept in (False, True):
                last[kept] = t.step(kept, name, steps)
                got[kept].append(last[kept]["step_s"])
            checkpoints.append(last[True].get("by_call", {}).get("checkpoint", {}).get("round_trips", 0) * steps)
    benchmark.pedantic(once, rounds=1, iterations=1)
    plain, kept = (sum(got[k]) / len(got[k]) * 1e3 for k in (False, True))
    pairs = sorted(k / p for p, k in zip(got[False], got[True]))
    row = {"rtt_ms": rtt_ms, "workload": name, "figure": NAMES[name], "steps": steps, "plain_ms": round(plain, 3),
           "failover_ms": round(kept, 3), "ratio": round(kept / plain, 4),
           "median_pair": round(pairs[len(pairs) // 2], 4), "pair_range": [round(pairs[0], 3), round(pairs[-1], 3)],
           "round_trips_per_step": {str(k): last[k].get("round_trips") for k in (False, True)},
           "checkpoints_per_step": sum(checkpoints) / (steps * len(checkpoints)),
           "all_plain_ms": [round(x * 1e3, 3) for x in got[False]], "all_failover_ms": [round(x * 1e3, 3) for x in got[True]],
           "checkpoints": [round(c) for c in checkpoints], "knobs": Trainers.knobs()}
    ROWS.append(row)
    benchmark.extra_info.update(row)


def write_tables() -> None:
    if not ROWS:
        return
    OUT.mkdir(exist_ok=True)
    meta = {"when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "pairs": PAIRS,
            "window_s": WINDOW_S, "cpus": os.cpu_count(), "tcp_congestion": testbed.CONGESTION}
    (OUT / "failover_network.json").write_text(json.dumps({"meta": meta, "rows": ROWS}, indent=2) + "\n")
    lines = [f"# --failover across hosts (test bed, {meta['when']}, {meta['cpus']} CPUs, {PAIRS} pairs of "
             f"{WINDOW_S:g} s windows, TCP congestion control {testbed.CONGESTION})", "",
             "| relay round trip | workload | without --failover | with | ratio (mean) | median pair | pair range "
             "| checkpoints a step | blocking round trips a step (without, with) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(ROWS, key=lambda r: (r["rtt_ms"], list(NAMES).index(r["workload"]))):
        trips = r["round_trips_per_step"]
        lines.append(f"| {r['rtt_ms']:g} ms | {r['figure']} | {r['plain_ms']:.3f} ms | {r['failover_ms']:.3f} ms | "
                     f"{r['ratio']:.3f} | {r['median_pair']:.3f} | {r['pair_range'][0]:.3f}-{r['pair_range'][1]:.3f} | "
                     f"{r['checkpoints_per_step']:.4f} | {trips['False']:g}, {trips['True']:g} |")
    (OUT / "failover_network.md").write_text("\n".join(lines) + "\n")
