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


def log_delta(out_dir: Path) -> ctypes.CDLL:
    """The failover log's head codec (transport/log_delta.c) built alone, its two functions typed:
    rgpu_delta_encode(key, cur, len, out, cap) -> bytes of the delta, rgpu_delta_apply(key, delta, len, out)."""
    so = build(out_dir / "liblogdelta.so", TRANSPORT / "log_delta.c")
    so.rgpu_delta_encode.restype = ctypes.c_size_t
    so.rgpu_delta_encode.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p,
                                     ctypes.c_size_t]
    so.rgpu_delta_apply.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p]
    return so
