"""Fuzz both daemons and a session worker over every message kind, with a bounded count and time
(RGPU_FUZZ_COUNT messages per target, default 400; RGPU_FUZZ_SECONDS each, default 40; the seed
is printed, RGPU_FUZZ_SEED replays a run). Every reply must be well formed — a map with ``ok`` and,
on refusal, a known error code, never a crash report — and each daemon must go on serving."""
from __future__ import annotations

import os
import random
import time

import msgpack
import pytest
import zmq

from rgpu.controller.handlers import COMMANDS
from rgpu.protocol import curve, wire
from rgpu.protocol.generated.calltable import CALLS
from rgpu.server.handlers import OPS
from tests.component.controller.controller_fixtures import GiB, fake_gpus
from tests.security.test_server_wire import _token, _uuid
from tests.support.controller import CONTROLLER_KEY, server_credential
from tests.support.session import Session, connect

COUNT = int(os.environ.get("RGPU_FUZZ_COUNT", "400"))
SECONDS = float(os.environ.get("RGPU_FUZZ_SECONDS", "40"))
CONTROLLER_ERRORS = {"bad_request", "unknown_command", "forbidden", "unknown_lease", "lease_ended",
                     "unknown_ticket", "unknown_server", "gpu_taken", "server_up", "no_capacity", "wait_timeout",
                     "busy", "impossible"}  # impossible: a request no empty pool could place (issue 17)
SERVER_ERRORS = {"bad_request", "unknown_op", "forbidden", "protocol", "no_such_gpu", "lease", "busy", "worker"}
FIELDS = ("url", "boot_id", "backend", "gpus", "usage", "memory", "memory_fraction", "compute", "limit", "count",
          "policy", "same_node", "model", "exclusive", "kept_while_used", "ttl", "wait", "ticket", "lease", "id",
          "proto", "client", "cuda", "gpu", "vgpu", "op", "cmd")


@pytest.fixture(scope="module")
def rng():
    seed = int(os.environ.get("RGPU_FUZZ_SEED") or random.randrange(1 << 32))
    print(f"fuzz seed {seed} (RGPU_FUZZ_SEED={seed} replays it)")
    return random.Random(seed)


def junk(rng: random.Random, depth: int = 0):
    """A msgpack value of any kind, biased to the edges: huge and negative ints, odd floats, empty
    and long strings, bytes, nesting."""
    kind = rng.randrange(12 if depth < 2 else 8)
    return [lambda: rng.choice([0, 1, -1, 2**63 - 1, -2**63, 2**64 - 1, 4096, 1 << 40]),
            lambda: rng.randrange(-1000, 100000),
            lambda: rng.choice([0.0, -1.5, 1e308, float("inf"), float("nan"), 0.5]),
            lambda: rng.choice(["", "x", "tcp://a:1", "l-0000000000", "GPU-1", "\u2603" * 3, "a" * 5000]),
            lambda: rng.randbytes(rng.choice([0, 1, 16, 64, 4096])),
            lambda: rng.choice([True, False, None]),
            lambda: rng.choice(["binpack", "spread", "hello", "stats", "ping"]),
            lambda: rng.choice(["rgpu1.e30.AAAA", "rgpu1.x.y", "not-a-token"]),
            lambda: [junk(rng, depth + 1) for _ in range(rng.randrange(4))],
            lambda: {rng.choice(FIELDS): junk(rng, depth + 1) for _ in range(rng.randrange(4))},
            lambda: {rng.randrange(5): junk(rng, depth + 1)},
            lambda: fake_gpus(rng.randrange(3), f"F{rng.randrange(5)}")][kind]()


def _args(rng: random.Random, call_id: int, ptr: int) -> list:
    """Arguments for a call: mostly of its arity and near-plausible (so handlers run deep), with
    wrong kinds mixed in; sometimes anything at all."""
    call = CALLS.get(call_id)
    params = [p for p in call.params if not p[1].startswith("o")] if call is not None else []
    arity = len(params) if params and rng.random() < 0.7 else rng.randrange(12)
    plausible = [ptr, ptr + 64, 0, 1, 4096, 1 << 20, 3, 0x1000]
    return [rng.choice(plausible) if rng.random() < 0.7 else junk(rng) for _ in range(arity)]


def _within_budget(start: float) -> bool:
    return time.monotonic() - start < SECONDS


