"""Programs built the CUDA 12 way (12.x headers, linked to CUDA 12's own libcudart.so.12) run through
`rgpu run` on a sim server and see CUDA 12's structs and names, not 13.0's."""
from __future__ import annotations

import re
import subprocess

import pytest

from rgpu.protocol.generated import enums
from rgpu.server.backends.sim.properties import attributes
from tests.conftest import PROGRAMS, run_cli
from tests.support import cuda12, cudabuild

pytestmark = pytest.mark.e2e

MEMORY = 1 << 30  # the sim server fixture's default --sim-memory 1GiB


def _kv(stdout: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in stdout.splitlines() if "=" in line)


def _attr(name: str) -> int:
    return attributes(MEMORY)[enums.CUdevice_attribute_enum["CU_DEVICE_ATTRIBUTE_" + name]]


@pytest.fixture(scope="module")
def device_query12(tmp_path_factory):
    return cuda12.build_runtime_program(PROGRAMS / "cuda12_device_query.c",
                                        tmp_path_factory.mktemp("cuda12") / "cuda12_device_query")


def test_device_query_binds_the_cuda12_names(device_query12):
    dyn = subprocess.run(["objdump", "-T", str(device_query12)], capture_output=True, text=True).stdout
    for name in ("cudaGetDeviceProperties_v2", "cudaPointerGetAttributes", "cudaThreadSynchronize"):
        assert re.search(rf"\(libcudart\.so\.12\)\s+{name}$", dyn, re.M), name


@pytest.mark.sim_only("the fields are compared with the software GPU's attribute table")
def test_device_properties_arrive_in_the_12x_layout(device_query12, sim_server):
    p = run_cli("run", "--server", sim_server, "--", str(device_query12))
    assert p.returncode == 0 and "OK cuda12_device_query" in p.stdout, p.stdout + p.stderr
    kv = _kv(p.stdout)
    assert kv["sizeof"] == "1032" and kv["guard"] == "1"  # nothing written past the 12.x struct
    assert 12000 <= int(kv["runtimeVersion"]) < 13000
    assert kv["name"].startswith("rgpu sim GPU")
    assert int(kv["totalGlobalMem"]) == int(kv["memGetInfoTotal"]) > 0
    for field, attr in [("major", "COMPUTE_CAPABILITY_MAJOR"), ("minor", "COMPUTE_CAPABILITY_MINOR"),
                        ("multiProcessorCount", "MULTIPROCESSOR_COUNT"), ("warpSize", "WARP_SIZE"),
                        ("maxThreadsPerBlock", "MAX_THREADS_PER_BLOCK"), ("l2CacheSize", "L2_CACHE_SIZE"),
                        ("sharedMemPerBlock", "MAX_SHARED_MEMORY_PER_BLOCK"),
                        ("maxBlocksPerMultiProcessor", "MAX_BLOCKS_PER_MULTIPROCESSOR"),
                        ("reservedSharedMemPerBlock", "RESERVED_SHARED_MEMORY_PER_BLOCK"),
                        # the fields 13.0 dropped, which the client fills from device attributes
                        ("clockRate", "CLOCK_RATE"), ("memoryClockRate", "MEMORY_CLOCK_RATE"),
                        ("deviceOverlap", "GPU_OVERLAP"), ("kernelExecTimeoutEnabled", "KERNEL_EXEC_TIMEOUT"),
                        ("computeMode", "COMPUTE_MODE"),
                        ("singleToDoublePrecisionPerfRatio", "SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO"),
                        ("cooperativeMultiDeviceLaunch", "COOPERATIVE_MULTI_DEVICE_LAUNCH")]:
        assert int(kv[field]) == _attr(attr), field
    assert kv["maxGridSize"] == ",".join(str(_attr(f"MAX_GRID_DIM_{a}")) for a in "XYZ")
    assert int(kv["clockRate"]) > 0 and int(kv["memoryClockRate"]) > 0


