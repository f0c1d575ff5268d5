"""A small client of etcd's v3 JSON gateway (``/v3/kv/range``, ``/v3/kv/txn``, ``/v3/lease/*``).

Why the gateway and the standard library's ``http.client``: the Python gRPC clients of etcd are
unmaintained (python-etcd3's last release predates protobuf 4 and breaks with current protobuf)
or pull grpcio into a controller that otherwise needs no compiled dependency; etcd serves the same
API as JSON over HTTP on its client port (keys and values base64, int64 as strings), and one
kept-alive ``HTTPConnection`` per member is all the controller needs — no new dependency, and
about a third of the per-request cost of a full HTTP client library. ``etcds://`` talks HTTPS
(``HTTPSConnection``) with the CA and client certificate etcdctl's --cacert/--cert/--key name
(``TlsFiles``); a handshake that fails for want of the right certificate raises ``EtcdTlsError``
at once instead of being retried as a member that is down.

One ``Etcd`` is used by one thread at a time (the controller's loop); the election runs in the
same loop. A member that refuses, times out or answers "unavailable" (no raft leader, the leader
changed: a member died and the others elect) is skipped for the next one of the list, and the list
is tried again for up to RETRY_S; only then does a call raise ``EtcdUnavailable``.
"""
from __future__ import annotations

import base64
import http.client
import json
import os
import socket
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urlsplit


class EtcdError(Exception):
    """etcd answered with an error (a bad request, a missing lease)."""


class EtcdUnavailable(EtcdError):
    """No member of the list answered."""


class EtcdTlsError(EtcdError):
    """TLS with a member failed for a reason another try will not change (its certificate is not
    signed by our CA, it wants a client certificate we did not give, one side does not speak TLS)."""


class _Transient(Exception):
    """A member answered that it cannot serve now (gRPC code 14 through the gateway: HTTP 503)."""


RETRY_S = 3.0   # how long a call tries the members again (an etcd election takes about a second)


def b64(data: str | bytes) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


def unb64(text: str) -> bytes:
    return base64.b64decode(text) if text else b""


def prefix_end(prefix: str) -> str:
    """The range end that selects every key starting with ``prefix`` (etcd's convention: the
    prefix with its last byte incremented)."""
    raw = bytearray(prefix.encode())
    raw[-1] += 1
    return bytes(raw).decode()


@dataclass
class Kv:
    key: str
    value: bytes
    create_revision: int
    mod_revision: int
    version: int
    lease: int


def _kv(d: dict) -> Kv:
    return Kv(unb64(d["key"]).decode(), unb64(d.get("value", "")), int(d.get("create_revision", 0)),
              int(d.get("mod_revision", 0)), int(d.get("version", 0)), int(d.get("lease", 0)))


# ---- transaction parts (the gateway's JSON for etcdserverpb.Compare / RequestOp) -------------------
def cmp_create(key: str, revision: int) -> dict:
    """Compare: ``key`` was created at ``revision`` (0: it does not exist)."""
    return {"key": b64(key), "target": "CREATE", "result": "EQUAL", "create_revision": str(revision)}


def cmp_mod(key: str, revision: int) -> dict:
    """Compare: ``key`` was last changed at ``revision``."""
    return {"key": b64(key), "target": "MOD", "result": "EQUAL", "mod_revision": str(revision)}


def put(key: str, value: str | bytes, lease: int = 0) -> dict:
    op = {"key": b64(key), "value": b64(value)}
    if lease:
        op["lease"] = str(lease)
    return {"request_put": op}


def delete(key: str) -> dict:
    return {"request_delete_range": {"key": b64(key)}}


def get(key: str) -> dict:
    return {"request_range": {"key": b64(key)}}


