"""``rgpu-controller``: the ZeroMQ ROUTER loop in front of the Controller.

Wire: a client DEALER sends one frame, a msgpack map (see ``handlers``); the reply comes back as
one frame. REQ clients (an empty delimiter frame) work too. A message that is not a msgpack map,
has the wrong number of frames, or names an unknown command gets an error reply; a handler that
crashes gets an ``internal`` error reply and is logged — the daemon serves on either way.

The socket is a CURVE server with the controller's key (derived from the cluster secret); its ZAP
handler (users.policy) admits the servers' key and the users of the users directory and refuses
every other peer during the handshake. Each request is handled as its connection's ``Peer``. No
message part may exceed MAX_MESSAGE: a larger one disconnects its sender before it is buffered.
"""
from __future__ import annotations

import signal
import time
from pathlib import Path

import click
import msgpack
import structlog
import zmq

from rgpu import __version__, health, logs
from rgpu.client.params import CONTROLLER_URL
from rgpu.config import config_dir
from rgpu.protocol import curve, limits
from rgpu.protocol.tokens import SecretError, load_secret

from . import users
from .handlers import handle
from .leases import DEFAULT_TOKEN_LIFETIME
from .service import MAX_LEASES_PER_USER, RESTART_GRACE, Controller
from .store import Store, StoreError

log = structlog.get_logger("rgpu.controller")
TICK_S = 0.25          # how often expiry, heartbeats and the wait queue are looked at
POLL_MS = 100          # the receive timeout: how quickly a stop request is noticed
PRUNE_EVERY_S = 3600.0
MAX_MESSAGE = 4 << 20  # no legitimate request comes near this (a heartbeat of thousands of leases)


def _decode(payload: bytes):
    """The request in ``payload``, or an error: too large, not msgpack, or nested deeper than any
    request is (limits.MAX_DEPTH; a deep value would break every recursive walk after this)."""
    if len(payload) > MAX_MESSAGE:
        return None, f"request of {len(payload)} bytes exceeds {MAX_MESSAGE}"
    try:
        return limits.unpack(payload, strict_map_key=True), None
    except ValueError as exc:
        return None, f"request is not a bounded msgpack value: {exc}"


# The reply when anything below the decoder fails in a way its own handling did not foresee:
# packed once, so that answering cannot itself fail.
_INTERNAL = msgpack.packb({"ok": False, "error": "internal", "message": "controller error; see its log"})


class Daemon:
    def __init__(self, ctl: Controller, listen: str, users_dir: str | Path):
        self.ctl, self.listen = ctl, listen
        self.ctx = zmq.Context()
        self.zap = curve.Zap(self.ctx, users.policy(users.Directory(users_dir),
                                                    curve.server_role_keys(ctl.secret).public,
                                                    curve.operator_keys(ctl.secret).public))
        self.zap.start()
        self.sock = self.ctx.socket(zmq.ROUTER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.setsockopt(zmq.SNDHWM, 10000)
        self.sock.setsockopt(zmq.RCVHWM, 1000)
        curve.limit(self.sock, MAX_MESSAGE)
        curve.as_server(self.sock, curve.controller_keys(ctl.secret))
        try:
            self.sock.bind(listen)
        except zmq.ZMQError:
            self.close()
            raise
        self.endpoint = self.sock.getsockopt_string(zmq.LAST_ENDPOINT)
        self.running = True

    def stop(self, *_):
        self.running = False

    def close(self) -> None:
        self.sock.close(0)
        self.zap.stop()
        self.ctx.term()

    def _serve_one(self, parts: list) -> None:
        """Serve one request. Whatever it holds, the loop goes on: a failure this method did not
        foresee is logged without the request's content and answered with a fixed reply."""
        try:
            envelope, reply = self._reply_to(parts)
            payload = msgpack.packb(reply, use_bin_type=True)
        except Exception:
            log.exception("request_crashed")
            envelope, payload = [parts[0].bytes], _INTERNAL
        try:
            self.sock.send_multipart([*envelope, payload], flags=zmq.NOBLOCK)
        except zmq.Again:
            log.warning("reply_dropped", reason="client not reading")
        except zmq.ZMQError as exc:   # the peer went away: nothing to answer
            log.info("reply_dropped", reason=str(exc))

    def _reply_to(self, parts: list) -> tuple[list, dict]:
        frames = [p.bytes for p in parts]
        envelope, body = frames[:-1], frames[-1]
        peer = users.Peer.from_user_id(curve.peer_id(parts[-1]))
        reply: dict
        if len(frames) < 2 or (len(frames) > 2 and frames[-2] != b""):
            envelope = frames[:1]
            reply = {"ok": False, "error": "bad_request",
                     "message": "send exactly one msgpack frame per request"}
        elif peer is None:   # cannot happen past the ZAP handler; refuse rather than guess
            reply = {"ok": False, "error": "forbidden", "message": "unauthenticated connection"}
        else:
            req, err = _decode(body)
            if err:
                reply = {"ok": False, "error": "bad_request", "message": err}
            else:
                try:
                    reply = handle(self.ctl, req, peer)
                except Exception as exc:
                    cmd = req.get("cmd") if isinstance(req, dict) else None
                    log.exception("request_crashed", cmd=limits.summary(cmd, 40), peer=peer.name)
                    reply = {"ok": False, "error": "internal",
                             "message": f"controller error {exc.__class__.__name__}: {exc}; see its log"}
                if isinstance(req, dict) and "id" in req:
                    reply["id"] = req["id"]
            if not reply.get("ok"):
                log.info("request_refused", error=reply.get("error"), message=reply.get("message"),
                         peer=peer.name if peer else None)
        return envelope, reply

    def run(self) -> None:
        poller = zmq.Poller()
        poller.register(self.sock, zmq.POLLIN)
        next_tick = next_prune = time.monotonic()
        log.info("controller_listening", endpoint=self.endpoint)
        while self.running:
            if poller.poll(POLL_MS):
                for _ in range(256):    # drain a burst, but let ticks happen under load
                    try:
                        frames = self.sock.recv_multipart(zmq.NOBLOCK, copy=False)
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
                    log.exception("tick_crashed")
        self.close()
        log.info("controller_stopped")


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="rgpu-controller")
@click.option("--listen", default="tcp://127.0.0.1:7440", show_default=True, type=CONTROLLER_URL,
              help="ZeroMQ endpoint to bind: tcp://HOST:PORT (or HOST:PORT) or ipc://PATH.")
