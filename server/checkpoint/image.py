"""The checkpoint image: what a session was, as bytes that can sit in memory, on disk or travel.

    Image(meta, state, modules, chunks)
      meta     {format, rgpu, protocol, backend, arch, window, created}: what can restore it
      state    the session's objects and settings (objects.py), msgpack-able
      modules  module image digest -> the image's bytes (and companions'), so a server that never
               saw the program can load its kernels
      chunks   [(device address, raw length, zstd frame)]: the memory that was ever written, in
               pieces of at most memory.CHUNK bytes; never-written memory is not there at all

On disk (``save``/``load``) an image is one file:

    magic b"RGPUCKP1" | u32 format | u32 header length | header (msgpack: meta, state, module and
    chunk directories) | module images | chunk frames | SHA-256 of everything before it

``load`` refuses, with a message that says what to do, a file that is not a checkpoint, one from
another format version or another rgpu, and one whose digest does not match (truncated, flipped
bits, edited): a corrupt checkpoint is never half-restored.
"""
from __future__ import annotations

import hashlib
import os
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path

import msgpack
import zstandard

from rgpu import __version__
from rgpu.protocol.wire import PROTOCOL_VERSION

MAGIC = b"RGPUCKP1"
FORMAT = 1
_PREFIX = struct.Struct("<8sII")
DIGEST_LEN = 32
MAX_HEADER = 256 << 20
ZSTD_LEVEL = 1  # the fastest level: memory images are made on the pause's clock, and zeros shrink at any level


class CheckpointError(Exception):
    """A checkpoint that cannot be made or restored; the message says why and what to do."""


def compressor() -> zstandard.ZstdCompressor:
    """One per thread (zstandard's objects are not thread-safe)."""
    return zstandard.ZstdCompressor(level=ZSTD_LEVEL)


SAMPLE = 64 << 10  # the start of a chunk compressed first, to see whether the rest is worth it
RAW_BLOCK = 128 << 10  # zstd's largest block
_RAW_HEAD = struct.Struct("<IBQ")  # magic, descriptor, content size


def compress_chunk(cctx: zstandard.ZstdCompressor, data) -> bytes:
    """A zstd frame of `data`: compressed, or, where a sample of its start does not shrink (random
    bytes, and to zstd most of a model's weights and activations), its bytes as the raw blocks of a
    frame: a copy (about 9 GB/s) instead of level 1 on bytes it cannot shrink (1.6 GB/s on random
    bytes), which held a move's pre-copy to 0.45 GB/s. Either frame decompresses as any other."""
    if len(data) > 2 * SAMPLE and len(cctx.compress(memoryview(data)[:SAMPLE])) > SAMPLE * 31 // 32:
        return raw_frame(data)
    return cctx.compress(data)


def raw_frame(data) -> bytes:
    """`data` as one zstd frame of raw blocks (RFC 8878: single segment, content size in 8 bytes)."""
    view = memoryview(data).cast("B")
    n = len(view)
    parts = [_RAW_HEAD.pack(0xFD2FB528, 0xE0, n)]
    for off in range(0, n, RAW_BLOCK):
        size = min(RAW_BLOCK, n - off)
        last = off + size >= n
        parts.append((size << 3 | int(last)).to_bytes(3, "little"))  # block type 0: raw
        parts.append(view[off:off + size])
    if n == 0:
        parts.append((1).to_bytes(3, "little"))  # one empty last block
    return b"".join(parts)


def decompress(frame, raw_length: int) -> bytes:
    try:
        data = zstandard.ZstdDecompressor().decompress(frame, max_output_size=raw_length)
    except zstandard.ZstdError as e:
        raise CheckpointError(f"a memory chunk does not decompress ({e}): the checkpoint is corrupt") from None
    if len(data) != raw_length:
        raise CheckpointError(f"a memory chunk holds {len(data)} bytes, not {raw_length}: the checkpoint is corrupt")
    return data


def new_meta(backend: str, arch: str, window: int | None) -> dict:
    return {"format": FORMAT, "rgpu": __version__, "protocol": PROTOCOL_VERSION, "backend": backend,
            "arch": arch, "window": window, "created": time.time()}


