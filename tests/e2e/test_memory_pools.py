"""End to end, stream-ordered allocation (tests/cuda/programs/mempools.cu): cudaMallocAsync and
cudaFreeAsync around kernels on a stream, the default pool's release threshold and counters, a pool
of the program's own with a maximum size — through rgpu's own runtime (-cudart shared) and through
NVIDIA's static cudart over rgpu's driver (nvcc's default build), whose pool calls reach the driver
face (cuMemPoolSetAttribute, cuMemAllocFromPoolAsync, ...)."""
from __future__ import annotations

import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_stream_ordered_allocation_from_pools(cudart, cuda_program, sim_server):
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("mempools", cudart=cudart)), timeout=300)
    assert p.returncode == 0 and "OK mempools" in p.stdout, p.stdout + p.stderr
