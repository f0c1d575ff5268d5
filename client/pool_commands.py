"""The pool commands of the ``rgpu`` CLI: ls, reserve, release, leases.

``register(cli)`` adds them to the ``rgpu`` group. ``controller_option``, ``request_options`` and
``request_from_options`` are shared with ``rgpu run``. Every command prints a table for people
and, with ``--json``, one JSON document for tools (errors too: ``{"ok": false, "error",
"message"}`` with exit code 1).
"""
from __future__ import annotations

import functools
import json
import sys
import time

import click

from rgpu.controller.requests import POLICIES, RequestError, fmt_bytes, parse_memory

from .controller_client import DEFAULT_CONTROLLER_URL, ControllerClient, ControllerError
from .leased_run import lease_env

RESERVE_TTL = 3600.0


def controller_option(f):
    return click.option("--controller", envvar="RGPU_CONTROLLER", default=DEFAULT_CONTROLLER_URL,
                        show_default=True, help="Controller URL (env RGPU_CONTROLLER).")(f)


def json_option(f):
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for tools.")(f)


def request_options(f):
    """The options that describe a vGPU request (shared by reserve and run)."""
    for opt in reversed([
        click.option("--mem", help="Memory per vGPU: bytes, 512MiB, 8GiB, or a fraction of the GPU (0.5, 50%)."),
        click.option("--compute", type=click.IntRange(0, 100), help="Guaranteed compute share, percent."),
        click.option("--limit", type=click.IntRange(1, 100), help="Compute ceiling, percent (default 100)."),
        click.option("-n", "--count", type=click.IntRange(1, 64), default=1, show_default=True, help="Number of vGPUs."),
        click.option("--policy", type=click.Choice(POLICIES), default="binpack", show_default=True,
                     help="binpack: fullest GPU that fits; spread: emptiest, a different GPU per vGPU."),
        click.option("--same-node", is_flag=True, help="All vGPUs on one server."),
        click.option("--model", help="Only GPUs whose name contains this (e.g. A100)."),
        click.option("--exclusive", is_flag=True, help="Whole GPUs, shared with nobody."),
        click.option("--wait", type=float, default=None, help="Queue up to this many seconds if there is no room now."),
    ]):
        f = opt(f)
    return f


def request_from_options(mem=None, compute=None, limit=None, count=1, policy="binpack", same_node=False,
                         model=None, exclusive=False, wait=None, **_ignored) -> dict:
    req = {"compute": compute, "limit": limit, "count": count, "policy": policy,
           "same_node": same_node, "model": model, "exclusive": exclusive, "wait": wait}
    if mem is not None:
        try:
            nbytes, fraction = parse_memory(mem)
        except RequestError as exc:
            raise click.BadParameter(str(exc), param_hint="--mem") from None
        req["memory"], req["memory_fraction"] = nbytes, fraction
    return {k: v for k, v in req.items() if v is not None and v is not False}


def _fail(as_json: bool, exc: ControllerError):
    if as_json:
        click.echo(json.dumps({"ok": False, "error": exc.code, "message": exc.message}))
        sys.exit(1)
    raise click.ClickException(str(exc))


def controller_command(f):
    """Turn ControllerError into a clear message (or JSON error) and exit code 1."""
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        try:
            return f(*args, **kwargs)
        except ControllerError as exc:
            _fail(kwargs.get("as_json", False), exc)
    return wrapper


def _table(rows: list[list], header: list[str]) -> str:
    cells = [header] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells)


def _ago(t: float) -> str:
    s = t - time.time()
    return f"{s:.0f}s" if abs(s) < 120 else f"{s / 60:.0f}m" if abs(s) < 7200 else f"{s / 3600:.1f}h"


