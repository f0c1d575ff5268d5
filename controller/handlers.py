"""One handler per controller command. The docstring of each states its request and reply; the
same text is served by ``help``.

Every request is a msgpack map ``{"cmd": NAME, "id": ANY, ...fields}``; every reply is a map with
the request's ``id`` echoed and either ``{"ok": true, ...}`` or
``{"ok": false, "error": CODE, "message": TEXT}``. Error codes: bad_request, unknown_command,
unknown_lease, lease_ended, unknown_ticket, unknown_server, no_capacity, wait_timeout, internal.
"""
from __future__ import annotations

import time

from .requests import Request, RequestError
from .service import ApiError, Controller
from .waitqueue import Ticket

COMMANDS = {}


def command(fn):
    COMMANDS[fn.__name__.removeprefix("cmd_")] = fn
    return fn


def _str(req: dict, name: str, *, required=True, default=""):
    value = req.get(name, default)
    if (required and name not in req) or not isinstance(value, str):
        raise ApiError("bad_request", f"field {name!r} must be a string")
    return value


def _lease_reply(ctl: Controller, lease, **extra) -> dict:
    return {"ok": True, "lease": lease.id, "token": lease.token(ctl.secret), "expires": lease.expires,
            "ttl": lease.ttl, "state": lease.state, "vgpus": lease.vgpus(), **extra}


@command
def cmd_ping(ctl: Controller, req: dict) -> dict:
    """ping {} → {ok, now, servers, leases}: liveness check."""
    return {"ok": True, "now": time.time(), "servers": len(ctl.pool.servers), "leases": len(ctl.leases)}


@command
def cmd_help(ctl: Controller, req: dict) -> dict:
    """help {} → {ok, commands: {name: doc}}."""
    return {"ok": True, "commands": {name: fn.__doc__ for name, fn in COMMANDS.items()}}


@command
def cmd_register(ctl: Controller, req: dict) -> dict:
    """register {url, boot_id, backend, gpus: [{uuid, index, name, memory_total, sms,
    compute_capability}]} → {ok, heartbeat_interval, leases: [ids valid on this server]}.
    Joins (or rejoins) the pool; a new boot_id means the server restarted."""
    gpus = req.get("gpus")
    if not isinstance(gpus, list):
        raise ApiError("bad_request", "field 'gpus' must be a list")
    clean = []
    for g in gpus:
        if not (isinstance(g, dict) and isinstance(g.get("uuid"), str) and isinstance(g.get("name"), str)
                and isinstance(g.get("index"), int) and isinstance(g.get("memory_total"), int)
                and g["memory_total"] > 0):
            raise ApiError("bad_request", "each GPU needs uuid (str), index (int), name (str), memory_total (int > 0)")
        clean.append({"uuid": g["uuid"], "index": g["index"], "name": g["name"],
                      "memory_total": g["memory_total"], "sms": int(g.get("sms") or 0),
                      "compute_capability": str(g.get("compute_capability") or "")})
    leases = ctl.register(_str(req, "url"), clean, _str(req, "backend", required=False),
                          _str(req, "boot_id"))
    return {"ok": True, "heartbeat_interval": ctl.heartbeat_interval, "leases": leases,
            "at": time.time()}


@command
def cmd_heartbeat(ctl: Controller, req: dict) -> dict:
    """heartbeat {url, boot_id, usage: {...}} → {ok, leases: [ids valid on this server], at}.
    Error unknown_server means: register again."""
    usage = req.get("usage") or {}
    if not isinstance(usage, dict):
        raise ApiError("bad_request", "field 'usage' must be a map")
    leases = ctl.heartbeat(_str(req, "url"), _str(req, "boot_id"), usage)
    return {"ok": True, "leases": leases, "at": time.time()}


@command
def cmd_reserve(ctl: Controller, req: dict) -> dict:
    """reserve {memory | memory_fraction, compute, limit, count, policy, same_node, model,
    exclusive, ttl, owner, wait} → {ok, lease, token, expires, ttl, state, vgpus: [{server, gpu,
    index, name, memory, compute, limit, exclusive}]}; with ``wait`` seconds and no room now:
    {ok, queued: true, ticket, position, message} — then poll the ticket.
    Error no_capacity says what is free."""
    try:
        request = Request.from_wire(req)
    except RequestError as exc:
        raise ApiError("bad_request", str(exc)) from None
    wait = req.get("wait") or 0
    if isinstance(wait, bool) or not isinstance(wait, (int, float)) or wait < 0:
        raise ApiError("bad_request", "field 'wait' must be seconds >= 0")
    result = ctl.reserve(request, req.get("ttl"), _str(req, "owner", required=False), float(wait))
    if isinstance(result, Ticket):
        return {"ok": True, "queued": True, "ticket": result.id,
                "position": ctl.queue.position(result), "message": ctl.pool.explain(request)}
    return _lease_reply(ctl, result)