def test_fuzz_the_controller(controller, rng):
    with controller.fleet() as fleet:
        fleet.register("tcp://gpu1:7000", "b1", "sim", fake_gpus(2, "A", memory=4 * GiB))
    socks = []
    for keys in (controller.admin().keys, server_credential().keys):
        s = zmq.Context.instance().socket(zmq.DEALER)
        s.setsockopt(zmq.LINGER, 0)
        curve.as_client(s, keys, CONTROLLER_KEY)
        s.connect(controller.url)
        socks.append(s)
    commands = sorted(COMMANDS) + ["nope"]
    start, sent = time.monotonic(), 0
    try:
        while sent < COUNT and _within_budget(start):
            cmd = commands[sent % len(commands)]
            req = {"cmd": cmd, **{rng.choice(FIELDS): junk(rng) for _ in range(rng.randrange(6))}}
            req["cmd"] = cmd
            if cmd == "forget_server" and req.get("url") == "tcp://gpu1:7000":
                req["url"] = "tcp://elsewhere:1"
            sock = socks[rng.randrange(2)]
            sock.send(msgpack.packb(req, use_bin_type=True))
            assert sock.poll(10000), f"no reply to {str(req)[:300]}"
            reply = msgpack.unpackb(sock.recv(), raw=False)
            sent += 1
            assert isinstance(reply, dict) and isinstance(reply.get("ok"), bool), reply
            if not reply["ok"]:
                assert reply.get("error") in CONTROLLER_ERRORS, (str(req)[:300], reply)
    finally:
        for s in socks:
            s.close(0)
    assert controller.handle.alive() and sent >= min(COUNT, 50)
    with controller.client() as admin:
        assert admin.ping()["ok"] and admin.ls()["ok"] and isinstance(admin.leases(), list)


def test_fuzz_the_supervisor(secret_server, rng):
    plain_url, url, handle = secret_server()
    token = _token(plain_url, _uuid(url))
    ops = sorted(OPS) + ["nope"]
    sock = connect(url)
    start, sent = time.monotonic(), 0
    try:
        while sent < COUNT and _within_budget(start):
            op = ops[sent % len(ops)]
            req = {"op": op, **{rng.choice(FIELDS): junk(rng) for _ in range(rng.randrange(5))}}
            req["op"] = op
            if op == "hello" and rng.random() < 0.3:
                req.update(proto=wire.PROTOCOL_VERSION, lease=token)
            sock.send(wire.pack(req))
            assert sock.poll(35000), f"no reply to {str(req)[:300]}"
            reply = wire.unpack(sock.recv())
            sent += 1
            assert isinstance(reply, dict) and isinstance(reply.get("ok"), bool), reply
            if not reply["ok"]:
                assert reply.get("error") in SERVER_ERRORS, (str(req)[:300], reply)
        for junk_frames in ([b"\xc1"], [b"a", b"b"], [msgpack.packb([1, 2])]):
            sock.send_multipart(junk_frames)
            assert sock.poll(5000) and wire.unpack(sock.recv())["ok"] is False
    finally:
        sock.close(0)
    assert handle.alive() and sent >= min(COUNT, 50)


def test_fuzz_a_session_worker(secret_server, rng):
    plain_url, url, handle = secret_server()
    session = Session(url, lease=_token(plain_url, _uuid(url)))
    rc, (ptr,), _, _ = session.call("cudaMalloc", 1 << 20)
    assert rc == 0
    ids = sorted(CALLS)
    start, sent, internal = time.monotonic(), 0, []
    while sent < COUNT and _within_budget(start):
        call_id = ids[sent % len(ids)] if rng.random() < 0.95 else rng.randrange(1 << 32)
        args = _args(rng, call_id, ptr)
        bulk = [rng.randbytes(rng.choice([0, 8, 4096])) for _ in range(rng.randrange(3))]
        if call_id in CALLS and CALLS[call_id].name in ("cudaDeviceReset", "cuCtxDestroy_v2",
                                                        "cuDevicePrimaryCtxReset_v2"):
            continue
        pick = rng.random()
        if pick < 0.05:  # a piece of a copy (server/pieces.py): unanswered, the next call answers for it
            session.raw_call(call_id, args, bulk, sync=False, field=wire.PIECE_IN)
            sent += 1
            continue
        reply = session.raw_call(call_id, args, bulk, field=wire.SYNC_PIECES_OUT if pick < 0.1 else None)
        sent += 1
        rc, outs, frames, message = reply
        assert isinstance(rc, int) and isinstance(outs, list) and isinstance(message, str), reply
        if "internal error" in message:
            internal.append((CALLS[call_id].name if call_id in CALLS else call_id, message[:200]))
    # the worker still answers (whatever the fuzzer did to its session: freed its memory, made a
    # fault sticky), and the server still opens sessions that work
    assert isinstance(session.call("cudaDeviceSynchronize")[0], int)
    session.close()
    fresh = Session(url, lease=_token(plain_url, _uuid(url)))
    rc, (ptr,), _, _ = fresh.call("cudaMalloc", 4096)
    assert rc == 0 and fresh.call("cudaMemcpy", ptr, 0, 4, 1, bulk=[b"good"])[0] == 0
    rc, _, back, _ = fresh.call("cudaMemcpy", 0, ptr, 4, 2)
    assert (rc, b"".join(back)) == (0, b"good")
    fresh.close()
    assert handle.alive() and sent >= min(COUNT, 50)
    assert not internal, f"{len(internal)} calls answered 'internal error' to wrongly typed arguments: {internal[:10]}"


