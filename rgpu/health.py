"""``/healthz`` over HTTP for the daemons (container health checks, Kubernetes probes).

    rgpu-controller ... --health-listen 0.0.0.0:9440
    rgpu-server ...     --health-listen 0.0.0.0:9450
    python -m rgpu.health http://127.0.0.1:9440/healthz     # the probe: exit 0 when healthy

``serve(address, check)`` answers ``GET /healthz`` from a daemon thread: 200 ``ok`` when
``check()`` returns None, else 503 with the reason ``check`` returned. The daemons' checks ask the
daemon itself through its own ZeroMQ socket (a ping), so a main loop that is stuck reads as
unhealthy although this thread is fine. Kept apart from the daemons so a metrics server can
later serve it beside ``/metrics``.
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
CHECK_TIMEOUT_S = 2.0


def parse_address(address: str) -> tuple[str, int]:
    """``HOST:PORT`` or ``:PORT`` (all interfaces) → (host, port)."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"health address {address!r}: expected HOST:PORT, e.g. 0.0.0.0:9440")
    return host.strip("[]") or "0.0.0.0", int(port)


def local_url(endpoint: str) -> str:
    """A ZeroMQ endpoint a daemon binds (tcp://0.0.0.0:7440) as this host can connect to it."""
    parts = urlsplit(endpoint)
    if parts.scheme == "tcp" and parts.hostname in ("*", "0.0.0.0", "::", None):
        return f"tcp://127.0.0.1:{endpoint.rsplit(':', 1)[1]}"
    return endpoint


def serve(address: str, check: Callable[[], str | None]) -> ThreadingHTTPServer:
    """Serve /healthz on ``address`` in a daemon thread; returns the server (``.shutdown()``)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path.split("?", 1)[0] != PATH:
                self._reply(404, f"not found: only {PATH} is served here\n")
                return
            try:
                problem = check()
            except Exception as exc:     # a check that crashes is an unhealthy daemon, not a dead probe
                problem = f"health check failed: {exc.__class__.__name__}: {exc}"
            self._reply(200, "ok\n") if problem is None else self._reply(503, problem + "\n")

        def _reply(self, status: int, text: str) -> None:
            body = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):    # probes come every few seconds: not worth a log line each
            pass

    host, port = parse_address(address)
    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="rgpu-health", daemon=True).start()
    return server


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
