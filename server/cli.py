"""``rgpu-server``: the command line of a GPU host's server — options, the GPU probe, the lease
gate, and (with ``--controller``) the registrar, then the supervisor's main loop."""
from __future__ import annotations

import os
import signal
import socket
from urllib.parse import urlsplit

import click
import zmq

from rgpu import __version__, health, logs
from rgpu.client.params import CONTROLLER_URL, CONTROLLER_URLS
from rgpu.commands import DaemonCommand
from rgpu.protocol import curve, tokens
from rgpu.units import SIZE

from . import wire_keys
from .gpus import NoDevice, parse_part, partition, probe
from .lease_gate import gate_for
from .module_cache import CacheError, DigestCache, default_dir
from .open_pacing import SESSION_OPEN_BURST, SESSION_OPEN_RATE
from .session_ports import parse_range
from .supervisor import MAX_SESSIONS_PER_USER, Supervisor, worker_bind
from .worker import SPIN_US


def advertise_url(listen: str) -> str:
    """The listen URL with a wildcard host replaced by this host's name (what clients can reach)."""
    parts = urlsplit(listen)
    if parts.scheme == "tcp" and parts.hostname in ("*", "0.0.0.0", "::", None):
        return f"tcp://{socket.getfqdn()}:{listen.rsplit(':', 1)[1]}"
    return listen


def _part(text: str | None) -> tuple[int, int] | None:
    try:
        return None if text is None else parse_part(text)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--gpu-part") from None


@click.command(cls=DaemonCommand, name="rgpu-server", context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="rgpu-server")
@click.option("--device", type=click.Choice(["sim", "cuda", "auto"]), default="auto", show_default=True,
              help="cuda drives the real GPUs through libcuda.so.1; sim is the software GPU; auto picks cuda if it works")
@click.option("--listen", default="tcp://127.0.0.1:7450", show_default=True, type=CONTROLLER_URL,
              help="tcp://HOST:PORT (or HOST:PORT) or ipc://PATH")
@click.option("--gpus", "count", type=int, default=1, show_default=True, help="number of software GPUs (sim)")
@click.option("--gpu-part", default=None, metavar="I/N", callback=lambda _c, _p, v: _part(v),
              help="serve part I of N of each GPU: 1/N of its memory, under an identity of its own (the GPU's "
                   "uuid/part-I-of-N), so that N servers on one GPU join one pool as N GPUs (to move or fail "
                   "sessions over between them, or to drain one part into the others and upgrade it); the parts "
                   "share the GPU's compute as processes do")
@click.option("--sim-memory", type=SIZE, default="8GiB", show_default=True,
              help="memory of each software GPU (a bare number is MiB; 512MiB, 8GiB, 16GB)")
@click.option("--sim-arch", default=None, metavar="sm_XY",
              help="architecture the software GPUs present (sm_75 ... sm_121, or sm_130; default sm_130, newer than "
                   "every SASS, so NVIDIA's libraries take their PTX paths; programs built for older -arch values run too)")
@click.option("--sim-jit", type=click.Choice(["on", "off"]), default=None,
              help="software GPUs run kernels compiled to native code (LLVM) where the compiler covers them, "
                   "interpreting the rest (env RGPU_SIM_JIT; default on)")
@click.option("--controller", default=lambda: os.environ.get("RGPU_CONTROLLER") or None, type=CONTROLLER_URLS,
              help="join this controller's pool: tcp://HOST:PORT or HOST:PORT, or its replicas comma-separated (env RGPU_CONTROLLER)")
@click.option("--advertise", default=None, type=CONTROLLER_URL, help="URL clients use to reach this server (default: --listen)")
@click.option("--secret-file", type=click.Path(dir_okay=False), default=None,
              help="cluster secret shared with the controller (else RGPU_CLUSTER_SECRET, RGPU_CLUSTER_SECRET_FILE, "
                   "or ~/.config/rgpu/cluster-secret with --controller); with a secret, sessions need a lease. "
                   "A file that is not there is an error (see --init-secret)")
@click.option("--init-secret", is_flag=True,
              help="create the cluster secret (32 random bytes, mode 0600) at --secret-file, or the default file, "
                   "if it does not exist yet; copy that file to the other hosts of the pool")
