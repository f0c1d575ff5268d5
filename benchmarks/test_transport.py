"""rgpu's data path against raw ZeroMQ: sync round trip, async call rate, H2D/D2H bandwidth from
4 KiB to 256 MiB, over tcp://127.0.0.1, ipc:// and the same-host shared-memory path.

Each benchmark runs its rgpu and raw-baseline measurements alternately (transport.ROUNDS rounds,
best of each) and records both in extra_info and in the run's table (benchmarks/conftest.py).
Ratios: latency rgpu/raw (goal ≤ 1.3; an attribute query, which makes no round trip, ≤ 1 µs); rate and bandwidth rgpu/raw (goals ≥ 0.5, ≥ 0.9 at ≥ 1 MiB);
shm/tcp bandwidth at 64 MiB (goal ≥ 3)."""
from __future__ import annotations

import pytest

from benchmarks.transport import SIZES, MiB, Bench, alternately, iterations, size_name
from tests.support.daemons import DaemonSet


@pytest.fixture(scope="module", params=["tcp", "ipc"])
def bench(request):
    with DaemonSet() as daemons:
        b = Bench(request.param, daemons)
        try:
            yield b
        finally:
            b.close()


def _record(benchmark, figures, name, rgpu, raw, unit):
    figures[name] = {"rgpu": rgpu, "raw": raw, "unit": unit}
    benchmark.extra_info.update(rgpu=rgpu, raw=raw, unit=unit, ratio=(rgpu / raw) if raw else None)


def _pair(benchmark, bench, rgpu_args, raw_args, key, shm=False):
    got = alternately(benchmark, {"rgpu": lambda: bench.rgpu(*rgpu_args, shm=shm),
                                  "raw": lambda: bench.baseline(*raw_args)}, key)
    return got["rgpu"], got["raw"]


def test_sync_round_trip(benchmark, bench, figures):
    rgpu, raw = _pair(benchmark, bench, ("sync", 10000), ("sync", 10000), "us")
    _record(benchmark, figures, f"sync round trip {bench.transport}", rgpu, raw, "µs")


def test_async_memsets(benchmark, bench, figures):
    rgpu, raw = _pair(benchmark, bench, ("async", 200000), ("async", 200000), "rate")
    _record(benchmark, figures, f"async memsets {bench.transport}", rgpu / 1e3, raw / 1e3, "k calls/s")


def test_async_launches(benchmark, bench, figures):
    rgpu, raw = _pair(benchmark, bench, ("launch", 5000), ("async", 200000), "rate")
    _record(benchmark, figures, f"async launches {bench.transport}", rgpu / 1e3, raw / 1e3, "k calls/s")


def test_default_kind_copies(benchmark, bench, figures):
    """Device-to-device copies whose kind comes from the pointers (cudaMemcpyDefault): the client's
    table of allocations answers where each pointer is (rgpu), against asking the server for each
    (RGPU_ALLOC_TABLE=0, in extra_info) and the raw async message rate."""
    got = alternately(benchmark, {"table": lambda: bench.rgpu("default", 20000),
                                  "asking": lambda: bench.rgpu("default", 2000, RGPU_ALLOC_TABLE="0"),
                                  "raw": lambda: bench.baseline("async", 200000)}, "rate")
    figures[f"default-kind copies {bench.transport}"] = {"rgpu": got["table"] / 1e3, "raw": got["raw"] / 1e3,
                                                        "unit": "k calls/s"}
    benchmark.extra_info.update(table=got["table"], asking=got["asking"], raw=got["raw"], unit="copies/s",
                                table_vs_asking=got["table"] / got["asking"])


def test_attribute_query(benchmark, bench, figures):
    """A device fact (the multiprocessor count) against the raw round trip it no longer costs."""
    rgpu, raw = _pair(benchmark, bench, ("attr", 200000), ("sync", 10000), "us")
    _record(benchmark, figures, f"attribute query {bench.transport}", rgpu, raw, "µs")


@pytest.mark.parametrize("direction", ["h2d", "d2h"])
@pytest.mark.parametrize("nbytes", SIZES, ids=size_name)
def test_bandwidth(benchmark, bench, figures, direction, nbytes):
    n = iterations(nbytes)
    rgpu, raw = _pair(benchmark, bench, (direction, nbytes, n), (direction, nbytes, n), "gbps")
    _record(benchmark, figures, f"{direction} {size_name(nbytes)} {bench.transport}", rgpu, raw, "GB/s")


@pytest.mark.parametrize("bench", ["tcp"], indirect=True)  # measured once, beside tcp
@pytest.mark.parametrize("direction", ["h2d", "d2h"])
@pytest.mark.parametrize("nbytes", SIZES, ids=size_name)
def test_bandwidth_shm(benchmark, bench, figures, direction, nbytes):
    """The same-host path: the client and the server share memory; the baseline stays raw TCP."""
    n = iterations(nbytes)
    rgpu, raw = _pair(benchmark, bench, (direction, nbytes, n), (direction, nbytes, n), "gbps", shm=True)
    _record(benchmark, figures, f"{direction} {size_name(nbytes)} shm", rgpu, raw, "GB/s")


@pytest.mark.parametrize("bench", ["tcp"], indirect=True)
@pytest.mark.parametrize("direction", ["h2d", "d2h"])
@pytest.mark.parametrize("nbytes", [4 * MiB, 16 * MiB, 64 * MiB], ids=size_name)
def test_bandwidth_pieces(benchmark, bench, figures, direction, nbytes):
    """Copies in pieces (server/pieces.py), the path across hosts, beside the same copies whole
    (RGPU_PIECES=0) and the raw transport, alternately in one run. Recorded as "DIR SIZE pieces" with
    rgpu = in pieces, raw = the raw transport; whole in extra_info."""
    n = iterations(nbytes)
    got = alternately(benchmark, {"pieces": lambda: bench.rgpu(direction, nbytes, n),
                                  "whole": lambda: bench.rgpu(direction, nbytes, n, RGPU_PIECES="0"),
                                  "raw": lambda: bench.baseline(direction, nbytes, n)}, "gbps")
    pieces, whole, raw = got["pieces"], got["whole"], got["raw"]
    figures[f"{direction} {size_name(nbytes)} pieces"] = {"rgpu": pieces, "raw": raw, "unit": "GB/s"}
    benchmark.extra_info.update(pieces=pieces, whole=whole, raw=raw, unit="GB/s",
                                pieces_vs_raw=pieces / raw, whole_vs_raw=whole / raw)
