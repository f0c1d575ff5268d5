"""Build C programs the way CUDA 12 builds them: against the CUDA 12.x headers and linked to the
real libcudart.so.12 (so every Runtime symbol carries the libcudart.so.12 version node).

CUDA 12's nvcc cannot be had here: the nvidia-cuda-nvcc-cu12 wheels (12.1.105, 12.4.131, 12.8.93
and 12.9.86 were looked at) hold only ptxas, crt/ headers and nvvm.h, neither nvcc nor cicc. So the
programs are C, and the kernel program registers and launches its kernels with the calls CUDA 12's
nvcc writes into host code. The headers and libcudart.so.12 come from the pinned 12.x wheels,
installed into a cache directory the first time a test asks (never into the running Python, where
their nvidia/cuda_runtime/include would shadow the 13.0 headers the generator reads)."""
from __future__ import annotations

import fcntl
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from rgpu.protocol.codegen import cuda12


def ensure_installed() -> tuple[Path, tuple[Path, ...]]:
    """The 12.x include directories (installing the wheels first if they are missing)."""
    dirs = cuda12.include_dirs()
    if dirs is None:
        cuda12.wheel_dir().mkdir(parents=True, exist_ok=True)
        with open(cuda12.wheel_dir() / ".install.lock", "w") as lock:  # pytest -n 2: one installer
            fcntl.flock(lock, fcntl.LOCK_EX)
            dirs = cuda12.include_dirs()
            if dirs is None:
                _install()
        dirs = cuda12.include_dirs()
    if dirs is None:
        raise RuntimeError(f"the CUDA {cuda12.SERIES} wheels did not provide cuda.h and crt/ headers")
    return dirs


def _install() -> None:
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target",
                    str(cuda12.wheel_dir()), *(f"{w}=={cuda12.SERIES}.*" for w in cuda12.WHEELS)], check=True)


def libcudart12() -> Path:
    ensure_installed()
    return cuda12.wheel_dir() / "nvidia" / "cuda_runtime" / "lib" / "libcudart.so.12"


def include_flags() -> list[str]:
    rt, also = ensure_installed()
    return [f"-I{rt}", *(f"-I{d}" for d in also)]


def build_runtime_program(source: Path, out: Path, extra: Sequence[str] = ()) -> Path:
    """`source` compiled against the 12.x headers and linked to CUDA 12's own libcudart.so.12."""
    lib = libcudart12()
    subprocess.run(["gcc", "-O1", "-Wall", "-Wno-deprecated-declarations", *include_flags(), "-o", str(out), str(source), *extra,
                    str(lib), f"-Wl,-rpath-link,{lib.parent}"], check=True)
    return out


def build_driver_program(source: Path, workdir: Path) -> Path:
    """`source` compiled against the 12.x cuda.h and linked to an unversioned libcuda.so.1, as NVIDIA's
    is (no libcuda ships in the wheels): a stand-in that defines exactly the cu* names the object needs."""
    obj = workdir / (source.stem + ".o")
    subprocess.run(["gcc", "-O1", "-Wall", "-Wno-deprecated-declarations", "-c", *include_flags(), "-o", str(obj), str(source)], check=True)
    undefined = subprocess.run(["nm", "-u", str(obj)], capture_output=True, text=True, check=True).stdout.split()
    names = sorted(n for n in undefined if n.startswith("cu"))
    (workdir / "libcuda_stand_in.c").write_text("".join(f"int {n}(void) {{ return 999; }}\n" for n in names))
    subprocess.run(["gcc", "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o", str(workdir / "libcuda.so"),
                    str(workdir / "libcuda_stand_in.c")], check=True)
    exe = workdir / source.stem
    subprocess.run(["gcc", "-o", str(exe), str(obj), f"-L{workdir}", "-lcuda"], check=True)
    return exe
