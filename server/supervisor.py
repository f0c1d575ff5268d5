"""rgpu-server: the supervisor of one GPU host.

It answers hellos on the listen address: checks the protocol version (and, in a pool, the lease
token), hands the client a session worker that is already running (one warm spare per GPU keeps
session start fast), and tracks each GPU's memory across its sessions through a shared usage
array, so a worker that dies still gives its memory back. `stats` reports that accounting.

In a pool (``--controller``) a Registrar thread registers the GPUs and heartbeats the accounting;
each reply's list of valid leases reaches the main loop, which stops the sessions of leases that
ended (released or expired). A session runs with its lease's memory quota. Without a controller
and without a configured cluster secret the server is in direct mode: anyone may open a session
on a whole GPU."""
from __future__ import annotations

import multiprocessing as mp
import os
import secrets
import signal
import socket
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import click
import zmq

from rgpu import health, logs
from rgpu.protocol import tokens, wire
from rgpu.units import format_size, parse_size

from . import backends, nvml
from .accounting import Ledger
from .pool import DIRECT, Grant, LeaseGate, LeaseRefused, uuid_text
from .sched import GpuScheduler
from .worker import worker_main

MAX_SESSIONS_PER_GPU = 256
STOP_KILL_S = 5.0  # a worker told to stop that is still alive after this is killed


@dataclass
class Worker:
    proc: mp.Process
    conn: object
    endpoint: str
    slot: int
    gpu: int
    session: str = ""
    client: str = ""
    started: float = field(default_factory=time.time)
    grant: Grant = DIRECT
    stopping: float = 0.0  # when the supervisor told it to stop (0: not told)


@dataclass(frozen=True)
class GpuSpec:
    """What the server knows of one of its GPUs before serving it."""
    memory: int
    name: str
    uuid: str
    sms: int = 108
    compute_capability: str = "8.0"


class Gpu:
    def __init__(self, index: int, spec: GpuSpec, ctx):
        self.index, self.capacity, self.name, self.spec = index, spec.memory, spec.name, spec
        self.usage = ctx.Array("q", MAX_SESSIONS_PER_GPU, lock=False)
        self.peak = ctx.Array("q", MAX_SESSIONS_PER_GPU, lock=False)  # per session, for accounting
        self.traffic = ctx.Array("q", 3 * MAX_SESSIONS_PER_GPU, lock=False)  # calls, bytes in, bytes out
        self.lock = ctx.Lock()
        self.sched = GpuScheduler(ctx, MAX_SESSIONS_PER_GPU)  # one kernel at a time, fair by guarantee
        self.free_slots = list(range(MAX_SESSIONS_PER_GPU))
        self.spare: Worker | None = None

    def used(self) -> int:
        with self.lock:
            return sum(self.usage)


