"""Worker lifecycle: the session worker processes of one server, from spare to reaped, and the
hellos waiting for one.

Workers are forked by the zygote (zygote.py). Each GPU keeps a spare worker started, and a fixed
number of slots: a slot indexes the shared arrays (``GpuShared``) through which workers report
memory, peak and traffic and through which the GPU's scheduler shares it. Nothing here blocks: a
hello that finds no spare ready waits in its GPU's queue while more are started, and is answered
when one is — the supervisor's loop keeps answering everyone else meanwhile.

A session belongs to a group: the sessions of one vGPU of a lease share its memory quota (enforced
by the workers across all of them, through ``usage`` and ``quota``) and its compute share (the
scheduler's groups). Sessions per lease are bounded by the supervisor."""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from itertools import compress

import multiprocessing as mp

from . import ipc_registry
from .gpus import GpuSpec
from .lease_gate import DIRECT, Grant
from .open_pacing import PACED_WAIT_S, SESSION_OPEN_BURST, SESSION_OPEN_RATE, OpenPacer
from .sched import GpuScheduler
from .zygote import Zygote

MAX_SESSIONS_PER_GPU = 256
NO_PORT_RETRY_S = 1.0      # how long a server whose --session-ports are all taken waits before trying again
STOP_KILL_S = 5.0     # a worker told to stop that is still alive after this is killed
HELLO_WAIT_S = 30.0   # a hello that found no worker within this is answered with an error
ADMIT_WAIT_S = 30.0   # a worker that did not take its assignment within this is stopped
MAX_STARTING = 8      # workers of one GPU being started at once


class GpuShared:
    """The memory every worker of one GPU shares (made by the supervisor, locks added by the zygote)."""

    def __init__(self, ctx, slots: int, capacity: int):
        self.slots, self.capacity = slots, capacity
        self.usage = ctx.Array("q", slots, lock=False)    # bytes each session holds
        self.peak = ctx.Array("q", slots, lock=False)     # per session, for accounting
        self.traffic = ctx.Array("q", 3 * slots, lock=False)  # calls, bytes in, bytes out
        self.quota = ctx.Array("q", slots, lock=False)    # per group: the memory of its vGPU
        self.sched = GpuScheduler(ctx, slots, locks=False)  # one kernel at a time, fair by guarantee
        self.lock = None

    def add_locks(self, ctx) -> None:
        self.lock = ctx.Lock()
        self.sched.add_lock(ctx)

    def released(self, slot: int) -> None:
        """The worker in ``slot`` exited (zygote): its memory returns, and a GPU it held is free."""
        self.sched.forget(slot)
        with self.lock:
            self.usage[slot] = 0

    # -- used by the worker of `slot` --
    def _group_used(self, g: int) -> int:
        # whole-array slices: one C copy each instead of a ctypes access per slot (a malloc's cost)
        return sum(compress(self.usage[:], map(g.__eq__, self.sched.group[:])))

    def reserve(self, slot: int, delta: int, capacity: int) -> bool:
        """Charge ``delta`` bytes to ``slot``; refuse what would exceed the GPU or the group's quota."""
        with self.lock:
            if delta > 0:
                g = self.sched.group[slot]
                if sum(self.usage[:]) + delta > capacity or (g >= 0 and self._group_used(g) + delta > self.quota[g]):
                    return False
            self.usage[slot] += delta
            self.peak[slot] = max(self.peak[slot], self.usage[slot])
            return True

    def mem_info(self, slot: int, capacity: int, total: int) -> tuple[int, int]:
        """(free, total) as the session's program should see them: what it can still allocate."""
        with self.lock:
            g = self.sched.group[slot]
            free = capacity - sum(self.usage[:])
            if g >= 0:
                free = min(free, self.quota[g] - self._group_used(g))
        return max(0, min(free, total)), total


@dataclass
class Pending:
    """A hello waiting for a worker."""
    ident: bytes
    request_id: object
    assignment: dict
    deadline: float


