"""Lease tokens: what a client shows a server to open a session on a vGPU.

Format
    ``rgpu1.<payload>.<mac>`` — ASCII only, safe in an environment variable (``RGPU_LEASE``).
    ``payload`` is base64url (no padding) of canonical JSON claims; ``mac`` is base64url of
    HMAC-SHA256(secret, ``"rgpu1." + payload``). The prefix names the format version so a later
    format can be told apart instead of failing as "forged".

Claims (a dict)::

    {"v": 1, "lease": "l-3fa9c2b1d0", "iat": 1732250000.0, "exp": 1732336400.0,
     "vgpus": [{"server": "tcp://gpu1:7000", "uuid": "GPU-...", "index": 0,
                "memory": 8589934592, "compute": 50, "limit": 100}, ...]}

    ``index`` is the GPU's index on that server; ``memory`` is the quota in bytes; ``compute`` the
    guaranteed share and ``limit`` the ceiling, both in percent. Device i of the program is
    ``vgpus[i]``.

Expiry
    ``exp`` bounds how long the token opens sessions: the lease's TTL or the controller's
    ``--token-lifetime`` (10 minutes) past its last renew, whichever is longer, so that a released
    lease's token opens nothing for long even on a server that missed the release. Each renew
    hands out a fresh token: renewers keep it in the lease's token file (``RGPU_LEASE_FILE``,
    client/lease_token_file.py) or in the client library (env-only leases), which the hello of
    each new session reads; sessions already open are not affected (a token is checked at the
    hello). Liveness of the lease itself comes from the controller: each
    heartbeat reply lists the lease ids still valid on that server (see
    ``rgpu.server.registration.Registrar``), and a server ends the sessions of leases that left
    that list. A server should therefore accept a hello when ``verify()`` passes, the token names
    one of its GPUs (``vgpus_on``), and the lease is not known to be gone.

Cluster secret (shared by the controller and every server)
    ``load_secret(path)`` looks, in order, at:

    1. ``path`` — the ``--secret-file`` option of ``rgpu-controller`` / ``rgpu-server``; a file
       that is not there is an error naming it (a typo must not become a new secret that no other
       host shares), unless ``init=True`` (their ``--init-secret``) asks to create it;
    2. ``RGPU_CLUSTER_SECRET`` — the secret itself (at least 16 characters);
    3. ``RGPU_CLUSTER_SECRET_FILE`` — the name of a file holding it;
    4. ``<config>/cluster-secret`` (rgpu/config.py: ``~/.config/rgpu/cluster-secret``) — the
       single-machine default: with ``create=True`` the first daemon to start writes 32 random
       bytes (hex, mode 0600, created atomically so a server and a controller starting together
       agree), and every later daemon of that user reads the same file.

    Surrounding whitespace in files is ignored. On a cluster, distribute one file (or the env var)
    to the controller and the servers; rotating it invalidates every outstanding token. It is the
    servers' credential too: the CURVE keys of the controller and of the servers derive from it
    (protocol/curve.py), so rotating it also changes every key clients were given with a lease.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import secrets
import time
from pathlib import Path

PREFIX = "rgpu1"
MIN_SECRET_LEN = 16
ENV_SECRET = "RGPU_CLUSTER_SECRET"
ENV_SECRET_FILE = "RGPU_CLUSTER_SECRET_FILE"


class TokenError(Exception):
    """A token was refused; ``code`` is the wire error code a server should reply with."""

    code = "token_invalid"


class TokenMalformed(TokenError):
    code = "token_malformed"


class TokenForged(TokenError):
    code = "token_forged"


class TokenExpired(TokenError):
    code = "token_expired"


class TokenWrongGpu(TokenError):
    code = "token_wrong_gpu"


class SecretError(Exception):
    """The cluster secret is missing or unusable; the message says where it was looked for."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _mac(secret: bytes, signed: str) -> bytes:
    return hmac.new(secret, signed.encode("ascii"), hashlib.sha256).digest()


def sign(claims: dict, secret: bytes) -> str:
    """Return the token for ``claims`` (must hold ``lease`` and a numeric ``exp``)."""
    if "lease" not in claims or not isinstance(claims.get("exp"), (int, float)):
        raise ValueError("claims need 'lease' and a numeric 'exp'")
    body = dict(claims)
    body.setdefault("v", 1)
    body.setdefault("iat", time.time())
    payload = _b64(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())
    signed = f"{PREFIX}.{payload}"
    return f"{signed}.{_b64(_mac(secret, signed))}"


