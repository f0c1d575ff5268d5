"""A controller and rgpu-servers that joined it, for end-to-end tests of the pool."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from rgpu.client.server_client import ping
from tests.conftest import run_cli, server_argv
from tests.support.controller import ControllerProc
from tests.support.daemons import free_port


class Pool:
    """A controller and the rgpu-servers that joined it (each one sim GPU of 1 GiB)."""

    def __init__(self, daemons, tmp_path):
        self.daemons, self.tmp_path = daemons, tmp_path
        self.controller = ControllerProc(daemons, tmp_path, ["--heartbeat-timeout", "3"]).start()
        self.servers: dict = {}

    @property
    def url(self) -> str:
        return self.controller.url

    def add_server(self, memory: str = "1GiB") -> str:
        port = free_port()
        url = f"tcp://127.0.0.1:{port}"
        self.servers[url] = self.daemons.start(
            server_argv(url, "--sim-memory", memory, "--controller", self.url), ready=lambda: ping(url),
            deadline_s=30, env=self.controller.env, log_path=self.tmp_path / f"server-{port}.log")
        return url

    def cli(self, *args: str, env=None) -> subprocess.CompletedProcess:
        return run_cli(*args, "--controller", self.url, env=env)

    def cli_json(self, *args: str):
        p = self.cli(*args, "--json")
        assert p.returncode == 0, p.stdout + p.stderr
        return json.loads(p.stdout)

    def states(self) -> dict:
        return {s["url"]: s["state"] for s in self.cli_json("ls")["servers"]}

    def leases(self) -> dict:
        return {lease["id"]: lease for lease in self.cli_json("leases")["leases"]}

    def run(self, *args: str, env=None) -> subprocess.CompletedProcess:
        """`rgpu run --controller URL ARGS` (options, then -- and the program)."""
        return run_cli("run", "--controller", self.url, *args, env=env)

    def start_holder(self, exe, *opts: str, mib: int = 16, timeout_s: float = 10):
        """hold_memory under `rgpu run`, once it holds its memory (printed READY)."""
        env = dict(os.environ, RGPU_TIMEOUT=str(timeout_s))
        proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--controller", self.url, *opts,
                                 "--", str(exe), str(mib)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env)
        line = proc.stdout.readline()
        if not line.startswith("READY"):
            proc.kill()
            pytest.fail(f"holder did not start: {line}{proc.communicate(timeout=10)}")
        return proc