@dataclass
class Worker:
    conn: object
    slot: int
    gpu: int
    pid: int = 0
    endpoint: str = ""
    state: str = "starting"  # starting -> spare -> admitting -> live; exited when the zygote says so
    session: str = ""
    client: str = ""
    grant: Grant = DIRECT
    group: tuple = ()
    pending: Pending | None = None
    since: float = field(default_factory=time.monotonic)
    stopping: float = 0.0  # when the supervisor told it to stop (0: not told)
    moved: bool = False    # its session migrated away: it only redirects the client (holds nothing)
    moved_at: float = 0.0
    reclaim: dict = field(default_factory=dict)  # idle reclaim (server/reclaim.py): state, figures
    restore: bool = False  # its session arrives from a migration


class Gpu:
    """One GPU of the server: its spec, shared memory, slots, spares, waiting hellos and groups."""

    def __init__(self, index: int, spec: GpuSpec, ctx):
        self.index, self.capacity, self.name, self.spec = index, spec.memory, spec.name, spec
        self.shared = GpuShared(ctx, MAX_SESSIONS_PER_GPU, spec.memory)
        self.usage, self.peak, self.traffic = self.shared.usage, self.shared.peak, self.shared.traffic
        self.sched = self.shared.sched
        self.free_slots = list(range(MAX_SESSIONS_PER_GPU))
        self.spares: list[Worker] = []
        self.waiting: deque[Pending] = deque()
        self.groups: dict[tuple, list] = {}   # (lease, vgpu) -> [group id, sessions]
        self.no_port_until = 0.0   # --session-ports all taken: no worker is started before then
        self.no_port_logged = False
        self.free_groups = list(range(MAX_SESSIONS_PER_GPU))
        self.shares: dict[tuple, tuple] = {}  # share-only groups -> (own placed memory, others', token iat)
        self.placed: tuple[int, float] | None = None  # memory the controller placed here, as of its view's time

    def used(self) -> int:
        return sum(self.usage)  # read without the lock: a report, not a decision

    def join_group(self, key: tuple, memory: int, share: tuple | None = None) -> int:
        """``share``: (own placed memory, others' placed memory, token iat) of a share-only vGPU,
        whose quota is what the others leave (share_room)."""
        found = self.groups.get(key)
        if found is None:
            found = self.groups[key] = [self.free_groups.pop(0), 0]
            self.shared.quota[found[0]] = memory
            if share is not None:
                self.shares[key] = share
            self.share_room()
        found[1] += 1
        return found[0]

    def leave_group(self, key: tuple) -> None:
        found = self.groups.get(key)
        if found is not None:
            found[1] -= 1
            if found[1] <= 0:
                del self.groups[key]
                self.free_groups.append(found[0])
                self.shares.pop(key, None)
                self.share_room()

    def share_room(self) -> None:
        """Set each share-only vGPU's quota to the memory no other lease was placed with (issue 39,
        attack 2): share-only enforces no quota of the vGPU's own, but never at the cost of another
        lease's guarantee. The others' memory is the controller's latest view when it is newer than
        the token, else the token's figure, and at least the quotas of the vGPUs with sessions here.
        The workers read the quota at each allocation, so a later placement is honoured from the
        next allocation on."""
        if not self.shares:
            return
        held = sum(self.shared.quota[g] for key, (g, _) in self.groups.items() if key not in self.shares)
        for key, (own, others, iat) in self.shares.items():
            if self.placed is not None and self.placed[1] >= iat:
                others = max(0, self.placed[0] - own)
            self.shared.quota[self.groups[key][0]] = max(0, self.capacity - max(others, held))