@dataclass
class Image:
    meta: dict
    state: dict
    modules: dict[str, bytes] = field(default_factory=dict)
    chunks: list[tuple[int, int, bytes]] = field(default_factory=list)

    @property
    def memory_bytes(self) -> int:
        """Bytes of device memory the chunks restore."""
        return sum(n for _, n, _ in self.chunks)

    @property
    def stored_bytes(self) -> int:
        """Bytes the image takes: compressed memory and module images."""
        return sum(len(c) for _, _, c in self.chunks) + sum(map(len, self.modules.values()))

    def check_compatible(self, backend: str, arch: str) -> None:
        """Refuse to restore onto a device of another kind: its addresses, kernels and properties
        would not be the ones the program was given."""
        if self.meta.get("backend") != backend:
            raise CheckpointError(f"the checkpoint is of a {self.meta.get('backend')} session; this server's "
                                  f"GPUs are {backend}: restore it on a {self.meta.get('backend')} server")
        if self.meta.get("arch") != arch:
            raise CheckpointError(f"the checkpoint's GPU is {self.meta.get('arch')}, this one is {arch}: its kernels "
                                  "and the properties the program read would differ; restore it on a GPU of the "
                                  "same architecture")

    # -- disk --------------------------------------------------------------------------------
    def save(self, path: str | os.PathLike) -> int:
        """Write the image to ``path`` (a temporary beside it, then renamed: a reader never sees a
        half-written checkpoint) with owner-only permissions; returns its size."""
        path = Path(path)
        header = msgpack.packb({"meta": self.meta, "state": self.state,
                                "modules": [[d, len(b)] for d, b in self.modules.items()],
                                "chunks": [[a, n, len(c)] for a, n, c in self.chunks]}, use_bin_type=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        digest = hashlib.sha256()
        size = 0
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            with os.fdopen(fd, "wb") as f:
                for part in (_PREFIX.pack(MAGIC, FORMAT, len(header)), header, *self.modules.values(),
                             *(c for _, _, c in self.chunks)):
                    digest.update(part)
                    f.write(part)
                    size += len(part)
                f.write(digest.digest())
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        return size + DIGEST_LEN

    def to_bytes(self) -> bytes:
        """The image as ``save`` writes it, in memory (a failover checkpoint travels to the client)."""
        header = msgpack.packb({"meta": self.meta, "state": self.state,
                                "modules": [[d, len(b)] for d, b in self.modules.items()],
                                "chunks": [[a, n, len(c)] for a, n, c in self.chunks]}, use_bin_type=True)
        body = b"".join((_PREFIX.pack(MAGIC, FORMAT, len(header)), header, *self.modules.values(),
                         *(c for _, _, c in self.chunks)))
        return body + hashlib.sha256(body).digest()

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Image":
        """Read and verify a checkpoint file; raises CheckpointError saying what is wrong with it."""
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as e:
            raise CheckpointError(f"checkpoint {path} cannot be read: {e.strerror}") from None
        return cls.from_bytes(data, str(path))

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "checkpoint") -> "Image":
        if len(data) < _PREFIX.size + DIGEST_LEN:
            raise CheckpointError(f"{name} is not an rgpu checkpoint (only {len(data)} bytes)")
        magic, fmt, hlen = _PREFIX.unpack_from(data)
        if magic != MAGIC:
            raise CheckpointError(f"{name} is not an rgpu checkpoint (it does not start with {MAGIC!r})")
        if fmt != FORMAT:
            raise CheckpointError(f"{name} is a checkpoint of format {fmt}; this rgpu ({__version__}) reads format "
                                  f"{FORMAT}: restore it with the rgpu version that wrote it")
        body, trailer = memoryview(data)[:-DIGEST_LEN], data[-DIGEST_LEN:]
        if hashlib.sha256(body).digest() != trailer:
            raise CheckpointError(f"{name} is corrupt: its SHA-256 does not match its contents (truncated or "
                                  "changed since it was written); it cannot be restored")
        if hlen > MAX_HEADER or _PREFIX.size + hlen > len(body):
            raise CheckpointError(f"{name} is corrupt: its header length {hlen} is impossible")
        try:
            header = msgpack.unpackb(body[_PREFIX.size:_PREFIX.size + hlen], raw=False, strict_map_key=False)
            meta, state = header["meta"], header["state"]
            at = _PREFIX.size + hlen
            modules = {}
            for digest, n in header["modules"]:
                modules[digest] = bytes(body[at:at + n])
                at += n
            chunks = []
            for addr, raw, n in header["chunks"]:
                chunks.append((addr, raw, bytes(body[at:at + n])))
                at += n
        except (KeyError, TypeError, ValueError, msgpack.UnpackException) as e:
            raise CheckpointError(f"{name} is corrupt: its header does not parse ({e.__class__.__name__})") from None
        if at != len(body):
            raise CheckpointError(f"{name} is corrupt: its directory does not cover its contents")
        if meta.get("rgpu") != __version__ or meta.get("protocol") != PROTOCOL_VERSION:
            raise CheckpointError(f"{name} was written by rgpu {meta.get('rgpu')} (protocol {meta.get('protocol')}); "
                                  f"this is rgpu {__version__} (protocol {PROTOCOL_VERSION}): restore it with the "
                                  "version that wrote it")
        for digest, image in modules.items():
            if hashlib.sha256(image).hexdigest() != digest.split(":")[-1]:
                raise CheckpointError(f"{name} is corrupt: module image {digest[:16]} does not match its digest")
        return cls(meta, state, modules, chunks)
