"""How an rgpu-server joins the pool: register its GPUs, then heartbeat with usage.

    registrar = Registrar("tcp://head:7400", "tcp://gpu1:7000", inventory, usage,
                          on_leases=supervisor.on_leases,
                          credential=Credential.for_server(cluster_secret))
    registrar.start()   # background thread; returns at once
    ...
    registrar.stop()    # joins the thread (within about one controller timeout)

``inventory()`` returns ``{"backend": "sim"|"cuda", "gpus": [{"uuid", "index", "name",
"memory_total" (bytes), "sms", "compute_capability" ("8.0")}]}``; it is called on every
(re-)registration. ``usage()`` returns any msgpack-able map (e.g. per-GPU memory used, sessions)
sent with each heartbeat and shown by ``rgpu ls``.

``on_orders(orders)`` gets the orders a heartbeat reply carries (live migrations of a lease's vGPU
to another GPU: ``{kind: "migrate", id, lease, vgpu, to, token}``), repeated by the controller until
a heartbeat reports on them (``usage()["migrations"]``): the receiver ignores ids it already has.

``on_leases(ids)`` gets, after every successful register or heartbeat, the set of lease ids still
valid on this server; a session whose lease is not in it should be ended (released or expired).
One race is inherent: the set is the controller's view at ``view_time`` (controller clock), so a
lease created just after it is missing though valid. Do not end sessions whose token ``iat`` is
later than ``view_time``.

The registrar authenticates as a server: its credential is derived from the cluster secret
(client/credentials.py), which the controller's ZAP handler admits as ``server``.

Rejoining is automatic: a fresh ``boot_id`` per Registrar tells the controller this process is a
new incarnation; if the controller forgets the server (restart without its database, or a
different boot) it answers ``unknown_server`` and the Registrar registers again; while the
controller is unreachable it keeps retrying with a capped backoff.

No controller answering is not a reason to end a lease: the server keeps serving the leases of its
last view (``on_leases`` is not called) and says so in its log, until a controller answers again —
a restarted controller, or a new leader of its replicas (``controller_url`` may list them, comma-
separated), which gives every lease it loads a grace period (``--restart-grace``) for its
renewals to land.
"""
from __future__ import annotations

import threading
import uuid
from typing import Callable

import structlog

from rgpu.client.controller_client import ControllerClient, ControllerError, ControllerTimeout
from rgpu.client.credentials import Credential

log = structlog.get_logger("rgpu.server.registration")
MAX_BACKOFF_S = 5.0


class Registrar:
    def __init__(self, controller_url: str, advertise_url: str, inventory: Callable[[], dict],
                 usage: Callable[[], dict], on_leases: Callable[[set], None] | None = None,
                 *, on_orders: Callable[[list], None] | None = None, credential: Credential | None = None, timeout: float = 3.0, heartbeat_interval: float = 1.0):
        self.controller_url, self.advertise_url = controller_url, advertise_url
        self.credential = credential
        self.inventory, self.usage, self.on_leases, self.on_orders = inventory, usage, on_leases, on_orders
        self.timeout, self.interval = timeout, heartbeat_interval
        self.boot_id = uuid.uuid4().hex
        self.registered = False
        self.valid_leases: set[str] = set()
        self.ended: dict[str, str] = {}   # leases of this server that ended lately, and how
        self.view_time = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._failures = 0

    def start(self) -> "Registrar":
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="rgpu-registrar", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(self.timeout + self.interval + 1.0)
            self._thread = None

    def _deliver(self, reply: dict) -> None:
        self.valid_leases = set(reply.get("leases") or ())
        self.view_time = float(reply.get("at") or 0.0)
        ended = reply.get("ended")
        self.ended = ended if isinstance(ended, dict) else {}
        if self.on_leases is not None:
            try:
                self.on_leases(set(self.valid_leases))
            except Exception:
                log.exception("registrar_on_leases_failed")
        orders = reply.get("orders")
        if self.on_orders is not None and isinstance(orders, list) and orders:
            try:
                self.on_orders([o for o in orders if isinstance(o, dict)])
            except Exception:
                log.exception("registrar_on_orders_failed")

    def _register(self, client: ControllerClient) -> None:
        inv = self.inventory()
        gpus = [{"uuid": g["uuid"], "index": g["index"], "name": g["name"],
                 "memory_total": int(g.get("memory_total", g.get("memory", 0))),
                 "sms": int(g.get("sms", 0)), "compute_capability": str(g.get("compute_capability", ""))}
                for g in inv.get("gpus", [])]
        reply = client.register(self.advertise_url, self.boot_id, inv.get("backend", ""), gpus)
        self.interval = float(reply.get("heartbeat_interval") or self.interval)
        self.registered = True
        log.info("registrar_registered", controller=self.controller_url, url=self.advertise_url,
                 gpus=len(gpus), heartbeat_s=self.interval)
        self._deliver(reply)

    def step(self, client: ControllerClient) -> None:
        """One register-or-heartbeat exchange (the thread's body; tests may call it directly)."""
        try:
            if not self.registered:
                self._register(client)
            else:
                self._deliver(client.heartbeat(self.advertise_url, self.boot_id, self.usage()))
            if self._failures:
                log.info("registrar_reconnected", controller=self.controller_url, after_failures=self._failures)
            self._failures = 0
        except ControllerTimeout as exc:
            self._failures += 1
            if self._failures == 1:
                log.warning("registrar_controller_unreachable", controller=self.controller_url, error=str(exc),
                            leases_kept=len(self.valid_leases))
        except ControllerError as exc:
            self._failures += 1
            if exc.code == "unknown_server":
                log.info("registrar_reregistering", controller=self.controller_url)
                self.registered = False
                self._failures = 0
            else:
                log.warning("registrar_refused", error=exc.code, message=exc.message)
        except Exception:  # a bug in gathering the usage must not end the server's membership
            self._failures += 1
            log.exception("registrar_step_failed")

    def _run(self) -> None:
        client = ControllerClient(self.controller_url, timeout=self.timeout, credential=self.credential)
        try:
            while not self._stop.is_set():
                self.step(client)
                if not self.registered and self._failures == 0:
                    continue             # told to re-register: do it now
                delay = self.interval if self._failures == 0 else min(
                    MAX_BACKOFF_S, self.interval * 2 ** min(self._failures, 8))
                self._stop.wait(delay)
        finally:
            client.close()
