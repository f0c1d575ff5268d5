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

from .leases import DEFAULT_TOKEN_LIFETIME, DEFAULT_TTL, MAX_TTL, MIN_TTL, Lease, LeaseBook, new_lease_id
from .placement import PlacementError, Pool, Slot
from .requests import Request
from .store import Store
from .users import Peer
from .waitqueue import WaitQueue

log = structlog.get_logger("rgpu.controller")
PRUNE_ENDED_AFTER = 24 * 3600.0
RESTART_GRACE = 60.0
MAX_WAITING_PER_USER = 16  # queued requests (tickets) one user may have: the queue is bounded


class ApiError(Exception):
    """An error reply: ``code`` for programs, the message for people."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


class Controller:
    def __init__(self, store: Store, secret: bytes, *, heartbeat_interval: float = 1.0,
                 heartbeat_timeout: float = 5.0, token_lifetime: float = DEFAULT_TOKEN_LIFETIME,
                 restart_grace: float = RESTART_GRACE, clock=time.time):
        self.store, self.secret, self.clock = store, secret, clock
        self.heartbeat_interval, self.heartbeat_timeout = heartbeat_interval, heartbeat_timeout
        self.token_lifetime, self.restart_grace = token_lifetime, restart_grace
        self.pool, self.leases, self.queue = Pool(), LeaseBook(), WaitQueue()
        self._server_keys: dict[str, str] = {}
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
        for row in self.store.load_leases():
            slots = []
            for a in row["allocations"]:
                gpu = self.pool.gpus[a["gpu"]]
                self.pool.charge(gpu, a["memory"], a["compute"], a["exclusive"])
                slots.append(Slot(gpu, a["memory"], a["compute"], a["limit"], a["exclusive"]))
            lease = Lease(row["id"], row["created"], row["expires"], row["ttl"], row["token_expires"],
                          row["owner"], row["request"], slots, row["state"])
            # Renewers could not reach a controller that was down: give them time to come back.
            lease.expires = max(lease.expires, now + self.restart_grace)
            self.leases.add(lease)
        log.info("controller.loaded", servers=len(self.pool.servers), gpus=len(self.pool.gpus),
                 leases=len(self.leases), db=self.store.path)

    # ---- servers ----------------------------------------------------------------------------
    def register(self, url: str, gpus: list[dict], backend: str, boot_id: str) -> list[str]:
        now = self.clock()
        for g in gpus:
            holder = self.pool.gpus.get(g["uuid"])
            if holder is not None and holder.server.url != url:
                raise ApiError("gpu_taken", f"GPU {g['uuid']} belongs to server {holder.server.url}; an admin "
                                            f"must forget that server first (`rgpu server forget URL`)")
        known = self.pool.servers.get(url)
        rejoined = known is not None and known.state != "up"
        self.store.upsert_server(url, "up", backend, boot_id, gpus, now)
        server = self.pool.upsert_server(url, gpus, state="up", backend=backend, boot_id=boot_id,
                                         now=now)
        log.info("server.registered", url=url, gpus=len(gpus), backend=backend,
                 rejoined=rejoined, boot_id=boot_id)
        self._server_up_again(server.url)
        self._retry_queue()
        return self.valid_leases(url)

    def heartbeat(self, url: str, boot_id: str, usage: dict) -> list[str]:
        server = self.pool.servers.get(url)
        if server is None or server.boot_id != boot_id:
            raise ApiError("unknown_server", f"server {url} is not registered (or restarted); register again")
        server.last_seen, server.usage = self.clock(), usage
        if server.state != "up":
            self.store.set_server_state(url, "up")
            self.pool.set_state(server, "up")
            log.info("server.up", url=url)
            self._server_up_again(url)
            self._retry_queue()
        return self.valid_leases(url)

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
        log.info("server.forgotten", url=url, released_leases=len(hit))
        return [lease.id for lease in hit]

    def server_key(self, url: str) -> str:
        """The public CURVE key (hex) of the server that advertises ``url``: derived from the cluster
        secret, as that server derives it (protocol/curve.py)."""
        key = self._server_keys.get(url)
        if key is None:
            key = self._server_keys[url] = curve.key_hex(curve.server_data_keys(self.secret, url).public)
        return key

    def valid_leases(self, url: str) -> list[str]:
        return [lease.id for lease in self.leases.on_server(url)]

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
                log.warning("server.down", url=server.url, silent_s=round(now - server.last_seen, 1),
                            degraded_leases=len(hit))

    # ---- leases -----------------------------------------------------------------------------
    def _ttl(self, ttl) -> float:
        ttl = DEFAULT_TTL if ttl is None else ttl
        if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not MIN_TTL <= ttl <= MAX_TTL:
            raise ApiError("bad_request", f"ttl must be a number of seconds in [{MIN_TTL:g}, {MAX_TTL:g}]")
        return float(ttl)

    def _create_lease(self, req: Request, ttl: float, owner: str) -> Lease:
        slots = self.pool.place(req)          # raises PlacementError
        now = self.clock()
        lease = Lease(new_lease_id(), now, now + ttl, ttl, now + max(ttl, self.token_lifetime),
                      owner, req.to_wire(), slots)
        try:
            self.store.insert_lease(lease.row(), lease.allocation_rows())
        except Exception:
            self.pool.release(slots)
            raise
        self.leases.add(lease)
        log.info("lease.created", lease=lease.id, owner=owner, vgpus=len(slots),
                 gpus=",".join(s.gpu.uuid for s in slots))
        return lease

    def reserve(self, req: Request, ttl=None, owner: str = "", wait: float = 0.0):
        """Return a Lease, or a Ticket when it does not fit and ``wait`` > 0."""
        ttl = self._ttl(ttl)
        try:
            return self._create_lease(req, ttl, owner)
        except PlacementError as exc:
            if wait <= 0:
                raise ApiError("no_capacity", str(exc)) from None
            if self.queue.waiting_of(owner) >= MAX_WAITING_PER_USER:
                raise ApiError("busy", f"{owner} already has {MAX_WAITING_PER_USER} requests waiting; cancel one "
                                       "or wait for them") from None
            now = self.clock()
            ticket = self.queue.add(req, ttl, owner, now + wait, now)
            log.info("request.queued", ticket=ticket.id, request=req.describe(), wait_s=wait)
            return ticket

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
                ticket.lease_id = self._create_lease(ticket.request, ticket.ttl, ticket.owner).id
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
        expires, token_expires = now + ttl, now + max(ttl, self.token_lifetime)
        self.store.renew_lease(lease.id, expires, max(lease.token_expires, token_expires))
        self.leases.renew(lease, expires, token_expires)
        return lease

    def release(self, lease_id: str, who: Peer | None = None) -> Lease:
        lease = self.lookup(lease_id, who)
        self._end([lease], "released")
        self._retry_queue()
        return lease

    def _end(self, leases: list[Lease], state: str) -> None:
        self.store.end_leases([lease.id for lease in leases], state, self.clock())
        for lease in leases:
            self.leases.remove(lease.id)
            self.pool.release(lease.slots)
            log.info("lease.ended", lease=lease.id, state=state, owner=lease.owner)

    # ---- periodic work ------------------------------------------------------------------------
    def tick(self) -> None:
        now = self.clock()
        due = self.leases.due(now)
        if due:
            self._end(due, "expired")
        for ticket in self.queue.abandoned(now):
            log.info("request.abandoned", ticket=ticket.id)
            if ticket.lease_id and ticket.lease_id in self.leases.leases:
                self._end([self.leases.get(ticket.lease_id)], "released")
        self._check_heartbeats(now)
        if len(self.queue):
            self._retry_queue()

    def prune(self) -> None:
        pruned = self.store.prune_ended(self.clock() - PRUNE_ENDED_AFTER)
        if pruned:
            log.info("leases.pruned", count=pruned)
