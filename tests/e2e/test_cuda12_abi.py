"""Programs linked against CUDA 12's libcudart bind name@libcudart.so.12; rgpu's library answers
that version node too (CUDA 12's nvcc is not installable here, so the test links a plain C program
the way CUDA 12 links, against a stand-in library that only defines the version node)."""
from __future__ import annotations

import os
import re
import subprocess

import pytest

from tests.conftest import PROGRAMS

pytestmark = pytest.mark.e2e

STAND_IN = """
int cudaGetDeviceCount(int *n) { return 35; }
int cudaMalloc(void **p, unsigned long n) { return 35; }
int cudaMemcpy(void *d, const void *s, unsigned long n, int k) { return 35; }
int cudaFree(void *p) { return 35; }
const char *cudaGetErrorName(int e) { return "stand-in"; }
"""


@pytest.fixture(scope="module")
def cuda12_program(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cuda12")
    (tmp / "stub.c").write_text(STAND_IN)
    (tmp / "v.map").write_text("libcudart.so.12 { global: cuda*; local: *; };\n")
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(tmp / "libcudart.so"), str(tmp / "stub.c"),
                    "-Wl,-soname,libcudart.so.12", f"-Wl,--version-script={tmp / 'v.map'}"], check=True)
    exe = tmp / "cuda12_abi"
    subprocess.run(["gcc", "-o", str(exe), str(PROGRAMS / "cuda12_abi.c"), f"-L{tmp}", "-lcudart"], check=True)
    return exe


def test_a_cuda12_linked_program_runs_on_rgpu(cuda12_program, sim_server, libdir):
    needs = subprocess.run(["objdump", "-T", str(cuda12_program)], capture_output=True, text=True).stdout
    assert re.search(r"\(libcudart\.so\.12\)\s+cudaMalloc", needs) or "libcudart.so.12 cudaMalloc" in needs
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env.update(LD_LIBRARY_PATH=str(libdir), RGPU_SERVER=sim_server)
    p = subprocess.run([str(cuda12_program)], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0 and "OK cuda12_abi" in p.stdout, p.stdout + p.stderr


def _exports(lib, node: str) -> set[str]:
    """Names `lib` defines in version node `node` (objdump -T shows hidden versions in parentheses)."""
    out = subprocess.run(["objdump", "-T", str(lib)], capture_output=True, text=True, check=True).stdout
    return {f[-1] for f in (line.split() for line in out.splitlines())
            if len(f) >= 3 and f[-2].strip("()") == node and "*UND*" not in f and f[-1] != node}


def test_the_12_node_has_what_cuda12s_libcudart_has(libdir):
    from tests.support import cuda12
    real = _exports(cuda12.libcudart12(), "libcudart.so.12")
    ours12 = _exports(libdir / "librgpu.so", "libcudart.so.12")
    ours13 = _exports(libdir / "librgpu.so", "libcudart.so.13")
    assert len(real) > 400 and "cudaGetDeviceProperties_v2" in ours12
    assert ours12 <= real, "the 12 node names something CUDA 12's libcudart does not"
    # What librgpu serves to CUDA 13 programs it serves to CUDA 12 ones; what it lacks (per-thread
    # default stream variants, GL/EGL/VDPAU interop, the profiler) it lacks for both.
    assert (real & ours13) - ours12 == set()
    assert {n for n in real - ours12 if not n.endswith(("_ptsz", "_ptds"))} <= {
        n for n in real if any(k in n for k in ("GL", "EGL", "Egl", "VDPAU", "Profiler", "HostVar", "UnifiedTable"))}
