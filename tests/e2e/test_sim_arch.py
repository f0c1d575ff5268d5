"""`rgpu-server --sim-arch`: the software GPU presents the architecture it is given, with that part's
limits, everywhere a program can look; programs built for an older -arch run on it as on a newer
GPU; an architecture it cannot present stops the server with the list of those it can."""
from __future__ import annotations

import subprocess

import pytest

from rgpu.server.backends.sim import archs
from tests.conftest import run_cli, server_argv
from tests.support.daemons import free_url

pytestmark = [pytest.mark.e2e, pytest.mark.sim_only("--sim-arch is the software GPU's")]


@pytest.mark.parametrize("arch", ["sm_90", None])
def test_device_properties_follow_the_arch(arch, start_server, cuda_program):
    url, _ = start_server(*(["--sim-arch", arch] if arch else []))
    a = archs.get(arch)  # None: the default, sm_130
    p = run_cli("run", "--server", url, "--", str(cuda_program("device_query")))
    assert p.returncode == 0 and "OK device_query" in p.stdout, p.stdout + p.stderr
    assert f"device 0: rgpu sim GPU 0 ({a.name}) sm_{a.major}{a.minor} sms {a.sms} warp 32" in p.stdout, p.stdout
    # kernels built with -arch=sm_80 (compute_80 PTX) run on the newer part, as the driver's JIT runs them
    p = run_cli("run", "--server", url, "--", str(cuda_program("kernels_basic")))
    assert p.returncode == 0 and "OK kernels_basic" in p.stdout, p.stdout + p.stderr


def test_an_unknown_arch_stops_the_server_with_the_choices():
    p = subprocess.run(server_argv(free_url(), "--sim-arch", "sm_99"), capture_output=True, text=True, timeout=60)
    assert p.returncode != 0
    assert "--sim-arch" in p.stderr and "sm_99" in p.stderr and "sm_121" in p.stderr, p.stderr
