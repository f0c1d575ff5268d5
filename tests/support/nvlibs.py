"""NVIDIA's CUDA 13.0 math libraries, pinned in one place for every test that uses them.

The versions are the ones CUDA 13.0 Update 1 shipped (its nvcc is 13.0.88, as nvjitlink's wheel
is). `ensure(package)` installs a pinned wheel once, without its dependencies, into
one tree under ``.cache/nvlibs/`` (never into the running Python: the test programs must not
pick these up by accident), and `library(name)` gives the path of one of its shared objects.

    from tests.support import nvlibs
    lib = nvlibs.library("cublas")            # .../nvidia/cu13/lib/libcublas.so.13
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.pinned_venv import PIP_FLAGS, once, pin_digest, requirements

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


def target(package: str | None = None) -> Path:
    """Where the pinned wheels are installed: all into one tree, as pip installs them into
    site-packages (nvidia/cu13/lib holds every library, and each finds the others through its
    $ORIGIN runpath, as cuSPARSE finds libnvJitLink)."""
    return CACHE / f"cu13-{pin_digest(PINS)}"


def ensure(package: str | None = None) -> Path:
    """The directory the pinned wheels are installed in (installing them the first time; pytest
    workers that ask at once wait for one installer); or RGPU_NVLIBS_TREE, a directory where the same
    wheels are already installed (a site-packages holding nvidia/cu13/: a GPU host with no internet,
    scripts/gpu_check.sh), used as it is."""
    given = os.environ.get("RGPU_NVLIBS_TREE")
    if given:
        return Path(given)
    # one command: a later --target install into the same tree would replace the nvidia/ folder the
    # earlier one made
    return once(CACHE, target(), PINS, lambda dest: subprocess.run(
        [sys.executable, "-m", "pip", "install", *PIP_FLAGS, "--no-compile", "--upgrade", "--target", str(dest),
         *requirements(PINS)], check=True))


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
    # cuSOLVER's headers include cuBLAS's, and it loads cuBLAS(Lt) and cuSPARSE
    needed = list(dict.fromkeys([*names, *(("cublas", "cusparse") if "cusolver" in names else ())]))
    for name in needed:
        lib = library(name)
        flags.append(f"-I{lib.parent.parent / 'include'}")
        if name in names:
            flags.append(f"-l:{lib.name}")
        dirs.append(lib.parent)
    if any(n in ("cufft", "cusparse", "cusolver") for n in names):
        dirs.append(ensure() / "nvidia" / "cu13" / "lib")
    for d in dict.fromkeys(dirs):
        flags += [f"-L{d}", f"-Xlinker=-rpath={d}"]
    # an RPATH (not a RUNPATH) also finds what the libraries themselves load (libnvJitLink.so.13)
    return [*flags, "-Xlinker=--disable-new-dtags"]
