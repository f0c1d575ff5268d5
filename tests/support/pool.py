"""A controller and rgpu-servers that joined it, for end-to-end tests of the pool; and the ways a
test reaches those servers over their CURVE wire: ``keyed`` (a server's URL with its public key, as
`rgpu run` gives it to programs), ``stats`` (with the cluster credential), ``request``."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rgpu.client import server_client
from rgpu.protocol import curve
from tests.conftest import run_cli, server_argv
from tests.support.controller import SECRET, ControllerProc
from tests.support.daemons import free_port, wait_until


def keyed(url: str, secret: str = SECRET) -> str:
    """``url@KEY``: a pool server's URL with its public key (derived from the cluster secret)."""
    base, _, gpu = url.partition("#")
    key = curve.key_hex(curve.server_data_keys(secret.encode(), base).public)
    return f"{base}@{key}" + (f"#{gpu}" if gpu else "")


def ping(url: str) -> bool:
    return server_client.ping(keyed(url))


def stats(url: str) -> dict:
    """A pool server's stats, asked with the cluster credential (as an operator would)."""
    return server_client.stats(keyed(url), keys=curve.server_role_keys(SECRET.encode()))


def request(url: str, msg: dict, timeout_s: float = 5.0) -> dict:
    """One request to a pool server's supervisor, as any client with a fresh key."""
    return server_client.request(keyed(url), msg, timeout_s)


class Pool:
    """A controller and the rgpu-servers that joined it (each one sim GPU of 1 GiB)."""

    def __init__(self, daemons, tmp_path, extra=()):
        """``extra``: more options of the controller."""
        self.daemons, self.tmp_path = daemons, tmp_path
        self.controller = ControllerProc(daemons, tmp_path, ["--heartbeat-timeout", "3", *extra]).start()
        self.servers: dict = {}

    @property
    def url(self) -> str:
        return self.controller.url

    @property
    def env(self) -> dict:
        """The environment of the pool's admin: `rgpu` finds its credential and the controller's key."""
        return self.controller.env

    def add_server(self, memory: str = "1GiB", *extra: str, env: dict | None = None) -> str:
        """A server of the test backend (`extra` may name another: a later --device wins), with
        `env` added to the pool's."""
        port = free_port()
        url = f"tcp://127.0.0.1:{port}"
        self.servers[url] = self.daemons.start(
            server_argv(url, "--sim-memory", memory, "--controller", self.url, *extra), ready=lambda: ping(url),
            deadline_s=30, env={**self.controller.env, **(env or {})}, log_path=self.tmp_path / f"server-{port}.log")
        return url

    def cli(self, *args: str, env=None) -> subprocess.CompletedProcess:
        return run_cli(*args, "--controller", self.url, env=env or self.env)

    def cli_json(self, *args: str):
        p = self.cli(*args, "--json")
        assert p.returncode == 0, p.stdout + p.stderr
        return json.loads(p.stdout)

    def cli_json_fail(self, *args: str):
        """The JSON of a command that is expected to fail (exit code 1)."""
        p = self.cli(*args, "--json")
        assert p.returncode == 1, p.stdout + p.stderr
        return json.loads(p.stdout)

    def states(self) -> dict:
        return {s["url"]: s["state"] for s in self.cli_json("ls")["servers"]}

    def leases(self) -> dict:
        return {lease["id"]: lease for lease in self.cli_json("leases")["leases"]}

    def run(self, *args: str, env=None) -> subprocess.CompletedProcess:
        """`rgpu run --controller URL ARGS` (options, then -- and the program)."""
        return run_cli("run", "--controller", self.url, *args, env=env or self.env)

    def start_holder(self, exe, *opts: str, mib: int = 16, timeout_s: float = 10):
        """hold_memory under `rgpu run`, once it holds its memory (printed READY)."""
        env = dict(self.env, RGPU_TIMEOUT=str(timeout_s))
        proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--controller", self.url, *opts,
                                 "--", str(exe), str(mib)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env)
        line = proc.stdout.readline()
        if not line.startswith("READY"):
            proc.kill()
            pytest.fail(f"holder did not start: {line}{proc.communicate(timeout=10)}")
        return proc


def one_server(daemons, tmp_path, memory: str = "512MiB"):
    """A pool of one server, up in `rgpu ls`; its servers stopped after (a fixture's body: yield from)."""
    p = Pool(daemons, tmp_path)
    a = p.add_server(memory)
    # a polling deadline, not a speed limit: a cuda server's first context, with many starting at once
    wait_until(lambda: p.states() == {a: "up"}, 60, "the server up in `rgpu ls`")
    yield p
    for handle in p.servers.values():
        handle.stop()