@command
def cmd_poll(ctl: Controller, req: dict) -> dict:
    """poll {ticket} → like reserve: the lease once placed, else {ok, queued: true, ticket,
    position, message}; error wait_timeout when the wait ran out."""
    ticket, lease = ctl.poll(_str(req, "ticket"))
    if lease is not None:
        return _lease_reply(ctl, lease)
    return {"ok": True, "queued": True, "ticket": ticket.id, "position": ctl.queue.position(ticket),
            "message": ctl.pool.explain(ticket.request)}


@command
def cmd_cancel(ctl: Controller, req: dict) -> dict:
    """cancel {ticket} → {ok}: stop waiting (a lease already placed for it is released)."""
    ctl.cancel(_str(req, "ticket"))
    return {"ok": True}


@command
def cmd_renew(ctl: Controller, req: dict) -> dict:
    """renew {lease, ttl?} → {ok, lease, token, expires, ttl, state, vgpus}: pushes expiry to
    now + ttl (default: the lease's own ttl)."""
    return _lease_reply(ctl, ctl.renew(_str(req, "lease"), req.get("ttl")))


@command
def cmd_release(ctl: Controller, req: dict) -> dict:
    """release {lease} → {ok, lease}: frees its allocations. Error lease_ended on a second release."""
    return {"ok": True, "lease": ctl.release(_str(req, "lease")).id}


@command
def cmd_lease(ctl: Controller, req: dict) -> dict:
    """lease {lease} → {ok, lease: {id, state, owner, created, expires, expires_in, ttl, request, vgpus}}."""
    return {"ok": True, "lease": ctl.lookup(_str(req, "lease")).to_wire(time.time())}


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


@command
def cmd_leases(ctl: Controller, req: dict) -> dict:
    """leases {} → {ok, leases: [{id, state, owner, created, expires, expires_in, ttl, request,
    vgpus, device_time_s, memory_used_bytes, memory_peak_bytes, kernels, calls, bytes_in, bytes_out,
    sessions}]} (live leases,
    oldest first; the accounting is as of the servers' last heartbeats)."""
    now = time.time()
    usage = _lease_usage(ctl)
    return {"ok": True, "leases": [{**lease.to_wire(now), **usage.get(lease.id, _ZERO_USAGE)} for lease in
                                   sorted(ctl.leases, key=lambda x: x.created)]}


@command
def cmd_ls(ctl: Controller, req: dict) -> dict:
    """ls {} → {ok, servers: [{url, state, backend, last_seen, usage, gpus: [{uuid, index, name,
    memory_total, memory_free, memory_used, compute_free, compute_used, sms,
    compute_capability, exclusive, tenants: [{lease, owner, memory, compute, limit}]}]}],
    queued}."""
    tenants: dict[str, list] = {}
    for lease in ctl.leases:
        for s in lease.slots:
            tenants.setdefault(s.gpu.uuid, []).append(
                {"lease": lease.id, "owner": lease.owner, "memory": s.memory, "compute": s.compute,
                 "limit": s.limit})
    servers = []
    for server in sorted(ctl.pool.servers.values(), key=lambda s: s.url):
        servers.append({
            "url": server.url, "state": server.state, "backend": server.backend,
            "last_seen": server.last_seen, "usage": server.usage,
            "gpus": [{"uuid": g.uuid, "index": g.index, "name": g.name,
                      "memory_total": g.memory_total, "memory_free": g.memory_free,
                      "memory_used": g.memory_used, "compute_free": g.compute_free,
                      "compute_used": g.compute_used, "sms": g.sms,
                      "compute_capability": g.compute_capability, "exclusive": g.exclusive,
                      "tenants": tenants.get(g.uuid, [])}
                     for g in server.gpus if g.present]})
    return {"ok": True, "servers": servers, "queued": len(ctl.queue)}


def handle(ctl: Controller, req) -> dict:
    """Dispatch one decoded request; never raises for a bad request (internal errors do raise)."""
    if not isinstance(req, dict):
        return {"ok": False, "error": "bad_request", "message": "a request must be a msgpack map with 'cmd'"}
    name = req.get("cmd")
    fn = COMMANDS.get(name) if isinstance(name, str) else None
    if fn is None:
        return {"ok": False, "error": "unknown_command",
                "message": f"unknown command {name!r}; commands: {', '.join(sorted(COMMANDS))}"}
    try:
        return fn(ctl, req)
    except ApiError as exc:
        return {"ok": False, "error": exc.code, "message": exc.message}
