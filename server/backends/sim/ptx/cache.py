"""On-disk cache of parsed PTX function bodies, shared by every session worker of a server.

Each session is its own process, so an in-memory cache would die with it; parsing a big library
kernel costs seconds. A body is stored under the digest of its module's text and its name, as
msgpack of plain lists (never pickle: a file someone else wrote must not be able to run code), in
a file that starts with a magic and the SHA-256 of what follows. Reads verify the digest and the
key inside, so a truncated, corrupt or misplaced file is a miss, never a wrong program.

The directory is the server's own (``RGPU_SIM_CACHE``, else ``rgpu-sim-<uid>`` in the temp
directory), created with mode 0700; one that another user owns or others may write is not used.
Files are written to an O_EXCL temporary and renamed into place, so concurrent workers never see
half a file. The directory is kept under ``RGPU_SIM_CACHE_MAX`` bytes (default 1 GiB) by dropping
the least recently used files.
"""
from __future__ import annotations

import hashlib
import os
import secrets
import stat
import tempfile
from pathlib import Path

import msgpack
import structlog

from .parser import Function, Instruction, Label, Operand, Variable

log = structlog.get_logger()

FORMAT = b"rgpuptx6"  # bump when the parser's output or this encoding changes
_HASH = 32
DEFAULT_MAX_BYTES = 1 << 30

_dir: Path | None = None
_dir_for: str | None = None
_stats = {"hits": 0, "misses": 0, "stores": 0}


def directory() -> Path | None:
    """The cache directory, created and checked; None when no safe one can be had."""
    global _dir, _dir_for
    want = os.environ.get("RGPU_SIM_CACHE") or str(Path(tempfile.gettempdir()) / f"rgpu-sim-{os.getuid()}")
    if want == _dir_for:
        return _dir
    _dir_for, _dir = want, None
    if want in ("0", "off"):
        return None
    path = Path(want)
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(path)
    except OSError as exc:
        log.warning("sim_cache_unusable", path=str(path), reason=str(exc))
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        log.warning("sim_cache_unusable", path=str(path), reason="not a directory this user owns")
        return None
    if st.st_mode & 0o077:
        try:
            os.chmod(path, 0o700)
        except OSError as exc:
            log.warning("sim_cache_unusable", path=str(path), reason=f"mode {st.st_mode & 0o777:o}: {exc}")
            return None
    _dir = path
    return _dir


def stats() -> dict[str, int]:
    return dict(_stats)


def _file(d: Path, key: str) -> Path:
    return d / hashlib.sha256(FORMAT + key.encode()).hexdigest()


def _read(key: str):
    """The decoded [key, value] stored under ``key``'s file when it verifies and names ``key``, else None."""
    d = directory()
    if d is None:
        return None
    path = _file(d, key)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        _stats["misses"] += 1
        return None
    head = len(FORMAT) + _HASH
    if len(data) < head or data[:len(FORMAT)] != FORMAT or \
            hashlib.sha256(data[head:]).digest() != data[len(FORMAT):head]:
        log.warning("sim_cache_corrupt", file=path.name)
        _unlink(path)
        _stats["misses"] += 1
        return None
    try:
        stored_key, value = msgpack.unpackb(data[head:], raw=False, strict_map_key=False, use_list=False)
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        log.warning("sim_cache_corrupt", file=path.name, reason=str(exc)[:200])
        _unlink(path)
        _stats["misses"] += 1
        return None
    if stored_key != key:
        _stats["misses"] += 1
        return None
    try:
        os.utime(path)  # least recently used goes first when the directory is trimmed
    except OSError:
        pass
    return path, value


def load_function(key: str) -> Function | None:
    """The parsed body stored under ``key`` (regs, locals and body filled in), or None."""
    found = _read(key)
    if found is None:
        return None
    path, body = found
    try:
        fn = _decode(body)
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        log.warning("sim_cache_corrupt", file=path.name, reason=str(exc)[:200])
        _unlink(path)
        _stats["misses"] += 1
        return None
    _stats["hits"] += 1
    return fn


