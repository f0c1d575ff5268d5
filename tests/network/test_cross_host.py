"""End to end across hosts, on the test bed: the controller on the head host, a pool server on each GPU
host, programs on the CPU host, every link between them through the relay."""
from __future__ import annotations

import re

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.sim_only("the GPU hosts of the bed run software GPUs")]


def test_programs_run_on_the_cpu_host_through_the_pool(bed_pool, cuda_program):
    query = str(cuda_program("device_query"))
    p = bed_pool.cli("run", "--controller", bed_pool.url, "-n", "2", "--policy", "spread", "--mem", "256MiB", "--",
                     "sh", "-c", 'echo "servers $RGPU_SERVER"; exec "$0"', query)
    assert p.returncode == 0 and "devices 2" in p.stdout, p.stdout + p.stderr
    print(p.stdout, p.stderr)
