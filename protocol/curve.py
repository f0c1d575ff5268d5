"""ZeroMQ CURVE for rgpu's sockets: keys, certificate files, the ZAP handler, socket settings.

Who holds which key
    controller      a keypair derived from the cluster secret (``controller_keys``): every holder
                    of the secret (the servers) knows its public key without another file; users
                    get it in their credential or in ``<config>/controller.key``.
    servers         as clients of the controller, one keypair derived from the cluster secret
                    (``server_role_keys``): presenting it proves holding the cluster credential.
                    As servers of the data plane, a keypair per server derived from the secret and
                    the URL it advertises (``server_data_keys``): stable across restarts, and the
                    controller hands its public half to the clients of that server's leases.
    operator        an admin keypair derived from the cluster secret (``operator_keys``), for
                    services that hold the secret anyway (a Kubernetes device plugin).
    users           a keypair of their own, in a ZeroMQ certificate file (the CZMQ ``zcert``
                    format that ``zmq.auth`` reads too); the controller trusts the public
                    certificates in its users directory (controller/users.py).
    client library  a fresh keypair per process: the worker of a session admits only the key that
                    said hello (a session key replayed from another connection is refused).

Derivation is HMAC-SHA256(cluster secret, label) as the Curve25519 secret key, so nothing but the
cluster secret needs distributing between the controller and the servers.

Identities reach the application through ZAP (RFC 27): a ``Zap`` thread answers the context's
authentication requests with a user id that every message of the connection carries as its
``User-Id`` property (``peer_id``)."""
from __future__ import annotations

import hashlib
import hmac
import itertools
import os
import re
import threading
from pathlib import Path
from typing import Callable, NamedTuple

import zmq
from zmq.utils import z85

ZAP_ENDPOINT = "inproc://zeromq.zap.01"
KEY_LEN = 40  # Z85 text of a 32-byte key


class CurveError(ValueError):
    """A key or certificate that cannot be used; the message says which and why."""


class Keypair(NamedTuple):
    public: bytes          # Z85, 40 bytes
    secret: bytes | None   # Z85, 40 bytes; None for a peer's public key alone


def new_keypair() -> Keypair:
    public, secret = zmq.curve_keypair()
    return Keypair(public, secret)


def _derive(cluster_secret: bytes, label: str) -> Keypair:
    raw = hmac.new(cluster_secret, label.encode(), hashlib.sha256).digest()
    secret = z85.encode(raw)
    return Keypair(zmq.curve_public(secret), secret)


def controller_keys(cluster_secret: bytes) -> Keypair:
    return _derive(cluster_secret, "rgpu/1 controller")


def server_role_keys(cluster_secret: bytes) -> Keypair:
    return _derive(cluster_secret, "rgpu/1 servers")


def operator_keys(cluster_secret: bytes) -> Keypair:
    """An admin of the controller whose credential is the cluster secret itself (a holder of it can
    sign lease tokens anyway): services that run beside the servers, such as a device plugin."""
    return _derive(cluster_secret, "rgpu/1 operator")


def server_data_keys(cluster_secret: bytes, advertise_url: str) -> Keypair:
    return _derive(cluster_secret, "rgpu/1 server " + advertise_url)


def key_hex(public: bytes) -> str:
    """A Z85 public key as 64 hex digits (how URLs and the environment carry it)."""
    return z85.decode(public).hex()


def parse_key(text) -> bytes:
    """A public key given as 40 Z85 characters or 64 hex digits -> Z85 bytes."""
    if isinstance(text, bytes):
        text = text.decode("ascii", "replace")
    text = str(text).strip()
    if re.fullmatch(r"[0-9a-fA-F]{64}", text):
        return z85.encode(bytes.fromhex(text))
    if len(text) == KEY_LEN:
        try:
            if len(z85.decode(text.encode("ascii"))) == 32:
                return text.encode("ascii")
        except (ValueError, KeyError, UnicodeEncodeError):
            pass
    raise CurveError(f"not a CURVE public key (40 Z85 characters or 64 hex digits): {text[:20]!r}...")


def split_server_url(url: str) -> tuple[str, bytes | None]:
    """``tcp://host:port[@KEY][#N]`` -> (the URL without the key, the server's public key or None);
    KEY is 64 hex digits (Z85's alphabet holds '#' and '@', hex cannot collide with a URL)."""
    m = re.search(r"@([0-9a-fA-F]{64})(?=#|$)", url)
    if not m:
        return url, None
    return url[:m.start()] + url[m.end():], parse_key(m.group(1))


