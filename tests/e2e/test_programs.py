"""End to end: nvcc-built programs of the project run unchanged through `rgpu run` on a
software-GPU server, and the faults of the walking skeleton behave as CUDA's."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from rgpu.client.server_client import stats
from rgpu.server import data_stream
from tests.conftest import ENDLESS, run_cli
from tests.support.null_server import start as start_null_server
from tests.support.daemons import wait_until

pytestmark = pytest.mark.e2e


def _run(exe, url, *args, env=None):
    return run_cli("run", "--server", url, "--", str(exe), *args, env=env)


@pytest.mark.parametrize("name", ["device_query", "copy_roundtrip", "streams_events", "faults", "driver_api",
                                  "context_misc", "occupancy_bounds", "driver_async_error", "driver_stream_memops",
                                  "driver_managed_host_attach"])
def test_program_runs_through_rgpu(name, cuda_program, sim_server):
    exe = cuda_program(name)
    p = _run(exe, sim_server)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"OK {name}" in p.stdout


def test_a_child_forked_after_cuda_use_is_refused_and_leaves_the_parent_alone(cuda_program, sim_server):
    """fork() after the program used its device: in the child cuMemAlloc, cuInit and cudaMalloc fail with
    CUDA_ERROR_NOT_INITIALIZED / cudaErrorInitializationError, as the driver answers a forked child (the
    child's copy of the connection is the parent's session), and the child's ordinary exit leaves that
    session alone: the parent reads back what it wrote before the fork."""
    p = _run(cuda_program("driver_fork_after_use"), sim_server)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "OK child cuMemAlloc 3 cuInit 3 cudaMalloc 3" in p.stdout, p.stdout + p.stderr
    assert "OK driver_fork_after_use" in p.stdout, p.stdout + p.stderr


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_launch_configuration_errors_come_from_the_launch(cudart, cuda_program, sim_server):
    """1025 threads per block, a block's z of 65, a grid's y of 65536, a zero dimension, more threads
    than __launch_bounds__ allow, dynamic shared memory past the function's limit: the launch itself
    fails (cudaGetLastError() right after <<<>>>, cuLaunchKernel's return code), as on a GPU, and the
    next synchronising call succeeds; through rgpu's runtime and through NVIDIA's static one."""
    p = _run(cuda_program("driver_launch_config", cudart=cudart), sim_server)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "OK driver_launch_config" in p.stdout


def test_a_kernel_the_device_cannot_run_fails_at_its_launch_with_the_cause(cuda_program, sim_server, device_kind):
    """elect.sync, which the software GPU's interpreter lacks: cuLaunchKernel itself returns
    CUDA_ERROR_NOT_SUPPORTED and the cause (the instruction and its line) is on stderr without
    RGPU_LOG; nothing is left for the next synchronising call. A GPU runs the kernel."""
    env = {k: v for k, v in os.environ.items() if k != "RGPU_LOG"}
    p = _run(cuda_program("driver_unsupported_ptx"), sim_server, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "OK driver_unsupported_ptx" in p.stdout
    if device_kind == "sim":
        assert "launch 801" in p.stdout and "refused at the launch" in p.stdout
        assert "elect.sync" in p.stderr and "not supported by the software GPU" in p.stderr, p.stderr
    else:
        assert "ran" in p.stdout


def test_exit_code_passes_through(cuda_program, sim_server, tmp_path):
    p = run_cli("run", "--server", sim_server, "--", "sh", "-c", "exit 7")
    assert p.returncode == 7


def test_two_servers_are_two_devices(cuda_program, start_server, device_kind):
    a, _ = start_server()
    b, _ = start_server("--sim-arch", "sm_80", memory="512MiB")
    p = run_cli("run", "--server", f"{a},{b}", "--", str(cuda_program("device_query")))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "devices 2" in p.stdout
    if device_kind == "sim":  # an sm_80 beside the default sm_130: cudaChooseDevice tells them apart
        assert "chose 1 0" in p.stdout
    # device 1 is server b's GPU, with the memory b says it has (512 MiB on the software GPU)
    assert re.search(rf"device 1: .* mem {stats(b)['gpus'][0]['memory_total']} ", p.stdout)


@pytest.mark.parametrize("program", ["peer_copy", "driver_peer3d"])  # 1D and 3D
def test_peer_copies_between_devices_on_two_servers(cuda_program, start_server, program):
    a, _ = start_server()
    b, _ = start_server()
    p = run_cli("run", "--server", f"{a},{b}", "--", str(cuda_program(program)))
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"OK {program}" in p.stdout


def test_two_cuda_servers_give_a_programs_devices_apart_addresses(cuda_program, daemons):
    """Each cuda server's session memory comes from its arena (server/backends/cuda/arena.py), at the
    place of the window the client asks for (the device's number): the program's two devices never
    give out the same addresses (on an H200 they did before, and PyTorch freed the wrong one)."""
    a, b = start_null_server(daemons)[0], start_null_server(daemons)[0]
    p = run_cli("run", "--server", f"{a},{b}", "--", str(cuda_program("driver_peer3d")))
    out = p.stdout + p.stderr
    assert p.returncode == 0 and "OK driver_peer3d" in p.stdout, out
    assert "gave out the same addresses" not in out, out


def test_library_path_alone_with_no_nvidia_library_reachable(cuda_program, sim_server, libdir):
    """LD_LIBRARY_PATH mode: the program's libcudart.so.13 resolves to rgpu's library."""
    exe = cuda_program("copy_roundtrip")
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "LD_LIBRARY_PATH", "CUDA_HOME")}
    env.update(LD_LIBRARY_PATH=str(libdir), RGPU_SERVER=sim_server)
    ldd = subprocess.run(["ldd", str(exe)], capture_output=True, text=True, env=env).stdout
    assert re.search(rf"libcudart\.so\.13 => {re.escape(str(libdir))}/libcudart\.so\.13", ldd), ldd
    p = subprocess.run([str(exe), "4"], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0 and "OK copy_roundtrip 4 MiB" in p.stdout, p.stdout + p.stderr


def test_rgpu_env_lines_set_up_a_shell(cuda_program, sim_server):
    out = run_cli("env", "--server", sim_server)
    assert out.returncode == 0 and "export LD_PRELOAD=" in out.stdout
    exe = cuda_program("device_query")
    p = subprocess.run(["bash", "-c", f'eval "$({sys.executable} -m rgpu.client.cli env --server {sim_server})"; {exe}'],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "OK device_query" in p.stdout, p.stdout + p.stderr


def _start_holder(exe, url, mib, timeout_s, *args, **env):
    env = dict(os.environ, RGPU_TIMEOUT=str(timeout_s), **env)
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--server", url, "--", str(exe), str(mib),
                             *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    assert line.startswith("READY"), line + proc.stderr.read()
    return proc


def test_client_killed_inside_a_kernel_that_never_ends_frees_its_session(cuda_program, sim_server):
    # The worker is busy inside the kernel when its client goes: the software GPU notices at a time
    # slice; on a GPU the worker waits in the driver and the server ends it. Either way the kernel's
    # running time is reported while it runs.
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--server", sim_server, "--",
                             str(cuda_program("spin_kernels")), "120", str(ENDLESS)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("READY")
        wait_until(lambda: any(s["device_time_s"] > 0.3 for s in stats(sim_server)["sessions"]), 30, "kernel running")
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        wait_until(lambda: not stats(sim_server)["sessions"], 30, "session reaped")
        assert stats(sim_server)["gpus"][0]["memory_used"] == 0
    finally:
        proc.kill()


def test_stats_show_the_gpus_utilisation_and_memory(cuda_program, sim_server, device_sizes):
    """What NVML says of a real GPU, and the software GPU's own equivalents, while a program runs."""
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--server", sim_server, "--",
                             str(cuda_program("spin_kernels")), "60", str(device_sizes["spin_iters"])],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("READY")
        busy = wait_until(lambda: next((g for g in [stats(sim_server)["gpus"][0]]
                                        if g.get("utilization_pct", 0) > 10), None), 30, "utilisation in stats")
        assert busy["memory_used_device"] >= 4096 * 4 and "temperature_c" in busy
    finally:
        proc.kill()
        proc.wait()


def _kill_and_hear(server, proc, within_s: float) -> None:
    """Kill the server under the running holder: it must fail with device-unavailable, in time."""
    try:
        killed = time.monotonic()
        server.kill()
        out, err = proc.communicate(timeout=within_s + 30)
        took = time.monotonic() - killed
    finally:
        proc.kill()
    assert proc.returncode == 3 and "ERROR 46 cudaErrorDevicesUnavailable" in out, out + err
    assert took < within_s, f"took {took:.1f}s"


def test_server_killed_mid_run_gives_device_unavailable_quickly(cuda_program, start_server):
    url, server = start_server()
    proc = _start_holder(cuda_program("hold_memory"), url, 16, timeout_s=5)
    _kill_and_hear(server, proc, 5 + 5)  # RGPU_TIMEOUT=5


@pytest.mark.parametrize("how", [{"RGPU_SHM_PIPELINE": "1"}, {"RGPU_SHM": "0"}], ids=["pipelined", "pieces"])
def test_server_killed_during_large_copies_gives_device_unavailable_quickly(cuda_program, start_server, how):
    """Killed while the client copies a chunk out of the segment as the worker writes the next
    (RGPU_SHM_PIPELINE), or takes a copy's pieces one message at a time (RGPU_SHM=0): the client hears
    of the lost connection at once, well before its RGPU_TIMEOUT."""
    url, server = start_server()
    proc = _start_holder(cuda_program("hold_memory"), url, 32, 60, "copies", **how)
    time.sleep(0.5)  # copies under way
    _kill_and_hear(server, proc, 20)  # RGPU_TIMEOUT=60


@pytest.mark.parametrize("way, shm", [("uploads", "0"), ("copies", "0"), ("syncs", "1")])
def test_a_worker_frozen_during_large_copies_gives_device_unavailable_not_a_hang(cuda_program, start_server, way, shm):
    """The session's worker stopped (SIGSTOP: a GPU host that hangs) while the program copies 32 MiB at
    a time across TCP, in pieces (RGPU_SHM=0), or synchronizes through the same-host call ring: the
    program hears its device is gone within the library's silence bound (10 s of nothing from the
    worker, which pings every second), not after the RGPU_TIMEOUT of 120 s its calls may wait here (a
    host gone mid-copy: tests/network, test_a_link_gone_silent_mid_copy)."""
    url, _ = start_server()
    proc = _start_holder(cuda_program("hold_memory"), url, 32, 120, way, RGPU_SHM=shm)
    [session] = wait_until(lambda: stats(url)["sessions"], 10, "the session")
    time.sleep(0.5)  # copies under way
    os.kill(session["pid"], signal.SIGSTOP)
    try:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 3 and "ERROR 46 cudaErrorDevicesUnavailable" in out, out + err
        assert "connection lost" in err, err
    finally:
        os.kill(session["pid"], signal.SIGCONT)
        proc.kill()
        proc.wait(10)


def test_client_killed_mid_run_returns_its_memory(cuda_program, sim_server):
    proc = _start_holder(cuda_program("hold_memory"), sim_server, 64, timeout_s=30)
    try:
        used = stats(sim_server)["gpus"][0]["memory_used"]
        assert used >= 64 << 20
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        wait_until(lambda: stats(sim_server)["gpus"][0]["memory_used"] == 0, 20, "memory returned")
        wait_until(lambda: not stats(sim_server)["sessions"], 20, "session reaped")
    finally:
        proc.kill()


def test_3d_copies_and_memsets_of_pitched_memory(cuda_program, sim_server):
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("memcpy3d")))
    assert p.returncode == 0 and p.stdout.splitlines()[-1] == "OK memcpy3d", p.stdout + p.stderr


