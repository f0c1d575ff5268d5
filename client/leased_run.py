"""``rgpu run`` on a lease: reserve (or reuse) a lease, run the program with it, renew it while
the program runs, release it at exit — also when the program crashes or is killed.

The program sees ``RGPU_LEASE`` (the token its client library sends in each hello) and
``RGPU_SERVER`` (``url@key#index`` per vGPU, in device order: the key is the server's public CURVE
key), plus ``RGPU_CONTROLLER``.

Signals: SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 sent to ``rgpu run`` are passed on to the
program. SIGINT is passed on too, except when it came from the terminal (``rgpu run`` is in the
terminal's foreground process group): the terminal already delivered it to the program, and a
second one would interrupt its clean-up. If ``rgpu run`` itself is killed with SIGKILL the lease
is not released, but it expires after its TTL since nobody renews it.

The renewals come from a keeper process of its own (lease_keeper.py), out of the terminal's job
control: a program stopped by Ctrl-Z keeps its lease however long it stays stopped, as a stopped
process keeps its context on a local GPU.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import structlog

from . import lease_token_file
from .controller_client import ControllerClient, ControllerError, controller_url
from .lease_keeper import LeaseKeeper, renew
from .server_client import software_gpu_env

log = structlog.get_logger("rgpu.client.run")
RUN_TTL = 30.0            # short: a lease of a vanished `rgpu run` frees its GPUs quickly
FORWARDED = (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGINT)


class LeasedRunError(Exception):
    """The program could not be started on a lease (the message says why; ``code`` is its class:
    ``no_program``, ``not_executable`` or ``error``, client/exits.py)."""

    def __init__(self, message: str, code: str = "error"):
        super().__init__(message)
        self.code = code


def server_entry(vgpu: dict) -> str:
    """``URL@KEY#INDEX`` of one vGPU: where the client library opens its session, and the server's
    public key it checks over CURVE (64 hex digits)."""
    key = vgpu.get("server_key")
    return f"{vgpu['server']}" + (f"@{key}" if key else "") + f"#{vgpu['index']}"


def lease_env(reply: dict, controller: str) -> dict:
    """The environment a program needs to use the lease in ``reply`` (reserve/renew reply); its
    token is kept in the lease's token file too (RGPU_LEASE_FILE), which renewals refresh."""
    kept = lease_token_file.write(reply["lease"], reply["token"])
    return {"RGPU_LEASE": reply["token"], **({"RGPU_LEASE_FILE": str(kept)} if kept else {}),
            "RGPU_SERVER": ",".join(server_entry(v) for v in reply["vgpus"]),
            "RGPU_CONTROLLER": controller,
            # a --failover lease: the client library keeps its sessions' checkpoints and, when a server
            # dies, asks the controller to place the vGPU elsewhere (libhook/src/transport/failover.c)
            **({"RGPU_FAILOVER": reply["lease"]} if reply.get("failover") else {})}


def _software_gpu_env(client: ControllerClient, reply: dict) -> dict:
    """What a program on a software GPU is told (server_client.SOFTWARE_GPU_ENV), when a vGPU of
    the lease is one: the controller's ls knows each server's backend."""
    try:
        backend = {s["url"]: s.get("backend", "") for s in client.ls().get("servers", [])}
    except ControllerError:
        return {}
    return software_gpu_env(backend.get(v["server"], "") for v in reply["vgpus"])


class Renewer(threading.Thread):
    """Renews one lease every ``interval`` seconds until stopped or the lease is gone."""

    def __init__(self, url: str, lease: str, interval: float):
        super().__init__(name="rgpu-renew", daemon=True)
        self.url, self.lease, self.interval = url, lease, max(0.5, interval)
        self.stopped = threading.Event()

    def run(self) -> None:
        with ControllerClient(self.url, timeout=min(5.0, self.interval)) as client:
            while not self.stopped.wait(self.interval):
                if renew(client, self.lease) is not None:
                    return      # the lease is gone; renew logged it

    def stop(self) -> None:
        self.stopped.set()
        if self.is_alive():
            self.join(10)


def _from_terminal() -> bool:
    try:
        return os.tcgetpgrp(sys.stdin.fileno()) == os.getpgrp()
    except (OSError, ValueError, AttributeError):
        return False


def _exit_code(returncode: int) -> int:
    return 128 - returncode if returncode < 0 else returncode   # the shell's convention


def run_with_lease(controller_url_: str | None, request: dict | None, lease_id: str | None,
                   argv: list[str], env: dict, *, progress=None) -> int:
    """Run ``argv`` on a new lease for ``request`` (keys as for reserve, plus ``wait`` and
    ``ttl``), or on the existing ``lease_id`` (left in place). Returns the program's exit code
    (128+N if it died of signal N). Raises ControllerError when no lease can be had, and
    LeasedRunError when the program cannot be started."""
    url = controller_url(controller_url_)
    if not argv:
        raise LeasedRunError("no program to run (give it after --)")
    with ControllerClient(url) as client:
        if lease_id:
            reply, owned = client.renew(lease_id), False
        else:
            req = dict(request or {})
            wait = req.pop("wait", None)
            req.setdefault("ttl", RUN_TTL)
            if wait and progress is not None:
                reply = client.reserve_waiting(req, wait, progress)
            else:
                reply = client.reserve_waiting(req, wait) if wait else client.reserve(**req)
            if hasattr(progress, "done"):
                progress.done()
            owned = True
        lease = reply["lease"]
        log.info("run_lease", lease=lease, owned=owned, vgpus=len(reply["vgpus"]))
        keeper = LeaseKeeper(url, lease, reply["ttl"] / 3)
        previous = {}
        try:
            try:
                proc = subprocess.Popen(argv, env={**_software_gpu_env(client, reply), **env, **lease_env(reply, url)})
            except OSError as exc:
                code = {FileNotFoundError: "no_program", PermissionError: "not_executable"}.get(type(exc), "error")
                raise LeasedRunError(f"cannot run {argv[0]}: {exc.strerror}", code) from None
            keeper.start()

            def forward(sig, _frame):
                if sig == signal.SIGINT and _from_terminal():
                    return
                if proc.poll() is None:
                    proc.send_signal(sig)

            if threading.current_thread() is threading.main_thread():
                for sig in FORWARDED:
                    previous[sig] = signal.signal(sig, forward)
            code = _exit_code(proc.wait())
            log.info("run_exited", lease=lease, code=code)
            return code
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            keeper.stop()
            if owned:
                lease_token_file.remove(lease)
                try:
                    client.release(lease)
                except ControllerError as exc:
                    log.warning("lease_release_failed", lease=lease, message=str(exc))
