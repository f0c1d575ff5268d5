"""``rgpu-controller``: the ZeroMQ ROUTER loop in front of the Controller.

Wire: a client DEALER sends one frame, a msgpack map (see ``handlers``); the reply comes back as
one frame. REQ clients (an empty delimiter frame) work too. A message that is not a msgpack map,
has the wrong number of frames, or names an unknown command gets an error reply; a handler that
crashes gets an ``internal`` error reply and is logged — the daemon serves on either way.

The socket is a CURVE server with the controller's key (derived from the cluster secret); its ZAP
handler (users.policy) admits the servers' key and the users of the users directory and refuses
every other peer during the handshake. Each request is handled as its connection's ``Peer``. No
message part may exceed MAX_MESSAGE: a larger one disconnects its sender before it is buffered.

With ``--store etcd://...`` the daemon is one replica of a cluster (election.py): it serves while
it leads; while it follows, ``ping`` answers with ``role: follower`` and the leader's URL, and
every other command with ``not_leader`` and that URL, which the clients follow
(client/controller_client.py). The CURVE keys are the cluster's, so a client trusts any replica.
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
from rgpu.commands import DaemonCommand
from rgpu.config import config_dir
from rgpu.protocol import curve, limits
from rgpu.protocol.tokens import SecretError, load_secret

from . import users
from .handlers import handle
from .election import Replica
from .leases import DEFAULT_TOKEN_LIFETIME
from .service import MAX_LEASES_PER_USER, RESTART_GRACE, Controller
from .store import StoreError
from .store_etcd import EtcdStore, Fenced
from .stores import open_store, tls_files, tls_options

log = structlog.get_logger("rgpu.controller")
TICK_S = 0.25          # how often expiry, heartbeats and the wait queue are looked at
POLL_MS = 100          # the receive timeout: how quickly a stop request is noticed
LINGER_MS = 1          # a leader on etcd waits this long for the rest of a burst (_gather)
MAX_BURST = 256        # requests served together at most: ticks happen under load too
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
# The replies of a burst whose changes etcd did not take: nothing of them happened (unless etcd
# could not be asked whether the transaction went in: store_etcd.py's commit mark).
_NOT_STORED = msgpack.packb({"ok": False, "error": "unavailable",
                             "message": "the controller could not store the change in etcd; nothing was done, "
                                        "try again"})
_NOT_STORED_FENCED = msgpack.packb({"ok": False, "error": "not_leader", "leader": "",
                                    "message": "this rgpu-controller replica no longer leads; nothing was done"})


class Daemon:
    def __init__(self, ctl: Controller | None, listen: str, users_dir: str | Path, *,
                 replica: Replica | None = None, secret: bytes | None = None):
        """``ctl``: the Controller of a lone daemon; a replica of a cluster passes ``replica``
        (which holds a Controller while it leads) and the cluster ``secret`` instead."""
        self._ctl, self.replica, self.listen = ctl, replica, listen
        secret = ctl.secret if ctl is not None else secret
        self.ctx = zmq.Context()
        self.zap = curve.Zap(self.ctx, users.policy(users.Directory(users_dir),
                                                    curve.server_role_keys(secret).public,
                                                    curve.operator_keys(secret).public))
        self.zap.start()
        self.sock = self.ctx.socket(zmq.ROUTER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.setsockopt(zmq.SNDHWM, 10000)
        self.sock.setsockopt(zmq.RCVHWM, 1000)
        curve.limit(self.sock, MAX_MESSAGE)
        curve.as_server(self.sock, curve.controller_keys(secret))
        try:
            self.sock.bind(listen)
        except zmq.ZMQError:
            self.close()
            raise
        self.endpoint = self.sock.getsockopt_string(zmq.LAST_ENDPOINT)
        self.running = True
        self._last_burst = 1     # requests the last burst held (_gather)

    @property
    def ctl(self) -> Controller | None:
        """The Controller serving now: this daemon's, or the replica's while it leads."""
        return self.replica.ctl if self.replica is not None else self._ctl

    def stop(self, *_):
        self.running = False

    def _handle(self, req, peer: users.Peer) -> dict:
        ctl = self.ctl
        if ctl is None:
            return self._not_leader(req, peer)
        try:
            reply = handle(ctl, req, peer)
        except Fenced as exc:       # another replica leads since: this one's pool is stale
            self.replica.step_down(str(exc))
            return self._not_leader(req, peer)
        if self.replica is not None and isinstance(req, dict) and req.get("cmd") == "ping":
            reply["role"] = "leader"
        return reply

    def _not_leader(self, req, peer: users.Peer) -> dict:
        leader = self.replica.leader_url()
        if isinstance(req, dict) and req.get("cmd") == "ping":
            return {"ok": True, "role": "follower", "leader": leader, "now": time.time(),
                    "you": {"kind": peer.kind, "name": peer.name, "admin": peer.admin}}
        return {"ok": False, "error": "not_leader", "leader": leader,
                "message": "this rgpu-controller replica does not lead; "
                           + (f"the leader is {leader}" if leader else "no replica leads yet (election under way)")}

    def close(self) -> None:
        self.sock.close(0)
        self.zap.stop()
        self.ctx.term()

    def _serve_one(self, parts: list) -> None:
        self._send(*self._answer(parts))

    def _serve_burst(self, burst: list) -> None:
        """Serve the requests that arrived together. A leading replica gathers their changes into
        one etcd transaction (store_etcd.py, group commit), committed before any reply is sent;
        if it cannot be committed, none of them happened: the replies say so and the replica
        loads its pool again from etcd (or steps down, when another replica leads since)."""
        store = self.replica.store if self.replica is not None and self.ctl is not None else None
        if store is None:
            for parts in burst:
                self._serve_one(parts)
            return
        answers = []
        try:
            with store.batch():
                for parts in burst:
                    answers.append(self._answer(parts))
            failure = store.failed      # a part committed early (a large burst) that failed
        except Exception as exc:
            failure = exc
        if isinstance(failure, Fenced):
            self.replica.step_down(str(failure))
            answers = [(envelope, _NOT_STORED_FENCED) for envelope, _ in answers]
        elif failure is not None:
            log.warning("changes_not_stored", requests=len(answers), reason=str(failure))
            answers = [(envelope, _NOT_STORED) for envelope, _ in answers]
            self.replica.reload()
        for answer in answers:
            self._send(*answer)

    def _answer(self, parts: list) -> tuple[list, bytes]:
        """The reply to one request. Whatever it holds, the loop goes on: a failure this method did
        not foresee is logged without the request's content and answered with a fixed reply."""
        try:
            envelope, reply = self._reply_to(parts)
            return envelope, msgpack.packb(reply, use_bin_type=True)
        except Exception:
            log.exception("request_crashed")
            return [parts[0].bytes], _INTERNAL

    def _send(self, envelope: list, payload: bytes) -> None:
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
                    reply = self._handle(req, peer)
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

    def _drain(self, burst: list) -> None:
        while len(burst) < MAX_BURST:
            try:
                burst.append(self.sock.recv_multipart(zmq.NOBLOCK, copy=False))
            except zmq.Again:
                return

    def _gather(self, poller: zmq.Poller) -> list:
        """The requests waiting now. A leader on etcd commits a burst's changes in one transaction
        (group commit), and the clients its last commit answered send their next requests at
        once, but not all before the first of them is read: while fewer have come than that
        commit carried, it waits up to LINGER_MS for each further one, so that they share one
        transaction (fewer raft rounds per request) instead of spreading over two. One client
        alone (a last burst of one) never waits."""
        burst: list = []
        self._drain(burst)
        if self.replica is not None and self.ctl is not None:
            while len(burst) < min(self._last_burst, MAX_BURST) and poller.poll(LINGER_MS):
                self._drain(burst)
            self._last_burst = len(burst)
        return burst

    def run(self) -> None:
        poller = zmq.Poller()
        poller.register(self.sock, zmq.POLLIN)
        next_tick = next_prune = time.monotonic()
        log.info("controller_listening", endpoint=self.endpoint)
        while self.running:
            if poller.poll(POLL_MS):
                self._serve_burst(self._gather(poller))
            now = time.monotonic()
            if now >= next_tick:
                next_tick = now + TICK_S
                if self.replica is not None:
                    try:
                        self.replica.step()
                    except Exception:
                        log.exception("election_crashed")
                ctl = self.ctl
                try:
                    if ctl is not None:
                        ctl.tick()
                        if now >= next_prune:
                            next_prune = now + PRUNE_EVERY_S
                            ctl.prune()
                except Fenced as exc:
                    self.replica.step_down(str(exc))
                except Exception:
                    log.exception("tick_crashed")
        if self.replica is not None:
            self.replica.close()
        self.close()
        log.info("controller_stopped")


