"""End to end, the launch path: nvcc-built programs with kernels (Runtime and Driver API) print
the results a GPU gives, through `rgpu run`, on a software-GPU server."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.conftest import PROGRAMS, run_cli
from tests.support import cudabuild
from tests.support.daemons import wait_until

pytestmark = pytest.mark.e2e


def test_runtime_kernels_templates_streams_symbols_printf(cuda_program, sim_server):
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("kernels_basic")))
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    # device printf reaches the program's own stdout, in order, before what the host prints after the sync
    hello = lines.index("hello from block 0 thread 0, n=10000")
    assert hello < next(i for i, line in enumerate(lines) if line.startswith("kernel time"))
    assert lines[-1] == "OK kernels_basic"
    assert "hello from block" not in p.stderr


def test_second_session_reuses_the_cached_module(cuda_program, start_server, tmp_path):
    url, server = start_server(env={"RGPU_MODULE_CACHE": str(tmp_path / "modules")})
    exe = str(cuda_program("kernels_basic"))
    for _ in range(2):
        p = run_cli("run", "--server", url, "--", exe)
        assert p.returncode == 0, p.stdout + p.stderr
    loads = re.findall(r"event=module_loaded .*?source=(\w+)", server.output(tail=200_000))
    assert loads == ["upload", "cache"]


def test_kernel_fault_is_sticky_and_leaves_other_sessions_alone(cuda_program, sim_server):
    good = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--server", sim_server, "--",
                             str(cuda_program("kernels_basic"))], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    bad = run_cli("run", "--server", sim_server, "--", str(cuda_program("kernel_fault")))
    out, err = good.communicate(timeout=120)
    assert bad.returncode == 0, bad.stdout + bad.stderr
    assert "sync after fault: 700 cudaErrorIllegalAddress" in bad.stdout
    assert good.returncode == 0 and "OK kernels_basic" in out, out + err


@pytest.mark.parametrize("where,env,per_message", [("beside the worker", {}, 16),
                                                   ("across TCP", {"RGPU_SHM": "0"}, 16),
                                                   ("held", {"RGPU_BATCH_CALLS": "256"}, 256)])
def test_launches_are_batched_not_a_round_trip_each(cuda_program, start_server, where, env, per_message):
    """100,000 launches go as messages of many, not a round trip each: 16 a message by default (the
    default RGPU_BATCH_CALLS, libhook/src/transport/session.c), on the call ring beside the worker
    and on the socket across hosts, each started while the program makes the next; 256 when asked."""
    url, server = start_server()
    p = run_cli("run", "--server", url, "--", str(cuda_program("many_launches")), "100000", timeout=300,
                env={**os.environ, **env})
    assert p.returncode == 0 and "launched 100000 counted 100000" in p.stdout, p.stdout + p.stderr
    ended = wait_until(lambda: re.search(r"event=session_ended .*?calls=(\d+) messages=(\d+)",
                                         server.output(tail=200_000)), 20, "session end logged")
    calls, messages = int(ended.group(1)), int(ended.group(2))
    assert calls >= 100000
    assert messages <= calls // per_message + 50, f"{where}: {messages} messages for {calls} calls"


def _messages_per_run(start_server, exe, runs: list[str], ok: str) -> list[int]:
    """The messages each run of `exe ARG` cost its session, in the order of `runs`, on a fresh server
    (whose first session also sends the module's image after a digest its cache did not know: tests
    compare the later runs). `ok` is what each run prints, with {arg} for its argument."""
    url, server = start_server()
    messages = []
    for arg in runs:
        p = run_cli("run", "--server", url, "--", str(exe), arg)
        assert p.returncode == 0 and ok.format(arg=arg) in p.stdout, p.stdout + p.stderr
        ended = wait_until(lambda: len(found := re.findall(r"event=session_ended .*?messages=(\d+)",
                                                           server.output(tail=200_000))) == len(messages) + 1
                           and found, 20, "session end logged")
        messages.append(int(ended[-1]))
    return messages


def test_a_kernels_parameter_layout_costs_one_round_trip_however_many_it_has(cuda_program, start_server):
    """The first launch of a kernel asks its layout once (PARAMS), not once per parameter: a kernel of
    24 parameters costs the session as many messages as one of 1, and computes from every one of them."""
    messages = _messages_per_run(start_server, cuda_program("driver_params"), ["narrow", "narrow", "wide"],
                                 "OK driver_params {arg}")
    _, narrow, wide = messages
    assert wide == narrow, messages


def test_setting_the_same_attribute_before_every_launch_costs_no_round_trips(cuda_program, start_server):
    """cudaFuncSetAttribute to the same dynamic shared memory size before each launch (CUTLASS's way):
    the repeats travel with the launches. 20 rounds cost the messages of their 5 result checks against
    1 round's 1 (each check a sync copy), not a round trip per setting; every result is right, and a
    size past the limit is still refused at once."""
    messages = _messages_per_run(start_server, cuda_program("func_attributes"), ["1", "1", "20"],
                                 "OK func_attributes {arg}")
    _, one, twenty = messages
    assert twenty - one == 5 - 1, messages


def test_occupancy_and_attribute_questions_are_asked_once(cuda_program, start_server):
    """CUDA's cudaOccupancyMaxPotentialBlockSize, an occupancy query and cudaFuncGetAttributes asked 20
    times cost the messages of asking them once: the answers are kept per function (and drop when an
    attribute gets a new value, which the program checks)."""
    messages = _messages_per_run(start_server, cuda_program("driver_occupancy"), ["1", "1", "20"],
                                 "OK occupancy {arg} block")
    _, one, twenty = messages
    assert twenty == one, messages


def test_function_registers_and_constant_bytes_are_the_images(cuda_program, sim_server, tmp_path):
    """CU_FUNC_ATTRIBUTE_NUM_REGS keeps to the linker's CU_JIT_MAX_REGISTERS (numba's max_registers)
    and, for an image with SASS, is what ptxas allocated (its -v report); CONST_SIZE_BYTES is the
    1200-byte __constant__ table's bank (ptxas's cmem[3]), not 0."""
    nvcc = cudabuild.find_nvcc()
    src = PROGRAMS / "func_resources_module.cu"
    ptx, fat = tmp_path / "m.ptx", tmp_path / "m.fatbin"
    subprocess.run([str(nvcc), "-ptx", "-arch=compute_80", str(src), "-o", str(ptx)], check=True)
    built = subprocess.run([str(nvcc), "-fatbin", "-gencode", "arch=compute_80,code=[sm_80,compute_80]",
                            "-Xptxas", "-v", str(src), "-o", str(fat)], check=True, capture_output=True, text=True)
    report = built.stdout + built.stderr
    ptxas_regs = int(re.search(r"Used (\d+) registers", report).group(1))
    ptxas_const = int(re.search(r"(\d+) bytes cmem\[3\]", report).group(1))
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("driver_func_resources")), str(ptx), str(fat))
    assert p.returncode == 0, p.stdout + p.stderr
    found = {m[0]: (int(m[1]), int(m[2])) for m in re.findall(r"(\S+) regs (\d+) const (\d+)", p.stdout)}
    assert 0 < found["linked-38"][0] <= 38, found
    assert found["linked"][0] > 38, found  # the kernel wants more without a limit
    assert found["fatbin"][0] == ptxas_regs, (found, report)
    assert ptxas_const >= 1200
    assert {v[1] for v in found.values()} == {ptxas_const}, (found, report)


@pytest.fixture(scope="module")
def saxpy_images():
    src = PROGRAMS / "saxpy_module.cu"
    return {kind: cudabuild.build(src, kind) for kind in ("ptx", "fatbin", "cubin")}


def test_driver_api_modules_from_files(cuda_program, sim_server, saxpy_images):
    exe = cuda_program("driver_kernels")
    p = run_cli("run", "--server", sim_server, "--", str(exe), str(saxpy_images["ptx"]), str(saxpy_images["fatbin"]))
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count("ran ") == 2 and "OK driver_kernels" in p.stdout


@pytest.mark.sim_only("the software GPU runs PTX only; a GPU of the cubin's architecture runs its SASS")
def test_sass_only_cubin_is_refused_with_a_rebuild_hint(cuda_program, sim_server, saxpy_images):
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("driver_kernels")), str(saxpy_images["cubin"]),
                env=None)
    assert p.returncode == 1
    assert "CUDA_ERROR_NO_BINARY_FOR_GPU" in p.stdout, p.stdout + p.stderr
    # the program gets only the code; the client says, without being asked, what the server said
    assert "refused a module (209): the software GPU runs PTX, and this module is a bare sm_80 cubin" in p.stderr


def test_ptx_linking_libraries_and_extended_launches(cuda_program, sim_server):
    ptx = [cudabuild.build(PROGRAMS / f"{name}.cu", "ptx", ["-rdc=true"]) for name in ("link_a", "link_b")]
    saxpy = cudabuild.build(PROGRAMS / "saxpy_module.cu", "ptx")
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("driver_library")), *map(str, ptx), str(saxpy))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "OK driver_library" in p.stdout


def test_a_worker_that_dies_takes_only_its_own_session(cuda_program, sim_server):
    """kill -9 one session's worker process while another session computes: the other finishes
    with exact results, the killed one reports device-unavailable, and its memory returns."""
    import os
    import signal as sig

    from rgpu.client.server_client import stats
    from tests.support.daemons import wait_until

    holder = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--server", sim_server, "--",
                               str(cuda_program("hold_memory")), "32"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env={**os.environ, "RGPU_TIMEOUT": "20"})
    try:
        assert holder.stdout.readline().startswith("READY")
        (victim,) = stats(sim_server)["sessions"]
        worker = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--server", sim_server, "--",
                                   str(cuda_program("kernels_basic"))], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        wait_until(lambda: len(stats(sim_server)["sessions"]) == 2, 20, "second session")
        os.kill(victim["pid"], sig.SIGKILL)
        out, err = worker.communicate(timeout=120)
        assert worker.returncode == 0 and "OK kernels_basic" in out, out + err
        h_out, h_err = holder.communicate(timeout=60)
        assert holder.returncode == 3 and "ERROR 46" in h_out, h_out + h_err
        wait_until(lambda: stats(sim_server)["gpus"][0]["memory_used"] == 0, 20, "memory returned")
    finally:
        holder.kill()


def test_cooperative_launches_synchronise_the_whole_grid(cuda_program, sim_server):
    exe = str(cuda_program("cooperative"))
    p = run_cli("run", "--server", sim_server, "--", exe)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "full device:" in p.stdout and "too large: 720 cudaErrorCooperativeLaunchTooLarge" in p.stdout
    # Launched without cooperation, grid.sync() finds no workspace and traps, as on a GPU.
    plain = run_cli("run", "--server", sim_server, "--", exe, "plain")
    assert plain.returncode == 0 and "plain launch: 719 cudaErrorLaunchFailure" in plain.stdout, plain.stdout + plain.stderr


def test_thrust_sorts_scans_and_reductions(cuda_program, sim_server):
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("thrust_algorithms")), "50000")
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.splitlines()[-1] == "OK thrust_algorithms"


def test_device_malloc_uses_the_heap_size_the_program_sets(cuda_program, sim_server):
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("device_heap")))
    assert p.returncode == 0 and p.stdout.splitlines()[-1] == "OK device_heap", p.stdout + p.stderr


def test_kernel_names_and_kernel_handles(cuda_program, sim_server):
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("driver_kernel_names")))
    assert p.returncode == 0 and "OK driver_kernel_names _Z4fillPii" in p.stdout, p.stdout + p.stderr


def test_thread_block_clusters_launch_and_share_their_blocks_shared_memory(sim_server):
    """cudaLaunchKernelEx with a cluster dimension, cudaOccupancyMaxActiveClusters and
    cudaOccupancyMaxPotentialClusterSize (cuBLAS asks the first before its Hopper GEMMs): the blocks of
    a cluster read each other's shared memory between cluster barriers, also from a captured graph, and
    a cluster that does not divide the grid is refused. The software GPU (sm_130) runs them as a GPU
    from Hopper on does; one presenting an older part refuses them, as such a GPU does (the unit tests)."""
    exe = cudabuild.build(PROGRAMS / "clusters.cu", "exe", [f"-I{PROGRAMS}"],
                          arch_flags=["-cudart", "shared", "-arch=sm_90"])
    p = run_cli("run", "--server", sim_server, "--", str(exe))
    assert p.returncode == 0 and p.stdout.splitlines()[-1] == "OK clusters", p.stdout + p.stderr
    assert "cluster 3 over 8 blocks: 912 cudaErrorInvalidClusterSize" in p.stdout, p.stdout


def test_tensor_maps_encode_and_a_kernel_loads_through_them(sim_server):
    """cuTensorMapEncodeTiled and cuTensorMapReplaceAddress (found through cudaGetDriverEntryPointByVersion,
    as PyTorch finds them): the server's driver encodes the map (the software GPU an encoding of its own),
    and a kernel's TMA copies read a box inside the array, one past its edges (zeros) and one of another
    array after the address is replaced; malformed calls are refused on the host. The program is built
    for sm_90: its cubin places the map where the ABI puts a 128-byte aligned parameter."""
    exe = cudabuild.build(PROGRAMS / "tensor_map.cu", "exe", [f"-I{PROGRAMS}"],
                          arch_flags=["-cudart", "shared", "-arch=sm_90"])
    p = run_cli("run", "--server", sim_server, "--", str(exe))
    assert p.returncode == 0 and "OK tensor maps (3 boxes)" in p.stdout, p.stdout + p.stderr
