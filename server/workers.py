"""Worker lifecycle: the session worker processes of one server, from a warm spare to reaped.

Each GPU keeps one spare worker already started (session start stays fast), and a fixed number of
slots: a slot indexes the shared arrays through which workers report their memory, peak and traffic
and through which the GPU's scheduler shares it, so a worker that dies still gives its memory back
when it is reaped."""
from __future__ import annotations

import multiprocessing as mp
import time
from dataclasses import dataclass, field

from .gpus import GpuSpec
from .lease_gate import DIRECT, Grant
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


class Gpu:
    """One GPU of the server: its spec, the arrays its workers share, its free slots and spare."""

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


class Workers:
    """The workers of every GPU of a server and the sessions they serve (main loop only)."""

    def __init__(self, specs: list[GpuSpec], conf: dict, log):
        self.mp = mp.get_context("spawn")
        self.gpus = [Gpu(i, spec, self.mp) for i, spec in enumerate(specs)]
        self.sessions: dict[str, Worker] = {}
        self.conf, self.log = conf, log
        conf["schedulers"] = [g.sched for g in self.gpus]  # each worker uses its GPU's
        conf["memory_peaks"] = [g.peak for g in self.gpus]
        conf["traffic"] = [g.traffic for g in self.gpus]

    def spawn(self, gpu: Gpu) -> Worker:
        parent, child = self.mp.Pipe()
        slot = gpu.free_slots.pop(0)
        proc = self.mp.Process(target=worker_main, daemon=True,
                               args=(self.conf, child, gpu.usage, slot, gpu.lock, gpu.capacity))
        proc.start()
        return Worker(proc, parent, "", slot, gpu.index)

    def warm(self) -> None:
        """A spare for every GPU (at start)."""
        for g in self.gpus:
            g.spare = self.spawn(g)

    def ready_spare(self, gpu: Gpu, wait: float) -> Worker | None:
        """The GPU's spare once it has bound its endpoint (waiting up to ``wait`` s), or None."""
        if gpu.spare is None:
            gpu.spare = self.spawn(gpu)
        w = gpu.spare
        if not w.endpoint and w.conn.poll(wait):
            w.endpoint = w.conn.recv()
        return w if w.endpoint else None

    def has_room(self, gpu: Gpu) -> bool:
        return bool(gpu.free_slots) or gpu.spare is not None

    def assign(self, gpu: Gpu, w: Worker, assignment: dict) -> None:
        """Hand the spare ``w`` its session and warm the next spare while the client connects."""
        gpu.spare = None
        w.session, w.client, w.grant = assignment["session"], assignment["client"], assignment["grant"]
        w.conn.send({k: v for k, v in assignment.items() if k != "grant"})
        if w.conn.poll(10.0):  # its ZAP handler admits the client from now on
            w.conn.recv()
        self.sessions[w.session] = w
        if gpu.free_slots:
            gpu.spare = self.spawn(gpu)

    def stop(self, sid: str, w: Worker) -> None:
        """Tell a session's worker to end; it is killed if still alive STOP_KILL_S later."""
        w.stopping = time.monotonic()
        try:
            w.conn.send("stop")
        except (OSError, ValueError):
            pass

    def reap(self, ended) -> None:
        """Collect dead workers (``ended(worker)`` for each session that ended) and kill workers
        that outlived a stop."""
        now = time.monotonic()
        for sid, w in list(self.sessions.items()):
            if w.stopping and now - w.stopping > STOP_KILL_S and w.proc.is_alive():
                # Stuck where it cannot see the stop (a driver call that never returns, e.g. a
                # synchronize behind a kernel that never ends): killing the process is what frees
                # a GPU context for sure, so its lease's memory comes back.
                self.log.warning("session_killed", session=sid, lease=w.grant.lease,
                                 after_s=round(now - w.stopping, 1))
                w.proc.kill()
                w.proc.join(1.0)
            if not w.proc.is_alive():
                w.proc.join(0)
                gpu = self.gpus[w.gpu]
                ended(w)
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
