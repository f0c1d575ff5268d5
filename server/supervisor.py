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
import socket
import time

import zmq

from rgpu.protocol import curve, wire
from rgpu.units import format_size

from . import nvml
from .accounting import Ledger, ShareMeter
from .gpus import GpuSpec
from .handlers import DEFERRED, Peer, Refused, handle
from .lease_gate import LeaseGate, LeaseRefused
from .migration.target import MOVED_WAIT_S
from .workers import HELLO_WAIT_S, Pending, Worker, Workers

MAX_REQUEST = 256 << 10  # a hello with the token of a lease of 64 vGPUs is ~20 KiB
MAX_SESSIONS_PER_LEASE = 16
# Sessions one user's leases may have open on this server at once (issue 39, attack 3: 16 leases of
# 16 sessions took all 256 slots of a GPU): the rest of the slots stay for the other tenants.
MAX_SESSIONS_PER_USER = 64

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
        self.meter = ShareMeter()
        self.busy_ended = [0.0] * len(self.gpus)  # per GPU: device time of the sessions that ended
        self.hostname = socket.gethostname()       # DCGM's Hostname label of its GPUs, in /metrics
        self.gate = gate or LeaseGate(None)
        self.max_sessions_per_lease = conf.get("max_sessions_per_lease", MAX_SESSIONS_PER_LEASE)
        self.max_sessions_per_user = conf.get("max_sessions_per_user", MAX_SESSIONS_PER_USER)
        self.registrar = None
        self.migrations: dict[str, dict] = {}  # id -> {to, lease, sessions: {sid: outcome}, state, ...}
        self._view_changed = False
        self._placed = None  # the controller's placements on this server's GPUs, from the registrar's thread
        self._orders: list[dict] = []  # the controller's, from the registrar's thread; taken by the main loop
        self.stopping = False

    @property
    def curve(self) -> bool:
        return self.keys is not None

    # -- requests (handlers.py calls these) --
    def _admit(self, gpu_index: int, client: str, token, vgpu: int | None):
        """The GPU and the grant a hello (or an incoming migration) gets; raises Refused."""
        if not isinstance(gpu_index, int) or not 0 <= gpu_index < len(self.gpus):
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
            open_ = sum(1 for w in self.sessions.values() if w.grant.lease == grant.lease and not w.moved)
            if open_ + self.workers.waiting_for(grant.lease) >= self.max_sessions_per_lease:
                raise Refused("busy", f"lease {grant.lease} already has {self.max_sessions_per_lease} sessions on "
                                      "this server (the most one lease may open)")
            tenant = grant.tenant
            held = sum(1 for w in self.sessions.values() if w.grant.tenant == tenant and not w.moved)
            if held + self.workers.waiting_of(tenant) >= self.max_sessions_per_user:
                raise Refused("busy", f"{grant.owner or 'this lease'} already has {self.max_sessions_per_user} "
                                      "sessions on this server (the most one user may open: rgpu-server "
                                      "--max-sessions-per-user); end some first")
        return gpu, grant

    def _assignment(self, gpu, grant, client: str, client_key, client_address) -> dict:
        sid, key = secrets.token_hex(8), secrets.token_hex(16)
        # The quota is what the worker enforces (across the sessions of the vGPU) and what the
        # device reports as its total memory; a share-only vGPU has neither quota nor limit.
        memory = gpu.capacity if grant.share_only else min(gpu.capacity, grant.memory or gpu.capacity)
        group_key = (grant.lease, grant.vgpu) if grant.lease else ("", sid)
        return {"session": sid, "key": key, "gpu": gpu.index, "memory": memory, "client": client,
                "client_key": client_key, "client_address": client_address, "compute": grant.compute,
                "limit": 100 if grant.share_only else grant.limit,
                "group": gpu.join_group(group_key, memory, (grant.memory or 0, grant.others, grant.iat)
                                        if grant.share_only else None),
                "vgpu": grant.vgpu, "lease": grant.lease, "grant": grant, "group_key": group_key,
                "reclaim_after": grant.reclaim_after, "failover": grant.failover,
                # module images are private to the lease's owner (a token without one: to the lease)
                "cache_scope": grant.owner or grant.lease}

    def open_session(self, gpu_index: int, client: str, token, peer: Peer = Peer(), vgpu: int | None = None,
                     request_id=None, window: int | None = None):
        """Admit a hello and queue it for a worker of its GPU (answered by the loop, DEFERRED)."""
        gpu, grant = self._admit(gpu_index, client, token, vgpu)
        assignment = self._assignment(gpu, grant, client, peer.key, peer.address)
        assignment["window"] = window
        self.workers.enqueue(gpu, Pending(peer.ident, request_id, assignment, time.monotonic() + HELLO_WAIT_S))
        return DEFERRED

    # -- live migration (server/migration) --
    def accept_incoming(self, req: dict, peer: Peer, request_id=None):
        """A session migrating here from another worker (handlers.op_incoming): a worker that will
        restore it from the source's transfer. In a pool only servers of the pool may send one, with
        a lease token that holds a vGPU on the GPU named (the controller's, for the move)."""
        if self.gate.enabled and not peer.cluster:
            raise Refused("forbidden", "only servers of this pool (holders of the cluster credential) may move "
                                       "sessions here")
        if req.get("backend") != self.conf["device"]:
            raise Refused("incompatible", f"a {req.get('backend')} session cannot be restored on this "
                                          f"{self.conf['device']} server")
        gpu, grant = self._admit(req.get("gpu", 0), str(req.get("client", "?"))[:200], req.get("lease"),
                                 req.get("vgpu"))
        need, quota = req.get("memory") or 0, min(gpu.capacity, grant.memory or gpu.capacity)
        if isinstance(need, int) and (need > quota or need > gpu.capacity - gpu.used()):
            raise Refused("no_room", f"the session holds {format_size(need)}; GPU {gpu.index} of this server has "
                                     f"{format_size(max(0, gpu.capacity - gpu.used()))} free and a quota of "
                                     f"{format_size(quota)} for it (CUDA_ERROR_OUT_OF_MEMORY)")
        client_key = req.get("client_key")
        assignment = self._assignment(gpu, grant, str(req.get("client", "?"))[:200],
                                      client_key.encode() if isinstance(client_key, str) else None, None)
        assignment["window"] = req.get("window") if isinstance(req.get("window"), int) else None
        assignment["restore"] = {"source_key": str(req.get("source_key") or "")}
        self.workers.enqueue(gpu, Pending(peer.ident, request_id, assignment, time.monotonic() + HELLO_WAIT_S))
        self.log.info("migration_incoming", gpu=gpu.index, lease=grant.lease or None, memory=req.get("memory"))
        return DEFERRED

    def migrate(self, to: str, session: str | None = None, lease: str | None = None, vgpu: int | None = None,
                token: str | None = None, migration: str | None = None) -> dict:
        """Move the named session, or every session of a lease's vGPU, to ``to`` (URL[@KEY]#GPU);
        returns the migration's record (its progress: ``migrations``)."""
        chosen = [w for sid, w in self.sessions.items() if not w.moved and not w.stopping and w.state == "live"
                  and (sid == session if session else (w.grant.lease == lease and lease
                                                       and (vgpu is None or w.grant.vgpu == vgpu)))]
        if session and not chosen:
            raise Refused("no_such_session", f"no live session {session[:20]!r} on this server")
        mid = migration or "m-" + secrets.token_hex(4)
        record = {"id": mid, "to": to, "lease": lease or (chosen[0].grant.lease if chosen else ""), "vgpu": vgpu,
                  "sessions": {w.session: {"state": "running"} for w in chosen}, "started": time.time(),
                  "state": "running" if chosen else "done", "message": ""}
        self.migrations[mid] = record
        for w in chosen:
            try:
                w.conn.send(("migrate", {"id": mid, "to": to, "token": token}))
            except (OSError, ValueError):
                record["sessions"][w.session] = {"state": "failed", "message": "the session's worker is gone"}
        self._settle(record)
        self.log.info("migration_ordered", migration=mid, to=to, sessions=len(chosen), lease=record["lease"] or None)
        return record

    def on_orders(self, orders: list) -> None:
        """Orders from the controller with a heartbeat reply (registrar thread); taken by the main loop."""
        self._orders.extend(orders)

    def _take_orders(self) -> None:
        """The controller's live migrations of a lease's vGPU: each started once (the controller
        repeats an order until a heartbeat reports on it). A refusal is a failed migration."""
        orders, self._orders = self._orders, []
        for o in orders:
            mid = o.get("id")
            if o.get("kind") != "migrate" or not isinstance(mid, str) or mid in self.migrations:
                continue
            lease, vgpu, to, token = o.get("lease"), o.get("vgpu"), o.get("to"), o.get("token")
            try:
                if not (isinstance(lease, str) and isinstance(to, str) and isinstance(token, str)
                        and isinstance(vgpu, int)):
                    raise Refused("bad_request", "a migrate order names lease, vgpu, to and token")
                self.migrate(to, lease=lease, vgpu=vgpu, token=token, migration=mid)
            except Refused as e:
                self.migrations[mid] = {"id": mid, "to": to, "lease": lease, "vgpu": vgpu, "sessions": {},
                                        "started": time.time(), "ended": time.time(), "state": "failed",
                                        "message": e.message}
            self.migrations[mid]["controller"] = True

    def migration_reports(self) -> dict:
        """Per migration the controller ordered: its state and figures (summed over its sessions;
        the pause is the longest), sent with every heartbeat until an hour after it ended."""
        out, old = {}, time.time() - 3600.0
        for mid, r in list(self.migrations.items()):
            if not r.get("controller") or (r.get("ended") or time.time()) < old:
                continue
            outcomes = [o for o in r["sessions"].values() if isinstance(o, dict)]
            rep = {"state": r["state"], "message": r["message"][:500],
                   "sessions": len(outcomes)}
            for k in ("memory_bytes", "precopy_bytes", "final_bytes", "wire_bytes", "precopy_rounds"):
                rep[k] = sum(o.get(k, 0) for o in outcomes if isinstance(o.get(k), (int, float)))
            rep["pause_s"] = max([o["pause_s"] for o in outcomes if isinstance(o.get("pause_s"), (int, float))],
                                 default=0.0)
            out[mid] = rep
        return out

    def _report(self, w: Worker, msg) -> None:
        """What a live worker said: the outcome of its migration, or its session reclaimed or
        restored (idle reclaim)."""
        if isinstance(msg, tuple) and len(msg) == 3 and msg[0] == "reclaim" and isinstance(msg[2], dict):
            w.reclaim = {**msg[2], "state": msg[1], "since": time.time()}
            self.log.info("session_" + str(msg[1]), session=w.session, lease=w.grant.lease or None,
                          **{k: msg[2].get(k) for k in ("memory_bytes", "stored_bytes", "restore_s")})
            return
        if not (isinstance(msg, tuple) and len(msg) == 3 and msg[0] == "migration"):
            return
        _, mid, outcome = msg
        record = self.migrations.get(mid)
        if record is not None and w.session in record["sessions"]:
            record["sessions"][w.session] = outcome
            self._settle(record)
        if outcome.get("state") == "done":
            self.workers.moved(w, self._ended)

    @staticmethod
    def _settle(record: dict) -> None:
        states = [o.get("state") for o in record["sessions"].values()]
        if "running" in states:
            return
        failed = [o.get("message", "") for o in record["sessions"].values() if o.get("state") == "failed"]
        record["state"] = "failed" if failed else "done"
        record["message"] = "; ".join(sorted(set(failed)))
        record["ended"] = time.time()

    def stats(self) -> dict:
        valid, at = self.gate.view()
        self._end_gone_leases()  # this view (or a newer one) is applied to the sessions listed
        sessions = self.snapshot()
        pool = {"controller": self.gate.pool, "view_at": at, "leases": sorted(valid)} if self.gate.pool else None
        return {"ok": True, "device": self.conf["device"], "pool": pool,
                "gpus": self.gpu_usage(list(sessions.values())),
                "sessions": [{"session": s, "gpu": w.gpu, "client": w.client, "pid": w.pid,
                              "lease": w.grant.lease, "vgpu": w.grant.vgpu, "memory_quota": w.grant.memory,
                              "compute": w.grant.compute, "limit": w.grant.limit,
                              "memory_used": self.gpus[w.gpu].usage[w.slot], "stopping": bool(w.stopping),
                              "state": "moved" if w.moved else "reclaimed"
                              if w.reclaim.get("state") == "reclaimed" else w.state, "restored": w.restore,
                              "reclaim": w.reclaim,
                              **Ledger.session(self.gpus[w.gpu], w.slot)}
                             for s, w in sessions.items()],
                "leases": self.lease_usage(sessions), "vgpus": self.vgpu_usage(sessions),
                "migrations": list(self.migrations.values()),
                # hellos waiting for a worker, per tenant ("" direct mode): paced ones wait their turn
                "hellos_waiting": self.workers.waiting_by_tenant()}

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
        live = {sid: w for sid, w in self.snapshot().items() if not w.moved}
        sessions = list(live.values())
        return {"sessions": len(sessions), "hostname": self.hostname, "gpus": self.gpu_usage(sessions),
                "leases": self.lease_usage(live), "vgpus": self.vgpu_usage(live),
                "migrations": self._migration_reports(), "reclaimed": self.reclaimed_vgpus(live)}

    def gpu_usage(self, sessions: list) -> list[dict]:
        """Per physical GPU: memory in use, device time of its live sessions, utilisation (NVML's on a
        real GPU; else the share of time its sessions kept it busy lately)."""
        real = self.conf["device"] == "cuda"
        out = []
        for g in self.gpus:
            # running: the time so far of kernels still running where the backend cannot time-slice
            device_time = sum(g.sched.device_time[w.slot] + g.sched.running[w.slot]
                              for w in sessions if w.gpu == g.index)
            busy = self.busy_ended[g.index] + device_time  # device time of every session ever: a counter
            out.append({"uuid": g.spec.uuid, "index": g.index, "name": g.name, "memory_total": g.capacity,
                        "memory_used": g.used(), "device_time_s": device_time,
                        "sessions": sum(1 for w in sessions if w.gpu == g.index),
                        "utilization_pct": round(self.meter.share(("gpu", g.index), busy), 1),
                        # the software GPU's memory is its sessions'; it has no temperature
                        "memory_used_device": g.used(), "temperature_c": None,
                        **(nvml.gpu_usage(g.index, g.spec.device_uuid) if real else {})})
        return out

    def vgpu_usage(self, live: dict) -> list[dict]:
        """Per vGPU on this server (the sessions of one lease's vGPU; in direct mode each session is
        one): its quotas, memory in use, achieved share of the GPU, counters (live sessions plus those
        that ended) and its processes (sessions)."""
        out: dict[tuple, dict] = {}
        for sid, w in live.items():
            g = self.gpus[w.gpu]
            key = (w.grant.lease, w.grant.vgpu, w.gpu) if w.grant.lease else ("", sid, w.gpu)
            now = Ledger.session(g, w.slot)
            v = out.get(key)
            if v is None:
                v = out[key] = self._vgpu_entry(key, g, w.grant)
            for k in ("device_time_s", "kernels", "calls", "bytes_in", "bytes_out", "memory_used_bytes"):
                v[k] += now[k]
            v["sessions"] += 1
            v["processes"].append({"session": sid, "client": w.client, "pid": w.pid,
                                   "memory_used_bytes": now["memory_used_bytes"]})
        for key, totals in self.ledger.vgpu_totals().items():
            grant = totals.pop("grant", None)
            v = out.get(key)
            if v is None:
                v = out[key] = self._vgpu_entry(key, self.gpus[key[2]], grant)
            for k, n in totals.items():
                v[k] += n
        for key, v in out.items():
            v["share_pct"] = round(self.meter.share(key, v["device_time_s"]), 1)
        self.meter.forget_except(set(out) | {("gpu", g.index) for g in self.gpus})
        return list(out.values())

    @staticmethod
    def _vgpu_entry(key: tuple, g, grant) -> dict:
        lease, vgpu, _ = key
        return {"lease": lease, "vgpu": vgpu if lease else 0, "gpu": g.spec.uuid, "index": g.index, "name": g.name,
                "memory_quota_bytes": (grant.memory if grant and grant.memory else g.capacity),
                "compute": grant.compute if grant else 100, "limit": grant.limit if grant else 100,
                "share_only": bool(grant and grant.share_only), "device_time_s": 0.0, "kernels": 0, "calls": 0,
                "bytes_in": 0, "bytes_out": 0, "memory_used_bytes": 0, "sessions": 0, "processes": []}

    @staticmethod
    def reclaimed_vgpus(sessions: dict) -> list:
        """[lease, vGPU, restores, last restore seconds] of each vGPU whose every live session here
        is reclaimed: it holds no GPU memory now (the controller stops charging its GPU for it)."""
        by_vgpu: dict[tuple, list] = {}
        for w in sessions.values():
            if w.grant.lease and w.state == "live":
                by_vgpu.setdefault((w.grant.lease, w.grant.vgpu), []).append(w.reclaim)
        return [[lease, vgpu, sum(r.get("restores", 0) for r in rs), max(r.get("restore_s", 0.0) for r in rs)]
                for (lease, vgpu), rs in sorted(by_vgpu.items()) if all(r.get("state") == "reclaimed" for r in rs)]

    def _migration_reports(self) -> dict:
        while True:  # the main loop may change the records meanwhile: take them again
            try:
                return self.migration_reports()
            except RuntimeError:
                continue

    def lease_usage(self, sessions: dict) -> dict:
        return self.ledger.report([(w.grant.lease, Ledger.session(self.gpus[w.gpu], w.slot))
                                   for w in sessions.values() if not w.moved])

    def on_leases(self, valid: set) -> None:
        """The controller's view of the leases valid here (registrar thread); applied by the main loop."""
        self.gate.see(valid, self.registrar.view_time if self.registrar else 0.0,
                      self.registrar.ended if self.registrar else None,
                      self.registrar.revoked if self.registrar else None)
        self._placed = (self.registrar.placed, self.registrar.view_time) if self.registrar else None
        self._view_changed = True

    def _end_gone_leases(self) -> None:
        """Stop the sessions of leases that ended; their memory returns when the worker exits."""
        self._view_changed = False
        placed, self._placed = self._placed, None
        if placed is not None:
            for gpu in self.gpus:
                memory = placed[0].get(gpu.spec.uuid)
                if isinstance(memory, int):
                    gpu.placed = (memory, placed[1])
                    gpu.share_room()
        valid, at = self.gate.view()
        if self.gate.pool and at > 0:
            self.ledger.forget(set(valid) | {w.grant.lease for w in self.sessions.values()})
        for sid, w in list(self.sessions.items()):
            # A session moved by the controller leaves this server's view when the move is
            # committed, before an idle client has followed: its redirecting worker (holding
            # nothing) stays for as long as the target waits for the client.
            if w.moved and time.monotonic() - w.moved_at < MOVED_WAIT_S:
                continue
            if not w.stopping and self.gate.gone(w.grant.lease, w.grant.iat):
                why = self.gate.why_gone(w.grant.lease)
                self.workers.stop(sid, w, why)  # the worker tells its program why, then ends
                self.log.info("session_stopped", session=sid, lease=w.grant.lease, reason="lease_ended", why=why)

    def _ended(self, w: Worker) -> None:
        self.busy_ended[w.gpu] += self.gpus[w.gpu].sched.device_time[w.slot]
        # a move its worker never reported on (the worker died, or its report is lost with it) ends
        # here: whoever ordered it (`rgpu migrate`, a drain, the controller) waits on the record
        for record in self.migrations.values():
            if record["sessions"].get(w.session, {}).get("state") == "running":
                record["sessions"][w.session] = {"state": "failed",
                                                 "message": "the session ended before its move was done"}
                self._settle(record)
        self.ledger.ended(w.grant.lease, Ledger.session(self.gpus[w.gpu], w.slot), (w.grant.vgpu, w.gpu), w.grant)

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
        try:
            sock.bind(self.listen)
        except zmq.ZMQError:
            sock.close(0)
            if zap is not None:
                zap.stop()
            ctx.term()
            raise
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
                    reports, self.workers.reports = self.workers.reports, []
                    for w, msg in reports:
                        self._report(w, msg)
                except (EOFError, OSError):
                    if self.stopping:   # a SIGTERM to the process group (systemd's stop) reached it too
                        break
                    self.log.error("zygote_gone", reason="the process that starts session workers died")
                    code = 1
                    break
                if self._orders:
                    self._take_orders()
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
    """Where session workers bind: the listen host, a port of the system's choosing; for ipc://, the
    start of a path each worker ends with its own pid (worker.py): two workers binding one path would
    take it from each other, and a client would reach a worker that was not told of its session."""
    if listen.startswith("tcp://"):
        host = listen[len("tcp://"):].rsplit(":", 1)[0]
        return f"tcp://{'*' if host in ('*', '0.0.0.0') else host}:*"
    if listen.startswith("ipc://"):
        return f"{listen}.w{os.getpid()}-{secrets.token_hex(4)}"
    raise ValueError(f"listen address must be tcp:// or ipc://, not {listen}")
