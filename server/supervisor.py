"""rgpu-server: the supervisor of one GPU host.

It answers hellos on the listen address: checks the protocol version (and, with a controller, the
lease token), hands the client a session worker that is already running (one warm spare per GPU
keeps session start fast), and tracks each GPU's memory across its sessions through a shared
usage array, so a worker that dies still gives its memory back. `stats` reports that accounting."""
from __future__ import annotations

import multiprocessing as mp
import os
import secrets
import signal
import socket
import time
from dataclasses import dataclass, field

import click
import zmq

from rgpu import logs
from rgpu.protocol import wire
from rgpu.units import format_size, parse_size

from .worker import worker_main

MAX_SESSIONS_PER_GPU = 256


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


class Gpu:
    def __init__(self, index: int, capacity: int, name: str, ctx):
        self.index, self.capacity, self.name = index, capacity, name
        self.usage = ctx.Array("q", MAX_SESSIONS_PER_GPU, lock=False)
        self.lock = ctx.Lock()
        self.free_slots = list(range(MAX_SESSIONS_PER_GPU))
        self.spare: Worker | None = None

    def used(self) -> int:
        with self.lock:
            return sum(self.usage)


class Supervisor:
    def __init__(self, listen: str, device: str, gpus: list[tuple[int, str]], conf: dict, log):
        self.listen, self.conf, self.log = listen, conf, log
        self.mp = mp.get_context("spawn")
        self.gpus = [Gpu(i, cap, name, self.mp) for i, (cap, name) in enumerate(gpus)]
        self.sessions: dict[str, Worker] = {}
        self.conf["device"] = device
        self.conf["worker_bind"] = _worker_bind(listen)
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
        for sid, w in list(self.sessions.items()):
            if not w.proc.is_alive():
                w.proc.join(0)
                gpu = self.gpus[w.gpu]
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
        """hello {proto, client, cuda, lease, gpu} -> {ok, endpoint, session, key}"""
        if msg.get("proto") != wire.PROTOCOL_VERSION:
            return {"ok": False, "error": "protocol",
                    "message": f"client speaks protocol {msg.get('proto')}, this server speaks "
                               f"{wire.PROTOCOL_VERSION}: use matching rgpu versions"}
        gpu_index = msg.get("gpu", 0)
        if not isinstance(gpu_index, int) or not 0 <= gpu_index < len(self.gpus):
            return {"ok": False, "error": "no_such_gpu",
                    "message": f"this server has {len(self.gpus)} GPU(s); gpu {gpu_index} does not exist"}
        gpu = self.gpus[gpu_index]
        if not gpu.free_slots and gpu.spare is None:
            return {"ok": False, "error": "busy", "message": "too many sessions on this GPU"}
        w = self._ready_spare(gpu, wait=30.0)
        if w is None:
            return {"ok": False, "error": "worker", "message": "could not start a session worker"}
        gpu.spare = None
        sid = secrets.token_hex(8)
        key = secrets.token_hex(16)
        w.session, w.client = sid, str(msg.get("client", "?"))
        w.conn.send({"session": sid, "key": key, "gpu": gpu.index, "memory": gpu.capacity, "client": w.client})
        self.sessions[sid] = w
        self.log.info("session_opened", session=sid, gpu=gpu.index, client=w.client, endpoint=w.endpoint)
        if gpu.free_slots:
            gpu.spare = self._spawn(gpu)  # warm the next one while this client connects
        return {"ok": True, "endpoint": w.endpoint, "session": sid, "key": key}

    def stats(self) -> dict:
        """stats -> {ok, gpus: [{index, name, memory_total, memory_used, sessions}], sessions: [...]}"""
        self._reap()
        return {"ok": True, "device": self.conf["device"],
                "gpus": [{"index": g.index, "name": g.name, "memory_total": g.capacity, "memory_used": g.used(),
                          "sessions": sum(1 for w in self.sessions.values() if w.gpu == g.index)}
                         for g in self.gpus],
                "sessions": [{"session": s, "gpu": w.gpu, "client": w.client, "pid": w.proc.pid,
                              "memory_used": self.gpus[w.gpu].usage[w.slot]} for s, w in self.sessions.items()]}

    # -- main loop --
    def serve(self) -> None:
        ctx = zmq.Context()
        sock = ctx.socket(zmq.ROUTER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.bind(self.listen)
        for g in self.gpus:
            g.spare = self._spawn(g)
        self.log.info("server_listening", listen=self.listen, device=self.conf["device"], gpus=len(self.gpus),
                      memory=[format_size(g.capacity) for g in self.gpus])
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
                self._reap()
        finally:
            self.shutdown()
            sock.close(0)
            ctx.term()

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


def _gpus(device: str, count: int, sim_memory: int) -> tuple[str, list[tuple[int, str]]]:
    if device in ("cuda", "auto"):
        from .cuda_backend import CudaUnavailable, probe
        try:
            return "cuda", probe()
        except CudaUnavailable as e:
            if device == "cuda":
                raise click.ClickException(f"{e}. On a machine without an NVIDIA GPU use --device sim.")
    return "sim", [(sim_memory, f"rgpu sim GPU {i} (sm_80)") for i in range(count)]


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--device", type=click.Choice(["sim", "cuda", "auto"]), default="auto", show_default=True,
              help="cuda drives the real GPUs through libcuda.so.1; sim is the software GPU; auto picks cuda if it works")
@click.option("--listen", default="tcp://127.0.0.1:7450", show_default=True, help="tcp://HOST:PORT or ipc://PATH")
@click.option("--gpus", "count", type=int, default=1, show_default=True, help="number of software GPUs (sim)")
@click.option("--sim-memory", default="8GiB", show_default=True, help="memory of each software GPU")
@click.option("--controller", default=lambda: os.environ.get("RGPU_CONTROLLER"), help="join this controller's pool")
@click.option("--advertise", default=None, help="URL clients use to reach this server (default: --listen)")
@click.option("--session-grace", type=float, default=3.0, show_default=True,
              help="seconds a session survives its client's connection being gone")
@click.option("--log-level", default="info", show_default=True)
def main(device, listen, count, sim_memory, controller, advertise, session_grace, log_level):
    """Serve this host's GPUs (or software GPUs) to rgpu clients."""
    log = logs.configure("server", log_level)
    kind, gpus = _gpus(device, count, parse_size(sim_memory))
    conf = {"session_grace": session_grace, "log_level": log_level,
            "server_id": f"{socket.gethostname()}:{listen}"}
    sup = Supervisor(listen, kind, gpus, conf, log)
    signal.signal(signal.SIGTERM, lambda *_: setattr(sup, "stopping", True))
    signal.signal(signal.SIGINT, lambda *_: setattr(sup, "stopping", True))
    if controller:
        log.warning("controller_not_joined", controller=controller,
                    reason="pool registration is not wired into this server yet")
    sup.serve()


if __name__ == "__main__":
    main()
