"""A session worker: one process per client session, owning that session's device context.

It binds its own ROUTER (the client talks to it directly, never through the supervisor), waits
for the supervisor to assign it a session, then serves calls until the client says goodbye, its
connection stays gone for the grace period (its host's silence ends it: server/liveness.py), or the
supervisor ends it. Exiting frees everything: memory, handles, the context.

Who may connect: nobody before the assignment; then only the client that said hello — on a CURVE
wire its public key, on a plain wire its address (the worker's ZAP handler refuses every other
connection during the handshake). The first attach with the session key binds the session to its
connection: another connection presenting the key is refused, and so is a second attach. Messages
are bounded in size (MAX_FRAME) and in number queued (RCVHWM).

Beside it: what the compiled serving loop served, counted (loop_served.py); the messages its launcher
serves before Python decodes them (loop_steps.py); the wire's own calls it answers (wire_calls.py)."""
from __future__ import annotations

import hmac
import os
import threading
import time

import zmq
import zmq.utils.monitor

from rgpu import logs
from rgpu.protocol import curve, wire
from rgpu.protocol.wire import Pinned, Shm, Staged

from . import backends, bulk, data_stream, failover, liveness, module_cache, session_ports
from .bulk import Sealed
from .data_stream import Streamed
from .errors import CudaError, driver_code
from .head_delta import HeadTable
from .dispatch import Dispatcher, Result
from .migration.source import Outbound, Redirect
from .migration.target import Inbound
from .migration.transfer import MigrationFailed, is_transfer
from .reclaim import Reclaimer
from .api.device import cuda_get_device_properties, device_attributes
from .api.ipc import IpcState
from .session import Session
from .session import SessionEnding
from .pinned import PinnedHost
from .copy_calls import copy_of
from .pieces import run_d2h_pieces, run_piece_in, take_piece_error
from .ring import RING, SOCKET, STEP, YIELD, CallRing, RingBroken, broken_notice, quota_view
from .ring import in_place as ring_in_place
from .ring import spin_hits as ring_spin_hits
from .sock_loop import SocketLoop
from .sock_loop import unavailable as sock_unavailable
from .shm import Segment
from .staging import Placed, close_shm, fill_pinned, register_ring, run_pinned, run_shm, run_staged
from .loop_served import compiled_launcher, door_served, loop_served, step_taken_over
from .loop_steps import answer_wait, loop_may_serve, step, wait_settled
from .wire_calls import map_host, params, unpin

HOUSEKEEPING_S = 0.25
ATTACH_TIMEOUT_S = 10.0  # a session nobody attached to within this ends (its quota returns)
SPIN_US = 200  # rgpu-server --spin-us: how long a worker polls for the next message before it blocks
QUEUED_MESSAGES = 64  # the client waits for each sync reply: a few batches in flight at most
IN_PLACE = (Sealed, Streamed)  # frames an H2D copy takes as they are, their data read where it goes


def _tune_allocator():
    """Keep freed bulk buffers (up to 32 MiB, glibc's ceiling) in the heap instead of returning them
    to the kernel: every copy would otherwise fault in fresh pages for its frames, which costs more
    than the copy itself. Returns glibc's malloc_trim (None elsewhere): what the heap keeps is given
    back when the session goes idle, or many small buffers (a 2D copy of 4 KiB rows
    makes one per row) would stay resident for the life of the session."""
    try:
        import ctypes
        libc = ctypes.CDLL(None)
        libc.mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD
        libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD
        return libc.malloc_trim
    except (OSError, AttributeError):
        return None


def _profiler():
    """RGPU_WORKER_PROFILE=PREFIX: cProfile this worker's serving loop into PREFIX.PID (for benchmarks)."""
    if not os.environ.get("RGPU_WORKER_PROFILE"):
        return None
    import cProfile
    prof = cProfile.Profile()
    prof.enable()
    return prof


def _publish(traffic, slot: int, session) -> None:
    """Calls and bytes each way (frames and shared memory), for the supervisor's accounting;
    written at housekeeping, not per call, to keep the hot path free of it."""
    shm_in, shm_out = (session.shm.bytes_in, session.shm.bytes_out) if session.shm else (0, 0)
    shm_in, shm_out = shm_in + session.pinned.bytes_in, shm_out + session.pinned.bytes_out
    base = 3 * slot
    traffic[base], traffic[base + 1], traffic[base + 2] = \
        session.calls, session.bytes_in + shm_in, session.bytes_out + shm_out


def make_device(conf: dict, assignment: dict, reserve):
    return backends.open_device(conf["device"], gpu=assignment["gpu"], memory=assignment["memory"],
                                server_id=conf.get("server_id", ""), reserve=reserve, arch=conf.get("sim_arch"),
                                window=assignment.get("window"))