@dataclass(frozen=True)
class TlsFiles:
    """What TLS with etcd needs, as etcdctl names it: ``cacert`` (the CA that signed the members'
    certificates; default: the system's), ``cert`` and ``key`` (this client's certificate, for
    members started with --client-cert-auth)."""
    cacert: str | None = None
    cert: str | None = None
    key: str | None = None

    @classmethod
    def from_env(cls) -> "TlsFiles":
        return cls(os.environ.get("RGPU_ETCD_CACERT") or None, os.environ.get("RGPU_ETCD_CERT") or None,
                   os.environ.get("RGPU_ETCD_KEY") or None)

    def given(self) -> bool:
        return any((self.cacert, self.cert, self.key))

    def context(self) -> ssl.SSLContext:
        """The client's TLS context; raises EtcdTlsError naming a file that cannot be used."""
        if bool(self.cert) != bool(self.key):
            raise EtcdTlsError("a client certificate needs its key: give both --etcd-cert and --etcd-key")
        for what, path in (("--etcd-cacert", self.cacert), ("--etcd-cert", self.cert), ("--etcd-key", self.key)):
            if path and not os.path.isfile(path):
                raise EtcdTlsError(f"{what} {path}: no such file")
        try:
            ctx = ssl.create_default_context(cafile=self.cacert)
            if self.cert:
                ctx.load_cert_chain(self.cert, self.key)
        except (ssl.SSLError, OSError) as exc:
            raise EtcdTlsError(f"cannot load the TLS files for etcd (--etcd-cacert {self.cacert}, "
                               f"--etcd-cert {self.cert}, --etcd-key {self.key}): {exc}") from None
        return ctx


def _tls_failure(endpoint: str, exc: ssl.SSLError, files: TlsFiles) -> EtcdTlsError:
    """What a failed handshake means, in the words of the option that fixes it."""
    reason = getattr(exc, "reason", None) or str(exc)
    if isinstance(exc, ssl.SSLCertVerificationError):
        hint = (f"its certificate is not trusted ({exc.verify_message}): --etcd-cacert must name the CA "
                f"that signed the members' certificates")
    elif any(alert in reason.upper() for alert in ("CERTIFICATE_REQUIRED", "BAD_CERTIFICATE", "UNKNOWN_CA")):
        hint = ("the member asks for a client certificate: give --etcd-cert and --etcd-key" if not files.cert else
                f"the member refused the client certificate {files.cert}: it must be signed by the CA the members "
                f"trust (their --trusted-ca-file)")
    elif "WRONG_VERSION_NUMBER" in reason.upper() or "RECORD_LAYER" in reason.upper():
        hint = "it does not speak TLS: use etcd:// for a member serving plain HTTP"
    else:
        hint = "check --etcd-cacert, --etcd-cert and --etcd-key"
    return EtcdTlsError(f"TLS with etcd at {endpoint} failed ({reason}); {hint}")


def speaks_tls(endpoint: str, timeout: float = 1.0) -> bool:
    """Whether ``endpoint`` completes a TLS handshake (trusting any certificate: this only tells a
    TLS member, which drops a plain HTTP request without a word, from one that is down)."""
    host, _, port = endpoint.rpartition(":")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    try:
        with socket.create_connection((host, int(port)), timeout=timeout) as sock:
            with ctx.wrap_socket(sock):
                return True
    except (OSError, ValueError):
        return False


_PLAIN_TO_TLS = b"HTTP request to an HTTPS server"   # what Go's TLS server answers a plain request


