"""What encryption costs: rgpu's sync round trip and H2D/D2H bandwidth over tcp://127.0.0.1 with a
CURVE wire (a pool server: encrypted and authenticated, the client library's keypair against the
server's key) beside the same server with a plain wire, measured alternately in the same run.

Rows "… curve" of the table: the "rgpu" column is the CURVE figure, the "raw zmq" column the plain
one, and the ratio curve / plain (latency: above 1 is slower; bandwidth: below 1 is slower)."""
from __future__ import annotations

import os
import sys
import time

import pytest

from benchmarks.transport import KiB, MiB, alternately, build_harness, iterations, size_name
from rgpu.paths import libdir
from rgpu.protocol import curve, tokens
from tests.support.daemons import DaemonSet, free_url

SECRET = "benchmark-cluster-secret-0123456789"
CURVE_SIZES = [64 * KiB, 1 * MiB, 16 * MiB, 64 * MiB]


class CurveBench:
    """Two sim servers on tcp: one plain (direct mode), one with the cluster secret (CURVE)."""

    def __init__(self, daemons: DaemonSet):
        from rgpu.client.server_client import ping, stats
        self.exe = build_harness()
        self.plain = free_url()
        daemons.start([sys.executable, "-m", "rgpu.server.cli", "--device", "sim", "--listen", self.plain,
                       "--sim-memory", "1GiB", "--log-level", "warning"], ready=lambda: ping(self.plain),
                      deadline_s=30)
        url = free_url()
        key = curve.key_hex(curve.server_data_keys(SECRET.encode(), url).public)
        self.curve = f"{url}@{key}"
        env = {**os.environ, "RGPU_CLUSTER_SECRET": SECRET}
        env.pop("RGPU_CONTROLLER", None)
        daemons.start([sys.executable, "-m", "rgpu.server.cli", "--device", "sim", "--listen", url,
                       "--sim-memory", "1GiB", "--log-level", "warning"], ready=lambda: ping(self.curve),
                      deadline_s=30, env=env)
        uuid = stats(self.curve, keys=curve.server_role_keys(SECRET.encode()))["gpus"][0]["uuid"]
        self.token = tokens.sign({"lease": "l-bench", "exp": time.time() + 86400,
                                  "vgpus": [{"server": url, "uuid": uuid, "index": 0, "memory": 1 << 30,
                                             "compute": 100, "limit": 100}]}, SECRET.encode())

    def run(self, wire: str, *args) -> dict:
        from benchmarks.transport import Bench
        env = {**os.environ, "RGPU_SHM": "0", "LD_LIBRARY_PATH": str(libdir()),
               "RGPU_SERVER": self.curve if wire == "curve" else self.plain}
        if wire == "curve":
            env["RGPU_LEASE"] = self.token
        return Bench._run([str(self.exe), "rgpu", *map(str, args)], env)


@pytest.fixture(scope="module")
def bench():
    with DaemonSet() as daemons:
        yield CurveBench(daemons)


def _pair(benchmark, bench, args, key):
    got = alternately(benchmark, {"curve": lambda: bench.run("curve", *args),
                                  "plain": lambda: bench.run("plain", *args)}, key)
    return got["curve"], got["plain"]


def _record(benchmark, figures, name, value, plain, unit):
    figures[name] = {"rgpu": value, "raw": plain, "unit": unit}
    benchmark.extra_info.update(curve=value, plain=plain, unit=unit, ratio=value / plain if plain else None)


def test_sync_round_trip_curve(benchmark, bench, figures):
    value, plain = _pair(benchmark, bench, ("sync", 10000), "us")
    _record(benchmark, figures, "sync round trip curve", value, plain, "µs")


@pytest.mark.parametrize("direction", ["h2d", "d2h"])
@pytest.mark.parametrize("nbytes", CURVE_SIZES, ids=size_name)
def test_bandwidth_curve(benchmark, bench, figures, direction, nbytes):
    n = iterations(nbytes)
    value, plain = _pair(benchmark, bench, (direction, nbytes, n), "gbps")
    _record(benchmark, figures, f"{direction} {size_name(nbytes)} curve", value, plain, "GB/s")
