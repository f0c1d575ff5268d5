"""Fixtures shared by every tier: the client library, CUDA test programs built by nvcc, and
rgpu-server daemons on free ports (polled until they answer, always stopped in teardown)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rgpu.client.server_client import ping
from tests.support import cudabuild
from tests.support.daemons import DaemonSet, free_url

PROGRAMS = Path(__file__).parent / "cuda" / "programs"


@pytest.fixture(scope="session", autouse=True)
def module_cache_of_the_test_session(tmp_path_factory):
    """Servers the tests start keep their module caches in the session's temporary directory, not
    one per server (per port) in ~/.cache."""
    os.environ.setdefault("RGPU_MODULE_CACHE", str(tmp_path_factory.mktemp("cache") / "modules"))


@pytest.fixture(scope="session")
def libdir():
    from rgpu.paths import libdir as find
    return find()


@pytest.fixture(scope="session")
def cuda_program(libdir):
    """Build tests/cuda/programs/NAME.cu (driver-API programs link rgpu's libcuda.so). `cudart`:
    "shared" (libcudart.so.13, which rgpu's library stands in for) or "static" (nvcc's default: NVIDIA's
    runtime inside the program, over rgpu's driver)."""
    def build(name: str, cudart: str = "shared") -> Path:
        flags = [f"-I{PROGRAMS}"]
        if name.startswith("driver"):
            flags += [f"-L{libdir}", "-lcuda"]
        return cudabuild.build(PROGRAMS / f"{name}.cu", "exe", flags, arch_flags=["-cudart", cudart, "-arch=sm_80"])
    return build


def server_argv(url: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "rgpu.server.cli", "--device", "sim", "--listen", url,
            "--log-level", "info", *extra]


@pytest.fixture
def daemons():
    with DaemonSet() as d:
        yield d


@pytest.fixture
def start_server(daemons):
    """start_server(*extra_args) -> (url, handle): an rgpu-server --device sim on a free port."""
    def start(*extra: str, memory: str = "1GiB", env: dict | None = None):
        url = free_url()
        handle = daemons.start(server_argv(url, "--sim-memory", memory, *extra), ready=lambda: ping(url),
                               deadline_s=30, env=None if env is None else {**os.environ, **env})
        return url, handle
    return start


@pytest.fixture
def sim_server(start_server):
    return start_server()[0]


def run_cli(*args: str, env=None, timeout: float = 120) -> subprocess.CompletedProcess:
    """The `rgpu` command, as a user types it."""
    return subprocess.run([sys.executable, "-m", "rgpu.client.cli", *args], capture_output=True, text=True,
                          env=env, timeout=timeout)
