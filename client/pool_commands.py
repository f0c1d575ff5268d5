"""The pool commands of the ``rgpu`` CLI: ls, reserve, renew, release, leases.

``register(cli)`` adds them to the ``rgpu`` group. ``controller_option``, ``request_options`` and
``request_from_options`` are shared with ``rgpu run``. Every command prints a table for people
and, with ``--json``, one JSON document for tools (errors too: ``{"ok": false, "error",
"message"}`` with exit code 1). ``reserve`` prints shell on stdout (``eval "$(rgpu reserve)"``) and
what it did, for people, on stderr.
"""
from __future__ import annotations

import functools
import json
import time

import click

from rgpu.controller.requests import POLICIES, RequestError, fmt_bytes, parse_memory
from rgpu.paths import LibraryMissing

from . import lease_token_file
from .controller_client import DEFAULT_CONTROLLER_URL, ControllerClient, ControllerError
from .leased_run import lease_env
from .params import CONTROLLER_URLS, WaitLine, fail

RESERVE_TTL = 3600.0


def controller_option(f):
    return click.option("--controller", envvar="RGPU_CONTROLLER", default=DEFAULT_CONTROLLER_URL, type=CONTROLLER_URLS,
                        show_default=True, help="Controller URL, tcp://HOST:PORT or HOST:PORT (env RGPU_CONTROLLER).")(f)


def json_option(f):
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for tools.")(f)


REQUEST_OPTIONS = ("mem", "mem_fraction", "compute", "limit", "count", "policy", "same_node", "model", "exclusive",
                   "share_only", "wait", "reclaim_after", "failover")


def request_options(f):
    """The options that describe a vGPU request (shared by reserve and run; REQUEST_OPTIONS names them)."""
    for opt in reversed([
        click.option("--mem", help="Memory per vGPU: MiB (a bare number: --mem 512 is 512 MiB), a size with a binary "
                                   "unit (512M, 8G, 16GiB), or a share of the GPU with % (50%). At least 16 MiB. "
                                   "Without --mem (or --mem-fraction, --compute) a vGPU takes a whole GPU's memory."),
        click.option("--mem-fraction", type=click.FloatRange(0, 1, min_open=True), default=None,
                     help="Memory per vGPU as a fraction of its GPU (0.5: half); the same as --mem 50%."),
        click.option("--compute", type=click.IntRange(0, 100), help="Guaranteed compute share, percent."),
        click.option("--limit", type=click.IntRange(1, 100), help="Compute ceiling, percent (default 100)."),
        click.option("-n", "--count", type=click.IntRange(1, 64), default=1, show_default=True, help="Number of vGPUs."),
        click.option("--policy", type=click.Choice(POLICIES), default="binpack", show_default=True,
                     help="binpack: fullest GPU that fits; spread: emptiest, a different GPU per vGPU."),
        click.option("--same-node", is_flag=True, help="All vGPUs on one server."),
        click.option("--model", help="Only GPUs whose name contains this (e.g. A100)."),
        click.option("--exclusive", is_flag=True, help="Whole GPUs, shared with nobody."),
        click.option("--share-only", is_flag=True,
                     help="Place and account the vGPUs, but enforce no memory quota or compute limit on them "
                          "(for programs that limit themselves)."),
        click.option("--wait", type=click.FloatRange(min=0), default=None,
                     help="Queue up to this many seconds if there is no room now."),
        click.option("--reclaim-after", default=None, metavar="DURATION",
                     help="Let the servers reclaim the vGPUs' memory while their programs are idle this long "
                          "(90s, 10m, 1h); the next CUDA call restores it."),
        click.option("--failover", is_flag=True,
                     help="Keep a checkpoint of each session at its synchronisation points, so that a program "
                          "whose server dies resumes on another server with the same results (docs/failover.md)."),
    ]):
        f = opt(f)
    return f


_SECONDS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_duration(text: str) -> float:
    """``90``, ``90s``, ``10m``, ``1.5h``, ``1d`` -> seconds."""
    t = text.strip().lower()
    unit = t[-1:] if t[-1:] in _SECONDS and t[-1:] else ""
    try:
        value = float(t[:-1] if unit else t)
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a duration (90s, 10m, 1h)", param_hint="--reclaim-after") from None
    return value * _SECONDS[unit]


