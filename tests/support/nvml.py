"""nvml.h for the NVML face's generator: NVIDIA's nvidia-nvml-dev wheel at the pinned version, installed
into a cache directory the first time a test asks (protocol/codegen/nvml.py reads it there)."""
from __future__ import annotations

import fcntl
import subprocess
import sys
from pathlib import Path

from rgpu.protocol.codegen import nvml


def ensure_installed() -> Path:
    """nvml.h's path (installing the wheel first if it is missing)."""
    found = nvml.find_header()
    if found is None:
        nvml.wheel_dir().mkdir(parents=True, exist_ok=True)
        with open(nvml.wheel_dir() / ".install.lock", "w") as lock:  # pytest -n 2: one installer
            fcntl.flock(lock, fcntl.LOCK_EX)
            if nvml.find_header() is None:
                subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target",
                                str(nvml.wheel_dir()), f"{nvml.WHEEL}=={nvml.VERSION}"], check=True)
        found = nvml.find_header()
    if found is None:
        raise RuntimeError(f"the {nvml.WHEEL} wheel did not provide nvml.h")
    return found
