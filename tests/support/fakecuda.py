"""Stand-in CUDA drivers for the cuda backend's unit tests: C source compiled into a shared library
that RGPU_LIBCUDA points the backend at (each test file writes the driver functions it needs)."""
from __future__ import annotations

import subprocess
from pathlib import Path

from rgpu.protocol.codegen import __main__ as codegen


def build(directory: Path, source: str) -> Path:
    """Compile `source` against the generated CUDA types into directory/libfakecuda.so."""
    (directory / "fake.c").write_text(source)
    lib = directory / "libfakecuda.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-Wall", "-Werror", f"-I{codegen.C_OUT}", "-o", str(lib),
                    str(directory / "fake.c")], check=True)
    return lib
