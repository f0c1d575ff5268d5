"""CUDA frameworks from their wheels (CuPy, numba-cuda), pinned in one place, in a virtualenv of
their own under ``.cache/frameworks/`` (never the project's .venv: rgpu's own tools must not import
them, and their numpy must not replace rgpu's).

`python()` creates the virtualenv the first time (pytest workers that ask at once wait for one
installer) and returns its interpreter. The math libraries (cuBLAS, cuFFT, nvJitLink) are not
installed again: `cupy_env()` puts the tree tests/support/nvlibs.py installs on the library path,
where CuPy (through cuda-pathfinder) finds them as it finds a system toolkit's. The headers CuPy's
NVRTC kernels include come from NVIDIA's own cudart wheel, installed into the virtualenv beside
NVRTC, so CuPy finds its toolkit root at ``site-packages/nvidia/cu13`` as on any
machine that installed CUDA from PyPI.

    from tests.support import frameworks
    py = frameworks.python()                       # .../.cache/frameworks/<pins>/bin/python
    run_cli("run", "--server", url, "--", str(py), script, env=frameworks.cupy_env())
"""
from __future__ import annotations

import os
from pathlib import Path

from tests.support import nvlibs
from tests.support.pinned_venv import PinnedVenv

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("RGPU_FRAMEWORKS_CACHE", ROOT / ".cache" / "frameworks"))

# Versions as of the CUDA 13.0 toolkit the rest of the suite pins (nvlibs.PINS): the toolkit wheels
# are those of CUDA 13.0 Update 1 (nvcc 13.0.88), the frameworks the newest that support it.
# Installed without dependencies: this is the whole closure.
PINS = {
    "cupy-cuda13x": "14.2.0",
    "numba-cuda": "0.30.4",
    "numba": "0.68.1",
    "llvmlite": "0.50.0",
    "cuda-bindings": "13.0.3",
    "cuda-core": "1.2.2",
    "cuda-pathfinder": "1.9.1",
    "numpy": "2.4.6",
    "packaging": "26.4",
    # the toolkit pieces a framework compiles with, as `cuda-toolkit[nvrtc,nvvm,cudart]==13.0.*` picks
    # them: NVRTC (CuPy), NVVM (numba), and cudart's headers, which CuPy's kernels include
    # (cuda_fp16.h, ...; without them CuPy fails with "Failed to find CUDA headers")
    "nvidia-cuda-nvrtc": "13.0.88",
    "nvidia-nvvm": "13.0.88",
    "nvidia-cuda-runtime": "13.0.96",
    # CCCL's headers, as `cuda-toolkit[cccl]==13.0.*` (numba-cuda[cu13]) picks them: numba's runtime
    # (NRT: array methods and reductions) and cooperative groups' device functions include them
    "nvidia-cuda-cccl": "13.0.85",
    # what numba-cuda's own test suite imports (numba.cuda.testing: pytest and filecheck; its cffi
    # tests), run through rgpu by tests/e2e/test_numba_suite.py: pytest with its closure on 3.11
    "pytest": "9.2.0",
    "pluggy": "1.7.0",
    "iniconfig": "2.3.1",
    "pygments": "2.21.0",
    "filecheck": "1.0.6",
    "cffi": "2.1.1",
    "pycparser": "3.12",
    "ml-dtypes": "0.6.0",  # numba-cuda's bfloat16 tests compare with it
}


_VENV = PinnedVenv(CACHE, PINS)
target = _VENV.target


def python() -> Path:
    """The pinned virtualenv's interpreter; or RGPU_FRAMEWORKS_PYTHON, an interpreter that already has
    CuPy and numba-cuda with NVIDIA's libraries (a GPU host with no internet: scripts/gpu_check.sh),
    used as it is."""
    given = os.environ.get("RGPU_FRAMEWORKS_PYTHON")
    if given:
        return Path(given)
    return _VENV.python()


def cupy_env(base: dict | None = None) -> dict:
    """The environment a CuPy program runs in: cuBLAS, cuFFT and nvJitLink of the pinned math
    libraries on the library path (an RGPU_FRAMEWORKS_PYTHON finds its own)."""
    env = dict(os.environ if base is None else base)
    if os.environ.get("RGPU_FRAMEWORKS_PYTHON"):
        return env
    lib = nvlibs.library("cublas").parent
    env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [str(lib), env.get("LD_LIBRARY_PATH")]))
    return env


def numba_env(base: dict | None = None) -> dict:
    """The environment a numba-cuda program runs in: the virtualenv as installed (NVVM and NVRTC
    from its wheels; no nvJitLink, so numba links through the driver's cuLink* — see docs/frameworks.md,
    "CuPy and numba on rgpu")."""
    return dict(os.environ if base is None else base)
