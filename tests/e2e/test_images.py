"""The container images, as built and started: scripts/build_images.sh builds the runtime and client
images (docker/Dockerfile) with this host's engine from a Debian base it makes itself; then a
controller container and a software-GPU server container run on this host's network (free loopback
ports), and a CUDA program of the suite runs from the host through them with the client library
taken out of the client image. Containers and the images the test tagged are removed after; the
base image is kept (remaking it is a download from the Debian mirror)."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.support.controller import SECRET, answers, cluster_env
from tests.support.daemons import free_port, wait_until

ROOT = Path(__file__).resolve().parents[2]
TAG = "e2e"
# no GPU in these containers: that needs the NVIDIA Container Toolkit (docs/containers.md)
pytestmark = [pytest.mark.e2e,
              pytest.mark.sim_only("the server container is a software GPU (a GPU in a container needs the "
                                   "NVIDIA Container Toolkit)")]


class Engine:
    """The container engine as build_images.sh found it (build/images/engine.env): its command
    with the global options this host needs, and the options `run` needs."""

    def __init__(self, env_file: Path):
        values = dict(line.split("=", 1) for line in env_file.read_text().splitlines() if "=" in line)
        self.command = shlex.split(values["ENGINE"])
        self.run_options = shlex.split(values["RUN_OPTIONS"])
        assert shlex.split(values["TAG"]) == [TAG], values

    def __call__(self, *args: str, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess:
        p = subprocess.run([*self.command, *args], capture_output=True, text=True, timeout=timeout)
        if check and p.returncode != 0:
            pytest.fail(f"{' '.join(self.command + list(args))} exited {p.returncode}: {p.stdout}{p.stderr}")
        return p


@pytest.fixture(scope="module")
def engine():
    if os.geteuid() != 0:
        pytest.skip("not root: the test runs the engine as root (scripts/setup.sh installs Podman for root only)")
    build = subprocess.run(["bash", str(ROOT / "scripts" / "build_images.sh"), "--tag", TAG], cwd=ROOT,
                           capture_output=True, text=True, timeout=1500)
    if build.returncode == 3:   # the script's "no engine here that can run containers"
        pytest.skip(f"no container engine that can run containers here: {build.stderr.strip().splitlines()[-1]}")
    assert build.returncode == 0, build.stdout + build.stderr
    eng = Engine(ROOT / "build" / "images" / "engine.env")
    yield eng
    eng("rmi", f"rgpu:{TAG}", f"rgpu-client:{TAG}", f"rgpu-build:{TAG}", check=False)


@pytest.fixture
def containers(engine):
    """start(role, *argv) runs the runtime image detached, named and removed after."""
    names = []

    def start(role: str, *argv: str, mounts=()):
        name = f"rgpu-e2e-{role}-{uuid.uuid4().hex[:8]}"
        volumes = [opt for host, inside in mounts for opt in ("-v", f"{host}:{inside}")]
        engine("run", "-d", "--name", name, "--network", "host", *engine.run_options, *volumes,
               "-e", "RGPU_CONFIG_DIR=/var/lib/rgpu/secrets", f"rgpu:{TAG}", *argv)
        names.append(name)
        return name

    yield start
    for name in names:
        engine("stop", "-t", "10", name, check=False)
        engine("rm", "-f", name, check=False)


def logs(engine, name: str) -> str:
    p = engine("logs", name, check=False)
    return (p.stdout + p.stderr)[-4000:]


@pytest.mark.timeout(1800)  # the first build on a fresh machine: the Debian base, then both images
def test_controller_and_server_containers_run_a_cuda_program_from_the_host(engine, containers, cuda_program,
                                                                           tmp_path):
    # the cluster secret and what the controller writes for its admin (credential, public key), in a
    # folder both containers mount, owned by the images' rgpu user
    secrets = tmp_path / "cfg"
    secrets.mkdir()
    (secrets / "cluster-secret").write_text(SECRET)
    (secrets / "cluster-secret").chmod(0o600)
    for p in (secrets, secrets / "cluster-secret"):
        os.chown(p, 10001, 10001)
    mounts = [(secrets, "/var/lib/rgpu/secrets")]
    secret = ["--secret-file", "/var/lib/rgpu/secrets/cluster-secret"]

    cport, sport, chealth, shealth = (free_port() for _ in range(4))
    controller_url = f"tcp://127.0.0.1:{cport}"
    controller = containers("controller", "rgpu-controller", "--listen", controller_url,
                            "--db", "/var/lib/rgpu/state/controller.db", *secret,
                            "--health-listen", f"127.0.0.1:{chealth}", mounts=mounts)
    wait_until(answers(controller_url), 60, f"the controller container answering\n{logs(engine, controller)}")

    server_url = f"tcp://127.0.0.1:{sport}"
    server = containers("server", "rgpu-server", "--device", "sim", "--gpus", "1", "--sim-memory", "1GiB", "--log-level", "info",
                        "--listen", server_url, "--controller", controller_url, *secret,
                        "--health-listen", f"127.0.0.1:{shealth}", mounts=mounts)
    env = cluster_env(tmp_path, controller_url)   # RGPU_CONFIG_DIR: the folder the controller wrote

    def servers():
        p = run_cli("ls", "--json", "--controller", controller_url, env=env)
        return p.stdout if p.returncode == 0 else ""
    wait_until(lambda: f'"{server_url}"' in servers() and '"up"' in servers(), 60,
               f"the server container up in `rgpu ls`\n{logs(engine, server)}")
    # the health checks docker-compose.yml and Kubernetes use, run inside the image
    for name, port in ((controller, chealth), (server, shealth)):
        probe = engine("exec", name, "python", "-m", "rgpu.health", f"http://127.0.0.1:{port}/healthz", check=False)
        assert probe.returncode == 0, probe.stdout + probe.stderr

    # the client library as the client image ships it (with its bundled libzmq)
    holder = f"rgpu-e2e-client-{uuid.uuid4().hex[:8]}"
    engine("create", "--name", holder, f"rgpu-client:{TAG}", "/none")
    try:
        engine("cp", f"{holder}:/opt/rgpu/lib", str(tmp_path / "client"))
        wheels = engine("cp", f"{holder}:/opt/rgpu/wheels", str(tmp_path / "wheels"))
    finally:
        engine("rm", holder, check=False)
    assert wheels.returncode == 0 and list((tmp_path / "wheels").glob("rgpu_pool-*.whl"))
    libdir = tmp_path / "client"
    assert (libdir / "librgpu.so").is_file() and list(libdir.glob("libzmq.so*")), sorted(os.listdir(libdir))
    env = {**env, "RGPU_LIBDIR": str(libdir)}

    query = run_cli("run", "--controller", controller_url, "--mem", "256MiB", "--",
                    str(cuda_program("device_query")), env=env)
    assert query.returncode == 0, query.stdout + query.stderr + logs(engine, server)
    assert "OK device_query" in query.stdout and "devices 1 " in query.stdout, query.stdout
    assert re.search(r"device 0: .* mem 268435456 ", query.stdout), query.stdout
    copy = run_cli("run", "--controller", controller_url, "--mem", "256MiB", "--",
                   str(cuda_program("copy_roundtrip")), "16", env=env)
    assert copy.returncode == 0 and "OK copy_roundtrip 16 MiB" in copy.stdout, copy.stdout + copy.stderr
    # the programs ran in the server container: its log has their sessions
    assert logs(engine, server).count("session_ended") >= 2, logs(engine, server)

    # `stop` sends SIGTERM to the daemon (PID 1 of its container): it ends cleanly, not killed at -t
    for name in (server, controller):
        engine("stop", "-t", "20", name)
        state = engine("inspect", "--format", "{{.State.ExitCode}}", name).stdout.strip()
        assert state == "0", f"{name} exited {state}\n{logs(engine, name)}"