class Etcd:
    def __init__(self, endpoints: list[str], timeout: float = 2.0, tls: TlsFiles | None = None):
        """``endpoints``: ``host:port`` of the cluster's members; ``tls``: talk HTTPS with these
        files (etcds://), else plain HTTP. Raises EtcdTlsError if the files cannot be used."""
        if not endpoints:
            raise ValueError("no etcd endpoint")
        self.endpoints, self.timeout, self.tls_files = list(endpoints), timeout, tls
        self.tls = tls.context() if tls is not None else None
        self.retry_s = RETRY_S
        self._conns: dict[str, http.client.HTTPConnection] = {}
        self._current = 0

    def close(self) -> None:
        for conn in self._conns.values():
            conn.close()
        self._conns.clear()

    def _post_to(self, endpoint: str, path: str, body: bytes) -> dict:
        conn = self._conns.get(endpoint)
        if conn is None:
            host, _, port = endpoint.rpartition(":")
            if self.tls is None:
                conn = http.client.HTTPConnection(host, int(port), timeout=self.timeout)
            else:
                conn = http.client.HTTPSConnection(host, int(port), timeout=self.timeout, context=self.tls)
            self._conns[endpoint] = conn
        try:
            conn.request("POST", path, body, {"Content-Type": "application/json"})
            resp = conn.getresponse()
            data = resp.read()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            del self._conns[endpoint]
            # a member going down mid-handshake ends it with EOF or a reset (retried); a refused
            # certificate or a plain-HTTP port will be refused again (not retried)
            if isinstance(exc, ssl.SSLError) and not isinstance(exc, (ssl.SSLEOFError, ssl.SSLZeroReturnError)):
                raise _tls_failure(endpoint, exc, self.tls_files) from None
            raise
        try:
            reply = json.loads(data)
        except ValueError:
            if _PLAIN_TO_TLS in data:
                raise EtcdTlsError(f"etcd at {endpoint} serves TLS: use etcds://{endpoint}/... with --etcd-cacert "
                                   f"(and --etcd-cert/--etcd-key when it checks clients)") from None
            raise EtcdError(f"etcd at {endpoint} answered {path} with HTTP {resp.status} and no JSON: "
                            f"{data[:200]!r}; is it etcd's client port?") from None
        if resp.status == 503 or (isinstance(reply, dict) and reply.get("code") == 14):
            raise _Transient(f"HTTP {resp.status} {reply.get('error') or reply.get('message')}")
        if resp.status != 200 or not isinstance(reply, dict) or "error" in reply:
            message = reply.get("error") or reply.get("message") if isinstance(reply, dict) else data[:200]
            raise EtcdError(f"etcd at {endpoint} refused {path}: HTTP {resp.status} {message}")
        return reply

    def post(self, path: str, payload: dict) -> dict:
        """POST to the current member; on a refused or silent member, to the next ones."""
        body = json.dumps(payload).encode()
        deadline = time.monotonic() + self.retry_s
        while True:
            errors = []
            for i in range(len(self.endpoints)):
                k = (self._current + i) % len(self.endpoints)
                try:
                    reply = self._post_to(self.endpoints[k], path, body)
                except (OSError, socket.timeout, http.client.HTTPException, _Transient) as exc:
                    errors.append(f"{self.endpoints[k]}: {exc.__class__.__name__}: {exc}")
                    continue
                self._current = k
                return reply
            if time.monotonic() >= deadline:
                raise EtcdUnavailable("no etcd member answered (" + "; ".join(errors) + ")")
            time.sleep(0.1)

    # ---- KV -------------------------------------------------------------------------------------
    def range(self, key: str, prefix: bool = False, keys_only: bool = False) -> tuple[list[Kv], int]:
        """The keys at ``key`` (every key under it with ``prefix``) and the store's revision."""
        req = {"key": b64(key)}
        if prefix:
            req["range_end"] = b64(prefix_end(key))
        if keys_only:
            req["keys_only"] = True
        reply = self.post("/v3/kv/range", req)
        return [_kv(d) for d in reply.get("kvs", [])], int(reply["header"]["revision"])

    def get(self, key: str) -> Kv | None:
        kvs, _ = self.range(key)
        return kvs[0] if kvs else None

    def txn(self, compare: list[dict], success: list[dict], failure: list[dict] = ()) -> tuple[bool, dict]:
        """One transaction: ``success`` if every compare holds, else ``failure``. Returns
        (succeeded, reply)."""
        reply = self.post("/v3/kv/txn", {"compare": compare, "success": success, "failure": list(failure)})
        return bool(reply.get("succeeded")), reply

    # ---- leases ---------------------------------------------------------------------------------
    def grant(self, ttl: int) -> int:
        reply = self.post("/v3/lease/grant", {"TTL": str(ttl)})
        return int(reply["ID"])

    def keepalive(self, lease: int) -> int:
        """Refresh ``lease``; its remaining TTL (0: it has expired)."""
        reply = self.post("/v3/lease/keepalive", {"ID": str(lease)})
        return int((reply.get("result") or {}).get("TTL") or 0)

    def revoke(self, lease: int) -> None:
        self.post("/v3/lease/revoke", {"ID": str(lease)})


def secure(url: str) -> bool:
    """Whether the store URL asks for TLS (``etcds://``)."""
    return urlsplit(url).scheme == "etcds"


def parse_url(url: str) -> tuple[list[str], str]:
    """``etcd[s]://host:port[,host:port...][/prefix]`` -> (endpoints, prefix without a trailing /)."""
    parts = urlsplit(url)
    if parts.scheme not in ("etcd", "etcds") or not parts.netloc:
        raise ValueError(f"{url!r} is not an etcd store URL: etcd://HOST:PORT[,HOST:PORT...][/PREFIX] "
                         f"(etcds:// for TLS)")
    endpoints = [e.strip() for e in parts.netloc.split(",") if e.strip()]
    for e in endpoints:
        host, sep, port = e.rpartition(":")
        if not sep or not host or not port.isdigit():
            raise ValueError(f"etcd endpoint {e!r} in {url!r} is not HOST:PORT")
    prefix = parts.path.rstrip("/") or "/rgpu"
    return endpoints, prefix
