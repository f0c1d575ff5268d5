"""The daemons' HTTP endpoint: ``/healthz`` (container health checks, Kubernetes probes) and
``/metrics`` (Prometheus) on one port.

    rgpu-controller ... --metrics-listen 0.0.0.0:9440     # --health-listen is the same option's old name
    rgpu-server ...     --metrics-listen 0.0.0.0:9450
    python -m rgpu.health http://127.0.0.1:9440/healthz     # the probe: exit 0 when healthy

``serve(address, check, collector)`` answers from a daemon thread: ``GET /healthz`` 200 ``ok`` when
``check()`` returns None, else 503 with the reason ``check`` returned; ``GET /metrics`` the
Prometheus text format of ``collector`` (a prometheus_client collector: rgpu/metrics.py builds the
daemons'), gathered at each scrape. The daemons' checks ask the daemon itself through its own
ZeroMQ socket (a ping), so a main loop that is stuck reads as unhealthy although this thread is fine.
"""
from __future__ import annotations

import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable
from urllib.parse import urlsplit

PATH = "/healthz"
METRICS_PATH = "/metrics"
CHECK_TIMEOUT_S = 2.0


def parse_address(address: str) -> tuple[str, int]:
    """``HOST:PORT`` or ``:PORT`` (all interfaces) → (host, port)."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"address {address!r}: expected HOST:PORT, e.g. 0.0.0.0:9440")
    return host.strip("[]") or "0.0.0.0", int(port)


def local_url(endpoint: str) -> str:
    """A ZeroMQ endpoint a daemon binds (tcp://0.0.0.0:7440) as this host can connect to it."""
    parts = urlsplit(endpoint)
    if parts.scheme == "tcp" and parts.hostname in ("*", "0.0.0.0", "::", None):
        return f"tcp://127.0.0.1:{endpoint.rsplit(':', 1)[1]}"
    return endpoint


def serve(address: str, check: Callable[[], str | None], collector=None) -> ThreadingHTTPServer:
    """Serve /healthz (and /metrics of ``collector``) on ``address`` in a daemon thread; returns the
    server (``.shutdown()``). Raises OSError when the address cannot be bound."""
    registry = None
    if collector is not None:
        from prometheus_client import CollectorRegistry
        registry = CollectorRegistry(auto_describe=False)
        registry.register(collector)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            path = self.path.split("?", 1)[0]
            if path == METRICS_PATH and registry is not None:
                from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
                try:
                    self._reply(200, generate_latest(registry), CONTENT_TYPE_LATEST)
                except Exception as exc:  # a collector that crashes must not take the endpoint down
                    self._reply(500, f"metrics failed: {exc.__class__.__name__}: {exc}\n")
                return
            if path != PATH:
                served = f"{PATH} and {METRICS_PATH}" if registry is not None else PATH
                self._reply(404, f"not found: {served} are served here\n")
                return
            try:
                problem = check()
            except Exception as exc:     # a check that crashes is an unhealthy daemon, not a dead probe
                problem = f"health check failed: {exc.__class__.__name__}: {exc}"
            self._reply(200, "ok\n") if problem is None else self._reply(503, problem + "\n")

        def _reply(self, status: int, text, content_type: str = "text/plain; charset=utf-8") -> None:
            body = text.encode() if isinstance(text, str) else text
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):    # probes come every few seconds: not worth a log line each
            pass

    host, port = parse_address(address)
    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="rgpu-http", daemon=True).start()
    # where to point Prometheus and probes, said once at start (port 0 reads as the one bound)
    import structlog
    bound = f"{host}:{server.server_address[1]}"
    structlog.get_logger("rgpu.health").info("http_serving", healthz=f"http://{bound}{PATH}",
                                             metrics=f"http://{bound}{METRICS_PATH}" if registry is not None else None)
    return server


def listen_option(f):
    """``--metrics-listen HOST:PORT`` (``--health-listen`` is its old name, kept for manifests)."""
    import click
    return click.option("--metrics-listen", "--health-listen", "metrics_listen", default=None, metavar="HOST:PORT",
                        help="serve GET /metrics (Prometheus) and /healthz over HTTP here")(f)


def controller_check(endpoint: str, credential=None) -> Callable[[], str | None]:
    """``credential``: who the probe is to the controller, which admits no stranger (the daemon
    passes the cluster's, derived from its secret)."""
    from rgpu.client.controller_client import ControllerClient, ControllerError
    url = local_url(endpoint)

    def check():
        try:
            with ControllerClient(url, timeout=CHECK_TIMEOUT_S, credential=credential) as c:
                c.ping()
        except ControllerError as exc:
            return f"controller does not answer on {url}: {exc}"
        return None
    return check


def server_check(listen: str, server_key: bytes | None = None) -> Callable[[], str | None]:
    """``server_key``: the server's public CURVE key, when its wire is CURVE."""
    from rgpu.client.server_client import ping
    from rgpu.protocol import curve
    url = local_url(listen) + (f"@{curve.key_hex(server_key)}" if server_key else "")
    return lambda: None if ping(url, CHECK_TIMEOUT_S) else f"server does not answer on {url}"


def probe(url: str, timeout: float = 5.0) -> int:
    """GET ``url``; 0 when it answers 200, else 1 with the reason on stderr."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            sys.stdout.write(resp.read().decode(errors="replace"))
            return 0
    except urllib.error.HTTPError as exc:
        sys.stderr.write(f"{url}: HTTP {exc.code}: {exc.read().decode(errors='replace')}")
    except (urllib.error.URLError, OSError) as exc:
        sys.stderr.write(f"{url}: {getattr(exc, 'reason', exc)}\n")
    return 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m rgpu.health http://HOST:PORT/healthz")
    sys.exit(probe(sys.argv[1]))
