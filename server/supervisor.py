"""The supervisor of one GPU host: the main loop that answers hellos, stats and pings (handlers.py)
on the listen address and keeps the server's sessions in step with the pool.

A hello is checked (protocol version; in a pool, the lease token: lease_gate.py) and answered with
a session worker that is already running (workers.py); each GPU's memory is tracked across its
sessions through shared arrays, so a worker that dies still gives its memory back; ``stats`` reports
that accounting. In a pool (``--controller``) a Registrar thread registers the GPUs and heartbeats
the accounting; each reply's list of valid leases reaches the main loop, which stops the sessions of
leases that ended (released or expired). A session runs with its lease's memory quota.

The wire is CURVE in a pool (the server's key derived from the cluster secret and the URL it
advertises, protocol/curve.py), plain in direct mode unless asked. Every hello is answered with a
worker that admits only the connection that said it (its CURVE key, or on a plain wire its address).
No request may exceed MAX_REQUEST bytes: a larger message part disconnects its sender unread."""
from __future__ import annotations

import os
import secrets
import time

import zmq

from rgpu.protocol import curve, wire
from rgpu.units import format_size

from . import nvml
from .accounting import Ledger
from .gpus import GpuSpec
from .handlers import DEFERRED, Peer, Refused, handle
from .lease_gate import LeaseGate, LeaseRefused
from .workers import HELLO_WAIT_S, Pending, Worker, Workers

MAX_REQUEST = 256 << 10  # a hello with the token of a lease of 64 vGPUs is ~20 KiB
MAX_SESSIONS_PER_LEASE = 16

