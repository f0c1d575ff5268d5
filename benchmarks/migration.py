"""Live migration and idle reclaim: the pause a program sees, the bytes moved, and
a plain copy of the same bytes in the same run (what moving the memory costs at least).

Two sim servers on this machine; a session (tests/support/session.py, the wire a client library
speaks) holds SIZE of device memory, filled with incompressible bytes (the worst case for the zstd
images), and is moved from one server to the other:

    idle   the program makes no call while it moves (a notebook between cells)
    busy   the program keeps writing BUSY_BYTES of it with memsets while it moves: pre-copy sends
           those pages again round after round, the stop-and-copy sends what changed last

For each: pause (the stop-and-copy, as the source measures it, plus the target's restore), the
pre-copy rounds and bytes, the bytes sent during the pause, and the wall time a client call took
across the move. The plain copy is one cudaMemcpy device-to-host of SIZE over the same wire (of
1 GiB, scaled, for larger sizes: this benchmark's client is Python). The memory is filled with one
random block doubled on the device, so that 8 and 32 GiB fill in seconds.
Idle reclaim: checkpoint time, image size, and the restore the next call pays.

    .venv/bin/python benchmarks/migration.py [--reclaim-only | --null] [SIZE_MiB ...]    (default 64 256)

The servers are of the test backend (RGPU_TEST_DEVICE); with --null, cuda servers on the null driver
(benchmarks/native/nulldriver.c: device memory is host memory), the migrations only: what the cuda
backend's own path costs (server/backends/cuda/placement.py), before a GPU's copies. On the cuda
backend --reclaim-only measures the driver's checkpoint of the worker's process
(server/backends/cuda/suspension.py) against the plain copy: scripts/gpu_check.sh's reclaim step.

Prints one JSON document per measurement and a table; the figures are of one run on a shared
machine (take the best of a few when they vary)."""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rgpu.client import server_client  # noqa: E402
from tests.conftest import server_argv  # noqa: E402
from tests.support.daemons import DaemonSet, free_url, wait_until  # noqa: E402
from tests.support.session import Session  # noqa: E402

MiB = 1 << 20
BUSY_BYTES = 8 * MiB


def ok(r):
    if r[0] != 0:
        raise RuntimeError(f"call failed: {r}")
    return r[1]


NULL = False  # --null: cuda servers on the null driver


def start(d: DaemonSet, memory: str, *extra: str) -> str:
    url = free_url()
    env = None
    if NULL:
        from benchmarks.native import run as native
        extra, env = ("--device", "cuda", *extra), {**os.environ, "RGPU_LIBCUDA": str(native.null_driver())}
    d.start(server_argv(url, "--sim-memory", memory, *extra), ready=lambda: server_client.ping(url), deadline_s=30,
            env=env)
    return url


BLOCK = 32 * MiB
PLAIN_MAX = 1024 * MiB  # the plain copy is of at most this much (then scaled): it crosses this Python client


def fill(s: Session, size: int) -> int:
    """SIZE of incompressible device memory: one random block sent, then doubled on the device
    (device-to-device copies), so that many GiB fill in a second. Each chunk a move sends is still
    random to zstd and to the digests (a chunk is 2 MiB, the block 32 MiB)."""
    (p,) = ok(s.call("cudaMalloc", size))
    n = min(BLOCK, size)
    ok(s.call("cudaMemcpy", p, 0, n, 1, bulk=[os.urandom(n)]))
    while n < size:
        m = min(n, size - n)
        ok(s.call("cudaMemcpy", p + n, p, m, 3))
        n += m
    return p


def plain_copy(s: Session, p: int, size: int) -> float:
    """One cudaMemcpy device-to-host of the session's memory over the same wire: of PLAIN_MAX at most,
    the time scaled to SIZE."""
    n = min(size, PLAIN_MAX)
    t0 = time.perf_counter()
    rc, _, bulk, _ = s.call("cudaMemcpy", 0, p, n, 2)
    assert rc == 0 and sum(len(f) for f in bulk) == n
    return (time.perf_counter() - t0) * size / n


