"""Where a copy's bytes land (issue 37, bandwidth across hosts): rgpu's 64 MiB copies without shared
memory (RGPU_SHM=0: frames, in pieces, as from another host) over TCP loopback, beside three raw TCP
streams of the same bytes in the same run, alternately (netstream.py):

- `discard`: both ends one 1 MiB buffer hot in the cache — the kernel's and the link's limit, which
  no copy reaches, since a copy's destination is 64 MiB of memory;
- `store`: the kernel's receive straight into the 64 MiB destination (one pass: what a data socket
  received into device memory would do);
- `bounce`: each 1 MiB received into a hot buffer and then copied into the destination (two passes:
  what rgpu does, ZeroMQ's message buffer and then the device's memory).

Whether a data socket beside ZeroMQ would speed copies up is the question `store` against `bounce`
answers on the machine at hand: where the second pass is cheaper than the kernel writing memory not
in the cache, it would not (benchmarks/results/landing-2026-12-05.md). Beside them, `cuda`: the same
copy through the backend users deploy, on the null driver (its device copy a memcpy into the worker's
page-locked stage: server/backends/cuda/host_stage.py). Writes benchmarks/out/landing.md.

    .venv/bin/python -m pytest benchmarks/test_landing.py -p no:xdist"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from benchmarks.transport import OUT, Bench, alternately, libdir
from tests.support import null_server
from tests.support.daemons import DaemonSet, free_port

HERE = OUT.parent
COPY, N = 64 << 20, 8
ROWS: dict[str, dict] = {}


@pytest.fixture(scope="module")
def ends():
    """(rgpu's harness against a sim server, the raw stream's port, a null-driver server's URL) on loopback."""
    with DaemonSet() as daemons:
        bench = Bench("tcp", daemons)
        cuda_url, _ = null_server.start(daemons, "--log-level", "warning")
        port = free_port()
        stream = subprocess.Popen([sys.executable, str(HERE / "netstream.py"), "serve", str(port), "127.0.0.1"],
                                  stdout=subprocess.PIPE, text=True)
        try:
            assert stream.stdout.readline().strip() == "ready", "the raw stream's server did not start"
            yield bench, port, cuda_url
        finally:
            stream.kill()
            stream.wait(10)
            bench.close()
    _write()


def _stream(port: int, way: str, mode: str) -> dict:
    p = subprocess.run([sys.executable, str(HERE / "netstream.py"), way, "127.0.0.1", str(port), str(COPY), str(N),
                        mode], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("what", ["h2d", "d2h"])
def test_where_a_copys_bytes_land(benchmark, ends, what):
    bench, port, cuda_url = ends
    way = "up" if what == "h2d" else "down"
    cuda_env = {**os.environ, "RGPU_SERVER": cuda_url, "RGPU_SHM": "0", "LD_LIBRARY_PATH": str(libdir())}
    cuda_argv = [str(bench.exe), "rgpu", what, str(COPY), str(N)]
    got = alternately(benchmark, {"rgpu": lambda: bench.rgpu(what, COPY, N),
                                  "cuda": lambda: Bench._run(cuda_argv, cuda_env),
                                  **{mode: (lambda m=mode: _stream(port, way, m)) for mode in ("discard", "store", "bounce")}},
                      "gbps")
    assert all(v > 0 for v in got.values()), got
    ROWS[what] = got
    benchmark.extra_info.update(unit="GB/s", **got)


def _write() -> None:
    if not ROWS:
        return
    lines = ["| copy (64 MiB, TCP loopback, frames) | rgpu (sim) | cuda backend | discard stream | store stream "
             "| bounce stream | rgpu / discard | rgpu / store | rgpu / bounce | cuda / store | bounce / store |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for what, g in ROWS.items():
        lines.append(f"| {what} | {g['rgpu']:.2f} GB/s | {g['cuda']:.2f} | {g['discard']:.2f} | {g['store']:.2f} "
                     f"| {g['bounce']:.2f} | {g['rgpu'] / g['discard']:.2f}× | {g['rgpu'] / g['store']:.2f}× "
                     f"| {g['rgpu'] / g['bounce']:.2f}× | {g['cuda'] / g['store']:.2f}× "
                     f"| {g['bounce'] / g['store']:.2f}× |")
    OUT.mkdir(exist_ok=True)
    (OUT / "landing.md").write_text("\n".join(lines) + "\n")