@pytest.mark.parametrize("program", [
    "driver_batch_copies",  # cudaMemcpyBatchAsync / cudaMemcpy3DBatchAsync and their Driver forms (CUDA 12.8+)
    "driver_user_objects",  # graph user objects: destructors once the program and every graph let go
    "driver_graph_nodes",   # the generic node calls: cudaGraphAddNode of every kind, set and exec-set params
    "driver_pointer_attrs",  # cuPointerGetAttributes as NVIDIA's cudart asks it (device memory's host address: NULL)
    "driver_pointer_facts",  # SYNC_MEMOPS set and read back, BUFFER_ID never reused, pool, IPC and mapping facts
    "driver_large_params",  # 32,000 bytes of kernel parameters by value (KPARAM_INFO_V2 in the cubin)
])
@pytest.mark.parametrize("cudart", ["shared", "static"])  # static: NVIDIA's runtime over rgpu's driver calls
def test_client_side_apis(cuda_program, sim_server, program, cudart):
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program(program, cudart)))
    assert p.returncode == 0 and f"OK {program}" in p.stdout, p.stdout + p.stderr


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_context_wide_events_take_in_every_stream(cuda_program, sim_server, cudart):
    """cuCtxRecordEvent completes only once a busy non-blocking stream's kernel has (a stream's own
    event does not wait for it); after cuCtxWaitEvent, an existing stream's and a new stream's later
    work wait for the event; a capture in progress refuses them. The kernel runs 3 s by the GPU's
    timer, so that it still runs after the three round trips before the last look on a loaded
    machine."""
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("driver_ctx_events", cudart)), "3000")
    assert p.returncode == 0 and "OK driver_ctx_events" in p.stdout, p.stdout + p.stderr


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_dynamic_parallelism(cuda_program, sim_server, cudart):
    """Kernels that launch kernels (-rdc and libcudadevrt): children, a tail launch, recursion, a
    device-made stream, a refused launch and a child's fault. nvlink's image is SASS alone; the
    software GPU links the program's units from their PTX, found beside it (rgpu's runtime
    registers them with it; under NVIDIA's, the client's companion finds them)."""
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("cdp_launches", cudart)))
    assert p.returncode == 0 and "OK cdp_launches" in p.stdout, p.stdout + p.stderr