def stays_on_host(url: str) -> bool:
    """Whether a wire at ``url`` (a listen or connect address, with or without ``@KEY``/``#N``)
    cannot leave this host: ipc://, or tcp:// to a loopback address or ``localhost``. A host name
    may lead anywhere, a wildcard listen serves every interface: both leave it."""
    import ipaddress
    from urllib.parse import urlsplit
    address = split_server_url(url)[0].split("#", 1)[0]
    if address.startswith(("ipc://", "inproc://")):
        return True
    if not address.startswith("tcp://"):
        return False
    host = urlsplit(address).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# ---- certificate files (the zcert format: ZPL text with a metadata and a curve section) ----------
_HEADER = ("#   ****  Generated by rgpu  ****\n"
           "#   ZeroMQ CURVE {kind} Certificate\n{warning}\n")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")


def valid_name(name: str) -> bool:
    return isinstance(name, str) and bool(_NAME.match(name))


def write_cert(path: str | os.PathLike, keys: Keypair, metadata: dict[str, str], *, secret: bool) -> Path:
    """Write a certificate: with ``secret`` the secret key too, created 0600 and never over an
    existing file (O_EXCL); else the public one, 0644 (replaced atomically)."""
    path = Path(path)
    kind, warning = ("**Secret**", "#   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.\n") \
        if secret else ("**Public**", "#   Exchange securely, or use a secure mechanism to verify the contents\n"
                                     "#   of this file after exchange. Store public certificates in your home\n"
                                     "#   directory, in the .curve subdirectory.\n")
    lines = [_HEADER.format(kind=kind, warning=warning), "metadata\n"]
    for k, v in metadata.items():
        if not re.fullmatch(r"[a-z][a-z0-9-]*", k) or '"' in str(v) or "\n" in str(v):
            raise CurveError(f"metadata {k}={v!r} cannot be written in a certificate")
        lines.append(f'    {k} = "{v}"\n')
    lines.append("curve\n")
    lines.append(f'    public-key = "{keys.public.decode()}"\n')
    if secret:
        lines.append(f'    secret-key = "{keys.secret.decode()}"\n')
    text = "".join(lines).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    if secret:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(text)
    else:
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(text)
        os.replace(tmp, path)
    return path


