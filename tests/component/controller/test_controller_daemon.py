"""The real rgpu-controller: malformed input, restarts, impossible requests, token contents."""
import signal

import msgpack
import pytest
import zmq

from rgpu.client.controller_client import ControllerError, ControllerTimeout
from rgpu.protocol import curve, tokens
from tests.support.controller import CONTROLLER_KEY, server_credential

from tests.component.controller.controller_fixtures import GiB, SECRET, fake_gpus


def raw_exchange(controller, frames, sock_type=zmq.DEALER, credential=None):
    ctx = zmq.Context.instance()
    sock = ctx.socket(sock_type)
    sock.setsockopt(zmq.LINGER, 0)
    curve.as_client(sock, (credential or controller.admin()).keys, CONTROLLER_KEY)
    sock.connect(controller.url)
    try:
        sock.send_multipart(frames)
        assert sock.poll(5000), "controller did not answer a malformed request"
        return msgpack.unpackb(sock.recv_multipart()[-1], raw=False)
    finally:
        sock.close()


@pytest.mark.parametrize("frames", [
    [b"\xc1\xc1 not msgpack"],
    [msgpack.packb([1, 2, 3])],
    [msgpack.packb({"no": "cmd"})],
    [msgpack.packb({"cmd": "reserve"}), b"extra frame"],
    [msgpack.packb({"cmd": "reserve", "compute": "lots"})],
    [msgpack.packb({"cmd": "register", "url": "tcp://x:1", "boot_id": "b", "gpus": [{"uuid": 5}]})],
    [msgpack.packb({"cmd": "release", "lease": 17})],
    [msgpack.packb({"cmd": 42})],
    [b"\x92" + b"\xff" * 5],
])
def test_malformed_requests_get_error_replies_and_daemon_serves_on(controller, client, frames):
    as_server = b"register" in frames[0]       # servers send it; for a user it is forbidden outright
    reply = raw_exchange(controller, frames, credential=server_credential() if as_server else None)
    assert reply["ok"] is False and reply["error"] in ("bad_request", "unknown_command")
    assert reply["message"]
    assert client.ping()["ok"] and controller.handle.alive()


def test_req_socket_clients_work_too(controller):
    reply = raw_exchange(controller, [msgpack.packb({"cmd": "ping", "id": 7})], zmq.REQ)
    assert reply["ok"] and reply["id"] == 7


def test_unknown_lease_and_double_release(client, fleet):
    fleet.register("tcp://s:1", "b", "sim", fake_gpus(1, "A"))
    with pytest.raises(ControllerError) as info:
        client.release("l-0000000000")
    assert info.value.code == "unknown_lease"
    lease = client.reserve(memory=GiB, compute=10)["lease"]
    client.release(lease)
    with pytest.raises(ControllerError) as info:
        client.release(lease)
    assert info.value.code == "lease_ended"


def test_a_request_that_does_not_fit_now_says_what_is_free(client, fleet):
    fleet.register("tcp://s:1", "b", "sim", fake_gpus(2, "A"))
    client.reserve(memory=10 * GiB, compute=50, count=2, policy="spread")
    with pytest.raises(ControllerError) as info:
        client.reserve(memory=8 * GiB, compute=10)
    assert info.value.code == "no_capacity"
    assert "0 of 2 GPUs" in info.value.message and "6.0 GiB of 16.0 GiB" in info.value.message


@pytest.mark.parametrize("request_, why", [
    ({"memory": 32 * GiB}, "more than any GPU of this pool has (the largest: 16.0 GiB)"),
    ({"count": 3}, "can hold at most 2"),                                  # whole GPUs, 2 of them
    ({"count": 3, "policy": "spread", "memory": GiB}, "can hold at most 2 GPUs"),
    ({"count": 3, "exclusive": True}, "can hold at most 2 GPUs"),
    ({"model": "H100"}, "no GPU of this pool matches model 'H100' (models: SimGPU A100)"),
    ({"count": 2, "same_node": True, "compute": 60}, "no single server can ever hold 2"),
])
def test_a_request_that_can_never_fit_is_refused_at_once_even_with_wait(client, fleet, request_, why):
    fleet.register("tcp://s:1", "b", "sim", fake_gpus(1, "A"))
    fleet.register("tcp://t:1", "c", "sim", [{**g, "uuid": g["uuid"] + "-t"} for g in fake_gpus(1, "A")])
    with pytest.raises(ControllerError) as info:
        client.reserve(**request_, wait=60)
    assert info.value.code == "impossible" and why in info.value.message, info.value.message
    assert client.ls()["queued"] == 0


