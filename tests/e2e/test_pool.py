"""End to end, the pool: a controller and two software-GPU servers that join it, CUDA programs run
on leases through `rgpu run --controller`, servers that refuse sessions without a valid lease, and
the faults — release mid-run, controller restart, a server killed while a lease lives on it."""
from __future__ import annotations

import re
import signal
import time

import pytest

from rgpu.protocol import tokens, wire
from tests.conftest import run_cli
from tests.support.controller import SECRET
from tests.support.pool import Pool, keyed, request, stats
from tests.support.daemons import wait_until

# Two servers of one pool on this host: each needs GPUs of its own, which a one-GPU host has not.
pytestmark = [pytest.mark.e2e, pytest.mark.sim_only("two servers on one host need two GPUs of their own")]
MiB = 1 << 20


@pytest.fixture
def pool(daemons, tmp_path):
    p = Pool(daemons, tmp_path)
    a, b = p.add_server(), p.add_server()
    wait_until(lambda: p.states() == {a: "up", b: "up"}, 20, "both servers up in `rgpu ls`")
    yield p
    for handle in p.servers.values():     # before the controller, which may have been restarted last
        handle.stop()


def hello(url: str, token: str, gpu: int = 0) -> dict:
    return request(url, {"op": "hello", "proto": wire.PROTOCOL_VERSION, "client": "test", "cuda": 13000,
                         "lease": token, "gpu": gpu})


def session_of(url: str, lease: str):
    return next((s for s in stats(url)["sessions"] if s["lease"] == lease), None)


def test_servers_join_and_rgpu_ls_shows_them(pool):
    listed = pool.cli_json("ls")["servers"]
    assert sorted(s["url"] for s in listed) == sorted(pool.servers)
    for s in listed:
        [gpu] = s["gpus"]
        own = stats(s["url"])["gpus"][0]
        assert gpu["uuid"] == own["uuid"] and gpu["uuid"].startswith("GPU-")
        assert (gpu["memory_total"], gpu["memory_free"], gpu["compute_free"]) == (1 << 30, 1 << 30, 100)
        assert gpu["name"] == own["name"] and s["state"] == "up"
    # heartbeats carry the servers' own accounting
    wait_until(lambda: all(s["usage"].get("gpus") for s in pool.cli_json("ls")["servers"]), 10, "usage in ls")
    table = pool.cli("ls").stdout
    assert all(url in table for url in pool.servers), table


def test_run_spreads_two_vgpus_over_two_servers_with_their_memory_quota(pool, cuda_program):
    query = cuda_program("device_query")
    p = pool.run("-n", "2", "--policy", "spread", "--mem", "256MiB", "--",
                 "sh", "-c", 'echo "servers $RGPU_SERVER"; exec "$0"', str(query))
    assert p.returncode == 0, p.stdout + p.stderr
    servers = re.search(r"servers (\S+)", p.stdout).group(1).split(",")
    # each entry names the server and its public key: the program's wire to it is CURVE
    assert sorted(s.split("#")[0] for s in servers) == sorted(keyed(u) for u in pool.servers)
    assert "devices 2" in p.stdout
    assert len(re.findall(r"device \d: .* mem 268435456 ", p.stdout)) == 2, p.stdout
    # a program that computes on both vGPUs and moves data between them checks its own results
    multi = pool.run("-n", "2", "--policy", "spread", "--mem", "256MiB", "--", str(cuda_program("multi_vgpu")))
    assert multi.returncode == 0 and "OK multi_vgpu 2" in multi.stdout, multi.stdout + multi.stderr
    assert multi.stdout.count("total 268435456") == 2
    # the quota is enforced, not only reported
    over = pool.run("--mem", "256MiB", "--", str(cuda_program("hold_memory")), "300")
    assert over.returncode == 1 and "cudaErrorMemoryAllocation" in over.stdout, over.stdout + over.stderr
    assert pool.leases() == {}, "rgpu run releases its lease at exit"
    # a request the pool cannot hold is a clean error that says what is free, not a traceback
    big = pool.run("--mem", "64GiB", "--", "true")
    assert big.returncode == 3 and "rgpu: error: no vGPU from the controller" in big.stderr and "[impossible]" in big.stderr, big.stderr
    assert "more than any GPU of this pool has" in big.stderr and "Traceback" not in big.stderr