class Supervisor:
    def __init__(self, listen: str, device: str, gpus: list[GpuSpec], conf: dict, log,
                 gate: LeaseGate | None = None):
        self.listen, self.conf, self.log = listen, conf, log
        self.mp = mp.get_context("spawn")
        self.gpus = [Gpu(i, spec, self.mp) for i, spec in enumerate(gpus)]
        self.sessions: dict[str, Worker] = {}
        self.conf["device"] = device
        self.conf["worker_bind"] = _worker_bind(listen)
        self.conf["schedulers"] = [g.sched for g in self.gpus]  # each worker uses its GPU's
        self.conf["memory_peaks"] = [g.peak for g in self.gpus]
        self.conf["traffic"] = [g.traffic for g in self.gpus]
        self.ledger = Ledger()
        self.gate = gate or LeaseGate(None)
        self.registrar = None
        self._view_changed = False
        self.stopping = False

    # -- workers --
    def _spawn(self, gpu: Gpu) -> Worker:
        parent, child = self.mp.Pipe()
        slot = gpu.free_slots.pop(0)
        proc = self.mp.Process(target=worker_main, daemon=True,
                               args=(self.conf, child, gpu.usage, slot, gpu.lock, gpu.capacity))
        proc.start()
        return Worker(proc, parent, "", slot, gpu.index)

    def _ready_spare(self, gpu: Gpu, wait: float) -> Worker | None:
        if gpu.spare is None:
            gpu.spare = self._spawn(gpu)
        w = gpu.spare
        if not w.endpoint and w.conn.poll(wait):
            w.endpoint = w.conn.recv()
        return w if w.endpoint else None

    def _reap(self) -> None:
        now = time.monotonic()
        for sid, w in list(self.sessions.items()):
            if w.stopping and now - w.stopping > STOP_KILL_S and w.proc.is_alive():
                # Stuck where it cannot see the stop (a driver call that never returns, e.g. a
                # synchronize behind a kernel that never ends): killing the process is what frees
                # a GPU context for sure, so its lease's memory comes back.
                self.log.warning("session_killed", session=sid, lease=w.grant.lease, after_s=round(now - w.stopping, 1))
                w.proc.kill()
                w.proc.join(1.0)
            if not w.proc.is_alive():
                w.proc.join(0)
                gpu = self.gpus[w.gpu]
                self.ledger.ended(w.grant.lease, Ledger.session(gpu, w.slot))
                gpu.sched.forget(w.slot)  # a worker that died holding the GPU must not block it
                with gpu.lock:
                    gpu.usage[w.slot] = 0  # a crashed worker's memory returns to the GPU
                gpu.free_slots.append(w.slot)
                del self.sessions[sid]
                self.log.info("session_reaped", session=sid, exitcode=w.proc.exitcode)
        for gpu in self.gpus:
            if gpu.spare is not None and not gpu.spare.proc.is_alive():
                gpu.free_slots.append(gpu.spare.slot)
                gpu.spare = None

    # -- requests --
    def handle(self, msg: dict) -> dict:
        op = msg.get("op")
        if op == "hello":
            return self.hello(msg)
        if op == "stats":
            return self.stats()
        if op == "ping":
            return {"ok": True}
        return {"ok": False, "error": "bad_request", "message": f"unknown op {op!r}"}

    def hello(self, msg: dict) -> dict:
        """hello {proto, client, cuda, lease, gpu} -> {ok, endpoint, session, key}; in a pool the
        lease token must hold a live vGPU on that GPU, else {ok: false, error: "lease", reason, message}"""
        if msg.get("proto") != wire.PROTOCOL_VERSION:
            return {"ok": False, "error": "protocol",
                    "message": f"client speaks protocol {msg.get('proto')}, this server speaks "
                               f"{wire.PROTOCOL_VERSION}: use matching rgpu versions"}
        gpu_index = msg.get("gpu", 0)
        if not isinstance(gpu_index, int) or not 0 <= gpu_index < len(self.gpus):
            return {"ok": False, "error": "no_such_gpu",
                    "message": f"this server has {len(self.gpus)} GPU(s); gpu {gpu_index} does not exist"}
        gpu = self.gpus[gpu_index]
        try:
            grant = self.gate.admit(msg.get("lease"), gpu.spec.uuid, gpu.index)
        except LeaseRefused as e:
            self.log.info("session_refused", gpu=gpu.index, client=str(msg.get("client", "?")), reason=e.reason)
            return {"ok": False, "error": "lease", "reason": e.reason, "message": e.message}
        if not gpu.free_slots and gpu.spare is None:
            return {"ok": False, "error": "busy", "message": "too many sessions on this GPU"}
        w = self._ready_spare(gpu, wait=30.0)
        if w is None:
            return {"ok": False, "error": "worker", "message": "could not start a session worker"}
        gpu.spare = None
        sid = secrets.token_hex(8)
        key = secrets.token_hex(16)
        w.session, w.client, w.grant = sid, str(msg.get("client", "?")), grant
        # The quota is what the worker enforces and what the device reports as its total memory.
        memory = min(gpu.capacity, grant.memory or gpu.capacity)
        gpu.sched.configure(w.slot, grant.compute, grant.limit)
        gpu.peak[w.slot] = 0
        gpu.traffic[3 * w.slot:3 * w.slot + 3] = [0, 0, 0]
        w.conn.send({"session": sid, "key": key, "gpu": gpu.index, "memory": memory, "client": w.client})
        self.sessions[sid] = w
        self.log.info("session_opened", session=sid, gpu=gpu.index, client=w.client, endpoint=w.endpoint,
                      lease=grant.lease or None, memory=memory)
        if gpu.free_slots:
            gpu.spare = self._spawn(gpu)  # warm the next one while this client connects
        return {"ok": True, "endpoint": w.endpoint, "session": sid, "key": key}

    def stats(self) -> dict:
        """stats -> {ok, device, pool: {controller, view_at, leases} | null,
        gpus: [{index, uuid, name, memory_total, memory_used, sessions}],
        sessions: [{session, gpu, client, pid, lease, memory_quota, memory_used, stopping}]}"""
        self._reap()
        valid, at = self.gate.view()
        self._end_gone_leases()  # this view (or a newer one) is applied to the sessions listed
        sessions = dict(self.sessions)
        pool = {"controller": self.gate.pool, "view_at": at, "leases": sorted(valid)} if self.gate.pool else None
        return {"ok": True, "device": self.conf["device"], "pool": pool,
                "gpus": [{"index": g.index, "uuid": g.spec.uuid, "name": g.name, "memory_total": g.capacity,
                          "memory_used": g.used(), "sessions": sum(1 for w in sessions.values() if w.gpu == g.index)}
                         for g in self.gpus],
                "sessions": [{"session": s, "gpu": w.gpu, "client": w.client, "pid": w.proc.pid,
                              "lease": w.grant.lease, "memory_quota": w.grant.memory,
                              "compute": w.grant.compute, "limit": w.grant.limit,
                              "memory_used": self.gpus[w.gpu].usage[w.slot], "stopping": bool(w.stopping),
                              **Ledger.session(self.gpus[w.gpu], w.slot)}
                             for s, w in sessions.items()],
                "leases": self.lease_usage(sessions)}

    # -- the pool --
    def inventory(self) -> dict:
        """What the Registrar registers: this server's GPUs."""
        return {"backend": self.conf["device"],
                "gpus": [{"uuid": g.spec.uuid, "index": g.index, "name": g.name, "memory_total": g.capacity,
                          "sms": g.spec.sms, "compute_capability": g.spec.compute_capability} for g in self.gpus]}

    def usage(self) -> dict:
        """What each heartbeat carries (registrar thread): memory used and sessions per GPU, and
        per lease its device time and memory (see accounting.py)."""
        live = dict(self.sessions)
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
                w.stopping = time.monotonic()
                try:
                    w.conn.send("stop")
                except (OSError, ValueError):
                    pass
                self.log.info("session_stopped", session=sid, lease=w.grant.lease, reason="lease_ended")

    # -- main loop --
    def serve(self) -> None:
        ctx = zmq.Context()
        sock = ctx.socket(zmq.ROUTER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.bind(self.listen)
        for g in self.gpus:
            g.spare = self._spawn(g)
        self.log.info("server_listening", listen=self.listen, device=self.conf["device"], gpus=len(self.gpus),
                      memory=[format_size(g.capacity) for g in self.gpus], pool=self.gate.pool or None,
                      leases_required=self.gate.enabled)
        if self.registrar is not None:
            self.registrar.start()
        try:
            while not self.stopping:
                if sock.poll(200):
                    frames = sock.recv_multipart()
                    ident, body = frames[0], frames[1:]
                    try:
                        msg = wire.unpack(body[0]) if len(body) == 1 else None
                        if not isinstance(msg, dict):
                            raise ValueError("expected one msgpack map")
                        reply = self.handle(msg)
                    except Exception as e:  # malformed input never stops the server
                        self.log.warning("malformed_request", reason=str(e)[:200])
                        reply = {"ok": False, "error": "malformed", "message": f"malformed request: {e}"}
                    sock.send_multipart([ident, wire.pack(reply)])
                if self._view_changed:
                    self._end_gone_leases()
                self._reap()
        finally:
            self.shutdown()
            sock.close(0)
            ctx.term()
            if self.registrar is not None:
                self.registrar.stop()  # at most one controller timeout when it is unreachable
            self.log.info("server_stopped", listen=self.listen)

    def shutdown(self) -> None:
        workers = list(self.sessions.values()) + [g.spare for g in self.gpus if g.spare]
        for w in workers:
            try:
                w.conn.send("stop" if w.session else None)
            except (OSError, ValueError):
                pass
        deadline = time.time() + 5
        for w in workers:
            w.proc.join(max(0.0, deadline - time.time()))
            if w.proc.is_alive():
                w.proc.kill()


def _worker_bind(listen: str) -> str:
    if listen.startswith("tcp://"):
        host = listen[len("tcp://"):].rsplit(":", 1)[0]
        return f"tcp://{'*' if host in ('*', '0.0.0.0') else host}:*"
    if listen.startswith("ipc://"):
        return f"{listen}.w{os.getpid()}-{secrets.token_hex(4)}"
    raise click.BadParameter(f"listen address must be tcp:// or ipc://, not {listen}")


def _gpus(device: str, count: int, sim_memory: int, server_id: str, sim_arch: str | None = None) -> tuple[str, list[GpuSpec]]:
    kind = "sim" if device == "sim" else "cuda"
    try:
        found = backends.probe(kind, count=count, memory=sim_memory, server_id=server_id, arch=sim_arch)
    except backends.BackendUnavailable as e:
        if device == "cuda":
            raise click.ClickException(f"{e}. On a machine without an NVIDIA GPU use --device sim.")
        kind, found = "sim", backends.probe("sim", count=count, memory=sim_memory, server_id=server_id, arch=sim_arch)
    return kind, [GpuSpec(g.memory, g.name, uuid_text(g.uuid), g.sms, g.compute_capability) for g in found]


def _advertise(listen: str) -> str:
    """The listen URL with a wildcard host replaced by this host's name (what clients can reach)."""
    parts = urlsplit(listen)
    if parts.scheme == "tcp" and parts.hostname in ("*", "0.0.0.0", "::", None):
        return f"tcp://{socket.getfqdn()}:{listen.rsplit(':', 1)[1]}"
    return listen


def _gate(controller: str | None, secret_file: str | None) -> LeaseGate:
    """In a pool, or with a secret configured, sessions need a lease token; else direct mode."""
    configured = secret_file or os.environ.get(tokens.ENV_SECRET) or os.environ.get(tokens.ENV_SECRET_FILE)
    if not controller and not configured:
        return LeaseGate(None)
    try:
        # Joining a pool on a single machine may come before the controller ever ran: create the
        # default secret file then, atomically, as the controller would.
        return LeaseGate(tokens.load_secret(secret_file, create=bool(controller)), controller or "")
    except tokens.SecretError as e:
        raise click.ClickException(str(e)) from None


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--device", type=click.Choice(["sim", "cuda", "auto"]), default="auto", show_default=True,
              help="cuda drives the real GPUs through libcuda.so.1; sim is the software GPU; auto picks cuda if it works")
