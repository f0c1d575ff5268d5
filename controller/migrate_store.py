"""``rgpu-controller migrate-store --from sqlite:PATH --to etcd://...``: copy a pool's state from
SQLite into etcd, to move a one-machine controller to replicas.

What is copied: the servers and their GPUs, the live leases with their allocations, the leases that
ended (the history ``rgpu leases --ended`` shows) and the pending migrations. Heartbeats and usage
are not state (the servers send them again within seconds). The SQLite file is only read (a running
controller may keep serving from it; stop it before the replicas start, or the two diverge). The
target must hold no pool yet. Checked by counts: what etcd holds afterwards is read back and
compared with the source, GPU by GPU commitments included; ``--dry-run`` reads and counts only.
"""
from __future__ import annotations

from pathlib import Path

import click

from .store import Store, StoreError
from .store_etcd import EtcdStore
from .stores import tls_files, tls_options


def read(src: Store) -> dict:
    return {"servers": src.load_servers(), "leases": src.load_leases(), "ended": src.ended_since(0.0),
            "migrations": src.load_migrations()}


def counts(state: dict) -> dict:
    return {"servers": len(state["servers"]), "gpus": sum(len(s["gpus"]) for s in state["servers"]),
            "leases": len(state["leases"]), "allocations": sum(len(x["allocations"]) for x in state["leases"]),
            "ended": len(state["ended"]), "migrations": len(state["migrations"])}


@click.command("migrate-store", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--from", "source", required=True, metavar="sqlite:PATH", help="The SQLite state to copy.")
@click.option("--to", "target", required=True, metavar="etcd[s]://HOST:PORT[,...][/PREFIX]", help="The etcd to copy it into.")
@tls_options
@click.option("--dry-run", is_flag=True, help="Read the source and the target, say what would be copied; write nothing.")
def migrate_store(source, target, dry_run):
    """Copy a controller's state from SQLite into etcd (then start replicas with --store TARGET)."""
    path = Path(source.removeprefix("sqlite:").removeprefix("//"))
    if not source.startswith("sqlite:") or not path.is_file():
        raise click.BadParameter(f"{source!r}: expected sqlite:PATH of an existing state file", param_hint="--from")
    try:
        src = Store(path)
        dst = EtcdStore(target, create=not dry_run, tls=tls_files())
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        state, there = read(src), read_etcd(dst)
        want = counts(state)
        if there["servers"] or there["leases"]:
            raise click.ClickException(f"{target} already holds a pool ({there['servers']} servers, "
                                       f"{there['leases']} live leases): copy into an empty prefix")
        summary = ", ".join(f"{n} {what}" for what, n in want.items())
        if dry_run:
            click.echo(f"would copy {summary} from {source} to {target} (dry run: nothing written)")
            return
        dst.write_state(state)
        got = counts(read(dst))
        if got != want or dst.gpu_commitments() != src.gpu_commitments():
            raise click.ClickException(f"copy differs from the source: {got} != {want}")
        click.echo(f"copied {summary} from {source} to {target}")
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        src.close()
        dst.close()


def read_etcd(dst: EtcdStore) -> dict:
    return {"servers": len(dst.load_servers()), "leases": len(dst.load_leases())}
