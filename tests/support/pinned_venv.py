"""Pinned wheels installed once into a tree under ``.cache/``: the one way the test setup brings in
NVIDIA's libraries (tests/support/nvlibs.py, a pip --target tree) and the frameworks
(frameworks.py, torchenv.py, each a virtualenv of its own). A tree is named by the digest of its pin
set, so changing a pin makes a new one, and pytest workers that ask at once wait for one installer
(a file lock) instead of installing twice.

    venv = PinnedVenv(CACHE, {"cupy-cuda13x": "14.2.0", ...})
    venv.python()                # .../<cache>/venv-<digest>/bin/python, made the first time
"""
from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable


def pin_digest(pins: dict[str, str]) -> str:
    return hashlib.sha256(",".join(f"{k}=={v}" for k, v in sorted(pins.items())).encode()).hexdigest()[:12]


def requirements(pins: dict[str, str]) -> list[str]:
    return [f"{k}=={v}" for k, v in pins.items()]


def once(cache: Path, dest: Path, pins: dict[str, str], install: Callable[[Path], None]) -> Path:
    """`install(dest)` unless a finished install is there (its marker lists the pins); `dest`."""
    done = dest / ".installed"
    if not done.exists():
        cache.mkdir(parents=True, exist_ok=True)
        with open(cache / ".install.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not done.exists():
                install(dest)
                done.write_text("\n".join(requirements(pins)))
    return dest


class PinnedVenv:
    """A virtualenv holding exactly `pins` (installed without dependencies: the pins are the whole
    closure), made from `base_python()` (default: this interpreter's base, never the project's
    venv, whose site-packages the frameworks must not see)."""

    def __init__(self, cache: Path, pins: dict[str, str], base_python: Callable[[], str] | None = None,
                 compile_bytecode: bool = True):
        self.cache, self.pins = cache, pins
        self.base_python = base_python or (lambda: getattr(sys, "_base_executable", sys.executable))
        self.compile_bytecode = compile_bytecode

    def target(self) -> Path:
        return self.cache / f"venv-{pin_digest(self.pins)}"

    def python(self) -> Path:
        """The virtualenv's interpreter (creating the virtualenv the first time)."""
        return once(self.cache, self.target(), self.pins, self._install) / "bin" / "python"

    def _install(self, dest: Path) -> None:
        shutil.rmtree(dest, ignore_errors=True)  # a half-made one from an interrupted run
        subprocess.run([self.base_python(), "-m", "venv", str(dest)], check=True)
        subprocess.run([str(dest / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps",
                        "--only-binary", ":all:", "--disable-pip-version-check",
                        *([] if self.compile_bytecode else ["--no-compile"]), *requirements(self.pins)], check=True)


def prepare_all() -> None:
    """Install every pinned tree the suite uses (nvlibs, the frameworks, torch) before pytest starts:
    scripts/test.sh runs this, so no test installs gigabytes while the other worker's daemons are
    being timed (a first install inside the suite loaded CI's two cores for minutes)."""
    from tests.support import frameworks, nvlibs, torchenv
    for what, make in (("NVIDIA's libraries", nvlibs.ensure), ("CuPy and numba-cuda", frameworks.python),
                       ("PyTorch", torchenv.python)):
        print(f"test setup: {what}: {make()}", flush=True)


if __name__ == "__main__":
    prepare_all()
