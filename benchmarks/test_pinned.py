"""Pinned against pageable host memory through rgpu on the same host (issue 14): cudaMemcpy from and to
cudaMallocHost memory, which the worker maps (the copy names it, no data moves; server/pinned.py),
beside the same copies from malloc'd memory (staged through the session's shared segment) and the
raw transport's bandwidth (bare ZeroMQ over TCP loopback), in one run, alternately, best of
transport.ROUNDS rounds each. Recorded as "DIR SIZE pinned" with rgpu = pinned, raw = pageable (the
ratio is what pinning buys), and the raw transport in extra_info."""
from __future__ import annotations

import pytest

from benchmarks.transport import Bench, alternately, iterations, size_name
from tests.support.daemons import DaemonSet

SIZES = [1 << 20, 16 << 20, 64 << 20]


@pytest.fixture(scope="module")
def bench():
    with DaemonSet() as daemons:
        b = Bench("tcp", daemons)
        try:
            yield b
        finally:
            b.close()


@pytest.mark.parametrize("direction", ["h2d", "d2h"])
@pytest.mark.parametrize("nbytes", SIZES, ids=size_name)
def test_pinned_vs_pageable(benchmark, bench, figures, direction, nbytes):
    n = iterations(nbytes)
    got = alternately(benchmark, {"pinned": lambda: bench.rgpu(f"{direction}_pinned", nbytes, n, shm=True),
                                  "pageable": lambda: bench.rgpu(direction, nbytes, n, shm=True),
                                  "raw": lambda: bench.baseline(direction, nbytes, n)}, "gbps")
    pinned, pageable, raw = got["pinned"], got["pageable"], got["raw"]
    figures[f"{direction} {size_name(nbytes)} pinned"] = {"rgpu": pinned, "raw": pageable, "unit": "GB/s"}
    benchmark.extra_info.update(pinned=pinned, pageable=pageable, raw_tcp=raw, unit="GB/s",
                                pinned_vs_pageable=pinned / pageable, pinned_vs_raw=pinned / raw)
