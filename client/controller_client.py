"""Python client of the rgpu-controller API (used by the CLI, ``rgpu run`` and server registration).

One DEALER socket per client, one request in flight at a time. Each request carries an ``id`` the
reply echoes, so a late reply to a request that already timed out is recognised and dropped. A
timeout closes the socket (its queue may hold the stale request) and raises ``ControllerTimeout``.

The connection is CURVE: the client presents its credential (client/credentials.py: a user's, or a
server's derived from the cluster secret) and checks the controller's public key. A credential the
controller knows fails the handshake; that is reported at once as ``unauthenticated``.

Replicas: the URL may be a comma-separated list (``RGPU_CONTROLLER=tcp://a:7440,tcp://b:7440``),
the replicas of one cluster. A replica that does not lead answers ``not_leader`` with the leader's
URL, which the client follows (also when it was given one URL: a Service in front of the
replicas); one that does not answer within ATTEMPT_S is skipped for the next;
``unavailable`` (the leader could not store the change in etcd: nothing was done) is sent again.
The client keeps at it for its timeout, and at least FAILOVER_S (the time a new leader takes to be
elected after the old one died). It stays on the URL that answered. A request that went to a
leader which died before replying is sent again to the next leader: a reserve may then leave an
orphan lease behind, which nobody renews and which expires after its TTL.
"""
from __future__ import annotations

import itertools
import os
import threading
import time

import msgpack
import zmq

from rgpu.protocol import curve

from .credentials import Credential, CredentialError

DEFAULT_CONTROLLER_URL = "tcp://127.0.0.1:7440"
DEFAULT_TIMEOUT = 5.0
ATTEMPT_S = 1.5        # how long one replica of several may stay silent before the next is tried
FAILOVER_S = 10.0      # with several replicas, how long a call keeps trying (a new leader's election)
REQUEUE_MAX = 5        # times a waiting request is sent again after its controller forgot its ticket
MAX_REPLY = 64 << 20   # `ls` of a large pool is the largest reply