@click.command(cls=DaemonCommand, name="rgpu-controller", context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="rgpu-controller")
@click.option("--listen", default="tcp://127.0.0.1:7440", show_default=True, type=CONTROLLER_URL,
              help="ZeroMQ endpoint to bind: tcp://HOST:PORT (or HOST:PORT) or ipc://PATH.")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), help="SQLite state file (created if missing); the same as --store sqlite:PATH.")
@click.option("--store", "store_spec", metavar="STORE",
              help="Where the state lives: sqlite:PATH, or etcd://HOST:PORT[,HOST:PORT...][/PREFIX] for replicas "
                   "of one cluster (any number; one leads, elected in etcd); etcds://... talks TLS to etcd.")
@tls_options
@click.option("--advertise", default=None, type=CONTROLLER_URL, help="The URL clients reach this replica at (default: --listen); "
                                                 "followers redirect clients to the leader's.")
@click.option("--leader-ttl", type=click.IntRange(2, 60), default=3, show_default=True,
              help="Seconds a dead leader keeps the lead before another replica takes it (etcd only).")
@click.option("--secret-file", type=click.Path(dir_okay=False), default=None,
              help="Cluster secret file (else RGPU_CLUSTER_SECRET, RGPU_CLUSTER_SECRET_FILE, or ~/.config/rgpu/cluster-secret, "
                   "which the first daemon creates when no secret is configured). A file that is not there is an error "
                   "(see --init-secret).")
