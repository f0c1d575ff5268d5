"""docker-compose.yml and docker/Dockerfile stay in step with the code they start.

CI has no Docker engine, so the compose file is checked the way the engine and the shells in it
would read it: it validates against the Compose specification's JSON schema (the one docker-compose
1.29.2 ships, fetched from PyPI by the test), and with `docker compose config` where that plugin is
installed; compose interpolates `$` (a `$(...)` meant for a container's shell must be `$$(...)`,
and the file's own `${VAR:-default}` must work unset); every daemon and CLI command line parses with
the real click commands; health checks ask the port each daemon serves /healthz on; every program
the client runs is built into its image; and the runtime image carries no compiler or test tool."""
from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import click
import pytest
import yaml

from rgpu import health
from rgpu.client.cli import cli as rgpu_cli
from rgpu.controller.daemon import main as controller_main
from rgpu.server.cli import main as server_main

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = {"rgpu": rgpu_cli, "rgpu-server": server_main, "rgpu-controller": controller_main}
DAEMONS = ("controller", "gpu1", "gpu2", "gpu-cuda")
INTERPOLATION = re.compile(r"\$\{([A-Z_][A-Z0-9_]*):-([^}]*)\}")
COMPOSE_WHEEL = "docker-compose==1.29.2"


@pytest.fixture(scope="module")
def compose_text() -> str:
    return (ROOT / "docker-compose.yml").read_text()


@pytest.fixture(scope="module")
def compose(compose_text) -> dict:
    """The file as compose sees it with no variables set: each ${VAR:-default} is its default."""
    return yaml.safe_load(INTERPOLATION.sub(lambda m: m.group(2), compose_text))


@pytest.fixture(scope="module")
def services(compose) -> dict:
    return compose["services"]


@pytest.fixture(scope="module")
def dockerfile() -> str:
    return (ROOT / "docker" / "Dockerfile").read_text()


def stages(dockerfile: str) -> dict[str, str]:
    """Stage name -> its text (instructions up to the next FROM), with line continuations joined."""
    text = dockerfile.replace("\\\n", " ")
    out, name = {}, None
    for line in text.splitlines():
        m = re.match(r"FROM\s+(\S+)(?:\s+AS\s+(\S+))?", line.strip(), re.I)
        if m:
            name = m.group(2) or f"final:{m.group(1)}"
            out[name] = ""
        elif name and not line.lstrip().startswith("#"):
            out[name] += line + "\n"
    return out


def parse(argv: list[str]) -> click.Context:
    """Parse a command line with the real click command, as its entry point would; raises
    click.UsageError/BadParameter for an unknown option or a bad value."""
    command = COMMANDS[argv[0]]
    if isinstance(command, click.Group):
        parent = click.Context(command, info_name=argv[0])
        sub = command.get_command(parent, argv[1])
        assert sub is not None, f"{argv[0]} has no command {argv[1]!r}"
        return sub.make_context(argv[1], argv[2:], parent=parent)
    return command.make_context(argv[0], argv[1:])


def client_command_lines(services) -> list[list[str]]:
    """The rgpu command lines of the one-shot client's script, as its bash would see them once
    compose has turned `$$` into `$`."""
    script = services["client"]["command"][-1].replace("$$", "$")
    return [shlex.split(line.strip()) for line in script.splitlines() if line.strip().startswith("rgpu ")]


@pytest.fixture(scope="session")
def compose_schema(tmp_path_factory) -> dict:
    """The Compose specification schema docker-compose 1.29.2 validates with (from its wheel)."""
    cache = ROOT / ".cache" / "compose-spec"
    schema = cache / "compose_spec.json"
    if not schema.exists():
        tmp = tmp_path_factory.mktemp("wheel")
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(tmp), COMPOSE_WHEEL],
                       check=True, timeout=300)
        [wheel] = tmp.glob("docker_compose-*.whl")
        cache.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheel) as z:
            schema.write_bytes(z.read("compose/config/compose_spec.json"))
    return json.loads(schema.read_text())


def test_the_file_validates_against_the_compose_specification(compose, compose_schema):
    import jsonschema
    # the schema names draft 2019-09 but uses only what draft 7 has; its "id" keyword is pre-draft-6
    validator = jsonschema.Draft7Validator(compose_schema)
    errors = sorted(validator.iter_errors(compose), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors)
    # the schema is a real check: a misspelt key in a service is refused
    broken = json.loads(json.dumps(compose))
    broken["services"]["gpu1"]["restart_policy"] = "always"
    assert not validator.is_valid(broken)


