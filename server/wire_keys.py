"""The wire of a direct-mode server (no controller, no cluster secret): encrypted by default
(issue 39, attack 7), with a key pair of its own that outlives restarts, so that a client can pin
its public key (`rgpu run --server tcp://HOST:PORT@KEY`, remembered in the user's known-servers).

A listen address that no other host can reach (ipc://, or a loopback tcp:// address) stays plain by
default: its bytes never leave this machine, only root could watch them (and root reads the
server's memory anyway), and a direct-mode server authenticates no client on either wire, so
CURVE there would cost a third of the copy bandwidth and buy nothing."""
from __future__ import annotations

import os

from rgpu.protocol import curve

KEY_FILE = "server.key"


def default_wire(secret: bool, listen: str) -> str:
    """curve with a cluster secret, or where the wire can leave this host; else plain."""
    return "curve" if secret or not curve.stays_on_host(listen) else "plain"


def default_key_file(state_dir: str) -> str:
    return os.path.join(state_dir, KEY_FILE)


def direct_keys(path: str) -> curve.Keypair:
    """The key pair kept in ``path`` (a secret certificate, mode 0600, refused if others may read
    it), made there at the first start: the same key at every start, so pinned clients still
    connect after a restart."""
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(os.path.abspath(path)), mode=0o700, exist_ok=True)
        try:
            curve.write_cert(path, curve.new_keypair(), {"role": "rgpu-server"}, secret=True)
        except FileExistsError:
            pass  # another start made it first: use that one
    keys, _ = curve.read_cert(path, secret=True)
    return keys


def pasteable(advertise: str, keys: curve.Keypair) -> str:
    """``tcp://HOST:PORT@KEY``: what a client gives `rgpu run --server` (or RGPU_SERVER) to reach
    this server over its encrypted wire and know it is this server."""
    return f"{advertise}@{curve.key_hex(keys.public)}"