def max_frame(capacity: int) -> int:
    """The largest message part a session may send: a copy travels in at most 64 frames (libhook's
    memcpy.c) and can be no larger than the GPU; a module image comes in one."""
    return max(1 << 30, capacity // 64 + (1 << 20))


class Admission:
    """The worker's ZAP decision (its own thread): nobody until the supervisor names the client."""

    def __init__(self, curve_wire: bool):
        self.curve_wire = curve_wire
        self.keys: set[bytes] = set()
        self.address: str | None = None
        self.open = False
        self.bulk_password: bytes | None = None  # the session's bulk channel's (server/bulk.py), once open

    def admit(self, key: bytes | None, address: str | None, *more_keys: bytes) -> None:
        """``more_keys``: a migration's source, whose connection brings the session's state."""
        self.keys = {k for k in (key, *more_keys) if k}
        self.address, self.open = address, True

    def __call__(self, mechanism: str, key: bytes | None, address: str) -> str | None:
        if not self.open:
            return None
        if mechanism == "PLAIN":  # the bulk channel: its password, from the client's address
            return "bulk" if self.bulk_password is not None and key is not None and \
                hmac.compare_digest(key, self.bulk_password) and (not self.address or address == self.address) else None
        if self.curve_wire:
            return key.decode() if mechanism == "CURVE" and key is not None and key in self.keys else None
        return "client" if mechanism == "NULL" and (not self.address or address == self.address) else None


def worker_main(conf: dict, conn, gpu, slot: int) -> None:
    """The worker of ``slot`` of a GPU whose shared memory is ``gpu`` (workers.GpuShared), talking
    to the supervisor over ``conn``."""
    log = logs.configure("worker", conf.get("log_level"), conf.get("log_format", "logfmt"))
    capacity, usage = gpu.capacity, gpu.usage
    if conf.get("module_cache"):
        module_cache.configure_modules(*conf["module_cache"])
    trim = _tune_allocator()
    trimmed = True  # nothing to give back until a message was served
    ctx = zmq.Context()
    keys = curve.Keypair(*conf["curve_keys"]) if conf.get("curve_keys") else None
    admission = Admission(keys is not None)
    zap = curve.Zap(ctx, admission)
    zap.start()
    # its large frames to the client go on the session's bulk channel once one is open (server/bulk.py)
    sock = ctx.socket(zmq.ROUTER, socket_class=bulk.SealingSocket)
    sock.setsockopt(zmq.LINGER, 1000)
    liveness.watch_client(sock)  # a client whose host is silent 5 s is gone (must_end); its grace then runs
    sock.setsockopt(zmq.SNDHWM, 0)
    sock.setsockopt(zmq.RCVHWM, QUEUED_MESSAGES)
    curve.limit(sock, max_frame(capacity))
    if keys is not None:
        curve.as_server(sock, keys)
    else:
        sock.zap_domain = b"rgpu"  # a plain wire goes through ZAP too: it admits the client's address
    # supervisor.worker_bind, within --session-ports when given; none free: say so and end
    endpoint = session_ports.bind(sock, conf["worker_bind"], conf.get("session_ports"))
    conn.send(endpoint or ("no_port", *conf["session_ports"]))
    try:
        assignment = conn.recv() if endpoint else None
    except (EOFError, OSError):
        assignment = None
    if assignment is None:
        sock.close(0)
        zap.stop()
        ctx.term()
        return
    # The session joins its group (the vGPU of its lease) before anything runs: memory and compute
    # are shared with the group's other sessions from the first call.
    gpu.sched.configure(slot, assignment["compute"], assignment["limit"], assignment["group"])
    restore = assignment.get("restore")
    admission.admit(assignment.get("client_key"), assignment.get("client_address"),
                    *([restore["source_key"].encode()] if restore and restore.get("source_key") else []))
    conn.send("admitted")  # the supervisor answers the hello only now: the client's connection gets in
    log = log.bind(session=assignment["session"], gpu=assignment["gpu"], client=assignment["client"],
                   lease=assignment.get("lease") or None)   # session_ended and the rest name their lease
    traffic = gpu.traffic

    def reserve(delta: int) -> bool:
        # Device memory is shared by every session of the GPU and by every session of the vGPU:
        # charge this session's slot, refuse what would exceed either.
        return gpu.reserve(slot, delta, capacity)

    session = Session(make_device(conf, assignment, reserve), assignment["session"])
    session.memory_view = lambda: gpu.mem_info(slot, capacity, assignment["memory"])
    session.cache_scope = assignment.get("cache_scope") or ""
    session.shm = None  # the client's shared-memory segment, when it offers one on this host
    session.ring = None  # the call ring in that segment, when the client offers one (server/ring.py)
    session.pinned = PinnedHost(session)  # the program's pinned host memory, mapped as calls name it
    if conf.get("ipc_dir"):
        # CUDA IPC handles open in the sessions of the same lease and vGPU on this GPU (any session of
        # the GPU where no lease gate admits them): api/ipc.py
        lease = assignment.get("lease") or ""
        session.ipc = IpcState(conf["ipc_dir"], [lease, assignment.get("vgpu") if lease else None, assignment["gpu"]])
    session.sched, session.slot = gpu.sched, slot
    # a --failover lease's session answers CHECKPOINT and RESTORE (server/failover.py)
    session.failover = bool(assignment.get("failover"))
    session.backend_name = conf["device"]
    dispatcher = Dispatcher(conf["device"])
    reclaimer = Reclaimer(assignment.get("reclaim_after") or conf.get("reclaim_after"), conf.get("checkpoint_dir"),
                          conf["device"], lambda window: make_device(conf, {**assignment, "window": window}, reserve),
                          log)
    monitor = sock.get_monitor_socket(zmq.EVENT_DISCONNECTED | zmq.EVENT_ACCEPTED)
    # The hot path is a blocking receive, as in a bare ROUTER loop; housekeeping (the monitor, the
    # supervisor's pipe, deadlines) runs when a receive times out or every HOUSEKEEPING_S while busy.
    sock.setsockopt(zmq.RCVTIMEO, int(HOUSEKEEPING_S * 1000))
    peer = None
    peer_fd = None  # the attached client's connection, as the monitor names it (its file descriptor)
    client_host = liveness.ClientHost()  # whether that connection's far host still acknowledges
    gone_since = None
    started = time.monotonic()
    next_check = started + HOUSEKEEPING_S
    grace = conf.get("session_grace", 3.0)
    # Live migration (server/migration): this session restored from a transfer (target), moving
    # away (source: pre-copy, then the commit), or moved (answering with the moved notice).
    inbound = Inbound(session, assignment, conf["device"], log) if restore else None
    mover = None
    redirect = None
    orders: list[dict] = []  # moves ordered while a kernel ran (must_end `inside`): started after it

    def must_end(now: float, inside: bool = False) -> str | None:
        """Why this session has to end now (client gone past the grace, never attached, stopped by
        the supervisor, supervisor gone, its migration done), or None. `inside` a kernel's time
        slice (or a wait on a GPU) a move is not started: it is kept for the next check between
        messages (`orders`)."""
        nonlocal gone_since
        while orders and not inside:
            order_move(orders.pop(0))
        while monitor.poll(0):
            ev = zmq.utils.monitor.recv_monitor_message(monitor)
            # Other connections come and go (a migration's source or target, refused strangers):
            # once the client is attached only its own connection counts.
            if ev["event"] == zmq.EVENT_DISCONNECTED:
                if peer_fd is None or int(ev["value"]) == peer_fd:
                    gone_since = now
            elif ev["event"] == zmq.EVENT_ACCEPTED and peer_fd is None:
                gone_since = None
        if gone_since is None and peer_fd is not None and client_host.gone(peer_fd, now):
            gone_since = now  # its host acknowledged nothing of ours for 5 s: lost as if disconnected
            log.warning("client_host_silent", silent_s=liveness.SILENCE_MS / 1000)
        if gone_since is not None and now - gone_since > grace and (peer is not None or inbound is None):
            if redirect is not None:
                redirect.client_gone()
            return "client_gone"
        if peer is None and now - started > conf.get("attach_timeout", ATTACH_TIMEOUT_S) \
                and not (inbound is not None and inbound.waiting_for_client(now)):
            return "never_attached" if inbound is None or inbound.committed else "migration_abandoned"
        if inbound is not None and inbound.ended:
            return inbound.ended
        if redirect is not None:
            why = redirect.tick(now)
            if why:
                return why
        try:
            while conn.poll():
                msg = conn.recv()
                if msg == "stop":
                    return "stopped_by_server"
                if isinstance(msg, tuple) and msg[0] == "migrate" and inside:
                    # the move's first step reads the session's state, which waits for the kernel
                    # this very thread is running (the sim's queue, a GPU's wait): it would wait
                    # for ever, and the program with it
                    orders.append(msg[1])
                elif isinstance(msg, tuple) and msg[0] == "migrate":
                    order_move(msg[1])
                elif isinstance(msg, tuple) and msg[0] == "stop":
                    _notify(sock, peer, msg[1])
                    return "lease_ended"
        except (EOFError, OSError):  # the supervisor is gone: so is this session
            return "server_gone"
        return None

    def order_move(order: dict) -> None:
        nonlocal mover
        if reclaimer.reclaimed:
            log.warning("migration_refused", migration=order.get("id"), reason="reclaimed")
            _tell(conn, ("migration", order.get("id"), {
                "state": "failed", "message": "the session is reclaimed (idle, its memory in a checkpoint): "
                                              "it is restored at its next call"}))
        else:
            mover = _start_migration(order, session, mover, redirect, peer, ctx, conf, assignment, conn, log)

    def inside_kernel() -> None:
        # A long kernel's time-slice checkpoint: the same checks, so that a kernel that never
        # ends cannot keep a released lease's memory or outlive its client.
        now = time.monotonic()
        _publish(traffic, slot, session)
        why = must_end(now, inside=True)
        if why is not None:
            raise SessionEnding(why)

    def commit() -> None:
        """The stop-and-copy of a migration whose pre-copy is done: between two messages."""
        nonlocal mover, redirect
        m, mover = mover, None
        try:
            notice = m.commit(session.last_seq)
        except MigrationFailed as e:
            log.warning("migration_failed", migration=m.id, reason=str(e), **m.stats)
            m.abandon()
            _tell(conn, ("migration", m.id, {"state": "failed", "message": str(e), **m.stats}))
            return
        log.info("session_migrated", migration=m.id, to=m.to, **m.stats)
        _publish(traffic, slot, session)
        close_shm(session)
        session.pinned.close()  # the pinned memory is the client's: the target maps it when named
        session.close()  # the memory is the target's now: it goes back to this GPU at once
        redirect = Redirect(m.link, notice)
        _send_late(sock, peer, session)  # data of copies this worker ran: the target will not run them
        sock.send_multipart([peer, notice])  # the client may be idle: it finds this at its next call
        _tell(conn, ("migration", m.id, {"state": "done", "message": "", **m.stats}))

    def drop_move(why: str) -> None:
        """The session ends with its move not done: the target frees what it took, and the supervisor
        hears the move failed (whoever ordered it waits on that answer)."""
        nonlocal mover
        m, mover = mover, None
        if m is not None:
            m.abandon()
            log.warning("migration_failed", migration=m.id, reason=f"session ended: {why}", **m.stats)
            _tell(conn, ("migration", m.id, {"state": "failed", **m.stats,
                                             "message": f"the session ended ({why}) before its move was done"}))

    session.housekeeping = inside_kernel
    session.device.housekeeping = inside_kernel  # waits on a real GPU run them too (cuda/waits.py)
    watch = _watch_running(session, gpu.sched, slot)
    log.info("session_started", endpoint=endpoint, restore=bool(restore), failover=session.failover)
    reason = "goodbye"
    profiler = _profiler()
    recv = sock.recv
    # After a message, the client's next one usually comes within a round trip: the worker polls for
    # it, yielding the CPU to any other thread that wants it, for spin_s before it blocks in recv
    # (woken through the kernel, which costs more on a same-host round trip than the worker's work).
    # An idle session never spins: only after a message, not after a receive timed out.
    spin_s = conf.get("spin_us", SPIN_US) * 1e-6
    events, clock, yield_cpu = sock.getsockopt, time.perf_counter, os.sched_yield
    served = False
    spin_hits = 0
    # RGPU_SERVE_LOOP=0: every ring message through Python (comparisons); a profiled worker too, its
    # profile being of Python's path (cProfile sees nothing of the compiled loop's)
    compiled_loop = os.environ.get("RGPU_SERVE_LOOP", "1") != "0" and profiler is None
    compiled_copies = getattr(session.device, "copier", None) is not None  # the cuda backend's (copies.py)
    # the loop's allocations are charged on the GPU's shared counters, under their lock (quota.c): the cuda
    # backend's only (the software GPU's copier, sim/idle_waits.py, allocates nothing)
    quota = quota_view(gpu, slot, capacity) if compiled_copies else None
    # the compiled loop's door on the socket, for a client on another host (no ring) and a ring session's
    # socket messages: opened at the first message it may serve (RGPU_SERVE_SOCKET=0: every socket
    # message through Python)
    door, door_open = None, compiled_loop and os.environ.get("RGPU_SERVE_SOCKET", "1") != "0" and not sock_unavailable()

    def door_may_serve() -> bool:
        """Whether the door may serve the session's socket now: no move, reclaim or incoming move under
        way, and nothing waiting for the next reply that only Python adds."""
        return door_open and mover is None and not reclaimer.reclaimed and (inbound is None or inbound.committed) \
            and loop_may_serve(session)

    try:
        while True:
            ring, out, body, from_socket, looped, resume = session.ring, sock, None, True, False, None
            # the message was taken from the socket by the compiled loop (its door); its head by its table
            taken = kept = via_door = False
            if session.device.queued:  # kernels queued and not yet run: they run while this waits
                session.device.start_queued()
            if ring is not None and peer is not None and redirect is None:
                # The same-host call ring: one wait, without the GIL, for the client's next message
                # on the ring or the socket (its doorbell rings for both); the socket's own traffic
                # from others (refused strangers) is looked at between waits. While nothing of the
                # session's waits for Python (loop_may_serve), the compiled serving loop waits
                # instead, serving the hot calls it knows itself until the next housekeeping.
                launcher = compiled_launcher(session)
                try:
                    if launcher is not None and compiled_loop and mover is None and not reclaimer.reclaimed \
                            and loop_may_serve(session):
                        copier = launcher.copier  # the cuda backend's (copies.py), or the software GPU's
                        try:
                            got, body = ring.serve(launcher.loop, spin_s if served else 0.0, spin_s, HOUSEKEEPING_S,
                                                   next_check, session, copier.address if copier is not None else 0,
                                                   quota)
                        finally:  # what it allocated and freed, in the device's tables before anything reads them
                            if ring.state.mem_n:
                                session.device.loop_memory(ring.state.mem_addr, ring.state.mem_size, ring.state.mem_n)
                        looped = loop_served(sock, peer, ring, session, launcher, got)
                        if got == STEP:
                            # a step begun with the GPU held: the rest of its message is Python's
                            if (resume := step_taken_over(sock, peer, ring, session, launcher)) is None:
                                got = YIELD
                            else:
                                got = RING
                    else:
                        got, body = ring.next(spin_s if served else 0.0, HOUSEKEEPING_S)
                except RingBroken as e:
                    log.warning("ring_broken", reason=str(e))
                    _send_quiet(sock, peer, broken_notice(str(e)))
                    reason = "ring_broken"
                    break
                if got == RING:
                    ident, served, out, from_socket = peer, True, ring.replies(sock), False
                elif got == SOCKET and door_may_serve() and (launcher := compiled_launcher(session)) is not None:
                    # The client's next message is on the socket (one with data frames: an async copy's
                    # from pageable memory, a managed push): the door serves it as across hosts, one
                    # message and back to the ring, counted in the ring's count of them as Python's
                    # receive counts it.
                    door = _door(door, sock, peer)
                    before = door.received
                    got, held, in_door, resume = door_served(door, sock, peer, session, launcher, quota,
                                                             0.0, 0.0, 0.0, 0.0)
                    looped = looped or in_door
                    ring.sock_received += door.received - before - (held is not None and held[0] != peer)
                    via_door = True
                elif got != SOCKET and not events(zmq.EVENTS) & zmq.POLLIN:
                    ident, served, from_socket = None, looped, False
            elif peer is not None and redirect is None and door_may_serve() \
                    and (launcher := compiled_launcher(session)) is not None:
                # Across hosts: the compiled serving loop waits on the session's socket itself, serving
                # the hot calls it knows until the next housekeeping, and hands over the rest with their
                # first part taken (server/sock_loop.py); Python receives such a message's other parts.
                door = _door(door, sock, peer)
                got, held, looped, resume = door_served(door, sock, peer, session, launcher, quota,
                                                        spin_s if served else 0.0, spin_s, HOUSEKEEPING_S, next_check)
                via_door = True
            elif served and spin_s:
                until = clock() + spin_s
                while not events(zmq.EVENTS) & zmq.POLLIN:
                    if clock() >= until:
                        break
                    yield_cpu()
                else:
                    spin_hits += 1  # here without blocking
            if via_door:
                if held is not None:
                    ident, first, more, kept, taken = held
                    if first is None:  # a delta the session's table could not make whole (`more`: why)
                        reason = _refused_head(sock, peer, log, wire.MalformedMessage(more))
                        break
                    body = [first, *taken]
                    while more:  # a message's parts come together: the rest are there
                        part = sock.recv(copy=False)
                        body.append(part)
                        more = part.more
                    served, taken = True, True
                else:
                    ident, served, from_socket = None, looped, False
            # A message: the sender's identity, then its parts. Not recv_multipart(copy=False), which
            # makes a zmq.Frame of the identity too and asks the socket for RCVMORE after each part:
            # 3 to 6 µs a message on a 2-core VM, all of it on the round trip, where this costs 1.4
            # (a Frame knows whether more follow). A ROUTER hands over a message whole, its identity
            # and at least one part: only the first receive can time out.
            if from_socket and not taken:
                try:
                    ident = recv()
                except zmq.Again:
                    ident = None
                served = ident is not None
                if ident is not None:
                    part = recv(copy=False)
                    body = [part]
                    while part.more:
                        part = recv(copy=False)
                        body.append(part)
                    if ring is not None and ident == peer:
                        ring.sock_received += 1
            if ident is not None:
                if peer is None or ident != peer:
                    if inbound is not None and (ident == inbound.source or
                                                (inbound.source is None and body and is_transfer(body[0]))):
                        inbound.handle(sock, ident, body)
                        if inbound.ended:
                            reason = inbound.ended
                            break
                    elif peer is None and (inbound is None or inbound.committed) and _same_client(body, assignment):
                        peer = _attach(sock, ident, body, assignment, session, log, conf["device"],
                                       lambda offer: _open_bulk(ctx, conf, keys, capacity, offer, admission, log))
                        peer_fd = _source_fd(body) if peer is not None else None
                        if peer is not None and inbound is not None:
                            sock.send_multipart([inbound.source, wire.pack({"op": "attached"})])
                            log.info("migration_client_attached")
                    else:
                        _refuse(sock, ident, body, log, "the session is already attached" if peer else
                                "not the connection that said hello")
                    continue
                if redirect is not None:
                    if session.bulk is not None and session.bulk.streams and from_socket:
                        read = session.bulk.frames_in
                        try:  # its streamed data, which the client writes before it reads the notice
                            session.bulk.open_parts(body)
                            session.bulk.settle()
                        except bulk.BulkBroken:
                            pass  # the session is elsewhere: the client reattaches there
                        redirect.drained += session.bulk.frames_in - read
                    redirect.answered += 1
                    out.send_multipart([ident, redirect.notice])
                    continue
                if session.heads is not None and from_socket and not kept:
                    try:  # a head that came as its differences from an earlier one, whole again
                        body = session.heads.take(body)
                    except wire.MalformedMessage as e:
                        reason = _refused_head(sock, peer, log, e)
                        break
                if session.bulk is not None and from_socket:
                    try:  # large frames that came sealed on the bulk channel, in their places
                        body = session.bulk.open_parts(body)
                    except bulk.BulkBroken as e:
                        reason = _bulk_broken(sock, peer, log, e)
                        break
                if reclaimer.reclaimed:
                    try:
                        reclaimer.restore(session, inside_kernel)
                    except CudaError as e:
                        # the calls of this message cannot run: the client hears why, then the
                        # session ends (a half-restored session would compute wrong results)
                        log.warning("restore_failed", reason=e.message)
                        _fail_message(out, ident, body, e)
                        reason = "restore_failed"
                        break
                    _tell(conn, ("reclaim", "restored", dict(reclaimer.stats)))
                session.messages += resume is None  # a step the loop began is counted already
                trimmed = False
                try:
                    served = _serve(out, ident, body, session, dispatcher, log, resume)
                    if session.bulk is not None and session.bulk.streams:
                        session.bulk.settle()  # the message's streamed data its calls left unread
                except bulk.BulkBroken as e:  # a sealed frame that did not open, or a streamed one that stopped
                    reason = _bulk_broken(sock, peer, log, e)
                    break
                if not served:
                    drop_move(reason)
                    break
                if mover is not None and mover.precopy_done():
                    commit()
                now = time.monotonic()
                reclaimer.last_active = now
                if now < next_check:
                    continue
            elif looped:
                # the compiled loop served messages until the housekeeping deadline (or answered one
                # whose accounting Python finished): as after a message served here
                trimmed = False
                now = time.monotonic()
                reclaimer.last_active = now
                if now < next_check:
                    continue
            else:
                now = time.monotonic()
                if not trimmed and trim is not None:
                    trim(0)  # idle for a housekeeping period: the heap's free pages go back
                    trimmed = True
                if mover is not None and mover.precopy_done():
                    commit()
                if reclaimer.due(now) and peer is not None and mover is None and redirect is None \
                        and (inbound is None or inbound.committed) and reclaimer.reclaim(session):
                    _publish(traffic, slot, session)
                    _tell(conn, ("reclaim", "reclaimed", dict(reclaimer.stats)))
            next_check = now + HOUSEKEEPING_S
            _publish(traffic, slot, session)
            why = must_end(now)
            if why is not None:
                reason = why
                drop_move(reason)
                break
    except SessionEnding as e:
        reason = e.reason
        log.info("kernel_abandoned", reason=e.reason)
        drop_move(reason)
    finally:
        if door is not None:
            door.close()  # before the socket it reads
        if profiler is not None:
            profiler.disable()
            prefix = f"{os.environ['RGPU_WORKER_PROFILE']}.{os.getpid()}"
            profiler.dump_stats(prefix)
            # the loop's wall time beside it: cProfile does not see pyzmq's compiled receive, so the
            # wait for the client is this less what the profile saw (benchmarks/native/profile_rows.py)
            # written whole, then named: a reader that polls for the name never finds it empty
            with open(f"{prefix}.wall.tmp", "w") as f:
                f.write(f"{time.monotonic() - started:.6f}\n")
            os.replace(f"{prefix}.wall.tmp", f"{prefix}.wall")
        mem = getattr(session.device, "memory", None)
        loop = session.device.compiled_loop
        log.info("session_ended", reason=reason, calls=session.calls, messages=session.messages,
                 bytes_in=session.bytes_in,
                 bytes_out=session.bytes_out, memory_peak=getattr(mem, "peak", 0),
                 shm_bytes_in=session.shm.bytes_in if session.shm else 0,
                 shm_bytes_out=session.shm.bytes_out if session.shm else 0,
                 pinned_bytes_in=session.pinned.bytes_in, pinned_bytes_out=session.pinned.bytes_out,
                 pinned_segments=len(session.pinned.maps),
                 pieces_in=session.pieces_in, pieces_out=session.pieces_out,
                 spin_hits=spin_hits + (ring_spin_hits() if session.ring is not None else 0),
                 ring_calls=session.ring.calls if session.ring is not None else 0,
                 ring_compiled=session.ring.compiled if session.ring is not None else 0,
                 ring_to_python=session.ring.handed if session.ring is not None else 0,
                 **(ring_in_place() if session.ring is not None else {}),
                 ring_registered=int(session.shm is not None and session.shm.ring_handle is not None),
                 socket_compiled=door.compiled if door is not None else 0,
                 socket_to_python=door.handed if door is not None else 0,
                 socket_pieces=door.pieces if door is not None else 0,
                 launches_compiled=loop.served if loop is not None else 0,
                 waits_compiled=loop.waits if loop is not None else 0,
                 copies_compiled=loop.copies if loop is not None else 0,
                 batches_compiled=loop.batches if loop is not None else 0,
                 frame_bytes_compiled=loop.frame_bytes_in if loop is not None else 0,
                 late_bytes_compiled=loop.late_bytes_out if loop is not None else 0,
                 pulls_compiled=loop.pulls_served if loop is not None else 0,
                 pieces_compiled=loop.pieces_in if loop is not None else 0,
                 **(session.bulk.stats() if session.bulk is not None else {}),
                 **session.device.stage_stats(),
                 **(redirect.stats() if redirect is not None else {}),
                 **({"head_deltas": session.heads.deltas, "head_bytes_saved": session.heads.bytes_saved}
                    if session.heads is not None else {}),
                 **_client_counts(session))
        _publish(traffic, slot, session)
        if watch is not None:
            watch.set()
        close_shm(session)
        if session.bulk is not None:
            session.bulk.close()
        session.pinned.close(client_gone=reason == "client_gone")
        if reclaimer.reclaimed:  # its device is closed already; its checkpoint goes with it
            reclaimer.discard()
            session.closed = True
        session.close()
        if redirect is not None:
            redirect.close()
        with gpu.lock:
            usage[slot] = 0
        # The monitor stops before its PAIR closes: libzmq's I/O thread sends each event with a blocking
        # send, and one sent to a closed PAIR (a client leaving just now) never returns, which would
        # hang ctx.term() and with it the worker (libzmq #3575; protocol/curve.py, Handshake.close).
        sock.disable_monitor()
        sock.close(0)
        monitor.close(0)
        zap.stop()
        ctx.term()


def _client_counts(session) -> dict:
    """The client's own counts from its goodbye, for session_ended: the round trips it waited for (hello
    and attach included), the async calls it sent and the messages that carried only those. Nothing
    when it sent none (it exited without a goodbye, or an older client)."""
    if session.client_counts is None:
        return {}
    trips, calls, messages = session.client_counts
    return {"client_round_trips": trips, "client_async_calls": calls, "client_async_messages": messages}


def _bulk_broken(sock, peer, log, e: bulk.BulkBroken) -> str:
    """The client hears that its bulk channel failed (a frame did not come, or did not open, at
    arrival or where it was used); the session's end reason."""
    log.warning("bulk_broken", reason=str(e))
    _notify(sock, peer, f"the session's bulk channel failed: {e}")
    return "bulk_broken"


def _refused_head(sock, peer, log, e: wire.MalformedMessage) -> str:
    """A head sent as a delta that this worker cannot make whole (head_delta.py): nothing of the
    message runs, and the session ends, since the client's later heads lean on it. The end reason."""
    log.warning("head_delta_refused", reason=str(e))
    _notify(sock, peer, f"a message's head could not be made whole: {e}")
    return "malformed_message"


def _fail_message(sock, ident, body, e: CudaError) -> None:
    """Answer the sync call of a message that cannot run with the error ``e``."""
    try:
        seq = max(r[0] for r in wire.decode_calls(body))
    except (wire.MalformedMessage, ValueError):
        seq = 0
    sock.send_multipart([ident, wire.encode_reply(seq, driver_code(e.code), message=e.message)])


def _send_quiet(sock, peer, msg: bytes) -> None:
    try:
        sock.send_multipart([peer, msg], zmq.NOBLOCK)
    except zmq.ZMQError:
        pass


def _source_fd(body) -> int | None:
    try:
        return int(body[0].get(zmq.SRCFD))
    except (zmq.ZMQError, AttributeError, TypeError, ValueError):
        return None


def _tell(conn, msg) -> None:
    """A report to the supervisor (its main loop reads live workers' pipes)."""
    try:
        conn.send(msg)
    except (OSError, ValueError):
        pass


def _start_migration(order, session, mover, redirect, peer, ctx, conf, assignment, conn, log):
    """The supervisor's order to move this session (server/migration/source.py); returns the
    migration now under way, or None when it was refused at once (reported back)."""
    why = ("a migration of this session is already under way" if mover is not None else
           "the session has already moved" if redirect is not None else
           "the session's client has not attached yet" if peer is None else None)
    out = None
    if why is None:
        out = Outbound(session, order, ctx, conf, {**assignment, "vgpu": assignment.get("vgpu")}, log)
        try:
            out.start()
        except MigrationFailed as e:
            why, out = str(e), None
    if why is not None:
        log.warning("migration_refused", migration=order.get("id"), reason=why)
        _tell(conn, ("migration", order.get("id"), {"state": "failed", "message": why}))
        return mover
    log.info("migration_started", migration=order["id"], to=order["to"])
    return out
def _watch_running(session, sched, slot: int):
    """On a backend that cannot time-slice its kernels (a real GPU), a thread that publishes how long
    the session's kernels have been running, every HOUSEKEEPING_S: while the serving thread waits in
    the driver behind a kernel that never ends, the stats still show its time (and the supervisor,
    told the lease ended, kills the worker). Returns the event that stops it, or None."""
    if not session.device.reports_running:
        return None
    stop = threading.Event()

    def run():
        while not stop.wait(HOUSEKEEPING_S):
            sched.running[slot] = session.device.running_time()
        sched.running[slot] = 0.0

    threading.Thread(target=run, name="running-time", daemon=True).start()
    return stop


def _notify(sock, peer, why: str) -> None:
    """Tell the client why its session ends (its lease expired or was released) before it does: a
    reply to no call (seq 0) with device-unavailable and the reason, which the client library
    reports as the cause instead of a lost connection."""
    if peer is not None:
        try:
            sock.send_multipart([peer, wire.encode_reply(0, wire.SESSION_ENDED, message=why)], zmq.NOBLOCK)
        except zmq.ZMQError:
            pass


def _same_client(body, assignment) -> bool:
    """Whether a message came over the connection of the client the supervisor admitted: its CURVE
    key (checked by ZAP as well; this is the session's own check)."""
    want = assignment.get("client_key")
    if want is None:
        return True
    return bool(body) and curve.peer_id(body[0]) == want.decode()


def _refuse(sock, ident, body, log, why: str) -> None:
    try:
        (req,) = wire.decode_requests(body)
        seq = req.seq
    except (wire.MalformedMessage, ValueError):
        seq = 0
    log.warning("attach_refused", reason=why)
    sock.send_multipart([ident, wire.encode_reply(seq, 201, message=f"not attached to this session: {why}")])


def _attach(sock, ident, body, assignment, session, log, backend: str, open_bulk=None):
    """The first message on a worker must be attach [session, key(, shared-memory offer(, bulk
    offer))]; the reply's outs say whether the offered segment was mapped, which backend serves the
    session (the client answers the calls their records say it does not serve without asking), the
    device's immutable facts (_facts) and, to a bulk offer, the bulk channel's port (None: frames
    travel on the session's socket). A shared-memory offer of None is no offer."""
    try:
        (req,) = wire.decode_requests(body)
        ok = req.call_id == wire.ATTACH and req.args[:2] == [assignment["session"], assignment["key"]] \
            and len(req.args) <= 4
    except (wire.MalformedMessage, ValueError):
        ok, req = False, None
    seq = req.seq if req is not None else 0
    if ok:
        accepted = False
        if len(req.args) >= 3 and req.args[2] is not None:
            close_shm(session)
            session.shm, why = Segment.attach(req.args[2])
            accepted = session.shm is not None
            if accepted:
                # the call ring, served (its magic written) before the client reads this reply
                session.ring, why_not = CallRing.attach(session.shm, req.args[2])
                registered = register_ring(session)
                log.info("shm_attached", size=session.shm.size, ring=session.ring is not None,
                         ring_registered=registered,
                         **({"ring_declined": why_not} if session.ring is None else {}))
            else:
                log.info("shm_declined", reason=why)
        outs = [accepted, backend, _facts(session, log)]
        # the client sends heads as deltas only to a worker that did not map its segment; each attach
        # starts both tables empty (server/head_delta.py)
        session.heads = None if accepted else HeadTable()
        if session.bulk is not None:  # an earlier attach's: its client connection is gone
            session.bulk.close()
            session.bulk = sock.bulk = sock.bulk_for = None
        if len(req.args) == 4:
            # the copies' data go beside the wire only where frames carry them (not the same host's
            # segment): sealed beside a CURVE wire, a raw stream beside a plain one
            channel = open_bulk(req.args[3]) if open_bulk is not None and not accepted else None
            if channel is not None:
                session.bulk, sock.bulk, sock.bulk_for = channel, channel, ident
                channel.tick = session.housekeeping  # its waits on a stopped program run it
            outs.append(channel.port if channel is not None else None)
        sock.send_multipart([ident, wire.encode_reply(seq, 0, outs)])
        return ident
    log.warning("attach_refused")
    sock.send_multipart([ident, wire.encode_reply(seq, 201, message="not attached to this session")])
    return None


def _open_bulk(ctx, conf, keys, capacity, offer, admission, log):
    """The session's bulk channel for a client's offer, or None: beside a CURVE wire, sealed (server/
    bulk.py) for an offer [key, name] where libsodium has AEGIS-256; beside a plain wire, a data stream
    (server/data_stream.py) for an offer [name]; none for any other offer, or where no port is free."""
    if not conf["worker_bind"].startswith("tcp://"):
        return None
    if keys is None:
        if not data_stream.offer_ok(offer):
            return None
        try:
            stream = data_stream.DataStream(conf["worker_bind"], conf.get("session_ports"), offer[0],
                                            max_frame(capacity))
        except OSError as e:
            log.warning("data_stream_declined", reason=str(e))
            return None
        log.info("data_stream_opened", endpoint=stream.endpoint)
        return stream
    if not bulk.offer_ok(offer):
        return None
    if bulk.sodium() is None:
        log.info("bulk_declined", reason=bulk.why_not())
        return None
    try:
        channel = bulk.BulkChannel(ctx, conf["worker_bind"], conf.get("session_ports"), offer[0], offer[1],
                                   max_frame(capacity))
    except (OSError, zmq.ZMQError) as e:
        log.warning("bulk_declined", reason=str(e))
        return None
    admission.bulk_password = bulk.password(offer[1])
    log.info("bulk_opened", endpoint=channel.endpoint)
    return channel


def _facts(session, log) -> dict:
    """What the device is and cannot stop being while the session lives, for the client to answer
    attribute and property queries itself (libhook/src/state/devfacts.c): every attribute as the
    queries would answer it, and the cudaDeviceProp bytes. Empty if the device cannot say: the
    client then asks per query, as before."""
    try:
        return {"attrs": device_attributes(session), "props": cuda_get_device_properties(session, 0)[0]}
    except CudaError as e:
        log.warning("device_facts_unavailable", reason=str(e))
        return {}


ONE_CALL = b"\x91"  # msgpack's array of one element: a message header of one call starts so


def _door(door, sock, peer) -> SocketLoop:
    """The socket's door for the session's client `peer`: `door` if it is that client's, else a new
    one, the old one (another client's) closed."""
    if door is not None and door.peer == peer:
        return door
    if door is not None:
        door.close()
    return SocketLoop(sock, peer)


def _serve(sock, ident, body, session, dispatcher, log, resume: int | None = None) -> bool:
    """Runs the calls of one message; replies to sync ones. False when the client said goodbye.
    `resume`: the index of the first call to run, the ones before it run by the compiled serving loop
    (a step it began: step_taken_over), which leaves no fast path to try.

    The hot path of the server: no per-call objects beyond the dispatcher's result, the common
    reply (success, nothing deferred, no printf output) packed without msgpack."""
    launcher = session.device.launcher  # a compiled loop for runs of launches (cuda/launches.py), or None
    first = resume or 0  # the first call Python serves
    # data frames the compiled loop may take: those an async H2D copy of a step or batch carries (a
    # DataLoader's pinned batch from another host) and a large copy's pieces (a message each); not a
    # frame still sealed on the bulk channel
    frames = body[1:]
    if resume is None and launcher is not None and loop_may_serve(session) and \
            (not frames or (launcher.copier is not None and all(type(f) is zmq.Frame for f in frames))):
        header = body[0].buffer
        if header[:1] == ONE_CALL:
            if not frames and (done := launcher.wait_alone(header)) is not None:
                # a stream query or synchronize alone, on a stream that is done: answered by the
                # compiled loop without decoding (the session is settled at a message's first call:
                # see below), which also made the message's settle and the printf check
                session.last_seq = done.last_seq
                answer_wait(sock, ident, done.last_seq, session, launcher.face,
                             session.device.take_output(done.pending))
                wait_settled(session, done)
                return True
            if len(frames) == 1 and (piece := launcher.piece(header, frames[0])) is not None:
                # a piece of a large H2D copy, copied from its frame by the compiled loop, counted
                # as Python's run_piece_in counts it; the message's end settled as below
                session.last_seq, session.face = piece
                session.calls += 1
                session.pieces_in += 1
                session.bytes_in += len(frames[0])
                session.settle()
                return True
        elif (first := step(sock, ident, header, session, launcher, frames)) is None:
            return True
    try:
        requests = wire.decode_calls(body)
    except wire.MalformedMessage as e:
        log.warning("malformed_message", reason=str(e))
        sock.send_multipart([ident, wire.encode_reply(0, 1, message=f"malformed message: {e}")])
        return True
    run = dispatcher.run
    settle = session.settle
    i, count = first, len(requests)
    while i < count:
        seq, call_id, sync, args, bulk, shm = requests[i]
        i += 1
        if launcher is not None and call_id in launcher.ids and not sync and session.hold_for_launches():
            n, last, runtime = launcher.run(body[0].buffer, session.messages, i - 1)
            if n:
                session.ran_launches(n, last, runtime)
                i += n - 1
                continue
        session.last_seq = seq  # what a migration's moved notice says was run (the client resends the rest)
        if call_id == wire.GOODBYE:
            if len(args) == 3 and all(type(a) is int for a in args):
                session.client_counts = args
            return False
        if sync == wire.OUT_LATER:
            # an async D2H copy whose data the client takes before its next sync call's reply: in a
            # LATE_OUT message, or written into the pinned memory it names (a --failover session here)
            res = run(session, call_id, args, ())
            if not res.rc and type(shm) is Pinned:
                res = fill_pinned(session, shm, res.bulk)
            elif not res.rc:
                data = tuple(bytes(f) for f in res.bulk)  # copied: the sim's is a view of device memory
                if len(session.later) >= wire.LATE_MAX_COPIES or \
                        sum(map(len, data)) + sum(sum(map(len, d)) for _, d in session.later) > wire.LATE_MAX_BYTES:
                    res = _LATE_REFUSED
                else:
                    session.later.append((seq, data))
            if res.rc and session.deferred is None:
                session.deferred = (res.rc, res.message)
            continue
        if sync and sync != wire.PIECE_IN and session.later:
            _send_late(sock, ident, session)
        if sync:
            # The client waits from here: the GPU goes back, a real GPU's timing closes. A message's
            # first call finds that done already (the last message ended with a settle, and nothing
            # runs between messages); the settle at this message's end charges what completed since.
            if i > 1:
                settle()
            if launcher is not None and call_id in launcher.wait_ids and shm is None and session.deferred is None \
                    and session.sticky is None and session.piece_error is None \
                    and launcher.wait(body[0].buffer, session.messages, i - 1):
                # a stream query or synchronize whose stream is done, answered by the compiled loop
                answer_wait(sock, ident, seq, session, launcher.face, session.device.take_output())
                continue
        if bulk:
            if session.bulk is not None and shm is None and (c := copy_of(call_id, args)) is not None and c.h2d:
                # a frame still sealed on the bulk channel goes to an H2D copy as it is (the software
                # GPU opens it straight into device memory: Sealed), and one on the data stream too (read
                # straight into device memory: Streamed)
                bulk = [f if type(f) in IN_PLACE else f.buffer for f in bulk]
            else:
                bulk = [f.buffer for f in bulk]
            session.bytes_in += sum(map(len, bulk))
        if call_id == wire.UNPIN:
            unpin(sock, ident, seq, sync, args, session, log)
            continue
        if call_id == wire.MAP_HOST:
            map_host(sock, ident, seq, sync, args, session)
            continue
        if call_id == wire.PARAMS:
            params(sock, ident, seq, sync, args, session, run)
            continue
        if sync == wire.PIECE_IN:  # a piece of a large H2D copy (server/pieces.py)
            run_piece_in(session, run, call_id, args, bulk)
            continue
        if call_id == wire.CHECKPOINT and sync:
            failover.checkpoint(sock, ident, seq, args, session, session.backend_name, log)
            continue
        if call_id == wire.RESTORE and sync:
            failover.restore(sock, ident, seq, bulk, session, session.backend_name, log)
            continue
        if call_id == wire.BARRIER:
            # a sync no-op: its reply says all before it ran; errors and printf output stay for
            # the program's own next synchronising call
            if sync:
                sock.send_multipart([ident, wire.encode_reply(seq, 0)])
            continue
        if session.piece_error is not None:
            res = take_piece_error(session)  # an earlier piece of this copy failed: so did the copy
        elif sync == wire.SYNC_PIECES_OUT and shm is None and \
                (res := run_d2h_pieces(sock, ident, seq, session, run, call_id, args)) is not None:
            pass
        elif shm is not None:  # the call's copy record (protocol/contract/envelope.toml), by its type
            kind = type(shm)
            if kind is Shm:
                res = run_shm(session, run, call_id, args, bulk, shm, sync, dispatcher)
            elif kind is Staged:
                res = run_staged(session, run, call_id, args, shm, sync, dispatcher)
            else:
                res = run_pinned(session, run, call_id, args, shm)
        else:
            res = run(session, call_id, args, bulk)
        if not sync:
            if res.rc and session.deferred is None:
                session.deferred = (res.rc, res.message)
            continue
        deferred, msg = session.deferred or (0, "")
        session.deferred = None
        if res.rc:
            msg = res.message
        # Device printf reaches the program at its next synchronising call, as on a GPU.
        output = session.device.take_output()
        if shm is not None and res.bulk and sync and (type(shm) is Shm or type(res.bulk) is Placed):
            regions = list(res.bulk) if type(res.bulk) is Placed else session.shm.put(res.bulk, shm.room)
            if regions is not None:
                sock.send(ident, zmq.SNDMORE)
                sock.send(wire.encode_reply(seq, res.rc, res.outs, deferred, msg, output, regions))
                continue
        head = wire.encode_reply(seq, res.rc, res.outs, deferred, msg, output)
        if res.bulk:
            session.bytes_out += sum(map(len, res.bulk))
            sock.send_multipart([ident, head, *res.bulk], copy=False)
        else:
            sock.send(ident, zmq.SNDMORE)
            sock.send(head)
    settle()
    return True


_LATE_REFUSED = Result(driver_code("CUDA_ERROR_INVALID_VALUE"),
                       message=f"more than {wire.LATE_MAX_COPIES} copies or {wire.LATE_MAX_BYTES} bytes "
                               "wait to go with the next reply (a client keeps below that)")


def _send_late(sock, ident, session) -> None:
    """The data of the async D2H copies run since the last reply (wire.OUT_LATER), each as a message
    of its own ahead of the reply the client waits for."""
    for seq, frames in session.later:
        session.bytes_out += sum(map(len, frames))
        sock.send_multipart([ident, wire.encode_reply(seq, wire.LATE_OUT), *frames], copy=False)
    session.later.clear()


