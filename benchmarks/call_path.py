"""The file path of one CUDA call through librgpu, measured (issue 38: "following one cudaMemcpy from the
program to the driver, and one launch, visits at most four files, each once").

A build of librgpu with every function instrumented (gcc -finstrument-functions, -fno-inline so that
a static function shows as itself, benchmarks/harness/call_trace.c as the tracer) runs the data-path
harness (benchmarks/harness/bench.c) against an rgpu-server on the null driver; the tracer writes every
function entered during one call after warm-up (the 50th), and addr2line names each one's file. A
file is *visited* each time the path enters it from a function of another file; the figures are the
distinct files and the visits.

    .venv/bin/python -m benchmarks.call_path [--tree] [--server URL]

Calls traced: cudaMemcpy H2D and D2H of 4 KiB and cuLaunchKernel (an empty kernel, async), on the
same host (the call ring, RGPU_SHM=1) and across TCP (RGPU_SHM=0). Prints, and writes
benchmarks/out/call_path.md and .json. Without --server it starts its own (cuda backend, null driver)."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.transport import OUT, zmq_flags  # noqa: E402
from rgpu.paths import libdir  # noqa: E402

HERE = Path(__file__).resolve().parent
LIBHOOK = ROOT / "libhook"
# (what, the traced function, the harness's arguments)
CALLS = (("cudaMemcpy H2D 4 KiB", "cudaMemcpy", ["h2d", "4096", "200"]),
         ("cudaMemcpy D2H 4 KiB", "cudaMemcpy", ["d2h", "4096", "200"]),
         ("cuLaunchKernel", "cuLaunchKernel", ["launch", "2000"]))
WAYS = (("same host (call ring)", {"RGPU_SHM": "1"}), ("across TCP", {"RGPU_SHM": "0"}))
NTH = 50  # the traced call: after the harness's warm-up, nothing left to set up


def build_traced(out: Path) -> tuple[Path, Path]:
    """librgpu built as libhook/build.sh builds it, instrumented, in `out` with the names programs load
    it by; and the harness linked to it. (library, harness)"""
    out.mkdir(parents=True, exist_ok=True)
    families = sorted(d for d in (LIBHOOK / "src").iterdir() if d.is_dir())
    lib = out / "librgpu.so"
    subprocess.run(["gcc", "-O1", "-fno-inline", "-g", "-fPIC", "-shared", "-finstrument-functions", "-w",
                    *(f"-I{d}" for d in families), f"-I{LIBHOOK / 'generated'}",
                    *map(str, sorted((LIBHOOK / "src").glob("*/*.c"))), *map(str, sorted((LIBHOOK / "generated").glob("*.c"))),
                    # the cuda backend's arena, which memory/placed.c lays allocations out with (build.sh)
                    str(LIBHOOK.parent / "server" / "backends" / "cuda" / "native" / "arena.c"),
                    str(HERE / "harness" / "call_trace.c"), *zmq_flags(libdir()), "-ldl", "-lpthread",
                    f"-Wl,--version-script={LIBHOOK / 'exports.map'}", "-Wl,-soname,librgpu.so", "-Wl,-Bsymbolic",
                    "-o", str(lib)], check=True)
    for name in ("libcudart.so", "libcudart.so.13", "libcuda.so", "libcuda.so.1"):
        link = out / name
        link.unlink(missing_ok=True)
        link.symlink_to("librgpu.so")
    exe = out / "bench"
    subprocess.run(["gcc", "-O2", "-o", str(exe), str(HERE / "harness" / "bench.c"), f"-L{out}", "-lcudart",
                    *zmq_flags(libdir()), f"-Wl,-rpath,{out}", f"-Wl,-rpath-link,{libdir()}",
                    "-Wl,--disable-new-dtags"], check=True)
    return lib, exe


@dataclass
class CallPath:
    """One traced call: each function entered, in order, with its depth, name and file."""
    frames: list[tuple[int, str, str]]
    visits: list[str] = field(default_factory=list)  # the files, each time the path entered one

    def __post_init__(self):
        stack: list[str] = []
        for depth, _, file in self.frames:
            del stack[depth:]
            if not stack or stack[-1] != file:
                self.visits.append(file)
            stack.append(file)

    @property
    def files(self) -> list[str]:
        """The distinct files, in the order the path first entered them."""
        return list(dict.fromkeys(self.visits))

    def tree(self) -> str:
        return "\n".join(f"{'  ' * d}{name}  {file}" for d, name, file in self.frames)


def _name(lib: Path, offsets: list[str]) -> list[tuple[str, str]]:
    """(function, file relative to libhook/) of each offset in the library."""
    p = subprocess.run(["addr2line", "-f", "-e", str(lib)], input="\n".join(f"0x{o}" for o in offsets),
                       capture_output=True, text=True, check=True)
    lines = p.stdout.splitlines()
    out = []
    for fn, where in zip(lines[0::2], lines[1::2]):
        file = where.split(":")[0]
        try:
            file = str(Path(file).resolve().relative_to(LIBHOOK.resolve()))
        except ValueError:
            pass
        out.append((fn, file.removeprefix("src/")))
    return out


def trace(lib: Path, exe: Path, url: str, fn: str, args: list[str], env_over: dict[str, str]) -> CallPath:
    """The path of the NTH call of `fn` the harness makes with `args`, against the server at url."""
    with tempfile.TemporaryDirectory(prefix="rgpu-callpath-") as tmp:
        rec = Path(tmp) / "trace"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RGPU_", "CALL_TRACE_"))}
        env |= {"RGPU_SERVER": url, "LD_LIBRARY_PATH": str(lib.parent), "CALL_TRACE_FN": fn,
                "CALL_TRACE_NTH": str(NTH), "CALL_TRACE_OUT": str(rec), **env_over}
        p = subprocess.run([str(exe), "rgpu", *args], env=env, capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            raise RuntimeError(f"harness {args} failed ({p.returncode}): {p.stderr[-2000:]}")
        if not rec.exists():
            raise RuntimeError(f"no trace of {fn}: the harness called it fewer than {NTH} times")
        rows = [line.split() for line in rec.read_text().splitlines() if line.strip()]
    named = _name(lib, [r[1] for r in rows])
    return CallPath([(int(r[0]), n, f) for r, (n, f) in zip(rows, named)])


def measure(url: str, out: Path) -> dict:
    lib, exe = build_traced(out)
    res = {}
    for way, env_over in WAYS:
        for what, fn, args in CALLS:
            res[f"{what}, {way}"] = trace(lib, exe, url, fn, args, env_over)
    return res


def table(res: dict) -> str:
    lines = ["| call | files | visits | the files, in the order first entered |", "|---|---|---|---|"]
    for key, p in res.items():
        lines.append(f"| {key} | {len(p.files)} | {len(p.visits)} | {' → '.join(p.files)} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="store_true", help="print every function entered, indented by depth")
    ap.add_argument("--server", help="an rgpu-server's URL (default: start one, cuda backend, null driver)")
    a = ap.parse_args(argv)
    out = OUT / "call_path"
    if a.server:
        res = measure(a.server, out)
    else:
        from tests.support import null_server
        from tests.support.daemons import DaemonSet
        with DaemonSet() as daemons:
            url, _ = null_server.start(daemons)
            res = measure(url, out)
    text = table(res)
    if a.tree:
        for key, p in res.items():
            print(f"## {key}\n{p.tree()}\n")
    print(text)
    (OUT / "call_path.md").write_text(text + "\n")
    (OUT / "call_path.json").write_text(json.dumps(
        {k: {"files": p.files, "visits": p.visits, "frames": p.frames} for k, p in res.items()}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
