"""Packs a directory of shared libraries (librgpu.so and what it links, from libhook/build.sh and
docker/bundle-libs.sh) into the wheel rgpu-clientlib, the client library of scripts/bundle.sh.

Usage: clientlib_wheel.py LIBDIR VERSION OUTDIR [INCLUDEDIR]

INCLUDEDIR's headers (libzmq's zmq.h, from scripts/bundle.sh) go into include/ beside lib/, so that a
host with no libzmq development package can still compile a program against the bundled libzmq
(benchmarks/harness/bench.c: -I<package>/include -l:libzmq.so.5).

A wheel cannot hold symbolic links, so only regular files go in (librgpu.so under its own name, the
bundled libraries under their sonames); rgpu.paths makes the names CUDA programs look for
(libcuda.so.1, libcudart.so.13, ...) as links to librgpu.so when it first finds the package, since
copies would be loaded as separate libraries with separate state. Tagged linux_x86_64: the
libraries are this host's build, not a manylinux one.
"""
from __future__ import annotations

import base64
import hashlib
import sys
import zipfile
from pathlib import Path

PACKAGE = "rgpu_clientlib"


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build(libdir: Path, version: str, outdir: Path, include: Path | None = None) -> Path:
    libs = sorted(p for p in libdir.iterdir() if p.is_file() and not p.is_symlink() and ".so" in p.name)
    if not any(p.name == "librgpu.so" for p in libs):
        raise SystemExit(f"clientlib_wheel: {libdir} holds no librgpu.so")
    dist = f"{PACKAGE}-{version}"
    tag = "py3-none-linux_x86_64"
    files: dict[str, bytes] = {
        f"{PACKAGE}/__init__.py": (b'"""rgpu\'s client library (librgpu.so) and the shared libraries it needs, in lib/: '
                                   b'found by rgpu.paths.libdir(); '
                                   b'libzmq\'s header in include/."""\n'),
    }
    for p in libs:
        files[f"{PACKAGE}/lib/{p.name}"] = p.read_bytes()
    for p in sorted(include.iterdir()) if include is not None else ():
        if p.is_file() and p.suffix == ".h":
            files[f"{PACKAGE}/include/{p.name}"] = p.read_bytes()
    files[f"{dist}.dist-info/METADATA"] = (
        f"Metadata-Version: 2.1\nName: rgpu-clientlib\nVersion: {version}\n"
        f"Summary: rgpu's client library with the libzmq it links (and its header), for hosts without "
        f"system packages\n").encode()
    files[f"{dist}.dist-info/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: rgpu scripts/clientlib_wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n").encode()
    record = "".join(f"{name},{_digest(data)},{len(data)}\n" for name, data in files.items())
    record += f"{dist}.dist-info/RECORD,,\n"
    out = outdir / f"{dist}-{tag}.whl"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name.endswith(".so") or ".so." in name else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
        z.writestr(f"{dist}.dist-info/RECORD", record)
    return out


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        raise SystemExit(__doc__)
    include = Path(sys.argv[4]) if len(sys.argv) == 5 else None
    print(f"bundle: {build(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), include).name}")