# -- per message kind: nesting, sizes and counts (issue 39) -----------------------------------------
EDGES = [0, 1, -1, -2**63, 2**63 - 1, 2**63, 2**64 - 1, 1 << 32, 1 << 62, 4096, 1 << 20]
NEVER = ("cudaDeviceReset", "cuCtxDestroy_v2", "cuDevicePrimaryCtxReset_v2")


def _deep(depth: int = 40):
    v = 0
    for _ in range(depth):
        v = [v]
    return v


def _in_range(kind: str, size: int, v) -> bool:
    if type(v) is not int:
        return True  # not an integer: the type check's, not this one's
    if kind in ("u", "h"):
        return 0 <= v < 1 << (8 * size)
    if kind in ("i", "d"):
        return -(1 << (8 * size - 1)) <= v < 1 << (8 * size - 1)
    return True


def test_fuzz_sizes_and_counts_of_every_call(secret_server, rng):
    """Every call with integer arguments, each drawn from the edges (negative, 2**63, 2**64 - 1, sums
    that wrap) or near a real allocation: one out of its C type's range is refused, nothing is an
    internal error, and the allocation beside the fuzzed one is never written."""
    plain_url, url, handle = secret_server()
    session = Session(url, lease=_token(plain_url, _uuid(url)))
    rc, (a,), _, _ = session.call("cudaMalloc", 1 << 20)
    rc2, (b,), _, _ = session.call("cudaMalloc", 1 << 20)
    assert rc == rc2 == 0 and session.call("cudaMemset", b, 0x5A, 1 << 20)[0] == 0
    near = [a, a + 64, a + (1 << 20) - 8, a - 64]
    start, sent, accepted, internal = time.monotonic(), 0, [], []
    order = sorted(CALLS)
    rng.shuffle(order)  # the count or time bound ends the run: each seed covers other calls first
    for call_id in order:
        call = CALLS[call_id]
        params = [p for p in call.params if not p[1].startswith("o")]
        if call.name in NEVER or not any(p[1] in ("u", "i", "d", "h") for p in params):
            continue
        if sent >= COUNT or not _within_budget(start):
            break
        for _ in range(2):
            args = [(rng.choice(EDGES + near) if p[1] in ("u", "i", "d", "h") else junk(rng)) for p in params]
            rc, outs, frames, message = session.raw_call(call_id, args)
            sent += 1
            if "internal error" in message:
                internal.append((call.name, message[:200]))
            if rc == 0 and not all(_in_range(p[1], p[2], v) for p, v in zip(params, args)):
                accepted.append((call.name, args))
    assert not accepted, f"{len(accepted)} calls ran with arguments no C caller could pass: {accepted[:5]}"
    assert not internal, f"{len(internal)} internal errors: {internal[:5]}"
    rc, _, back, _ = session.call("cuMemcpyDtoH_v2", b, 1 << 20)
    assert rc == 0 and b"".join(bytes(x) for x in back) == b"\x5a" * (1 << 20)   # the neighbour untouched
    session.close()
    assert handle.alive() and sent >= min(COUNT, 50)


def test_fuzz_nesting_of_every_message_kind(controller, secret_server):
    """A value nested past protocol.limits.MAX_DEPTH in each command of the controller, each op of
    the supervisor and each call of a worker: refused with a plain error, and each serves on."""
    with controller.fleet() as fleet:
        fleet.register("tcp://gpu1:7000", "b1", "sim", fake_gpus(1, "A", memory=4 * GiB))
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    curve.as_client(sock, controller.admin().keys, CONTROLLER_KEY)
    sock.connect(controller.url)
    try:
        for cmd in sorted(COMMANDS):
            sock.send(msgpack.packb({"cmd": cmd, "lease": _deep(), "url": _deep()}))
            assert sock.poll(10000), cmd
            reply = msgpack.unpackb(sock.recv(), raw=False)
            assert reply["ok"] is False and reply["error"] == "bad_request", (cmd, reply)
    finally:
        sock.close(0)
    with controller.client() as admin:
        assert admin.ping()["ok"]
    plain_url, url, handle = secret_server()
    sup = connect(url)
    try:
        for op in sorted(OPS):
            sup.send(wire.pack({"op": op, "lease": _deep()}))
            assert sup.poll(10000), op
            assert wire.unpack(sup.recv())["ok"] is False, op
    finally:
        sup.close(0)
    session = Session(url, lease=_token(plain_url, _uuid(url)))
    for call_id in sorted(CALLS):
        session.sock.send(wire.encode_requests([(1, call_id, 1, [_deep()], 0)]))
        assert session.sock.poll(10000), CALLS[call_id].name
        seq, rc, _outs, _deferred, message, *_ = wire.unpack(session.sock.recv())
        assert rc != 0 and "malformed" in message, (CALLS[call_id].name, message)
    assert session.call("cudaMalloc", 4096)[0] == 0
    session.close()
    assert handle.alive() and controller.handle.alive()
