"""NVIDIA's libraries as users install them: the wheels of the CUDA 13.0 release, pinned here (the one
place tests and benchmarks take them from), installed once into .cache/nvlibs with pip and shared by
every test worker (a lock file serialises the first install)."""
from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DIR = Path(os.environ.get("RGPU_NVLIBS", ROOT / ".cache" / "nvlibs"))

# The libraries of CUDA 13.0 Update 2 (the toolkit the generated files come from).
WHEELS = {
    "nvidia-cublas": "13.0.2.14",
    "nvidia-cufft": "12.0.0.61",
    "nvidia-curand": "10.4.0.35",
    "nvidia-cusparse": "12.6.3.3",
    "nvidia-cusolver": "12.0.4.66",
    "nvidia-nvjitlink": "13.0.88",
}


def ensure() -> Path:
    """The directory holding nvidia/cu13/{include,lib}; installed on first use."""
    import hashlib
    pins = ",".join(f"{k}=={v}" for k, v in sorted(WHEELS.items()))
    marker = DIR / f".installed-{hashlib.sha256(pins.encode()).hexdigest()[:16]}"
    if marker.exists():
        return DIR
    DIR.mkdir(parents=True, exist_ok=True)
    with open(DIR / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not marker.exists():
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--upgrade",
                            "--target", str(DIR), *(f"{k}=={v}" for k, v in WHEELS.items())], check=True)
            marker.touch()
    return DIR


def include_dir() -> Path:
    return ensure() / "nvidia" / "cu13" / "include"


def lib_dir() -> Path:
    return ensure() / "nvidia" / "cu13" / "lib"


def link_flags(*libs: str) -> list[str]:
    """nvcc flags that compile against and link to the wheels' libraries (`cublas` -> libcublas.so.13)."""
    lib = lib_dir()
    flags = [f"-I{include_dir()}", f"-L{lib}", f"-Xlinker=-rpath={lib}"]
    for name in libs:
        so = sorted(lib.glob(f"lib{name}.so.*"))
        if not so:
            raise FileNotFoundError(f"lib{name}.so.* is not in {lib}")
        flags.append(f"-l:{so[0].name}")
    return flags
