"""Compile the project's CUDA test programs with nvcc, into a content-addressed cache.

nvcc is found through CUDA_HOME, PATH, /usr/local/cuda, or the toolkit wheels; where none is
installed, the wheels (nvidia-cuda-nvcc and what it needs) are installed into the running Python
the first time a test asks for a build. Programs are built the way rgpu expects users to build
them: `-cudart shared -arch=sm_80` (the image then carries PTX, which the software GPU runs)."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("RGPU_BUILD_CACHE", ROOT / ".cache" / "cuda-build"))
def _wheels() -> list[str]:
    """The toolkit wheels of the CUDA version the checked-in generated files come from, so that a
    machine that installs them generates exactly those files (the drift check compares them)."""
    from rgpu.protocol.generated.calltable import CUDA_VERSION
    series = f"{CUDA_VERSION // 1000}.{CUDA_VERSION % 1000 // 10}.*"
    return [f"{name}=={series}" for name in
            ("nvidia-cuda-nvcc", "nvidia-cuda-runtime", "nvidia-cuda-crt", "nvidia-cuda-cccl", "nvidia-nvvm")]
KIND_FLAGS = {"exe": [], "ptx": ["-ptx"], "cubin": ["-cubin"], "fatbin": ["-fatbin"], "obj": ["-c"]}
DEFAULT_FLAGS = ["-cudart", "shared", "-arch=sm_80"]


class NvccMissing(RuntimeError):
    pass


def _wheel_root() -> Path:
    return Path(sysconfig.get_paths()["purelib"]) / "nvidia" / "cu13"


def find_nvcc() -> Path | None:
    cands = []
    if os.environ.get("CUDA_HOME"):
        cands.append(Path(os.environ["CUDA_HOME"]) / "bin" / "nvcc")
    if shutil.which("nvcc"):
        cands.append(Path(shutil.which("nvcc")))
    cands += [Path("/usr/local/cuda/bin/nvcc"), _wheel_root() / "bin" / "nvcc"]
    return next((c for c in cands if c.is_file() and os.access(c, os.X_OK)), None)


def ensure_nvcc() -> Path:
    nvcc = find_nvcc()
    if nvcc is None:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *_wheels()], check=True)
        nvcc = find_nvcc()
    if nvcc is None:
        raise NvccMissing("nvcc is not installed and the toolkit wheels did not provide it")
    return nvcc


def _env(nvcc: Path) -> dict:
    env = dict(os.environ)
    root = nvcc.parent.parent
    # The wheels ship libcudart.so.13 without the libcudart.so link that -cudart shared looks for.
    lib = root / "lib"
    if lib.is_dir() and not (lib / "libcudart.so").exists() and (lib / "libcudart.so.13").exists():
        try:
            (lib / "libcudart.so").symlink_to("libcudart.so.13")
        except OSError:
            pass
    # The wheels' nvcc.profile points the linker at lib64/, but the wheels install lib/: without
    # this, every link on a machine whose only toolkit is the wheels fails on -lcudart/-lcudadevrt.
    if lib.is_dir() and not (root / "lib64").exists():
        env["LIBRARY_PATH"] = os.pathsep.join(filter(None, [str(lib), env.get("LIBRARY_PATH")]))
    env["PATH"] = f"{nvcc.parent}:{env.get('PATH', '')}"
    return env


def runtime_lib_dir() -> Path:
    """Where the toolkit keeps NVIDIA's own libcudart.so.13 (lib64/ of an installed toolkit, lib/ of the wheels)."""
    nvcc = ensure_nvcc()
    # nvcc may be a wrapper script: its dry run names the toolkit it really is
    dry = subprocess.run([str(nvcc), "--dryrun", "-c", "-x", "cu", "/dev/null", "-o", "/dev/null"],
                         capture_output=True, text=True, env=_env(nvcc)).stderr
    tops = [Path(line.split("=", 1)[1].strip()) for line in dry.splitlines() if line.startswith("#$ TOP=")]
    for root in [*tops, nvcc.parent.parent]:
        for d in (root / "lib64", root / "lib", root / "targets" / "x86_64-linux" / "lib"):
            if (d / "libcudart.so.13").exists():
                return d.resolve()
    raise NvccMissing(f"no libcudart.so.13 next to {nvcc}")


def build(source: Path, kind: str = "exe", flags: Sequence[str] = (), arch_flags: Sequence[str] | None = None) -> Path:
    """Compile `source` (a .cu file) and return the output path; rebuilt only when the source,
    the flags or the compiler change."""
    source = Path(source)
    nvcc = ensure_nvcc()
    base = list(DEFAULT_FLAGS if arch_flags is None else arch_flags)
    if kind != "exe":
        base = [f for f in base if f not in ("-cudart", "shared")]
    argv = [*base, *KIND_FLAGS[kind], *flags]
    h = hashlib.sha256()
    h.update(source.read_bytes())
    h.update(" ".join(argv).encode())
    h.update(str(nvcc).encode())
    h.update(str(nvcc.stat().st_mtime_ns).encode())
    ext = {"exe": "", "ptx": ".ptx", "cubin": ".cubin", "fatbin": ".fatbin", "obj": ".o"}[kind]
    out = CACHE / f"{source.stem}-{h.hexdigest()[:16]}{ext}"
    if out.exists():
        return out
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    proc = subprocess.run([str(nvcc), *argv, str(source), "-o", str(tmp)], capture_output=True, text=True,
                          env=_env(nvcc))
    if proc.returncode != 0:
        raise RuntimeError(f"nvcc failed for {source.name}:\n{proc.stderr}")
    tmp.replace(out)
    return out


if __name__ == "__main__":
    # python -m tests.support.cudabuild FILE.cu [nvcc flags...]: build an executable, print its path
    print(build(Path(sys.argv[1]), "exe", sys.argv[2:]))
