"""End to end, virtual memory management (the Driver API's cuMemCreate / cuMemAddressReserve /
cuMemMap / cuMemSetAccess, what PyTorch's expandable segments are built on): a program grows a
buffer mapping by mapping, runs a Runtime kernel and copy across the mappings, and gives it all
back; the vGPU's free memory follows the physical allocations (tests/cuda/programs/driver_vmm.cu)."""
from __future__ import annotations

import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.e2e


def test_a_growable_buffer_of_mappings_runs_kernels_and_copies(cuda_program, sim_server):
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("driver_vmm")), timeout=300)
    assert p.returncode == 0 and "OK driver_vmm" in p.stdout, p.stdout + p.stderr
