"""Failover under load: three etcd members, three controller replicas, two servers (registrars
with fake GPUs, as rgpu-server joins) and a real rgpu-server (the software GPU), CLIENTS clients
reserving, renewing and releasing in a loop, and a CUDA program run through `rgpu run` on the real
server. The leader is killed (-9) while the program runs, then an etcd member, then both come back.
After each step, read from etcd itself: no GPU holds more than its memory, and every lease a client
holds is still there (renewed by whichever replica leads). The program finishes with its results
checked, and its lease is released by `rgpu run` through the new leader."""
import subprocess
import sys
import threading

from rgpu.client.controller_client import ControllerClient, ControllerError
from rgpu.controller.store_etcd import EtcdStore
from rgpu.server.registration import Registrar
from tests.component.controller.controller_fixtures import fake_gpus, server_credential
from tests.component.controller.test_controller_replicas import leader_of, replicas
from tests.conftest import server_argv
from tests.support.daemons import free_port, wait_until
from tests.support.etcd import EtcdCluster
from tests.support.pool import ping

GiB = 1 << 30
CLIENTS = 20           # the scale; each holds a lease of 1 GiB and cycles another
ITERATIONS, PAUSE_MS = 40, 150   # the program's steps: it runs on for seconds after the leader dies


class Load:
    """Client threads: each holds one lease for the whole test (renewed every round) and reserves,
    renews and releases another in a loop."""

    def __init__(self, urls, credential):
        self.urls, self.credential = urls, credential
        self.stop = threading.Event()
        self.rounds = 0
        self.held: dict[int, str] = {}
        self.lost: list[str] = []       # a held lease the controller no longer knew
        self.errors: list[str] = []
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.run, args=(i,), daemon=True) for i in range(CLIENTS)]

    def run(self, i):
        with ControllerClient(self.urls, timeout=5.0, credential=self.credential) as c:
            self.held[i] = c.reserve(memory=GiB, ttl=60)["lease"]
            while not self.stop.is_set():
                try:
                    c.renew(self.held[i])
                except ControllerError as exc:
                    if exc.code in ("unknown_lease", "lease_ended"):
                        self.lost.append(f"{self.held[i]}: {exc}")
                        return
                    self.errors.append(str(exc))
                    continue
                try:
                    lease = c.reserve(memory=GiB, ttl=10)["lease"]
                    c.renew(lease)
                    c.release(lease)
                except ControllerError as exc:
                    if exc.code != "no_capacity":
                        self.errors.append(str(exc))
                    continue
                with self.lock:
                    self.rounds += 1

    def start(self):
        for t in self.threads:
            t.start()
        wait_until(lambda: len(self.held) == CLIENTS, 30, "every client holds its lease")

    def progress(self, more: int, what: str):
        """Wait until ``more`` further rounds completed (the pool serves again)."""
        target = self.rounds + more
        wait_until(lambda: self.rounds >= target or self.lost, 60, what)
        assert not self.lost, self.lost

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(30)


def check_etcd(store_url, held):
    """Read from etcd itself: every GPU's allocations fit it, and every held lease is live."""
    store = EtcdStore(store_url)
    try:
        for uuid, c in store.gpu_commitments().items():
            assert c["memory"] <= c["memory_total"], f"{uuid} over-committed: {c}"
            assert c["compute"] <= 100, f"{uuid} over-committed: {c}"
        live = {row["id"] for row in store.load_leases()}
        assert set(held) <= live, f"leases lost: {set(held) - live}"
        return live
    finally:
        store.close()


def start_sim_server(daemons, tmp_path, urls, env) -> str:
    """An rgpu-server of the software GPU (512 MiB) that joins the replicas."""
    url = f"tcp://127.0.0.1:{free_port()}"
    daemons.start(server_argv(url, "--sim-memory", "512MiB", "--controller", urls), ready=lambda: ping(url),
                  deadline_s=30, env=env, log_path=tmp_path / "server-sim.log")
    return url


def start_program(exe, urls, env):
    """`rgpu run` of ``exe`` (migrate_streams: kernels on several streams, its results checked at
    the end) on a lease of the replicas, once it computes (its first PROGRESS line)."""
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--controller", urls, "--mem", "128MiB",
                             "--", str(exe), str(ITERATIONS), str(PAUSE_MS)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**env, "RGPU_TIMEOUT": "60"})
    lines = []
    while not (lines and lines[-1].startswith("PROGRESS")):
        lines.append(proc.stdout.readline())
        if not lines[-1]:
            proc.kill()
            raise AssertionError(f"the program did not start: {''.join(lines)} {proc.communicate(timeout=10)}")
    return proc