def load_bytes(key: str) -> bytes | None:
    """Bytes stored under ``key`` by store_bytes (a compiled kernel's object code), or None."""
    found = _read(key)
    if found is None or not isinstance(found[1], bytes):
        return None
    _stats["hits"] += 1
    return found[1]


def store_bytes(key: str, data: bytes) -> None:
    _write(key, data, key)


def store_function(key: str, fn: Function) -> None:
    try:
        body = _encode(fn)
    except (OverflowError, TypeError, ValueError) as exc:
        log.info("sim_cache_skipped", function=fn.name, reason=str(exc)[:100])
        return
    _write(key, body, fn.name)


def _write(key: str, value, what: str) -> None:
    d = directory()
    if d is None:
        return
    try:
        payload = msgpack.packb([key, value], use_bin_type=True)
    except (OverflowError, TypeError, ValueError) as exc:  # an immediate msgpack cannot hold
        log.info("sim_cache_skipped", function=what, reason=str(exc)[:100])
        return
    data = FORMAT + hashlib.sha256(payload).digest() + payload
    path = _file(d, key)
    tmp = d / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        log.warning("sim_cache_write_failed", reason=str(exc))
        _unlink(tmp)
        return
    _stats["stores"] += 1
    _trim(d)


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def _trim(d: Path) -> None:
    limit = int(os.environ.get("RGPU_SIM_CACHE_MAX") or DEFAULT_MAX_BYTES)
    try:
        files = [(e.stat().st_mtime, e.stat().st_size, e.path) for e in os.scandir(d)
                 if e.is_file(follow_symlinks=False) and not e.name.startswith(".")]
    except OSError:
        return
    total = sum(size for _t, size, _p in files)
    for _t, size, p in sorted(files):
        if total <= limit:
            break
        _unlink(Path(p))
        total -= size


# -- encoding: plain lists, ints, strings, bytes ------------------------------------------------
def _op(o: Operand):
    if o.kind == "reg" and not o.neg:
        return o.value  # most operands: a register, stored as its bare name
    v = [_op(x) for x in o.value] if o.kind in ("vec", "list") else o.value
    return [o.kind, v, o.neg, o.offset, o.flt]


def _unop(x) -> Operand:
    if x.__class__ is str:
        return Operand("reg", x)
    kind, v, neg, offset, flt = x
    if kind in ("vec", "list"):
        v = [_unop(y) for y in v]
    return Operand(kind, v, neg, offset, flt)


def _var(v: Variable):
    return [v.name, v.space, v.type, v.size, v.align, v.init, [list(r) for r in v.relocs], v.extern, v.vec]


def _unvar(x) -> Variable:
    name, space, typ, size, align, init, relocs, extern, vec = x
    return Variable(name, space, typ, size, align, init, [tuple(r) for r in relocs], extern, vec)


def _encode(fn: Function):
    body = []
    for s in fn.body:
        if isinstance(s, Label):
            body.append(s.name)
        else:
            body.append([s.opcode, [_op(o) for o in s.operands], list(s.guard) if s.guard else None, s.line])
    return [fn.name, {k: list(v) for k, v in fn.regs.items()}, [_var(v) for v in fn.locals], body]


def _decode(x) -> Function:
    name, regs, locals_, body = x
    fn = Function(name, False)
    fn.regs = dict(regs)  # name -> (type, vector width), tuples as unpacked
    fn.locals = [_unvar(v) for v in locals_]
    out = []
    for s in body:
        if isinstance(s, str):
            out.append(Label(s))
        else:
            opcode, ops, guard, line = s
            out.append(Instruction(opcode, [_unop(o) for o in ops], tuple(guard) if guard else None, line))
    fn.body = out
    return fn
