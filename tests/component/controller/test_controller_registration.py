"""A fake rgpu-server registering through Registrar: joins, heartbeats, lease lists, missed
heartbeats (down, out of placement), and rejoining after either side restarts."""
import threading

import pytest

from rgpu.client.controller_client import ControllerError
from rgpu.server.registration import Registrar
from tests.component.controller.controller_fixtures import GiB, fake_gpus, server_credential
from tests.support.daemons import wait_until


class FakeServer:
    def __init__(self, controller_url, url="tcp://fake-gpu-host:7000", ngpus=2):
        self.url = url
        self.gpus = fake_gpus(ngpus, url.rsplit(":", 1)[-1])
        self.seen: list[set] = []
        self.lock = threading.Lock()
        self.registrar = Registrar(controller_url, url, self.inventory, self.usage, self.on_leases, timeout=1.0,
                                   credential=server_credential())

    def inventory(self):
        return {"backend": "sim", "gpus": self.gpus}

    def usage(self):
        return {"sessions": 0, "memory_used": {g["uuid"]: 0 for g in self.gpus}}

    def on_leases(self, ids):
        with self.lock:
            self.seen.append(ids)

    def last(self):
        with self.lock:
            return self.seen[-1] if self.seen else None


@pytest.fixture
def fake_server(controller):
    server = FakeServer(controller.url)
    server.registrar.start()
    yield server
    server.registrar.stop()


def server_state(client, url):
    for s in client.ls()["servers"]:
        if s["url"] == url:
            return s["state"]
    return None


def test_registers_heartbeats_and_reports_valid_leases(client, fake_server):
    wait_until(lambda: server_state(client, fake_server.url) == "up", 10, "registration")
    [server] = client.ls()["servers"]
    assert [g["uuid"] for g in server["gpus"]] == [g["uuid"] for g in fake_server.gpus]
    wait_until(lambda: server.get("usage") or client.ls()["servers"][0]["usage"], 10, "usage from a heartbeat")
    lease = client.reserve(memory=GiB, compute=10)["lease"]
    wait_until(lambda: fake_server.last() == {lease}, 10, "lease in heartbeat reply")
    client.release(lease)
    wait_until(lambda: fake_server.last() == set(), 10, "released lease leaves the list")


def test_missed_heartbeats_mark_down_and_gpus_leave_placement(client, controller, fake_server):
    wait_until(lambda: server_state(client, fake_server.url) == "up", 10, "registration")
    lease = client.reserve(memory=GiB, compute=10, ttl=600)["lease"]
    fake_server.registrar.stop()                      # the server dies silently
    wait_until(lambda: server_state(client, fake_server.url) == "down", 15, "server marked down")
    assert client.lease(lease)["state"] == "degraded"
    with pytest.raises(ControllerError) as info:
        client.reserve(memory=GiB)
    assert info.value.code == "no_capacity" and "1 down" in info.value.message
    # a new incarnation of the server rejoins by itself and its lease heals
    again = FakeServer(controller.url)
    again.registrar.start()
    try:
        wait_until(lambda: server_state(client, again.url) == "up", 10, "rejoin")
        assert client.lease(lease)["state"] == "active"
        assert client.reserve(memory=GiB, compute=10)["vgpus"][0]["server"] == again.url
        wait_until(lambda: again.last() and lease in again.last(), 10, "lease list after rejoin")
    finally:
        again.registrar.stop()


def test_rejoins_after_controller_restart_even_without_its_database(client, controller, fake_server):
    wait_until(lambda: server_state(client, fake_server.url) == "up", 10, "registration")
    controller.stop()
    assert controller.db.exists() or controller.store
    controller.wipe()                                 # the controller comes back with nothing
    controller.start()
    with controller.client() as c:
        wait_until(lambda: server_state(c, fake_server.url) == "up", 15, "re-registration")
        assert c.reserve(memory=GiB, compute=10)["vgpus"][0]["server"] == fake_server.url