WHOLE_GPU_NOTE = ("rgpu: note: no --mem, so each vGPU takes a whole GPU's memory; "
                  "ask for a slice with --mem 8G or --mem 50%")


def request_from_options(mem=None, compute=None, limit=None, count=1, policy="binpack", same_node=False,
                         model=None, exclusive=False, wait=None, share_only=False, reclaim_after=None,
                         mem_fraction=None, failover=False, quiet=False, **_ignored) -> dict:
    req = {"compute": compute, "limit": limit, "count": count, "policy": policy, "same_node": same_node,
           "model": model, "exclusive": exclusive, "wait": wait, "share_only": share_only,
           "reclaim_after": parse_duration(reclaim_after) if reclaim_after else None, "failover": failover}
    if mem is not None and mem_fraction is not None:
        raise click.UsageError("give --mem or --mem-fraction, not both")
    if mem is not None:
        try:
            nbytes, fraction = parse_memory(mem)
        except RequestError as exc:
            raise click.BadParameter(str(exc), param_hint="--mem") from None
        req["memory"], req["memory_fraction"] = nbytes, fraction
    elif mem_fraction is not None:
        req["memory_fraction"] = mem_fraction
    elif compute is None and not exclusive and not quiet:
        # the controller's default is the whole GPU's memory: say so, since a slice was probably meant
        click.echo(WHOLE_GPU_NOTE, err=True)
    return {k: v for k, v in req.items() if v is not None and v is not False}


def _fail(as_json: bool, exc: ControllerError):
    fail(as_json, exc.code, str(exc))


def controller_command(f):
    """Turn ControllerError into a clear message (or JSON error) and exit code 1."""
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        try:
            return f(*args, **kwargs)
        except ControllerError as exc:
            _fail(kwargs.get("as_json", False), exc)
    return wrapper


def shell_lines(env: dict) -> list[str]:
    """``export`` lines for ``eval``: the library path and preload go in front of what the shell has."""
    import shlex
    out = []
    for k, v in env.items():
        if k == "LD_LIBRARY_PATH":
            out.append(f"export {k}={shlex.quote(v)}${{{k}:+:${k}}}")
        elif k == "LD_PRELOAD":
            out.append(f"export {k}={shlex.quote(v)}${{{k}:+ ${k}}}")
        else:
            out.append(f"export {k}={shlex.quote(str(v))}")
    return out


def library_env() -> dict:
    """LD_LIBRARY_PATH and LD_PRELOAD of rgpu's client library (empty when it is not built here)."""
    from rgpu.paths import client_env
    try:
        e = client_env([], base={})
    except LibraryMissing as exc:
        click.echo(f"rgpu: warning: {exc}; the lines below lack LD_LIBRARY_PATH and LD_PRELOAD", err=True)
        return {}
    return {k: e[k] for k in ("LD_LIBRARY_PATH", "LD_PRELOAD")}


def lease_exports(reply: dict, controller: str) -> dict:
    """Everything a shell needs to run programs on the lease in ``reply`` (reserve/renew reply)."""
    return {**library_env(), **lease_env(reply, controller), "RGPU_LEASE_ID": reply["lease"]}


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
                                f"{fmt_bytes(t['memory'])},{t['compute']}%{',share-only' if t.get('share_only') else ''})"
                                for t in g.get("tenants", [])) or "-"
            rows.append([s["url"], s["state"] + (" (draining)" if s.get("draining") else ""), g.get("index", "-"),
                         g.get("name", "-"),
                         f"{fmt_bytes(g['memory_free'])}/{fmt_bytes(g['memory_total'])}" if g else "-",
                         f"{g['compute_free']}%" if g else "-", tenants])
    if not rows:
        click.echo(f"no servers registered with {controller}")
        return
    click.echo(_table(rows, ["SERVER", "STATE", "GPU", "NAME", "MEM FREE/TOTAL", "COMPUTE FREE", "TENANTS"]))


