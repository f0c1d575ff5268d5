"""One handler per controller command. The docstring of each states its request and reply; the
same text is served by ``help``.

Every request is a msgpack map ``{"cmd": NAME, "id": ANY, ...fields}``; every reply is a map with
the request's ``id`` echoed and either ``{"ok": true, ...}`` or
``{"ok": false, "error": CODE, "message": TEXT}``. Error codes: bad_request, unknown_command,
forbidden, unknown_lease, lease_ended, unknown_ticket, unknown_server, gpu_taken, server_up,
no_capacity, impossible (a request that could never fit this pool, not even empty), busy (too
many requests waiting, or a vGPU already moving), wait_timeout, no_such_gpu, incompatible, reclaimed,
unknown_migration, internal; from a replica of a cluster (daemon.py): not_leader (with ``leader``, the
URL of the one that leads, "" during an election) and unavailable (etcd did not take the change:
nothing was done).

Each command names who may send it (``role``): ``server`` (holders of the cluster credential),
``user`` (any authenticated user, acting on their own leases; an admin on all), ``admin``, or
``any`` authenticated peer. Who sent a request comes from the connection (users.Peer), never from
the request itself.
"""
from __future__ import annotations

import time

from .requests import Request, RequestError
from .service import ApiError, Controller
from .users import Peer
from .waitqueue import Ticket

COMMANDS = {}   # name -> (handler, role)
ROLES = ("any", "server", "user", "admin")


def command(role: str):
    assert role in ROLES

    def register(fn):
        COMMANDS[fn.__name__.removeprefix("cmd_")] = (fn, role)
        return fn
    return register


def allowed(role: str, peer: Peer) -> bool:
    return (role == "any" or (role == "server" and peer.kind == "server")
            or (role == "user" and peer.kind == "user") or (role == "admin" and peer.admin))


def _str(req: dict, name: str, *, required=True, default=""):
    value = req.get(name, default)
    if (required and name not in req) or not isinstance(value, str):
        raise ApiError("bad_request", f"field {name!r} must be a string")
    return value