class Supervisor:
    def __init__(self, listen: str, device: str, gpus: list[GpuSpec], conf: dict, log,
                 gate: LeaseGate | None = None, keys: curve.Keypair | None = None,
                 cluster_key: bytes | None = None):
        """``keys``: the server's CURVE keypair (None: a plain wire); ``cluster_key``: the public key
        whose holders (of the cluster secret) may ask for stats."""
        self.listen, self.conf, self.log = listen, conf, log
        self.keys, self.cluster_key = keys, cluster_key
        self.conf["device"] = device
        self.conf["worker_bind"] = worker_bind(listen)
        self.conf["curve_keys"] = tuple(keys) if keys else None
        self.workers = Workers(gpus, self.conf, log)
        self.gpus, self.sessions = self.workers.gpus, self.workers.sessions
        self.ledger = Ledger()
        self.gate = gate or LeaseGate(None)
        self.max_sessions_per_lease = conf.get("max_sessions_per_lease", MAX_SESSIONS_PER_LEASE)
        self.registrar = None
        self._view_changed = False
        self.stopping = False

    @property
    def curve(self) -> bool:
        return self.keys is not None

    # -- requests (handlers.py calls these) --
    def open_session(self, gpu_index: int, client: str, token, peer: Peer = Peer(), vgpu: int | None = None,
                     request_id=None):
        """Admit a hello and queue it for a worker of its GPU (answered by the loop, DEFERRED)."""
        if not 0 <= gpu_index < len(self.gpus):
            raise Refused("no_such_gpu", f"this server has {len(self.gpus)} GPU(s); gpu {gpu_index} does not exist")
        gpu = self.gpus[gpu_index]
        try:
            grant = self.gate.admit(token, gpu.spec.uuid, gpu.index, vgpu)
        except LeaseRefused as e:
            self.log.info("session_refused", gpu=gpu.index, client=client, reason=e.reason)
            raise Refused("lease", e.message, reason=e.reason) from None
        if not self.workers.has_room(gpu):
            raise Refused("busy", "too many sessions on this GPU")
        if grant.lease:
            open_ = sum(1 for w in self.sessions.values() if w.grant.lease == grant.lease)
            if open_ + self.workers.waiting_for(grant.lease) >= self.max_sessions_per_lease:
                raise Refused("busy", f"lease {grant.lease} already has {self.max_sessions_per_lease} sessions on "
                                      "this server (the most one lease may open)")
        sid, key = secrets.token_hex(8), secrets.token_hex(16)
        # The quota is what the worker enforces (across the sessions of the vGPU) and what the
        # device reports as its total memory.
        memory = min(gpu.capacity, grant.memory or gpu.capacity)
        group_key = (grant.lease, grant.vgpu) if grant.lease else ("", sid)
        assignment = {"session": sid, "key": key, "gpu": gpu.index, "memory": memory, "client": client,
                      "client_key": peer.key, "client_address": peer.address, "compute": grant.compute,
                      "limit": grant.limit, "group": gpu.join_group(group_key, memory),
                      "grant": grant, "group_key": group_key}
        self.workers.enqueue(gpu, Pending(peer.ident, request_id, assignment, time.monotonic() + HELLO_WAIT_S))
        return DEFERRED

    def stats(self) -> dict:
        valid, at = self.gate.view()
        self._end_gone_leases()  # this view (or a newer one) is applied to the sessions listed
        sessions = self.snapshot()
        pool = {"controller": self.gate.pool, "view_at": at, "leases": sorted(valid)} if self.gate.pool else None
        return {"ok": True, "device": self.conf["device"], "pool": pool,
                "gpus": [{"index": g.index, "uuid": g.spec.uuid, "name": g.name, "memory_total": g.capacity,
                          "memory_used": g.used(), "sessions": sum(1 for w in sessions.values() if w.gpu == g.index)}
                         for g in self.gpus],
                "sessions": [{"session": s, "gpu": w.gpu, "client": w.client, "pid": w.pid,
                              "lease": w.grant.lease, "memory_quota": w.grant.memory,
                              "compute": w.grant.compute, "limit": w.grant.limit,
                              "memory_used": self.gpus[w.gpu].usage[w.slot], "stopping": bool(w.stopping),
                              **Ledger.session(self.gpus[w.gpu], w.slot)}
                             for s, w in sessions.items()],
                "leases": self.lease_usage(sessions)}

    def snapshot(self) -> dict:
        """The sessions now; safe from the registrar's thread while the main loop changes them."""
        while True:
            try:
                return dict(self.sessions)
            except RuntimeError:  # changed size during the copy: take it again
                continue

    # -- the pool --
    def inventory(self) -> dict:
        """What the Registrar registers: this server's GPUs."""
        return {"backend": self.conf["device"],
                "gpus": [{"uuid": g.spec.uuid, "index": g.index, "name": g.name, "memory_total": g.capacity,
                          "sms": g.spec.sms, "compute_capability": g.spec.compute_capability} for g in self.gpus]}

    def usage(self) -> dict:
        """What each heartbeat carries (registrar thread): memory used and sessions per GPU, and
        per lease its device time and memory (see accounting.py)."""
        live = self.snapshot()
        sessions = list(live.values())
        real = self.conf["device"] == "cuda"
        return {"sessions": len(sessions),
                "gpus": [{"uuid": g.spec.uuid, "index": g.index, "memory_used": g.used(),
                          "device_time_s": sum(g.sched.device_time[w.slot] for w in sessions if w.gpu == g.index),
                          "sessions": sum(1 for w in sessions if w.gpu == g.index),
                          **(nvml.gpu_usage(g.index) if real else {})} for g in self.gpus],
                "leases": self.lease_usage(live)}

    def lease_usage(self, sessions: dict) -> dict:
        return self.ledger.report([(w.grant.lease, Ledger.session(self.gpus[w.gpu], w.slot))
                                   for w in sessions.values()])

    def on_leases(self, valid: set) -> None:
        """The controller's view of the leases valid here (registrar thread); applied by the main loop."""
        self.gate.see(valid, self.registrar.view_time if self.registrar else 0.0)
        self._view_changed = True

    def _end_gone_leases(self) -> None:
        """Stop the sessions of leases that ended; their memory returns when the worker exits."""
        self._view_changed = False
        valid, at = self.gate.view()
        if self.gate.pool and at > 0:
            self.ledger.forget(set(valid) | {w.grant.lease for w in self.sessions.values()})
        for sid, w in list(self.sessions.items()):
            if not w.stopping and self.gate.gone(w.grant.lease, w.grant.iat):
                self.workers.stop(sid, w)
                self.log.info("session_stopped", session=sid, lease=w.grant.lease, reason="lease_ended")

    def _ended(self, w: Worker) -> None:
        self.ledger.ended(w.grant.lease, Ledger.session(self.gpus[w.gpu], w.slot))

    # -- main loop --
    def _zap(self, mechanism: str, key: bytes | None, address: str) -> str | None:
        """CURVE peers only; the user id carries the key, and whether it is the cluster's."""
        if mechanism != "CURVE" or key is None:
            return None
        return ("cluster:" if key == self.cluster_key else "client:") + key.decode()

    @staticmethod
    def _peer(ident: bytes, frame) -> Peer:
        role, _, key = curve.peer_id(frame).partition(":")
        try:
            address = frame.get("Peer-Address") or ""
        except zmq.ZMQError:
            address = ""
        return Peer(key.encode() if key else None, address, role == "cluster", ident)

    def serve(self) -> None:
        ctx = zmq.Context()
        zap = curve.Zap(ctx, self._zap) if self.curve else None
        if zap is not None:
            zap.start()
        sock = ctx.socket(zmq.ROUTER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.RCVHWM, 1000)
        curve.limit(sock, MAX_REQUEST)
        if self.curve:
            curve.as_server(sock, self.keys)
        sock.bind(self.listen)
        self.workers.start()
        self.log.info("server_listening", listen=self.listen, device=self.conf["device"], gpus=len(self.gpus),
                      memory=[format_size(g.capacity) for g in self.gpus], pool=self.gate.pool or None,
                      leases_required=self.gate.enabled, wire="curve" if self.curve else "plain",
                      curve_key=curve.key_hex(self.keys.public) if self.curve else None)
        if self.registrar is not None:
            self.registrar.start()
        code = 0
        try:
            while not self.stopping:
                # Nothing in this loop blocks: hellos wait in queues, workers and the zygote are
                # polled with the socket, so a ping is answered during any burst of program starts.
                ready = zmq.select([sock] + self.workers.fds(), [], [], 0.2)[0]
                if sock in ready:
                    for _ in range(100):
                        try:
                            frames = sock.recv_multipart(zmq.NOBLOCK, copy=False)
                        except zmq.Again:
                            break
                        reply = self._request(frames)
                        if reply is not None:
                            sock.send_multipart([frames[0].bytes, wire.pack(reply)])
                try:
                    for ident, reply in self.workers.pump(self._ended):
                        sock.send_multipart([ident, wire.pack(reply)])
                except (EOFError, OSError):
                    self.log.error("zygote_gone", reason="the process that starts session workers died")
                    code = 1
                    break
                if self._view_changed:
                    self._end_gone_leases()
        finally:
            self.workers.shutdown()
            sock.close(0)
            if zap is not None:
                zap.stop()
            ctx.term()
            if self.registrar is not None:
                self.registrar.stop()  # at most one controller timeout when it is unreachable
            self.log.info("server_stopped", listen=self.listen)
        if code:
            raise SystemExit(code)

    def _request(self, frames) -> dict | None:
        """One request from the socket: its reply, or None when it is answered later (a hello)."""
        ident, body = frames[0].bytes, frames[1:]
        try:
            msg = wire.unpack(body[0].bytes) if len(body) == 1 else None
            if not isinstance(msg, dict):
                raise ValueError("expected one msgpack map")
            return handle(self, msg, self._peer(ident, body[0]))
        except Exception as e:  # malformed input never stops the server
            self.log.warning("malformed_request", reason=str(e)[:200])
            return {"ok": False, "error": "malformed", "message": f"malformed request: {str(e)[:200]}"}


def worker_bind(listen: str) -> str:
    """Where session workers bind: the listen host, a port of the system's choosing."""
    if listen.startswith("tcp://"):
        host = listen[len("tcp://"):].rsplit(":", 1)[0]
        return f"tcp://{'*' if host in ('*', '0.0.0.0') else host}:*"
    if listen.startswith("ipc://"):
        return f"{listen}.w{os.getpid()}-{secrets.token_hex(4)}"
    raise ValueError(f"listen address must be tcp:// or ipc://, not {listen}")
