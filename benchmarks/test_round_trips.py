"""PyTorch steps on the null driver (issue 37, "round trips are counted"): each workload of
tests/e2e/torch_workloads.py through `rgpu run` on a `--device cuda` server over benchmarks/native/nulldriver.c
(no kernel runs: what is timed is PyTorch on the CPU plus rgpu's own path), with its blocking round trips
per step from the client library's counters, beside the raw transport's round trip (benchmarks/harness,
bare libzmq against the harness's bare C ROUTER, `bench rawserve`) and rgpu's own sync round trip to the same server
(cudaStreamQuery through the harness), measured in the same run, alternately, best of transport.ROUNDS.

A step's time across a network is about its time here plus its round trips times the network's round
trip: the round trips per step are the figure that decides it, their floor the program's own
synchronisations (one `.item()` a step). Rows are recorded as "<workload> trips" (rgpu = the count,
raw = the floor) and "<workload> step" (rgpu = µs a step, raw = one raw round trip in µs), each "local"
(the same host: shared segment, shared pinned memory) and "remote" (RGPU_SHM=0, as across hosts). The
workloads run one after the other in one process per round (PyTorch starts once): about a minute and a
half on two cores at the default three rounds."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.transport import HERE, ROUNDS, build_harness
from rgpu.paths import libdir
from tests.support import torchenv
from tests.support.daemons import DaemonSet
from tests.support.null_server import start as start_null_server

ROOT = Path(__file__).resolve().parents[1]
WORKLOADS = ROOT / "tests" / "e2e" / "torch_workloads.py"
STEPS = int(os.environ.get("RGPU_BENCH_STEPS", "30"))
NAMES = ["cnn", "transformer", "transformer_amp", "decode", "decode_graph"]


@pytest.fixture(scope="module")
def bed():
    """(null-driver server URL, raw server URL, harness)."""
    with DaemonSet() as daemons:
        url, _ = start_null_server(daemons, "--log-level", "warning")
        raw = subprocess.Popen([str(build_harness()), "rawserve", "tcp://127.0.0.1:*"], stdout=subprocess.PIPE,
                               text=True)
        try:
            yield url, raw.stdout.readline().strip(), build_harness()
        finally:
            raw.kill()
            raw.wait(10)


def _json(argv, env) -> list[dict]:
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, argv))} failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]


def _workloads(url: str, shm: str) -> dict[str, dict]:
    """Every workload, one after the other in one process (PyTorch starts once)."""
    runs = _json([sys.executable, "-m", "rgpu.client.cli", "run", "--server", url, "--", str(torchenv.python()),
                  str(WORKLOADS), *NAMES, "--warmup", "5", "--steps", str(STEPS)], {**os.environ, "RGPU_SHM": shm})
    return {r["workload"]: r for r in runs}


def _raw_rtt(raw_url: str, harness: Path) -> float:
    return _json([str(harness), "raw", raw_url, "sync", "5000"], dict(os.environ))[-1]["us"]


def _rgpu_rtt(url: str, harness: Path, shm: str) -> float:
    env = {**os.environ, "RGPU_SERVER": url, "RGPU_SHM": shm, "LD_LIBRARY_PATH": str(libdir())}
    return _json([str(harness), "rgpu", "sync", "5000"], env)[-1]["us"]


@pytest.mark.parametrize("shm", ["1", "0"], ids=["same-host", "across-hosts"])
def test_workload_steps(benchmark, bed, figures, shm):
    url, raw_url, harness = bed
    runs: dict[str, list] = {"steps": [], "raw": [], "rgpu": []}

    def once():
        for _ in range(ROUNDS):
            runs["steps"].append(_workloads(url, shm))
            runs["raw"].append(_raw_rtt(raw_url, harness))
            runs["rgpu"].append(_rgpu_rtt(url, harness, shm))
    benchmark.pedantic(once, rounds=1, iterations=1)
    raw, rgpu = min(runs["raw"]), min(runs["rgpu"])
    where = "local" if shm == "1" else "remote"
    figures[f"sync round trip {where}"] = {"rgpu": rgpu, "raw": raw, "unit": "µs (null driver)"}
    info = {"where": where, "raw_round_trip_us": raw, "rgpu_sync_round_trip_us": rgpu, "steps": STEPS}
    for name in NAMES:
        best = min((r[name] for r in runs["steps"]), key=lambda r: r["step_s"])
        trips = {r[name]["round_trips"] for r in runs["steps"]}
        assert len(trips) == 1, (name, trips)  # a count: the same in every round
        step_us = best["step_s"] * 1e6
        figures[f"{name} trips {where}"] = {"rgpu": best["round_trips"], "raw": best["syncs_per_step"],
                                            "unit": "round trips a step (raw: the program's own)"}
        figures[f"{name} step {where}"] = {"rgpu": step_us, "raw": raw, "unit": "µs (raw: one raw round trip)"}
        info[name] = {"step_us": step_us, "round_trips_per_step": best["round_trips"],
                      "program_syncs_per_step": best["syncs_per_step"], "async_calls_per_step": best["async_calls"],
                      "by_call": {k: v["round_trips"] for k, v in best["by_call"].items()}}
    benchmark.extra_info.update(info)
