"""rgpu on the test bed (tests/support/testbed.py): a controller on the head host, rgpu-servers on the
GPU hosts, and commands on the CPU host, each a process in its host's namespace. The test process
itself stays outside the bed, so whatever it asks of a daemon (is it up, its stats) it asks through
a short process on a host (`python -m tests.support.bedpool ping|stats URL`), over the bed's links."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.controller import cluster_env
from tests.support.daemons import DaemonSet
from tests.support.testbed import CONTROLLER_PORT, Testbed

ROOT = Path(__file__).resolve().parents[2]


class BedPool:
    """A controller on `head` (reached at the head's front address) and pool servers on GPU hosts."""

    def __init__(self, bed: Testbed, daemons: DaemonSet, tmp_path: Path, device: str = "sim", controller: bool = True):
        """`controller=False`: no controller, for direct-mode servers only (and an environment without
        the cluster's secret)."""
        self.bed, self.daemons, self.tmp, self.device = bed, daemons, tmp_path, device
        self.url = bed.controller_url
        self.env = cluster_env(tmp_path, self.url)
        if not controller:
            self.env = {k: v for k, v in self.env.items() if not k.startswith("RGPU_")}
        self.env["PYTHONPATH"] = str(ROOT)
        # `rgpu run --server URL@KEY` pins keys here, not in the user's config (a bed's addresses and
        # ports come back in every run, its servers' keys are new)
        self.env["RGPU_KNOWN_SERVERS"] = str(tmp_path / "known-servers")
        self.servers: dict = {}   # advertised URL -> handle
        self.controller = None
        if controller:
            self.controller = self.start("head", [sys.executable, "-m", "rgpu.controller.daemon", "--listen",
                                                  f"tcp://0.0.0.0:{CONTROLLER_PORT}", "--db", str(tmp_path / "controller.db"),
                                                  "--heartbeat-timeout", "3"],
                                         ready=("controller", self.url), log="controller.log")

    def start(self, host: str, argv: list[str], ready: tuple, log: str, env: dict | None = None):
        """A daemon on `host`, up once a process on the CPU host gets an answer (`ready`: what to ask)."""
        probe = self.bed.argv("cpu", [sys.executable, "-m", "tests.support.bedpool", *ready, "--wait", "3"])
        return self.daemons.start(self.bed.argv(host, argv), ready=lambda: self._quiet(probe), deadline_s=60,
                                  env=env or self.env, cwd=str(ROOT), log_path=self.tmp / log)

    def _quiet(self, argv) -> bool:
        return subprocess.run(argv, env=self.env, cwd=ROOT, capture_output=True, timeout=30).returncode == 0

    def add_server(self, host: str, port: int, *extra: str, pool: bool = True, env: dict | None = None,
                   device: str | None = None) -> str:
        """rgpu-server on `host`, listening on every address of its host, advertising its front
        address: session workers then say "the host you reached me on" (tcp://*:PORT), which is the
        relay's front too. `pool=False`: a direct-mode server (no controller), whose wire is then
        CURVE with a key pair made here: the URL returned carries its key (URL@KEY), unless `extra`
        asks for `--wire plain`."""
        url = self.bed.url(host, port)
        argv = [sys.executable, "-m", "rgpu.server.cli", "--device", device or self.device, "--listen", f"tcp://0.0.0.0:{port}",
                "--advertise", url, "--log-level", "info", "--sim-memory", "1GiB", *extra]
        if pool:
            argv += ["--controller", self.url]
        else:
            if env is None:  # no pool: neither the controller nor the cluster's secret
                env = {k: v for k, v in self.env.items() if k not in ("RGPU_CONTROLLER", "RGPU_CLUSTER_SECRET")}
            if "plain" not in extra:
                from rgpu.protocol import curve
                from rgpu.server.wire_keys import direct_keys
                key_file = self.tmp / f"server-{host}-{port}.key"
                argv += ["--key-file", str(key_file)]
                url = f"{url}@{curve.key_hex(direct_keys(str(key_file)).public)}"
        self.servers[url] = self.start(host, argv, ready=("ping" if pool else "ping-direct", url),
                                       log=f"server-{host}-{port}.log", env=env)
        return url

    def on(self, host: str, argv: list[str], env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
        return self.bed.exec(host, argv, env=self.env if env is None else env, cwd=ROOT, timeout=timeout)

    def cli(self, *args: str, host: str = "cpu", env: dict | None = None, timeout: float = 120):
        """The `rgpu` command on a host (the CPU host unless said), as the pool's admin unless `env`."""
        return self.on(host, [sys.executable, "-m", "rgpu.client.cli", *args], env=env, timeout=timeout)

    def cli_json(self, *args: str, host: str = "cpu"):
        p = self.cli(*args, "--controller", self.url, "--json", host=host)
        assert p.returncode == 0, p.stdout + p.stderr
        return json.loads(p.stdout)

    def states(self) -> dict:
        return {s["url"]: s["state"] for s in self.cli_json("ls")["servers"]}

    def stats(self, url: str) -> dict:
        p = self.on("cpu", [sys.executable, "-m", "tests.support.bedpool", "stats", url])
        assert p.returncode == 0, p.stdout + p.stderr
        return json.loads(p.stdout)

    def log(self, url: str) -> str:
        return self.servers[url].output(1 << 20)


def _main() -> int:
    import argparse
    import time
    from rgpu.client import server_client
    from rgpu.client.controller_client import ControllerClient, ControllerError
    from tests.support.controller import server_credential
    from tests.support.pool import keyed, stats

    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("ping", "ping-direct", "controller", "stats"))
    ap.add_argument("url")
    ap.add_argument("--wait", type=float, default=0)
    a = ap.parse_args()
    if a.what == "stats":
        print(json.dumps(stats(a.url)))
        return 0

    def answered() -> bool:
        if a.what == "controller":
            try:
                with ControllerClient(a.url, timeout=1, credential=server_credential()) as c:
                    return bool(c.ping()["ok"])
            except ControllerError:
                return False
        return server_client.ping(keyed(a.url) if a.what == "ping" else a.url)

    deadline = time.monotonic() + a.wait
    while not answered():
        if time.monotonic() > deadline:
            return 1
        time.sleep(0.1)
    return 0


if __name__ == "__main__":
    sys.exit(_main())