def test_reserve_token_verifies_with_cluster_secret(client, fleet):
    fleet.register("tcp://s:1", "b", "sim", fake_gpus(2, "A"))
    reply = client.reserve(memory=2 * GiB, compute=25, limit=50, count=2, policy="spread")
    claims = tokens.verify(reply["token"], SECRET.encode())
    assert claims["lease"] == reply["lease"]
    assert [(v["uuid"], v["memory"], v["compute"], v["limit"]) for v in claims["vgpus"]] == \
        [(v["gpu"], 2 * GiB, 25, 50) for v in reply["vgpus"]]
    with pytest.raises(tokens.TokenForged):
        tokens.verify(reply["token"], b"another-cluster-secret-xx")


@pytest.mark.parametrize("how", ["stop", "kill"])
def test_restart_keeps_servers_and_leases(controller, how):
    with controller.fleet() as f:
        f.register("tcp://s:1", "b", "sim", fake_gpus(2, "A"))
    with controller.client() as c:
        lease = c.reserve(memory=4 * GiB, compute=40, ttl=600)
    (controller.stop if how == "stop" else controller.kill)()
    controller.start()
    with controller.client() as c:
        [kept] = c.leases()
        assert kept["id"] == lease["lease"] and kept["vgpus"] == lease["vgpus"]
        renewed = c.renew(lease["lease"])
        assert renewed["expires"] > lease["expires"]
        gpus = {g["uuid"]: g for s in c.ls()["servers"] for g in s["gpus"]}
        assert gpus[lease["vgpus"][0]["gpu"]]["compute_free"] == 60
        c.release(lease["lease"])


def test_sigterm_stops_cleanly(controller):
    controller.handle.signal(signal.SIGTERM)
    assert controller.handle.proc.wait(10) == 0


def test_client_timeout_is_a_typed_error(controller):
    controller.stop()
    with controller.client(timeout=0.3) as c, pytest.raises(ControllerTimeout, match="did not answer"):
        c.ping()


def test_concurrent_reserve_release_never_overcommits(controller, tmp_path):
    import subprocess
    import sys
    with controller.fleet() as f:
        f.register("tcp://s:1", "b", "sim", fake_gpus(2, "A"))
    spec = controller.store or f"sqlite:{controller.db}"
    script = tmp_path / "worker.py"
    script.write_text(f"""
import sys
from rgpu.client.controller_client import ControllerClient, ControllerError
from rgpu.controller.stores import open_store
c = ControllerClient({controller.url!r}, timeout=10)
store = open_store({spec!r})   # the controller's own store, read as it is written
held, ok, full = [], 0, 0
for i in range(25):
    try:
        held.append(c.reserve(memory=3 << 30, compute=30, ttl=60)["lease"]); ok += 1
    except ControllerError as e:
        assert e.code == "no_capacity", e
        full += 1
        if held:                      # the pool (6 slices) is full: make room for the others
            c.release(held.pop(0))
    for uuid, row in store.gpu_commitments().items():
        assert row["memory"] <= row["memory_total"] and row["compute"] <= 100, (uuid, row)
for lease in held:
    c.release(lease)
print(ok, full)
""")
    procs = [subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=controller.env, text=True) for _ in range(4)]
    results = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [r[1][-2000:] for r in results]
    counts = [tuple(map(int, out.split())) for out, _ in results]
    assert sum(ok + full for ok, full in counts) == 100
    assert sum(full for _, full in counts) > 0            # the pool really ran out under contention
    from rgpu.controller.stores import open_store
    store = open_store(spec)
    assert store.gpu_commitments() == {} and store.load_leases() == []
    store.close()