@click.command("ls")
@controller_option
@json_option
@controller_command
def ls_command(controller, as_json):
    """Servers, GPUs, free and used memory and compute, tenants."""
    with ControllerClient(controller) as c:
        reply = c.ls()
    if as_json:
        click.echo(json.dumps({"servers": reply["servers"], "queued": reply.get("queued", 0)}))
        return
    rows = []
    for s in reply["servers"]:
        for g in s["gpus"] or [{}]:
            tenants = ", ".join(f"{t['lease'] or '(other)'}({t['owner'] + ':' if t['owner'] else ''}"
                                f"{fmt_bytes(t['memory'])},{t['compute']}%)" for t in g.get("tenants", [])) or "-"
            rows.append([s["url"], s["state"], g.get("index", "-"), g.get("name", "-"),
                         f"{fmt_bytes(g['memory_free'])}/{fmt_bytes(g['memory_total'])}" if g else "-",
                         f"{g['compute_free']}%" if g else "-", tenants])
    if not rows:
        click.echo(f"no servers registered with {controller}")
        return
    click.echo(_table(rows, ["SERVER", "STATE", "GPU", "NAME", "MEM FREE/TOTAL", "COMPUTE FREE", "TENANTS"]))


def _vgpu_rows(vgpus):
    return [[i, v["server"], v["index"], v.get("name", ""), fmt_bytes(v["memory"]), f"{v['compute']}%",
             f"{v['limit']}%"] for i, v in enumerate(vgpus)]


@click.command("reserve")
@controller_option
@request_options
@click.option("--ttl", type=float, default=RESERVE_TTL, show_default=True, help="Seconds until the lease expires unless renewed.")
@json_option
@controller_command
def reserve_command(controller, ttl, as_json, **opts):
    """Reserve vGPUs; prints the lease and the export lines that use it."""
    req = request_from_options(**opts)
    with ControllerClient(controller) as c:
        wait = req.pop("wait", None)
        if wait:
            def progress(r):
                click.echo(f"waiting: position {r['position']} in queue — {r['message']}", err=True)
            reply = c.reserve_waiting({**req, "ttl": ttl}, wait, progress)
        else:
            reply = c.reserve(**req, ttl=ttl)
    if as_json:
        click.echo(json.dumps({k: reply[k] for k in ("lease", "token", "expires", "ttl", "state", "vgpus")}))
        return
    click.echo(f"lease {reply['lease']} expires in {_ago(reply['expires'])} (renew: rgpu run --lease {reply['lease']})")
    click.echo(_table(_vgpu_rows(reply["vgpus"]), ["DEV", "SERVER", "GPU", "NAME", "MEMORY", "COMPUTE", "LIMIT"]))
    for name, value in lease_env(reply, controller).items():
        click.echo(f"export {name}={value}")


@click.command("release")
@click.argument("lease")
@controller_option
@json_option
@controller_command
def release_command(lease, controller, as_json):
    """Release LEASE and free its vGPUs."""
    with ControllerClient(controller) as c:
        c.release(lease)
    click.echo(json.dumps({"released": lease}) if as_json else f"released {lease}")


@click.command("leases")
@controller_option
@json_option
@controller_command
def leases_command(controller, as_json):
    """Live leases, their vGPUs and expiry."""
    with ControllerClient(controller) as c:
        leases = c.leases()
    if as_json:
        click.echo(json.dumps({"leases": leases}))
        return
    if not leases:
        click.echo("no live leases")
        return
    rows = [[lease["id"], lease["state"], lease["owner"], _ago(lease["expires"]),
             f"{lease.get('device_time_s', 0.0):.2f}s", fmt_bytes(lease.get("memory_used_bytes", 0)),
             ", ".join(f"{v['server']}#{v['index']}:{fmt_bytes(v['memory'])}/{v['compute']}%" for v in lease["vgpus"])]
            for lease in leases]
    click.echo(_table(rows, ["LEASE", "STATE", "OWNER", "EXPIRES IN", "DEVICE TIME", "MEM USED", "VGPUS"]))


def register(group: click.Group) -> None:
    for cmd in (ls_command, reserve_command, release_command, leases_command):
        group.add_command(cmd)
