"""Where librgpu.so lives, building it from libhook/ on first use when this is a source checkout."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parent.parent
LIBS = ("librgpu.so", "libcudart.so.13", "libcuda.so.1")


class LibraryMissing(RuntimeError):
    pass


def libdir(build: bool = True) -> Path:
    """RGPU_LIBDIR, else build/lib of the source checkout (built with libhook/build.sh if absent)."""
    if os.environ.get("RGPU_LIBDIR"):
        d = Path(os.environ["RGPU_LIBDIR"])
        if (d / "librgpu.so").exists():
            return d
        raise LibraryMissing(f"RGPU_LIBDIR={d} holds no librgpu.so")
    d = SOURCE_ROOT / "build" / "lib"
    script = SOURCE_ROOT / "libhook" / "build.sh"
    if not all((d / n).exists() for n in LIBS) and build and script.exists():
        subprocess.run(["bash", str(script), str(d)], check=True, stdout=subprocess.DEVNULL)
    if not (d / "librgpu.so").exists():
        raise LibraryMissing("librgpu.so is not built: run libhook/build.sh (needs gcc and libzmq3-dev)")
    return d


def client_env(servers: list[str], lease: str | None = None, base: dict | None = None,
               preload: bool = True) -> dict:
    """The environment a CUDA program needs to run on rgpu: the library path (enough alone on a host
    with no CUDA libraries), LD_PRELOAD (wins even over an RPATH to a real libcudart), the servers."""
    env = dict(os.environ if base is None else base)
    d = str(libdir())
    env["LD_LIBRARY_PATH"] = d + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    if preload:
        env["LD_PRELOAD"] = str(Path(d) / "librgpu.so") + (" " + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
    env["RGPU_SERVER"] = ",".join(servers)
    if lease:
        env["RGPU_LEASE"] = lease
    return env
