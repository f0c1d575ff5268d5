"""The source's side of a live migration: pre-copy while the program runs, stop-and-copy at a call
boundary, then redirect the client.

Pre-copy runs in a thread of the worker beside the one serving the program (hashing, compression
and the network release the GIL): it asks the target to allocate the session's layout — the check
that the session fits, made while nothing has stopped — then sends every written chunk, then again
the chunks that changed, round after round, until a round finds little changed (or the program made
no call during it) or the rounds run out. The worker's loop then stops between two messages and
``commit`` sends what changed since, the final layout and the objects: the pause is that last
round plus the target's restore. A real GPU cannot say which chunks changed without reading them
back, so on the cuda backend pre-copy is skipped and the commit copies everything
(``Device.precopy`` False)."""
from __future__ import annotations

import threading
import time
from collections import deque

import zmq
import zmq.utils.monitor

from rgpu.protocol import curve, wire

from ..checkpoint import session as ckpt
from ..checkpoint.image import CheckpointError
from ..checkpoint.memory import Copier
from ..errors import CudaError
from .transfer import REPLY_TIMEOUT_S, Link, MigrationFailed

PRECOPY_ROUNDS = 4
CONVERGED_BYTES = 4 << 20   # a round that sent less than this is close enough: stop now
BATCH_RAW = 16 << 20        # raw bytes of chunks per message
IN_FLIGHT = 3               # pre-copy messages sent before the oldest one's reply is waited for
ALIVE_S = 1.0
INCOMING_TIMEOUT_S = 40.0   # the target may have to start a worker first (its HELLO_WAIT_S is 30)
UNREACHABLE_S = 5.0


def parse_target(to: str) -> tuple[str, str, bytes | None, int]:
    """``tcp://host:port[@KEY][#GPU]`` -> (supervisor URL with its key, address without it, the
    server's public key or None, GPU index)."""
    base, _, gpu = to.partition("#")
    address, key = curve.split_server_url(base)
    try:
        index = int(gpu) if gpu else 0
    except ValueError:
        raise MigrationFailed(f"bad target {to!r}: the GPU after # must be a number") from None
    return base, address, key, index


def endpoint_on(endpoint: str, address: str) -> str:
    """A worker's endpoint as its supervisor reports it (tcp://*:PORT means its own host)."""
    if "://*:" in endpoint and address.startswith("tcp://"):
        return address.rsplit(":", 1)[0] + endpoint[endpoint.index("://*:") + 4:]
    return endpoint


def _ask(ctx: zmq.Context, url: str, req: dict, keys: curve.Keypair) -> dict:
    """One request to a target's supervisor: refused at once when nothing answers the connection
    (UNREACHABLE_S), else waited for up to INCOMING_TIMEOUT_S (it may start a worker first)."""
    address, server_key = curve.split_server_url(url)
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    curve.limit(sock, 1 << 20)
    if server_key is not None:
        curve.as_client(sock, keys, server_key)
    up = zmq.EVENT_HANDSHAKE_SUCCEEDED if server_key is not None else zmq.EVENT_CONNECTED
    monitor = sock.get_monitor_socket(up | zmq.EVENT_HANDSHAKE_FAILED_AUTH | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL)
    try:
        sock.connect(address)
        sock.send(wire.pack(req))
        start, connected = time.monotonic(), False
        while True:
            if sock.poll(100):
                return wire.unpack(sock.recv())
            while monitor.poll(0):
                event = zmq.utils.monitor.recv_monitor_message(monitor)["event"]
                if event == up:
                    connected = True
                elif event != up:
                    raise MigrationFailed(f"{address} refused this server's connection (not of its pool?)")
            waited = time.monotonic() - start
            if not connected and waited > UNREACHABLE_S:
                raise MigrationFailed(f"{address} is unreachable")
            if waited > INCOMING_TIMEOUT_S:
                raise MigrationFailed(f"{address} did not answer within {INCOMING_TIMEOUT_S:g} s")
    finally:
        sock.disable_monitor()
        monitor.close(0)
        sock.close(0)


