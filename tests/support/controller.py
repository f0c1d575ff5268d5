"""A real rgpu-controller subprocess on a free port, restartable on the same database and port
(shared by the controller's component tests and the pool's end-to-end tests)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from rgpu.client.controller_client import ControllerClient, ControllerError
from tests.support.daemons import DaemonSet, free_url

SECRET = "component-test-secret-0123456789"


def answers(url):
    def ready():
        try:
            with ControllerClient(url, timeout=0.5) as c:
                return c.ping()["ok"]
        except ControllerError:
            return False
    return ready


def cluster_env(tmp_path: Path, controller_url: str) -> dict:
    """The environment of a test cluster's daemons: one shared secret, no user config."""
    env = {**os.environ, "RGPU_CLUSTER_SECRET": SECRET, "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "RGPU_CONTROLLER": controller_url}
    env.pop("RGPU_CLUSTER_SECRET_FILE", None)
    return env


class ControllerProc:
    """One controller (restartable on the same database and port)."""

    def __init__(self, daemons: DaemonSet, tmp_path: Path, extra=()):
        self.daemons, self.tmp_path, self.extra = daemons, tmp_path, list(extra)
        self.url = free_url()
        self.db = tmp_path / "controller.db"
        self.env = cluster_env(tmp_path, self.url)
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
