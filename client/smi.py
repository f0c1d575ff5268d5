"""``rgpu smi``: what nvidia-smi shows, for the vGPUs a user holds (or, for an admin with --all, the
whole pool; with --server, the GPUs of servers in direct mode through their stats).

    rgpu smi                      # my vGPUs: utilisation, memory used of the quota, processes
    rgpu smi -l 2                 # again every 2 s
    rgpu smi --query-gpu=index,name,memory.used,memory.total,utilization.gpu --format=csv
    rgpu smi --all                # admin: every GPU of the pool and every vGPU on it
    rgpu smi --server tcp://gpuhost:7450

A vGPU's utilisation is the share of its GPU's time its kernels used lately; its memory total is its
quota (what its programs see as the device's memory). Processes are the sessions open on it: the
client's host and pid and the memory the session holds. Figures come from the servers' heartbeats,
about a second old.
"""
from __future__ import annotations

import json
import sys
import time

import click

from rgpu import __version__
from rgpu.controller.requests import fmt_bytes

from .controller_client import DEFAULT_CONTROLLER_URL, ControllerClient, ControllerError
from .params import CONTROLLER_URLS, SERVER_URL, fail

MiB = 1 << 20
# --query-gpu fields: name -> (unit for the csv header, how to get it from a row)
FIELDS = {
    "index": ("", lambda r: r["index"]),
    "name": ("", lambda r: r["name"]),
    "uuid": ("", lambda r: r["uuid"]),
    "lease": ("", lambda r: r["lease"] or "-"),
    "server": ("", lambda r: r["server"]),
    "memory.used": ("MiB", lambda r: r["memory_used"] // MiB),
    "memory.total": ("MiB", lambda r: r["memory_total"] // MiB),
    "memory.free": ("MiB", lambda r: max(0, r["memory_total"] - r["memory_used"]) // MiB),
    "utilization.gpu": ("%", lambda r: round(r["util"])),
    "compute.guarantee": ("%", lambda r: r["compute"]),
    "compute.limit": ("%", lambda r: r["limit"]),
    "share_only": ("", lambda r: "yes" if r["share_only"] else "no"),
    "count.processes": ("", lambda r: len(r["processes"])),
}


def _row(**kw) -> dict:
    base = {"index": 0, "name": "", "uuid": "", "lease": "", "server": "", "memory_used": 0, "memory_total": 0,
            "util": 0.0, "compute": 100, "limit": 100, "share_only": False, "processes": []}
    return {**base, **kw}


def pool_rows(controller: str) -> list[dict]:
    """The caller's vGPUs (an admin's: every lease's), in lease order; device i of a lease is its vGPU i."""
    with ControllerClient(controller) as c:
        leases = c.leases()
        ls = c.ls()
    used = {(v.get("lease"), v.get("vgpu")): v for s in ls["servers"] for v in (s.get("usage") or {}).get("vgpus", [])}
    rows = []
    for lease in leases:
        for i, v in enumerate(lease["vgpus"]):
            u = used.get((lease["id"], i), {})
            rows.append(_row(index=i, name=v.get("name", ""), uuid=v["gpu"], lease=lease["id"],
                             owner=lease["owner"], server=f"{v['server']}#{v['index']}", memory_total=v["memory"],
                             memory_used=u.get("memory_used_bytes", 0), util=u.get("share_pct", 0.0),
                             compute=v["compute"], limit=v["limit"], share_only=bool(v.get("share_only")),
                             processes=u.get("processes", [])))
    return rows


def pool_gpus(controller: str) -> list[dict]:
    """Every GPU of the pool (an admin's view): allocation and what its server measured."""
    with ControllerClient(controller) as c:
        ls = c.ls()
    rows = []
    for s in ls["servers"]:
        measured = {g.get("uuid"): g for g in (s.get("usage") or {}).get("gpus", [])}
        procs = {}
        for v in (s.get("usage") or {}).get("vgpus", []):
            procs.setdefault(v.get("gpu"), []).extend(v.get("processes", []))
        for g in s["gpus"]:
            m = measured.get(g["uuid"], {})
            rows.append(_row(index=g["index"], name=g["name"], uuid=g["uuid"], server=f"{s['url']}#{g['index']}",
                             memory_total=g["memory_total"], memory_used=m.get("memory_used", 0),
                             util=m.get("utilization_pct", 0.0), compute=g["compute_used"], limit=100,
                             lease=f"{len(g.get('tenants', []))} vGPUs", processes=procs.get(g["uuid"], []),
                             state=s["state"]))
    return rows


def direct_rows(servers: list[str]) -> list[dict]:
    """The GPUs named (URL#N: GPU N of that server; URL alone: all of them), from their stats."""
    from .server_client import ServerUnavailable, stats
    rows = []
    for n, entry in enumerate(servers):
        url, _, gpu = entry.partition("#")
        try:
            st = stats(url)
        except ServerUnavailable as e:
            raise click.ClickException(str(e)) from None
        if not st.get("ok"):
            raise click.ClickException(f"{url}: {st.get('message', st)}")
        procs = {}
        for v in st.get("vgpus", []):
            procs.setdefault(v["index"], []).extend(v["processes"])
        for g in st["gpus"]:
            if gpu and g["index"] != int(gpu):
                continue
            rows.append(_row(index=len(rows), name=g["name"], uuid=g["uuid"], server=f"{url}#{g['index']}",
                             memory_total=g["memory_total"], memory_used=g["memory_used"],
                             util=g.get("utilization_pct", 0.0), processes=procs.get(g["index"], [])))
    return rows


def _box(title: str, header: list[str], rows: list[list[str]], right: set[int] = frozenset(),
         empty: str = "") -> list[str]:
    """nvidia-smi's look: a titled box, a header, a rule of '=', the rows (or ``empty``)."""
    widths = [max([len(header[i])] + [len(r[i]) for r in rows]) for i in range(len(header))]

    def cells(values):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(values, widths)))
    inner = max(len(cells(header)), len(title), len(empty))
    line = lambda text: f"| {text.ljust(inner)} |"  # noqa: E731
    rule = lambda ch: "+" + ch * (inner + 2) + "+"  # noqa: E731
    out = [rule("-"), line(title), rule("-"), line(cells(header)), rule("=")]
    out += [line(cells(r)) for r in rows] or [line(empty)]
    return out + [rule("-")]


def render(rows: list[dict], source: str, gpus_view: bool = False) -> str:
    """nvidia-smi's layout: a box of the (v)GPUs, then a box of the processes (sessions)."""
    mem = lambda r: f"{r['memory_used'] // MiB}MiB / {r['memory_total'] // MiB}MiB"  # noqa: E731
    if gpus_view:
        header = ["GPU", "Name", "Server", "State", "vGPUs", "Memory-Usage", "Util", "Compute placed"]
        table = [[str(r["index"]), r["name"], r["server"], r.get("state", "up"), r["lease"], mem(r),
                  f"{r['util']:.0f}%", f"{r['compute']}%"] for r in rows]
    else:
        header = ["vGPU", "Name", "Lease", "Server", "Memory-Usage", "Util", "Compute (guarantee..limit)"]
        table = [[str(r["index"]), r["name"], r["lease"], r["server"], mem(r), f"{r['util']:.0f}%",
                  "share-only (no quota, no limit)" if r["share_only"] else f"{r['compute']}%..{r['limit']}%"]
                 for r in rows]
    out = [time.strftime("%a %b %d %H:%M:%S %Y")]
    out += _box(f"rgpu smi {__version__}   {source}", header, table, {0, 5 if gpus_view else 4},
                "no GPUs in the pool" if gpus_view else "no vGPUs held (rgpu reserve, rgpu run)")
    procs = [[str(r["index"]), r["server"] if gpus_view else r["lease"], p.get("client", ""),
              fmt_bytes(p.get("memory_used_bytes", 0))] for r in rows for p in r["processes"]]
    out += [""] + _box("Processes (sessions)", ["GPU" if gpus_view else "vGPU", "Server" if gpus_view else "Lease",
                                                 "Client (host:PID)", "GPU Memory Usage"], procs, {0, 3},
                          "No running processes found")
    return "\n".join(out)


def csv(rows: list[dict], fields: list[str], header: bool, units: bool) -> str:
    lines = []
    if header:
        lines.append(", ".join(f + (f" [{FIELDS[f][0]}]" if FIELDS[f][0] and units else "") for f in fields))
    for r in rows:
        values = []
        for f in fields:
            unit, get = FIELDS[f]
            v = get(r)
            values.append(f"{v} {unit}" if units and unit else str(v))
        lines.append(", ".join(values))
    return "\n".join(lines)


@click.command("smi")
@click.option("--server", multiple=True, type=SERVER_URL,
              help="direct mode: the GPUs of these servers (URL#N: GPU N), from their stats")
@click.option("--controller", envvar="RGPU_CONTROLLER", default=DEFAULT_CONTROLLER_URL, type=CONTROLLER_URLS,
              show_default=True, help="Controller URL (env RGPU_CONTROLLER).")
@click.option("-a", "--all", "everyone", is_flag=True, help="Every GPU of the pool (admin).")
@click.option("-l", "--loop", "interval", type=click.FloatRange(min=0.2), default=None, metavar="SEC",
              help="Show again every SEC seconds until interrupted.")
@click.option("--query-gpu", "query", default=None, metavar="FIELD,...",
              help=f"Print these fields (as nvidia-smi's --query-gpu): {', '.join(FIELDS)}.")
@click.option("--format", "fmt", default="csv", show_default=True, metavar="csv[,noheader][,nounits]",
              help="Format of --query-gpu.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for tools.")
def smi_command(server, controller, everyone, interval, query, fmt, as_json):
    """nvidia-smi for rgpu: the vGPUs you hold (utilisation, memory used of the quota, processes)."""
    fields = [f.strip() for f in query.split(",") if f.strip()] if query else None
    unknown = [f for f in fields or [] if f not in FIELDS]
    if unknown:
        raise click.BadParameter(f"unknown field(s) {', '.join(unknown)}; known: {', '.join(FIELDS)}",
                                 param_hint="--query-gpu")
    opts = {o.strip() for o in fmt.split(",")}
    if "csv" not in opts or opts - {"csv", "noheader", "nounits"}:
        raise click.BadParameter("csv, optionally with noheader and/or nounits (csv,noheader,nounits)",
                                 param_hint="--format")
    servers = [s for item in server for s in item.split(",") if s]
    while True:
        try:
            if servers:
                rows, source, gpus_view = direct_rows(servers), "direct " + ",".join(servers), True
            elif everyone:
                rows, source, gpus_view = pool_gpus(controller), f"pool {controller} (all GPUs)", True
            else:
                rows, source, gpus_view = pool_rows(controller), f"pool {controller}", False
        except ControllerError as e:
            fail(as_json, e.code, str(e))
        if as_json:
            text = json.dumps({"source": source, "gpus" if gpus_view else "vgpus": rows})
        elif fields:
            text = csv(rows, fields, "noheader" not in opts, "nounits" not in opts)
        else:
            text = render(rows, source, gpus_view)
        if interval and sys.stdout.isatty() and not fields and not as_json:
            click.echo("\033[H\033[2J", nl=False)
        click.echo(text)
        if not interval:
            return
        try:
            time.sleep(interval)
        except KeyboardInterrupt:
            return


def register(group: click.Group) -> None:
    group.add_command(smi_command)
