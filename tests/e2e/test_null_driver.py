"""The cuda backend end to end without a GPU: the project's programs whose checks need no kernel's
result (copies of every shape and path, device facts, managed memory, pointer queries, events), and
NVIDIA's libraries setting up and dispatching their work, through a `--device cuda` server on
benchmarks/native/nulldriver.c, a driver that does no GPU work (device memory is host memory in a
window of its own, kernels are read from their images, counted and not run). On a GPU host the same
programs run on the real driver in the rest of the suite; here they are the only end-to-end check of
the cuda backend's own code (its copies, pinned mappings registered with the driver, managed
allocations, events, module loading, the compiled launch loop) that CI has."""
from __future__ import annotations

import ctypes
import subprocess
from pathlib import Path

import pytest

from rgpu.paths import client_env
from tests.conftest import run_cli
from tests.support import cudabuild, frameworks, nvlibs, torchenv
from tests.support.daemons import DaemonSet
from tests.support.null_server import start as start_null_server

LIBS = Path(__file__).parent.parent / "cuda" / "libs"

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def null_server():
    with DaemonSet() as daemons:
        yield start_null_server(daemons)[0]


@pytest.mark.parametrize("name, args, ok", [
    ("copy_roundtrip", ["16"], "OK copy_roundtrip 16 MiB"),
    ("copy_threads", ["12"], "OK copy_threads 12 MiB"),           # pooled client copies, odd offsets, a fork
    ("driver_copy_pieces", ["8"], "OK driver_copy_pieces 8 MiB"),
    ("memcpy3d", [], "OK memcpy3d"),
    ("driver_memcpy2d", [], "OK driver_memcpy2d"),
    ("device_query", [], "OK device_query"),
    ("driver_device_facts", [], "OK device_facts 132 SMs"),      # the null driver's Hopper: 132 SMs
    ("driver_managed", [], "OK driver_managed"),
    ("pointer_kinds", [], "OK pointer_kinds 1 devices"),
    ("driver_pointer_attrs", [], "OK driver_pointer_attrs"),      # several pointer attributes at once
    ("driver_pointer_facts", [], "OK driver_pointer_facts"),      # SYNC_MEMOPS, BUFFER_ID, pools, IPC, mappings
    ("driver_ctx_events", ["0"], "OK driver_ctx_events"),         # context-wide events (kernels do not run here)
    ("streams_events", [], "OK streams_events"),                  # a timing-less event has no elapsed time
    ("context_misc", [], "OK context_misc"),
    ("driver_api", [], "OK driver_api"),                          # contexts, the Runtime's binding of them
    ("driver_async_error", [], "OK driver_async_error"),          # a failed async memset reported once
    ("driver_contract", [], "OK driver_contract"),
    ("driver_vmm", ["copy"], "OK driver_vmm granularity 2097152"),  # VMM: memory files mapped in the window
    ("driver_arrays", ["copy"], "OK driver_arrays"),              # arrays, their 2D/3D copies, texture objects
    ("pinned_copies", ["8", "copy"], "OK pinned_copies 1 device(s) 8 MiB"),  # mapped and registered for DMA
    ("driver_batch_copies", [], "OK driver_batch_copies"),        # batched copies, a pinned source read at once
    ("driver_mapped_host", ["local", "copy"], "OK driver_mapped_host local"),  # the driver's mapped pointers
    ("driver_user_objects", [], "OK driver_user_objects"),        # graph user objects, a graph of a memset
    ("driver_graph_nodes", ["copy"], "OK driver_graph_nodes"),   # generic graph nodes, no kernel node
    ("driver_large_params", ["layout"], "OK driver_large_params"),  # KPARAM_INFO_V2's layout, 32 KB launches
    ("placed_threads", ["6", "40"], "OK placed_threads 6 x 40"),  # threads placing allocations at once
])
def test_program_runs_on_the_cuda_backend_without_a_gpu(name, args, ok, cuda_program, null_server):
    p = run_cli("run", "--server", null_server, "--", str(cuda_program(name)), *args)
    assert p.returncode == 0 and ok in p.stdout, p.stdout + p.stderr


