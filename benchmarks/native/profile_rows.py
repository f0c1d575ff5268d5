"""Where each row of the native table spends its time in the session worker: runs the runner once
per row group with the worker profiled (RGPU_WORKER_PROFILE), then prints, for the same-host (shm)
session of each, the messages served, the time serving them against the time waiting for the next
one (the client's and the transport's share), and the worker's main stages by cumulative time.

    .venv/bin/python -m benchmarks.native.profile_rows [--device auto|cuda|sim|null] [--out DIR] [--group ROW]...

--group ROW: only the groups holding that row (e.g. h2d_pinned_gbps; a lent GPU's minutes).

Profiles stay in DIR (default a temporary directory) for pstats; the summary goes to stdout."""
from __future__ import annotations

import argparse
import glob
import os
import pstats
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.native.run import NOT_ON_NULL

GROUPS = ["sync_rtt_us", "launch_rate_k", "launch_sync_us", "h2d_pinned_gbps,d2h_pinned_gbps",
          "h2d_pageable_gbps,d2h_pageable_gbps", "d2h_4k_us", "malloc_free_us", "axpy_ms"]
# (file, function, what it is): the worker's stages, by cumulative time
STAGES = [("socket.py", "send", "reply send"), ("socket.py", "send_multipart", "reply send (frames)"),
          ("wire.py", "decode_calls", "decode"), ("dispatch.py", "run", "dispatch (handlers included)"),
          ("staging.py", "run_pinned", "pinned copy (mapping + copy)"),
          ("staging.py", "run_shm", "staged copy (session segment)"),
          ("staging.py", "run_staged", "pipelined staged copy"),
          ("memory.py", "write", "sim: write device memory"), ("device.py", "copy_dtoh_host", "D2H into a mapping"),
          ("device.py", "copy_htod_host", "H2D from a mapping"), ("shm.py", "put", "D2H into the segment"),
          ("kernels.py", "launch", "sim: launch"), ("device.py", "launch", "launch"),
          ("launches.py", "run", "cuda: compiled launch loop"),
          ("launches.py", "step", "cuda: compiled step"),
          ("launches.py", "wait_alone", "cuda: compiled wait, alone"), ("launches.py", "wait", "cuda: compiled wait"),
          ("session.py", "settle", "settle"), ("sched.py", "acquire", "scheduler: take the GPU"),
          ("sched.py", "release", "scheduler: give it back"), ("workers.py", "reserve", "quota accounting")]


def summary(path: str) -> str | None:
    st = pstats.Stats(path)
    if not any(k[0].endswith("shm.py") and k[2] == "attach" for k in st.stats):
        return None  # the RGPU_SHM=0 session
    serve = [v for k, v in st.stats.items() if k[0].endswith("worker.py") and k[2] == "_serve"]
    # The loop receives with pyzmq's compiled Socket.recv and polls with getsockopt, which cProfile does
    # not see: the wait for the client (blocked or spinning) is the loop's wall time (the worker writes
    # it beside the profile) less the time the profile saw.
    recv = max(0.0, float(Path(f"{path}.wall").read_text()) - st.total_tt)
    msgs, serving = (serve[0][1], serve[0][3]) if serve else (0, 0.0)
    lines = [f"{msgs} messages: serving {1e3 * serving:.1f} ms, waiting for the client (receive, spin) "
             f"{1e3 * recv:.1f} ms"]
    for fn, name, label in STAGES:
        hits = [v for k, v in st.stats.items() if k[0].endswith(fn) and k[2] == name]
        calls, cum = sum(v[1] for v in hits), sum(v[3] for v in hits)
        if cum >= 5e-4:
            lines.append(f"  {label:32s} {1e3 * cum:9.1f} ms {calls:7d} calls {1e6 * cum / max(calls, 1):9.1f} µs/call")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", choices=["auto", "cuda", "sim", "null"], default="auto")
    ap.add_argument("--out", default="")
    ap.add_argument("--group", action="append", default=[], metavar="ROW",
                    help="only the groups holding this row (repeatable)")
    a = ap.parse_args(argv)
    unknown = [r for r in a.group if not any(r in g.split(",") for g in GROUPS)]
    if unknown:
        ap.error(f"no group holds {', '.join(unknown)} (the rows: {', '.join(GROUPS)})")
    out = Path(a.out or tempfile.mkdtemp(prefix="rgpu-rows-"))
    for group in GROUPS:
        if a.device == "null" and group in NOT_ON_NULL:
            continue
        if a.group and not set(a.group) & set(group.split(",")):
            continue
        d = out / group.split(",")[0]
        d.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "benchmarks.native.run", "--device", a.device, "--rounds", "1",
                        "--no-raw", "--no-write", "--rows", group, "--profile", str(d / "worker")], check=True,
                       stdout=subprocess.DEVNULL, cwd=Path(__file__).resolve().parents[2])
        for f in sorted(glob.glob(str(d / "worker.*[0-9]")), key=os.path.getmtime):
            text = summary(f)
            if text:
                print(f"== {group}: {text}")
    print(f"\nprofiles: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
