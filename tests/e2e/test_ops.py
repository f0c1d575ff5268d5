"""End to end, what users and operators see (issue 17): the shell workflow (`eval "$(rgpu reserve)"`
in a real bash, `rgpu env --lease`, renew, release several or --mine), an expired lease reported as
such to the program and in `rgpu leases`, share-only leases, `rgpu smi` against a running pool and in
direct mode, /metrics scraped over HTTP and parsed with prometheus-client's parser, and a program
started with nothing but environment variables getting, renewing and releasing its own lease, from
one controller or from the leader of several replicas."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from rgpu.client.controller_client import ControllerClient, ControllerError
from tests.conftest import run_cli, server_argv
from tests.support.controller import ControllerProc, server_credential
from tests.support.daemons import free_port, free_url, wait_until
from tests.support.etcd import EtcdCluster
from tests.support.pool import Pool, ping

pytestmark = pytest.mark.e2e
MiB = 1 << 20
RGPU = f"{sys.executable} -m rgpu.client.cli"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def pool(daemons, tmp_path):
    """A controller and one server, each serving /metrics (metrics_port, server_metrics_port). One
    server: a second one on a real GPU host would register the same GPU (its UUID), which the
    controller refuses to a second server."""
    p = Pool(daemons, tmp_path)
    p.metrics_port, p.server_metrics_port = free_port(), free_port()
    p.controller.extra += ["--metrics-listen", f"127.0.0.1:{p.metrics_port}", "--metrics-tenants"]
    p.controller.stop()
    p.controller.start()
    url = p.add_server("1GiB", "--metrics-listen", f"127.0.0.1:{p.server_metrics_port}")
    # a polling deadline, not a speed limit: a cuda server's first context, with many starting at once
    wait_until(lambda: p.states() == {url: "up"}, 60, "the server up in `rgpu ls`")
    yield p
    for handle in p.servers.values():
        handle.stop()


def bash(script: str, env: dict, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=timeout)


def test_eval_reserve_in_a_real_bash_sets_up_the_shell_for_cuda_programs(pool, cuda_program):
    exe = cuda_program("device_query")
    p = bash(f'set -e; eval "$({RGPU} reserve --mem 128)"; {exe}; echo "LEASE=$RGPU_LEASE_ID"', pool.env)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "mem 134217728 " in p.stdout and "OK device_query" in p.stdout      # --mem 128 is 128 MiB
    lease = p.stdout.split("LEASE=")[1].strip()
    assert f"reserved lease {lease}" in p.stderr and "rgpu release" in p.stderr   # the people's part: stderr
    assert pool.leases()[lease]["vgpus"][0]["memory"] == 128 * MiB              # it stays until released
    # the same lease in another shell, by its id; renew and release it there
    p = bash(f'set -e; eval "$({RGPU} env --lease {lease})"; {exe}; {RGPU} renew $RGPU_LEASE_ID --ttl 120; '
             f'{RGPU} release $RGPU_LEASE_ID', pool.env)
    assert p.returncode == 0 and "OK device_query" in p.stdout, p.stdout + p.stderr
    assert f"renewed {lease}: expires in 120s" in p.stdout and f"released {lease}" in p.stdout
    assert lease not in pool.leases()


def test_release_several_and_mine(pool):
    ids = [pool.cli_json("reserve", "--mem", "64MiB")["lease"] for _ in range(3)]
    two = pool.cli("release", ids[0], ids[1])
    assert two.returncode == 0 and two.stdout.split() == ["released", ids[0], "released", ids[1]]
    bad = pool.cli_json_fail("release", ids[0], ids[2])
    assert bad["released"] == [ids[2]] and bad["failed"][0]["lease"] == ids[0]
    for _ in range(2):
        pool.cli_json("reserve", "--mem", "64MiB")
    mine = pool.cli_json("release", "--mine")
    assert len(mine["released"]) == 2 and pool.leases() == {}


def test_an_expired_lease_is_reported_as_such_to_the_program_and_in_rgpu_leases(pool, cuda_program):
    exe = str(cuda_program("hold_memory"))
    reply = pool.cli_json("reserve", "--mem", "64MiB", "--ttl", "6")
    env = dict(pool.env, **json.loads(pool.cli("env", "--lease", reply["lease"], "--json").stdout))
    # nobody renews it from now on: the controller expires it, the server stops its session and says why
    p = subprocess.run([exe, "16"], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 3 and "READY" in p.stdout, p.stdout + p.stderr
    assert f"lease {reply['lease']} expired" in p.stderr and "connection lost" not in p.stderr, p.stderr
    ended = pool.cli_json("leases", "--ended", "600")["ended"]
    assert [(x["id"], x["state"]) for x in ended] == [(reply["lease"], "expired")]
    assert "expired" in pool.cli("leases", "--ended").stdout


def test_share_only_lease_places_and_accounts_but_enforces_no_quota(pool, cuda_program, device_kind):
    lease = pool.cli_json("reserve", "--mem", "64MiB", "--compute", "10", "--share-only")["lease"]
    env = dict(pool.env, **json.loads(pool.cli("env", "--lease", lease, "--json").stdout))
    # up to 512 MiB: past the 64 MiB placed, and not the whole of a real GPU that other tests share
    p = subprocess.run([str(cuda_program("alloc_until_fail")), "64", "512"], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 0 and "OK alloc_until_fail" in p.stdout, p.stdout + p.stderr
    allocated = int(p.stdout.split("allocated ")[1].split()[0])
    assert allocated == 512 * MiB and "stopped at the cap" in p.stdout, p.stdout  # not the 64 MiB placed
    gpu = pool.cli_json("ls")["servers"][0]["gpus"][0]
    assert device_kind != "sim" or gpu["memory_total"] == 1 << 30                # the sim's --sim-memory
    assert gpu["memory_used"] == 64 * MiB and gpu["memory_free"] == gpu["memory_total"] - 64 * MiB  # still accounted
    assert gpu["tenants"][0]["share_only"]
    assert "share-only" in pool.cli("leases").stdout and "share-only" in pool.cli("ls").stdout
    assert "share-only" in pool.cli("smi").stdout


def test_rgpu_smi_shows_my_vgpus_memory_and_processes(pool, cuda_program):
    holder = pool.start_holder(cuda_program("hold_memory"), "--mem", "128MiB", mib=48)
    try:
        def shown():
            out = pool.cli("smi").stdout
            return out if "48MiB / 128MiB" in out else None
        table = wait_until(shown, 15, "the holder's memory in rgpu smi")
        lease = next(iter(pool.leases()))
        assert lease in table and f":{holder.pid}" not in table   # sessions are the program's, not rgpu run's
        procs = table.split("Processes")[1]
        assert "48.0 MiB" in procs and lease in procs
        csv = pool.cli("smi", "--query-gpu=index,lease,memory.used,memory.total", "--format=csv,noheader,nounits")
        assert csv.stdout.strip() == f"0, {lease}, 48, 128"
        header = pool.cli("smi", "--query-gpu=memory.used,utilization.gpu", "--format=csv").stdout.splitlines()[0]
        assert header == "memory.used [MiB], utilization.gpu [%]"
        assert pool.cli("smi", "--query-gpu=bogus").returncode == 2
        everything = pool.cli("smi", "--all").stdout
        assert "1 vGPUs" in everything and "48.0 MiB" in everything
    finally:
        holder.terminate()
        holder.wait(30)


def test_rgpu_smi_in_direct_mode_from_the_servers_stats(start_server, cuda_program, libdir, device_kind):
    from rgpu.client.server_client import stats
    url, _ = start_server()
    total = stats(url)["gpus"][0]["memory_total"]                    # the GPU's: the sim's 1 GiB, or a real one's
    assert device_kind != "sim" or total == 1 << 30
    env = {**os.environ, "LD_LIBRARY_PATH": str(libdir), "RGPU_SERVER": url}
    holder = subprocess.Popen([str(cuda_program("hold_memory")), "32"], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert holder.stdout.readline().startswith("READY")
        out = run_cli("smi", "--server", url.removeprefix("tcp://"))        # HOST:PORT is a URL too
        assert out.returncode == 0 and f"32MiB / {total // MiB}MiB" in out.stdout and f":{holder.pid}" in out.stdout, out
    finally:
        holder.kill()
        holder.wait()


def scrape(port: int) -> dict:
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    return {f.name: f for f in text_string_to_metric_families(text)}


def sample(families: dict, name: str, **labels):
    found = [s for s in families[name].samples if all(s.labels.get(k) == v for k, v in labels.items())]
    assert len(found) == 1, (name, labels, families[name].samples)
    return found[0]


def test_metrics_of_the_controller_and_the_server_parse_and_agree(pool, cuda_program, device_kind):
    sport = pool.server_metrics_port
    [url] = pool.servers
    [gpu] = [g for s in pool.cli_json("ls")["servers"] for g in s["gpus"]]
    assert device_kind != "sim" or gpu["memory_total"] == 1 << 30      # the sim's --sim-memory; a GPU's own
    holder = pool.start_holder(cuda_program("hold_memory"), "--mem", "256MiB", "--compute", "30", mib=64)
    try:
        lease = next(iter(pool.leases()))
        vgpu = pool.leases()[lease]["vgpus"][0]

        def used():
            fams = scrape(pool.metrics_port)
            s = sample(fams, "rgpu_vgpu_memory_used_bytes", UUID=vgpu["gpu"])
            return fams if s.value == 64 * MiB else None
        fams = wait_until(used, 15, "the vGPU's memory in the controller's /metrics")
        labels = {"UUID": vgpu["gpu"]}          # summed per GPU: no label names a lease or an owner
        assert sample(fams, "rgpu_vgpu_memory_quota_bytes", **labels).value == 256 * MiB
        assert sample(fams, "rgpu_vgpu_compute_guarantee_ratio", **labels).value == pytest.approx(0.3)
        assert sample(fams, "rgpu_vgpu_sessions", **labels).value == 1
        assert not {"lease", "owner"} & set(sample(fams, "rgpu_vgpu_calls", **labels).labels)
        assert sample(fams, "rgpu_pool_leases", state="active").value == 1
        assert sample(fams, "rgpu_pool_queue_length").value == 0
        assert sample(fams, "rgpu_pool_memory_free_bytes").value == gpu["memory_total"] - 256 * MiB
        dcgm = sample(fams, "DCGM_FI_DEV_FB_USED", UUID=vgpu["gpu"])      # DCGM's name and unit (MiB)
        # the sim's memory is its sessions'; a real GPU's is NVML's, every context on it counted too
        assert dcgm.value == 64 if device_kind == "sim" else dcgm.value >= 64
        assert {"gpu", "UUID", "Hostname", "modelName"} <= set(dcgm.labels)
        assert fams["DCGM_FI_DEV_FB_USED"].type == "gauge" and fams["rgpu_vgpu_device_time_seconds"].type == "counter"
        assert vgpu["server"] == url
        own = scrape(sport)
        assert sample(own, "rgpu_vgpu_memory_used_bytes", UUID=vgpu["gpu"]).value == 64 * MiB
        assert sample(own, "DCGM_FI_DEV_FB_TOTAL", gpu="0").value == gpu["memory_total"] / MiB
        health = urllib.request.urlopen(f"http://127.0.0.1:{sport}/healthz", timeout=5).read()
        assert health == b"ok\n"
    finally:
        holder.terminate()
        holder.wait(30)
    server_log = pool.tmp_path / f"server-{url.rsplit(':', 1)[1]}.log"
    wait_until(lambda: any("event=session_ended" in line and f"lease={lease}" in line
                           for line in server_log.read_text().splitlines()), 15, "session_ended naming its lease")
    after = wait_until(lambda: (f := scrape(pool.metrics_port)) and
                       sample(f, "rgpu_pool_leases_ended", state="released").value == 1 and f, 15, "release counted")
    assert "rgpu_vgpu_memory_quota_bytes" not in after or not after["rgpu_vgpu_memory_quota_bytes"].samples
    # the Grafana dashboard of the repository charts only families the controller serves
    dashboard = json.loads((ROOT / "deploy" / "grafana" / "rgpu-dashboard.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    charted = {re.sub(r"_total$", "", m) for e in exprs for m in re.findall(r"\b(?:DCGM_FI_\w+|rgpu_\w+)", e)}
    served = {name for f in (fams, after) for name, fam in f.items() if fam.samples}
    assert len(charted) >= 15 and charted <= served, sorted(charted - served)


def test_a_program_with_only_environment_variables_gets_renews_and_releases_a_lease(pool, cuda_program, libdir,
                                                                                     tmp_path):
    env = {k: v for k, v in pool.env.items() if k not in ("RGPU_CLUSTER_SECRET", "RGPU_SERVER", "RGPU_LEASE")}
    env.update(LD_LIBRARY_PATH=str(libdir), LD_PRELOAD=str(libdir / "librgpu.so"), RGPU_MEM="96",
               RGPU_COMPUTE="20", RGPU_LEASE_TTL="2", RGPU_LOG="info", XDG_CACHE_HOME=str(tmp_path / "cache"))
    env["RGPU_CREDENTIAL"] = str(pool.controller.user("nina"))    # a user of the pool, not its admin
    proc = subprocess.Popen([str(cuda_program("spin_kernels")), "7"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    assert proc.stdout.readline().startswith("READY")
    leases = pool.leases()
    [(lease, held)] = leases.items()
    assert held["owner"] == "nina" and held["vgpus"][0]["memory"] == 96 * MiB and held["vgpus"][0]["compute"] == 20
    first_expiry = held["expires"]
    # the lease's current token, for the programs this one starts (tokens live minutes past a renew)
    kept = tmp_path / "cache" / "rgpu" / "leases" / lease
    first_token = kept.read_text()
    assert (kept.stat().st_mode & 0o777) == 0o600 and first_token.startswith("rgpu1.")
    time.sleep(4)                        # two TTLs: alive only because the library renews it
    assert pool.leases()[lease]["expires"] > first_expiry
    assert kept.read_text() != first_token      # each renew's token replaces the last
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "OK spin_kernels" in out, out + err
    assert f"env-only lease {lease} released" in err and not kept.exists()
    ended = {x["id"]: x["state"] for x in pool.cli_json("leases", "--ended", "600")["ended"]}
    assert ended[lease] == "released" and pool.leases() == {}


def test_a_program_on_its_own_lease_stopped_past_the_lease_ttl_keeps_it(pool, cuda_program, libdir, tmp_path):
    """Its renewer is a thread of the program, halted by the stop (Ctrl-Z, a debugger's all-stop); the
    server holds its sessions while its host answers, and the controller keeps the lease for them.
    Continued, the program finishes on its GPU as it would on a local one, and releases the lease."""
    env = {k: v for k, v in pool.env.items() if k not in ("RGPU_CLUSTER_SECRET", "RGPU_SERVER", "RGPU_LEASE")}
    env.update(LD_LIBRARY_PATH=str(libdir), LD_PRELOAD=str(libdir / "librgpu.so"), RGPU_MEM="96",
               RGPU_LEASE_TTL="2", RGPU_LOG="info", XDG_CACHE_HOME=str(tmp_path / "cache"))
    proc = subprocess.Popen([str(cuda_program("spin_kernels")), "3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        assert proc.stdout.readline().startswith("READY")
        [(lease, held)] = pool.leases().items()
        proc.send_signal(signal.SIGSTOP)
        stopped_at = time.time()
        while time.time() < stopped_at + 8:          # four TTLs with no renewal from the program
            assert lease in pool.leases(), "the stopped program's lease expired"
            time.sleep(0.5)
        assert pool.leases()[lease]["expires"] > held["expires"] + 5
        proc.send_signal(signal.SIGCONT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0 and "OK spin_kernels" in out, out + err
    assert f"env-only lease {lease} released" in err and pool.leases() == {}


def role(proc) -> str:
    try:
        with ControllerClient(proc.url, timeout=1.0, credential=server_credential()) as c:
            return c.ping().get("role", "")
    except ControllerError:
        return ""


def test_an_env_only_lease_finds_the_leader_among_controller_replicas(daemons, tmp_path, cuda_program, libdir):
    with EtcdCluster(tmp_path, members=1) as etcd:
        procs = [ControllerProc(daemons, tmp_path, ["--heartbeat-timeout", "30"], store=etcd.store_url("/ha"),
                                name=f"controller-{i}") for i in range(2)]
        urls = ",".join(p.url for p in procs)
        for p in procs:
            p.env["RGPU_CONTROLLER"] = urls
            p.start()
        leader = wait_until(lambda: next((p for p in procs if role(p) == "leader"), None), 15, "one leader")
        [follower] = [p for p in procs if p is not leader]
        assert role(follower) == "follower"
        port = free_port()
        server = f"tcp://127.0.0.1:{port}"
        daemons.start(server_argv(server, "--sim-memory", "1GiB", "--controller", urls), ready=lambda: ping(server),
                      deadline_s=30, env=leader.env, log_path=tmp_path / f"server-{port}.log")

        def leases():
            with ControllerClient(urls, credential=leader.admin()) as c:
                return c.leases()

        def up():
            with ControllerClient(urls, credential=leader.admin()) as c:
                return [s for s in c.ls()["servers"] if s["url"] == server and s["state"] == "up"]
        wait_until(up, 60, "the server up on the leader")
        # a dead replica first (no answer: the next), then the follower as HOST:PORT (it names the leader)
        env = {k: v for k, v in leader.env.items() if k not in ("RGPU_CLUSTER_SECRET", "RGPU_SERVER", "RGPU_LEASE")}
        env.update(LD_LIBRARY_PATH=str(libdir), LD_PRELOAD=str(libdir / "librgpu.so"), RGPU_MEM="64MiB",
                   RGPU_LOG="info", RGPU_CONTROLLER=f"{free_url()},{follower.url.removeprefix('tcp://')},{leader.url}")
        p = subprocess.run([str(cuda_program("copy_roundtrip")), "16"], capture_output=True, text=True, env=env,
                           timeout=120)
        assert p.returncode == 0 and "OK copy_roundtrip" in p.stdout, p.stdout + p.stderr
        lease = re.search(r"env-only lease (\S+) from " + re.escape(leader.url), p.stderr)
        assert lease, p.stderr
        assert f"env-only lease {lease.group(1)} released" in p.stderr
        assert leases() == []
        # the leader killed while a program holds a lease: renewals and the release find the new one
        env.update(RGPU_LEASE_TTL="3", RGPU_CONTROLLER=urls)
        proc = subprocess.Popen([str(cuda_program("spin_kernels")), "8"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env)
        assert proc.stdout.readline().startswith("READY")
        leader.kill()
        wait_until(lambda: role(follower) == "leader", 15, "the follower leads")
        out, err = proc.communicate(timeout=90)
        assert proc.returncode == 0 and "OK spin_kernels" in out, out + err
        lease = re.search(r"env-only lease (\S+) released", err)
        assert lease and "renew failed" not in err, err
        with ControllerClient(follower.url, credential=leader.admin()) as c:
            assert c.leases() == []
            ended = {x["id"]: x["state"] for x in c.call("leases", ended=600)["ended"]}
        assert ended[lease.group(1)] == "released"
        # none left to lead: the program fails, naming the replicas it tried
        follower.kill()
        env["RGPU_CONTROLLER"] = urls
        p = subprocess.run([str(cuda_program("device_query"))], capture_output=True, text=True, env=env, timeout=120)
        assert p.returncode != 0 and "did not answer within 15 s" in p.stderr, p.stderr
        assert all(u in p.stderr for u in urls.split(",")), p.stderr


def test_an_env_only_request_the_pool_cannot_hold_fails_the_program_with_the_reason(pool, cuda_program, libdir):
    env = {k: v for k, v in pool.env.items() if k != "RGPU_SERVER"}
    env.update(LD_LIBRARY_PATH=str(libdir), RGPU_MEM="10TiB")
    p = subprocess.run([str(cuda_program("device_query"))], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode != 0 and "env-only lease refused" in p.stderr and "more than any GPU" in p.stderr, p.stderr