@click.option("--wire", type=click.Choice(["curve", "plain"]), default=None,
              help="curve: encrypted, the server authenticated by its key (the default with a cluster secret, and in "
                   "direct mode wherever the wire can leave this host: the key pair is kept in --key-file and the "
                   "server prints its URL@KEY at start); plain: neither (the default only for a loopback or ipc:// "
                   "listen; elsewhere only on request, with a warning)")
@click.option("--key-file", type=click.Path(dir_okay=False), default=lambda: os.environ.get("RGPU_SERVER_KEY_FILE"),
              help="direct mode's CURVE key pair, made there (mode 0600) at the first start and kept, so clients that "
                   "pinned the key still reach the server after a restart (default: "
                   "~/.cache/rgpu/wire-<server hash>/server.key; env RGPU_SERVER_KEY_FILE)")
@click.option("--session-ports", default=lambda: os.environ.get("RGPU_SESSION_PORTS") or None, metavar="LO-HI",
              help="TCP ports the session workers listen on (default: any the system picks), so that a firewall can "
                   "name them: one per open session plus one per GPU, and a second per session from another host "
                   "(its bulk channel or data stream); a hello that finds none free is refused saying so (env "
                   "RGPU_SESSION_PORTS)")
@click.option("--session-grace", type=float, default=3.0, show_default=True,
              help="seconds a session survives its client's connection being gone")
@click.option("--module-cache", type=click.Path(file_okay=False), default=lambda: os.environ.get("RGPU_MODULE_CACHE"),
              help="directory of this server's module-image cache, private to its user (default: "
                   "~/.cache/rgpu/modules-<server hash>; env RGPU_MODULE_CACHE)")
@click.option("--module-cache-size", type=SIZE, default="1GiB", show_default=True,
              help="bound of the module cache; least recently used images go first")
@click.option("--max-sessions-per-lease", type=click.IntRange(1, 256), default=16, show_default=True,
              help="sessions one lease may have open on this server at once")
@click.option("--max-sessions-per-user", type=click.IntRange(1, 256), default=MAX_SESSIONS_PER_USER,
              show_default=True, help="sessions the leases of one user may have open on this server at once "
                                      "(so that one tenant cannot take every session slot of a GPU)")
@click.option("--session-open-rate", type=click.FloatRange(0.01), default=SESSION_OPEN_RATE, show_default=True,
              metavar="PER_SECOND", help="sessions one user's leases may open on this server a second once "
                                         "--session-open-burst is spent (a hello past it waits its turn)")
@click.option("--session-open-burst", type=click.IntRange(1, 4096), default=SESSION_OPEN_BURST, show_default=True,
              help="sessions one user's leases may open on this server at once before --session-open-rate paces them")
@click.option("--reclaim-after", type=click.FloatRange(1.0), default=None, metavar="SECONDS",
              help="checkpoint sessions idle this long and free their GPU memory until their next call (a "
                   "lease's own --reclaim-after takes precedence; default: only leases that ask)")
@click.option("--checkpoint-dir", type=click.Path(file_okay=False), default=None,
              help="where reclaimed sessions' checkpoints are kept (default: <module cache>/../checkpoints-<pid>)")
@click.option("--spin-us", type=click.IntRange(0, 100_000), default=SPIN_US, show_default=True,
              help="microseconds a session's worker polls for its client's next message, yielding the CPU, after "
                   "each one before it blocks (a blocked worker is woken through the kernel, which on a same-host "
                   "round trip costs more than its work); on the same-host call ring up to eight times longer "
                   "where the client's recent messages came that much later; 0: block at once")