def migrate(src: str, dst: str, s: Session, p: int, size: int, busy: bool) -> dict:
    sid = s.session
    r = server_client.request(src, {"op": "migrate", "session": sid, "to": f"{dst}#0"})
    assert r["ok"], r
    mid = r["migration"]["id"]
    calls, worst = 0, 0.0

    def state():
        return next(m for m in server_client.stats(src)["migrations"] if m["id"] == mid)

    if busy:
        # the program runs on: a memset at a time, so the source's loop stops between two of them
        while state()["state"] == "running":
            t0 = time.perf_counter()
            ok(s.call("cudaMemset", p + (calls % 4) * (BUSY_BYTES // 4), calls & 0xFF, BUSY_BYTES // 4))
            worst = max(worst, time.perf_counter() - t0)
            calls += 1
    m = wait_until(lambda: (x := state())["state"] != "running" and x, 120, "migration")
    assert m["state"] == "done", m
    t0 = time.perf_counter()
    ok(s.call("cudaMemGetInfo"))  # the first call after the move follows it to the target
    follow = time.perf_counter() - t0
    out = m["sessions"][sid]
    restored = [x for x in server_client.stats(dst)["sessions"] if x["state"] == "live"]
    return {"pause_ms": round(out["pause_s"] * 1000, 1), "precopy_rounds": out["precopy_rounds"],
            "precopy_MiB": round(out["precopy_bytes"] / MiB, 1), "final_MiB": round(out["final_bytes"] / MiB, 2),
            "wire_MiB": round(out["wire_bytes"] / MiB, 1), "precopy_s": out.get("precopy_s"),
            "follow_call_ms": round(follow * 1000, 1), "busy_calls": calls,
            "slowest_busy_call_ms": round(worst * 1000, 1), "sessions_on_target": len(restored)}


def reclaim(url: str, size: int) -> dict:
    s = Session(url)
    try:
        p = fill(s, size)
        wait_until(lambda: server_client.stats(url)["sessions"][0]["state"] == "reclaimed", 60, "reclaimed")
        st = server_client.stats(url)
        t0 = time.perf_counter()
        ok(s.call("cudaMemGetInfo"))
        first = time.perf_counter() - t0
        rec = server_client.stats(url)["sessions"][0]["reclaim"]
        copy = plain_copy(s, p, size)
        return {"reclaim_ms": round(rec["reclaim_s"] * 1000, 1), "image_MiB": round(rec["stored_bytes"] / MiB, 1),
                "restore_ms": round(rec["restore_s"] * 1000, 1), "first_call_ms": round(first * 1000, 1),
                "gpu_used_while_reclaimed": st["gpus"][0]["memory_used"], "plain_copy_ms": round(copy * 1000, 1)}
    finally:
        s.close()


def main(sizes: list[int], reclaim_only: bool = False) -> None:
    rows = []
    with DaemonSet() as d, tempfile.TemporaryDirectory() as tmp:
        mem = f"{max(sizes) * 2 + 64}MiB"
        a, b = (None, None) if reclaim_only else (start(d, mem), start(d, mem))
        r = None if NULL else start(d, mem, "--reclaim-after", "1", "--checkpoint-dir", str(Path(tmp) / "ckpt"))
        for size_mib in sizes:
            size = size_mib * MiB
            for busy in () if reclaim_only else (False, True):
                s = Session(a)
                try:
                    p = fill(s, size)
                    copy = plain_copy(s, p, size)
                    there = migrate(a, b, s, p, size, busy)
                    back = migrate(b, a, s, p, size, busy)
                finally:
                    s.close()
                for direction, fig in (("a->b", there), ("b->a", back)):
                    row = {"size_MiB": size_mib, "mode": "busy" if busy else "idle", "dir": direction,
                           "plain_copy_ms": round(copy * 1000, 1), **fig}
                    print(json.dumps(row), flush=True)
                    rows.append(row)
            if r is not None and size <= PLAIN_MAX:  # the driver's checkpoint holds it all in host memory
                row = {"size_MiB": size_mib, "mode": "reclaim", **reclaim(r, size)}
                print(json.dumps(row), flush=True)
                rows.append(row)
    print()
    print(f"{'size':>6} {'mode':>7} {'pause ms':>9} {'rounds':>6} {'pre MiB':>8} {'final MiB':>9} "
          f"{'plain copy ms':>13}")
    for row in rows:
        if row["mode"] == "reclaim":
            print(f"{row['size_MiB']:>6} {'reclaim':>7} {row['restore_ms']:>9} {'-':>6} {'-':>8} "
                  f"{row['image_MiB']:>9} {row['plain_copy_ms']:>13}   (checkpoint {row['reclaim_ms']} ms)")
        else:
            print(f"{row['size_MiB']:>6} {row['mode']:>7} {row['pause_ms']:>9} {row['precopy_rounds']:>6} "
                  f"{row['precopy_MiB']:>8} {row['final_MiB']:>9} {row['plain_copy_ms']:>13}")


if __name__ == "__main__":
    args = sys.argv[1:]
    only = "--reclaim-only" in args
    NULL = "--null" in args
    main([int(a) for a in args if not a.startswith("--")] or [64, 256], reclaim_only=only)
