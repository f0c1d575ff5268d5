"""Where a library's failure on a GPU host comes from. The end-to-end suite reports some of them
only as a status (cuFFT's CUFFT_INTERNAL_ERROR, a crash inside cuBLASLt under PyTorch), and its
servers log at info level: this runs each such program once more against one server logging at
debug level, with the client library's debug log, and writes both, a file each, to OUT:
diagnose-NAME.log (the program's exit status, output and client log) and diagnose-server.log.
Idle reclaim is the driver's checkpoint of the worker's process on a GPU (the e2e suite sees only
whether the program was reclaimed): a second server reclaiming after a second runs idle_state.cu
and migrate_streams.cu (the suite's pool reclaim program, with managed memory), and its log
(diagnose-reclaim-server.log) has the driver's answers and the reclaim and restore times.

    python scripts/gpu_diagnose.py OUT [--device cuda|sim]

scripts/gpu_check.sh --steps diagnose runs it. A program is left out where its test's prerequisites
are: the cuFFT program needs NVIDIA's libraries (RGPU_NVLIBS_TREE or the pinned ones already
installed), the PyTorch step RGPU_TORCH_PYTHON, CuPy RGPU_FRAMEWORKS_PYTHON; gpu_check.sh sets
them from the host's own Python."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rgpu.client.server_client import ping  # noqa: E402
from tests.support import cudabuild, frameworks, nvlibs  # noqa: E402
from tests.support.daemons import DaemonSet, free_url  # noqa: E402

LIBS = ROOT / "tests" / "cuda" / "libs"
PROGRAMS = ROOT / "tests" / "cuda" / "programs"


def programs(scratch: Path) -> list[tuple[str, list[str]]]:
    """(name, argv) of each program whose prerequisites this host has."""
    found = []
    if os.environ.get("RGPU_NVLIBS_TREE") or nvlibs.target().joinpath(".installed").exists():
        fft = cudabuild.build(LIBS / "fft.cu", "exe", [f"-I{LIBS}", *nvlibs.link_flags("cufft")],
                              arch_flags=["-arch=sm_80"])
        found.append(("cufft", [str(fft), "", "16"]))
    if os.environ.get("RGPU_TORCH_PYTHON"):
        found.append(("torch_matmul", [os.environ["RGPU_TORCH_PYTHON"], str(ROOT / "tests" / "e2e" / "torch_steps.py"),
                                       "matmul"]))
    if os.environ.get("RGPU_FRAMEWORKS_PYTHON"):
        found.append(("cupy_fft", [os.environ["RGPU_FRAMEWORKS_PYTHON"], str(ROOT / "tests" / "frameworks" / "cupy_ops.py"),
                                   "fft", str(scratch / "cupy_fft.npz")]))
    return found


def run(url: str, name: str, cmd: list[str], env: dict, out: Path) -> None:
    try:
        p = subprocess.run([sys.executable, "-m", "rgpu.client.cli", "run", "--server", url, "--", *cmd],
                           capture_output=True, text=True, timeout=300, env=env)
        status, stdout, stderr = str(p.returncode), p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        status, stdout, stderr = "timed out after 300 s", str(e.stdout or ""), str(e.stderr or "")
    (out / f"diagnose-{name}.log").write_text(
        f"{' '.join(cmd)}\nexit {status}\n== stdout\n{stdout}\n== stderr (the client library's log)\n{stderr}")
    print(f"{name}: exit {status}", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--device", choices=["cuda", "sim"], default="cuda")
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rgpu-diagnose-") as scratch, DaemonSet() as daemons:
        url = free_url()
        server_log = a.out / "diagnose-server.log"
        daemons.start([sys.executable, "-m", "rgpu.server.cli", "--device", a.device, "--listen", url,
                       "--log-level", "debug"], ready=lambda: ping(url), deadline_s=60, log_path=server_log)
        env = {**os.environ, "RGPU_LOG": "debug", "CUPY_CACHE_DIR": str(Path(scratch) / "cupy-kernels")}
        for name, cmd in programs(Path(scratch)):
            run(url, name, cmd, frameworks.cupy_env(env) if name.startswith("cupy") else env, a.out)
        reclaiming = free_url()
        daemons.start([sys.executable, "-m", "rgpu.server.cli", "--device", a.device, "--listen", reclaiming,
                       "--log-level", "debug", "--reclaim-after", "1", "--checkpoint-dir", str(Path(scratch) / "ckpt")],
                      ready=lambda: ping(reclaiming), deadline_s=60, log_path=a.out / "diagnose-reclaim-server.log")
        idle = cudabuild.build(PROGRAMS / "idle_state.cu", "exe", [f"-I{PROGRAMS}"],
                               arch_flags=["-cudart", "shared", "-arch=sm_80"])
        run(reclaiming, "idle_reclaim", [str(idle), "4000", "2"], env, a.out)
        # the e2e suite's reclaim program: streams, a module variable, managed memory, 24 MiB
        streams = cudabuild.build(PROGRAMS / "migrate_streams.cu", "exe", [f"-I{PROGRAMS}"],
                                  arch_flags=["-cudart", "shared", "-arch=sm_80"])
        run(reclaiming, "reclaim_streams", [str(streams), "3", "4000"], env, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
