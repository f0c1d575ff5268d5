"""A digest-addressed cache of bytes on disk that only its owner can change, checked on every read
and bounded in size: the server's module images (api/module.py), and any other derived data that is
expensive to recompute (a parsed-PTX cache follows the same rules by using this class).

The rules, and why:
    * The directory belongs to the server's user and nobody else may enter it (mode 0700); one
      that exists with other owners or looser modes is refused, not adopted (another user could
      have planted it, or its content). It is opened once (O_DIRECTORY | O_NOFOLLOW) and every
      file is reached relative to that descriptor, so renaming or replacing the path later changes
      nothing.
    * Every entry is written to a fresh temporary name (O_CREAT | O_EXCL | O_NOFOLLOW: never through
      a file or symlink already there) and renamed into place, so readers see whole entries only.
    * Every read verifies the content: an entry holds a header with the SHA-256 of its payload, and
      a content-addressed cache (``content_addressed=True``: the key *is* the payload's SHA-256, as for
      module images) checks the key too. An entry that fails is deleted and reported as a miss.
    * A content-addressed entry may be private to a ``scope`` (module images: the user who uploaded
      them, issue 39 attack 4): its file is named by a hash of the scope and the key, so a key alone
      finds nothing another scope stored, and a miss looks the same whether or not another has it.
    * The total size is bounded: after each write the least recently used entries (file mtime, which
      every hit refreshes) go until the total fits. Leftover temporaries of a crashed writer go too.

Several processes (a server's session workers) share one directory safely: renames are atomic, an
eviction of an entry another process is reading leaves that reader its open file."""
from __future__ import annotations

import hashlib
import os
import re
import secrets
import stat
import time

import structlog

log = structlog.get_logger()

MAGIC = b"RGPUC1\n\0"
HEADER = len(MAGIC) + 32
KEY = re.compile(r"^[0-9a-f]{64}$")
STALE_TMP_S = 3600.0


class CacheError(Exception):
    """The directory cannot be used safely; the message says why and what to do."""


class DigestCache:
    def __init__(self, path: str | os.PathLike, max_bytes: int, *, content_addressed: bool = False):
        self.path, self.max_bytes, self.content_addressed = str(path), int(max_bytes), content_addressed
        self.fd = self._open_dir(self.path)

    @staticmethod
    def _open_dir(path: str) -> int:
        parent = os.path.dirname(os.path.abspath(path))
        os.makedirs(parent, mode=0o700, exist_ok=True)
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except OSError as e:
            raise CacheError(f"cannot create cache directory {path}: {e.strerror}") from None
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as e:
            raise CacheError(f"cache directory {path} cannot be opened ({e.strerror}): it must be a directory, "
                             f"not a symlink") from None
        st = os.fstat(fd)
        if st.st_uid != os.geteuid() or stat.S_IMODE(st.st_mode) & 0o077:
            os.close(fd)
            raise CacheError(f"cache directory {path} is not private to this user (owner uid {st.st_uid}, mode "
                             f"{stat.S_IMODE(st.st_mode):o}; it must be owned by uid {os.geteuid()} with mode 700): "
                             f"refusing to use it — remove it or choose another")
        return fd

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def _check_key(self, key: str) -> None:
        if not (isinstance(key, str) and KEY.match(key)):
            raise ValueError("cache keys are 64 lowercase hex digits (a SHA-256)")

    def _name(self, key: str, scope: str) -> str:
        """The file of ``key`` in ``scope`` ("" : unscoped, the key itself)."""
        if not scope:
            return key
        return hashlib.sha256(b"rgpu-cache-scope\0" + scope.encode() + b"\0" + key.encode()).hexdigest()

    def get(self, key: str, scope: str = "") -> bytes | None:
        """The payload stored under ``key`` (in ``scope``), verified; None when absent or when it fails
        the check."""
        self._check_key(key)
        name = self._name(key, scope)
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self.fd)
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
                data = None
            else:
                with os.fdopen(os.dup(fd), "rb") as f:
                    data = f.read()
            if data is not None and len(data) >= HEADER and data[:len(MAGIC)] == MAGIC:
                payload = memoryview(data)[HEADER:]
                digest = hashlib.sha256(payload).digest()
                if digest == data[len(MAGIC):HEADER] and (not self.content_addressed or digest.hex() == key):
                    try:
                        os.utime(fd)  # a hit makes the entry the most recently used
                    except OSError:
                        pass
                    return bytes(payload)
        finally:
            os.close(fd)
        log.warning("cache_entry_rejected", cache=self.path, key=key[:16])
        self._remove(name)
        return None

    def put(self, key: str, data: bytes, scope: str = "") -> bool:
        """Store ``data`` under ``key`` (in ``scope``); False when it is larger than the whole cache (not
        stored). A content-addressed cache refuses data whose SHA-256 is not the key (ValueError)."""
        self._check_key(key)
        digest = hashlib.sha256(data).digest()
        if self.content_addressed and digest.hex() != key:
            raise ValueError("data does not match its digest")
        if HEADER + len(data) > self.max_bytes:
            return False
        tmp = f".tmp-{os.getpid()}-{secrets.token_hex(8)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=self.fd)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(MAGIC)
                f.write(digest)
                f.write(data)
            os.rename(tmp, self._name(key, scope), src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            self._remove(tmp)
            raise
        self._evict()
        return True

    def _remove(self, name: str) -> None:
        try:
            os.unlink(name, dir_fd=self.fd)
        except OSError:
            pass

    def entries(self) -> list[tuple[float, int, str]]:
        """(last use, size, key) of every entry; stale temporaries are removed on the way."""
        out, now = [], time.time()
        with os.scandir(self.fd) as it:
            for e in it:
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                if e.name.startswith(".tmp-"):
                    if now - st.st_mtime > STALE_TMP_S:
                        self._remove(e.name)
                elif KEY.match(e.name) and stat.S_ISREG(st.st_mode):
                    out.append((st.st_mtime, st.st_size, e.name))
                else:
                    self._remove(e.name)  # nothing else belongs here
        return out

    def size(self) -> int:
        return sum(size for _, size, _ in self.entries())

    def _evict(self) -> None:
        entries = sorted(self.entries())
        total = sum(size for _, size, _ in entries)
        for _, size, key in entries:
            if total <= self.max_bytes:
                break
            self._remove(key)
            total -= size
            log.info("cache_evicted", cache=self.path, key=key[:16], size=size)


def default_dir(server_id: str, kind: str = "modules") -> str:
    """``$XDG_CACHE_HOME/rgpu/<kind>-<hash of the server id>`` (``~/.cache`` without it): per server."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "rgpu", f"{kind}-{hashlib.sha256(server_id.encode()).hexdigest()[:12]}")


_modules: dict = {"path": None, "max_bytes": 1 << 30, "cache": None}


def configure_modules(path: str, max_bytes: int) -> None:
    """Where this process's module cache lives (the worker calls it from the server's options)."""
    _modules.update(path=path, max_bytes=max_bytes, cache=None)


def modules() -> DigestCache:
    """This process's module-image cache (content-addressed), opened at first use."""
    if _modules["cache"] is None:
        path = _modules["path"] or os.environ.get("RGPU_MODULE_CACHE") or default_dir("default")
        _modules["cache"] = DigestCache(path, _modules["max_bytes"], content_addressed=True)
    return _modules["cache"]
