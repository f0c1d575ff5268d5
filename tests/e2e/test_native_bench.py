"""The native-speed benchmark program (benchmarks/native) runs through rgpu on the test backend and
checks its own results (copied bytes, the axpy loop's sum); the runner's table has every row. No
timing is asserted: the figures are the benchmark's (python -m benchmarks.native.run)."""
from __future__ import annotations

import re

import pytest

from benchmarks.native import run as native
from rgpu.paths import client_env
from tests.support.daemons import wait_until
from tests.support.null_server import start as start_null_server

pytestmark = pytest.mark.e2e


def test_every_figure_is_measured_through_rgpu(sim_server, device_kind):
    exe = native.build()
    scale = "gpu" if device_kind == "cuda" else "sim"
    got = native.run_program(exe, client_env([sim_server]), "", scale, 1)
    keys = [key for key, *_ in native.ROWS]
    assert all(got[k] > 0 for k in keys), got
    res = {"device": device_kind, "scale": scale, "host": "h", "when": "t", "rgpu": got, "rgpu_noshm": got,
           "raw": {"sync_rtt_us": 50.0, "oneway_rate_k": 100.0, "h2d_gbps": 2.0, "d2h_gbps": 4.0}}
    text = native.table(res)
    for _key, label, _unit, _better in native.ROWS:
        assert f"| {label} |" in text
    assert "async launches vs one-way messages" in text
    # the path across hosts against the raw transport's bandwidth
    assert f"{got['h2d_pageable_gbps'] / 2.0:.2f}× (goal ≥ 0.9)" in text
    assert f"{got['d2h_pageable_gbps'] / 4.0:.2f}× (goal ≥ 0.9)" in text
    # a GPU run's second server, launching through Python: its rows beside the compiled loop's
    assert "RGPU_FAST_LAUNCH" not in text
    res["rgpu_pylaunch"] = {k: got[k] / 2 for k in native.LAUNCH_ROWS}
    text = native.table(res)
    assert f"| empty-kernel launches (async) | — | {got['launch_rate_k'] / 2:,.2f} k/s | {got['launch_rate_k']:,.2f} k/s |" \
        in text
    # the round trips again with both ends blocking at once (RGPU_SPIN_US=0, --spin-us 0)
    assert "RGPU_SPIN_US" not in text
    res["rgpu_blocking"] = {k: got[k] * 2 for k in native.WAIT_ROWS}
    text = native.table(res)
    assert f"| cudaStreamSynchronize round trip | — | {got['sync_rtt_us'] * 2:,.2f} µs | {got['sync_rtt_us']:,.2f} µs | — |" \
        in text
    # the CUDA graph row again with the client replaying the graph (RGPU_SERVER_GRAPHS=0)
    assert "RGPU_SERVER_GRAPHS" not in text
    res["rgpu_replay"] = {k: got[k] * 3 for k in native.GRAPH_ROWS}
    assert f"| CUDA graph of 20 kernels + synchronize | — | {got['graph_launch_us'] * 3:,.2f} µs | " \
           f"{got['graph_launch_us']:,.2f} µs | — |" in native.table(res)
    # the pageable variants' tables keep their goal
    res["rgpu_whole"] = {k: got[k] / 2 for k in native.PAGEABLE}
    res["native"] = {k: got[k] for k in native.PAGEABLE}
    assert f"| H2D pageable | {got['h2d_pageable_gbps']:,.2f} GB/s | {got['h2d_pageable_gbps'] / 2:,.2f} GB/s | " \
           f"{got['h2d_pageable_gbps']:,.2f} GB/s | 1.00× (goal ≥ 0.8) |" in native.table(res)


def test_the_cuda_backend_serves_every_row_on_a_driver_that_does_no_gpu_work(daemons):
    """`run.py --device null`: a `--device cuda` server on benchmarks/native/nulldriver.c (device memory
    is host memory, kernels are counted and not run). The program's rows go through the cuda backend's
    whole path (compiled launch loop, timing windows, waits, pinned mappings registered with the
    driver, pipelined staged copies) on any host, and its copy check holds: what comes back down is
    what went up. The server's own counts say which paths served them."""
    exe = native.build()
    url, h = start_null_server(daemons)
    rows = [key for key, *_ in native.ROWS if key not in native.NOT_ON_NULL]
    got = native.run_program(exe, client_env([url]), ",".join(rows), "sim", 1)
    assert got["device"] == "rgpu null driver (no GPU work)"
    assert all(got[k] > 0 for k in rows), got
    line = wait_until(lambda: re.search(r"event=session_ended .*", h.output(500000)), 15, "the session ends").group(0)
    counts = {k: int(v) for k, v in re.findall(r"\b(\w+)=(\d+)\b", line)}
    # 5,000 async launches in runs of a message and 1,000 launch + synchronize steps: every launch goes
    # through the compiled loop, and so does every synchronize (5,000 alone, 1,000 after a launch)
    assert counts["launches_compiled"] >= 6000 and counts["waits_compiled"] >= 6000, line
    # and the worker found many of its messages polling for them after the last (--spin-us), not blocked
    assert counts["spin_hits"] >= 100, line
    # the pinned rows' copies (a warm-up and 5 each way, 16 MiB) went between the program's own
    # buffer and the device, not through the session's segment
    assert counts["pinned_bytes_in"] >= 6 * (16 << 20) and counts["pinned_bytes_out"] >= 5 * (16 << 20), line
    assert counts["shm_bytes_in"] >= 6 * (16 << 20), line  # the pageable ones did


