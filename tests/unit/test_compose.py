"""docker-compose.yml and docker/Dockerfile stay in step with the code they start.

CI has no Docker engine, so the compose demo is checked here the way the engine and the shells in it
would read it: compose interpolates `$` (a `$(cat ...)` meant for the container's shell must be
written `$$(...)`), every daemon and CLI command line must parse with the real click commands, and
every file the client service reads must be produced by the image build."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
import yaml

from rgpu.client.cli import cli as rgpu_cli
from rgpu.client.controller_client import ControllerClient
from rgpu.controller.daemon import main as controller_main
from rgpu.server.cli import main as server_main

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = {"rgpu": rgpu_cli, "rgpu-server": server_main, "rgpu-controller": controller_main}
PROGRAM_PATH = re.compile(r"\$\(cat (/rgpu/[\w.]+\.path)\)")


@pytest.fixture(scope="module")
def compose_text() -> str:
    return (ROOT / "docker-compose.yml").read_text()


@pytest.fixture(scope="module")
def services(compose_text) -> dict:
    return yaml.safe_load(compose_text)["services"]


@pytest.fixture(scope="module")
def dockerfile() -> str:
    return (ROOT / "docker" / "Dockerfile").read_text()


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
    lines = []
    for line in script.splitlines():
        line = PROGRAM_PATH.sub("PROGRAM", line.strip())
        if line.startswith("rgpu "):
            lines.append(shlex.split(line))
    return lines


def test_only_escaped_dollars_reach_compose(compose_text):
    # An unescaped `$(...)` is a compose interpolation error ("Invalid interpolation format").
    stray = [m.start() for m in re.finditer(r"\$", compose_text.replace("$$", ""))]
    assert stray == [], f"unescaped $ at offsets {stray}"


def test_the_pool_has_a_controller_and_two_servers_of_two_gpus(services):
    assert {"controller", "gpu1", "gpu2", "client"} <= set(services)
    for name in ("gpu1", "gpu2"):
        ctx = parse(shlex.split(services[name]["command"]))
        assert ctx.params["count"] == 2 and ctx.params["device"] == "sim"
        assert ctx.params["controller"] == "tcp://controller:7440"
        # Clients reach the server by its service name, not the address it binds.
        assert ctx.params["advertise"] == f"tcp://{name}:7450"
        assert services[name]["depends_on"]["controller"]["condition"] == "service_healthy"
    controller = parse(shlex.split(services["controller"]["command"]))
    assert controller.params["listen"].endswith(":7440")


def test_client_command_lines_parse_and_use_both_servers(services):
    lines = client_command_lines(services)
    runs = [argv for argv in lines if argv[1] == "run"]
    assert len(runs) >= 2 and {"ls", "leases"} <= {argv[1] for argv in lines}
    for argv in lines:
        parse(argv)
    spread = parse(runs[0])
    assert spread.params["policy"] == "spread" and spread.params["count"] == 2


def test_the_programs_the_client_runs_are_built_into_the_image(services, dockerfile):
    script = services["client"]["command"][-1].replace("$$", "$")
    paths = PROGRAM_PATH.findall(script)
    assert paths, "the client runs no CUDA program"
    for path in paths:
        match = re.search(rf"cudabuild (\S+\.cu)[^>]*> {re.escape(path)}", dockerfile)
        assert match, f"{path} is not written by docker/Dockerfile"
        assert (ROOT / match.group(1)).is_file()


def test_healthcheck_code_uses_the_real_client(services):
    code = services["controller"]["healthcheck"]["test"][-1]
    compile(code, "healthcheck", "exec")
    assert "ping" in code and callable(ControllerClient.ping)


def test_dockerignore_keeps_local_state_out_of_the_image():
    ignored = (ROOT / ".dockerignore").read_text().split()
    # A host's venv or build would shadow the image's own (wrong paths, wrong libc).
    assert {".venv", "build", ".git"} <= set(ignored)
