"""CUDA IPC end to end: two processes of one program share device memory and an event through
rgpu (tests/cuda/programs/ipc.cu), on the test backend (the software GPU here, the real GPU on a GPU
host) and on the cuda backend over the null driver; and through the pool, where a handle opens for
another process of the same lease and for no other tenant's."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from rgpu.client import server_client
from tests.conftest import run_cli
from tests.support.daemons import wait_until
from tests.support.null_server import start as start_null_server
from tests.support.pool import one_server

pytestmark = pytest.mark.e2e

N = (1 << 18) + 37  # ipc.cu's words


@pytest.fixture(params=["test backend", "null driver", "null driver, cuMemAlloc"])
def server(request, daemons, start_server):
    """(url, the program's mode): the null driver runs no kernels, so copies stand for them. A cuda
    session's memory comes from its arena (server/backends/cuda/arena.py), exported as a file
    descriptor the opening worker fetches (cuda/ipc.py, fdshare.py); with RGPU_ARENA=0 from the
    driver's cuMemAlloc, exported by the driver's own IPC."""
    if request.param.startswith("null driver"):
        env = {"RGPU_ARENA": "0"} if request.param.endswith("cuMemAlloc") else None
        return start_null_server(daemons, env=env)[0], ["copy"]
    return start_server()[0], []


def test_arena_memory_that_is_not_exportable_is_refused_and_says_why(daemons, cuda_program):
    """RGPU_ARENA_IPC=0 (drivers before r610, whose checkpoint may refuse exportable memory): the arena's
    memory is not exportable, and cudaIpcGetMemHandle fails with cudaErrorNotSupported instead of a
    handle that opens nothing; the server's log says what to do."""
    url, _ = start_null_server(daemons, env={"RGPU_ARENA_IPC": "0"})
    r = run_cli("run", "--server", url, "--", str(cuda_program("ipc", "shared")), "copy")
    assert r.returncode != 0 and "cudaIpcGetMemHandle" in r.stdout and "cudaErrorNotSupported" in r.stdout, \
        r.stdout + r.stderr


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_two_processes_share_memory_and_an_event(server, cuda_program, cudart):
    """`static`: nvcc's default, NVIDIA's runtime in the program over rgpu's driver calls."""
    server, mode = server
    exe = cuda_program("ipc", cudart)
    r = run_cli("run", "--server", server, "--", str(exe), *mode)
    out = r.stdout + r.stderr
    assert r.returncode == 0 and "IPC OK" in r.stdout, out
    assert "CHILD OK" in r.stdout, out
    # the handle of a freed allocation opens nothing
    assert "OPEN cudaErrorInvalidResourceHandle" in r.stdout, out
    # the worker that exported left no handle behind, and its sessions are gone
    wait_until(lambda: not server_client.stats(server)["sessions"], 30, "the program's sessions closed")


def test_a_handle_dies_with_its_exporting_process(server, cuda_program):
    """The exporter killed: its session ends, and with it every handle it made."""
    server, _ = server
    exe = cuda_program("ipc")
    proc, handle = _serve(exe, "--server", server)
    proc.kill()
    proc.communicate()
    wait_until(lambda: not server_client.stats(server)["sessions"], 30, "the killed program's session ended")
    r = run_cli("run", "--server", server, "--", str(exe), "open", handle)
    assert r.returncode == 0 and "OPEN cudaErrorInvalidResourceHandle" in r.stdout, r.stdout + r.stderr


def _serve(exe, *where: str, env: dict | None = None) -> tuple[subprocess.Popen, str]:
    """ipc.cu exporting a buffer under `rgpu run WHERE...`: (the process, the handle it printed)."""
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", *where, "--", str(exe), "serve"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(env or os.environ, RGPU_TIMEOUT="60"))
    line = proc.stdout.readline()
    if not line.startswith("HANDLE "):
        proc.kill()
        pytest.fail(f"the exporting program did not start: {line}{proc.communicate(timeout=10)}")
    return proc, line.split()[1]


@pytest.fixture
def pool(daemons, tmp_path):
    yield from one_server(daemons, tmp_path)


def test_a_handle_opens_in_its_own_lease_and_in_no_other(pool, cuda_program):
    exe = cuda_program("ipc")
    proc, handle = _serve(exe, "--controller", pool.url, "--mem", "64MiB", env=pool.env)
    try:
        [(lease, _)] = pool.leases().items()
        # another tenant's program, with the handle in hand: nothing opens
        other = pool.run("--mem", "64MiB", "--", str(exe), "open", handle)
        assert other.returncode == 0 and "OPEN cudaErrorInvalidResourceHandle" in other.stdout, \
            other.stdout + other.stderr
        # a second process of the same lease (as torch.multiprocessing's children are): it opens
        same = pool.run("--lease", lease, "--", str(exe), "open", handle)
        assert same.returncode == 0 and "OPEN cudaSuccess" in same.stdout, same.stdout + same.stderr
        assert f"SUM {sum(i * 3 + 1 for i in range(N))}" in same.stdout
        out, err = proc.communicate("done\n", timeout=60)
        assert proc.returncode == 0 and "SERVE OK" in out, out + err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
