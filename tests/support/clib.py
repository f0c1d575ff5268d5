"""Pieces of the client library (libhook/src) compiled alone into a shared library that a unit test
calls through ctypes: the transport floor's headers are always visible, as in libhook/build.sh."""
from __future__ import annotations

import ctypes
import subprocess
from pathlib import Path

from rgpu.protocol.codegen import __main__ as codegen

LIBHOOK = codegen.ROOT / "libhook"
TRANSPORT = LIBHOOK / "src" / "transport"


def build(out: Path, *sources: Path, includes: tuple[Path, ...] = ()) -> ctypes.CDLL:
    """`sources` into the shared library `out`, warnings as errors, and loaded."""
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-Wall", "-Werror",
                    *(f"-I{d}" for d in (TRANSPORT, *includes)), "-o", str(out), *map(str, sources)], check=True)
    return ctypes.CDLL(str(out))