class ControllerError(Exception):
    """An error reply (or no reply) from the controller; ``code`` is the wire error code."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message

    def __str__(self) -> str:
        return f"{self.message} [{self.code}]"


class ControllerTimeout(ControllerError):
    pass


def controller_url(url: str | None = None) -> str:
    return url or os.environ.get("RGPU_CONTROLLER") or DEFAULT_CONTROLLER_URL


class ControllerClient:
    def __init__(self, url: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                 credential: Credential | None = None):
        """``url``: one controller, or the replicas of one cluster, comma-separated.
        ``credential``: who to be (default: ``Credential.load()``, when the first request is sent)."""
        self.urls = [u.strip() for u in controller_url(url).split(",") if u.strip()]
        self.url, self.timeout = self.urls[0], timeout
        self.credential = credential
        self._ctx = zmq.Context.instance()
        self._sock = None
        self._handshake: curve.Handshake | None = None
        self._ids = itertools.count(1)
        self.resent = False   # the last request went again to another replica after no answer
        self._lock = threading.Lock()

    def _socket(self):
        if self._sock is None:
            try:
                if self.credential is None:
                    self.credential = Credential.load()
                server_key = self.credential.controller_public()
            except CredentialError as e:
                raise ControllerError("no_credential", str(e)) from None
            sock = self._ctx.socket(zmq.DEALER)
            try:
                sock.setsockopt(zmq.LINGER, 0)
                curve.limit(sock, MAX_REPLY)
                curve.as_client(sock, self.credential.keys, server_key)
                self._handshake = curve.Handshake(sock)
                sock.connect(self.url)
            except BaseException:
                self._sock = sock       # closed now, not by the GC (connect raises on a bad URL)
                self._drop_socket()
                raise
            self._sock = sock
        return self._sock

    def _drop_socket(self) -> None:
        # The handshake watch first: it stops the socket's monitor, which must not outlive the
        # PAIR that reads it (see curve.Handshake).
        if self._handshake is not None:
            self._handshake.close()
            self._handshake = None
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def close(self) -> None:
        with self._lock:
            self._drop_socket()

    def _handshake_error(self, cmd: str, timeout: float) -> ControllerError:
        """Why no reply came: refused credential, failed handshake, or nobody there."""
        h = self._handshake.update() if self._handshake else None
        who = f"{self.credential.name} ({self.credential.source})" if self.credential else "?"
        if h is not None and h.refused:
            return ControllerError(
                "unauthenticated", f"rgpu-controller at {self.url} does not know the credential of {who}: "
                "ask the pool's operator to add you (`rgpu user add NAME` on the controller's machine)")
        if h is not None and h.broken:
            return ControllerTimeout(
                "handshake_failed", f"rgpu-controller at {self.url} did not complete the CURVE handshake: "
                f"it is not the controller whose public key this client trusts (RGPU_CONTROLLER_KEY, the "
                f"credential's controller-key or the config dir's controller.key), or not an rgpu-controller")
        return ControllerTimeout(
            "timeout", f"rgpu-controller at {self.url} did not answer {cmd!r} within "
            f"{timeout:g}s; is it running? (set --controller or RGPU_CONTROLLER)")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def call_raw(self, cmd: str, timeout: float | None = None, **fields) -> dict:
        """Send one command and return the reply map, whether ok or not; with several replicas,
        to the one that leads."""
        timeout = self.timeout if timeout is None else timeout
        with self._lock:
            self.resent = False
            if len(self.urls) == 1:
                reply = self._call_one(cmd, timeout, fields)
                leader = reply.get("leader")
                if reply.get("error") != "not_leader" or not isinstance(leader, str) or not leader:
                    return reply
                self._switch(leader)   # one URL of several replicas (a Service in front of them)
            return self._call_leader(cmd, timeout, fields)

    def _switch(self, url: str) -> None:
        self._drop_socket()
        if url not in self.urls:
            self.urls.append(url)
        self.url = url

    def _call_leader(self, cmd: str, timeout: float, fields: dict) -> dict:
        deadline = time.monotonic() + max(timeout, FAILOVER_S)
        error: ControllerError | None = None
        self.resent = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise error or ControllerTimeout("timeout", f"no controller of {','.join(self.urls)} answered")
            try:
                reply = self._call_one(cmd, min(left, ATTEMPT_S, timeout), fields)
            except ControllerTimeout as exc:      # dead or unreachable: the next replica
                error, self.resent = exc, True
                self._switch(self.urls[(self.urls.index(self.url) + 1) % len(self.urls)])
                continue
            if reply.get("error") == "unavailable":   # the leader could not store it
                # Nothing was done, unless etcd could not even be asked afterwards (store_etcd.py's
                # commit mark): then the request may have been applied, as after a timeout.
                error, self.resent = ControllerError("unavailable", str(reply.get("message", ""))), True
                time.sleep(0.1)
                continue
            if reply.get("error") != "not_leader":
                return reply
            error = ControllerError("not_leader", str(reply.get("message", "no replica leads")))
            leader = reply.get("leader")
            if isinstance(leader, str) and leader and leader != self.url:
                self._switch(leader)
            else:                                 # an election is under way: look again shortly
                time.sleep(0.1)
                self._switch(self.urls[(self.urls.index(self.url) + 1) % len(self.urls)])

    def _call_one(self, cmd: str, timeout: float, fields: dict) -> dict:
        rid = next(self._ids)
        sock = self._socket()
        # Read the monitor's events on every call: a long-lived client whose replies always come
        # at once (a server's registrar) would otherwise let them pile up until the monitor's
        # pipe is full, and libzmq's I/O thread blocks on a full one as on a closed one.
        self._handshake.update()
        sock.send(msgpack.packb({"cmd": cmd, "id": rid, **fields}, use_bin_type=True))
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            # Wake at least every 100 ms to see a refused handshake, which no reply will follow.
            if left <= 0 or not sock.poll(int(min(left, 0.1) * 1000) + 1, zmq.POLLIN):
                if left > 0 and not self._handshake.update().refused:
                    continue
                error = self._handshake_error(cmd, timeout)
                self._drop_socket()
                raise error
            try:
                reply = msgpack.unpackb(sock.recv(), raw=False)
            except (ValueError, msgpack.UnpackException) as exc:
                raise ControllerError("bad_reply", f"unreadable reply from {self.url}: {exc}") from None
            if isinstance(reply, dict) and reply.get("id") in (rid, None):
                return reply
            # else: the reply to an earlier request that timed out; keep waiting for ours

    def call(self, cmd: str, timeout: float | None = None, **fields) -> dict:
        """Like call_raw, but an error reply raises ``ControllerError``."""
        reply = self.call_raw(cmd, timeout=timeout, **fields)
        if not reply.get("ok"):
            raise ControllerError(str(reply.get("error", "bad_reply")), str(reply.get("message", reply)))
        return reply

    # ---- commands -------------------------------------------------------------------------------
    def ping(self, timeout: float | None = None) -> dict:
        return self.call("ping", timeout=timeout)

    def reserve(self, **request) -> dict:
        """Reserve now; with ``wait`` seconds the reply may be ``{"queued": True, "ticket": ...}``."""
        request = {k: v for k, v in request.items() if v is not None}
        return self.call("reserve", **request)

    def reserve_waiting(self, request: dict, wait: float, progress=None, interval: float = 0.25) -> dict:
        """Reserve, queueing up to ``wait`` seconds; ``progress(reply)`` sees each queued reply.
        A ticket the controller no longer knows (its leader died, or it restarted: tickets live in
        its memory) is sent again with the ticket's id, for the time left: the controller that
        answers hands over the lease placed for it before, or queues it again (waitqueue.py)."""
        deadline = time.monotonic() + wait
        reply = self.reserve(**request, wait=wait)
        requeued = 0
        try:
            while reply.get("queued"):
                if progress:
                    progress(reply)
                time.sleep(interval)     # polling interval of a queued request, not a synchronisation
                try:
                    reply = self.call("poll", ticket=reply["ticket"])
                except ControllerError as exc:
                    left = deadline - time.monotonic()
                    if exc.code != "unknown_ticket" or left <= 0 or requeued >= REQUEUE_MAX:
                        raise
                    requeued += 1
                    reply = self.reserve(**request, wait=left, ticket=reply["ticket"])
        except KeyboardInterrupt:
            try:
                self.call("cancel", ticket=reply["ticket"], timeout=2.0)
            except ControllerError:
                pass
            raise
        return reply

    def renew(self, lease: str, ttl: float | None = None) -> dict:
        return self.call("renew", lease=lease, **({"ttl": ttl} if ttl else {}))

    def release(self, lease: str) -> dict:
        reply = self.call_raw("release", lease=lease)
        if (not reply.get("ok") and reply.get("error") == "lease_ended" and self.resent
                and str(reply.get("message", "")).endswith("released")):
            # sent again after a leader died without answering: that leader had released it
            return {"ok": True, "lease": lease}
        if not reply.get("ok"):
            raise ControllerError(str(reply.get("error", "bad_reply")), str(reply.get("message", reply)))
        return reply

    def lease(self, lease: str) -> dict:
        return self.call("lease", lease=lease)["lease"]

    def leases(self) -> list[dict]:
        return self.call("leases")["leases"]

    def ls(self) -> dict:
        return self.call("ls")

    def register(self, url: str, boot_id: str, backend: str, gpus: list[dict]) -> dict:
        return self.call("register", url=url, boot_id=boot_id, backend=backend, gpus=gpus)

    def heartbeat(self, url: str, boot_id: str, usage: dict) -> dict:
        return self.call("heartbeat", url=url, boot_id=boot_id, usage=usage)

    def migrate(self, lease: str, to: str | None = None, vgpu: int | None = None) -> list[dict]:
        return self.call("migrate", lease=lease, **({"to": to} if to else {}),
                         **({"vgpu": vgpu} if vgpu is not None else {}))["migrations"]

    def failover(self, lease: str, vgpu: int, lost: str | None = None, avoid: list[str] | None = None) -> dict:
        """The lease's vGPU placed on another server now (a --failover lease whose server died), not on
        any of ``avoid`` (servers lost earlier in the same recovery)."""
        return self.call("failover", lease=lease, vgpu=vgpu, **({"lost": lost} if lost else {}),
                         **({"avoid": avoid} if avoid else {}))

    def migration(self, mid: str) -> dict:
        return self.call("migration", migration=mid)["migration"]

    def drain(self, url: str, undo: bool = False) -> list[dict]:
        return self.call("drain", url=url, undo=undo)["migrations"]

    def defrag(self, dry_run: bool = False, max_moves: int = 16) -> list[dict]:
        return self.call("defrag", dry_run=dry_run, max_moves=max_moves)["moves"]
