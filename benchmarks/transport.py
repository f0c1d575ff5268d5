"""Measuring rgpu's data path beside the bare transport, in the same run and the same process model.

Both sides of every ratio are a C client (benchmarks/harness/bench.c: through librgpu, or through
bare libzmq) talking to rgpu-server's session worker, or to the harness's own bare C ROUTER (`bench rawserve`).
rgpu and raw runs alternate and each figure is the best of ROUNDS, so load from other processes on
the machine hurts both sides alike instead of whichever ran during it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from rgpu.paths import libdir
from tests.support.daemons import DaemonSet, free_url

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
KiB, MiB = 1 << 10, 1 << 20
SIZES = [4 * KiB, 64 * KiB, 1 * MiB, 16 * MiB, 64 * MiB, 256 * MiB]
ROUNDS = int(os.environ.get("RGPU_BENCH_ROUNDS", "3"))


def size_name(n: int) -> str:
    return f"{n // MiB}MiB" if n >= MiB else f"{n // KiB}KiB"


def _cc_finds_header(header: str) -> bool:
    return subprocess.run(["gcc", "-E", "-x", "c", "-o", os.devnull, "-"], input=f"#include <{header}>\n",
                          capture_output=True, text=True).returncode == 0


def _cc_finds_library(name: str) -> bool:
    """gcc -print-file-name answers the bare name when no directory of its search path holds it."""
    out = subprocess.run(["gcc", f"-print-file-name={name}"], capture_output=True, text=True).stdout.strip()
    return out != name and Path(out).exists()


def bundled_include(lib: Path) -> Path | None:
    """The include/ folder of an installed client library (rgpu-clientlib from scripts/bundle.sh: zmq.h
    beside lib/), when it has zmq.h."""
    import importlib.util
    cands = [lib.parent / "include"]
    spec = importlib.util.find_spec("rgpu_clientlib")
    if spec is not None and spec.submodule_search_locations:
        cands.append(Path(next(iter(spec.submodule_search_locations))) / "include")
    return next((c for c in cands if (c / "zmq.h").is_file()), None)


def zmq_flags(lib: Path) -> list[str]:
    """How the harness compiles and links against libzmq: the system's zmq.h and libzmq.so where the
    compiler finds them (libzmq3-dev), else the client library's own (a GPU host installed from the
    bundle has neither: zmq.h in rgpu-clientlib's include/, libzmq.so.5 beside librgpu.so)."""
    flags = []
    if not _cc_finds_header("zmq.h"):
        inc = bundled_include(lib)
        if inc is None:
            raise RuntimeError(f"no zmq.h: install libzmq's development package, or rgpu-clientlib from a "
                               f"bundle (scripts/bundle.sh), whose include/ holds it (looked beside {lib})")
        flags.append(f"-I{inc}")
    if (lib / "libzmq.so.5").exists():
        # The libzmq beside librgpu.so, the client library's own, which the harness's RPATH finds as
        # libzmq.so.5. It is pyzmq's, copied: its SONAME (libzmq-2f02442c.so.5.2.5) is a name no folder
        # the loader searches holds, and a link against it records that name (exit 127 on the H200
        # image, which has no libzmq of its own). The link goes through a stub of its functions named
        # libzmq.so.5 instead.
        flags += [f"-L{_zmq_link_stub(lib / 'libzmq.so.5')}", "-lzmq"]
    else:
        flags.append("-lzmq" if _cc_finds_library("libzmq.so") else "-l:libzmq.so.5")
    return flags


def _zmq_link_stub(real: Path) -> Path:
    """A folder with libzmq.so: empty functions of every zmq_* function `real` exports, SONAME
    libzmq.so.5, for linking only (nothing runs it: at run time the loader finds `real`)."""
    d = OUT / "zmq-link"
    stub = d / "libzmq.so"
    if stub.exists() and stub.stat().st_mtime >= real.stat().st_mtime:
        return d
    d.mkdir(parents=True, exist_ok=True)
    nm = subprocess.run(["nm", "-D", "--defined-only", str(real)], capture_output=True, text=True, check=True).stdout
    names = sorted({f.split()[-1].split("@")[0] for f in nm.splitlines() if " T zmq_" in f})
    src = d / "stub.c"
    src.write_text("".join(f"void {n}(void) {{}}\n" for n in names))
    tmp = d / f".libzmq.so.{os.getpid()}"
    subprocess.run(["gcc", "-shared", "-fPIC", "-Wl,-soname,libzmq.so.5", "-o", str(tmp), str(src)], check=True)
    os.replace(tmp, stub)
    return d


