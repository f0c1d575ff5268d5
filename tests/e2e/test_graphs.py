"""End to end: CUDA graphs and stream capture. tests/cuda/programs/graphs.cu runs each behaviour as a
mode; graphs live in the client library and are replayed through the ordinary launch and copy paths
onto a software-GPU server, so the results are the device's own."""
from __future__ import annotations

import os
import re
import subprocess

import pytest

from tests.conftest import PROGRAMS, run_cli
from tests.support import cudabuild

pytestmark = pytest.mark.e2e


def _graphs(cuda_program, url, mode, *args):
    p = run_cli("run", "--server", url, "--", str(cuda_program("graphs")), mode, *args, timeout=300)
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


def test_capture_modes_across_threads(cuda_program, sim_server):
    _graphs(cuda_program, sim_server, "modes")


def test_graph_launched_a_thousand_times(cuda_program, sim_server):
    out = _graphs(cuda_program, sim_server, "launch1000")
    m = re.search(r"launches (\d+) count (\d+) (\d+)", out)
    assert m and m.groups() == ("1000", "1000", "2000")


def test_capture_into_a_programs_graph_and_rewritten_dependencies(cuda_program, sim_server):
    _graphs(cuda_program, sim_server, "capture_to_graph")


def test_graph_memory_nodes_captured_and_explicit(cuda_program, sim_server):
    _graphs(cuda_program, sim_server, "graph_memory")


def test_symbol_pitched_host_and_event_nodes_and_graph_edits(cuda_program, sim_server, tmp_path):
    dot = tmp_path / "graph.dot"
    _graphs(cuda_program, sim_server, "other_nodes", str(dot))
    assert dot.read_text().startswith("digraph")


CUDA12_NAMES = ["cudaMalloc", "cudaMemcpy", "cudaMemsetAsync", "cudaStreamCreate", "cudaStreamSynchronize",
                "cudaStreamBeginCapture", "cudaStreamEndCapture", "cudaStreamGetCaptureInfo", "cudaGraphCreate",
                "cudaGraphAddEmptyNode", "cudaGraphAddDependencies", "cudaGraphRemoveDependencies", "cudaGraphGetEdges",
                "cudaGraphNodeGetDependencies", "cudaGraphNodeGetDependentNodes", "cudaGraphInstantiate",
                "cudaGraphLaunch"]


def test_cuda12_signatures_of_graph_and_capture_calls(tmp_path, sim_server, libdir):
    """A CUDA 12 binary calls cudaStreamGetCaptureInfo, cudaGraphGetEdges... with no edge-data
    parameter; the libcudart.so.12 version node must give it those signatures."""
    stub = "".join(f"int {n}() {{ return 35; }}\n" for n in CUDA12_NAMES)
    (tmp_path / "stub.c").write_text(stub + 'const char *cudaGetErrorName(int e) { return "stand-in"; }\n')
    (tmp_path / "v.map").write_text("libcudart.so.12 { global: cuda*; local: *; };\n")
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(tmp_path / "libcudart.so"), str(tmp_path / "stub.c"),
                    "-Wl,-soname,libcudart.so.12", f"-Wl,--version-script={tmp_path / 'v.map'}"], check=True)
    exe = tmp_path / "cuda12_graphs"
    subprocess.run(["gcc", "-o", str(exe), str(PROGRAMS / "cuda12_graphs.c"), f"-L{tmp_path}", "-lcudart"],
                   check=True)
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env.update(LD_LIBRARY_PATH=str(libdir), RGPU_SERVER=sim_server)
    p = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0 and "OK cuda12_graphs" in p.stdout, p.stdout + p.stderr


def test_driver_api_graphs_and_capture(cuda_program, sim_server):
    saxpy = cudabuild.build(PROGRAMS / "saxpy_module.cu", "ptx")
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("driver_graphs")), str(saxpy))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "OK driver_graphs" in p.stdout


def _call_counts(stderr: str) -> dict[str, tuple[int, int]]:
    """RGPU_STATS=1's lines: call -> (round trips, async calls)."""
    return {m[0]: (int(m[1]), int(m[2]))
            for m in re.findall(r"rgpu stats: call (\w+) round_trips=(\d+) async=(\d+)", stderr)}


@pytest.mark.parametrize("on", ["1", "0"], ids=["server_graphs", "client_replay"])
def test_a_graph_of_kernels_a_memset_and_a_copy_runs_on_the_server_one_call_a_launch(cuda_program, sim_server, on):
    """graph_server.c: a graph the server can run whole (its child graph's kernel among its nodes) is sent once and then launched by one async call
    a launch; a change to the executable graph (new kernel parameters, a node switched off) sends it
    again. RGPU_SERVER_GRAPHS=0 replays the same nodes from the client: the same results."""
    env = {**os.environ, "RGPU_STATS": "1", "RGPU_SERVER_GRAPHS": on}
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("graphs")), "server", "200", env=env, timeout=300)
    assert p.returncode == 0 and "OK graphs server" in p.stdout, p.stdout + p.stderr
    assert "server launches 200 got 200 400 200 07070707 600" in p.stdout, p.stdout
    assert "server changed got 220 402 220 606" in p.stdout, p.stdout
    calls = _call_counts(p.stderr)
    if on == "1":
        assert calls["rgpuGraphLaunch"] == (0, 202), calls
        assert calls["rgpuGraphBuild"] == (3, 0), calls  # at first, after the new parameters, after the switch
        assert "cudaLaunchKernel" not in calls, calls
    else:
        assert not [c for c in calls if c.startswith("rgpuGraph")], calls
        assert calls["cudaLaunchKernel"] == (0, 3 * 200 + 3 + 2), calls  # three kernels, one switched off last


def test_a_graph_the_worker_cannot_run_is_replayed_and_the_log_says_why(cuda_program, sim_server):
    """The capture mode's graph copies from and to the host: it stays in the client, replayed node by node,
    and the client library's log (RGPU_LOG=info) names the first node that keeps it there."""
    env = {**os.environ, "RGPU_LOG": "info", "RGPU_STATS": "1"}
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("graphs")), "capture", env=env, timeout=300)
    assert p.returncode == 0 and "OK graphs capture" in p.stdout, p.stdout + p.stderr
    assert re.search(r"a graph is replayed from the client at each launch: its node \d+ is a copy the worker does "
                     r"not run in a graph", p.stderr), p.stderr
    assert not [c for c in _call_counts(p.stderr) if c.startswith("rgpuGraph")], p.stderr


@pytest.mark.parametrize("on", ["1", "0"], ids=["server_graphs", "client_replay"])
def test_a_fault_in_a_graph_the_worker_runs_is_the_next_synchronizing_calls_error(cuda_program, sim_server, on):
    """A graph kernel that writes where no memory is: cudaGraphLaunch succeeds (it is async) and
    cudaDeviceSynchronize reports cudaErrorIllegalAddress, whether the worker or the client's replay
    launched it."""
    env = {**os.environ, "RGPU_STATS": "1", "RGPU_SERVER_GRAPHS": on}
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("graphs")), "server_fault", env=env, timeout=300)
    assert p.returncode == 0 and "server fault cudaErrorIllegalAddress" in p.stdout, p.stdout + p.stderr
    assert ("rgpuGraphLaunch" in _call_counts(p.stderr)) == (on == "1"), p.stderr
