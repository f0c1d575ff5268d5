"""PyTorch steps on the null driver (issue 37, "round trips are counted"): each workload of
tests/e2e/torch_workloads.py through `rgpu run` on a `--device cuda` server over benchmarks/native/nulldriver.c
(no kernel runs: what is timed is PyTorch on the CPU plus rgpu's own path), with its blocking round trips
per step from the client library's counters, beside the raw transport's round trip (benchmarks/harness,
bare libzmq against benchmarks/rawserver.py) and rgpu's own sync round trip to the same server
(cudaStreamQuery through the harness), measured in the same run, alternately, best of transport.ROUNDS.

A step's time across a network is about its time here plus its round trips times the network's round
trip: the round trips per step are the figure that decides it, their floor the program's own
synchronisations (one `.item()` a step). Rows are recorded as "<workload> round trips/step" (rgpu = the
count, raw = the floor) and "<workload> step" (rgpu = µs a step, raw = one raw round trip in µs); both
ways of running each: the same host (shared segment) and across hosts (RGPU_SHM=0)."""
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


@pytest.fixture(scope="module")
def bed():
    """(null-driver server URL, raw server URL, harness)."""
    with DaemonSet() as daemons:
        url, _ = start_null_server(daemons, "--log-level", "warning")
        raw = subprocess.Popen([sys.executable, str(HERE / "rawserver.py"), "tcp://127.0.0.1:*"],
                               stdout=subprocess.PIPE, text=True)
        try:
            yield url, raw.stdout.readline().strip(), build_harness()
        finally:
            raw.kill()
            raw.wait(10)


def _json(argv, env) -> dict:
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, argv))} failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def _workload(url: str, name: str, shm: str) -> dict:
    return _json([sys.executable, "-m", "rgpu.client.cli", "run", "--server", url, "--", str(torchenv.python()),
                  str(WORKLOADS), name, "--warmup", "5", "--steps", str(STEPS)], {**os.environ, "RGPU_SHM": shm})


def _raw_rtt(raw_url: str, harness: Path) -> float:
    return _json([str(harness), "raw", raw_url, "sync", "5000"], dict(os.environ))["us"]


def _rgpu_rtt(url: str, harness: Path, shm: str) -> float:
    env = {**os.environ, "RGPU_SERVER": url, "RGPU_SHM": shm, "LD_LIBRARY_PATH": str(libdir())}
    return _json([str(harness), "rgpu", "sync", "5000"], env)["us"]


@pytest.mark.parametrize("shm", ["1", "0"], ids=["same-host", "across-hosts"])
@pytest.mark.parametrize("workload", ["cnn", "transformer", "decode", "decode_graph"])
def test_workload_step(benchmark, bed, figures, workload, shm):
    url, raw_url, harness = bed
    runs: dict[str, list] = {"step": [], "raw": [], "rgpu": []}

    def once():
        for _ in range(ROUNDS):
            runs["step"].append(_workload(url, workload, shm))
            runs["raw"].append(_raw_rtt(raw_url, harness))
            runs["rgpu"].append(_rgpu_rtt(url, harness, shm))
    benchmark.pedantic(once, rounds=1, iterations=1)
    best = min(runs["step"], key=lambda r: r["step_s"])
    trips = {r["round_trips"] for r in runs["step"]}
    assert len(trips) == 1, trips  # a count: the same in every round
    raw, rgpu = min(runs["raw"]), min(runs["rgpu"])
    where = "local" if shm == "1" else "remote"
    step_us = best["step_s"] * 1e6
    figures[f"{workload} trips {where}"] = {"rgpu": best["round_trips"], "raw": best["syncs_per_step"],
                                                      "unit": "round trips (raw: the program's own)"}
    figures[f"{workload} step {where}"] = {"rgpu": step_us, "raw": raw, "unit": "µs (raw: one raw round trip)"}
    benchmark.extra_info.update(
        workload=workload, where=where, step_us=step_us, round_trips_per_step=best["round_trips"],
        program_syncs_per_step=best["syncs_per_step"], async_calls_per_step=best["async_calls"],
        by_call={k: v["round_trips"] for k, v in best["by_call"].items()}, raw_round_trip_us=raw,
        rgpu_sync_round_trip_us=rgpu, steps=STEPS)
