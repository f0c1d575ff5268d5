"""A lease's current token, in a file its programs' client library reads at each hello
(``RGPU_LEASE_FILE``; issue 39, attack 7).

Tokens live minutes, not a day (controller ``--token-lifetime``): a server that missed a lease's
release (down then, or restarted since with no state) refuses its token on its own once it expires.
Each renew of the lease brings a fresh token; the renewer (`rgpu run`, `rgpu reserve --shell`,
`rgpu renew`) writes it here, so a program that opens a session long after it started (a new
device, a child process) sends a token that is still valid. Sessions already open are not
affected: a token is checked at the hello only.

``~/.cache/rgpu/leases/<lease id>`` (``$XDG_CACHE_HOME``), the folder 0700 and the file 0600,
replaced whole by a rename so that a reader never sees half a token."""
from __future__ import annotations

import base64
import json
import os
import re
import time
from pathlib import Path

_LEASE_ID = re.compile(r"^l-[0-9a-f]{6,32}$")


def path(lease_id: str) -> Path | None:
    """Where ``lease_id``'s token is kept; None for an id that is no file name of ours."""
    if not isinstance(lease_id, str) or not _LEASE_ID.match(lease_id):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rgpu" / "leases" / lease_id


def write(lease_id: str, token: str) -> Path | None:
    """Keep ``token`` as ``lease_id``'s current one; its path, or None when it cannot be kept
    (programs then use RGPU_LEASE alone)."""
    target = path(lease_id)
    if target is None or not isinstance(token, str):
        return None
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(token)
        os.replace(tmp, target)
    except OSError:
        return None
    _prune(target.parent)
    return target


def _expiry(token: str) -> float | None:
    """A token's ``exp`` claim, read without its secret (only to know when the file is no use)."""
    try:
        payload = token.split(".")[1]
        exp = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))).get("exp")
    except (IndexError, ValueError, AttributeError):
        return None
    return float(exp) if isinstance(exp, (int, float)) else None


def _prune(folder: Path) -> None:
    """Drop the tokens that expired: leases that ended without a release through rgpu (expired,
    or released from elsewhere) leave theirs behind."""
    now = time.time()
    try:
        entries = list(folder.iterdir())
    except OSError:
        return
    for p in entries:
        if not _LEASE_ID.match(p.name):
            continue
        try:
            exp = _expiry(p.read_text(encoding="ascii", errors="replace"))
            if exp is not None and exp < now:
                p.unlink()
        except OSError:
            pass


def remove(lease_id: str) -> None:
    """The lease ended: its token opens nothing any more."""
    target = path(lease_id)
    if target is not None:
        try:
            target.unlink()
        except OSError:
            pass
