"""End to end, two runtimes in one process share one handle space: a -cudart shared program's stream
(made by rgpu's runtime face under `rgpu run`) is handed to cuBLAS, whose private NVIDIA cudart launches
its GEMM on it through rgpu's driver, and the program's runtime synchronises on an event recorded after
it — as PyTorch hands its streams to cuBLAS."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import run_cli
from tests.support import cudabuild, nvlibs

pytestmark = pytest.mark.e2e

LIBS = Path(__file__).parent.parent / "cuda" / "libs"


def test_a_stream_of_the_programs_runtime_serves_cublas(sim_server):
    exe = cudabuild.build(LIBS / "mixed_stream.cu", "exe", [f"-I{LIBS}", *nvlibs.link_flags("cublas")])
    p = run_cli("run", "--server", sim_server, "--", str(exe), timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    words = next(line for line in p.stdout.splitlines() if line.startswith("stream_sgemm")).split()
    assert words[1] == "0", p.stdout + p.stderr
    i = np.arange(16 * 16)
    a = (((i * 7 + 13) % 11 - 5) * 0.25).reshape(16, 16).T
    b = (((i * 7 + 26) % 11 - 5) * 0.25).reshape(16, 16).T
    assert np.allclose(np.array(words[2:], dtype=float), (a @ b).T.ravel())
