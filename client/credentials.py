"""Who a client of the controller is, and how it knows the controller is the real one.

A user's credential is a ZeroMQ CURVE secret certificate (protocol/curve.py: the zcert format,
mode 0600) whose metadata names the user, the role (``user`` or ``admin``) and, in credentials an
operator issued (``rgpu user add``), the controller's public key. Looked up in order:

1. an explicit path (``Credential.load(path)``);
2. ``RGPU_CREDENTIAL`` — the path of the file;
3. ``<config>/credential`` (rgpu/config.py) — written by an ``rgpu-controller`` started by the same
   account on this machine: the single-machine default needs no set-up;
4. without any of these, the operator's credential when the cluster secret is in the environment
   (``RGPU_CLUSTER_SECRET`` or ``RGPU_CLUSTER_SECRET_FILE``): a service that holds the secret (a
   Kubernetes device plugin) is an admin of the controller.

The controller's public key: ``RGPU_CONTROLLER_KEY`` (the key, 40 Z85 characters or 64 hex digits,
or the path of its public certificate), else the credential's ``controller-key``, else
``<config>/controller.key`` (which a local controller rewrites at every start).

A server is a client of the controller too: its credential is derived from the cluster secret
(``Credential.for_server``), so holding that secret is what admits it as a server."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from rgpu.config import config_dir
from rgpu.protocol import curve, tokens

ENV_CREDENTIAL = "RGPU_CREDENTIAL"
ENV_CONTROLLER_KEY = "RGPU_CONTROLLER_KEY"
ROLES = ("user", "admin")


class CredentialError(Exception):
    """No usable credential; the message says where it looked and what to do."""


def default_credential_path() -> Path:
    return config_dir() / "credential"


def controller_cert_path() -> Path:
    return config_dir() / "controller.key"


@dataclass(frozen=True)
class Credential:
    name: str
    role: str
    keys: curve.Keypair
    controller_key: bytes | None = None   # Z85 public key of the controller, when the file names it
    source: str = ""

    @classmethod
    def load(cls, path: str | os.PathLike | None = None) -> "Credential":
        chosen = path or os.environ.get(ENV_CREDENTIAL) or default_credential_path()
        if not Path(chosen).exists() and not path and not os.environ.get(ENV_CREDENTIAL) \
                and (os.environ.get(tokens.ENV_SECRET) or os.environ.get(tokens.ENV_SECRET_FILE)):
            try:
                return cls.for_operator(tokens.load_secret())
            except tokens.SecretError as e:
                raise CredentialError(str(e)) from None
        if not Path(chosen).exists():
            raise CredentialError(
                f"no rgpu credential at {chosen}: on the controller's machine, the account that starts "
                f"rgpu-controller gets one there; elsewhere ask the pool's operator for one (`rgpu user add NAME "
                f"--out FILE` on the controller's machine) and set {ENV_CREDENTIAL}=FILE")
        try:
            keys, meta = curve.read_cert(chosen, secret=True)
            key = curve.parse_key(meta["controller-key"]) if meta.get("controller-key") else None
        except curve.CurveError as e:
            raise CredentialError(str(e)) from None
        return cls(meta.get("name") or "?", meta.get("role") or "user", keys, key, str(chosen))

    @classmethod
    def for_operator(cls, cluster_secret: bytes) -> "Credential":
        return cls("operator", "admin", curve.operator_keys(cluster_secret),
                   curve.controller_keys(cluster_secret).public, "the cluster secret")

    @classmethod
    def for_server(cls, cluster_secret: bytes) -> "Credential":
        return cls("server", "server", curve.server_role_keys(cluster_secret),
                   curve.controller_keys(cluster_secret).public, "the cluster secret")

    def controller_public(self) -> bytes:
        """The controller's public key this client trusts (see the module docstring)."""
        given = os.environ.get(ENV_CONTROLLER_KEY)
        if given:
            try:
                return curve.read_cert(given, secret=False)[0].public if Path(given).exists() \
                    else curve.parse_key(given)
            except curve.CurveError as e:
                raise CredentialError(f"{ENV_CONTROLLER_KEY}: {e}") from None
        if self.controller_key is not None:
            return self.controller_key
        cert = controller_cert_path()
        try:
            return curve.read_cert(cert, secret=False)[0].public
        except curve.CurveError:
            raise CredentialError(
                f"the controller's public key is not known: {cert} is missing (a local rgpu-controller writes "
                f"it), the credential {self.source} names none, and {ENV_CONTROLLER_KEY} is not set") from None
