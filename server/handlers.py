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
    """ping {} -> {ok, now, device}: liveness, and the backend (sim, cuda), which any client may
    know (rgpu run tells a program on the software GPU to ask for PTX)."""
    return {"ok": True, "now": time.time(), "device": sup.conf["device"]}


@op
def op_help(sup, req: dict, peer: Peer) -> dict:
    """help {} -> {ok, ops: {name: doc}}."""
    return {"ok": True, "ops": {name: fn.__doc__ for name, fn in OPS.items()}}


@op
def op_hello(sup, req: dict, peer: Peer) -> dict:
    """hello {proto, client, cuda, lease, gpu, vgpu?, window?} -> {ok, endpoint, session, key}: a
    session worker for GPU ``gpu``; in a pool the lease token must hold a live vGPU on that GPU
    (``vgpu``, the program's device index, picks which of the lease's vGPUs when several share it),
    else {ok: false, error: "lease", reason, message}. The worker admits only this connection's key.
    ``window``: the address window the program wants this device's memory in (the software GPU's;
    a real GPU's driver places memory itself). The program's client picks a distinct one for each
    of its devices, so that under unified addressing no two of them hand out the same pointer, which
    the servers, each knowing only its own sessions, cannot promise."""
    proto = req.get("proto")
    if proto != wire.PROTOCOL_VERSION:
        raise Refused("protocol", f"client speaks protocol {str(proto)[:20]}, this server speaks "
                                  f"{wire.PROTOCOL_VERSION}: use matching rgpu versions")
    gpu = _field(req, "gpu", (int,), 0, "a GPU index (integer)")
    client = _field(req, "client", (str,), "?", "a string")[:200]
    lease = _field(req, "lease", (str, type(None)), None, "a lease token (string)")
    vgpu = _field(req, "vgpu", (int, type(None)), None, "the program's device index (integer)")
    window = _field(req, "window", (int, type(None)), None, "an address window (integer)")
    if window is not None and window < 0:
        raise Refused("bad_request", f"field 'window' must be a window number (0 or more), not {window}")
    return sup.open_session(gpu, client, lease, peer, vgpu, req.get("id"), window)


@op
def op_incoming(sup, req: dict, peer: Peer) -> dict:
    """incoming {proto, gpu, vgpu?, lease?, client, source_key, client_key?, backend, arch, window,
    memory} -> {ok, endpoint, session, key}: a worker for a session migrating here, which the source
    worker then fills (server/migration); in a pool only holders of the cluster credential may ask,
    with a lease token holding a vGPU on GPU ``gpu``. Refused (before the source stops) when the
    backend differs or the GPU has no room."""
    if req.get("proto") != wire.PROTOCOL_VERSION:
        raise Refused("protocol", f"the source speaks protocol {str(req.get('proto'))[:20]}, this server "
                                  f"{wire.PROTOCOL_VERSION}: migrate between servers of one rgpu version")
    _field(req, "gpu", (int,), 0, "a GPU index (integer)")
    _field(req, "vgpu", (int, type(None)), None, "the program's device index (integer)")
    _field(req, "lease", (str, type(None)), None, "a lease token (string)")
    _field(req, "source_key", (str,), "", "the source's public key (Z85 string)")
    _field(req, "client_key", (str, type(None)), None, "the client's public key (Z85 string)")
    _field(req, "window", (int, type(None)), None, "an address window (integer)")
    return sup.accept_incoming(req, peer, req.get("id"))


@op
def op_migrate(sup, req: dict, peer: Peer) -> dict:
    """migrate {to: URL[@KEY]#GPU, session? | lease (+ vgpu?), token?} -> {ok, migration: {id, to,
    lease, sessions: {session: {state, message, pause_s, ...}}, state, message}}: move a session (or
    every session of a lease's vGPU) to another GPU of this server or another server while its
    program runs; ``stats`` shows how it went. On a CURVE wire for holders of the cluster credential
    (the controller orders migrations of leases through heartbeats)."""
    if (sup.curve or sup.gate.enabled) and not peer.cluster:
        raise Refused("forbidden", "migrate moves any tenant's session: ask with the cluster credential")
    to = _field(req, "to", (str,), "", "the target URL (URL[@KEY]#GPU)")
    if not to.startswith(("tcp://", "ipc://")):
        raise Refused("bad_request", "field 'to' must be a tcp:// or ipc:// URL, with #GPU")
    session = _field(req, "session", (str, type(None)), None, "a session id (string)")
    lease = _field(req, "lease", (str, type(None)), None, "a lease id (string)")
    if not session and not lease:
        raise Refused("bad_request", "name a session or a lease to migrate")
    return {"ok": True, "migration": sup.migrate(to, session=session, lease=lease,
                                                  vgpu=_field(req, "vgpu", (int, type(None)), None, "an integer"),
                                                  token=_field(req, "token", (str, type(None)), None, "a string"))}


@op
def op_stats(sup, req: dict, peer: Peer) -> dict:
    """stats -> {ok, device, pool: {controller, view_at, leases} | null,
    gpus: [{index, uuid, name, memory_total, memory_used, sessions, device_time_s, utilization_pct}],
    sessions: [{session, gpu, client, pid, lease, memory_quota, memory_used, stopping, ...}],
    leases: {lease: accounting}, vgpus: [{lease, vgpu, gpu, index, name, memory_quota_bytes,
    memory_used_bytes, compute, limit, share_only, share_pct, device_time_s, calls, ..., processes:
    [{session, client, pid, memory_used_bytes}]}]} (on a CURVE wire: for holders of the cluster
    credential)"""
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
