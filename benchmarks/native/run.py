"""Native speed: benchmarks/native/native_bench.cu run natively (when this host has a GPU) and through
rgpu on the same host in the same run — with the same-host shared-memory path and without it
(RGPU_SHM=0), with the pageable copies not pipelined (RGPU_SHM_PIPELINE=0) and with the client copying
them in one thread (RGPU_COPY_THREADS=1, against its default), and on a GPU with a second
server that launches kernels through Python instead of the cuda backend's compiled loop
(RGPU_FAST_LAUNCH=0), and with both ends blocking for their replies and messages at once
(RGPU_SPIN_US=0, --spin-us 0) — beside the raw transport's round trip and one-way message rate (benchmarks/harness,
against its bare C ROUTER, `bench rawserve`), so every ratio compares figures taken minutes apart on one machine.

    .venv/bin/python -m benchmarks.native.run [--device auto|cuda|sim|null] [--rows a,b] [--rounds N]
                                              [--profile PREFIX] [--no-raw] [--baseline LIBDIR]
                                              [--kernel-us N]

--device auto: cuda when NVML sees a GPU, else sim (no native column then: the software GPU has no
native counterpart; its figures are set against the raw transport). --device null: the cuda backend
on a driver that does no GPU work (nulldriver.c), on any host: what rgpu's own path to the driver costs
per row, the rows a real GPU would add its time to (no axpy row: its kernels do not run); with
--kernel-us N each kernel takes N µs there, so a wait right after a launch finds the stream busy, as on a GPU. --profile cProfiles the session
workers of the rgpu runs to PREFIX.PID (where each row's time goes). Prints the table and writes
benchmarks/out/native.json and benchmarks/out/native.md. --baseline LIBDIR adds a column: the same
server with another build of the client library (a librgpu.so of an earlier commit, built with
libhook/build.sh), for before/after figures in one run."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rgpu.client.server_client import ping  # noqa: E402
from rgpu.paths import client_env  # noqa: E402
from tests.support import cudabuild  # noqa: E402
from tests.support.daemons import DaemonSet, free_url  # noqa: E402

HERE = Path(__file__).resolve().parent
OUT = ROOT / "benchmarks" / "out"
# (key, label, unit, better): "low" for times, "high" for rates and bandwidths.
ROWS = [
    ("sync_rtt_us", "cudaStreamSynchronize round trip", "µs", "low"),
    ("attribute_us", "cudaDeviceGetAttribute", "µs", "low"),
    ("launch_rate_k", "empty-kernel launches (async)", "k/s", "high"),
    ("launch_sync_us", "launch + synchronize", "µs", "low"),
    ("graph_launch_us", "CUDA graph of 20 kernels + synchronize", "µs", "low"),
    ("h2d_pinned_gbps", "H2D pinned", "GB/s", "high"),
    ("d2h_pinned_gbps", "D2H pinned", "GB/s", "high"),
    ("h2d_pageable_gbps", "H2D pageable", "GB/s", "high"),
    ("d2h_pageable_gbps", "D2H pageable", "GB/s", "high"),
    ("d2h_4k_us", "D2H 4 KiB", "µs", "low"),
    ("malloc_free_us", "cudaMalloc + cudaFree 1 MiB", "µs", "low"),
    ("axpy_ms", "axpy kernels", "ms", "low"),
]


def has_gpu() -> bool:
    try:
        import pynvml
        pynvml.nvmlInit()
        try:
            return pynvml.nvmlDeviceGetCount() > 0
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # no driver, no library: no GPU to measure natively  # noqa: BLE001
        return False


def build() -> Path:
    """The program with -cudart shared: the same binary runs on NVIDIA's libcudart and on rgpu's.
    PTX for sm_80 (the software GPU interprets it; a newer GPU JITs it once, before the timings)."""
    return cudabuild.build(HERE / "native_bench.cu", "exe", ["-O2"], arch_flags=["-cudart", "shared", "-arch=sm_80"])


def run_program(exe: Path, env: dict, rows: str, scale: str, rounds: int) -> dict:
    argv = [str(exe), "--scale", scale, "--rounds", str(rounds)] + (["--rows", rows] if rows else [])
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({p.returncode}):\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def null_driver() -> Path:
    """nulldriver.c built against the generated driver declarations, into benchmarks/out, named by
    what it is built from: built once, and never rewritten under a server that has it loaded (tests in
    parallel processes ask for it at once; each builds to a file of its own and renames it in place)."""
    import hashlib
    from rgpu.protocol.codegen import __main__ as codegen
    header = Path(codegen.C_OUT) / "rgpu_cuda.h"
    sources = [HERE / "nulldriver.c", HERE / "nullmodule.c", Path(codegen.C_OUT) / "rgpu_errors.c"]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in [*sources, HERE / "nullmodule.h", header,
                                                              ROOT / "server" / "native" / "device_digest.h"])).hexdigest()[:16]
    lib = OUT / f"libnullcuda-{digest}.so"
    if lib.exists():
        return lib
    OUT.mkdir(parents=True, exist_ok=True)
    tmp = OUT / f".libnullcuda-{digest}.{os.getpid()}.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-Wall", "-Werror", f"-I{codegen.C_OUT}", f"-I{HERE}", "-o", str(tmp),
                    *map(str, sources), "-ldl", "-pthread"], check=True)
    os.replace(tmp, lib)
    return lib


def native_env() -> dict:
    """NVIDIA's own runtime, nothing of rgpu."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RGPU_") and k != "LD_PRELOAD"}
    env["LD_LIBRARY_PATH"] = str(cudabuild.runtime_lib_dir())
    return env


