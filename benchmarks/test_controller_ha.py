"""Controller replicas on etcd (issue 40): reserve+release round trips per second through the
leader of three replicas on a three-member etcd (its data on tmpfs, and on disk, where each commit
waits for fsync), beside the same on one SQLite controller measured in the same run (the baseline);
one client after another (latency bound: each etcd commit is a raft round) and CLIENTS clients at
once (the leader commits the changes of the requests that arrive together in one transaction);
and the time from kill -9 of the leader to a new leader answering.

A small pool (2 servers x 4 GPUs) so that the store's cost, not placement, is what is measured.
Figures in extra_info: per_second, p50_ms, p99_ms; for the failover, seconds per round.
"""
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.component.controller.controller_fixtures import ControllerProc, fake_gpus, server_credential  # noqa: E402
from tests.component.controller.test_controller_replicas import leader_of, replicas, role  # noqa: E402
from tests.support.daemons import DaemonSet, wait_until  # noqa: E402
from tests.support.etcd import EtcdCluster  # noqa: E402

from rgpu.client.controller_client import ControllerClient, ControllerError  # noqa: E402

GiB = 1 << 30
ROUNDS = 500
CLIENTS, EACH = 8, 100   # concurrent clients, reserve+release pairs each per round
FAILOVER_CLIENTS = 20    # clients through the failures (the scale)
PHASE_S = 3.0            # seconds of load before, between and after the failures


