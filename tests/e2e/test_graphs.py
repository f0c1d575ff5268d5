"""End to end: CUDA graphs and stream capture. tests/cuda/programs/graphs.cu runs each behaviour as a
mode; graphs live in the client library and are replayed through the ordinary launch and copy paths
onto a software-GPU server, so the results are the device's own."""
from __future__ import annotations

import re

import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.e2e


def _graphs(cuda_program, url, mode):
    p = run_cli("run", "--server", url, "--", str(cuda_program("graphs")), mode, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"OK graphs {mode}" in p.stdout, p.stdout + p.stderr
    return p.stdout


def test_captured_kernels_copies_and_memset_replay_with_fresh_host_data(cuda_program, sim_server):
    out = _graphs(cuda_program, sim_server, "capture")
    assert "replays 5 checked 1280" in out


def test_explicit_graph_with_a_diamond_child_graph_and_clone(cuda_program, sim_server):
    _graphs(cuda_program, sim_server, "diamond")


def test_exec_kernel_node_set_params_and_exec_update_between_launches(cuda_program, sim_server):
    _graphs(cuda_program, sim_server, "set_params")


def test_two_streams_joined_by_events_in_one_capture(cuda_program, sim_server):
    out = _graphs(cuda_program, sim_server, "fork_join")
    assert "fork_join nodes 7 edges 7 roots 1" in out


def test_illegal_calls_during_capture_refuse_and_invalidate(cuda_program, sim_server):
    _graphs(cuda_program, sim_server, "capture_errors")


def test_graph_launched_a_thousand_times(cuda_program, sim_server):
    out = _graphs(cuda_program, sim_server, "launch1000")
    m = re.search(r"launches (\d+) count (\d+) (\d+)", out)
    assert m and m.groups() == ("1000", "1000", "2000")