class RawTransport:
    """The bare transport on TCP loopback (the harness's raw server, `bench rawserve`, and its raw mode):
    round trip (µs), one-way message rate (k/s), and bandwidth each way (GB/s) at the copies' size:
    what rgpu's copies without shared memory (the path across hosts) are set against."""

    def __init__(self):
        from benchmarks.transport import build_harness
        self.exe = build_harness()
        self.server = subprocess.Popen([str(self.exe), "rawserve", "tcp://127.0.0.1:*"], stdout=subprocess.PIPE,
                                       text=True)
        self.url = self.server.stdout.readline().strip()

    def _once(self, *args) -> dict:
        p = subprocess.run([str(self.exe), "raw", self.url, *args], capture_output=True, text=True, timeout=300)
        if p.returncode != 0:  # the loader's or the harness's own words, not only a status
            raise RuntimeError(f"{self.exe} raw {' '.join(args)}: exit {p.returncode}: {(p.stderr or p.stdout)[-2000:]}")
        return json.loads(p.stdout.strip().splitlines()[-1])

    def measure(self, nbytes: int) -> dict:
        n = str(max(4, (1 << 30) // nbytes))
        return {"sync_rtt_us": self._once("sync", "10000")["us"],
                "oneway_rate_k": self._once("async", "200000")["rate"] / 1e3,
                "h2d_gbps": self._once("h2d", str(nbytes), n)["gbps"],
                "d2h_gbps": self._once("d2h", str(nbytes), n)["gbps"]}

    def close(self):
        self.server.kill()
        self.server.wait(10)


BETTER = {key: better for key, _label, _unit, better in ROWS} | {"sync_rtt_us": "low", "oneway_rate_k": "high",
                                                                 "h2d_gbps": "high", "d2h_gbps": "high"}
COPY_BYTES = {"sim": 16 << 20, "gpu": 64 << 20}  # native_bench.cu's copy size at each scale
PAGEABLE = ("h2d_pageable_gbps", "d2h_pageable_gbps")
# The rows a real GPU's compiled launch loop serves (server/backends/cuda/launches.py): measured again
# against a second server that launches through Python (RGPU_FAST_LAUNCH=0).
LAUNCH_ROWS = ("launch_rate_k", "launch_sync_us", "axpy_ms")
# The round-trip rows, measured again with both ends blocking at once for their replies and messages
# (RGPU_SPIN_US=0, rgpu-server --spin-us 0) instead of polling first: what the spins are worth here.
WAIT_ROWS = ("sync_rtt_us", "launch_sync_us", "d2h_4k_us", "malloc_free_us")
# The CUDA graph row, measured again with the graph replayed from the client, a call per node
# (RGPU_SERVER_GRAPHS=0), instead of launched by the worker as one graph (libhook/src/graph/graph_server.c).
GRAPH_ROWS = ("graph_launch_us",)
NOT_ON_NULL = ("axpy_ms",)  # checks what its kernels computed: the null driver runs none


def _server(daemons, device: str, env: dict, *extra: str) -> str:
    url = free_url()
    daemons.start([sys.executable, "-m", "rgpu.server.cli", "--device", device, "--listen", url,
                   "--sim-memory", "2GiB", "--log-level", "warning", *extra], ready=lambda: ping(url), deadline_s=60,
                  env=env)
    return url


def _keep_best(best: dict, got: dict) -> None:
    for k, v in got.items():
        if k not in best or not isinstance(v, (int, float)) or k not in BETTER:
            best.setdefault(k, v)
        elif (v < best[k]) if BETTER[k] == "low" else (v > best[k]):
            best[k] = v


def default_copy_threads() -> int:
    """The client library's default RGPU_COPY_THREADS on this host (copies.c rgpu_copy_threads), for the table."""
    return min(4, max(1, len(os.sched_getaffinity(0)) // 4))


def baseline_env(url: str, lib: str) -> dict:
    """The rgpu configuration with the client library of another build (RGPU_LIBDIR=lib)."""
    old = os.environ.get("RGPU_LIBDIR")
    os.environ["RGPU_LIBDIR"] = lib
    try:
        return {**client_env([url]), "RGPU_SHM": "1"}
    finally:
        if old is None:
            del os.environ["RGPU_LIBDIR"]
        else:
            os.environ["RGPU_LIBDIR"] = old


def measure(device: str, rows: str = "", rounds: int = 3, profile: str = "", raw: bool = True,
            baseline: str = "", on_round=None) -> dict:
    """Every configuration once per round, in turn, keeping each figure's best: load from other
    processes then hurts all of them alike instead of whichever ran during it. A configuration that
    fails is noted under "errors" and the others go on; `on_round(out)` after each round lets a run
    stopped at a time limit (a lent GPU's minutes) still leave the rounds it finished."""
    exe = build()
    scale = "gpu" if device == "cuda" else "sim"
    backend = "cuda" if device in ("cuda", "null") else device
    if device == "null":
        rows = ",".join(k for k in (rows.split(",") if rows else [r[0] for r in ROWS]) if k not in NOT_ON_NULL)
        if not rows:
            raise ValueError(f"--device null measures none of these rows ({', '.join(NOT_ON_NULL)} runs kernels)")
    out: dict = {"device": device, "scale": scale, "host": os.uname().nodename, "rounds": rounds,
                 **({"null_kernel_us": float(os.environ["RGPU_NULL_KERNEL_US"])}
                    if device == "null" and os.environ.get("RGPU_NULL_KERNEL_US") else {}),
                 "copy_threads": os.environ.get("RGPU_COPY_THREADS") or default_copy_threads(),
                 "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    with DaemonSet() as daemons:
        env = dict(os.environ)
        if profile:
            env["RGPU_WORKER_PROFILE"] = profile
        if device == "null":
            env["RGPU_LIBCUDA"] = str(null_driver())
        url = _server(daemons, backend, env)
        runs = {"rgpu": {**client_env([url]), "RGPU_SHM": "1"}, "rgpu_noshm": {**client_env([url]), "RGPU_SHM": "0"},
                "rgpu_whole": {**client_env([url]), "RGPU_SHM": "1", "RGPU_SHM_PIPELINE": "0"},
                "rgpu_1thread": {**client_env([url]), "RGPU_SHM": "1", "RGPU_COPY_THREADS": "1"}}
        if baseline:
            runs["rgpu_baseline"] = baseline_env(url, baseline)
        runs["rgpu_blocking"] = {**client_env([_server(daemons, backend, env, "--spin-us", "0")]), "RGPU_SHM": "1",
                                 "RGPU_SPIN_US": "0"}
        runs["rgpu_replay"] = {**client_env([url]), "RGPU_SHM": "1", "RGPU_SERVER_GRAPHS": "0"}
        if backend == "cuda":
            py_url = _server(daemons, backend, {**env, "RGPU_FAST_LAUNCH": "0"})
            runs = {**({"native": native_env()} if device == "cuda" else {}), **runs,
                    "rgpu_pylaunch": {**client_env([py_url]), "RGPU_SHM": "1"}}
        rawt = RawTransport() if raw else None
        try:
            for done in range(1, rounds + 1):
                t0 = time.monotonic()
                for name, run_env in runs.items():
                    which = rows
                    only = {"rgpu_whole": PAGEABLE, "rgpu_1thread": PAGEABLE, "rgpu_pylaunch": LAUNCH_ROWS,
                            "rgpu_blocking": WAIT_ROWS, "rgpu_replay": GRAPH_ROWS}.get(name)
                    if only:  # the rows this configuration changes
                        which = ",".join(r for r in only if not rows or r in rows.split(","))
                        if not which:
                            continue
                    try:
                        got = run_program(exe, run_env, which, scale, 1)
                    except (RuntimeError, subprocess.TimeoutExpired) as e:
                        out.setdefault("errors", {})[name] = str(e)[-4000:]
                        print(f"{name}: {e}", file=sys.stderr, flush=True)
                        continue
                    _keep_best(out.setdefault(name, {}), got)
                if rawt is not None:
                    try:  # a baseline that fails leaves the table of the configurations that ran
                        _keep_best(out.setdefault("raw", {}), rawt.measure(COPY_BYTES[scale]))
                    except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
                        out.setdefault("errors", {})["raw"] = str(e)[-4000:]
                        print(f"raw: {e}", file=sys.stderr, flush=True)
                out["rounds_done"] = done
                print(f"round {done}/{rounds}: {time.monotonic() - t0:.1f} s", file=sys.stderr, flush=True)
                if on_round is not None:
                    on_round(out)
        finally:
            if rawt is not None:
                rawt.close()
    return out


def _beside(head: str, other: dict, native: dict, rgpu: dict, keys=None, goal: str = "") -> list[str]:
    """A table of the rows (`keys`, default all) a second configuration measured (`other`), beside
    rgpu's default, with the default's ratio to native (and its `goal`)."""
    rows = [(key, label, unit) for key, label, unit, _better in ROWS
            if key in other and key in rgpu and (keys is None or key in keys)]
    if not rows:
        return []
    lines = ["", f"| {head} |", "|---|---|---|---|---|"]
    for key, label, unit in rows:
        n = native.get(key)
        lines.append(f"| {label} | {f'{n:,.2f} {unit}' if n else '—'} | {other[key]:,.2f} {unit} | "
                     f"{rgpu[key]:,.2f} {unit} | {f'{rgpu[key] / n:.2f}×{goal}' if n else '—'} |")
    return lines


def table(res: dict) -> str:
    native = res.get("native", {})
    rgpu, noshm, raw = res["rgpu"], res.get("rgpu_noshm", {}), res.get("raw", {})
    base = res.get("rgpu_baseline")
    big = rgpu.get("big_bytes", 0) >> 20
    head = "| figure | native | rgpu | rgpu, `RGPU_SHM=0` | rgpu / native |\n|---|---|---|---|---|"
    if base is not None:
        head = ("| figure | native | rgpu | rgpu, `RGPU_SHM=0` | rgpu, baseline library | rgpu / native |\n"
                "|---|---|---|---|---|---|")
    lines = [f"device: {rgpu.get('device')} (`--device {res['device']}`, scale {res['scale']}: copies "
             f"{big} MiB, {rgpu.get('axpy_n')} axpy over {rgpu.get('axpy_len')} floats), {res['host']}, {res['when']}"
             + (f"; each kernel takes {res['null_kernel_us']:g} µs" if res.get("null_kernel_us") else ""),
             "", head]
    for key, label, unit, _better in ROWS:
        if key not in rgpu:
            continue
        n = native.get(key)
        ratio = f"{rgpu[key] / n:.2f}×" if n else "—"
        fmt = (lambda v: f"{v:,.2f} {unit}" if v is not None else "—")
        extra = f" {fmt(base.get(key))} |" if base is not None else ""
        lines.append(f"| {label} | {fmt(n)} | {fmt(rgpu[key])} | {fmt(noshm.get(key))} |{extra} {ratio} |")
    lines += _beside("pageable copies through the segment (`RGPU_SHM_PIPELINE`) | native | off | on | rgpu / native",
                     res.get("rgpu_whole", {}), native, rgpu, PAGEABLE, " (goal ≥ 0.8)")
    lines += _beside(f"pageable copies, the client's copy threads (`RGPU_COPY_THREADS`) | native | 1 | "
                     f"{res.get('copy_threads', 'default')} | rgpu / native", res.get("rgpu_1thread", {}), native, rgpu,
                     PAGEABLE, " (goal ≥ 0.8)")
    lines += _beside("launches (`RGPU_FAST_LAUNCH`) | native | Python | compiled loop | compiled / native",
                     res.get("rgpu_pylaunch", {}), native, rgpu)
    lines += _beside("waits (`RGPU_SPIN_US`, `--spin-us`) | native | both block | both poll first (default) | "
                     "default / native", res.get("rgpu_blocking", {}), native, rgpu)
    lines += _beside("CUDA graphs (`RGPU_SERVER_GRAPHS`) | native | replayed by the client | launched by the worker | "
                     "worker / native", res.get("rgpu_replay", {}), native, rgpu)
    if raw:
        lines += ["", "| against the raw transport (TCP loopback, same run) | raw | rgpu | ratio |", "|---|---|---|---|"]
        if "sync_rtt_us" in rgpu:
            lines.append(f"| sync round trip | {raw['sync_rtt_us']:.2f} µs | {rgpu['sync_rtt_us']:.2f} µs | "
                         f"{rgpu['sync_rtt_us'] / raw['sync_rtt_us']:.2f}× (goal ≤ 1.2) |")
        if "launch_sync_us" in rgpu:
            lines.append(f"| launch + synchronize vs round trip | {raw['sync_rtt_us']:.2f} µs | "
                         f"{rgpu['launch_sync_us']:.2f} µs | {rgpu['launch_sync_us'] / raw['sync_rtt_us']:.2f}× (goal ≤ 2) |")
        if "launch_rate_k" in rgpu:
            lines.append(f"| async launches vs one-way messages | {raw['oneway_rate_k']:.1f} k/s | "
                         f"{rgpu['launch_rate_k']:.1f} k/s | {rgpu['launch_rate_k'] / raw['oneway_rate_k']:.2f}× (goal ≥ 0.5) |")
        for d in ("h2d", "d2h"):
            key = f"{d}_pageable_gbps"
            if key in noshm and f"{d}_gbps" in raw:
                lines.append(f"| {d.upper()} without shared memory (across hosts: pieces) vs raw bandwidth | "
                             f"{raw[f'{d}_gbps']:.2f} GB/s | {noshm[key]:.2f} GB/s | "
                             f"{noshm[key] / raw[f'{d}_gbps']:.2f}× (goal ≥ 0.9) |")
        if "attribute_us" in rgpu:
            lines.append(f"| attribute query vs round trip | {raw['sync_rtt_us']:.2f} µs | {rgpu['attribute_us']:.3f} µs | "
                         f"{rgpu['attribute_us'] / raw['sync_rtt_us']:.4f}× (goal: ≤ 1 µs, no round trip) |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", choices=["auto", "cuda", "sim", "null"], default="auto")
    ap.add_argument("--rows", default="", help="comma-separated row keys (default: all)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--profile", default="", help="cProfile the session workers to PREFIX.PID")
    ap.add_argument("--no-raw", action="store_true", help="skip the raw-transport baseline")
    ap.add_argument("--baseline", default="", help="a directory holding another build's librgpu.so: one more column")
    ap.add_argument("--no-write", action="store_true", help="print only: leave benchmarks/out/native.* as they are")
    ap.add_argument("--kernel-us", type=float, default=0.0,
                    help="--device null: each kernel takes this long (RGPU_NULL_KERNEL_US), so that a wait after a "
                         "launch finds its stream busy, as on a GPU")
    a = ap.parse_args(argv)
    if a.kernel_us:
        os.environ["RGPU_NULL_KERNEL_US"] = str(a.kernel_us)
    device = a.device if a.device != "auto" else ("cuda" if has_gpu() else "sim")

    def write(res: dict) -> None:
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / "native.json").write_text(json.dumps(res, indent=2) + "\n")
        if "rgpu" in res:
            (OUT / "native.md").write_text(table(res) + "\n")

    res = measure(device, a.rows, a.rounds, a.profile, not a.no_raw, a.baseline, None if a.no_write else write)
    if "rgpu" in res:
        print(table(res))
    if not a.no_write:
        print(f"\nwritten: {OUT / 'native.json'}, {OUT / 'native.md'}")
    for name, err in res.get("errors", {}).items():
        print(f"\n{name} failed:\n{err}")
    return 1 if res.get("errors") else 0


if __name__ == "__main__":
    sys.exit(main())