def _compose() -> list[str] | None:
    """Compose itself: Docker's plugin where it is installed, else Debian's docker-compose (v1, which
    scripts/setup.sh installs); either checks the file without an engine running."""
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    return ["docker-compose"] if shutil.which("docker-compose") else None


@pytest.mark.skipif(_compose() is None, reason="neither the docker compose plugin nor docker-compose is installed "
                    "here (scripts/setup.sh installs docker-compose)")
def test_docker_compose_config_accepts_the_file():
    p = subprocess.run([*_compose(), "-f", str(ROOT / "docker-compose.yml"), "--profile", "cuda", "config",
                        "--quiet"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr


def test_only_escaped_dollars_and_defaulted_variables_reach_compose(compose_text):
    # An unescaped `$(...)` is a compose interpolation error ("Invalid interpolation format"), and
    # a variable without a default would leave an empty value when unset.
    rest = INTERPOLATION.sub("", compose_text.replace("$$", ""))
    assert "$" not in rest, f"unescaped or undefaulted $ at offset {rest.index('$')}"


def test_the_pool_has_a_controller_and_two_sim_servers_of_two_gpus(services):
    assert {"controller", "gpu1", "gpu2", "client"} <= set(services)
    for name in ("gpu1", "gpu2"):
        ctx = parse(shlex.split(services[name]["command"]))
        assert ctx.params["count"] == 2 and ctx.params["device"] == "sim"
        assert ctx.params["controller"] == "tcp://controller:7440"
        # Clients reach the server by its service name, not the address it binds.
        assert ctx.params["advertise"] == f"tcp://{name}:7450"
        assert services[name]["depends_on"]["controller"]["condition"] == "service_healthy"
    controller = parse(shlex.split(services["controller"]["command"]))
    port = controller.params["listen"].rsplit(":", 1)[1]
    # published, so that `rgpu ls` works from the host
    assert f"{port}:{port}" in services["controller"]["ports"]
    assert controller.params["db_path"].startswith("/var/lib/rgpu/state/")
    assert "state:/var/lib/rgpu/state" in services["controller"]["volumes"]


def test_the_cuda_server_asks_the_runtime_for_gpus(services):
    gpu = services["gpu-cuda"]
    ctx = parse(shlex.split(gpu["command"]))
    assert ctx.params["device"] == "cuda"
    [request] = gpu["deploy"]["resources"]["reservations"]["devices"]
    assert request["capabilities"] == ["gpu"] and request["driver"] == "nvidia"
    # session workers listen on ports the server picks: clients elsewhere need the host's network
    assert gpu["network_mode"] == "host" and "cuda" in gpu["profiles"]
    assert ctx.params["controller"] == "tcp://127.0.0.1:7440"


def test_every_daemon_restarts_and_its_health_check_asks_its_own_healthz(services):
    for name in DAEMONS:
        service = services[name]
        assert service["restart"] == "unless-stopped"
        ctx = parse(shlex.split(service["command"]))
        host, port = health.parse_address(ctx.params.get("metrics_listen") or ctx.params["health_listen"])
        test = service["healthcheck"]["test"]
        assert test[:4] == ["CMD", "python", "-m", "rgpu.health"], test
        assert test[4] == f"http://127.0.0.1:{port}{health.PATH}"
    assert services["client"]["restart"] == "no"


def test_client_command_lines_parse_and_use_both_servers(services):
    lines = client_command_lines(services)
    runs = [argv for argv in lines if argv[1] == "run"]
    assert len(runs) >= 2 and {"ls", "leases"} <= {argv[1] for argv in lines}
    for argv in lines:
        parse(argv)
    spread = parse(runs[0])
    assert spread.params["policy"] == "spread" and spread.params["count"] == 2


def test_the_programs_the_client_runs_are_built_into_its_image(services, dockerfile):
    runs = [argv for argv in client_command_lines(services) if argv[1] == "run"]
    programs = [argv[argv.index("--") + 1] for argv in runs]
    built = stages(dockerfile)
    loop = re.search(r"for p in ([\w ]+?); do .*?cudabuild tests/cuda/programs/\$p\.cu.*?/opt/rgpu-demo/bin/\$p",
                     built["programs"])
    assert loop, "the programs stage does not build into /opt/rgpu-demo/bin"
    for program in programs:
        name = Path(program).name
        assert program == f"/opt/rgpu-demo/bin/{name}" and name in loop.group(1).split()
        assert (ROOT / "tests" / "cuda" / "programs" / f"{name}.cu").is_file()
    assert "COPY --from=programs /opt/rgpu-demo /opt/rgpu-demo" in built["demo"]
    assert services["client"]["build"]["target"] == "demo"


def test_the_runtime_image_carries_no_compiler_and_no_test_tool(dockerfile, services):
    built = stages(dockerfile)
    assert {"build", "programs", "runtime", "demo", "client"} <= set(built)
    runtime = built["runtime"]
    for tool in ("gcc", "g++", "make", "libzmq3-dev", "pytest", "[test]", "build-essential"):
        assert tool not in runtime, f"the runtime stage installs {tool}"
    # what it copies comes from the build stage, which installs rgpu without its test extra
    assert re.findall(r"COPY --from=(\S+)", runtime) == ["build"]
    assert "'.[k8s]'" in built["build"] and "[test]" not in built["build"]
    # the final stage is the runtime image, and every target compose builds exists
    assert list(built)[-1] == "final:runtime"
    for service in services.values():
        if "build" in service:
            assert service["build"]["target"] in built
    # the client layer is the library and the wheel only (the label marks it as built from here)
    assert built["client"].split() == ["LABEL", "rgpu.dockerfile=docker/Dockerfile", "COPY", "--from=build", "/opt/rgpu/lib", "/opt/rgpu/lib",
                                       "COPY", "--from=build", "/opt/rgpu/wheels", "/opt/rgpu/wheels"]


def test_dockerignore_keeps_local_state_out_of_the_image():
    ignored = (ROOT / ".dockerignore").read_text().split()
    # A host's venv or build would shadow the image's own (wrong paths, wrong libc).
    assert {".venv", "build", ".git"} <= set(ignored)


RUNTIMES = r"(linux-vdso|ld-linux.*|libc|libm|libdl|libpthread|librt|libresolv|libutil|libstdc\+\+|libgcc_s)\.so"


def _bundle_libs(lib):
    p = subprocess.run(["bash", str(ROOT / "docker" / "bundle-libs.sh"), str(lib)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    ldd = subprocess.run(["ldd", str(lib / "librgpu.so")], capture_output=True, text=True,
                         env={"LD_LIBRARY_PATH": str(lib), "PATH": "/usr/bin:/bin"})
    # every library librgpu.so loads but glibc's and the C++ runtime is then one in that directory
    outside = [line for line in ldd.stdout.splitlines() if "=>" in line and not re.match(RUNTIMES, line.split()[0])
               and f"=> {lib}/" not in line]
    assert not outside, ldd.stdout
    assert f"libzmq.so.5 => {lib}/libzmq.so.5" in ldd.stdout, ldd.stdout
    return {line.split()[1] for line in p.stdout.splitlines()}


def test_the_client_layer_bundles_libzmq_but_not_the_images_own_c_and_cxx_runtimes(libdir, tmp_path):
    # a build that links the system's libzmq (an image's: no pyzmq wheel beside libhook/build.sh)
    lib = tmp_path / "lib"
    shutil.copytree(libdir, lib, symlinks=True, ignore=shutil.ignore_patterns("rgpu", "libzmq.so.5", "libsodium-*"))
    bundled = _bundle_libs(lib)
    assert "libzmq.so.5" in bundled
    assert not {n for n in bundled if re.match(RUNTIMES, n)}, bundled


def test_the_client_layer_keeps_the_libzmq_the_build_placed_beside_the_library(libdir, tmp_path):
    # a build that placed pyzmq's wheel libzmq and libsodium beside librgpu.so (libhook/build.sh): they
    # stay, and the system's are not copied over them; a build without them is the test above
    lib = tmp_path / "lib"
    shutil.copytree(libdir, lib, symlinks=True, ignore=shutil.ignore_patterns("rgpu"))
    placed = (lib / "libzmq.so.5").read_bytes() if (lib / "libzmq.so.5").exists() else None
    bundled = _bundle_libs(lib)
    if placed is not None:
        assert "libzmq.so.5" not in bundled and (lib / "libzmq.so.5").read_bytes() == placed
