"""The native-speed benchmark program (benchmarks/native) runs through rgpu on the test backend and
checks its own results (copied bytes, the axpy loop's sum); the runner's table has every row. No
timing is asserted: the figures are the benchmark's (python -m benchmarks.native.run)."""
from __future__ import annotations

import pytest

from benchmarks.native import run as native
from rgpu.paths import client_env

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
