"""The digest of a chunk of device memory the copier compares (memory.py): server/native/digest.c in
librgpu_launches.so, about 14 GB/s here, the same function the cuda backend's kernel takes on the GPU
(server/native/device_digest.h, server/backends/cuda/digests.py); SHA-256 (1.4 GB/s) where that
library is not built, and then no kernel's digest is compared with it (`native`). The digests are
compared only within one worker's copier, never stored or sent."""
from __future__ import annotations

import hashlib

import cffi

ffi = cffi.FFI()
ffi.cdef("void rgpu_digest_chunk(const void *data, uint64_t n, uint64_t out[2]);")
_lib = None
_looked = False


def _library():
    global _lib, _looked
    if not _looked:
        _looked = True
        from rgpu.paths import open_native
        _lib, _ = open_native(ffi, "librgpu_launches.so", "rgpu_digest_chunk")
    return _lib


def native() -> bool:
    """Whether `chunk` is device_digest.h's function (what a GPU's kernel takes), not SHA-256."""
    return _library() is not None


def chunk(data) -> bytes:
    """16 bytes that differ when ``data`` (bytes, bytearray or a memoryview of them) does, but for
    about 2^-64 of changes; or SHA-256's 32 bytes."""
    lib = _library()
    if lib is None:
        return hashlib.sha256(data).digest()
    out = ffi.new("uint64_t[2]")
    lib.rgpu_digest_chunk(ffi.from_buffer(data), len(data), out)
    return bytes(ffi.buffer(out))