def verify(token: str, secret: bytes, now: float | None = None) -> dict:
    """Check signature and expiry and return the claims; raise a ``TokenError`` subclass."""
    if not isinstance(token, str):
        raise TokenMalformed("lease token must be a string")
    parts = token.strip().split(".")
    if len(parts) != 3 or parts[0] != PREFIX:
        raise TokenMalformed(f"not an rgpu lease token (expected '{PREFIX}.<payload>.<mac>')")
    try:
        mac = _unb64(parts[2])
    except (binascii.Error, ValueError) as exc:
        raise TokenMalformed(f"lease token signature is not base64url: {exc}") from None
    # Compare the MAC before parsing the payload, so nothing unauthenticated is interpreted.
    if not hmac.compare_digest(mac, _mac(secret, f"{parts[0]}.{parts[1]}")):
        raise TokenForged("lease token signature does not match the cluster secret "
                          "(forged, or controller and server use different secrets)")
    try:
        claims = json.loads(_unb64(parts[1]))
    except (binascii.Error, ValueError) as exc:
        raise TokenMalformed(f"lease token payload unreadable: {exc}") from None
    if not isinstance(claims, dict) or not isinstance(claims.get("exp"), (int, float)):
        raise TokenMalformed("lease token claims lack an expiry")
    now = time.time() if now is None else now
    if claims["exp"] <= now:
        raise TokenExpired(f"lease token for {claims.get('lease')} expired "
                           f"{now - claims['exp']:.0f}s ago; reserve a new lease")
    return claims


def vgpus_on(claims: dict, gpu_uuids) -> list[dict]:
    """The vGPUs of ``claims`` that live on GPUs with these uuids; raise ``TokenWrongGpu`` if none."""
    uuids = set(gpu_uuids)
    found = [v for v in claims.get("vgpus", []) if v.get("uuid") in uuids]
    if not found:
        raise TokenWrongGpu(f"lease {claims.get('lease')} has no vGPU on this server's GPUs")
    return found


def default_secret_path() -> Path:
    from rgpu.config import config_dir
    return config_dir() / "cluster-secret"


def _read_secret_file(path: Path, what: str) -> bytes:
    try:
        secret = path.read_bytes().strip()
    except OSError as exc:
        raise SecretError(f"cannot read cluster secret from {what} {path}: {exc.strerror}") from None
    if len(secret) < MIN_SECRET_LEN:
        raise SecretError(f"cluster secret in {path} is shorter than {MIN_SECRET_LEN} characters")
    return secret


def _create_secret_file(path: Path) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    # Written whole under a private name, then linked into place: a daemon starting at the same
    # moment sees no file or the whole secret, never an empty one.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32) + "\n")
        os.link(tmp, path)
    except FileExistsError:
        pass  # another daemon won the race; read its secret
    finally:
        tmp.unlink(missing_ok=True)


def load_secret(path: str | os.PathLike | None = None, *, create: bool = False, init: bool = False) -> bytes:
    """Find the cluster secret (see the module docstring for the order). ``create`` writes a fresh
    random secret to the single-machine default file if no secret is configured and it does not
    exist yet; ``init`` writes one to ``path`` (or the default file) if missing. A named file that is
    missing without ``init`` is an error naming it."""
    if path is not None:
        path = Path(path)
        if init and not path.exists():
            _create_secret_file(path)
        if not path.exists():
            raise SecretError(f"cluster secret file {path} does not exist: copy the cluster's secret there, "
                              f"or create a new one with --init-secret --secret-file {path}")
        return _read_secret_file(path, "--secret-file")
    env_secret = os.environ.get(ENV_SECRET)
    if env_secret:
        if len(env_secret.strip()) < MIN_SECRET_LEN:
            raise SecretError(f"{ENV_SECRET} is shorter than {MIN_SECRET_LEN} characters")
        return env_secret.strip().encode()
    env_file = os.environ.get(ENV_SECRET_FILE)
    if env_file:
        return _read_secret_file(Path(env_file), ENV_SECRET_FILE)
    default = default_secret_path()
    if (create or init) and not default.exists():
        _create_secret_file(default)
    if not default.exists():
        raise SecretError(f"no cluster secret: set {ENV_SECRET}, {ENV_SECRET_FILE} or --secret-file, "
                          f"or start rgpu-controller once to create {default}")
    return _read_secret_file(default, "default file")