class Workers:
    """The workers of every GPU of a server and the sessions they serve (main loop only)."""

    def __init__(self, specs: list[GpuSpec], conf: dict, log):
        self.mp = mp.get_context("spawn")
        self.gpus = [Gpu(i, spec, self.mp) for i, spec in enumerate(specs)]
        self.sessions: dict[str, Worker] = {}
        self.by_pid: dict[int, Worker] = {}
        self.starting: dict[tuple[int, int], Worker] = {}  # (gpu, slot) of a worker not yet given a pid
        self.conf, self.log = conf, log
        self.zygote: Zygote | None = None
        self.reports: list[tuple[Worker, object]] = []  # what live workers said (migrations), for the supervisor
        self.pacer = OpenPacer(conf.get("session_open_rate", SESSION_OPEN_RATE),
                               conf.get("session_open_burst", SESSION_OPEN_BURST))

    def start(self) -> None:
        # before the zygote: every worker it forks learns where the server's CUDA IPC handles live
        self.conf.setdefault("ipc_dir", ipc_registry.make())
        self.zygote = Zygote(self.conf, [g.shared for g in self.gpus])
        for g in self.gpus:
            self._top_up(g)

    # -- what the main loop polls --
    def fds(self) -> list:
        """Connections that may have something to say: the zygote's, and workers starting or admitting."""
        out = [self.zygote.conn]
        for g in self.gpus:
            out += [w.conn for w in g.spares if w.state == "starting"]
        out += [w.conn for w in self.sessions.values() if w.state in ("admitting", "live")]
        return out

    def _spawn(self, gpu: Gpu) -> Worker:
        parent, child = self.mp.Pipe()
        slot = gpu.free_slots.pop(0)
        w = Worker(parent, slot, gpu.index)
        self.starting[(gpu.index, slot)] = w
        self.zygote.spawn(gpu.index, slot, child)
        gpu.spares.append(w)
        return w

    def _no_port(self, gpu: Gpu, w: Worker, ports: tuple, now: float, replies: list) -> None:
        """A worker found every port of --session-ports taken (it ends by itself): the hellos that
        wait are refused with the reason, and no worker is started for a while."""
        w.state = "no_port"
        gpu.no_port_until = now + NO_PORT_RETRY_S
        lo, hi = ports
        if not gpu.no_port_logged:   # once, not at every retry
            self.log.warning("session_ports_exhausted", gpu=gpu.index, ports=f"{lo}-{hi}", sessions=len(self.sessions))
        gpu.no_port_logged = True
        while gpu.waiting:
            p = gpu.waiting.popleft()
            self._drop_group(gpu, p.assignment)
            replies.append((p.ident, self._error(
                p, "no_session_port", f"the server has no free port for another session: every port of its "
                f"--session-ports {lo}-{hi} is taken ({len(self.sessions)} sessions open; a range needs one port "
                f"per session and one per GPU); try again later, or widen the range")))

    @staticmethod
    def _tenant(p: Pending) -> str:
        """Whose bucket of opens a hello takes from (open_pacing.py): none for a migration's arrival."""
        return "" if p.assignment.get("restore") else p.assignment["grant"].tenant

    def _top_up(self, gpu: Gpu) -> None:
        """One spare ready or starting, plus one per waiting hello that may open now (within the
        slots and MAX_STARTING): a paced tenant's hellos start no worker before their turn."""
        if gpu.no_port_until > time.monotonic():
            return
        want = 1 + sum(1 for p in gpu.waiting if self.pacer.may_open(self._tenant(p)))
        starting = sum(1 for w in gpu.spares if w.state == "starting")
        while len(gpu.spares) < want and gpu.free_slots and starting < MAX_STARTING:
            self._spawn(gpu)
            starting += 1

    def has_room(self, gpu: Gpu) -> bool:
        return bool(gpu.free_slots) or bool(gpu.spares)

    def waiting_for(self, lease: str) -> int:
        return sum(1 for g in self.gpus for p in g.waiting if p.assignment["grant"].lease == lease)

    def waiting_of(self, owner: str) -> int:
        """Hellos of ``owner``'s leases waiting for a worker (see Grant.tenant)."""
        return sum(1 for g in self.gpus for p in g.waiting if p.assignment["grant"].tenant == owner)

    def waiting_by_tenant(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for g in self.gpus:
            for p in list(g.waiting):   # the registrar's thread may ask while the main loop changes it
                out[p.assignment["grant"].tenant] = out.get(p.assignment["grant"].tenant, 0) + 1
        return out

    def enqueue(self, gpu: Gpu, pending: Pending) -> None:
        gpu.waiting.append(pending)
        self._top_up(gpu)

    def stop(self, sid: str, w: Worker, why: str = "") -> None:
        """Tell a session's worker to end (``why``: what it tells its program first); it is killed if
        still alive STOP_KILL_S later."""
        w.stopping = time.monotonic()
        try:
            w.conn.send(("stop", why) if why else "stop")
        except (OSError, ValueError):
            pass

    # -- the loop's turn --
    def pump(self, ended) -> list[tuple[bytes, dict]]:
        """Take what the zygote and the workers said, hand ready spares to waiting hellos, time out
        what waited too long; ``ended(worker)`` for each session that ended. Returns the hello
        replies to send: (client ident, reply)."""
        replies: list[tuple[bytes, dict]] = []
        now = time.monotonic()
        for event in self.zygote.events():
            if event[0] == "spawned":
                _, gpu, slot, pid = event
                w = self.starting.pop((gpu, slot), None)
                if w is not None:
                    w.pid = pid
                    self.by_pid[pid] = w
            elif event[0] == "exited":
                self._exited(event[1], event[2], ended, replies)
        for gpu in self.gpus:
            for w in gpu.spares:
                if w.state == "starting" and self._poll(w):
                    msg = self._recv(w)
                    if isinstance(msg, str):
                        w.endpoint, w.state = msg, "spare"
                        gpu.no_port_logged = False   # a port again: the next exhaustion is logged anew
                    elif isinstance(msg, tuple) and msg[:1] == ("no_port",):
                        self._no_port(gpu, w, msg[1:], now, replies)
            for p in [p for p in gpu.waiting if p.deadline < now and (
                    self.pacer.may_open(self._tenant(p)) or p.deadline - HELLO_WAIT_S + PACED_WAIT_S < now)]:
                gpu.waiting.remove(p)
                self._drop_group(gpu, p.assignment)
                replies.append((p.ident, self._expired(p)))
            while gpu.waiting:
                spare = next((w for w in gpu.spares if w.state == "spare"), None)
                if spare is None:
                    break
                # the first hello whose tenant may open a session now: a paced tenant waits behind nobody
                p = next((p for p in gpu.waiting if self.pacer.may_open(self._tenant(p))), None)
                if p is None:
                    break
                self.pacer.take(self._tenant(p))
                gpu.waiting.remove(p)
                gpu.spares.remove(spare)
                self._assign(gpu, spare, p)
            self._top_up(gpu)
        for sid, w in list(self.sessions.items()):
            if w.state == "admitting":
                if self._poll(w) and self._recv(w) == "admitted":
                    w.state = "live"
                    replies.append((w.pending.ident, self._welcome(w)))
                    w.pending = None
                elif now - w.since > ADMIT_WAIT_S and not w.stopping:
                    self.log.warning("worker_unresponsive", session=sid)
                    self.stop(sid, w)
            elif w.state == "live":
                while self._poll(w):
                    msg = self._recv(w)
                    if msg is None:
                        break
                    self.reports.append((w, msg))
            if w.stopping and now - w.stopping > STOP_KILL_S and w.pid:
                # Stuck where it cannot see the stop (a driver call that never returns, e.g. a
                # synchronize behind a kernel that never ends): killing the process is what frees
                # a GPU context for sure, so its lease's memory comes back.
                self.log.warning("session_killed", session=sid, lease=w.grant.lease,
                                 after_s=round(now - w.stopping, 1))
                self.zygote.kill(w.pid)
                w.stopping = now  # and again later if the kill is somehow not enough
        return replies

    @staticmethod
    def _poll(w: Worker) -> bool:
        try:
            return w.conn.poll()
        except (OSError, ValueError):
            return False

    @staticmethod
    def _recv(w: Worker):
        try:
            return w.conn.recv()
        except (EOFError, OSError, ValueError):
            return None  # it died: the zygote's exit event says so

    def moved(self, w: Worker, ended) -> None:
        """The session of ``w`` migrated away: its accounting ends here, its group is left (the
        worker stays, holding nothing, until its client has followed)."""
        if not w.moved:
            w.moved, w.moved_at = True, time.monotonic()
            ended(w)
            self.gpus[w.gpu].leave_group(w.group)

    def _assign(self, gpu: Gpu, w: Worker, p: Pending) -> None:
        a = p.assignment
        w.session, w.client, w.grant, w.group = a["session"], a["client"], a["grant"], a["group_key"]
        w.restore = bool(a.get("restore"))
        w.state, w.pending, w.since = "admitting", p, time.monotonic()
        gpu.peak[w.slot] = 0
        gpu.traffic[3 * w.slot:3 * w.slot + 3] = [0, 0, 0]
        try:
            w.conn.send({k: v for k, v in a.items() if k not in ("grant", "group_key")})
        except (OSError, ValueError):
            pass  # it died; its exit answers the hello
        self.sessions[w.session] = w
        self.log.info("session_opened", session=w.session, gpu=gpu.index, client=w.client, endpoint=w.endpoint,
                      lease=w.grant.lease or None, memory=a["memory"], restore=w.restore or None)

    @staticmethod
    def _welcome(w: Worker) -> dict:
        reply = {"ok": True, "endpoint": w.endpoint, "session": w.session, "key": w.pending.assignment["key"]}
        if w.pending.request_id is not None:
            reply["id"] = w.pending.request_id
        return reply

    def _expired(self, p: Pending) -> dict:
        tenant = self._tenant(p)
        if tenant and not self.pacer.may_open(tenant):
            return self._error(p, "busy", f"{p.assignment['grant'].owner or 'this lease'} opened sessions on this "
                                          f"server faster than it allows ({self.pacer.describe()}: rgpu-server "
                                          "--session-open-rate/--session-open-burst); try again later")
        return self._error(p, "worker", "no session worker could be started in time")

    @staticmethod
    def _error(p: Pending, code: str, message: str) -> dict:
        reply = {"ok": False, "error": code, "message": message}
        if p.request_id is not None:
            reply["id"] = p.request_id
        return reply

    def _drop_group(self, gpu: Gpu, assignment: dict) -> None:
        gpu.leave_group(assignment["group_key"])

    def _exited(self, pid: int, code: int, ended, replies) -> None:
        w = self.by_pid.pop(pid, None)
        if w is None:
            return
        gpu = self.gpus[w.gpu]
        if w in gpu.spares:
            gpu.spares.remove(w)
            if code != 0:
                self.log.warning("spare_worker_died", gpu=gpu.index, exitcode=code)
        if w.session and self.sessions.get(w.session) is w:
            if w.pending is not None:
                replies.append((w.pending.ident, self._error(w.pending, "worker", "the session worker died at start")))
            if not w.moved:  # a moved session was accounted for, and left its group, when it moved
                ended(w)
                gpu.leave_group(w.group)
            del self.sessions[w.session]
            self.log.info("session_reaped", session=w.session, worker=pid, exitcode=code)
        gpu.free_slots.append(w.slot)
        if self.conf.get("ipc_dir"):
            ipc_registry.forget_pid(self.conf["ipc_dir"], pid)  # however it ended, its handles are dead

    def shutdown(self) -> None:
        if self.zygote is None:
            return
        workers = list(self.sessions.values()) + [w for g in self.gpus for w in g.spares]
        for w in workers:
            try:
                w.conn.send("stop" if w.session else None)
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + 5
        while self.by_pid and time.monotonic() < deadline:
            try:
                self.pump(lambda w: None)
            except (EOFError, OSError):
                break
            time.sleep(0.02)
        self.zygote.close()  # kills whatever is left
        if self.conf.get("ipc_dir"):
            ipc_registry.remove_all(self.conf["ipc_dir"])