def test_pointer_attributes_and_12_only_names(device_query12, sim_server):
    p = run_cli("run", "--server", sim_server, "--", str(device_query12))
    assert p.returncode == 0, p.stdout + p.stderr
    kv = _kv(p.stdout)
    # cudaMemoryTypeDevice, in a 24-byte struct with nothing written past it
    assert (kv["ptrType"], kv["ptrDevice"], kv["ptrDevicePointerMatches"], kv["ptrGuard"]) == ("2", "0", "1", "1")
    assert kv["threadSynchronize"] == "cudaSuccess"
    assert kv["threadGetLimit"] == "cudaSuccess" and int(kv["threadStackLimit"]) > 0
    # the 12.x cudaMemAdvise took a device ordinal: refused clearly, and recorded as the last error
    assert kv["memAdvise12"] == "cudaErrorNotSupported"
    assert kv["lastErrorAfterUnsupported"] == "cudaErrorNotSupported"
    # cudaGetDriverEntryPoint from a 12 program hands out cuCtxCreate_v2, callable with 12.x arguments
    assert (kv["entryPointCtxCreate"], kv["entryPointCtx"], kv["entryPointCtxDestroy"]) == ("0", "1", "0")


def test_kernels_registered_and_launched_as_cuda12_nvcc_does(sim_server, tmp_path):
    fatbin = cudabuild.build(PROGRAMS.parent / "kernels" / "cuda12_launch.cu", "fatbin")
    exe = cuda12.build_runtime_program(PROGRAMS / "cuda12_kernels.c", tmp_path / "cuda12_kernels", ["-lm"])
    dyn = subprocess.run(["objdump", "-T", str(exe)], capture_output=True, text=True).stdout
    for name in ("__cudaRegisterFunction", "__cudaPushCallConfiguration", "__cudaPopCallConfiguration",
                 "cudaLaunchKernel"):
        assert re.search(rf"\(libcudart\.so\.12\)\s+{name}$", dyn, re.M), name
    p = run_cli("run", "--server", sim_server, "--", str(exe), str(fatbin))
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.split() == ["scale", "ok", "add2d", "ok", "block_sum", "ok", "OK", "cuda12_kernels"]


def test_a_driver_api_program_built_with_cuda12_headers(sim_server, tmp_path):
    ptx = cudabuild.build(PROGRAMS.parent / "kernels" / "cuda12_launch.cu", "ptx")
    exe = cuda12.build_driver_program(PROGRAMS / "cuda12_driver.c", tmp_path)
    undefined = subprocess.run(["nm", "-u", str(exe)], capture_output=True, text=True).stdout.split()
    assert {"cuCtxCreate_v2", "cuEventElapsedTime", "cuMemAdvise"} <= set(undefined)  # the 12.x names
    p = run_cli("run", "--server", sim_server, "--", str(exe), str(ptx))
    assert p.returncode == 0 and "OK cuda12_driver" in p.stdout, p.stdout + p.stderr
    kv = _kv(p.stdout)
    assert kv["kernelMismatches"] == "0"
    assert (kv["eventElapsedTime"], kv["elapsedNonNegative"]) == ("CUDA_SUCCESS", "1")
    assert (kv["deviceGetUuid"], kv["uuidNonZero"]) == ("CUDA_SUCCESS", "1")
    assert kv["memAdvise12"] == "CUDA_ERROR_NOT_SUPPORTED"
    assert kv["proc12_cuCtxCreate_is_v2"] == "1" and kv["proc13_cuCtxCreate_is_v4"] == "1"
    assert kv["proc12_cuCtxCreate_call"] == "CUDA_SUCCESS"
    # served with 13.0's CUdevResource when linked; at a 12.x version it refuses rather than mis-write
    assert kv["proc12_devResource"] == "CUDA_ERROR_NOT_SUPPORTED"
