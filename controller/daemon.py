"""``rgpu-controller``: the ZeroMQ ROUTER loop in front of the Controller.

Wire: a client DEALER sends one frame, a msgpack map (see ``handlers``); the reply comes back as
one frame. REQ clients (an empty delimiter frame) work too. A message that is not a msgpack map,
has the wrong number of frames, or names an unknown command gets an error reply; a handler that
crashes gets an ``internal`` error reply and is logged — the daemon serves on either way.
"""
from __future__ import annotations

import logging
import signal
import sys
import time

import click
import msgpack
import structlog
import zmq

from rgpu import health
from rgpu.protocol.tokens import SecretError, load_secret

from .handlers import handle
from .leases import DEFAULT_TOKEN_LIFETIME
from .service import Controller
from .store import Store, StoreError

log = structlog.get_logger("rgpu.controller")
TICK_S = 0.25          # how often expiry, heartbeats and the wait queue are looked at
POLL_MS = 100          # the receive timeout: how quickly a stop request is noticed
PRUNE_EVERY_S = 3600.0
MAX_MESSAGE = 1 << 20  # no legitimate request comes near this; refuse before unpacking


def configure_logging(level: str = "info") -> None:
    structlog.configure(
        processors=[structlog.processors.add_log_level,
                    structlog.processors.TimeStamper(fmt="iso", utc=True),
                    structlog.processors.format_exc_info,
                    structlog.processors.LogfmtRenderer(key_order=["timestamp", "level", "event"])],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr), cache_logger_on_first_use=True)


def _decode(payload: bytes):
    if len(payload) > MAX_MESSAGE:
        return None, f"request of {len(payload)} bytes exceeds {MAX_MESSAGE}"
    try:
        return msgpack.unpackb(payload, raw=False), None
    except Exception as exc:     # msgpack raises several unrelated types for garbage
        return None, f"request is not msgpack: {exc.__class__.__name__}"


class Daemon:
    def __init__(self, ctl: Controller, listen: str):
        self.ctl, self.listen = ctl, listen
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.ROUTER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.bind(listen)
        self.endpoint = self.sock.getsockopt_string(zmq.LAST_ENDPOINT)
        self.running = True

    def stop(self, *_):
        self.running = False

    def _serve_one(self, frames: list[bytes]) -> None:
        envelope, body = frames[:-1], frames[-1]
        reply: dict
        if len(frames) < 2 or (len(frames) > 2 and frames[-2] != b""):
            envelope = frames[:1]
            reply = {"ok": False, "error": "bad_request",
                     "message": "send exactly one msgpack frame per request"}
        else:
            req, err = _decode(body)
            if err:
                reply = {"ok": False, "error": "bad_request", "message": err}
            else:
                try:
                    reply = handle(self.ctl, req)
                except Exception as exc:
                    log.exception("request.crashed", cmd=str(req.get("cmd"))[:40])
                    reply = {"ok": False, "error": "internal",
                             "message": f"controller error {exc.__class__.__name__}: {exc}; see its log"}
                if isinstance(req, dict) and "id" in req:
                    reply["id"] = req["id"]
            if not reply.get("ok"):
                log.info("request.refused", error=reply.get("error"), message=reply.get("message"))
        try:
            self.sock.send_multipart([*envelope, msgpack.packb(reply, use_bin_type=True)],
                                     flags=zmq.NOBLOCK)
        except zmq.Again:
            log.warning("reply.dropped", reason="client not reading")

    def run(self) -> None:
        poller = zmq.Poller()
        poller.register(self.sock, zmq.POLLIN)
        next_tick = next_prune = time.monotonic()
        log.info("controller.listening", endpoint=self.endpoint)
        while self.running:
            if poller.poll(POLL_MS):
                for _ in range(256):    # drain a burst, but let ticks happen under load
                    try:
                        frames = self.sock.recv_multipart(zmq.NOBLOCK)
                    except zmq.Again:
                        break
                    self._serve_one(frames)
            now = time.monotonic()
            if now >= next_tick:
                next_tick = now + TICK_S
                try:
                    self.ctl.tick()
                    if now >= next_prune:
                        next_prune = now + PRUNE_EVERY_S
                        self.ctl.prune()
                except Exception:
                    log.exception("tick.crashed")
        self.sock.close()
        self.ctx.term()
        log.info("controller.stopped")


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--listen", default="tcp://127.0.0.1:7440", show_default=True, help="ZeroMQ endpoint to bind.")
@click.option("--db", "db_path", required=True, type=click.Path(dir_okay=False), help="SQLite state file (created if missing).")
@click.option("--secret-file", type=click.Path(dir_okay=False), default=None,
              help="Cluster secret file (else RGPU_CLUSTER_SECRET, RGPU_CLUSTER_SECRET_FILE, or ~/.config/rgpu/cluster-secret).")
@click.option("--heartbeat-interval", default=1.0, show_default=True, help="Seconds between server heartbeats.")
@click.option("--heartbeat-timeout", default=5.0, show_default=True, help="Silence after which a server is down.")
@click.option("--token-lifetime", default=DEFAULT_TOKEN_LIFETIME, show_default=True, help="Seconds a lease token opens sessions.")
@click.option("--log-level", default="info", type=click.Choice(["debug", "info", "warning", "error"]))
@click.option("--health-listen", default=None, metavar="HOST:PORT", help="Serve GET /healthz over HTTP here.")
def main(listen, db_path, secret_file, heartbeat_interval, heartbeat_timeout, token_lifetime, log_level,
         health_listen):
    """rgpu-controller: the pool of virtual GPUs, its leases and placement."""
    configure_logging(log_level)
    try:
        secret = load_secret(secret_file, create=True)
        store = Store(db_path)
        store.start_checkpointer()
    except (SecretError, StoreError) as exc:
        raise click.ClickException(str(exc)) from None
    ctl = Controller(store, secret, heartbeat_interval=heartbeat_interval,
                     heartbeat_timeout=heartbeat_timeout, token_lifetime=token_lifetime)
    try:
        daemon = Daemon(ctl, listen)
    except zmq.ZMQError as exc:
        raise click.ClickException(f"cannot listen on {listen}: {exc}") from None
    if health_listen:
        health.serve(health_listen, health.controller_check(daemon.endpoint))
    signal.signal(signal.SIGTERM, daemon.stop)
    signal.signal(signal.SIGINT, daemon.stop)
    try:
        daemon.run()
    finally:
        store.close()


if __name__ == "__main__":
    main()