class Outbound:
    """One migration of this worker's session; ``start`` the pre-copy, ``commit`` when it is done."""

    def __init__(self, session, order: dict, ctx: zmq.Context, conf: dict, assignment: dict, log):
        self.session, self.order, self.ctx, self.assignment = session, order, ctx, assignment
        self.id, self.to = order["id"], order["to"]
        self.backend = conf["device"]
        self.log = log.bind(migration=self.id, to=self.to)
        self.keys = curve.new_keypair()  # this transfer's own: the target worker admits it alone
        self.cluster_keys = curve.Keypair(*conf["cluster_keys"]) if conf.get("cluster_keys") else None
        self.copier = Copier(session.device)
        self.state, self.error = "starting", ""
        self.link: Link | None = None
        self.target: dict = {}
        self.sent_layout: list | None = None
        # session.calls as the worker's loop last saw it between two messages (no call in flight:
        # every call counted had queued its work), and as the last pre-copy round began after that
        # work was all done (or None): unchanged at the stop, that round read the memory as it is.
        # This holds while every call that can write device memory (however it is served: the
        # dispatcher, the compiled loop's launches and steps, pieces) counts in session.calls.
        self.idle_calls: int | None = None
        self.quiet_calls: int | None = None
        self.stats = {"precopy_rounds": 0, "precopy_bytes": 0, "final_bytes": 0, "final_read_bytes": 0, "wire_bytes": 0,
                      "memory_bytes": 0, "pause_s": 0.0, "precopy_s": 0.0}
        self.abandoned = False  # set by abandon(), on the worker's loop; the pre-copy thread stops at it
        self.thread = threading.Thread(target=self._run, name="rgpu-migrate", daemon=True)

    def start(self) -> None:
        """Checks that the session can be captured at all (handles the checkpoint does not know,
        a device that cannot restore at the same addresses: refused now, on the worker's loop,
        before anything stops), then starts the pre-copy thread. Raises MigrationFailed."""
        try:
            ckpt.describe(self.session, contents=False)
        except (CheckpointError, CudaError) as e:
            raise MigrationFailed(getattr(e, "message", None) or str(e)) from None
        self.started = time.monotonic()
        self.idle_calls = self.session.calls  # on the worker's loop, between two messages
        self.thread.start()

    def precopy_done(self) -> bool:
        """Asked by the worker's loop between two messages."""
        self.idle_calls = self.session.calls
        return not self.thread.is_alive()

    # -- the pre-copy thread ------------------------------------------------------------------
    def _run(self) -> None:
        try:
            self._open()
            if getattr(self.session.device, "precopy", True):
                self._precopy()
            self.state = "ready"
        except MigrationFailed as e:
            self.state, self.error = "failed", str(e)
        except (CheckpointError, CudaError) as e:
            self.state, self.error = "failed", getattr(e, "message", None) or str(e)
        except Exception as e:  # a bug ends the migration, never the session
            self.log.exception("migration_crashed")
            self.state, self.error = "failed", f"internal error {e!r}"
        self.stats["precopy_s"] = round(time.monotonic() - self.started, 4)

    def _open(self) -> None:
        supervisor, address, server_key, gpu = parse_target(self.to)
        dev = self.session.device
        a = self.assignment
        layout = dev.memory_layout()
        req = {"op": "incoming", "proto": wire.PROTOCOL_VERSION, "gpu": gpu, "vgpu": a.get("vgpu"),
               "lease": self.order.get("token"), "client": a.get("client", "?"),
               "source_key": self.keys.public.decode(),
               "client_key": a["client_key"].decode() if a.get("client_key") else None,
               "backend": self.backend, "arch": dev.arch_name(), "window": dev.window(),
               "memory": sum(span for _, _, span in layout)}
        reply = _ask(self.ctx, supervisor, req, self.cluster_keys or self.keys)
        if not reply.get("ok"):
            raise MigrationFailed(f"{address} refused the session: {reply.get('message')}")
        self.target = {"endpoint": endpoint_on(reply["endpoint"], address), "session": reply["session"],
                       "key": reply["key"], "url": self.to}
        self.link = Link(self.ctx, self.target["endpoint"], server_key, self.keys)
        self.link.request({"op": "transfer", "session": reply["session"], "key": reply["key"]})
        self._send_layout(layout, meta=ckpt.meta_of(self.session, self.backend))
        self.log.info("migration_target_ready", endpoint=self.target["endpoint"])

    def _send_layout(self, layout, meta=None) -> None:
        if layout != self.sent_layout:
            self.link.request({"op": "layout", "allocations": layout, **({"meta": meta} if meta else {})})
            self.sent_layout = layout
            self.copier.forget_outside(layout)

    def _send_chunks(self, chunks) -> int:
        """Sends (addr, n, frame) chunks in messages of about BATCH_RAW raw bytes, up to IN_FLIGHT of
        them unanswered: the next batch is read and compressed while the target restores the last
        (the two were taking turns: 0.45 GB/s between two servers of an H200); returns raw bytes
        once the target has applied every one."""
        total, batch, raw, waiting = 0, [], 0, deque()
        for c in chunks:
            batch.append(c)
            raw += c[1]
            if raw >= BATCH_RAW:
                waiting.append(self._flush(batch))
                total, batch, raw = total + raw, [], 0
                if len(waiting) >= IN_FLIGHT:
                    self.link.wait(waiting.popleft(), "chunks")
        if batch:
            waiting.append(self._flush(batch))
            total += raw
        while waiting:
            self.link.wait(waiting.popleft(), "chunks")
        return total

    def _flush(self, batch) -> int:
        if self.abandoned:  # the session ended meanwhile: the worker's loop waits for this thread to stop
            raise MigrationFailed("the move was abandoned during the pre-copy (the session ended)")
        return self.link.submit({"op": "chunks", "chunks": [[a, n] for a, n, _ in batch]}, [f for _, _, f in batch])

    def _precopy(self) -> None:
        dev = self.session.device
        for round_ in range(PRECOPY_ROUNDS):
            if self.abandoned:
                raise MigrationFailed("the move was abandoned during the pre-copy (the session ended)")
            calls, idle = self.session.calls, self.idle_calls
            # what the calls up to `idle` made is all in memory now (or False: the stop reads again)
            quiet = idle is not None and dev.quiesce()
            layout = dev.memory_layout()
            self._send_layout(layout)
            pieces = self.copier.pieces(layout)
            sent = self._send_chunks(self.copier.changed(pieces))
            self.copier.prepare(len(pieces))  # the next round's and the stop's digests: scratch sized off the pause
            self.stats["precopy_rounds"] = round_ + 1
            self.stats["precopy_bytes"] += sent
            self.quiet_calls = idle if quiet else None
            if round_ > 0 and (sent < CONVERGED_BYTES or self.session.calls == calls):
                break
            if round_ == 0 and self.session.calls == calls:
                break  # nothing ran while the whole of it went across: nothing to catch up on

    # -- the stop, on the worker's loop --------------------------------------------------------
    def commit(self, done_seq: int) -> bytes:
        """Stop-and-copy: the session's last changes and its objects go to the target, which
        restores them. Returns the moved notice for the client; raises MigrationFailed (the session
        then carries on here, untouched)."""
        if self.state != "ready":
            raise MigrationFailed(self.error or "the pre-copy did not finish")
        t0 = time.monotonic()
        session, dev = self.session, self.session.device
        try:
            dev.synchronize()
            state, images = ckpt.describe(session)
        except (CheckpointError, CudaError) as e:
            raise MigrationFailed(getattr(e, "message", None) or str(e)) from None
        layout = state["device"]["allocations"]
        self.copier.forget_outside(layout)
        if self.quiet_calls is not None and session.calls == self.quiet_calls and layout == self.sent_layout:
            # no call since the last round, which read after every earlier call's work was done:
            # what it sent is the memory now (a real GPU cannot say what changed; re-reading it
            # all would be the whole pause)
            chunks = []
        else:
            pieces = self.copier.pieces(layout)
            self.stats["final_read_bytes"] = sum(n for _, n in pieces)  # read during the pause
            try:
                chunks = list(self.copier.changed(pieces))  # the program waits on the loop
            except CheckpointError as e:  # a variable's address stored since the pre-copy read
                raise MigrationFailed(str(e)) from None
        frames = [f for _, _, f in chunks] + list(images.values())
        self.link.request({"op": "commit", "state": state, "allocations": layout,
                           "chunks": [[a, n] for a, n, _ in chunks],
                           "images": [[d, len(b)] for d, b in images.items()]}, frames)
        self.stats.update(pause_s=round(time.monotonic() - t0, 4), final_bytes=sum(n for _, n, _ in chunks),
                          wire_bytes=self.copier.wire_bytes + sum(map(len, images.values())),
                          memory_bytes=sum(span for _, _, span in layout))
        self.state = "committed"
        t = self.target
        return wire.encode_reply(0, wire.MOVED, wire.write_moved(
            wire.Moved(t["url"], t["endpoint"], t["session"], t["key"], done_seq)))

    def abandon(self) -> None:
        """The migration failed or the session ends: the target frees what it took. A pre-copy still
        running is told and waited for first (it stops at its next batch): the link is one ZeroMQ
        socket, never used by two threads at once."""
        self.abandoned = True
        if self.thread.is_alive() and self.thread is not threading.current_thread():
            self.thread.join(REPLY_TIMEOUT_S + 5)  # a request's own bound, then it gives up
            if self.thread.is_alive():  # stuck past that: its socket is left to it, the target times out
                self.link = None
                return
        if self.link is not None:
            self.link.send({"op": "abort"})
            self.link.close()
            self.link = None


class Redirect:
    """A worker whose session moved: it answers every message with the moved notice, keeps the
    target told that the client may still come, and ends once the client got there (or is gone)."""

    def __init__(self, link: Link, notice: bytes):
        self.link, self.notice = link, notice
        self.last_alive = 0.0
        self.answered = 0  # messages answered with the notice
        self.drained = 0   # their data-stream frames, read first (the client writes them before it reads)

    def stats(self) -> dict:
        return {"redirected_messages": self.answered, "redirect_drained_frames": self.drained}

    def tick(self, now: float) -> str | None:
        if now - self.last_alive >= ALIVE_S:
            self.link.send({"op": "alive"})
            self.last_alive = now
        for event in self.link.events():
            if event.get("op") == "attached":
                return "moved"
        return None

    def client_gone(self) -> None:
        self.link.send({"op": "client_gone"})

    def close(self) -> None:
        self.link.close()