@click.option("--db", "db_path", required=True, type=click.Path(dir_okay=False), help="SQLite state file (created if missing).")
@click.option("--secret-file", type=click.Path(dir_okay=False), default=None,
              help="Cluster secret file (else RGPU_CLUSTER_SECRET, RGPU_CLUSTER_SECRET_FILE, or ~/.config/rgpu/cluster-secret).")
@click.option("--heartbeat-interval", type=click.FloatRange(min=0.05), default=1.0, show_default=True, help="Seconds between server heartbeats.")
@click.option("--heartbeat-timeout", type=click.FloatRange(min=0.1), default=5.0, show_default=True, help="Silence after which a server is down.")
@click.option("--token-lifetime", default=DEFAULT_TOKEN_LIFETIME, show_default=True, help="Seconds a lease token opens sessions.")
@click.option("--restart-grace", default=RESTART_GRACE, show_default=True,
              help="Seconds after a start during which no lease expires (its renewer may have been cut off).")
@click.option("--max-leases-per-user", type=click.IntRange(1), default=MAX_LEASES_PER_USER, show_default=True,
              help="Leases one user may hold at once (an admin's own are not counted).")
@click.option("--share-only-user", "share_only_users", multiple=True, metavar="NAME",
              help="A user who may reserve share-only leases (no quota enforced; admins may anyway); repeatable.")
@click.option("--metrics-tenants", is_flag=True,
              help="/metrics also lists each live lease's vGPUs with the lease id and its owner (anyone who can "
                   "reach /metrics then sees who holds what; by default only the pool's and GPUs' figures).")
@click.option("--users", "users_dir", type=click.Path(file_okay=False), default=None,
              help="Directory of the users' public certificates (default: <config>/users; see `rgpu user`).")
@logs.options
@health.listen_option
def main(listen, db_path, secret_file, heartbeat_interval, heartbeat_timeout, token_lifetime, restart_grace,
         max_leases_per_user, share_only_users, metrics_tenants, users_dir, log_level, log_format, metrics_listen):
    """rgpu-controller: the pool of virtual GPUs, its leases and placement.

    Servers authenticate with the cluster secret, users with their credential (a CURVE certificate
    listed in --users). At start it writes its public certificate to <config>/controller.key and,
    if this account has none, an admin credential to <config>/credential (config: RGPU_CONFIG_DIR,
    else ~/.config/rgpu)."""
    logs.configure("controller", log_level, log_format)
    users_dir = Path(users_dir) if users_dir else config_dir() / "users"
    try:
        secret = load_secret(secret_file, create=True)
        try:
            users.bootstrap(users_dir, curve.controller_keys(secret).public)
        except OSError as exc:  # a read-only home (a container): the operator and issued users still work
            log.warning("users_bootstrap_failed", reason=str(exc))
        store = Store(db_path)
        store.start_checkpointer()
    except (SecretError, StoreError, users.CredentialError, curve.CurveError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    ctl = Controller(store, secret, heartbeat_interval=heartbeat_interval,
                     heartbeat_timeout=heartbeat_timeout, token_lifetime=token_lifetime,
                     restart_grace=restart_grace, max_leases_per_user=max_leases_per_user,
                     share_only_users=frozenset(share_only_users))
    try:
        daemon = Daemon(ctl, listen, users_dir)
    except zmq.ZMQError as exc:
        store.close()
        raise click.ClickException(f"cannot listen on {listen}: {exc.strerror}"
                                   + (" (another process holds that port)" if exc.errno == zmq.EADDRINUSE else "")) from None
    if metrics_listen:
        # the probe pings as a holder of the cluster credential: the controller admits no stranger
        from rgpu.client.credentials import Credential

        from .metrics import ControllerCollector
        try:
            health.serve(metrics_listen, health.controller_check(daemon.endpoint, Credential.for_server(secret)),
                         ControllerCollector(ctl, tenants=metrics_tenants))
        except (OSError, ValueError) as exc:
            daemon.close()
            store.close()
            raise click.BadParameter(f"cannot serve HTTP on {metrics_listen}: {exc}", param_hint="--metrics-listen")
    signal.signal(signal.SIGTERM, daemon.stop)
    signal.signal(signal.SIGINT, daemon.stop)
    try:
        daemon.run()
    finally:
        store.close()


if __name__ == "__main__":
    main()