@pytest.mark.parametrize("servers", [1, 2])
@pytest.mark.parametrize("cudart", ["shared", "static"])  # static: NVIDIA's cudaPointerGetAttributes over rgpu's cuPointerGetAttributes
def test_pinned_memory_and_pointer_attributes_on_every_device(cuda_program, start_server, servers, cudart):
    urls = [start_server()[0] for _ in range(servers)]
    p = run_cli("run", "--server", ",".join(urls), "--", str(cuda_program("pointer_kinds", cudart)))
    assert p.returncode == 0 and f"OK pointer_kinds {servers} devices" in p.stdout, p.stdout + p.stderr


def test_mapped_host_memory_is_reachable_from_kernels(cuda_program, sim_server):
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("zero_copy")))
    assert p.returncode == 0 and p.stdout.splitlines()[-1] == "OK zero_copy", p.stdout + p.stderr
    # Nothing of it was device memory (the host's pages are mapped), and nothing is left once it ended.
    wait_until(lambda: stats(sim_server)["gpus"][0]["memory_used"] == 0, 20, "memory returned")


def test_driver_api_pitched_copies(cuda_program, sim_server):
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("driver_memcpy2d")))
    assert p.returncode == 0 and p.stdout.splitlines()[-1] == "OK driver_memcpy2d", p.stdout + p.stderr


