"""``rgpu-server``: the command line of a GPU host's server — options, the GPU probe, the lease
gate, and (with ``--controller``) the registrar, then the supervisor's main loop."""
from __future__ import annotations

import os
import signal
import socket
from urllib.parse import urlsplit

import click

from rgpu import health, logs
from rgpu.protocol import curve, tokens
from rgpu.units import parse_size

from .gpus import NoDevice, probe
from .lease_gate import gate_for
from .module_cache import CacheError, DigestCache, default_dir
from .supervisor import Supervisor, worker_bind


def advertise_url(listen: str) -> str:
    """The listen URL with a wildcard host replaced by this host's name (what clients can reach)."""
    parts = urlsplit(listen)
    if parts.scheme == "tcp" and parts.hostname in ("*", "0.0.0.0", "::", None):
        return f"tcp://{socket.getfqdn()}:{listen.rsplit(':', 1)[1]}"
    return listen


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--device", type=click.Choice(["sim", "cuda", "auto"]), default="auto", show_default=True,
              help="cuda drives the real GPUs through libcuda.so.1; sim is the software GPU; auto picks cuda if it works")
@click.option("--listen", default="tcp://127.0.0.1:7450", show_default=True, help="tcp://HOST:PORT or ipc://PATH")
@click.option("--gpus", "count", type=int, default=1, show_default=True, help="number of software GPUs (sim)")
@click.option("--sim-memory", default="8GiB", show_default=True, help="memory of each software GPU")
@click.option("--sim-arch", default=None, metavar="sm_XY",
              help="architecture the software GPUs present (sm_75 ... sm_121; default sm_121, the newest CUDA 13.0 "
                   "knows, so NVIDIA's libraries find their PTX; programs built for older -arch values run too)")
@click.option("--controller", default=lambda: os.environ.get("RGPU_CONTROLLER"), help="join this controller's pool")
@click.option("--advertise", default=None, help="URL clients use to reach this server (default: --listen)")
@click.option("--secret-file", type=click.Path(dir_okay=False), default=None,
              help="cluster secret shared with the controller (else RGPU_CLUSTER_SECRET, RGPU_CLUSTER_SECRET_FILE, "
                   "or ~/.config/rgpu/cluster-secret with --controller); with a secret, sessions need a lease")
@click.option("--wire", type=click.Choice(["curve", "plain"]), default=None,
              help="curve: encrypted and authenticated (the default with a cluster secret; in direct mode the key "
                   "is new at every start and logged); plain: neither (the default in direct mode)")
@click.option("--session-grace", type=float, default=3.0, show_default=True,
              help="seconds a session survives its client's connection being gone")
@click.option("--module-cache", type=click.Path(file_okay=False), default=lambda: os.environ.get("RGPU_MODULE_CACHE"),
              help="directory of this server's module-image cache, private to its user (default: "
                   "~/.cache/rgpu/modules-<server hash>; env RGPU_MODULE_CACHE)")
@click.option("--module-cache-size", default="1GiB", show_default=True,
              help="bound of the module cache; least recently used images go first")
@click.option("--max-sessions-per-lease", type=click.IntRange(1, 256), default=16, show_default=True,
              help="sessions one lease may have open on this server at once")
@click.option("--log-level", default="info", show_default=True)
@click.option("--health-listen", default=None, metavar="HOST:PORT", help="serve GET /healthz over HTTP here")
def main(device, listen, count, sim_memory, sim_arch, controller, advertise, secret_file, wire, session_grace,
         module_cache, module_cache_size, max_sessions_per_lease, log_level, health_listen):
    """Serve this host's GPUs (or software GPUs) to rgpu clients; with --controller, join its pool."""
    log = logs.configure("server", log_level)
    try:
        worker_bind(listen)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--listen") from None
    server_id = f"{socket.gethostname()}:{listen}"
    try:
        kind, gpus = probe(device, count, parse_size(sim_memory), server_id, sim_arch)
        gate = gate_for(controller, secret_file)
    except (NoDevice, tokens.SecretError) as e:
        raise click.ClickException(str(e)) from None
    except ValueError as e:  # an --sim-arch the software GPU cannot present
        raise click.BadParameter(str(e), param_hint="--sim-arch") from None
    cache_dir = module_cache or default_dir(server_id)
    try:
        DigestCache(cache_dir, parse_size(module_cache_size), content_addressed=True).close()
    except CacheError as e:
        raise click.ClickException(str(e)) from None
    conf = {"session_grace": session_grace, "log_level": log_level, "server_id": server_id, "sim_arch": sim_arch,
            "max_sessions_per_lease": max_sessions_per_lease,
            "module_cache": (cache_dir, parse_size(module_cache_size))}
    advertise = advertise or advertise_url(listen)
    keys = cluster_key = None
    if (wire or ("curve" if gate.enabled else "plain")) == "curve":
        # Derived from the secret and the advertised URL: what the controller hands this server's clients.
        keys = curve.server_data_keys(gate.secret, advertise) if gate.enabled else curve.new_keypair()
        cluster_key = curve.server_role_keys(gate.secret).public if gate.enabled else None
    sup = Supervisor(listen, kind, gpus, conf, log, gate, keys, cluster_key)
    if controller:
        from rgpu.client.credentials import Credential

        from .registration import Registrar
        sup.registrar = Registrar(controller, advertise, sup.inventory, sup.usage,
                                  sup.on_leases, credential=Credential.for_server(gate.secret))
    if health_listen:
        # the probe pings over the server's own wire: with CURVE it needs the server's public key
        health.serve(health_listen, health.server_check(listen, keys.public if keys else None))
    signal.signal(signal.SIGTERM, lambda *_: setattr(sup, "stopping", True))
    signal.signal(signal.SIGINT, lambda *_: setattr(sup, "stopping", True))
    sup.serve()


if __name__ == "__main__":
    main()