def build_harness() -> Path:
    lib = libdir()
    exe = OUT / "bench"
    src = HERE / "harness" / "bench.c"
    OUT.mkdir(exist_ok=True)
    if not exe.exists() or exe.stat().st_mtime < max(src.stat().st_mtime, (lib / "librgpu.so").stat().st_mtime):
        # -rpath-link: ld finds what the bundled libzmq needs (libsodium...) beside it; an RPATH, not a
        # RUNPATH (--disable-new-dtags), so that the loader finds those for the raw mode, which runs
        # without LD_LIBRARY_PATH: a RUNPATH would serve the harness's own NEEDED entries only
        # built beside it and renamed into place: two test processes (pytest -n 2) may build it at once,
        # and one must never run the file the other's gcc is still writing
        tmp = exe.with_name(f"{exe.name}.{os.getpid()}.tmp")
        subprocess.run(["gcc", "-O2", "-Wall", "-o", str(tmp), str(src), f"-L{lib}", "-lcudart", *zmq_flags(lib),
                        f"-Wl,-rpath,{lib}", f"-Wl,-rpath-link,{lib}", "-Wl,--disable-new-dtags"], check=True)
        os.replace(tmp, exe)
    return exe


class Bench:
    """An rgpu-server (sim) and a raw server on one transport, and the harness to drive both."""

    def __init__(self, transport: str, daemons: DaemonSet):
        self.exe = build_harness()
        self.transport = transport
        tmp = tempfile.mkdtemp(prefix="rgpu-bench-")
        if transport == "ipc":
            url, raw_bind = f"ipc://{tmp}/server", f"ipc://{tmp}/raw"
        else:
            url, raw_bind = free_url(), "tcp://127.0.0.1:*"
        from rgpu.client.server_client import ping
        env = {**os.environ, **({"RGPU_WORKER_PROFILE": os.environ["RGPU_BENCH_PROFILE"]}
                                 if os.environ.get("RGPU_BENCH_PROFILE") else {})}
        daemons.start([sys.executable, "-m", "rgpu.server.cli", "--device", "sim", "--listen", url,
                       "--sim-memory", "1GiB", "--log-level", "warning"], ready=lambda: ping(url),
                      deadline_s=30, env=env)
        self.url = url
        self.raw = subprocess.Popen([str(build_harness()), "rawserve", raw_bind], stdout=subprocess.PIPE, text=True)
        self.raw_url = self.raw.stdout.readline().strip()

    def close(self):
        self.raw.kill()
        self.raw.wait(10)

    def rgpu(self, *args, shm: bool = False, **extra_env: str) -> dict:
        env = {**os.environ, "RGPU_SERVER": self.url, "RGPU_SHM": "1" if shm else "0", **extra_env}
        env["LD_LIBRARY_PATH"] = str(libdir())
        return self._run([str(self.exe), "rgpu", *map(str, args)], env)

    def baseline(self, *args) -> dict:
        return self._run([str(self.exe), "raw", self.raw_url, *map(str, args)], dict(os.environ))

    @staticmethod
    def _run(argv, env) -> dict:
        p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
        return json.loads(p.stdout.strip().splitlines()[-1])


def best(runs: list[dict], key: str) -> float:
    """The best figure of several rounds: smallest latency, largest rate or bandwidth."""
    vals = [r[key] for r in runs]
    return min(vals) if key == "us" else max(vals)


def alternately(benchmark, configurations: dict, key: str) -> dict[str, float]:
    """Runs each configuration (name -> a function returning the harness's figures) once per round, in
    turn, for ROUNDS rounds as one pytest-benchmark round, and returns each one's best `key`: load from
    other processes then hurts all of them alike instead of whichever ran during it."""
    runs = {name: [] for name in configurations}

    def once():
        for _ in range(ROUNDS):
            for name, run in configurations.items():
                runs[name].append(run())
    benchmark.pedantic(once, rounds=1, iterations=1)
    return {name: best(r, key) for name, r in runs.items()}


def iterations(nbytes: int) -> int:
    return max(3, min(2000, (256 * MiB) // nbytes))