def figures(benchmark):
    data = sorted(benchmark.stats.stats.data)
    benchmark.extra_info["per_second"] = round(1 / benchmark.stats.stats.mean, 1)
    benchmark.extra_info["p50_ms"] = round(data[len(data) // 2] * 1000, 3)
    benchmark.extra_info["p99_ms"] = round(data[min(len(data) - 1, int(len(data) * 0.99))] * 1000, 3)


def pool(urls, admin):
    with ControllerClient(urls, credential=server_credential()) as fleet:
        for n in range(2):
            fleet.register(f"tcp://gpu{n}:7000", "b", "sim", fake_gpus(4, f"S{n}", memory=80 * GiB))
    return ControllerClient(urls, timeout=10, credential=admin)


def reserve_release(benchmark, client):
    def once():
        client.release(client.reserve(memory=4 * GiB, compute=20, ttl=60)["lease"])
    benchmark.pedantic(once, rounds=ROUNDS, warmup_rounds=20)
    figures(benchmark)


def concurrent(benchmark, urls, admin, n=CLIENTS):
    clients = [ControllerClient(urls, timeout=10, credential=admin) for _ in range(n)]

    def loop(c):
        for _ in range(EACH):
            c.release(c.reserve(memory=GiB, compute=5, ttl=60)["lease"])

    def once():
        threads = [threading.Thread(target=loop, args=(c,)) for c in clients]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    try:
        benchmark.pedantic(once, rounds=3, warmup_rounds=1)
    finally:
        for c in clients:
            c.close()
    benchmark.extra_info["per_second"] = round(n * EACH / benchmark.stats.stats.mean, 1)
    benchmark.extra_info["clients"] = n


CLIENT_COUNTS = ["one", "concurrent", f"concurrent-{FAILOVER_CLIENTS}"]


def run_clients(benchmark, clients, urls, admin):
    """``clients``: one client after another, CLIENTS at once, or FAILOVER_CLIENTS at once."""
    if clients == "one":
        with pool(urls, admin) as client:
            reserve_release(benchmark, client)
    else:
        pool(urls, admin).close()
        concurrent(benchmark, urls, admin, CLIENTS if clients == "concurrent" else FAILOVER_CLIENTS)


@pytest.mark.parametrize("clients", CLIENT_COUNTS)
def test_reserve_release_sqlite_baseline(benchmark, tmp_path, clients):
    with DaemonSet() as daemons:
        ctl = ControllerProc(daemons, tmp_path, ["--heartbeat-timeout", "3600", "--log-level", "warning"]).start()
        run_clients(benchmark, clients, ctl.url, ctl.admin())


@pytest.mark.parametrize("clients", CLIENT_COUNTS)
@pytest.mark.parametrize("tmpfs", [True, False], ids=["etcd-tmpfs", "etcd-disk"])
def test_reserve_release_three_replicas_on_etcd(benchmark, tmp_path, tmpfs, clients):
    with DaemonSet() as daemons, EtcdCluster(tmp_path, members=3, tmpfs=tmpfs) as etcd:
        procs, urls = replicas(daemons, tmp_path, etcd.store_url("/bench"), 3,
                               ["--heartbeat-timeout", "3600", "--log-level", "warning"])
        leader = wait_until(lambda: leader_of(procs), 15, "one leader")
        run_clients(benchmark, clients, urls, leader.admin())


def test_time_to_new_leader(benchmark, tmp_path):
    """kill -9 of the leader until another replica answers as leader (--leader-ttl 3)."""
    with DaemonSet() as daemons, EtcdCluster(tmp_path, members=3) as etcd:
        procs, urls = replicas(daemons, tmp_path, etcd.store_url("/bench"), 3,
                               ["--heartbeat-timeout", "3600", "--log-level", "warning"])
        state = {"leader": wait_until(lambda: leader_of(procs), 15, "one leader")}

        def setup():
            for p in procs:
                if not p.handle.alive():
                    p.start()
            state["leader"] = wait_until(lambda: leader_of(procs), 15, "one leader")
            wait_until(lambda: all(role(p) for p in procs), 15, "every replica answers")

        def failover():
            state["leader"].kill()
            wait_until(lambda: leader_of(procs), 15, "a new leader", interval_s=0.02)

        started = time.monotonic()
        benchmark.pedantic(failover, setup=setup, rounds=3, iterations=1)
        benchmark.extra_info["seconds"] = [round(x, 2) for x in benchmark.stats.stats.data]
        assert time.monotonic() - started < 120


def etcd_leader(etcd) -> int:
    """The index of the member that leads etcd's raft (its maintenance status says whom)."""
    from rgpu.controller import etcd as E
    for i, endpoint in enumerate(etcd.endpoints):
        client = E.Etcd([endpoint])
        try:
            status = client.post("/v3/maintenance/status", {})
        except E.EtcdError:
            continue
        finally:
            client.close()
        if status.get("leader") == status["header"]["member_id"]:
            return i
    raise AssertionError("no etcd member leads")


def test_reservations_through_failures(benchmark, tmp_path):
    """FAILOVER_CLIENTS clients reserve+release in a loop through three failures, PHASE_S apart:
    kill -9 of the leading replica, kill -9 of the member leading etcd's raft, then both started
    again. For each: rate and latency before (PHASE_S up to it), during (from it to just after the
    first reserve+release sent after it, through the new leader for the first, completed) and after
    (PHASE_S from there); a reserve+release that spans a failure counts in the window it ends in.
    And the time from the leader's death to a new leader answering."""
    with DaemonSet() as daemons, EtcdCluster(tmp_path, members=3) as etcd:
        procs, urls = replicas(daemons, tmp_path, etcd.store_url("/bench"), 3,
                               ["--heartbeat-timeout", "3600", "--log-level", "warning"])
        leader = wait_until(lambda: leader_of(procs), 15, "one leader")
        pool(urls, leader.admin()).close()
        done: list[tuple[float, float]] = []   # (end, seconds)
        failed: list[str] = []
        stop = threading.Event()

        def loop():
            with ControllerClient(urls, timeout=10, credential=leader.admin()) as c:
                while not stop.is_set():
                    t0 = time.monotonic()
                    try:
                        c.release(c.reserve(memory=GiB, compute=5, ttl=60)["lease"])
                    except ControllerError as exc:
                        failed.append(exc.code)
                        continue
                    done.append((time.monotonic(), time.monotonic() - t0))

        def first_after(t: float) -> float:
            """When the first reserve+release sent at ``t`` or later completed."""
            wait_until(lambda: any(end - s >= t for end, s in done[-200:]), 30, "a reservation after the failure")
            return min(end for end, s in done if end - s >= t)

        def run():
            threads = [threading.Thread(target=loop) for _ in range(FAILOVER_CLIENTS)]
            for t in threads:
                t.start()
            marks = {}
            time.sleep(PHASE_S)
            killed = time.monotonic()
            leader.kill()
            new = wait_until(lambda: leader_of(procs), 20, "a new leader", interval_s=0.02)
            elected = time.monotonic()
            marks["leader_killed"] = (killed, first_after(elected))
            time.sleep(PHASE_S)
            member = etcd_leader(etcd)
            t = time.monotonic()
            etcd.kill(member)
            marks["etcd_leader_killed"] = (t, first_after(t))
            time.sleep(PHASE_S)
            t = time.monotonic()
            etcd.restart(member)
            leader.start()
            marks["both_restarted"] = (t, first_after(t))
            time.sleep(PHASE_S)
            stop.set()
            for th in threads:
                th.join(30)
            return marks, elected - killed, new

        marks, new_leader_s, new = benchmark.pedantic(run, rounds=1, iterations=1)
        assert new is not leader
        for event, (at, resumed) in marks.items():
            settled = resumed + 0.25       # the requests that waited through it finish together then
            windows = {"before": (at - PHASE_S, at), "during": (at, settled), "after": (settled, settled + PHASE_S)}
            info = {}
            for name, (lo, hi) in windows.items():
                lat = sorted(s for end, s in done if lo <= end < hi)
                info[name] = {
                    "seconds": round(hi - lo, 2), "per_second": round(len(lat) / (hi - lo), 1),
                    "p50_ms": round(lat[len(lat) // 2] * 1000, 2) if lat else None,
                    "p99_ms": round(lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000, 2) if lat else None,
                    "max_ms": round(lat[-1] * 1000, 2) if lat else None}
            benchmark.extra_info[event] = info
        benchmark.extra_info["new_leader_s"] = round(new_leader_s, 2)
        benchmark.extra_info["clients"] = FAILOVER_CLIENTS
        benchmark.extra_info["failed"] = failed
        assert not failed, failed          # every request was served, by one leader or the next