@pytest.mark.sim_only("a LUID is served on a real GPU (from its record); the software GPU has none")
def test_calls_are_answered_where_their_records_say(cuda_program, sim_server):
    """A call the software GPU does not serve is answered not-supported by the client without a round
    trip (the server never sees it: no error reply of its names it); client-side calls need no server."""
    env = dict(os.environ, RGPU_LOG="info")
    p = _run(cuda_program("driver_contract"), sim_server, env=env)
    assert p.returncode == 0 and "OK driver_contract" in p.stdout, p.stdout + p.stderr
    for name in ("cuDeviceGetLuid", "cuGraphConditionalHandleCreate"):
        assert f"{name} -> 801" in p.stdout  # CUDA_ERROR_NOT_SUPPORTED
    assert "cuDeviceGetLuid is not served by the software GPU" in p.stderr  # by its record's sim entry
    assert "cuGraphConditionalHandleCreate is not supported by rgpu yet" in p.stderr  # by no backend
    assert "not served by the sim backend" not in p.stderr  # no call reached the server to be refused


@pytest.mark.parametrize("shm", ["1", "0"], ids=["same-host", "tcp"])
def test_a_program_stopped_longer_than_the_silence_bound_carries_on(cuda_program, sim_server, shm):
    """Ctrl-Z, or a debugger's breakpoint, stops every thread of the program, the library's I/O
    thread with them, for as long as its user likes. Its host is alive and answers for it, so the
    server keeps the session, and the program carries on when it is continued, as with a local GPU."""
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--server", sim_server, "--",
                             str(cuda_program("hold_memory")), "16"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ, RGPU_SHM=shm), start_new_session=True)
    try:
        assert proc.stdout.readline().startswith("READY")
        os.killpg(proc.pid, signal.SIGSTOP)  # what the terminal does on Ctrl-Z: the whole job
        time.sleep(15)  # past the worker's 5 s of silence and its 3 s of grace, and the library's 10 s
        assert len(stats(sim_server)["sessions"]) == 1
        os.killpg(proc.pid, signal.SIGCONT)
        time.sleep(5)
        assert proc.poll() is None, proc.communicate()
        assert len(stats(sim_server)["sessions"]) == 1
    finally:
        os.killpg(proc.pid, signal.SIGCONT)
        proc.kill()
        out, err = proc.communicate(timeout=30)
    assert "ERROR" not in out, out + err


