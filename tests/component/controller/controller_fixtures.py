"""Helpers for controller component tests: a real rgpu-controller subprocess on a free port."""
import os
import sys
from pathlib import Path

from rgpu.client.controller_client import ControllerClient, ControllerError
from tests.support.daemons import DaemonSet, free_url

SECRET = "component-test-secret-0123456789"
GiB = 1 << 30


def fake_gpus(n, prefix, memory=16 * GiB, name="SimGPU A100"):
    return [{"uuid": f"{prefix}-{i}", "index": i, "name": name, "memory_total": memory, "sms": 108,
             "compute_capability": "8.0"} for i in range(n)]


def answers(url):
    def ready():
        try:
            with ControllerClient(url, timeout=0.5) as c:
                return c.ping()["ok"]
        except ControllerError:
            return False
    return ready


class ControllerProc:
    """One controller (restartable on the same database and port)."""

    def __init__(self, daemons: DaemonSet, tmp_path: Path, extra=()):
        self.daemons, self.tmp_path, self.extra = daemons, tmp_path, list(extra)
        self.url = free_url()
        self.db = tmp_path / "controller.db"
        self.env = {**os.environ, "RGPU_CLUSTER_SECRET": SECRET, "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
                    "RGPU_CONTROLLER": self.url}
        self.env.pop("RGPU_CLUSTER_SECRET_FILE", None)
        self.handle = None

    def argv(self):
        return [sys.executable, "-m", "rgpu.controller.daemon", "--listen", self.url,
                "--db", str(self.db), *self.extra]

    def start(self):
        self.handle = self.daemons.start(self.argv(), answers(self.url), 20, env=self.env,
                                         log_path=self.tmp_path / "controller.log")
        return self

    def stop(self):
        return self.handle.stop()

    def kill(self):
        return self.handle.kill()

    def client(self, timeout=5.0):
        return ControllerClient(self.url, timeout=timeout)