def read_cert(path: str | os.PathLike, *, secret: bool) -> tuple[Keypair, dict[str, str]]:
    """(keys, metadata) of a certificate file; ``secret`` requires the secret key, and a file that
    others may read (as ssh refuses a private key others can read)."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as e:
        raise CurveError(f"cannot read certificate {path}: {e.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        if secret and os.fstat(f.fileno()).st_mode & 0o077:
            raise CurveError(f"{path} holds a secret key but others may read it: chmod 600 {path}")
        text = f.read(65536).decode("utf-8", "replace")
    section, meta, curve = "", {}, {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            section = line.split("#", 1)[0].strip()
            continue
        # Values are quoted: Z85 keys hold '#', so a comment is only what follows the closing quote.
        m = re.fullmatch(r'\s+([A-Za-z0-9_-]+)\s*=\s*"([^"]*)"\s*(#.*)?', line) \
            or re.fullmatch(r'\s+([A-Za-z0-9_-]+)\s*=\s*([^\s"#]*)\s*(#.*)?', line)
        if m:
            (meta if section == "metadata" else curve if section == "curve" else {})[m.group(1)] = m.group(2)
    try:
        public = parse_key(curve.get("public-key", ""))
        secret_key = curve.get("secret-key")
        if secret and not secret_key:
            raise CurveError("no secret key in it")
        keys = Keypair(public, secret_key.encode() if secret_key else None)
        if keys.secret and zmq.curve_public(keys.secret) != keys.public:
            raise CurveError("its secret key does not belong to its public key")
    except CurveError as e:
        raise CurveError(f"certificate {path}: {e}") from None
    return keys, meta


# ---- sockets ---------------------------------------------------------------------------------
def as_server(sock: zmq.Socket, keys: Keypair) -> None:
    """Make ``sock`` (before bind) a CURVE server with ``keys``: only encrypted, authenticated
    peers get through, each known to the application by the user id its ZAP handler gave."""
    sock.curve_secretkey = keys.secret
    sock.curve_publickey = keys.public
    sock.curve_server = True
    sock.zap_domain = b"rgpu"


def as_client(sock: zmq.Socket, keys: Keypair, server_public: bytes) -> None:
    """Make ``sock`` (before connect) a CURVE client of the server with public key ``server_public``."""
    sock.curve_secretkey = keys.secret
    sock.curve_publickey = keys.public
    sock.curve_serverkey = server_public


def limit(sock: zmq.Socket, max_message: int) -> None:
    """Refuse (disconnect) a peer whose message part exceeds ``max_message`` bytes, before any of
    it is buffered: the first defence of every daemon against one huge message."""
    sock.setsockopt(zmq.MAXMSGSIZE, max_message)


def peer_id(frame) -> str:
    """The user id ZAP gave the connection a received frame came from ('' without ZAP)."""
    try:
        return frame.get("User-Id") or ""
    except (zmq.ZMQError, AttributeError):
        return ""


class Zap(threading.Thread):
    """A ZAP handler for one context: ``decide(mechanism, public_key_z85 | None, address)`` returns
    the user id to admit a connection with, or None to refuse it (the peer's handshake fails)."""

    def __init__(self, ctx: zmq.Context, decide: Callable[[str, bytes | None, str], str | None]):
        super().__init__(name="rgpu-zap", daemon=True)
        self.decide = decide
        self.sock = ctx.socket(zmq.REP)
        self.sock.linger = 0
        self.sock.bind(ZAP_ENDPOINT)
        self._halt = threading.Event()

    def run(self) -> None:
        try:
            while not self._halt.is_set():
                try:
                    if not self.sock.poll(200):
                        continue
                    msg = self.sock.recv_multipart()
                except zmq.ZMQError:
                    return
                self.sock.send_multipart(self._answer(msg))
        finally:
            self.sock.close(0)

    def _answer(self, msg: list[bytes]) -> list[bytes]:
        if len(msg) < 6 or msg[0] != b"1.0":
            return [b"1.0", msg[1] if len(msg) > 1 else b"", b"400", b"malformed ZAP request", b"", b""]
        request_id, address, mechanism, creds = msg[1], msg[3], msg[5], msg[6:]
        key = z85.encode(creds[0]) if mechanism == b"CURVE" and len(creds) == 1 and len(creds[0]) == 32 else None
        if mechanism == b"PLAIN" and len(creds) == 2:  # [user, password]: a session's bulk channel (server/bulk.py)
            key = creds[1]
        try:
            user = self.decide(mechanism.decode("ascii", "replace"), key, address.decode("utf-8", "replace"))
        except Exception:  # a policy bug must refuse, not admit
            user = None
        if user is None:
            return [b"1.0", request_id, b"400", b"not admitted", b"", b""]
        return [b"1.0", request_id, b"200", b"OK", user.encode(), b""]

    def stop(self) -> None:
        self._halt.set()
        self.join(1.0)


# ---- a client socket's handshake, watched -----------------------------------------------------
HANDSHAKE_EVENTS = (zmq.EVENT_CONNECTED | zmq.EVENT_DISCONNECTED | zmq.EVENT_HANDSHAKE_SUCCEEDED
                    | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
                    | zmq.EVENT_HANDSHAKE_FAILED_AUTH)


class Handshake:
    """What a client socket's monitor says of its connection: ``refused`` once the server failed
    our authentication (ZAP said no), ``broken`` once a handshake failed otherwise (wrong server
    key, or a plain peer), ``connected`` once TCP connected, ``ok`` once a handshake succeeded.

    ``close()`` before closing the socket: libzmq's I/O thread sends each event to the monitor's
    PAIR with a blocking send, and one sent after that PAIR is closed never returns. The context's
    I/O thread is then stuck for good: no connection of the context moves, and every socket closed
    afterwards stays alive in libzmq (a pytest worker reached its 1,023-socket cap that way)."""

    _names = itertools.count()

    def __init__(self, sock: zmq.Socket):
        self.sock = sock
        # A name of our own: pyzmq's default, inproc://monitor.s-<fd>, can still be bound by the
        # monitor of a socket libzmq is tearing down whose fd this socket was given.
        name = f"inproc://rgpu-handshake-{next(self._names)}"
        self.monitor = sock.get_monitor_socket(HANDSHAKE_EVENTS, name)
        self.connected = self.ok = self.refused = self.broken = False

    def update(self) -> "Handshake":
        from zmq.utils.monitor import recv_monitor_message
        while self.monitor.poll(0):
            event = recv_monitor_message(self.monitor)["event"]
            if event == zmq.EVENT_CONNECTED:
                self.connected = True
            elif event == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                self.ok, self.broken, self.refused = True, False, False
            elif event == zmq.EVENT_HANDSHAKE_FAILED_AUTH:
                self.refused = True
            elif event in (zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL, zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL):
                self.broken = True
            elif event == zmq.EVENT_DISCONNECTED and self.connected and not self.ok:
                self.broken = True
        return self

    def close(self) -> None:
        """Stop the events at their source (libzmq closes its end under the lock its I/O thread
        sends with), then close our end."""
        try:
            self.sock.disable_monitor()
        except zmq.ZMQError:
            pass  # the socket was closed first: libzmq stops its monitor when it destroys it
        self.monitor.close(0)