@pytest.mark.parametrize("way, count", [("copies", "bytes_out"), ("uploads", "bytes_in")])
def test_a_program_stopped_in_the_middle_of_large_copies_carries_on(cuda_program, sim_server, way, count):
    """Stopped (Ctrl-Z) while 64 MiB copies come to it (copies) or go from it (uploads) across TCP,
    more than its kernel's buffers hold, for longer than any bound of the session's own connections
    (the data stream's 20 s for its connection to come): coming to it, its window stays closed while it
    is stopped and its host answers each of the worker's probes; going from it, the worker awaits the
    rest of a frame. The worker keeps the session either way (no TCP_USER_TIMEOUT on it, which would
    take the closed window for a dead host: server/liveness.py; the data stream's waits run the
    session's housekeeping, which judges the host: server/data_stream.py), and the program carries on
    when continued."""
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--server", sim_server, "--",
                             str(cuda_program("hold_memory")), "64", way], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ, RGPU_SHM="0"),
                            start_new_session=True)
    try:
        assert proc.stdout.readline().startswith("READY")
        wait_until(lambda: stats(sim_server)["sessions"][0][count] > (64 << 20), 30, "copies under way")
        os.killpg(proc.pid, signal.SIGSTOP)
        time.sleep(data_stream.WAIT_S + 2)
        [session] = stats(sim_server)["sessions"]
        os.killpg(proc.pid, signal.SIGCONT)
        # copies go on: more of them reach the program after it continues
        try:
            wait_until(lambda: (now := stats(sim_server)["sessions"]) and
                       now[0][count] > session[count] + (128 << 20), 30, "copies after the stop")
        except TimeoutError:
            # which side gave up says why: the program's output names a worker it judged silent
            proc.kill()
            out, err = proc.communicate(timeout=30)
            raise AssertionError(f"no copies after the stop; sessions now {stats(sim_server)['sessions']}, "
                                 f"before {session}\n{out}\n{err[-4000:]}") from None
        assert proc.poll() is None, proc.communicate()
    finally:
        os.killpg(proc.pid, signal.SIGCONT)
        proc.kill()
        out, err = proc.communicate(timeout=30)
    assert "ERROR" not in out, out + err