def test_failover_under_load_loses_and_doubles_no_lease(daemons, tmp_path, cuda_program):
    exe = cuda_program("migrate_streams")
    with EtcdCluster(tmp_path, members=3) as etcd:
        url = etcd.store_url("/ha")
        procs, urls = replicas(daemons, tmp_path, url, 3, ["--restart-grace", "15"])
        leader = wait_until(lambda: leader_of(procs), 15, "one leader")
        inventory = [fake_gpus(2, "A", memory=16 * GiB), fake_gpus(2, "B", memory=16 * GiB)]
        servers = [Registrar(urls, f"tcp://gpu{n}:7000", lambda n=n: {"backend": "sim", "gpus": inventory[n]},
                             lambda: {}, credential=server_credential(), timeout=2.0, heartbeat_interval=0.5).start()
                   for n in range(2)]
        sim = start_sim_server(daemons, tmp_path, urls, procs[0].env)
        load = Load(urls, leader.admin())
        program = None
        try:
            wait_until(lambda: all(s.registered for s in servers), 30, "both servers registered")
            with ControllerClient(urls, credential=leader.admin()) as c:
                wait_until(lambda: any(s["url"] == sim and s["state"] == "up" for s in c.ls()["servers"]), 30,
                           "the software GPU's server up")
            load.start()
            load.progress(20, "rounds before any failure")
            check_etcd(url, load.held.values())

            program = start_program(exe, urls, procs[0].env)           # computing on the real server
            leader.kill()                                               # the leading replica dies
            assert program.poll() is None, "the program ended before the leader died: make it longer"
            new = wait_until(lambda: leader_of(procs), 20, "a new leader")
            assert new is not leader
            load.progress(20, "rounds after the leader's death")
            check_etcd(url, load.held.values())
            out, err = program.communicate(timeout=300)
            assert program.returncode == 0, out + err
            assert out.strip().splitlines()[-1].endswith(" OK"), out    # its results matched the host's
            with ControllerClient(urls, credential=leader.admin()) as c:  # and `rgpu run` released its lease
                assert not [x["id"] for x in c.leases() if any(v["server"] == sim for v in x["vgpus"])]

            etcd.kill(0)                                                # then one etcd member
            load.progress(20, "rounds with two etcd members of three")
            check_etcd("etcd://" + ",".join(etcd.endpoints[1:]) + "/ha", load.held.values())

            etcd.restart(0)                                             # both come back
            leader.start()
            load.progress(20, "rounds after the restarts")
            assert role_count(procs) == (1, 2)
        finally:
            load.finish()
            for s in servers:
                s.stop()
            if program is not None and program.poll() is None:
                program.kill()
        assert not load.lost and not load.errors, (load.lost, load.errors[:5])
        # No lease doubled: the leader's pool holds the leases etcd holds, each GPU charged once. Leases
        # orphaned by a reserve sent again after the leader died may expire meanwhile: etcd is read
        # before and after the leader, and only ends of leases can come between.
        store = EtcdStore(url)
        before, charges_before = check_etcd(url, load.held.values()), store.gpu_commitments()
        with ControllerClient(urls, credential=leader.admin()) as c:
            in_leader = {lease["id"] for lease in c.leases()}
            charged = {g["uuid"]: g["memory_used"] for s in c.ls()["servers"] for g in s["gpus"]}
        after, charges_after = check_etcd(url, load.held.values()), store.gpu_commitments()
        store.close()
        assert after <= in_leader <= before
        for uuid, memory in charged.items():
            low, high = (charges.get(uuid, {}).get("memory", 0) for charges in (charges_after, charges_before))
            assert low <= memory <= high, (uuid, memory, charges_before, charges_after)
        assert servers[0].valid_leases | servers[1].valid_leases >= set(load.held.values())
        daemons.stop_all()          # while etcd runs: a replica gives up its lead as it stops


def role_count(procs):
    from tests.component.controller.test_controller_replicas import role
    roles = [role(p) for p in procs]
    return roles.count("leader"), roles.count("follower")
