"""Fixtures of the security suite: a controller with users, and servers with a cluster secret whose
wire is CURVE (each test plays an attacker with only network access, plus what the test says)."""
from __future__ import annotations

import os

import pytest

from rgpu.protocol import curve
from tests.conftest import server_argv
from tests.support.controller import SECRET, ControllerProc
from tests.support.daemons import free_url
from tests.support.pool import keyed, ping

CLUSTER = curve.server_role_keys(SECRET.encode())


@pytest.fixture
def controller(daemons, tmp_path):
    return ControllerProc(daemons, tmp_path, ["--heartbeat-timeout", "1.5"]).start()


@pytest.fixture
def secret_server(daemons, tmp_path):
    """start(*extra, memory=...) -> (plain url, keyed url, handle): an rgpu-server with the cluster
    secret and no controller (sessions need tokens signed with it; the wire is CURVE)."""
    def start(*extra: str, memory: str = "1GiB"):
        url = free_url()
        env = {**os.environ, "RGPU_CLUSTER_SECRET": SECRET, "RGPU_CONFIG_DIR": str(tmp_path / "cfg")}
        env.pop("RGPU_CONTROLLER", None)
        handle = daemons.start(server_argv(url, "--sim-memory", memory, *extra), ready=lambda: ping(url),
                               deadline_s=30, env=env)
        return url, keyed(url), handle
    return start
