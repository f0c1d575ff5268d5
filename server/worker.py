"""A session worker: one process per client session, owning that session's device context.

It binds its own ROUTER (the client talks to it directly, never through the supervisor), waits
for the supervisor to assign it a session, then serves calls until the client says goodbye, its
connection stays gone for the grace period (ZMTP heartbeats notice a vanished host), or the
supervisor ends it. Exiting frees everything: memory, handles, the context."""
from __future__ import annotations

import os
import time

import zmq
import zmq.utils.monitor

from rgpu import logs
from rgpu.protocol import wire

from .dispatch import Dispatcher
from .session import Session


def make_device(conf: dict, assignment: dict, reserve):
    if conf["device"] == "sim":
        from .sim.device import SimDevice
        return SimDevice(assignment["memory"], assignment["gpu"], conf.get("server_id", ""), reserve=reserve)
    from .cuda_backend import CudaDevice
    return CudaDevice(assignment["gpu"], assignment["memory"], reserve=reserve)


def worker_main(conf: dict, conn, usage, slot: int, lock, capacity: int) -> None:
    log = logs.configure("worker", conf.get("log_level"))
    ctx = zmq.Context()
    sock = ctx.socket(zmq.ROUTER)
    sock.setsockopt(zmq.LINGER, 1000)
    sock.setsockopt(zmq.HEARTBEAT_IVL, 1000)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, 5000)
    sock.setsockopt(zmq.SNDHWM, 0)
    sock.setsockopt(zmq.RCVHWM, 0)
    sock.bind(conf["worker_bind"])
    endpoint = sock.getsockopt_string(zmq.LAST_ENDPOINT)
    if conf["worker_bind"].startswith("tcp://*:"):
        endpoint = "tcp://*:" + endpoint.rsplit(":", 1)[1]
    conn.send(endpoint)
    assignment = conn.recv()
    if assignment is None:
        return
    log = log.bind(session=assignment["session"], gpu=assignment["gpu"], client=assignment["client"])

    peaks = conf["memory_peaks"][assignment["gpu"]]

    def reserve(delta: int) -> bool:
        # Device memory is shared by every session of the GPU: charge this session's slot, refuse
        # what would exceed the GPU's (or the lease's) memory.
        with lock:
            if delta > 0 and (sum(usage) + delta > capacity or usage[slot] + delta > assignment["memory"]):
                return False
            usage[slot] += delta
            peaks[slot] = max(peaks[slot], usage[slot])
            return True

    session = Session(make_device(conf, assignment, reserve), assignment["session"])
    session.sched, session.slot = conf["schedulers"][assignment["gpu"]], slot
    dispatcher = Dispatcher()
    monitor = sock.get_monitor_socket(zmq.EVENT_DISCONNECTED | zmq.EVENT_ACCEPTED)
    poller = zmq.Poller()
    poller.register(sock, zmq.POLLIN)
    poller.register(monitor, zmq.POLLIN)
    peer = None
    gone_since = None
    started = time.monotonic()
    grace = conf.get("session_grace", 3.0)
    log.info("session_started", endpoint=endpoint)
    reason = "goodbye"
    try:
        while True:
            events = dict(poller.poll(250))
            if monitor in events:
                ev = zmq.utils.monitor.recv_monitor_message(monitor)
                if ev["event"] == zmq.EVENT_DISCONNECTED:
                    gone_since = time.monotonic()
                elif ev["event"] == zmq.EVENT_ACCEPTED:
                    gone_since = None
            if sock in events:
                frames = sock.recv_multipart(copy=False)
                ident, body = frames[0].bytes, frames[1:]
                if peer is None or ident != peer:
                    peer = _attach(sock, ident, body, assignment, log) or peer
                    continue
                session.messages += 1
                if not _serve(sock, ident, body, session, dispatcher, log):
                    break
            now = time.monotonic()
            if gone_since is not None and now - gone_since > grace:
                reason = "client_gone"
                break
            if peer is None and now - started > conf.get("attach_timeout", 30.0):
                reason = "never_attached"
                break
            if conn.poll():
                if conn.recv() == "stop":
                    reason = "stopped_by_server"
                    break
    finally:
        mem = getattr(session.device, "memory", None)
        log.info("session_ended", reason=reason, calls=session.calls, messages=session.messages,
                 bytes_in=session.bytes_in,
                 bytes_out=session.bytes_out, memory_peak=getattr(mem, "peak", 0))
        session.close()
        with lock:
            usage[slot] = 0
        sock.close(0)
        monitor.close(0)
        ctx.term()


def _attach(sock, ident, body, assignment, log):
    """The first message on a worker must be attach with the session's key."""
    try:
        (req,) = wire.decode_requests(body)
        ok = req.call_id == wire.ATTACH and req.args == [assignment["session"], assignment["key"]]
    except (wire.MalformedMessage, ValueError):
        ok, req = False, None
    seq = req.seq if req is not None else 0
    if ok:
        sock.send_multipart([ident, wire.encode_reply(seq, 0)])
        return ident
    log.warning("attach_refused")
    sock.send_multipart([ident, wire.encode_reply(seq, 201, message="not attached to this session")])
    return None


def _serve(sock, ident, body, session, dispatcher, log) -> bool:
    """Runs the calls of one message; replies to sync ones. False when the client said goodbye."""
    try:
        requests = wire.decode_requests(body)
    except wire.MalformedMessage as e:
        log.warning("malformed_message", reason=str(e))
        sock.send_multipart([ident, wire.encode_reply(0, 1, message=f"malformed message: {e}")])
        return True
    for req in requests:
        if req.call_id == wire.GOODBYE:
            return False
        bulk = [f.buffer for f in req.bulk]
        session.bytes_in += sum(len(b) for b in bulk)
        res = dispatcher.run(session, req.call_id, req.args, bulk)
        if not req.sync:
            if res.rc and session.deferred is None:
                session.deferred = (res.rc, res.message)
            continue
        deferred, msg = session.deferred or (0, "")
        session.deferred = None
        if res.rc:
            msg = res.message
        session.bytes_out += sum(len(b) for b in res.bulk)
        # Device printf reaches the program at its next synchronising call, as on a GPU.
        output = session.device.take_output()
        sock.send_multipart([ident, wire.encode_reply(req.seq, res.rc, res.outs, deferred, msg, output),
                             *res.bulk], copy=False)
    return True