@logs.options
@health.listen_option
def main(device, listen, count, gpu_part, sim_memory, sim_arch, sim_jit, controller, advertise, secret_file, init_secret, wire,
         key_file, session_ports, session_grace, module_cache, module_cache_size, max_sessions_per_lease, max_sessions_per_user,
         session_open_rate, session_open_burst, reclaim_after, checkpoint_dir, spin_us, log_level, log_format, metrics_listen):
    """Serve this host's GPUs (or software GPUs) to rgpu clients; with --controller, join its pool."""
    log = logs.configure("server", log_level, log_format)
    if sim_jit is not None:
        os.environ["RGPU_SIM_JIT"] = sim_jit  # session workers read it (sim/jit/__init__.py)
    try:
        worker_bind(listen)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--listen") from None
    if session_ports is not None:
        try:
            session_ports = parse_range(session_ports)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--session-ports") from None
        if not listen.startswith("tcp://"):
            raise click.BadParameter("session ports are TCP ports: --listen is not tcp://", param_hint="--session-ports")
    server_id = f"{socket.gethostname()}:{listen}"
    try:
        kind, gpus = probe(device, count, sim_memory, server_id, sim_arch)
        gpus = partition(gpus, gpu_part)
        gate = gate_for(controller, secret_file, init_secret,
                        os.path.join(default_dir(server_id, "gate"), "state.json"))
    except (NoDevice, tokens.SecretError) as e:
        raise click.ClickException(str(e)) from None
    except ValueError as e:  # an --sim-arch the software GPU cannot present
        raise click.BadParameter(str(e), param_hint="--sim-arch") from None
    cache_dir = module_cache or default_dir(server_id)
    try:
        DigestCache(cache_dir, module_cache_size, content_addressed=True).close()
    except CacheError as e:
        raise click.ClickException(str(e)) from None
    conf = {"session_grace": session_grace, "log_level": log_level, "log_format": log_format, "server_id": server_id,
            "sim_arch": sim_arch, "max_sessions_per_lease": max_sessions_per_lease,
            "max_sessions_per_user": max_sessions_per_user,
            "session_open_rate": session_open_rate, "session_open_burst": session_open_burst,
            "module_cache": (cache_dir, module_cache_size),
            "reclaim_after": reclaim_after, "spin_us": spin_us, "session_ports": session_ports,
            "checkpoint_dir": checkpoint_dir or os.path.join(os.path.dirname(os.path.abspath(cache_dir)),
                                                             f"checkpoints-{os.getpid()}"),
            # a worker moving its session to another server of the pool asks it as a server does
            "cluster_keys": tuple(curve.server_role_keys(gate.secret)) if gate.enabled else None}
    advertise = advertise or advertise_url(listen)
    keys = cluster_key = None
    wire = wire or wire_keys.default_wire(gate.enabled, listen)
    if wire == "curve" and gate.enabled:
        # Derived from the secret and the advertised URL: what the controller hands this server's clients.
        keys = curve.server_data_keys(gate.secret, advertise)
        cluster_key = curve.server_role_keys(gate.secret).public
    elif wire == "curve":
        try:
            keys = wire_keys.direct_keys(key_file or wire_keys.default_key_file(default_dir(server_id, "wire")))
        except (curve.CurveError, OSError) as e:
            raise click.BadParameter(str(e), param_hint="--key-file") from None
        # the line a user pastes into `rgpu run --server` / RGPU_SERVER (a log line is not for pasting)
        click.echo(f"rgpu-server: clients reach this server at {wire_keys.pasteable(advertise, keys)}", err=True)
        log.info("wire_key", url=wire_keys.pasteable(advertise, keys))
    elif not curve.stays_on_host(listen):
        click.echo(f"rgpu-server: warning: --wire plain on {listen}: programs' data and session keys cross the "
                   f"network unencrypted, and nothing tells clients this is the server they meant", err=True)
        log.warning("plain_wire", listen=listen)
    sup = Supervisor(listen, kind, gpus, conf, log, gate, keys, cluster_key)
    if controller:
        from rgpu.client.credentials import Credential

        from .registration import Registrar
        sup.registrar = Registrar(controller, advertise, sup.inventory, sup.usage,
                                  sup.on_leases, on_orders=sup.on_orders, credential=Credential.for_server(gate.secret))
    if metrics_listen:
        # the probe pings over the server's own wire: with CURVE it needs the server's public key
        from .metrics import ServerCollector
        try:
            health.serve(metrics_listen, health.server_check(listen, keys.public if keys else None),
                         ServerCollector(sup))
        except (OSError, ValueError) as e:
            raise click.BadParameter(f"cannot serve HTTP on {metrics_listen}: {e}", param_hint="--metrics-listen")
    signal.signal(signal.SIGTERM, lambda *_: setattr(sup, "stopping", True))
    signal.signal(signal.SIGINT, lambda *_: setattr(sup, "stopping", True))
    try:
        sup.serve()
    except zmq.ZMQError as e:
        raise click.ClickException(f"cannot listen on {listen}: {e.strerror}"
                                   + (" (another process holds that port)" if e.errno == zmq.EADDRINUSE else ""))


if __name__ == "__main__":
    main()
