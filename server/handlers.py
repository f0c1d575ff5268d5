"""One handler per supervisor request, as the controller's (controller/handlers.py). The docstring
of each states its request and reply; ``help`` serves them.

Every request is a msgpack map ``{"op": NAME, "id": ANY, ...fields}``; every reply is a map with
the request's ``id`` echoed (when it had one) and either ``{"ok": true, ...}`` or
``{"ok": false, "error": CODE, "message": TEXT}`` (plus fields the code defines, such as ``reason``
for ``lease``). Error codes: bad_request, unknown_op, forbidden, protocol, no_such_gpu, lease, busy,
worker.

Each handler also gets the ``Peer`` the request came from: its CURVE public key (when the wire is
CURVE) and its address, as the connection proved them — the session a hello opens is bound to that
key (or, on a plain wire, that address). ``stats`` lists every tenant's sessions, so on a CURVE wire
only holders of the cluster credential may ask for it."""
from __future__ import annotations

import time
from typing import NamedTuple

from rgpu.protocol import wire

OPS = {}
DEFERRED = object()  # a handler's result when the reply comes later (a hello waiting for a worker)


class Peer(NamedTuple):
    key: bytes | None = None   # the client's CURVE public key (Z85); None on a plain wire
    address: str = ""          # as ZeroMQ reports it: the IP for tcp://, uid:gid:pid for ipc://
    cluster: bool = False      # presented the cluster's server key (holds the cluster secret)
    ident: bytes = b""         # the ROUTER's routing id of the connection: where a later reply goes


class Refused(Exception):
    """An error reply: ``code`` for programs, the message for people, ``extra`` fields as they are."""

    def __init__(self, code: str, message: str, **extra):
        super().__init__(message)
        self.code, self.message, self.extra = code, message, extra


def op(fn):
    OPS[fn.__name__.removeprefix("op_")] = fn
    return fn


def _field(req: dict, name: str, kinds, default=None, what: str = ""):
    value = req.get(name, default)
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        raise Refused("bad_request", f"field {name!r} must be {what}, not {type(value).__name__}")
    return value


@op
def op_ping(sup, req: dict, peer: Peer) -> dict:
    """ping {} -> {ok, now}: liveness."""
    return {"ok": True, "now": time.time()}


@op
def op_help(sup, req: dict, peer: Peer) -> dict:
    """help {} -> {ok, ops: {name: doc}}."""
    return {"ok": True, "ops": {name: fn.__doc__ for name, fn in OPS.items()}}


@op
def op_hello(sup, req: dict, peer: Peer) -> dict:
    """hello {proto, client, cuda, lease, gpu, vgpu?} -> {ok, endpoint, session, key}: a session
    worker for GPU ``gpu``; in a pool the lease token must hold a live vGPU on that GPU (``vgpu``, the
    program's device index, picks which of the lease's vGPUs when several share it), else
    {ok: false, error: "lease", reason, message}. The worker admits only this connection's key."""
    proto = req.get("proto")
    if proto != wire.PROTOCOL_VERSION:
        raise Refused("protocol", f"client speaks protocol {str(proto)[:20]}, this server speaks "
                                  f"{wire.PROTOCOL_VERSION}: use matching rgpu versions")
    gpu = _field(req, "gpu", (int,), 0, "a GPU index (integer)")
    client = _field(req, "client", (str,), "?", "a string")[:200]
    lease = _field(req, "lease", (str, type(None)), None, "a lease token (string)")
    vgpu = _field(req, "vgpu", (int, type(None)), None, "the program's device index (integer)")
    return sup.open_session(gpu, client, lease, peer, vgpu, req.get("id"))


@op
def op_stats(sup, req: dict, peer: Peer) -> dict:
    """stats -> {ok, device, pool: {controller, view_at, leases} | null,
    gpus: [{index, uuid, name, memory_total, memory_used, sessions}],
    sessions: [{session, gpu, client, pid, lease, memory_quota, memory_used, stopping, ...}],
    leases: {lease: accounting}} (on a CURVE wire: for holders of the cluster credential)"""
    if sup.curve and not peer.cluster:
        raise Refused("forbidden", "stats lists every tenant's sessions: ask with the cluster credential")
    return sup.stats()


def handle(sup, req, peer: Peer = Peer()) -> dict | None:
    """Dispatch one decoded request; None when the reply comes later (to ``peer.ident``). Never
    raises for a bad request (a crash in a handler does)."""
    if not isinstance(req, dict):
        return {"ok": False, "error": "bad_request", "message": "a request must be a msgpack map with 'op'"}
    name = req.get("op")
    fn = OPS.get(name) if isinstance(name, str) else None
    if fn is None:
        reply = {"ok": False, "error": "unknown_op",
                 "message": f"unknown op {str(name)[:40]!r}; ops: {', '.join(sorted(OPS))}"}
    else:
        try:
            reply = fn(sup, req, peer)
            if reply is DEFERRED:
                return None
        except Refused as e:
            reply = {"ok": False, "error": e.code, "message": e.message, **e.extra}
    if "id" in req:
        reply["id"] = req["id"]
    return reply
