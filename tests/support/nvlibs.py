"""NVIDIA's CUDA 13.0 math libraries, pinned in one place for every test that uses them.

The versions are the ones CUDA 13.0 Update 1 shipped (its nvcc is 13.0.88, as nvjitlink's wheel
is). `ensure(package)` installs a pinned wheel once, without its dependencies, into
``.cache/nvlibs/<package>-<version>`` (never into the running Python: the test programs must not
pick these up by accident), and `library(name)` gives the path of one of its shared objects.

    from tests.support import nvlibs
    lib = nvlibs.library("cublas")            # .../nvidia/cu13/lib/libcublas.so.13
"""
from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("RGPU_NVLIBS_CACHE", ROOT / ".cache" / "nvlibs"))

PINS = {
    "nvidia-cublas": "13.0.2.14",
    "nvidia-cufft": "12.0.0.61",
    "nvidia-curand": "10.4.0.35",
    "nvidia-cusparse": "12.6.3.3",
    "nvidia-cusolver": "12.0.4.66",
    "nvidia-nvjitlink": "13.0.88",  # cuFFT, cuSPARSE and cuSOLVER load it
}

# short name -> (package, shared object in nvidia/cu13/lib)
LIBRARIES = {
    "cublas": ("nvidia-cublas", "libcublas.so.13"),
    "cublasLt": ("nvidia-cublas", "libcublasLt.so.13"),
    "cufft": ("nvidia-cufft", "libcufft.so.12"),
    "curand": ("nvidia-curand", "libcurand.so.10"),
    "cusparse": ("nvidia-cusparse", "libcusparse.so.12"),
    "cusolver": ("nvidia-cusolver", "libcusolver.so.12"),
}


def target(package: str) -> Path:
    return CACHE / f"{package}-{PINS[package]}"


def ensure(package: str) -> Path:
    """The directory the pinned ``package`` is installed in (installing it the first time; pytest
    workers that ask at once wait for one installer)."""
    dest = target(package)
    done = dest / ".installed"
    if done.exists():
        return dest
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f".{package}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile",
                            "--disable-pip-version-check", "--target", str(dest),
                            f"{package}=={PINS[package]}"], check=True)
            done.write_text(PINS[package])
    return dest


def library(name: str) -> Path:
    """Path of the pinned library ``name`` (a key of LIBRARIES)."""
    package, so = LIBRARIES[name]
    path = ensure(package) / "nvidia" / "cu13" / "lib" / so
    if not path.is_file():
        raise FileNotFoundError(f"{package}=={PINS[package]} did not install {so}")
    return path


def link_flags(*names: str) -> list[str]:
    """nvcc flags that compile against and link to the pinned libraries ``names`` (keys of LIBRARIES),
    with an rpath to each (and to nvJitLink, which cuFFT, cuSPARSE and cuSOLVER load at run time)."""
    flags: list[str] = []
    dirs = []
    for name in names:
        lib = library(name)
        flags += [f"-I{lib.parent.parent / 'include'}", f"-l:{lib.name}"]
        dirs.append(lib.parent)
    if any(n in ("cufft", "cusparse", "cusolver") for n in names):
        dirs.append(ensure("nvidia-nvjitlink") / "nvidia" / "cu13" / "lib")
    if "cusolver" in names:  # it loads cuBLAS(Lt) and cuSPARSE
        dirs += [library("cublas").parent, library("cusparse").parent]
    for d in dict.fromkeys(dirs):
        flags += [f"-L{d}", f"-Xlinker=-rpath={d}"]
    return flags
