"""Fixtures shared by every tier: the client library, CUDA test programs built by nvcc, and
rgpu-server daemons on free ports (polled until they answer, always stopped in teardown).

RGPU_TEST_DEVICE=sim|cuda (default sim) is the backend of every server these fixtures start: the
end-to-end suite runs unchanged on the software GPU (CI) and on a real GPU (scripts/gpu-checks.sh).
Work sized to the device comes from `device_sizes`; a test whose expectation only the software GPU
can meet says so with ``@pytest.mark.sim_only("why")`` — it runs on the sim and is reported as
skipped, with that reason, on a GPU. ``@pytest.mark.gpu_only("why")`` is the converse, for code the sim
cannot run at all (a prebuilt library's SASS-only kernels); a sim_only test beside it asserts what the
sim does instead."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import zmq

from rgpu.client.server_client import ping
from tests.support import cudabuild
from tests.support.daemons import DaemonSet, free_url

# A pytest process talks to hundreds of daemons through pyzmq's shared context. On a loaded machine
# (CI's two cores while another worker installs PyTorch) one worker's libzmq context was seen holding
# ~1,020 sockets that no Python object owned any more (their eventfds still open) and reached libzmq's
# default cap of 1,023 sockets per context: from then on every ping failed with "Too many open files"
# and every daemon that worker started looked dead. The cause was curve.Handshake closing its monitor's
# PAIR before stopping the monitor: a late handshake event then stuck libzmq's I/O thread for good, and
# every socket closed after that stayed alive in libzmq (tests/unit/protocol/test_handshake_watch.py,
# tests/component/controller/test_controller_client_sockets.py). The room below is headroom only now.
def _room_for_sockets(want: int = 16384) -> None:
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < want + 1024:
        soft = want + 1024 if hard == resource.RLIM_INFINITY else min(want + 1024, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    zmq.Context.instance().set(zmq.MAX_SOCKETS, max(1024, min(want, soft - 1024)))


_room_for_sockets()
PROGRAMS = Path(__file__).parent / "cuda" / "programs"
DEVICE = os.environ.get("RGPU_TEST_DEVICE", "sim")
if DEVICE not in ("sim", "cuda"):
    raise pytest.UsageError(f"RGPU_TEST_DEVICE={DEVICE!r}: sim or cuda")

# Work sized so that each backend spends a comparable time on it: spin_kernels' `churn` kernel
# (16 x 256 threads, a chain of dependent multiply-adds) runs ~30 ms at 64 iterations on the
# software GPU and ~2 ms at 1M on an H100; ENDLESS makes it spin until its process is gone.
# reclaim_pause_ms: how long a program stays idle for a test to see it reclaimed (checkpointed and its
# memory freed) before its next call restores it; a cuda server checkpoints through a real context,
# on a GPU that other tests' servers share.
DEVICE_SIZES = {
    "sim": {"spin_iters": 64, "wait_kernels": 300, "reclaim_pause_ms": 6000},
    "cuda": {"spin_iters": 1_000_000, "wait_kernels": 500, "reclaim_pause_ms": 20000},
}
ENDLESS = -1  # spin_kernels' iteration count for a kernel that never ends (on any device)


def pytest_collection_modifyitems(config, items):
    skipped, label = ("gpu_only", "GPU only") if DEVICE == "sim" else ("sim_only", "sim only")
    for item in items:
        mark = item.get_closest_marker(skipped)
        if mark is not None:
            why = mark.args[0] if mark.args else mark.kwargs.get("reason", "")
            item.add_marker(pytest.mark.skip(reason=f"{label}: {why}"))


@pytest.fixture(scope="session")
def device_kind() -> str:
    """The backend of the servers the fixtures start (RGPU_TEST_DEVICE)."""
    if DEVICE == "cuda":
        _require_gpu()
    return DEVICE


@pytest.fixture(scope="session")
def device_sizes(device_kind) -> dict:
    return DEVICE_SIZES[device_kind]


def _require_gpu() -> None:
    """RGPU_TEST_DEVICE=cuda on a machine the cuda backend cannot serve: stop with the reason, once."""
    probe = subprocess.run([sys.executable, "-c", "from rgpu.server.backends import probe; print(probe('cuda'))"],
                           capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        pytest.exit(f"RGPU_TEST_DEVICE=cuda, but the cuda backend cannot serve here: "
                    f"{(probe.stderr.strip().splitlines() or ['?'])[-1]}", returncode=3)


@pytest.fixture(scope="session", autouse=True)
def module_cache_of_the_test_session(tmp_path_factory):
    """Servers the tests start keep their module caches in the session's temporary directory, not
    one per server (per port) in ~/.cache."""
    os.environ.setdefault("RGPU_MODULE_CACHE", str(tmp_path_factory.mktemp("cache") / "modules"))
    # and `rgpu run --server URL@KEY` pins keys in the session's known-servers, not the user's
    os.environ.setdefault("RGPU_KNOWN_SERVERS", str(tmp_path_factory.mktemp("config") / "known-servers"))
    # and the logs of daemons started without a path of their own (tests/support/daemons.py) go
    # beside them, where pytest keeps the last few runs, not into /tmp one file per daemon for ever
    os.environ.setdefault("RGPU_TEST_DAEMON_LOGS", str(tmp_path_factory.mktemp("daemon-logs")))


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
        arch = ["-arch=sm_80"]
        if name.startswith("driver"):
            # -rpath-link: ld finds the libzmq beside librgpu.so through its RPATH $ORIGIN, but not
            # what that libzmq needs (libsodium...), on a host whose only libzmq is the bundle's
            flags += [f"-L{libdir}", "-lcuda", f"-Xlinker=-rpath-link={libdir}"]
        if name.startswith("cdp_"):
            # dynamic parallelism: separate compilation and the device runtime. nvlink's image is SASS
            # alone, which no driver JIT-compiles for a newer GPU: sm_90's too, for the H100/H200 runs
            flags += ["-rdc=true", "-lcudadevrt"]
            arch = ["-gencode", "arch=compute_80,code=[sm_80,compute_80]", "-gencode", "arch=compute_90,code=sm_90"]
        return cudabuild.build(PROGRAMS / f"{name}.cu", "exe", flags, arch_flags=["-cudart", cudart, *arch])
    return build


def server_argv(url: str, *extra: str) -> list[str]:
    """rgpu-server on the test backend (RGPU_TEST_DEVICE); --sim-* options are the sim's alone."""
    return [sys.executable, "-m", "rgpu.server.cli", "--device", DEVICE, "--listen", url,
            "--log-level", "info", *extra]


@pytest.fixture
def daemons():
    with DaemonSet() as d:
        yield d


@pytest.fixture
def start_server(daemons, device_kind):
    """start_server(*extra_args) -> (url, handle): an rgpu-server on the test backend on a free port
    (`memory`: the software GPU's; a real GPU has its own)."""
    def start(*extra: str, memory: str = "1GiB", env: dict | None = None):
        url = free_url()
        handle = daemons.start(server_argv(url, "--sim-memory", memory, *extra), ready=lambda: ping(url),
                               deadline_s=30, env=None if env is None else {**os.environ, **env})
        return url, handle
    return start


@pytest.fixture
def sim_server(start_server):
    """A server of the test backend: the software GPU unless RGPU_TEST_DEVICE says otherwise (the
    name is the suite's first; every end-to-end test takes it)."""
    return start_server()[0]


def run_cli(*args: str, env=None, timeout: float = 120) -> subprocess.CompletedProcess:
    """The `rgpu` command, as a user types it."""
    return subprocess.run([sys.executable, "-m", "rgpu.client.cli", *args], capture_output=True, text=True,
                          env=env, timeout=timeout)
