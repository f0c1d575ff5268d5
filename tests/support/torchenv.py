"""PyTorch with CUDA from its wheels, pinned in one place, in a virtualenv of its own under
``.cache/torch/`` (never the project's .venv: rgpu's own tools must not import it).

`python()` creates the virtualenv the first time (pytest workers that ask at once wait for one
installer) and returns its interpreter. The pins are torch's whole closure as pip resolves
``torch==2.14.1`` on Linux, installed without dependencies, less what an eager program on rgpu
never loads: Triton (torch.compile's code generator, 0.9 GB) and the cuda-bindings / cuda-toolkit
metapackages. NVIDIA's libraries (cuBLAS, cuDNN, ...) are torch's own, from these wheels, not
tests/support/nvlibs.py's: torch links to the versions it was built with.

The first install fetches about 3 GB of wheels and fills about 4.5 GB of disk (torch 1.1 GB, cuDNN
0.9 GB, cuBLAS and the other CUDA 13 libraries 1.8 GB); from a local wheel mirror it takes about
a minute and a half on two cores. ``RGPU_TORCH_CACHE`` puts the tree elsewhere (a shared cache).

    from tests.support import torchenv
    py = torchenv.python()                      # .../.cache/torch/venv-<pins>/bin/python
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("RGPU_TORCH_CACHE", ROOT / ".cache" / "torch"))

PINS = {
    "torch": "2.14.1",  # cp311 wheel: the virtualenv is made from Python 3.11
    # NVIDIA's CUDA 13 libraries, at the versions torch 2.14.1 (cu130) requires
    "nvidia-cublas": "13.1.1.3",
    "nvidia-cuda-cupti": "13.0.85",
    "nvidia-cuda-nvrtc": "13.0.88",
    "nvidia-cuda-runtime": "13.0.96",
    "nvidia-cudnn-cu13": "9.24.0.43",
    "nvidia-cufft": "12.0.0.61",
    "nvidia-cufile": "1.15.1.6",
    "nvidia-curand": "10.4.0.35",
    "nvidia-cusolver": "12.0.4.66",
    "nvidia-cusparse": "12.6.3.3",
    "nvidia-cusparselt-cu13": "0.8.1",
    "nvidia-nccl-cu13": "2.30.7",
    "nvidia-nvjitlink": "13.5.37",
    "nvidia-nvshmem-cu13": "3.4.5",
    "nvidia-nvtx": "13.0.85",
    # torch's pure-Python dependencies
    "filelock": "4.3.1",
    "fsspec": "2026.9.0",
    "jinja2": "3.1.6",
    "markupsafe": "3.0.4",
    "mpmath": "1.3.0",
    "networkx": "3.6.1",
    "sympy": "1.14.0",
    "typing-extensions": "4.16.0",
}


def _pin_set() -> str:
    return hashlib.sha256(",".join(f"{k}=={v}" for k, v in sorted(PINS.items())).encode()).hexdigest()[:12]


def target() -> Path:
    return CACHE / f"venv-{_pin_set()}"


def python() -> Path:
    """The virtualenv's interpreter (creating the virtualenv the first time)."""
    dest = target()
    done = dest / ".installed"
    if not done.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        with open(CACHE / ".install.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not done.exists():
                _install(dest)
                done.write_text("\n".join(f"{k}=={v}" for k, v in PINS.items()))
    return dest / "bin" / "python"


def _base_python() -> str:
    """A Python 3.11 (torch's wheel here is cp311): this interpreter's base when it is one (Debian 12's
    python3), else a python3.11 on PATH."""
    base = getattr(sys, "_base_executable", sys.executable)
    if sys.version_info[:2] == (3, 11):
        return base
    found = shutil.which("python3.11")
    if not found:
        raise RuntimeError(f"torch=={PINS['torch']} is pinned as a cp311 wheel: install Python 3.11 "
                           f"(this is {sys.version.split()[0]})")
    return found


def _install(dest: Path) -> None:
    shutil.rmtree(dest, ignore_errors=True)  # a half-made one from an interrupted run
    subprocess.run([_base_python(), "-m", "venv", str(dest)], check=True)
    subprocess.run([str(dest / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps", "--only-binary",
                    ":all:", "--no-compile", "--disable-pip-version-check",
                    *(f"{k}=={v}" for k, v in PINS.items())], check=True)
