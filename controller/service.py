"""The controller's state machine: the pool, leases and waiting requests, kept in memory for
speed and written through to the Store on every change. Single-threaded by design: the daemon
calls one method at a time, so placement never races with itself and no GPU is over-committed.

Who may do what: methods that act on a lease or a ticket take the requesting user (``who``, a
users.Peer); a user acts only on their own, an admin on all, and a lease or ticket of someone else
is answered as if it did not exist (``who=None``: the operator, in-process). A GPU belongs to the
server URL that first registered it until an operator forgets that server (``forget_server``).
After a restart no lease expires for ``restart_grace`` seconds: the clients that renew them may
have been failing to reach the controller all the while it was down.
"""
from __future__ import annotations

import time

import structlog

from rgpu.protocol import curve

from . import migrations as mig
from .leases import DEFAULT_TOKEN_LIFETIME, DEFAULT_TTL, MAX_TTL, MIN_TTL, Lease, LeaseBook, new_lease_id
from .migrations import Migration, MigrationBook
from .placement import PlacementError, Pool, Slot
from .requests import fmt_bytes
from .requests import Request
from .store import Store
from .users import Peer
from .waitqueue import TICKET_ID, WaitQueue

log = structlog.get_logger("rgpu.controller")
PRUNE_ENDED_AFTER = 24 * 3600.0
RESTART_GRACE = 60.0
MAX_WAITING_PER_USER = 16  # queued requests (tickets) one user may have: the queue is bounded
MAX_LEASES_PER_USER = 32   # leases one user may hold at once (rgpu-controller --max-leases-per-user)
ENDED_NOTICE_S = 600.0     # how long servers hear how a lease of theirs ended