@click.option("--listen", default="tcp://127.0.0.1:7450", show_default=True, help="tcp://HOST:PORT or ipc://PATH")
@click.option("--gpus", "count", type=int, default=1, show_default=True, help="number of software GPUs (sim)")
@click.option("--sim-memory", default="8GiB", show_default=True, help="memory of each software GPU")
@click.option("--sim-arch", default=None, metavar="sm_XY",
              help="architecture the software GPUs present (sm_75 ... sm_121, or sm_130; default sm_130, newer than "
                   "every SASS, so NVIDIA's libraries take their PTX paths; programs built for older -arch values run too)")
@click.option("--controller", default=lambda: os.environ.get("RGPU_CONTROLLER"), help="join this controller's pool")
@click.option("--advertise", default=None, help="URL clients use to reach this server (default: --listen)")
@click.option("--secret-file", type=click.Path(dir_okay=False), default=None,
              help="cluster secret shared with the controller (else RGPU_CLUSTER_SECRET, RGPU_CLUSTER_SECRET_FILE, "
                   "or ~/.config/rgpu/cluster-secret with --controller); with a secret, sessions need a lease")
@click.option("--session-grace", type=float, default=3.0, show_default=True,
              help="seconds a session survives its client's connection being gone")
@click.option("--log-level", default="info", show_default=True)
@click.option("--health-listen", default=None, metavar="HOST:PORT", help="serve GET /healthz over HTTP here")
def main(device, listen, count, sim_memory, sim_arch, controller, advertise, secret_file, session_grace, log_level,
         health_listen):
    """Serve this host's GPUs (or software GPUs) to rgpu clients; with --controller, join its pool."""
    log = logs.configure("server", log_level)
    server_id = f"{socket.gethostname()}:{listen}"
    try:
        kind, gpus = _gpus(device, count, parse_size(sim_memory), server_id, sim_arch)
    except ValueError as e:  # an --sim-arch the software GPU cannot present
        raise click.BadParameter(str(e), param_hint="--sim-arch") from None
    conf = {"session_grace": session_grace, "log_level": log_level, "server_id": server_id, "sim_arch": sim_arch}
    sup = Supervisor(listen, kind, gpus, conf, log, _gate(controller, secret_file))
    if controller:
        from .registration import Registrar
        sup.registrar = Registrar(controller, advertise or _advertise(listen), sup.inventory, sup.usage,
                                  sup.on_leases)
    if health_listen:
        health.serve(health_listen, health.server_check(listen))
    signal.signal(signal.SIGTERM, lambda *_: setattr(sup, "stopping", True))
    signal.signal(signal.SIGINT, lambda *_: setattr(sup, "stopping", True))
    sup.serve()


if __name__ == "__main__":
    main()