def _num(req: dict, name: str, default=None, *, lo: float = 0.0):
    value = req.get(name, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < lo:
        raise ApiError("bad_request", f"field {name!r} must be a number >= {lo:g}")
    return value


def _vgpus(ctl: Controller, lease) -> list[dict]:
    """The lease's vGPUs with each server's public key: what a client needs to reach it over CURVE."""
    return [{**v, "server_key": ctl.server_key(v["server"])} for v in lease.vgpus()]


def _lease_reply(ctl: Controller, lease, **extra) -> dict:
    return {"ok": True, "lease": lease.id, "token": lease.token(ctl.secret), "expires": lease.expires,
            "ttl": lease.ttl, "state": lease.state, "vgpus": _vgpus(ctl, lease),
            **({"failover": True} if lease.request.get("failover") else {}), **extra}


@command("any")
def cmd_ping(ctl: Controller, req: dict, peer: Peer) -> dict:
    """ping {} → {ok, now, servers, leases, you: {kind, name, admin}}: liveness check, and who
    the controller takes the caller for."""
    return {"ok": True, "now": time.time(), "servers": len(ctl.pool.servers), "leases": len(ctl.leases),
            "you": {"kind": peer.kind, "name": peer.name, "admin": peer.admin}}


@command("any")
def cmd_help(ctl: Controller, req: dict, peer: Peer) -> dict:
    """help {} → {ok, commands: {name: doc}} (the commands the caller may send)."""
    return {"ok": True, "commands": {name: fn.__doc__ for name, (fn, role) in COMMANDS.items()
                                     if allowed(role, peer)}}


@command("server")
def cmd_register(ctl: Controller, req: dict, peer: Peer) -> dict:
    """register {url, boot_id, backend, gpus: [{uuid, index, name, memory_total, sms,
    compute_capability}]} → {ok, heartbeat_interval, leases: [ids valid on this server]}.
    Joins (or rejoins) the pool; a new boot_id means the server restarted."""
    gpus = req.get("gpus")
    if not isinstance(gpus, list):
        raise ApiError("bad_request", "field 'gpus' must be a list")
    clean = []
    for g in gpus:
        if not (isinstance(g, dict) and isinstance(g.get("uuid"), str) and isinstance(g.get("name"), str)
                and 0 < len(g["uuid"]) <= 128 and len(g["name"]) <= 128
                and _int(g.get("index")) and _int(g.get("memory_total")) and g["memory_total"] > 0
                and _int(g.get("sms", 0)) and isinstance(g.get("compute_capability", ""), str)):
            raise ApiError("bad_request", "each GPU needs uuid (str), index (int), name (str), memory_total "
                                          "(int > 0), and may have sms (int), compute_capability (str)")
        clean.append({"uuid": g["uuid"], "index": g["index"], "name": g["name"],
                      "memory_total": g["memory_total"], "sms": g.get("sms", 0),
                      "compute_capability": g.get("compute_capability", "")[:16]})
    if len({g["uuid"] for g in clean}) != len(clean) or len(clean) > 1024:
        raise ApiError("bad_request", "GPU uuids must be distinct (and at most 1024 GPUs)")
    url = _str(req, "url")
    if len(url) > 256 or not url.startswith(("tcp://", "ipc://")):
        raise ApiError("bad_request", "field 'url' must be a tcp:// or ipc:// URL of at most 256 characters")
    leases = ctl.register(url, clean, _str(req, "backend", required=False)[:32], _str(req, "boot_id")[:64])
    return {"ok": True, "heartbeat_interval": ctl.heartbeat_interval, "leases": leases,
            "placed": ctl.placed_on(url), "revoked": ctl.revoked_on(url), "at": time.time()}


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_NUMBERS = (int, float)
_LEASE_FIELDS = ("device_time_s", "memory_used_bytes", "memory_peak_bytes", "kernels", "calls", "bytes_in",
                 "bytes_out", "sessions")
_VGPU_FIELDS = _LEASE_FIELDS + ("vgpu", "memory_quota_bytes", "compute", "limit", "share_pct")


def _clean_processes(procs) -> list:
    if not isinstance(procs, list):
        return []
    return [{"client": p["client"][:200] if isinstance(p.get("client"), str) else "",
             "memory_used_bytes": p["memory_used_bytes"] if _int(p.get("memory_used_bytes")) else 0}
            for p in procs[:256] if isinstance(p, dict)]


def _clean_vgpus(vgpus) -> list:
    """The per-vGPU accounting of a heartbeat (rgpu smi, /metrics): numbers, a lease id, a GPU uuid,
    the sessions (processes) on it."""
    if not isinstance(vgpus, list) or len(vgpus) > 65536:
        raise ApiError("bad_request", "usage.vgpus must be a list of maps")
    out = []
    for v in vgpus:
        if not (isinstance(v, dict) and isinstance(v.get("lease"), str) and len(v["lease"]) <= 64
                and isinstance(v.get("gpu"), str) and len(v["gpu"]) <= 128):
            raise ApiError("bad_request", "each of usage.vgpus names its lease and gpu (uuid)")
        out.append({"lease": v["lease"], "gpu": v["gpu"], "share_only": v.get("share_only") is True,
                    **{k: v[k] for k in _VGPU_FIELDS if isinstance(v.get(k), _NUMBERS) and not isinstance(v.get(k), bool)},
                    "processes": _clean_processes(v.get("processes"))})
    return out


_MIGRATION_FIELDS = ("state", "message", "sessions", "pause_s", "memory_bytes", "precopy_bytes", "final_bytes",
                     "wire_bytes", "precopy_rounds")


def _clean_usage(usage) -> dict:
    """A heartbeat's usage with every field checked (others see it through ls and leases): numbers
    stay numbers, per-GPU and per-lease entries are maps; anything else is a bad request."""
    if not isinstance(usage, dict):
        raise ApiError("bad_request", "field 'usage' must be a map")
    gpus, leases = usage.get("gpus", []), usage.get("leases", {})
    if not (isinstance(gpus, list) and len(gpus) <= 1024 and all(isinstance(g, dict) for g in gpus)
            and isinstance(leases, dict) and len(leases) <= 65536):
        raise ApiError("bad_request", "usage.gpus must be a list of maps and usage.leases a map")
    clean_leases = {}
    for lease, u in leases.items():
        if not (isinstance(lease, str) and len(lease) <= 64 and isinstance(u, dict)):
            raise ApiError("bad_request", "usage.leases maps lease ids to maps")
        clean_leases[lease] = {k: u[k] for k in _LEASE_FIELDS if isinstance(u.get(k), _NUMBERS)
                               and not isinstance(u.get(k), bool)}
    clean_gpus = [{k: v for k, v in g.items() if isinstance(k, str) and len(k) <= 64
                   and (isinstance(v, _NUMBERS) or (isinstance(v, str) and len(v) <= 256))} for g in gpus]
    migrations = usage.get("migrations", {})
    if not (isinstance(migrations, dict) and len(migrations) <= 4096):
        raise ApiError("bad_request", "usage.migrations must be a map of migration ids to maps")
    clean_migrations = {}
    for mid, m in migrations.items():
        if not (isinstance(mid, str) and len(mid) <= 64 and isinstance(m, dict)):
            raise ApiError("bad_request", "usage.migrations maps migration ids to maps")
        clean_migrations[mid] = {k: v for k, v in m.items() if k in _MIGRATION_FIELDS and (
            (isinstance(v, _NUMBERS) and not isinstance(v, bool)) or (isinstance(v, str) and len(v) <= 500))}
    reclaimed = usage.get("reclaimed", [])
    if not (isinstance(reclaimed, list) and len(reclaimed) <= 65536 and all(
            isinstance(r, list) and len(r) == 4 and isinstance(r[0], str) and len(r[0]) <= 64 and _int(r[1])
            and _int(r[2]) and isinstance(r[3], _NUMBERS) for r in reclaimed)):
        raise ApiError("bad_request", "usage.reclaimed must be a list of [lease, vgpu, restores, restore_s]")
    sessions = usage.get("sessions", 0)
    host = usage.get("hostname")
    return {"sessions": sessions if _int(sessions) else 0, "gpus": clean_gpus, "leases": clean_leases,
            "hostname": host[:253] if isinstance(host, str) else "",
            "vgpus": _clean_vgpus(usage.get("vgpus", [])), "migrations": clean_migrations, "reclaimed": reclaimed}


@command("server")
def cmd_heartbeat(ctl: Controller, req: dict, peer: Peer) -> dict:
    """heartbeat {url, boot_id, usage: {sessions, gpus: [...], leases: {id: {...}}, vgpus: [...], migrations:
    {id: {state, message, pause_s, ...}}, reclaimed: [[lease, vgpu, restores, restore_s]]}} → {ok, leases: [ids
    valid on this server], ended: {id: "expired" | "released"}, revoked: {id: token expiry}, placed: {gpu uuid:
    bytes}, at, orders: [{kind: "migrate", id, lease, vgpu, to, token}]}: ``ended`` names the leases of this
    server that ended lately and how, so that its sessions can tell their programs why they stop; ``revoked``
    the same leases with their tokens' expiry, until which the server refuses them on its own; ``placed`` the
    memory placed on each of its GPUs, which its share-only vGPUs leave to the others. Error unknown_server
    means: register again."""
    usage = _clean_usage(req.get("usage") or {})
    url = _str(req, "url")
    leases = ctl.heartbeat(url, _str(req, "boot_id"), usage)
    return {"ok": True, "leases": leases, "ended": ctl.ended_on(url), "revoked": ctl.revoked_on(url),
            "placed": ctl.placed_on(url), "at": time.time(), "orders": ctl.orders(url)}


@command("admin")
def cmd_forget_server(ctl: Controller, req: dict, peer: Peer) -> dict:
    """forget_server {url} → {ok, released: [lease ids]}: remove a server that is down and its
    GPUs from the pool (its leases are released); its GPUs may then register under another URL."""
    return {"ok": True, "released": ctl.forget_server(_str(req, "url"))}


@command("user")
def cmd_reserve(ctl: Controller, req: dict, peer: Peer) -> dict:
    """reserve {memory | memory_fraction, compute, limit, count, policy, same_node, model,
    exclusive, share_only, failover, kept_while_used, ttl, wait} → {ok, lease, token, expires, ttl,
    state, vgpus: [{server, gpu, index, name, memory, compute, limit, exclusive, server_key}]}; with
    ``wait`` seconds and no room now: {ok, queued: true, ticket, position, message} — then poll the
    ticket. The lease's owner is the caller (an admin may name another: ``owner``). Error
    no_capacity says what is free. ``ticket``: the id of a ticket the request had on a controller
    that has since died or restarted (its poll answered unknown_ticket): the lease placed for it
    there, else queued again under that id. ``kept_while_used``: a program's own lease, renewed
    also by its servers' heartbeats while they hold its sessions (Controller._keep_used)."""
    try:
        request = Request.from_wire(req)
    except RequestError as exc:
        raise ApiError("bad_request", str(exc)) from None
    wait = _num(req, "wait", 0) or 0
    owner = peer.name
    if peer.admin and isinstance(req.get("owner"), str) and 0 < len(req["owner"]) <= 128:
        owner = req["owner"]  # an admin (a device plugin) reserves on behalf of someone it names
    result = ctl.reserve(request, req.get("ttl"), owner, float(wait), who=peer, ticket=req.get("ticket"))
    if isinstance(result, Ticket):
        return {"ok": True, "queued": True, "ticket": result.id,
                "position": ctl.queue.position(result), "message": ctl.pool.explain(request)}
    return _lease_reply(ctl, result)


@command("user")
def cmd_poll(ctl: Controller, req: dict, peer: Peer) -> dict:
    """poll {ticket} → like reserve: the lease once placed, else {ok, queued: true, ticket,
    position, message}; error wait_timeout when the wait ran out."""
    ticket, lease = ctl.poll(_str(req, "ticket"), peer)
    if lease is not None:
        return _lease_reply(ctl, lease)
    return {"ok": True, "queued": True, "ticket": ticket.id, "position": ctl.queue.position(ticket),
            "message": ctl.pool.explain(ticket.request)}


@command("user")
def cmd_cancel(ctl: Controller, req: dict, peer: Peer) -> dict:
    """cancel {ticket} → {ok}: stop waiting (a lease already placed for it is released)."""
    ctl.cancel(_str(req, "ticket"), peer)
    return {"ok": True}


@command("user")
def cmd_renew(ctl: Controller, req: dict, peer: Peer) -> dict:
    """renew {lease, ttl?} → {ok, lease, token, expires, ttl, state, vgpus}: pushes expiry to
    now + ttl (default: the lease's own ttl). Only the lease's owner (or an admin) may."""
    return _lease_reply(ctl, ctl.renew(_str(req, "lease"), req.get("ttl"), peer))


@command("user")
def cmd_release(ctl: Controller, req: dict, peer: Peer) -> dict:
    """release {lease} → {ok, lease}: frees its allocations. Error lease_ended on a second release.
    Only the lease's owner (or an admin) may."""
    return {"ok": True, "lease": ctl.release(_str(req, "lease"), peer).id}


@command("user")
def cmd_lease(ctl: Controller, req: dict, peer: Peer) -> dict:
    """lease {lease} → {ok, lease: {id, state, owner, created, expires, expires_in, ttl, request, vgpus}}
    (the caller's own leases; an admin's: all)."""
    lease = ctl.lookup(_str(req, "lease"), peer)
    return {"ok": True, "lease": {**lease.to_wire(time.time()), "vgpus": _vgpus(ctl, lease)}}


@command("user")
def cmd_migrate(ctl: Controller, req: dict, peer: Peer) -> dict:
    """migrate {lease, vgpu?, to?: URL or URL#GPU} → {ok, migrations: [{id, lease, vgpu, from, to,
    state, ...}]}: move the lease's vGPUs (or the one named) live to ``to``, or to where placement
    puts them; its programs carry on there after a pause. Refused before anything moves when the
    target has no room (no_capacity) or is of another kind (incompatible). The lease's owner or an
    admin may."""
    vgpu = req.get("vgpu")
    if vgpu is not None and not _int(vgpu):
        raise ApiError("bad_request", "field 'vgpu' must be an integer")
    to = _str(req, "to", required=False, default=None) if req.get("to") is not None else None
    moves = ctl.migrate(_str(req, "lease"), vgpu, to or None, peer)
    return {"ok": True, "migrations": [m.to_wire() for m in moves]}


@command("user")
def cmd_failover(ctl: Controller, req: dict, peer: Peer) -> dict:
    """failover {lease, vgpu, lost?, avoid?} → {ok, lease, token, expires, ttl, state, vgpus}: the program
    of a lease reserved with ``--failover`` lost the server of vGPU ``vgpu`` (``lost``, its URL); the vGPU
    is placed at once on another server (no_capacity when none has room), unless it has left ``lost``
    already (another of the lease's processes failed over first), and the reply is the lease as it is
    now, where the program reopens its session and restores its checkpoint. ``avoid``: the URLs of the
    servers the program lost earlier in the same recovery (the one it was placed on died too before the
    session was resumed there), which the pool may not have noticed yet and which are not chosen again.
    The lease's owner or an admin may."""
    vgpu = req.get("vgpu")
    if not _int(vgpu):
        raise ApiError("bad_request", "field 'vgpu' must be an integer")
    lost = _str(req, "lost", required=False, default=None) if req.get("lost") is not None else None
    avoid = req.get("avoid", [])
    if not isinstance(avoid, list) or len(avoid) > 64 or not all(isinstance(u, str) for u in avoid):
        raise ApiError("bad_request", "field 'avoid' must be a list of at most 64 server URLs")
    lease = ctl.fail_over(_str(req, "lease"), vgpu, peer, lost, set(avoid))
    return _lease_reply(ctl, lease)


@command("user")
def cmd_migration(ctl: Controller, req: dict, peer: Peer) -> dict:
    """migration {migration: ID} → {ok, migration: {id, lease, vgpu, from, to, state, message, reason, created,
    ended, pause_s, memory_bytes, precopy_bytes, final_bytes, wire_bytes, sessions}}: its progress
    (pending, done, failed) as the source server last reported it."""
    return {"ok": True, "migration": ctl.migration(_str(req, "migration"), peer).to_wire()}


@command("admin")
def cmd_drain(ctl: Controller, req: dict, peer: Peer) -> dict:
    """drain {url, undo?} → {ok, migrations: [...]}: the server takes no new vGPUs and every vGPU on
    it is moved live elsewhere (those that fit nowhere now are tried again while it drains);
    ``undo``: it takes vGPUs again."""
    return {"ok": True, "migrations": [m.to_wire() for m in ctl.drain(_str(req, "url"), not req.get("undo"))]}


@command("admin")
def cmd_defrag(ctl: Controller, req: dict, peer: Peer) -> dict:
    """defrag {dry_run?, max_moves?} → {ok, moves: [{lease, vgpu, from, to, migration?}]}: move vGPUs
    off the least used GPUs onto fuller ones where that empties a GPU entirely."""
    max_moves = _num(req, "max_moves", 16, lo=1)
    return {"ok": True, "moves": ctl.defrag(bool(req.get("dry_run")), int(max_moves))}


_ZERO_USAGE = {"device_time_s": 0.0, "memory_used_bytes": 0, "memory_peak_bytes": 0, "kernels": 0, "calls": 0,
               "bytes_in": 0, "bytes_out": 0, "sessions": 0}


def _lease_usage(ctl: Controller) -> dict[str, dict]:
    """Per-lease accounting summed over the servers' latest heartbeats (servers keep a lease's
    totals after its sessions end, until the lease is gone)."""
    out: dict[str, dict] = {}
    for server in ctl.pool.servers.values():
        for lease_id, u in ((server.usage or {}).get("leases") or {}).items():
            if not isinstance(u, dict):
                continue
            acc = out.setdefault(lease_id, dict(_ZERO_USAGE))
            for key in acc:
                value = u.get(key, 0)
                if isinstance(value, (int, float)):
                    acc[key] += value
    return out


@command("user")
def cmd_leases(ctl: Controller, req: dict, peer: Peer) -> dict:
    """leases {ended?: seconds} → {ok, leases: [{id, state, owner, created, expires, expires_in, ttl,
    request, vgpus, device_time_s, memory_used_bytes, memory_peak_bytes, kernels, calls, bytes_in,
    bytes_out, sessions}], ended: [{id, state, owner, created, ended, request}]} (the caller's live
    leases, an admin's: all; oldest first; the accounting is as of the servers' last heartbeats).
    With ``ended``: also the leases that ended (state expired or released) in the last that many
    seconds, newest first."""
    now = time.time()
    usage = _lease_usage(ctl)
    reply = {"ok": True, "leases": [{**lease.to_wire(now), "vgpus": _vgpus(ctl, lease),
                                     **usage.get(lease.id, _ZERO_USAGE)} for lease in ctl.visible(peer)]}
    since = _num(req, "ended")
    if since is not None:
        reply["ended"] = ctl.ended_leases(now - since, peer)
    return reply


def _usage_seen_by(usage: dict, mine: set[str] | None) -> dict:
    """A server's usage as a user sees it: the accounting of their own leases only."""
    if mine is None:
        return usage
    return {**usage, "leases": {k: v for k, v in (usage.get("leases") or {}).items() if k in mine},
            "vgpus": [v for v in usage.get("vgpus") or [] if v.get("lease") in mine]}


@command("user")
def cmd_ls(ctl: Controller, req: dict, peer: Peer) -> dict:
    """ls {} → {ok, servers: [{url, state, backend, last_seen, usage, gpus: [{uuid, index, name,
    memory_total, memory_free, memory_used, compute_free, compute_used, sms,
    compute_capability, exclusive, tenants: [{lease, owner, memory, compute, limit}]}]}],
    queued}. Tenants other than the caller's own leases show neither lease nor owner (an admin
    sees all)."""
    mine = None if peer.admin else {lease.id for lease in ctl.visible(peer)}
    tenants: dict[str, list] = {}
    for lease in ctl.leases:
        shown = mine is None or lease.id in mine
        for s in lease.slots:
            tenants.setdefault(s.gpu.uuid, []).append(
                {"lease": lease.id if shown else "", "owner": lease.owner if shown else "",
                 "memory": s.memory, "compute": s.compute, "limit": s.limit, "share_only": lease.share_only})
    servers = []
    for server in sorted(ctl.pool.servers.values(), key=lambda s: s.url):
        servers.append({
            "url": server.url, "state": server.state, "backend": server.backend, "draining": server.draining,
            "last_seen": server.last_seen, "usage": _usage_seen_by(server.usage, mine),
            "gpus": [{"uuid": g.uuid, "index": g.index, "name": g.name,
                      "memory_total": g.memory_total, "memory_free": g.memory_free,
                      "memory_used": g.memory_used, "compute_free": g.compute_free,
                      "compute_used": g.compute_used, "sms": g.sms,
                      "compute_capability": g.compute_capability, "exclusive": g.exclusive,
                      "tenants": tenants.get(g.uuid, [])}
                     for g in server.gpus if g.present]})
    return {"ok": True, "servers": servers, "queued": len(ctl.queue)}


def handle(ctl: Controller, req, peer: Peer) -> dict:
    """Dispatch one decoded request from ``peer``; never raises for a bad request (internal errors
    do raise)."""
    if not isinstance(req, dict):
        return {"ok": False, "error": "bad_request", "message": "a request must be a msgpack map with 'cmd'"}
    name = req.get("cmd")
    found = COMMANDS.get(name) if isinstance(name, str) else None
    if found is None:
        return {"ok": False, "error": "unknown_command",
                "message": f"unknown command {str(name)[:40]!r}; commands: {', '.join(sorted(COMMANDS))}"}
    fn, role = found
    if not allowed(role, peer):
        who = "servers" if role == "server" else "admins" if role == "admin" else "users"
        return {"ok": False, "error": "forbidden",
                "message": f"{name} is for {who}; this connection is {peer.kind} {peer.name}"}
    try:
        return fn(ctl, req, peer)
    except ApiError as exc:
        return {"ok": False, "error": exc.code, "message": exc.message}