class ApiError(Exception):
    """An error reply: ``code`` for programs, the message for people."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


def _parts_of(uuid: str) -> tuple[str, str | None]:
    """A registered GPU's uuid -> (the GPU's own uuid, N of its part-I-of-N suffix, or None when whole)."""
    device, _, part = uuid.partition("/")
    return device, part.rsplit("-of-", 1)[-1] if part.startswith("part-") else None


class Controller:
    def __init__(self, store: Store, secret: bytes, *, heartbeat_interval: float = 1.0,
                 heartbeat_timeout: float = 5.0, token_lifetime: float = DEFAULT_TOKEN_LIFETIME,
                 restart_grace: float = RESTART_GRACE, clock=time.time,
                 max_leases_per_user: int = MAX_LEASES_PER_USER, share_only_users: frozenset = frozenset()):
        """``max_leases_per_user``: leases a user may hold at once (an admin reserving for itself is not
        counted); ``share_only_users``: users an operator lets reserve share-only leases (admins may)."""
        self.store, self.secret, self.clock = store, secret, clock
        self.max_leases_per_user, self.share_only_users = max_leases_per_user, frozenset(share_only_users)
        self.heartbeat_interval, self.heartbeat_timeout = heartbeat_interval, heartbeat_timeout
        self.token_lifetime, self.restart_grace = token_lifetime, restart_grace
        self.pool, self.leases, self.queue = Pool(), LeaseBook(), WaitQueue()
        self.migrations = MigrationBook()
        self._server_keys: dict[str, str] = {}
        # id -> (state, when, servers, when its tokens expire)
        self.recently_ended: dict[str, tuple[str, float, frozenset, float]] = {}
        self.ended_counts: dict[str, int] = {}   # leases ended since start, by state (/metrics)
        self._load()

    def _load(self) -> None:
        """Rebuild memory from the database; servers get a fresh heartbeat grace period."""
        now = self.clock()
        for s in self.store.load_servers():
            server = self.pool.upsert_server(s["url"], [g for g in s["gpus"]], state=s["state"],
                                             backend=s["backend"], boot_id=s["boot_id"], now=now)
            for g in s["gpus"]:
                if not g["present"]:
                    self.pool.gpus[g["uuid"]].present = False
            self.pool.set_state(server, s["state"])
            if s.get("draining"):
                self.pool.set_draining(server, True)
        for row in self.store.load_leases():
            slots, reclaimed = [], {}
            for i, a in enumerate(row["allocations"]):
                gpu = self.pool.gpus[a["gpu"]]
                if a.get("reclaimed"):
                    reclaimed[i] = now  # held by no GPU until it is restored
                else:
                    self.pool.charge(gpu, a["memory"], a["compute"], a["exclusive"])
                slots.append(Slot(gpu, a["memory"], a["compute"], a["limit"], a["exclusive"]))
            lease = Lease(row["id"], row["created"], row["expires"], row["ttl"], row["token_expires"],
                          row["owner"], row["request"], slots, row["state"], reclaimed)
            # Renewers could not reach a controller that was down: give them time to come back.
            lease.expires = max(lease.expires, now + self.restart_grace)
            self.leases.add(lease)
        for row in self.store.load_migrations():
            lease, target = self.leases.get(row["lease"]), self.pool.gpus.get(row["to_gpu"])
            if lease is None or target is None or row["seq"] >= len(lease.slots):
                self.store.end_migration(row["id"], "failed", now, "the controller restarted without its lease")
                continue
            src = lease.slots[row["seq"]]
            slot = Slot(target, src.memory, src.compute, src.limit, src.exclusive)
            self.pool.charge(target, slot.memory, slot.compute, slot.exclusive)
            self.migrations.add(Migration(row["id"], lease.id, row["seq"], src, slot, row["reason"], row["created"]))
        log.info("controller_loaded", servers=len(self.pool.servers), gpus=len(self.pool.gpus),
                 leases=len(self.leases), db=self.store.path)

    # ---- servers ----------------------------------------------------------------------------
    def register(self, url: str, gpus: list[dict], backend: str, boot_id: str) -> list[str]:
        now = self.clock()
        for g in gpus:
            holder = self.pool.gpus.get(g["uuid"])
            if holder is not None and holder.server.url != url:
                raise ApiError("gpu_taken", f"GPU {g['uuid']} belongs to server {holder.server.url}; an admin "
                                            f"must forget that server first (`rgpu server forget URL`)")
            self._parts_agree(url, g["uuid"])
        known = self.pool.servers.get(url)
        rejoined = known is not None and known.state != "up"
        self.store.upsert_server(url, "up", backend, boot_id, gpus, now)
        server = self.pool.upsert_server(url, gpus, state="up", backend=backend, boot_id=boot_id,
                                         now=now)
        log.info("server_registered", url=url, gpus=len(gpus), backend=backend,
                 rejoined=rejoined, boot_id=boot_id)
        self._server_up_again(server.url)
        self._retry_queue()
        return self.valid_leases(url)

    def _parts_agree(self, url: str, uuid: str) -> None:
        """A GPU served in parts (`rgpu-server --gpu-part I/N`: GPU-.../part-I-of-N) is served in parts
        of one N alone, and never also whole by another server: otherwise the pool would promise
        some of its memory twice (1/2 and 1/3 parts, or the whole GPU beside a half)."""
        device, split = _parts_of(uuid)
        for other, gpu in self.pool.gpus.items():
            if gpu.server.url == url or other == uuid:
                continue
            theirs, their_split = _parts_of(other)
            if theirs == device and split != their_split:
                raise ApiError("gpu_taken", f"GPU {device} is served as {other} by server {gpu.server.url}: "
                                            f"{uuid} would promise some of its memory twice; serve it in parts "
                                            f"of one count (--gpu-part I/N with the same N), or forget that "
                                            f"server first (`rgpu server forget URL`)")

    def heartbeat(self, url: str, boot_id: str, usage: dict) -> list[str]:
        server = self.pool.servers.get(url)
        if server is None or server.boot_id != boot_id:
            raise ApiError("unknown_server", f"server {url} is not registered (or restarted); register again")
        server.last_seen, server.usage = self.clock(), usage
        self._migration_reports(url, usage.get("migrations") or {})
        self._reclaim_reports(url, usage.get("reclaimed") or [])
        self._keep_used(url, usage.get("leases"))
        if server.state != "up":
            self.store.set_server_state(url, "up")
            self.pool.set_state(server, "up")
            log.info("server_up", url=url)
            self._server_up_again(url)
            self._retry_queue()
        return self.valid_leases(url)

    def _keep_used(self, url: str, used) -> None:
        """Renew the leases kept while used (a program's own, Request.kept_while_used) of which
        server ``url`` holds live sessions. The program's renewer is a thread of the program, which
        Ctrl-Z or a debugger's all-stop halts with it; its server keeps the sessions of a stopped
        program whose host still answers, and ends them when the program dies or its host falls
        silent, after which the lease expires after its TTL as any other. A renewal is written
        once the lease is within half its TTL (or two heartbeats) of expiring, as often as the
        program's own renewer would write it."""
        if not isinstance(used, dict):
            return
        now = self.clock()
        for lease_id, u in used.items():
            lease = self.leases.get(lease_id) if isinstance(lease_id, str) else None
            if (lease is None or not lease.request.get("kept_while_used") or not isinstance(u, dict)
                    or not u.get("sessions") or url not in lease.servers()):
                continue
            if lease.expires - now > max(lease.ttl / 2, 2 * self.heartbeat_interval):
                continue
            self._extend(lease, now + lease.ttl, lease.token_expires)
            log.info("lease_kept_in_use", lease=lease.id, server=url, sessions=u.get("sessions"))

    def forget_server(self, url: str) -> list[str]:
        """Remove a server that is down, and its GPUs, from the pool; its leases are released.
        Returns the ids of those leases. Its GPUs may then register under another URL."""
        server = self.pool.servers.get(url)
        if server is None:
            raise ApiError("unknown_server", f"no server {url!r}")
        if server.state == "up":
            raise ApiError("server_up", f"server {url} is up: stop it before forgetting it")
        hit = list(self.leases.on_server(url))
        if hit:
            self._end(hit, "released")
        self.store.delete_server(url)
        self.pool.remove_server(url)
        log.info("server_forgotten", url=url, released_leases=len(hit))
        return [lease.id for lease in hit]

    def server_key(self, url: str) -> str:
        """The public CURVE key (hex) of the server that advertises ``url``: derived from the cluster
        secret, as that server derives it (protocol/curve.py)."""
        key = self._server_keys.get(url)
        if key is None:
            key = self._server_keys[url] = curve.key_hex(curve.server_data_keys(self.secret, url).public)
        return key

    def valid_leases(self, url: str) -> list[str]:
        """The leases sessions may hold on ``url``: those with a vGPU there, and those with a vGPU
        migrating there (the target restores its sessions before the move is committed)."""
        ids = {lease.id for lease in self.leases.on_server(url)}
        ids.update(m.lease for m in self.migrations.to_server(url))
        return sorted(ids)

    def placed_on(self, url: str) -> dict[str, int]:
        """GPU uuid -> the memory placed on it, for the server at ``url``: what its share-only vGPUs
        must leave to the others (heartbeat and register replies)."""
        server = self.pool.servers.get(url)
        return {g.uuid: g.memory_used for g in server.gpus} if server is not None else {}

    def _server_up_again(self, url: str) -> None:
        healed = [lease for lease in self.leases.on_server(url) if lease.state == "degraded" and
                  all(self.pool.servers[u].state == "up" for u in lease.servers())]
        if healed:
            self.store.set_lease_states([lease.id for lease in healed], "active")
            for lease in healed:
                lease.state = "active"

    def _check_heartbeats(self, now: float) -> None:
        for server in list(self.pool.servers.values()):
            if server.state == "up" and now - server.last_seen > self.heartbeat_timeout:
                self.store.set_server_state(server.url, "down")
                self.pool.set_state(server, "down")
                hit = [lease for lease in self.leases.on_server(server.url) if lease.state == "active"]
                if hit:
                    self.store.set_lease_states([lease.id for lease in hit], "degraded")
                    for lease in hit:
                        lease.state = "degraded"
                log.warning("server_down", url=server.url, silent_s=round(now - server.last_seen, 1),
                            degraded_leases=len(hit))

    # ---- leases -----------------------------------------------------------------------------
    def _ttl(self, ttl) -> float:
        ttl = DEFAULT_TTL if ttl is None else ttl
        if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not MIN_TTL <= ttl <= MAX_TTL:
            raise ApiError("bad_request", f"ttl must be a number of seconds in [{MIN_TTL:g}, {MAX_TTL:g}]")
        return float(ttl)

    def _create_lease(self, req: Request, ttl: float, owner: str, ticket: str | None = None) -> Lease:
        """``ticket``: the waiting request it is placed for, recorded in the lease's request so that
        the client finds it again through another leader (waitqueue.py)."""
        slots = self.pool.place(req)          # raises PlacementError
        now = self.clock()
        wire = req.to_wire() if ticket is None else {**req.to_wire(), "ticket": ticket}
        lease = Lease(new_lease_id(), now, now + ttl, ttl, now + max(ttl, self.token_lifetime),
                      owner, wire, slots)
        try:
            self.store.insert_lease(lease.row(), lease.allocation_rows())
        except Exception:
            self.pool.release(slots)
            raise
        self.leases.add(lease)
        log.info("lease_created", lease=lease.id, owner=owner, vgpus=len(slots),
                 gpus=",".join(s.gpu.uuid for s in slots))
        return lease

    def reserve(self, req: Request, ttl=None, owner: str = "", wait: float = 0.0, who: Peer | None = None,
                ticket: str | None = None):
        """Return a Lease, or a Ticket when it does not fit and ``wait`` > 0. A request that could never
        fit this pool is refused at once (``impossible``), wait or not. ``who``: the caller, whose rights
        (share-only) and lease count are checked (None: the controller itself). ``ticket``: the id
        of the ticket this request had on a controller that died or restarted: the lease placed for
        it there, if any, else the ticket queued again under that id."""
        ttl = self._ttl(ttl)
        if ticket is not None:
            if not isinstance(ticket, str) or not TICKET_ID.fullmatch(ticket):
                raise ApiError("bad_request", f"ticket must be a ticket id (t-<10 hex digits>), got {ticket!r}")
            waiting = self.queue.get(ticket)
            if waiting is not None and waiting.owner == owner:
                return waiting                      # still queued here: the client lost a reply
            placed = next((lease for lease in self.leases
                           if lease.owner == owner and lease.request.get("ticket") == ticket), None)
            if placed is not None:
                log.info("ticket_lease_collected", ticket=ticket, lease=placed.id)
                return placed
        if who is not None:
            self._allowed(req, owner, who)
        never = self.pool.impossible(req)
        if never is not None:
            raise ApiError("impossible", f"cannot place {req.describe()}: {never}")
        try:
            return self._create_lease(req, ttl, owner)
        except PlacementError as exc:
            if wait <= 0:
                raise ApiError("no_capacity", str(exc)) from None
            if self.queue.waiting_of(owner) >= MAX_WAITING_PER_USER:
                raise ApiError("busy", f"{owner} already has {MAX_WAITING_PER_USER} requests waiting; cancel one "
                                       "or wait for them") from None
            now = self.clock()
            queued = self.queue.add(req, ttl, owner, now + wait, now, ticket)
            log.info("request_queued", ticket=queued.id, request=req.describe(), wait_s=wait, again=ticket is not None)
            return queued

    def _allowed(self, req: Request, owner: str, who: Peer) -> None:
        """What one tenant may take from the others (issue 39): a share-only lease enforces no quota,
        so only an operator grants it; and leases per user are bounded."""
        if req.share_only and not (who.admin or who.name in self.share_only_users):
            raise ApiError("forbidden", "a share-only lease enforces no memory quota or compute limit, so only "
                                        "an operator grants one: ask an admin to reserve it for you (owner), or to "
                                        "start the controller with --share-only-user " + who.name)
        if who.admin and owner == who.name:
            return  # an operator's own (a device plugin's) leases are not capped
        held = sum(1 for lease in self.leases if lease.owner == owner)
        if held >= self.max_leases_per_user:
            raise ApiError("busy", f"{owner} already holds {held} leases, the most one user may hold "
                                   f"(rgpu-controller --max-leases-per-user): release one first")

    @staticmethod
    def _mine(owner: str, who: Peer | None) -> bool:
        return who is None or who.admin or owner == who.name

    def poll(self, ticket_id: str, who: Peer | None = None):
        """Return (ticket, lease|None); the ticket is forgotten once it has an outcome."""
        ticket = self.queue.get(ticket_id)
        if ticket is None or not self._mine(ticket.owner, who):
            raise ApiError("unknown_ticket", f"no waiting request {ticket_id} (placed, timed out or abandoned)")
        ticket.last_poll = self.clock()
        if ticket.error is not None:
            self.queue.pop(ticket_id)
            raise ApiError(*ticket.error)
        if ticket.lease_id is not None:
            self.queue.pop(ticket_id)
            lease = self.leases.get(ticket.lease_id)
            if lease is None:
                raise ApiError("lease_ended", f"lease {ticket.lease_id} placed for {ticket_id} has already ended")
            return ticket, lease
        return ticket, None

    def cancel(self, ticket_id: str, who: Peer | None = None) -> None:
        ticket = self.queue.get(ticket_id)
        if ticket is None or not self._mine(ticket.owner, who):
            raise ApiError("unknown_ticket", f"no waiting request {ticket_id}")
        self.queue.pop(ticket_id)
        if ticket.lease_id and ticket.lease_id in self.leases.leases:
            self._end([self.leases.get(ticket.lease_id)], "released")

    def _retry_queue(self) -> None:
        now = self.clock()
        for ticket in self.queue.pending():
            if now >= ticket.deadline:
                ticket.error = ("wait_timeout", "gave up waiting: " + self.pool.explain(ticket.request))
                continue
            try:
                ticket.lease_id = self._create_lease(ticket.request, ticket.ttl, ticket.owner, ticket.id).id
            except PlacementError:
                continue

    def lookup(self, lease_id: str, who: Peer | None = None) -> Lease:
        """The live lease ``lease_id`` if ``who`` may see it; else unknown_lease (or lease_ended,
        to its owner), so that naming someone else's lease tells nothing."""
        lease = self.leases.get(lease_id) if isinstance(lease_id, str) else None
        if lease is None or not self._mine(lease.owner, who):
            ended = self.store.ended_state(lease_id) if isinstance(lease_id, str) and lease is None else None
            if ended and self._mine(ended[1], who):
                raise ApiError("lease_ended", f"lease {lease_id} was already {ended[0]}")
            raise ApiError("unknown_lease", f"no lease {str(lease_id)[:40]!r} of yours; `rgpu leases` lists them")
        return lease

    def visible(self, who: Peer | None = None) -> list[Lease]:
        """The live leases ``who`` may see, oldest first."""
        return sorted((lease for lease in self.leases if self._mine(lease.owner, who)), key=lambda x: x.created)

    def renew(self, lease_id: str, ttl=None, who: Peer | None = None) -> Lease:
        lease = self.lookup(lease_id, who)
        ttl = self._ttl(lease.ttl if ttl is None else ttl)
        now = self.clock()
        self._extend(lease, now + ttl, now + max(ttl, self.token_lifetime))
        return lease

    def _extend(self, lease: Lease, expires: float, token_expires: float) -> None:
        """Move ``lease``'s expiry (and its tokens' expiry, never back) in the store and the book."""
        self.store.renew_lease(lease.id, expires, max(lease.token_expires, token_expires))
        self.leases.renew(lease, expires, token_expires)

    def release(self, lease_id: str, who: Peer | None = None) -> Lease:
        lease = self.lookup(lease_id, who)
        self._end([lease], "released")
        self._retry_queue()
        return lease

    def _end(self, leases: list[Lease], state: str) -> None:
        now = self.clock()
        self.store.end_leases([lease.id for lease in leases], state, now)
        for lease in leases:
            for m in self.migrations.pending_for(lease.id):
                # the server's report of the move (its refusal, say) may be on its way: say so, not
                # as if the lease's end were the reason the move failed
                self._migration_ended(m, "failed", f"the lease was {state} before the server reported how the move "
                                                   f"ended (its log has the outcome)")
            self.leases.remove(lease.id)
            self.pool.release([s for i, s in enumerate(lease.slots) if i not in lease.reclaimed])
            self.recently_ended[lease.id] = (state, now, frozenset(lease.servers()), lease.token_expires)
            self.ended_counts[state] = self.ended_counts.get(state, 0) + 1
            log.info("lease_ended", lease=lease.id, state=state, owner=lease.owner)

    def ended_on(self, url: str) -> dict[str, str]:
        """Leases of server ``url`` that ended within ENDED_NOTICE_S, and how (expired, released):
        the server tells their programs why their sessions stop."""
        cutoff = self.clock() - ENDED_NOTICE_S
        for lease_id in [k for k, v in self.recently_ended.items() if v[1] < cutoff]:
            del self.recently_ended[lease_id]
        return {k: state for k, (state, _, servers, _) in self.recently_ended.items() if url in servers}

    def revoked_on(self, url: str) -> dict[str, float]:
        """Leases of server ``url`` that ended within ENDED_NOTICE_S -> when their tokens expire: the
        server refuses those tokens on its own until then, across its restarts (lease_gate.py)."""
        return {k: exp for k, (_, _, servers, exp) in self.recently_ended.items() if url in servers}

    def ended_leases(self, since: float, who: Peer | None = None) -> list[dict]:
        """Leases that ended after ``since`` that ``who`` may see, newest first."""
        return [row for row in self.store.ended_since(since) if self._mine(row["owner"], who)]

    # ---- live migration (migrations.py) -------------------------------------------------------
    def _gpu_named(self, to: str):
        """``URL`` or ``URL#N`` -> (server, GPU or None)."""
        url, _, index = to.partition("#")
        server = self.pool.servers.get(url)
        if server is None:
            raise ApiError("unknown_server", f"no server {url!r} in the pool; `rgpu ls` lists them")
        if not index:
            return server, None
        gpu = next((g for g in server.gpus if str(g.index) == index and g.present), None)
        if gpu is None:
            raise ApiError("no_such_gpu", f"server {url} has no GPU {index}")
        return server, gpu

    def migrate(self, lease_id: str, vgpu: int | None = None, to: str | None = None, who: Peer | None = None,
                reason: str = "user") -> list[Migration]:
        """Order the live migration of a lease's vGPUs (``vgpu``: one of them) to ``to`` (a server,
        or a server's GPU) or to where placement puts them. Refused, before anything moves, when a
        vGPU has no compatible GPU with room."""
        lease = self.lookup(lease_id, who)
        if vgpu is not None and not (isinstance(vgpu, int) and 0 <= vgpu < len(lease.slots)):
            raise ApiError("bad_request", f"lease {lease.id} has vGPUs 0..{len(lease.slots) - 1}, not {vgpu}")
        indices = [vgpu] if vgpu is not None else list(range(len(lease.slots)))
        server, gpu = self._gpu_named(to) if to else (None, None)
        if to and len(indices) > 1:
            raise ApiError("bad_request", f"lease {lease.id} has {len(indices)} vGPUs: name the one to move there")
        plan = []
        taken: set[str] = set()
        for v in indices:
            slot = lease.slots[v]
            if self.migrations.pending_for(lease.id, v):
                raise ApiError("busy", f"vGPU {v} of lease {lease.id} is already moving")
            if v in lease.reclaimed:
                raise ApiError("reclaimed", f"vGPU {v} of lease {lease.id} is reclaimed (its sessions wait in a "
                                            "checkpoint): it is restored where it fits at its next call")
            target = gpu
            if target is not None:
                if target is slot.gpu:
                    raise ApiError("bad_request", f"vGPU {v} of lease {lease.id} is on that GPU already")
                if not mig.compatible(slot.gpu, target, same_model=False):
                    raise ApiError("incompatible", f"{to} is a {target.server.backend} GPU; vGPU {v} is on a "
                                                   f"{slot.gpu.server.backend} one: its sessions cannot move there")
                if target.key is None or not mig.fits(target, slot):
                    raise ApiError("no_capacity", f"{to} cannot take vGPU {v} of lease {lease.id} "
                                                  f"({fmt_bytes(slot.memory)}, {slot.compute}% compute): it has "
                                                  f"{fmt_bytes(target.memory_free)} and {target.compute_free}% free"
                                                  + (" (it is down or draining)" if target.key is None else ""))
            else:
                target = mig.choose_target(self.pool, slot, avoid_gpus=taken,
                                           avoid_servers={slot.gpu.server.url} if server is None and reason == "drain"
                                           else (), policy="binpack")
                if server is not None and (target is None or target.server is not server):
                    target = mig.choose_target(self.pool, slot, avoid_gpus=taken | {g.uuid for g in self.pool.gpus.values()
                                                                                   if g.server is not server})
                if target is None:
                    raise ApiError("no_capacity", f"no GPU of the pool can take vGPU {v} of lease {lease.id} "
                                                  f"({fmt_bytes(slot.memory)}, {slot.compute}% compute, a "
                                                  f"{slot.gpu.server.backend} GPU of compute capability "
                                                  f"{slot.gpu.compute_capability})")
            taken.add(target.uuid)
            plan.append((v, target))
        return [self._order(lease, v, target, reason) for v, target in plan]

    def fail_over(self, lease_id: str, vgpu: int, who: Peer | None = None, lost: str | None = None,
                  avoid: set[str] = frozenset()) -> Lease:
        """Move vGPU ``vgpu`` of a ``--failover`` lease off its server at once, because its program lost
        that server (killed, crashed, cut off): placed on a compatible GPU with room on another server,
        the allocation moved there now (no server is asked: the old one may be gone). The program then
        opens its session there and restores it from its own checkpoint (docs/failover.md). Its old
        server, if it still lives, ends the lease's sessions there at its next view. ``lost``: the
        server the caller lost; when the vGPU has left it already (another process of the lease
        failed over first), the lease is answered as it is, and nothing moves again. ``avoid``: servers
        the caller lost before in the same recovery: dead, though the pool may not know it yet."""
        lease = self.lookup(lease_id, who)
        if not lease.request.get("failover"):
            raise ApiError("no_failover", f"lease {lease.id} was not reserved with --failover: its sessions keep "
                                          "no checkpoint to resume from")
        if not (isinstance(vgpu, int) and not isinstance(vgpu, bool) and 0 <= vgpu < len(lease.slots)):
            raise ApiError("bad_request", f"lease {lease.id} has vGPUs 0..{len(lease.slots) - 1}, not {vgpu!r}")
        if self.migrations.pending_for(lease.id, vgpu):
            raise ApiError("busy", f"vGPU {vgpu} of lease {lease.id} is already moving")
        slot = lease.slots[vgpu]
        if lost is not None and slot.gpu.server.url != lost:
            log.info("lease.failover_already_done", lease=lease.id, vgpu=vgpu, lost=lost, now=slot.gpu.server.url)
            return lease
        target = mig.choose_target(self.pool, slot, avoid_servers={slot.gpu.server.url} | set(avoid), policy="binpack")
        if target is None:
            raise ApiError("no_capacity", f"no other server of the pool can take vGPU {vgpu} of lease {lease.id} "
                                          f"({fmt_bytes(slot.memory)}, a {slot.gpu.server.backend} GPU of compute "
                                          f"capability {slot.gpu.compute_capability})")
        m = self._order(lease, vgpu, target, "failover")
        m.report = {"state": "done"}
        self._migration_ended(m, "done")
        if lease.state == "degraded" and all(self.pool.servers[u].state == "up" for u in lease.servers()):
            # degraded by the server it left, which it no longer uses
            self.store.set_lease_states([lease.id], "active")
            lease.state = "active"
        log.info("lease.failed_over", lease=lease.id, vgpu=vgpu, source=slot.gpu.server.url,
                 target=f"{target.server.url}#{target.index}")
        return lease

    def _order(self, lease: Lease, v: int, gpu, reason: str) -> Migration:
        src = lease.slots[v]
        target = Slot(gpu, src.memory, src.compute, src.limit, src.exclusive)
        self.pool.charge(gpu, target.memory, target.compute, target.exclusive)
        m = Migration(mig.new_id(), lease.id, v, src, target, reason, self.clock())
        try:
            self.store.insert_migration(m.row())
        except Exception:
            self.pool.charge(gpu, target.memory, target.compute, target.exclusive, sign=-1)
            raise
        self.migrations.add(m)
        log.info("migration.ordered", migration=m.id, lease=lease.id, vgpu=v, reason=reason,
                 source=f"{src.gpu.server.url}#{src.gpu.index}", target=f"{gpu.server.url}#{gpu.index}")
        return m

    def orders(self, url: str) -> list[dict]:
        """What the server at ``url`` is asked to do with its next heartbeat reply: move the sessions
        of the vGPUs migrating away from it (until it reports having taken the order)."""
        out = []
        for m in self.migrations.from_server(url):
            if m.sent:
                continue
            lease = self.leases.get(m.lease)
            t = m.target.gpu
            out.append({"kind": "migrate", "id": m.id, "lease": m.lease, "vgpu": m.vgpu,
                        "to": f"{t.server.url}@{self.server_key(t.server.url)}#{t.index}",
                        "token": lease.token(self.secret, moved={m.vgpu: m.target})})
        return out

    def _migration_reports(self, url: str, reports: dict) -> None:
        for m in self.migrations.from_server(url):
            report = reports.get(m.id)
            if not isinstance(report, dict):
                continue
            m.sent = True
            m.report = {k: v for k, v in report.items() if isinstance(v, (int, float, str))}
            if report.get("state") in ("done", "failed"):
                self._migration_ended(m, report["state"], str(report.get("message") or "")[:500])

    # ---- idle reclaim (server/reclaim.py) ----------------------------------------------------
    def _reclaim_reports(self, url: str, reclaimed: list) -> None:
        """A server's heartbeat lists the vGPUs whose sessions there are all reclaimed (idle,
        checkpointed, their memory given back): their GPU is not charged for them until they are
        restored (the next call of their program), when the charge comes back."""
        now_reclaimed = {(r[0], r[1]) for r in reclaimed}
        for lease in self.leases.on_server(url):
            for v, slot in enumerate(lease.slots):
                if slot.gpu.server.url != url or self.migrations.pending_for(lease.id, v):
                    continue
                if (lease.id, v) in now_reclaimed and v not in lease.reclaimed:
                    lease.reclaimed[v] = self.clock()
                    self.store.set_reclaimed(lease.id, v, True)
                    self.pool.release([slot])
                    log.info("vgpu.reclaimed", lease=lease.id, vgpu=v, server=url)
                elif (lease.id, v) not in now_reclaimed and v in lease.reclaimed:
                    del lease.reclaimed[v]
                    self.store.set_reclaimed(lease.id, v, False)
                    self.pool.charge(slot.gpu, slot.memory, slot.compute, slot.exclusive)
                    log.info("vgpu.restored", lease=lease.id, vgpu=v, server=url)

    def _migration_ended(self, m: Migration, state: str, message: str = "") -> None:
        """Commit (done: the vGPU's allocation is at the target now) or abort (the target's room
        is given back) a migration."""
        now = self.clock()
        m.state, m.message, m.ended = state, message, now
        lease = self.leases.get(m.lease)
        if state == "done" and lease is not None:
            old_servers = lease.servers()
            self.store.move_allocation(lease.id, m.vgpu, m.target.gpu.uuid, m.id, state, now)
            lease.slots[m.vgpu] = m.target
            if lease.reclaimed.pop(m.vgpu, None) is None:
                self.pool.release([m.source])
            self.leases.reindex(lease, old_servers)
        else:
            self.store.end_migration(m.id, state, now, message)
            self.pool.release([m.target])
        log.info("migration.ended", migration=m.id, lease=m.lease, vgpu=m.vgpu, state=state, message=message or None,
                 pause_s=m.report.get("pause_s"))

    def migration(self, mid: str, who: Peer | None = None) -> Migration:
        m = self.migrations.get(mid) if isinstance(mid, str) else None
        if m is None:
            raise ApiError("unknown_migration", f"no migration {str(mid)[:40]!r}")
        lease = self.leases.get(m.lease)
        owner = lease.owner if lease is not None else self.store.ended_state(m.lease)[1] \
            if self.store.ended_state(m.lease) else ""
        if not self._mine(owner, who):
            raise ApiError("unknown_migration", f"no migration {str(mid)[:40]!r}")
        return m

    # ---- policies: drain a server, defragment the pool ------------------------------------------
    def drain(self, url: str, draining: bool = True) -> list[Migration]:
        """Take no new vGPUs on ``url`` and move the vGPUs it holds elsewhere (those with no room
        anywhere now are tried again at every tick while it drains)."""
        server = self.pool.servers.get(url)
        if server is None:
            raise ApiError("unknown_server", f"no server {url!r}")
        if server.draining != draining:
            self.store.set_draining(url, draining)
            self.pool.set_draining(server, draining)
            log.info("server.draining" if draining else "server.undrained", url=url)
        return self._drain_step(server) if draining else []

    def _drain_step(self, server) -> list[Migration]:
        ordered = []
        for lease in self.leases.on_server(server.url):
            for v, slot in enumerate(lease.slots):
                if slot.gpu.server is not server or self.migrations.pending_for(lease.id, v) or v in lease.reclaimed:
                    continue
                target = mig.choose_target(self.pool, slot, avoid_servers={server.url})
                if target is not None:
                    ordered.append(self._order(lease, v, target, "drain"))
        return ordered

    def defrag(self, dry_run: bool = False, max_moves: int = 16) -> list[dict]:
        """Move vGPUs off the least used GPUs onto fuller ones where that empties a GPU entirely
        (room for whole-GPU and large requests). Returns the moves (ordered unless ``dry_run``)."""
        moving = {(m.lease, m.vgpu) for m in self.migrations.pending()}
        placed = [(lease.id, v, slot) for lease in self.leases for v, slot in enumerate(lease.slots)
                  if v not in lease.reclaimed and lease.state == "active"]
        if any(key[:2] in moving for key in placed):
            placed = [p for p in placed if (p[0], p[1]) not in moving]
        plan = mig.plan_defrag(self.pool, placed, max_moves)
        out = []
        for lease_id, v, gpu in plan:
            entry = {"lease": lease_id, "vgpu": v, "to": f"{gpu.server.url}#{gpu.index}",
                     "from": f"{self.leases.get(lease_id).slots[v].gpu.server.url}#"
                             f"{self.leases.get(lease_id).slots[v].gpu.index}"}
            if not dry_run:
                entry["migration"] = self._order(self.leases.get(lease_id), v, gpu, "defrag").id
            out.append(entry)
        return out

    # ---- periodic work ------------------------------------------------------------------------
    def tick(self) -> None:
        now = self.clock()
        due = self.leases.due(now)
        if due:
            self._end(due, "expired")
        for ticket in self.queue.abandoned(now):
            log.info("request_abandoned", ticket=ticket.id)
            if ticket.lease_id and ticket.lease_id in self.leases.leases:
                self._end([self.leases.get(ticket.lease_id)], "released")
        self._check_heartbeats(now)
        for m in self.migrations.overdue(now):
            self._migration_ended(m, "failed", f"no report from {m.source.gpu.server.url} within "
                                               f"{mig.TIMEOUT_S:g} s")
        for server in list(self.pool.servers.values()):
            if server.draining and server.state == "up":
                self._drain_step(server)
        self.migrations.forget_ended(now - 3600.0)
        if len(self.queue):
            self._retry_queue()

    def prune(self) -> None:
        pruned = self.store.prune_ended(self.clock() - PRUNE_ENDED_AFTER)
        if pruned:
            log.info("leases_pruned", count=pruned)
