"""Who may talk to the controller, and as whom.

Every connection to the controller is CURVE (protocol/curve.py); its ZAP handler (``policy``) admits
    * the servers' key, derived from the cluster secret, as ``server``;
    * the operator's key, derived from it too, as ``admin:operator`` (services holding the secret);
    * a key whose public certificate is in the users directory, as ``user:NAME`` or ``admin:NAME``
      (the certificate's ``name`` and ``role`` metadata);
and refuses every other key during the handshake, before any message is read. Handlers see the
``Peer`` of each request from that user id.

The users directory holds one public certificate per user, ``NAME.key`` (as CZMQ's and pyzmq's
authenticators read a directory of public certificates); it is read again when it changes, so
``rgpu user add`` and ``rgpu user remove`` take effect without a restart. ``issue`` writes a user's
secret certificate (their credential) and puts its public half there. ``bootstrap`` is the
single-machine default: it writes the controller's public certificate to ``<config>/controller.key``
and, if the account has none, an admin credential to ``<config>/credential``, listed in the users
directory."""
from __future__ import annotations

import getpass
import os
import re
import time
from pathlib import Path
from typing import NamedTuple

import structlog

from rgpu.client.credentials import ROLES, Credential, CredentialError, controller_cert_path, \
    default_credential_path
from rgpu.protocol import curve

log = structlog.get_logger("rgpu.controller")
RELOAD_S = 1.0


class Peer(NamedTuple):
    kind: str        # "server" | "user"
    name: str
    admin: bool = False

    @classmethod
    def from_user_id(cls, user_id: str) -> "Peer | None":
        if user_id == "server":
            return cls("server", "server")
        role, _, name = user_id.partition(":")
        if role in ROLES and name:
            return cls("user", name, role == "admin")
        return None


SERVER = Peer("server", "server")


class Directory:
    """The public certificates of the users directory, by public key (re-read when it changes)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._by_key: dict[bytes, tuple[str, str]] = {}
        self._stamp = None
        self._checked = 0.0

    def _scan(self) -> None:
        by_key = {}
        for cert in sorted(self.path.glob("*.key")):
            try:
                keys, meta = curve.read_cert(cert, secret=False)
            except curve.CurveError as e:
                log.warning("users.bad_certificate", file=str(cert), reason=str(e))
                continue
            name, role = meta.get("name") or cert.stem, meta.get("role") or "user"
            if not curve.valid_name(name) or role not in ROLES:
                log.warning("users.bad_certificate", file=str(cert), reason=f"name {name!r} or role {role!r}")
                continue
            by_key[keys.public] = (name, role)
        self._by_key = by_key
        log.info("users.loaded", directory=str(self.path), users=len(by_key))

    def _refresh(self) -> None:
        """Read the directory again if it changed (a stat and a listing; the certificates only then)."""
        self._checked = time.monotonic()
        try:
            st = self.path.stat()
            stamp = (st.st_mtime_ns, st.st_ino, tuple(sorted(p.name for p in self.path.glob("*.key"))))
        except OSError:
            stamp = None
        if stamp != self._stamp:
            self._stamp = stamp
            if stamp is None:
                self._by_key = {}
            else:
                self._scan()

    def lookup(self, public: bytes) -> tuple[str, str] | None:
        """The (name, role) of a public key. A key not known is looked for again at once (a user
        just added); a known one at most RELOAD_S after the last look (a user just removed)."""
        found = self._by_key.get(public)
        if found is None or time.monotonic() - self._checked >= RELOAD_S:
            self._refresh()
            found = self._by_key.get(public)
        return found


def policy(users: Directory, server_key: bytes, operator_key: bytes | None = None):
    """The controller's ZAP decision: a user id for the servers' key, the operator's (an admin whose
    credential is the cluster secret) and listed users; else refuse."""
    def decide(mechanism: str, key: bytes | None, address: str) -> str | None:
        if mechanism != "CURVE" or key is None:
            return None
        if key == server_key:
            return "server"
        if operator_key is not None and key == operator_key:
            return "admin:operator"
        found = users.lookup(key)
        if found is None:
            log.info("connection.refused", address=address, key=key.decode()[:8] + "...")
            return None
        name, role = found
        return f"{role}:{name}"
    return decide


def issue(users_dir: str | os.PathLike, name: str, role: str, out: str | os.PathLike,
          controller_public: bytes | None = None) -> Path:
    """A new credential for ``name`` at ``out`` (mode 0600, never over an existing file), listed in
    ``users_dir``; ``controller_public`` goes into it so it works on any machine."""
    if not curve.valid_name(name):
        raise CredentialError(f"user name {name!r}: letters, digits and . _ @ - only, at most 64")
    if role not in ROLES:
        raise CredentialError(f"role must be one of {', '.join(ROLES)}")
    listed = Path(users_dir) / f"{name}.key"
    if listed.exists():
        raise CredentialError(f"user {name} already exists ({listed}); `rgpu user remove {name}` first")
    keys = curve.new_keypair()
    meta = {"name": name, "role": role}
    if controller_public:
        meta["controller-key"] = controller_public.decode()
    try:
        curve.write_cert(out, keys, meta, secret=True)
    except FileExistsError:
        raise CredentialError(f"{out} exists; choose another --out") from None
    Path(users_dir).mkdir(mode=0o700, parents=True, exist_ok=True)
    curve.write_cert(listed, keys, {"name": name, "role": role}, secret=False)
    return Path(out)


def remove(users_dir: str | os.PathLike, name: str) -> None:
    listed = Path(users_dir) / f"{name}.key"
    if not curve.valid_name(name) or not listed.exists():
        raise CredentialError(f"no user {name} in {users_dir}")
    listed.unlink()


def local_user_name() -> str:
    try:
        name = getpass.getuser()
    except Exception:       # no passwd entry (containers)
        name = f"uid{os.getuid()}"
    return re.sub(r"[^A-Za-z0-9._@-]", "_", name)[:64] or "local"


def bootstrap(users_dir: str | os.PathLike, controller_public: bytes) -> None:
    """The single-machine default (see the module docstring)."""
    curve.write_cert(controller_cert_path(), curve.Keypair(controller_public, None), {"name": "controller"},
                     secret=False)
    own = default_credential_path()
    if not own.exists():
        try:
            issue(users_dir, local_user_name(), "admin", own)
            log.info("users.local_admin_created", credential=str(own))
            return
        except (CredentialError, FileExistsError):
            pass          # another controller of this account won the race, or the name is taken
    try:
        cred = Credential.load(own)
    except CredentialError as e:
        log.warning("users.local_credential_unusable", reason=str(e))
        return
    listed = Path(users_dir) / f"{cred.name}.key"
    try:
        current = curve.read_cert(listed, secret=False)[0].public
    except curve.CurveError:
        current = None
    if current != cred.keys.public:
        curve.write_cert(listed, curve.Keypair(cred.keys.public, None), {"name": cred.name, "role": cred.role},
                         secret=False)