def test_servers_in_a_pool_refuse_sessions_without_a_valid_lease(pool, cuda_program):
    lease = pool.cli_json("reserve", "--mem", "128MiB")
    vgpu = lease["vgpus"][0]
    here, other = vgpu["server"], next(u for u in pool.servers if u != vgpu["server"])
    claims = {"lease": lease["lease"], "exp": time.time() + 600,
              "vgpus": [{"server": here, "uuid": vgpu["gpu"], "index": 0, "memory": 128 * MiB,
                         "compute": 0, "limit": 100}]}
    refused = {
        "no_token": hello(here, ""),
        "token_malformed": hello(here, "not-a-token"),
        "token_forged": hello(here, tokens.sign(claims, b"some-other-secret-0123456789")),
        "token_expired": hello(here, tokens.sign({**claims, "exp": time.time() - 1}, SECRET.encode())),
        "token_wrong_gpu": hello(other, lease["token"]),
        # signed properly, but for a lease the controller does not list (issued before its last view)
        "lease_ended": hello(here, tokens.sign({**claims, "lease": "l-0000000000", "iat": time.time() - 3600},
                                               SECRET.encode())),
    }
    for reason, reply in refused.items():
        assert (reply["ok"], reply["error"], reply["reason"]) == (False, "lease", reason), reply
    assert "lease holders" in refused["no_token"]["message"]
    assert hello(here, lease["token"])["ok"]
    # an unmodified program pointed at a pool server directly is told why
    p = run_cli("run", "--server", here, "--", str(cuda_program("device_query")))
    assert p.returncode != 0 and "opens sessions only for lease holders" in p.stderr, p.stdout + p.stderr


def test_release_ends_the_running_session_and_its_memory_returns(pool, cuda_program):
    lease = pool.cli_json("reserve", "--mem", "256MiB")
    lease_id, server = lease["lease"], lease["vgpus"][0]["server"]
    holder = pool.start_holder(cuda_program("hold_memory"), "--lease", lease_id, mib=64)
    try:
        session = session_of(server, lease_id)
        assert session["memory_quota"] == 256 * MiB and session["memory_used"] >= 64 * MiB
        assert pool.cli("release", lease_id).returncode == 0
        out, err = holder.communicate(timeout=60)
    finally:
        holder.kill()
    assert holder.returncode == 3 and "ERROR 46 cudaErrorDevicesUnavailable" in out, out + err
    wait_until(lambda: stats(server)["gpus"][0]["memory_used"] == 0 and not stats(server)["sessions"], 20,
               "memory of the ended session returned")
    refused = hello(server, lease["token"])
    assert not refused["ok"] and refused["reason"] == "lease_ended", refused


def test_controller_restart_keeps_the_lease_and_its_running_program(pool, cuda_program):
    holder = pool.start_holder(cuda_program("hold_memory"), "--mem", "128MiB")
    try:
        [lease_id] = pool.leases()
        server = pool.leases()[lease_id]["vgpus"][0]["server"]
        pool.controller.stop()
        restarted = time.time()
        pool.controller.start()
        assert lease_id in pool.leases()
        # every server has heard the restarted controller's view of the leases, and kept the session
        wait_until(lambda: all(stats(u)["pool"]["view_at"] > restarted for u in pool.servers), 20,
                   "a heartbeat to the restarted controller")
        session = session_of(server, lease_id)
        assert session is not None and not session["stopping"]
        assert holder.poll() is None
        again = pool.run("--lease", lease_id, "--", str(cuda_program("device_query")))
        assert again.returncode == 0 and "mem 134217728 " in again.stdout, again.stdout + again.stderr
        holder.send_signal(signal.SIGTERM)       # rgpu run passes it on, then releases the lease
        holder.communicate(timeout=30)
    finally:
        holder.kill()
    assert holder.returncode == 128 + signal.SIGTERM
    assert pool.leases() == {}


def test_server_killed_under_a_lease_degrades_it_and_clients_get_device_unavailable(pool, cuda_program):
    lease = pool.cli_json("reserve", "--mem", "128MiB")
    lease_id, server = lease["lease"], lease["vgpus"][0]["server"]
    holder = pool.start_holder(cuda_program("hold_memory"), "--lease", lease_id, timeout_s=5)
    try:
        pool.servers[server].kill()
        out, err = holder.communicate(timeout=60)
    finally:
        holder.kill()
    assert holder.returncode == 3 and "ERROR 46 cudaErrorDevicesUnavailable" in out, out + err
    wait_until(lambda: pool.leases()[lease_id]["state"] == "degraded", 20, "lease marked degraded")
    assert pool.states()[server] == "down"
    # a new program on the degraded lease fails as CUDA does, within its timeout
    late = pool.run("--lease", lease_id, "--", str(cuda_program("device_query")),
                    env=dict(pool.env, RGPU_TIMEOUT="2"))
    assert late.returncode != 0 and "cudaErrorDevicesUnavailable" in late.stdout, late.stdout + late.stderr
    assert pool.cli("release", lease_id).returncode == 0