@click.option("--init-secret", is_flag=True,
              help="Create the cluster secret (32 random bytes, mode 0600) at --secret-file, or the default file, if it "
                   "does not exist yet; copy that file to every server of the pool.")
@click.option("--heartbeat-interval", type=click.FloatRange(min=0.05), default=1.0, show_default=True, help="Seconds between server heartbeats.")
@click.option("--heartbeat-timeout", type=click.FloatRange(min=0.1), default=5.0, show_default=True, help="Silence after which a server is down.")
@click.option("--token-lifetime", default=DEFAULT_TOKEN_LIFETIME, show_default=True, help="Seconds a lease token opens sessions after its lease's last renew (at least the lease's TTL): how "
                   "long a released lease's token still works on a server that missed the release.")
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
def main(listen, db_path, store_spec, advertise, leader_ttl, secret_file, init_secret, heartbeat_interval, heartbeat_timeout,
         token_lifetime, restart_grace, max_leases_per_user, share_only_users, metrics_tenants,
         users_dir, log_level, log_format, metrics_listen):
    """rgpu-controller: the pool of virtual GPUs, its leases and placement.

    Servers authenticate with the cluster secret, users with their credential (a CURVE certificate
    listed in --users). At start it writes its public certificate to <config>/controller.key and,
    if this account has none, an admin credential to <config>/credential (config: RGPU_CONFIG_DIR,
    else ~/.config/rgpu)."""
    if (db_path is None) == (store_spec is None):
        raise click.UsageError("name the state's store: --db PATH (SQLite) or --store sqlite:PATH|etcd://...|etcds://...")
    logs.configure("controller", log_level, log_format)
    users_dir = Path(users_dir) if users_dir else config_dir() / "users"
    try:
        secret = load_secret(secret_file, create=True, init=init_secret)
        try:
            users.bootstrap(users_dir, curve.controller_keys(secret).public)
        except OSError as exc:  # a read-only home (a container): the operator and issued users still work
            log.warning("users_bootstrap_failed", reason=str(exc))
        store = open_store(store_spec or f"sqlite:{db_path}", tls=tls_files())
        store.start_checkpointer()
    except (SecretError, StoreError, users.CredentialError, curve.CurveError, OSError) as exc:
        raise click.ClickException(str(exc)) from None

    def make_controller():
        return Controller(store, secret, heartbeat_interval=heartbeat_interval,
                          heartbeat_timeout=heartbeat_timeout, token_lifetime=token_lifetime,
                          restart_grace=restart_grace, max_leases_per_user=max_leases_per_user,
                          share_only_users=frozenset(share_only_users))
    if isinstance(store, EtcdStore):
        if advertise is None and any(f"//{host}:" in listen for host in ("0.0.0.0", "*", "[::]")):
            store.close()
            raise click.UsageError(f"--listen {listen} is no address clients can reach: give --advertise "
                                   f"tcp://HOST:PORT (the replicas that follow send clients to the leader's)")
        ctl, replica = None, Replica(store, make_controller, advertise or listen, ttl=leader_ttl)
    else:
        ctl, replica = make_controller(), None
    try:
        daemon = Daemon(ctl, listen, users_dir, replica=replica, secret=secret)
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
                         ControllerCollector(lambda: daemon.ctl, tenants=metrics_tenants))
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


def entry() -> None:
    """The ``rgpu-controller`` command: the daemon, or ``rgpu-controller migrate-store ...``."""
    import sys
    if sys.argv[1:2] == ["migrate-store"]:
        from .migrate_store import migrate_store
        migrate_store(sys.argv[2:], prog_name="rgpu-controller migrate-store")
    else:
        main()


if __name__ == "__main__":
    entry()