def _vgpu_rows(vgpus):
    return [[i, v["server"], v["index"], v.get("name", ""), fmt_bytes(v["memory"]), f"{v['compute']}%",
             "share-only" if v.get("share_only") else f"{v['limit']}%"] for i, v in enumerate(vgpus)]


def reserve_with(client: ControllerClient, req: dict, ttl: float) -> dict:
    """Reserve ``req`` (its ``wait`` seconds queued, showing one waiting line on stderr)."""
    req = dict(req)
    wait = req.pop("wait", None)
    if not wait:
        return client.reserve(**req, ttl=ttl)
    line = WaitLine()
    try:
        return client.reserve_waiting({**req, "ttl": ttl}, wait, line)
    finally:
        line.done()


@click.command("reserve")
@controller_option
@request_options
@click.option("--ttl", type=click.FloatRange(min=2), default=RESERVE_TTL, show_default=True,
              help="Seconds until the lease expires unless renewed (rgpu renew).")
@click.option("--shell", "shell", is_flag=True,
              help="Start $SHELL on the lease instead of printing export lines (as salloc does): the lease is "
                   "renewed while the shell runs and released when it exits.")
@json_option
@controller_command
def reserve_command(controller, ttl, shell, as_json, **opts):
    """Reserve vGPUs. Prints `export` lines that make a shell's CUDA programs use them, so that
    `eval "$(rgpu reserve --mem 8G)"` sets up the shell; what it reserved goes to stderr. The lease
    stays until released (rgpu release) or its TTL passes without a renew: `rgpu run` in that shell
    uses the lease and renews it while its program runs; `rgpu renew` pushes it by hand. With
    --shell, a new shell on the lease keeps it renewed as long as it runs and releases it at exit."""
    req = request_from_options(**opts, quiet=as_json)   # tools asked for what they asked for: no note
    with ControllerClient(controller) as c:
        reply = reserve_with(c, req, ttl)
    if shell:
        raise SystemExit(_shell_on(reply, controller))
    if as_json:
        click.echo(json.dumps({k: reply[k] for k in ("lease", "token", "expires", "ttl", "state", "vgpus")}))
        return
    lease = reply["lease"]
    click.echo(f"rgpu: reserved lease {lease}, {len(reply['vgpus'])} vGPU(s), expires in {_ago(reply['expires'])} "
               f"unless renewed (rgpu renew {lease}); free it with: rgpu release {lease}", err=True)
    click.echo(_table(_vgpu_rows(reply["vgpus"]), ["DEV", "SERVER", "GPU", "NAME", "MEMORY", "COMPUTE", "LIMIT"]),
               err=True)
    for line in shell_lines(lease_exports(reply, controller)):
        click.echo(line)


def _shell_on(reply: dict, controller: str) -> int:
    """Run $SHELL with the lease's environment, renewing the lease until it exits; then release it.
    Returns the shell's exit code."""
    import os
    import signal
    import subprocess

    from .leased_run import Renewer
    lease = reply["lease"]
    click.echo(f"rgpu: a shell on lease {lease} ({len(reply['vgpus'])} vGPU(s)); it is renewed while the shell "
               f"runs and released when it exits", err=True)
    renewer = Renewer(controller, lease, reply["ttl"] / 3)
    renewer.start()
    # Ctrl-C belongs to the shell's foreground programs, not to the reservation around them. A
    # handler, not SIG_IGN: an ignored signal would stay ignored in the shell's programs too.
    previous = signal.signal(signal.SIGINT, lambda *_: None)
    try:
        proc = subprocess.Popen([os.environ.get("SHELL") or "/bin/sh"],
                                env={**os.environ, **lease_exports(reply, controller)})
        code = proc.wait()
    finally:
        signal.signal(signal.SIGINT, previous)
        renewer.stop()
        try:
            with ControllerClient(controller) as c:
                c.release(lease)
            click.echo(f"rgpu: released lease {lease}", err=True)
        except ControllerError as exc:
            click.echo(f"rgpu: error: could not release {lease}: {exc}", err=True)
    return 128 - code if code < 0 else code


