"""rgpu's data path against the machine's own round trips (issue 38), in one run: the baselines are C
programs this benchmark builds (benchmarks/harness/baselines.c) — two processes ping-ponging a counter
through shared memory (spinning, then blocking on a futex, as a call ring would) and a C ZeroMQ REQ/REP
round trip over tcp loopback and ipc, and the null driver's own cuMemAlloc + cuMemFree called in one
process (the floor under an allocation's round trips) — and rgpu's figures are the harness (benchmarks/harness/bench.c)
through librgpu against rgpu-server's cuda backend on the null driver (benchmarks/native/nulldriver.c:
a driver that does no GPU work, so what is measured is rgpu's own path, on any host).

Configurations, each run once per round in turn (transport.ROUNDS rounds, best of each):
  same host      RGPU_SHM=1 (the session segment, and the call ring in it unless RGPU_RING=0)
  ring off       RGPU_SHM=1 RGPU_RING=0 (calls on ZeroMQ, bulk data through the segment)
  across TCP     RGPU_SHM=0 (what a client on another host gets, here over loopback)
  both block     the round trip alone, ring on and off, with neither end spinning (RGPU_SPIN_US=0 and a
                 second server with --spin-us 0): the futex's wake-ups against ZeroMQ's, beside the
                 ping-pong that blocks at once too, placed by the kernel, on one CPU and on two: a
                 wake-up on another CPU costs what the machine takes to wake it (on this VM about
                 20 µs each way, 4 µs a round trip on one CPU against 39-47 on two), and the kernel
                 puts the two ends on one CPU or on two from run to run

The issue's goals, printed beside each figure (benchmarks report; they do not fail):
  same-host sync round trip ≤ 2 × shm ping-pong + 2 µs; across TCP ≤ 1.15 × C ZeroMQ tcp;
  launch + synchronize and D2H 4 KiB ≤ sync + 3 µs; malloc + free ≤ 2 × sync; async launches ≥ 1 M/s.
malloc + free is measured twice: as programs get it (the client places the allocation, sent without a
wait, and the free is the pair's one round trip) and with the worker choosing (RGPU_PLACE=0, two).
Beside them, with no goals of their own: a step of a memset, a device-to-device copy, a launch and a
synchronize in one message, and a framework's step (a batch in from pinned memory, a kernel, the
result out to pinned memory, a synchronize), each the compiled loop's whole; the same step with its
input in pageable memory (the async copy's data in the ring's record, in a frame on the socket), at 4 KiB
and at 1.5 MiB (a DataLoader's batch: in pieces, each a ring record); and a step of managed memory (the host
writes it, a kernel, a synchronize, the host reads it: its coherence's push and pull around the step).
Writes benchmarks/out/data_path.md and .json."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from benchmarks.native.run import null_driver
from benchmarks.transport import OUT, ROUNDS, build_harness, zmq_flags
from rgpu.client.server_client import ping
from rgpu.paths import client_env, libdir
from tests.support.daemons import DaemonSet, free_url

HERE = Path(__file__).resolve().parent
SPIN_US = 200  # the client's and the worker's default spin before blocking (RGPU_SPIN_US, --spin-us)
N = {"ssync": 3000, "launch_sync": 2000, "malloc_free": 1000, "launch": 200000, "d2h": 2000, "managed": 1000,
     "clear_copy_launch_sync": 2000, "pinned_step": 2000, "kernel_d2h": 2000, "pageable_step": 2000,
     "pageable_batch": 300}
BATCH = 1536 << 10  # the pageable batch step's input: 128 CIFAR images of 3 x 32 x 32 float32
# On the call ring a round trip is a microsecond or two: 3,000 of them are over in a few milliseconds,
# shorter than the kernel takes to part two processes that ping-pong on one CPU (it woke the worker on
# the client's CPU at the attach, and tasks that ran microseconds ago are cache-hot, not moved at the
# first balancing), so such a run measured where the scheduler happened to put the two processes
# (1.2-1.3 or 3.7 µs, run to run). The ring's loops run as long as the ping-pong baseline's (200,000
# round trips) does: the steady state a program that synchronises in a loop sees.
# Async launches run 200,000 in every configuration for the same reason: 20,000 (17 ms) gave 0.89 to
# 1.15 M/s run to run on a quiet machine, 200,000 gave 1.15-1.25 every time.
N_RING = {"ssync": 200000, "launch_sync": 100000, "d2h": 100000, "malloc_free": 30000, "managed": 30000,
          "clear_copy_launch_sync": 100000, "pinned_step": 100000, "kernel_d2h": 100000, "pageable_step": 30000}


def build_baselines() -> Path:
    exe = OUT / "baselines"
    src = HERE / "harness" / "baselines.c"
    OUT.mkdir(exist_ok=True)
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        subprocess.run(["gcc", "-O2", "-Wall", "-o", str(exe), str(src), *zmq_flags(libdir()), "-ldl",
                        f"-Wl,-rpath,{libdir()}"], check=True)
    return exe


def _json(argv, env=None) -> dict:
    p = subprocess.run([str(a) for a in argv], env=env, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, argv))} failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def null_servers():
    """Two rgpu-servers, cuda backend, on the null driver: their URLs, the default one and one whose
    workers block at once (--spin-us 0)."""
    with DaemonSet() as daemons:
        env = {**os.environ, "RGPU_LIBCUDA": str(null_driver())}
        urls = []
        for extra in ([], ["--spin-us", "0"]):
            url = free_url()
            daemons.start([sys.executable, "-m", "rgpu.server.cli", "--device", "cuda", "--listen", url,
                           "--log-level", "warning", *extra], ready=lambda u=url: ping(u), deadline_s=60, env=env)
            urls.append(url)
        yield urls


def rgpu_rows(harness: Path, url: str, **env_over: str) -> dict:
    env = {**client_env([url], preload=False), **env_over}
    n = {**N, **N_RING} if env_over.get("RGPU_SHM") == "1" and env_over.get("RGPU_RING") != "0" else N
    out = {}
    for key, mode in (("sync_us", "ssync"), ("launch_sync_us", "launch_sync"), ("malloc_free_us", "malloc_free"),
                      ("clear_copy_launch_sync_us", "clear_copy_launch_sync"), ("pinned_step_us", "pinned_step"),
                      ("kernel_d2h_us", "kernel_d2h"), ("pageable_step_us", "pageable_step")):
        out[key] = _json([harness, "rgpu", mode, n[mode]], env)["us"]
    out["d2h_4k_us"] = 4096 / (_json([harness, "rgpu", "d2h", 4096, n["d2h"]], env)["gbps"] * 1e9) * 1e6
    out["launch_rate_k"] = _json([harness, "rgpu", "launch", N["launch"]], env)["rate"] / 1e3
    out["managed_us"] = _json([harness, "rgpu", "managed", n["managed"]], env)["us"]
    # a DataLoader's batch of 1.5 MiB, unpinned (on the same host: in pieces a ring record holds)
    out["pageable_batch_us"] = _json([harness, "rgpu", "pageable_step", N["pageable_batch"], BATCH], env)["us"]
    # the same pair with the worker choosing every address (a round trip per cudaMalloc: RGPU_PLACE=0)
    out["malloc_free_chosen_us"] = _json([harness, "rgpu", "malloc_free", n["malloc_free"]],
                                         {**env, "RGPU_PLACE": "0"})["us"]
    return out


def sync_only(harness: Path, url: str, **env_over: str) -> dict:
    env = {**client_env([url], preload=False), **env_over}
    return {"sync_us": _json([harness, "rgpu", "ssync", N["ssync"]], env)["us"]}


def _best(runs: list[dict]) -> dict:
    out = {}
    for r in runs:
        for k, v in r.items():
            better = max if k.endswith("_k") else min
            out[k] = better(out[k], v) if k in out else v
    return out


def table(res: dict) -> str:
    ring, off, tcp, base = res["same_host"], res["ring_off"], res["across_tcp"], res["baselines"]
    pp, ztcp, zipc = base["shm_pingpong_us"], base["zmq_tcp_us"], base["zmq_ipc_us"]

    def us(v):
        return f"{v:,.2f} µs"

    def goal(v, limit, text):
        return f"{text} ({'met' if v <= limit else 'not met'})"

    lines = [f"cuda backend on the null driver, {os.uname().nodename}, best of {res['rounds']} rounds",
             "",
             "| baseline (C, built by this benchmark) | round trip |", "|---|---|",
             f"| shared-memory ping-pong, two processes (spin {SPIN_US} µs, then futex) | {us(pp)} |",
             f"| ZeroMQ REQ/REP, tcp loopback | {us(ztcp)} |",
             f"| ZeroMQ REQ/REP, ipc | {us(zipc)} |",
             f"| the null driver's cuMemAlloc 1 MiB + cuMemFree, in one process (no transport) | "
             f"{us(base['driver_alloc_us'])} |",
             "",
             "| rgpu | same host | ring off (`RGPU_RING=0`) | across TCP (`RGPU_SHM=0`) | goal (same host) |",
             "|---|---|---|---|---|"]
    s = ring["sync_us"]
    lines.append(f"| cudaStreamSynchronize round trip | {us(s)} | {us(off['sync_us'])} | {us(tcp['sync_us'])} | "
                 + goal(s, 2 * pp + 2, f"≤ 2 × ping-pong + 2 µs = {2 * pp + 2:.2f} µs: {s / (2 * pp + 2):.1f}×") + " |")
    for key, label in (("launch_sync_us", "launch + synchronize"), ("d2h_4k_us", "D2H 4 KiB")):
        v = ring[key]
        lines.append(f"| {label} | {us(v)} | {us(off[key])} | {us(tcp[key])} | "
                     + goal(v, s + 3, f"≤ sync + 3 µs = {s + 3:.2f} µs") + " |")
    v = ring["malloc_free_us"]
    lines.append(f"| cudaMalloc + cudaFree 1 MiB | {us(v)} | {us(off['malloc_free_us'])} | {us(tcp['malloc_free_us'])} | "
                 + goal(v, 2 * s, f"≤ 2 × sync = {2 * s:.2f} µs; the driver alone "
                                  f"{base['driver_alloc_us']:.2f}: {v - base['driver_alloc_us']:.2f} µs over it") + " |")
    lines.append(f"| the same, the worker choosing each address (`RGPU_PLACE=0`) | {us(ring['malloc_free_chosen_us'])} | "
                 f"{us(off['malloc_free_chosen_us'])} | {us(tcp['malloc_free_chosen_us'])} | "
                 "(the client places its allocations by default: libhook/src/memory/placed.c) |")
    r = ring["launch_rate_k"]
    lines.append(f"| async launches | {r:,.1f} k/s | {off['launch_rate_k']:,.1f} k/s | {tcp['launch_rate_k']:,.1f} k/s | "
                 f"≥ 1,000 k/s ({'met' if r >= 1000 else 'not met'}: {r / 1000:.2f}×) |")
    lines.append(f"| memset + D2D copy + launch + synchronize, one message | {us(ring['clear_copy_launch_sync_us'])} | "
                 f"{us(off['clear_copy_launch_sync_us'])} | {us(tcp['clear_copy_launch_sync_us'])} | "
                 "(no goal: a step the compiled loop serves whole) |")
    lines.append(f"| pinned H2D 4 KiB + launch + pinned D2H 4 KiB + synchronize (a framework's step) | "
                 f"{us(ring['pinned_step_us'])} | {us(off['pinned_step_us'])} | {us(tcp['pinned_step_us'])} | "
                 "(no goal: a step the compiled loop serves whole) |")
    lines.append(f"| memset + launch + cudaMemcpy D2H 4 KiB to pageable memory (a plain program's step) | "
                 f"{us(ring['kernel_d2h_us'])} | {us(off['kernel_d2h_us'])} | {us(tcp['kernel_d2h_us'])} | "
                 "(no goal: a step the compiled loop serves whole, its copy once the device is idle) |")
    lines.append(f"| pageable H2D 4 KiB async + launch + synchronize (a framework's step, input not pinned) | "
                 f"{us(ring['pageable_step_us'])} | {us(off['pageable_step_us'])} | {us(tcp['pageable_step_us'])} | "
                 "(no goal: the copy's data in the ring's record, a frame on the socket; the compiled loop's) |")
    lines.append(f"| pageable H2D 1.5 MiB async + launch + synchronize (a DataLoader's batch, not pinned) | "
                 f"{us(ring['pageable_batch_us'])} | {us(off['pageable_batch_us'])} | {us(tcp['pageable_batch_us'])} | "
                 "(no goal: on the same host in pieces of 240 KiB, each a ring record; else frames on the socket) |")
    lines.append(f"| managed memory: host write, launch, synchronize, host read | {us(ring['managed_us'])} | "
                 f"{us(off['managed_us'])} | {us(tcp['managed_us'])} | (no goal: the push, the step and the pull) |")
    t = tcp["sync_us"]
    blk = res["blocking"]
    lines += ["", "| both ends block at once (`RGPU_SPIN_US=0`, `--spin-us 0`) | round trip |", "|---|---|",
              f"| shared-memory ping-pong, futex at once, where the kernel puts them | {us(base['shm_pingpong_block_us'])} |",
              f"| the same, both on one CPU (a wake-up on the waker's CPU) | {us(base['shm_pingpong_block_one_us'])} |",
              f"| the same, on two CPUs (each wake-up another CPU's) | {us(base['shm_pingpong_block_two_us'])} |",
              f"| rgpu sync, same host (ring) | {us(blk['sync_us'])} |",
              f"| rgpu sync, ring off | {us(blk['sync_ring_off_us'])} |"]
    lines += ["", "| across TCP | rgpu (`RGPU_SHM=0`) | C ZeroMQ tcp | ratio (goal ≤ 1.15) |", "|---|---|---|---|",
              f"| sync round trip | {us(t)} | {us(ztcp)} | {t / ztcp:.2f}× ({'met' if t <= 1.15 * ztcp else 'not met'}) |",
              "", "| same host, ring on against off | on | off | off / on |", "|---|---|---|---|"]
    for key, label in (("sync_us", "sync round trip"), ("launch_sync_us", "launch + synchronize"),
                       ("d2h_4k_us", "D2H 4 KiB"), ("malloc_free_us", "malloc + free"),
                       ("managed_us", "managed memory step"), ("pageable_batch_us", "pageable 1.5 MiB step")):
        lines.append(f"| {label} | {us(ring[key])} | {us(off[key])} | {off[key] / ring[key]:.2f}× |")
    return "\n".join(lines)


def test_data_path_against_machine_round_trips(benchmark, null_servers, figures):
    harness, baselines = build_harness(), build_baselines()
    null_server, blocking_server = null_servers
    ipc = Path(tempfile.mkdtemp(prefix="rgpu-bl-")) / "rep"
    runs: dict[str, list] = {"baselines": [], "same_host": [], "ring_off": [], "across_tcp": [], "blocking": []}

    def once():
        for _ in range(ROUNDS):
            runs["baselines"].append({
                "shm_pingpong_us": _json([baselines, "shm", 200000, SPIN_US])["us"],
                "shm_pingpong_block_us": _json([baselines, "shm", 20000, 0])["us"],
                "shm_pingpong_block_one_us": _json([baselines, "shm", 20000, 0, "one"])["us"],
                "shm_pingpong_block_two_us": _json([baselines, "shm", 20000, 0, "two"])["us"],
                "zmq_tcp_us": _json([baselines, "zmq", "tcp://127.0.0.1:*", 5000])["us"],
                "zmq_ipc_us": _json([baselines, "zmq", f"ipc://{ipc}", 5000])["us"],
                "driver_alloc_us": _json([baselines, "driver", null_driver(), 30000])["us"]})
            runs["blocking"].append({
                "sync_us": sync_only(harness, blocking_server, RGPU_SHM="1", RGPU_SPIN_US="0")["sync_us"],
                "sync_ring_off_us": sync_only(harness, blocking_server, RGPU_SHM="1", RGPU_RING="0",
                                              RGPU_SPIN_US="0")["sync_us"]})
            runs["same_host"].append(rgpu_rows(harness, null_server, RGPU_SHM="1"))
            runs["ring_off"].append(rgpu_rows(harness, null_server, RGPU_SHM="1", RGPU_RING="0"))
            runs["across_tcp"].append(rgpu_rows(harness, null_server, RGPU_SHM="0"))
    benchmark.pedantic(once, rounds=1, iterations=1)
    res = {name: _best(r) for name, r in runs.items()} | {"rounds": ROUNDS}
    text = table(res)
    (OUT / "data_path.json").write_text(json.dumps(res, indent=2) + "\n")
    (OUT / "data_path.md").write_text(text + "\n")
    print("\n" + text)
    benchmark.extra_info.update(res)
    figures["sync same host vs shm ping-pong"] = {"rgpu": res["same_host"]["sync_us"],
                                                  "raw": res["baselines"]["shm_pingpong_us"], "unit": "µs"}
    figures["sync across tcp vs C zmq"] = {"rgpu": res["across_tcp"]["sync_us"],
                                           "raw": res["baselines"]["zmq_tcp_us"], "unit": "µs"}
