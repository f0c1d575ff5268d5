"""The live-migration commands of the ``rgpu`` CLI: migrate, drain, defrag.

A migration moves a lease's vGPU, with the sessions of the programs using it, to another GPU or
server while they run (server/migration); the controller orders it (controller/migrations.py) and
the source server reports how it went with its heartbeats. ``migrate``, ``drain`` and ``defrag`` wait
for the outcome unless told not to, and exit 1 when a move failed (the program then runs on where it was).
"""
from __future__ import annotations

import json
import time

import click

from rgpu.controller.requests import fmt_bytes

from .controller_client import ControllerClient
from .params import ProgressLine
from .pool_commands import _table, controller_command, controller_option, json_option

POLL_S = 0.25


def _wait(c: ControllerClient, moves: list[dict], timeout: float, line: ProgressLine | None = None) -> list[dict]:
    """The migrations once none is pending (or ``timeout`` has passed: those still pending are
    returned as they are); ``line`` shows how many are done meanwhile."""
    deadline = time.monotonic() + timeout
    done: dict[str, dict] = {}
    pending = [m["id"] for m in moves]
    while pending and time.monotonic() < deadline:
        if line is not None:
            _progress(line, moves, done)
        time.sleep(POLL_S)  # polling the controller's view of a move, not a synchronisation
        for mid in list(pending):
            m = c.migration(mid)
            if m["state"] != "pending":
                done[mid] = m
                pending.remove(mid)
    if line is not None:
        _progress(line, moves, done)   # the tally, in a log; a terminal's line is cleared for the table
        line.done()
    return [done.get(m["id"], m) for m in moves]


def _progress(line: ProgressLine, moves: list[dict], done: dict[str, dict]) -> None:
    """``rgpu: migrating 3 vGPUs, 12s: 1 moved, 0 failed, 2 pending (m-..., m-...)``."""
    moved = sum(1 for m in done.values() if m["state"] != "failed")
    failed = len(done) - moved
    pending = [m["id"] for m in moves if m["id"] not in done]
    shown = " (" + ", ".join(pending[:3]) + (", ..." if len(pending) > 3 else "") + ")" if pending else ""
    line.show(f"rgpu: migrating {len(moves)} vGPU{'s' if len(moves) != 1 else ''}, {line.elapsed():.0f}s: "
              f"{moved} moved, {failed} failed, {len(pending)} pending{shown}", (moved, failed))


def _show(moves: list[dict], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps({"migrations": moves}))
        return
    if not moves:
        click.echo("nothing to move")
        return
    rows = [[m["id"], m["lease"], m["vgpu"], m["from"], m["to"], m["state"],
             f"{m['pause_s'] * 1000:.0f} ms" if "pause_s" in m else "-",
             fmt_bytes(m["memory_bytes"]) if "memory_bytes" in m else "-", m.get("message") or ""]
            for m in moves]
    click.echo(_table(rows, ["MIGRATION", "LEASE", "VGPU", "FROM", "TO", "STATE", "PAUSE", "MEMORY", "MESSAGE"]))


def _finish(c, moves, wait, timeout, as_json):
    if wait:
        moves = _wait(c, moves, timeout, None if as_json or not moves else ProgressLine())
    _show(moves, as_json)
    failed = [m for m in moves if m["state"] == "failed"]
    if failed:
        if not as_json:
            click.echo(f"{len(failed)} migration(s) failed; their programs run on where they were", err=True)
        raise SystemExit(1)


@click.command("migrate")
@click.argument("lease")
@click.option("--to", "to", metavar="SERVER[#GPU]", help="Where to (default: where placement puts it).")
@click.option("--vgpu", type=int, default=None, help="Only this vGPU of the lease (0, 1, ...).")
@click.option("--wait/--no-wait", default=True, show_default=True, help="Wait for the outcome.")
@click.option("--timeout", type=float, default=300.0, show_default=True, help="Seconds to wait at most.")
@controller_option
@json_option
@controller_command
def migrate_command(lease, to, vgpu, wait, timeout, controller, as_json):
    """Move LEASE's vGPUs, and the programs running on them, live to another GPU or server."""
    with ControllerClient(controller) as c:
        _finish(c, c.migrate(lease, to, vgpu), wait, timeout, as_json)


@click.command("drain")
@click.argument("server")
@click.option("--undo", is_flag=True, help="Take new vGPUs again.")
@click.option("--wait/--no-wait", default=True, show_default=True, help="Wait for the moves ordered now.")
@click.option("--timeout", type=float, default=600.0, show_default=True, help="Seconds to wait at most.")
@controller_option
@json_option
@controller_command
def drain_command(server, undo, wait, timeout, controller, as_json):
    """Move every vGPU off SERVER (live) and place nothing new there (admin)."""
    with ControllerClient(controller) as c:
        moves = c.drain(server, undo)
        if not undo and not as_json:
            click.echo(f"{server} is draining: it takes no new vGPUs", err=True)
        _finish(c, moves, wait and not undo, timeout, as_json)


@click.command("defrag")
@click.option("--dry-run", is_flag=True, help="Only show the moves.")
@click.option("--max-moves", type=click.IntRange(1, 1024), default=16, show_default=True)
@click.option("--wait/--no-wait", default=True, show_default=True, help="Wait for the moves ordered now.")
@click.option("--timeout", type=float, default=600.0, show_default=True, help="Seconds to wait at most.")
@controller_option
@json_option
@controller_command
def defrag_command(dry_run, max_moves, wait, timeout, controller, as_json):
    """Empty the least used GPUs by moving their vGPUs onto fuller ones (admin)."""
    with ControllerClient(controller) as c:
        moves = c.defrag(dry_run, max_moves)
        if not dry_run:
            # the moves ordered, as migrate and drain show and wait for them (their outcome, pause, memory)
            _finish(c, [c.migration(m["migration"]) for m in moves], wait, timeout, as_json)
            return
    if as_json:
        click.echo(json.dumps({"moves": moves}))
        return
    if not moves:
        click.echo("nothing to move")
        return
    click.echo(_table([[m["lease"], m["vgpu"], m["from"], m["to"], "(dry run)"] for m in moves],
                      ["LEASE", "VGPU", "FROM", "TO", "MIGRATION"]))


def register(group: click.Group) -> None:
    for cmd in (migrate_command, drain_command, defrag_command):
        group.add_command(cmd)