@pytest.mark.parametrize("name, size, python_pieces", [
    ("copy_roundtrip", "80", 0),       # 80 MiB each way: 15 pieces before each H2D copy's last call
    ("driver_copy_pieces", "16", 3),   # sync and async, both faces; three copies refused at their end
])
def test_a_large_copys_pieces_from_another_host_are_copied_by_the_compiled_loop(name, size, python_pieces,
                                                                                cuda_program, daemons):
    """Without shared memory (another host; here RGPU_SHM=0) a large H2D copy goes in pieces, a message
    each (server/pieces.py); the cuda backend's compiled loop copies each from its frame (copies.c
    piece_in_one) and the worker's Python serves only each copy's last call. The refused copies' one
    piece each (the end of the range, past the allocation: sent first) is Python's, whose failure is
    the copy's; the programs check every byte."""
    url, handle = start_null_server(daemons)
    # the pieces on the session socket: a plain wire's path without its data stream (server/data_stream.py,
    # whose frames Python takes: tests/security/test_data_stream.py)
    env = {**client_env([url]), "RGPU_SHM": "0", "RGPU_DATA_STREAM": "0"}
    p = subprocess.run([str(cuda_program(name)), size], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0 and f"OK {name}" in p.stdout, p.stdout + p.stderr
    ended = handle.session_ended()
    pieces, compiled = int(ended["pieces_in"]), int(ended["pieces_compiled"])
    assert pieces >= 15 and compiled == pieces - python_pieces, ended


def _zstd() -> bool:
    try:
        ctypes.CDLL("libzstd.so.1")
        return True
    except OSError:
        return False


# (program, libraries, argument, the statuses it reports): tests/cuda/libs/, as test_nvidia_libs.py runs them
LIBRARY_RUNS = [
    ("fft", ("cufft",), ["", "100"], ["c2c", "r2c"]),
    ("blas", ("cublas", "cublasLt"), [], ["create", "sgemm", "dgemm", "sgemm_batched", "lt_matmul"]),
    ("sparse_solver_rand", ("cusparse", "cusolver", "curand"), ["spmv"], ["spmv"]),
    ("sparse_solver_rand", ("cusparse", "cusolver", "curand"), ["getrs"], ["getrs"]),
    ("sparse_solver_rand", ("cusparse", "cusolver", "curand"), ["curand"], ["curand_device", "curand_host"]),
]


@pytest.mark.parametrize("prog, libs, args, names", LIBRARY_RUNS,
                         ids=[f"{r[0]}-{r[2][-1] if r[2] else 'all'}" for r in LIBRARY_RUNS])
def test_nvidia_libraries_set_up_and_dispatch_on_the_cuda_backend(prog, libs, args, names, null_server):
    """Every call of cuFFT's plans, cuBLAS's handle and GEMMs (cuBLASLt's too, on the null driver's
    sm_90), cuSPARSE, cuSOLVER and cuRAND reports success through the cuda backend: their modules load
    from the real images (LZ4- and zstd-compressed cubins, PTX-only ones), their kernels are found by
    enumeration, their module variables by name, their parameters' layout is the image's, cuBLAS's
    probing of cluster sizes ends at the driver's own CUDA_ERROR_INVALID_CLUSTER_SIZE. What the
    kernels would compute is the GPU's to check (test_nvidia_libs.py on the GPU host)."""
    if "cublas" in libs and not _zstd():
        pytest.skip("libzstd.so.1 is not installed here: the null driver reads cuBLAS's zstd-compressed modules with it")
    exe = cudabuild.build(LIBS / f"{prog}.cu", "exe", [f"-I{LIBS}", *nvlibs.link_flags(*libs)], arch_flags=["-arch=sm_80"])
    p = run_cli("run", "--server", null_server, "--", str(exe), *args, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    got = {line.split()[0]: line.split()[1] for line in p.stdout.splitlines() if len(line.split()) >= 2}
    assert all(got.get(n) == "0" for n in names), p.stdout[-2000:] + p.stderr[-2000:]


# PyTorch's own kernels (SASS only: the sim cannot run them), cuBLAS under a Linear layer, autograd's
# backward in its own thread, an AdamW step, cuDNN's convolution both ways, half and bfloat16 GEMMs
# (cuBLASLt's heuristics: they died at an export table rgpu declined, on the H200 as here), autocast,
# and a CUDA graph captured and replayed, each dispatched through the cuda backend
TORCH_STEP = """
import torch
x = torch.ones(1000, device="cuda")
(x * 2 + 1).sum(), torch.cumsum(x, 0)
m = torch.nn.Linear(16, 8).cuda()
opt = torch.optim.AdamW(m.parameters())
m(torch.randn(4, 16, device="cuda")).square().mean().backward()
opt.step()
conv = torch.nn.Conv2d(3, 8, 3, padding=1).cuda()
conv(torch.randn(2, 3, 16, 16, device="cuda", requires_grad=True)).relu().mean().backward()
for dtype in (torch.float16, torch.bfloat16):
    a = torch.randn(64, 64, device="cuda", dtype=dtype)
    (a @ a).float().sum()
with torch.autocast("cuda", dtype=torch.bfloat16):
    m(torch.randn(4, 16, device="cuda")).sum()
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    y = x * 2
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    z = y + 1
g.replay()
torch.cuda.synchronize()
print("OK", torch.cuda.get_device_name(), torch.cuda.get_device_capability())
"""


def test_pytorch_dispatches_its_own_kernels_on_the_cuda_backend(null_server):
    """PyTorch from its CUDA wheels initialises, loads its own SASS-only kernels (read from
    libtorch_cuda.so's images by the null driver) and dispatches TORCH_STEP without an error (the
    half and bfloat16 GEMMs killed the process before rgpu answered the SHARED_1734DC26 table), and
    without the warning it gives when a thread that only used the Runtime has no current context
    (autograd's, before its cuBLAS handle: the Runtime binds the primary context there, as CUDA's
    does). What the kernels compute is the GPU's to check (test_pytorch.py on the GPU host)."""
    p = run_cli("run", "--server", null_server, "--", str(torchenv.python()), "-c", TORCH_STEP, timeout=600)
    assert p.returncode == 0 and "OK rgpu null driver (no GPU work) (9, 0)" in p.stdout, p.stdout + p.stderr[-4000:]
    assert "no current CUDA context" not in p.stderr, p.stderr[-4000:]


# CuPy's kernels compiled by NVRTC in the program (elementwise, a raw kernel, reductions, a scan), and a
# numba-cuda kernel, which numba links with the driver's cuLink* (no nvJitLink in its environment): the
# cuda backend links the client's link image with the driver's linker
FRAMEWORKS_STEP = """
import cupy as cp, numpy as np
x = cp.arange(1000, dtype=cp.float32)
(x * 2 + 1).sum(), cp.cumsum(x), cp.ones((64, 64), dtype=cp.float32).sum(axis=0)
cp.ElementwiseKernel("float32 a", "float32 b", "b = a * a", "square")(x)
inc = cp.RawKernel(r'extern "C" __global__ void inc(float *p, int n) '
                   r'{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] += 1; }', "inc")
inc((4,), (256,), (x, cp.int32(1000)))
cp.cuda.Device().synchronize()
print("OK cupy")
import numba.cuda as nc
@nc.jit
def add_one(p):
    i = nc.grid(1)
    if i < p.size:
        p[i] += 1
d = nc.to_device(np.zeros(100, dtype=np.float32))
add_one[1, 128](d)
nc.synchronize()
print("OK numba")
"""


def test_cupy_and_numba_compile_and_dispatch_on_the_cuda_backend(null_server):
    """CuPy and numba-cuda from their wheels run FRAMEWORKS_STEP through the cuda backend without an
    error: NVRTC's modules load (the null driver reads their PTX), and numba's link image is linked by
    the driver's linker on the server (the null driver's cuLink* joins the PTX). What the kernels
    compute is the GPU's to check (test_frameworks.py on the GPU host)."""
    p = run_cli("run", "--server", null_server, "--", str(frameworks.python()), "-c", FRAMEWORKS_STEP,
                env=frameworks.numba_env(), timeout=600)
    assert p.returncode == 0 and "OK cupy" in p.stdout and "OK numba" in p.stdout, p.stdout + p.stderr[-4000:]
