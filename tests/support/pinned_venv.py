"""Pinned wheels installed once into a tree under ``.cache/``: the one way the test setup brings in
NVIDIA's libraries (tests/support/nvlibs.py, a pip --target tree) and the frameworks
(frameworks.py, torchenv.py, each a virtualenv of its own). A tree is named by the digest of its pin
set, so changing a pin makes a new one, and pytest workers that ask at once wait for one installer
(a file lock) instead of installing twice.

    venv = PinnedVenv(CACHE, {"cupy-cuda13x": "14.2.0", ...})
    venv.python()                # .../<cache>/venv-<digest>/bin/python, made the first time

The trees would come to 7 GB (PyTorch's alone 4.3 GB), so installing them is kept lean on disk: pip
keeps no copy of what it downloads (``--no-cache-dir``: its HTTP cache would hold another 3 GB of
wheels), a virtualenv's pins are installed one at a time (pip holds every wheel of one command on
disk until it has installed them all), and a file a finished tree already holds (the same cuFFT in
nvlibs' tree and in PyTorch's: about 1 GB) is hard-linked, not kept twice: they fill about 6 GB.
"""
from __future__ import annotations

import fcntl
import filecmp
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable


def pin_digest(pins: dict[str, str]) -> str:
    return hashlib.sha256(",".join(f"{k}=={v}" for k, v in sorted(pins.items())).encode()).hexdigest()[:12]


def requirements(pins: dict[str, str]) -> list[str]:
    return [f"{k}=={v}" for k, v in pins.items()]


# pip's flags for every pinned install: the pins are the whole closure, wheels only, and no copy of a
# downloaded wheel kept in pip's cache (a CI machine installs each tree once)
PIP_FLAGS = ("--quiet", "--no-deps", "--only-binary", ":all:", "--no-cache-dir", "--disable-pip-version-check")

# trees `once` has seen this process (their caches): a new tree shares identical files with the
# finished ones
_CACHES: set[Path] = set()

# files under this size are not worth a hash-and-link pass
SHARE_MIN_BYTES = 1 << 20


def once(cache: Path, dest: Path, pins: dict[str, str], install: Callable[[Path], None]) -> Path:
    """`install(dest)` unless a finished install is there (its marker lists the pins); `dest`."""
    _CACHES.add(cache)
    done = dest / ".installed"
    if not done.exists():
        cache.mkdir(parents=True, exist_ok=True)
        with open(cache / ".install.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not done.exists():
                try:
                    install(dest)
                except subprocess.CalledProcessError as e:
                    raise RuntimeError(f"installing {len(pins)} pinned wheels into {dest} failed "
                                       f"({free_gb(cache):.1f} GB free on its disk now): {e}") from e
                share_with_finished(dest)
                done.write_text("\n".join(requirements(pins)))
    return dest


def free_gb(path: Path) -> float:
    while not path.exists():
        path = path.parent
    return shutil.disk_usage(path).free / 1e9


def finished_trees(cache: Path) -> list[Path]:
    return [d for d in sorted(cache.glob("*")) if (d / ".installed").exists()] if cache.is_dir() else []


def share_with_finished(tree: Path) -> int:
    """`share_identical` with every finished tree of the caches this process has seen."""
    return share_identical(tree, [t for c in _CACHES for t in finished_trees(c) if t != tree])


def _large_files(root: Path):
    for d, _, names in os.walk(root):
        for name in names:
            path = Path(d, name)
            if not path.is_symlink() and path.stat().st_size >= SHARE_MIN_BYTES:
                yield path


def share_identical(tree: Path, others: list[Path]) -> int:
    """Replace each large file of `tree` that one of `others` holds byte for byte with a hard link to
    that one (nothing writes to an installed tree); the bytes saved. Another disk (EXDEV) or a
    filesystem without links keeps the copy."""
    by_size: dict[int, list[Path]] = {}
    for other in others:
        for path in _large_files(other):
            by_size.setdefault(path.stat().st_size, []).append(path)
    saved = 0
    for path in _large_files(tree):
        st = path.stat()
        for twin in by_size.get(st.st_size, ()):
            if twin.stat().st_ino == st.st_ino or not filecmp.cmp(path, twin, shallow=False):
                continue
            spare = path.with_name(path.name + ".rgpu-link")
            try:
                os.link(twin, spare)
            except OSError:
                break
            os.replace(spare, path)
            saved += st.st_size
            break
    return saved


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
        pins = requirements(self.pins)
        # a pin a command: pip keeps each command's downloaded wheels (PyTorch's are 3 GB in all) on
        # disk until it has installed them all; and what a pin shares with a finished tree is linked
        # at once, so the disk never holds both copies of all of them
        for pin in pins:
            subprocess.run([str(dest / "bin" / "python"), "-m", "pip", "install", *PIP_FLAGS,
                            *([] if self.compile_bytecode else ["--no-compile"]), pin], check=True)
            share_with_finished(dest)


def prepare_all() -> None:
    """Install every pinned tree the suite uses (nvlibs, the frameworks, torch) before pytest starts:
    scripts/test.sh runs this, so no test installs gigabytes while the other worker's daemons are
    being timed (a first install inside the suite loaded CI's two cores for minutes)."""
    from tests.support import frameworks, nvlibs, torchenv
    print(f"test setup: {free_gb(nvlibs.CACHE):.1f} GB free on the disk of .cache "
          f"(a first install fills about 6 GB)", flush=True)
    for what, make in (("NVIDIA's libraries", nvlibs.ensure), ("CuPy and numba-cuda", frameworks.python),
                       ("PyTorch", torchenv.python)):
        print(f"test setup: {what}: {make()}", flush=True)


if __name__ == "__main__":
    prepare_all()
