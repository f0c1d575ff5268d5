"""The keys of direct-mode servers, pinned (issue 39, attack 7): what `rgpu run --server` and
`rgpu env --server` check a server's URL against before a program uses it.

A direct-mode server's wire is CURVE by default wherever it can leave its host, and prints
``tcp://HOST:PORT@KEY`` at start. The first URL with ``@KEY`` that reaches a server holding that key
pins it in ``<config>/known-servers`` (or RGPU_KNOWN_SERVERS) (said once on stderr); from then on the bare URL uses it, and
another key for that server — given in a URL, or held by whatever answers there — is refused, as
ssh refuses a changed host key. A bare URL of an encrypted server never pinned is refused too,
naming what to give: CURVE cannot tell a client the server's key (the client must know it to say
its first word), so learning it on first use would mean asking over a channel anyone on the path
could answer — the very attack the key is there to stop. A cluster user gets the URL from whoever
runs the server anyway; with its key it is pasted once.

A plain server (``--wire plain``) reached off this host still works, with a warning; loopback and
ipc:// URLs are used as given (their bytes never leave this host)."""
from __future__ import annotations

import os
import time
from pathlib import Path

import zmq

from rgpu.config import config_dir
from rgpu.protocol import curve, wire

FILE = "known-servers"


class ServerKeyError(Exception):
    """A server whose key cannot be trusted, or is not known; ``code`` is the CLI's error code."""

    def __init__(self, message: str, code: str = "handshake_failed"):
        super().__init__(message)
        self.code = code


def path() -> Path:
    """RGPU_KNOWN_SERVERS, else ``<config>/known-servers``."""
    return Path(os.environ.get("RGPU_KNOWN_SERVERS") or config_dir() / FILE)


def _address(url: str) -> str:
    """The server part of a URL: without its key and GPU index (one key per server, all its GPUs)."""
    return curve.split_server_url(url)[0].split("#", 1)[0]


def load() -> dict[str, str]:
    """address -> key (64 hex digits), one ``address key`` pair a line; # starts a comment."""
    known: dict[str, str] = {}
    try:
        text = path().read_text()
    except FileNotFoundError:
        return known
    for line in text.splitlines():
        fields = line.split("#", 1)[0].split() if not line.lstrip().startswith("#") else []
        if len(fields) == 2:
            known[fields[0]] = fields[1].lower()
    return known


def _remember(address: str, key_hex: str) -> None:
    p = path()
    p.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "a") as f:
        f.write(f"{address} {key_hex}\n")


def probe(url: str, timeout_s: float = 3.0) -> str:
    """How the server at ``url`` answers a ping: "ok", "broken" (the handshake failed: another key,
    or the other kind of wire) or "silent" (nothing within ``timeout_s``: down, or far)."""
    address, key = curve.split_server_url(url)
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    if key is not None:
        curve.as_client(sock, curve.new_keypair(), key)
    watch = curve.Handshake(sock)
    try:
        sock.connect(address.split("#", 1)[0])
        sock.send(wire.pack({"op": "ping"}))
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if sock.poll(50):
                return "ok"
            if watch.update().broken or watch.refused:
                return "broken"
        return "silent"
    finally:
        watch.close()
        sock.close(0)


def resolve(url: str, say=lambda line: None) -> str:
    """``url`` as the program should use it: with the server's pinned key where it has one. Raises
    ServerKeyError for a key that differs from the pinned one, a server that does not hold the key
    its URL gives, or an encrypted server with no key given nor pinned. ``say`` gets the one line
    that tells the user a key was pinned, or a warning for a plain wire."""
    address, key = curve.split_server_url(url)
    known = load().get(_address(url))
    if key is None and known is None and curve.stays_on_host(address):
        return url
    given = curve.key_hex(key) if key is not None else None
    if given and known and given != known:
        raise ServerKeyError(f"{_address(url)}'s key is pinned as {known} in {path()}, but the URL gives {given}: "
                             f"if the server's key really changed (its key file was lost), delete that line")
    if given is None and known is None:
        if probe(url) == "broken":
            raise ServerKeyError(f"{_address(url)} speaks an encrypted wire and its key is not known here: give it as "
                                 f"{_address(url)}@KEY (rgpu-server prints that URL at start)", code="no_credential")
        if (warning := plaintext_warning(url)) is not None:
            say(f"rgpu: {warning}")
        return url
    key_hex = given or known
    keyed = url if given else _with_key(url, key_hex)
    answer = probe(keyed)
    if answer == "broken":
        raise ServerKeyError(f"{_address(url)} does not hold the key pinned for it ({key_hex}): its key changed, or "
                             f"another machine answers at that address. If the server's key really changed, "
                             f"delete its line in {path()}" if known else
                             f"{_address(url)} does not hold the key {key_hex} the URL gives (or speaks a plain wire)")
    if answer == "ok" and known is None:
        _remember(_address(url), key_hex)
        say(f"rgpu: pinned {_address(url)}'s key {key_hex} in {path()}")
    return keyed


def _with_key(url: str, key_hex: str) -> str:
    base, sep, index = url.partition("#")
    return f"{base}@{key_hex}{sep}{index}"


def plaintext_warning(url: str) -> str | None:
    """What `rgpu run` says before using a server over a plain wire that leaves this host: its
    session keys and the program's data then cross the network readable and changeable by anyone
    on the path. None for a URL with the server's key (CURVE), an ipc:// one, or a loopback host."""
    address, key = curve.split_server_url(url)
    if key is not None or curve.stays_on_host(address):
        return None
    return (f"warning: {address.split('#', 1)[0]} is a plain wire: the program's data and its session keys cross "
            f"the network unencrypted and unauthenticated. Leave the server's --wire at its default (curve) and "
            f"give its key as URL@KEY (the server prints it at start)")
