"""A real rgpu-controller subprocess on a free port, restartable on the same database and port
(shared by the controller's component tests and the pool's end-to-end tests; with
RGPU_TEST_STORE=etcd its state is under a prefix of a real etcd member), and the credentials
of its peers: the admin the controller bootstraps in its config dir, users issued on demand, and
servers (the cluster secret)."""
from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path

from rgpu.client.controller_client import ControllerClient, ControllerError
from rgpu.client.credentials import Credential
from rgpu.controller import users
from rgpu.protocol import curve
from tests.support.daemons import DaemonSet, free_url

SECRET = "component-test-secret-0123456789"
CONTROLLER_KEY = curve.controller_keys(SECRET.encode()).public


def server_credential() -> Credential:
    return Credential.for_server(SECRET.encode())


def answers(url, credential=None):
    def ready():
        try:
            with ControllerClient(url, timeout=0.5, credential=credential or server_credential()) as c:
                return c.ping()["ok"]
        except ControllerError:
            return False
    return ready


def cluster_env(tmp_path: Path, controller_url: str) -> dict:
    """The environment of a test cluster's daemons and its admin's CLI: one shared secret, a config
    dir of its own (where the controller writes the admin credential and its public key)."""
    env = {**os.environ, "RGPU_CLUSTER_SECRET": SECRET, "RGPU_CONFIG_DIR": str(tmp_path / "cfg"),
           "RGPU_CONTROLLER": controller_url}
    for name in ("RGPU_CLUSTER_SECRET_FILE", "RGPU_CREDENTIAL", "RGPU_CONTROLLER_KEY", "XDG_CONFIG_HOME"):
        env.pop(name, None)
    return env


class ControllerProc:
    """One controller (restartable on the same database and port)."""

    def __init__(self, daemons: DaemonSet, tmp_path: Path, extra=(), *, store: str | None = None,
                 name: str = "controller", controller_env: str | None = None):
        """``store``: ``--store`` (etcd://... for a replica of a cluster) instead of a SQLite
        file; ``name`` tells replicas' logs apart; ``controller_env``: RGPU_CONTROLLER for the
        CLI (default: this controller's URL; the replicas' list for a cluster)."""
        self.daemons, self.tmp_path, self.extra = daemons, tmp_path, list(extra)
        if store is None and os.environ.get("RGPU_TEST_STORE") == "etcd":
            # the same tests on the etcd store: one member per test process, a prefix per controller
            import uuid

            from tests.support.etcd import shared_member
            store = shared_member().store_url(f"/t-{uuid.uuid4().hex[:12]}")
        self.store, self.name = store, name
        self.url = free_url()
        self.db = tmp_path / "controller.db"
        self.env = cluster_env(tmp_path, controller_env or self.url)
        self.config = Path(self.env["RGPU_CONFIG_DIR"])
        self.handle = None

    def argv(self):
        state = ["--store", self.store] if self.store else ["--db", str(self.db)]
        return [sys.executable, "-m", "rgpu.controller.daemon", "--listen", self.url, *state, *self.extra]

    def start(self):
        self.handle = self.daemons.start(self.argv(), answers(self.url), 20, env=self.env,
                                         log_path=self.tmp_path / f"{self.name}.log")
        return self

    def stop(self):
        return self.handle.stop()

    def kill(self):
        return self.handle.kill()

    def wipe(self):
        """Delete the stopped controller's state: its SQLite files, or its keys in etcd."""
        if self.store:
            from rgpu.controller import etcd
            endpoints, prefix = etcd.parse_url(self.store)
            client = etcd.Etcd(endpoints)
            try:
                client.post("/v3/kv/deleterange", {"key": etcd.b64(prefix + "/"),
                                                   "range_end": etcd.b64(etcd.prefix_end(prefix + "/"))})
            finally:
                client.close()
            return
        for extra in ("", "-wal", "-shm"):
            self.db.with_name(self.db.name + extra).unlink(missing_ok=True)

    def admin(self) -> Credential:
        """The admin credential the controller wrote for the account that started it."""
        cred = Credential.load(self.config / "credential")
        return dataclasses.replace(cred, controller_key=CONTROLLER_KEY)

    def user(self, name: str, admin: bool = False) -> Path:
        """Issue a credential for another user (a file holding the controller's key too)."""
        return users.issue(self.config / "users", name, "admin" if admin else "user",
                           self.tmp_path / f"{name}.credential", CONTROLLER_KEY)

    def client(self, timeout=5.0, credential: Credential | str | Path | None = None):
        """A client as the admin (default), as the user whose credential file is given, or as
        ``credential``."""
        if isinstance(credential, (str, Path)):
            credential = Credential.load(credential)
        return ControllerClient(self.url, timeout=timeout, credential=credential or self.admin())

    def fleet(self, timeout=5.0):
        """A client with the servers' credential (register and heartbeat as fake servers)."""
        return ControllerClient(self.url, timeout=timeout, credential=server_credential())