@click.command("renew")
@click.argument("leases", nargs=-1, required=True)
@click.option("--ttl", type=click.FloatRange(min=2), default=None, help="New TTL in seconds (default: the lease's own).")
@controller_option
@json_option
@controller_command
def renew_command(leases, ttl, controller, as_json):
    """Push the expiry of LEASES to now + their TTL (or --ttl)."""
    out = []
    with ControllerClient(controller) as c:
        for lease in leases:
            r = c.renew(lease, ttl)
            kept = lease_token_file.path(r["lease"])
            if kept is not None and kept.exists():   # a shell's programs open their sessions with it
                lease_token_file.write(r["lease"], r["token"])
            out.append({"lease": r["lease"], "expires": r["expires"], "ttl": r["ttl"]})
    if as_json:
        click.echo(json.dumps({"renewed": out}))
        return
    for r in out:
        click.echo(f"renewed {r['lease']}: expires in {_ago(r['expires'])}")


@click.command("release")
@click.argument("leases", nargs=-1)
@click.option("--mine", is_flag=True, help="Release every live lease of yours (an admin's: every lease).")
@controller_option
@json_option
@controller_command
def release_command(leases, mine, controller, as_json):
    """Release LEASES (or with --mine all of yours) and free their vGPUs."""
    if not leases and not mine:
        raise click.UsageError("name the leases to release, or --mine for all of yours")
    released, failed = [], []
    with ControllerClient(controller) as c:
        names = list(leases) + ([x["id"] for x in c.leases()] if mine else [])
        for lease in dict.fromkeys(names):
            try:
                released.append(c.release(lease)["lease"])
                lease_token_file.remove(lease)
            except ControllerError as exc:
                if exc.code in ("timeout", "handshake_failed", "unauthenticated", "no_credential"):
                    raise
                failed.append({"lease": lease, "error": exc.code, "message": exc.message})
    if as_json:
        click.echo(json.dumps({"ok": not failed, "released": released, "failed": failed}))
    else:
        for lease in released:
            click.echo(f"released {lease}")
        if mine and not names:
            click.echo("no live leases to release")
        for f in failed:
            click.echo(f"rgpu: error: {f['message']} [{f['error']}]", err=True)
    if failed:
        raise SystemExit(1)


def _state(lease: dict) -> str:
    return lease["state"] + (" share-only" if lease.get("share_only") or lease.get("request", {}).get("share_only")
                             else "")


@click.command("leases")
@click.option("--ended", "ended_s", is_flag=False, flag_value=3600.0, type=float, default=None, metavar="[SECONDS]",
              help="Also list the leases that ended (expired or released) in the last SECONDS (default 3600).")
@controller_option
@json_option
@controller_command
def leases_command(ended_s, controller, as_json):
    """Live leases, their vGPUs and expiry (and with --ended, those that expired or were released)."""
    with ControllerClient(controller) as c:
        reply = c.call("leases", **({"ended": ended_s} if ended_s is not None else {}))
    leases, ended = reply["leases"], reply.get("ended")
    if as_json:
        click.echo(json.dumps({"leases": leases, **({"ended": ended} if ended is not None else {})}))
        return
    if not leases:
        click.echo("no live leases")
    else:
        rows = [[lease["id"], _state(lease), lease["owner"], _ago(lease["expires"]),
                 f"{lease.get('device_time_s', 0.0):.2f}s", fmt_bytes(lease.get("memory_used_bytes", 0)),
                 ", ".join(f"{v['server']}#{v['index']}:{fmt_bytes(v['memory'])}/{v['compute']}%"
                           + (" (reclaimed)" if v.get("reclaimed") else "") for v in lease["vgpus"])]
                for lease in leases]
        click.echo(_table(rows, ["LEASE", "STATE", "OWNER", "EXPIRES IN", "DEVICE TIME", "MEM USED", "VGPUS"]))
    if ended:
        click.echo("")
        click.echo(_table([[x["id"], x["state"], x["owner"], f"{time.time() - x['ended']:.0f}s ago"] for x in ended],
                          ["LEASE", "STATE", "OWNER", "ENDED"]))


def register(group: click.Group) -> None:
    for cmd in (ls_command, reserve_command, renew_command, release_command, leases_command):
        group.add_command(cmd)