def test_a_profiled_worker_says_where_its_rows_time_went(daemons, tmp_path):
    """RGPU_WORKER_PROFILE (run.py --profile): each session's worker leaves its profile and its loop's
    wall time, which profile_rows turns into serving against waiting and the worker's stages."""
    from benchmarks.native import profile_rows
    exe = native.build()
    url, h = start_null_server(daemons, env={"RGPU_WORKER_PROFILE": str(tmp_path / "worker")})
    native.run_program(exe, {**client_env([url]), "RGPU_SHM": "1"}, "sync_rtt_us", "sim", 1)
    wait_until(lambda: list(tmp_path.glob("worker.*.wall")), 15, "the session ends")
    profile = next(p for p in tmp_path.glob("worker.*") if p.suffix != ".wall")
    text = profile_rows.summary(str(profile))
    m = re.match(r"(\d+) messages: serving ([\d.]+) ms, waiting for the client \(receive, spin\) ([\d.]+) ms", text)
    assert m and int(m.group(1)) >= 5000 and float(m.group(3)) > 0, text
    assert "cuda: compiled wait, alone" in text, text  # the row's 5,000 synchronize calls alone in their messages


def test_kernels_that_take_time_on_the_null_driver_are_waited_for_by_the_loop(daemons):
    """RGPU_NULL_KERNEL_US (run.py --kernel-us): the null driver's kernels take that long, so that the
    synchronize right after a launch finds its stream busy, as on a GPU. The compiled loop polls it
    (launches.c, poll_stream) and answers every launch + synchronize step itself."""
    exe = native.build()
    url, h = start_null_server(daemons, env={"RGPU_NULL_KERNEL_US": "20"})
    got = native.run_program(exe, {**client_env([url]), "RGPU_SHM": "1"}, "launch_sync_us", "sim", 1)
    assert got["launch_sync_us"] >= 20, got  # a step cannot end before its kernel does
    line = wait_until(lambda: re.search(r"event=session_ended .*", h.output(200000)), 15, "the session ends").group(0)
    counts = {k: int(v) for k, v in re.findall(r"\b(\w+)=(\d+)\b", line)}
    assert counts["launches_compiled"] >= 1000 and counts["waits_compiled"] >= 1000, line


def test_the_pytorch_steps_benchmark_runs_each_workload_through_both_paths_with_equal_results():
    """benchmarks/native/torch_steps.py (scripts/gpu_check.sh's torch_steps step) on the null driver:
    every workload through rgpu on the same host (also with async calls held, RGPU_BATCH_CALLS=256) and with RGPU_SHM=0,
    each step waiting for exactly the program's own synchronisations, the last step's value the same
    every way; its table says so."""
    from benchmarks.native import torch_steps
    res = torch_steps.measure("null", steps=3, rounds=1, warmup=5)  # past the first steps' one-time queries
    assert not res.get("errors"), res.get("errors")
    for config in ("rgpu", "rgpu_noshm", "rgpu_held"):  # the last: async calls held until the sync
        assert set(res["best"][config]) == set(torch_steps.NAMES), res["best"][config].keys()
        for name, r in res["best"][config].items():
            assert r["round_trips"] == r["syncs_per_step"], (config, name, r["round_trips"], r["by_call"])
    for config in ("rgpu", "rgpu_noshm"):
        # the CUDA graph's replay is one call to the worker (graph_server.c), which launches the graph
        # the cuda backend built with the driver (server/api/graphs.py), not a call per node: with
        # the token's D2H copy, two async calls a step
        assert res["best"][config]["decode_graph"]["async_calls"] == 2, res["best"][config]["decode_graph"]
    for name in torch_steps.NAMES:
        assert res["last"]["rgpu"][name] == res["last"]["rgpu_noshm"][name] == res["last"]["rgpu_held"][name], name
    text = torch_steps.table(res)
    assert text.count("| equal: ") == len(torch_steps.NAMES) and "native" not in text.split("\n")[0], text
