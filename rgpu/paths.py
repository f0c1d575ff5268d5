"""Where librgpu.so lives: RGPU_LIBDIR, the source checkout's build/lib (built from libhook/ on first
use), or the rgpu-clientlib package of an installed bundle (scripts/bundle.sh)."""
from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import tempfile
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parent.parent
LIBS = ("librgpu.so", "libcudart.so.13", "libcuda.so.1", "librgpu_launches.so")
# The names CUDA programs look for, links to librgpu.so as libhook/build.sh makes them; NVML's too
# (the NVML face: pynvml inside a program dlopen()s libnvidia-ml.so.1 through the library path and
# must find rgpu's before a host's real one, which would show the host's GPUs, or none).
ALIASES = ("libcuda.so.1", "libcuda.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so",
           "libnvidia-ml.so.1", "libnvidia-ml.so")


class LibraryMissing(RuntimeError):
    pass


def open_native(ffi, name: str, *symbols: str):
    """`ffi.dlopen` of the library `name` beside librgpu.so (libdir), when it has every one of `symbols`
    (an older build may lack the newer ones): (library, None), or (None, why) where it is not there.
    The server's optional compiled parts (the call ring's end, the chunk digest, the head deltas'
    apply) then fall back to their Python."""
    try:
        lib = ffi.dlopen(str(libdir() / name))
        for symbol in symbols:
            getattr(lib, symbol)
    except (LibraryMissing, OSError, AttributeError) as e:
        return None, str(e)
    return lib, None


def libdir(build: bool = True) -> Path:
    """RGPU_LIBDIR, else build/lib of the source checkout when built, else the installed client
    library (rgpu-clientlib, from a bundle), else build/lib built with libhook/build.sh."""
    if os.environ.get("RGPU_LIBDIR"):
        d = Path(os.environ["RGPU_LIBDIR"])
        if (d / "librgpu.so").exists():
            return d
        raise LibraryMissing(f"RGPU_LIBDIR={d} holds no librgpu.so")
    d = SOURCE_ROOT / "build" / "lib"
    script = SOURCE_ROOT / "libhook" / "build.sh"
    if not all((d / n).exists() for n in LIBS):
        # An installed rgpu, or a checkout installed from a bundle on a host that may lack gcc or
        # libzmq's headers: the bundle's client library, if installed.
        installed = installed_libdir()
        if installed is not None:
            return installed
    if not all((d / n).exists() for n in LIBS) and build and script.exists():
        subprocess.run(["bash", str(script), str(d)], check=True, stdout=subprocess.DEVNULL)
    if not (d / "librgpu.so").exists():
        raise LibraryMissing("librgpu.so is not built: run libhook/build.sh (needs gcc and libzmq3-dev), "
                            "or install rgpu-clientlib from a bundle (scripts/bundle.sh)")
    return d


def installed_libdir() -> Path | None:
    """The lib/ of the rgpu-clientlib package, with the CUDA names linked to librgpu.so (a wheel
    holds no links, and copies would load as separate libraries with separate state). The links go
    beside the files when the package's folder is writable, else into a private folder of links."""
    spec = importlib.util.find_spec("rgpu_clientlib")
    if spec is None or not spec.submodule_search_locations:
        return None
    pkg = Path(next(iter(spec.submodule_search_locations))) / "lib"
    if not (pkg / "librgpu.so").exists():
        return None
    if all((pkg / n).exists() for n in ALIASES):
        return pkg
    if os.access(pkg, os.W_OK):
        _link(pkg, {n: "librgpu.so" for n in ALIASES})
        return pkg
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rgpu" / \
        ("lib-" + hashlib.sha256(str(pkg).encode()).hexdigest()[:16])
    cache.mkdir(parents=True, exist_ok=True)
    targets = {p.name: str(p) for p in pkg.iterdir()}
    targets.update({n: str(pkg / "librgpu.so") for n in ALIASES})
    _link(cache, targets)
    return cache


def _link(folder: Path, targets: dict[str, str]) -> None:
    """Make each folder/name a link to its target; a link made beside under a temporary name and
    renamed over, so that concurrent first uses never see a half-made one."""
    for name, target in targets.items():
        if (folder / name).exists():
            continue
        tmp = Path(tempfile.mktemp(prefix=f".{name}.", dir=folder))
        os.symlink(target, tmp)
        os.replace(tmp, folder / name)


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
