"""PyTorch with CUDA from its wheels, pinned in one place, in a virtualenv of its own under
``.cache/torch/`` (never the project's .venv: rgpu's own tools must not import it).

`python()` creates the virtualenv the first time (pytest workers that ask at once wait for one
installer) and returns its interpreter. The pins are torch's whole closure as pip resolves
``torch==2.14.1`` on Linux, installed without dependencies, less what an eager program on rgpu
never loads: Triton (torch.compile's code generator, 0.9 GB) and the cuda-bindings / cuda-toolkit
metapackages. NVIDIA's libraries (cuBLAS, cuDNN, ...) are torch's own, from these wheels, not
tests/support/nvlibs.py's: torch links to the versions it was built with.

The first install fetches about 3 GB of wheels and fills about 4.3 GB of disk (torch 1.1 GB, cuDNN
0.9 GB, cuBLAS and the other CUDA 13 libraries 1.8 GB), of which the 1 GB that nvlibs' and the
frameworks' trees hold byte for byte (cuFFT, cuSPARSE, cuSOLVER, cuRAND, NVRTC) is hard-linked to
theirs (pinned_venv.py); it takes about a minute on two cores. ``RGPU_TORCH_CACHE`` puts the tree
elsewhere (a shared cache).

    from tests.support import torchenv
    py = torchenv.python()                      # .../.cache/torch/venv-<pins>/bin/python

RGPU_TORCH_PYTHON names an interpreter with its own CUDA torch instead (nothing is installed then).
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from tests.support.pinned_venv import PinnedVenv

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


_VENV = PinnedVenv(CACHE, PINS, base_python=_base_python, compile_bytecode=False)
target = _VENV.target


def python() -> Path:
    """The pinned virtualenv's interpreter; or RGPU_TORCH_PYTHON, an interpreter that already has a CUDA
    torch (a GPU host with no internet: scripts/gpu_check.sh), used as it is."""
    given = os.environ.get("RGPU_TORCH_PYTHON")
    if given:
        return Path(given)
    return _VENV.python()
