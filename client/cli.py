"""The `rgpu` command: run programs on remote GPUs, print the environment, and (with a controller)
list, reserve and release virtual GPUs."""
from __future__ import annotations

import os
import shlex
import sys

import click

from rgpu import logs
from rgpu.client import admin_commands, pool_commands
from rgpu.client.controller_client import ControllerError
from rgpu.client.leased_run import LeasedRunError, run_with_lease
from rgpu.paths import LibraryMissing, client_env

DEFAULT_SERVER = "tcp://127.0.0.1:7450"


def _servers(server: tuple[str, ...]) -> list[str]:
    out = [s.strip() for item in server for s in item.split(",") if s.strip()]
    return out or [os.environ.get("RGPU_SERVER") or DEFAULT_SERVER]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli():
    """rgpu: run unmodified CUDA programs on GPUs of other machines."""
    logs.configure("rgpu", os.environ.get("RGPU_LOG_LEVEL") or "warning")  # quiet unless asked


@cli.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--server", multiple=True, help="server URL (direct mode); repeat or comma-separate for several devices; "
                                              "URL#N picks GPU N of that server")
@click.option("--controller", default=lambda: os.environ.get("RGPU_CONTROLLER"), help="reserve from this controller")
@click.option("--lease", "lease_id", default=None, help="run on an existing lease (left in place)")
@pool_commands.request_options
@click.argument("program", nargs=-1, required=True, type=click.UNPROCESSED)
def run(server, controller, lease_id, program, **request_opts):
    """Run PROGRAM with its CUDA calls served by rgpu; its exit code is passed through.

    With --controller (or RGPU_CONTROLLER) it reserves vGPUs, renews the lease while PROGRAM runs
    and releases it at exit; device i of PROGRAM is vGPU i of the lease.

    \b
    rgpu run --server tcp://gpuhost:7450 -- ./app args
    rgpu run --controller tcp://head:7440 --mem 8GiB --compute 50 -- ./train.py
    rgpu run --controller tcp://head:7440 -n 2 --policy spread -- ./multi_gpu_app
    """
    try:
        if (controller or lease_id) and not server:
            request = pool_commands.request_from_options(**request_opts)

            def progress(r):
                click.echo(f"rgpu: waiting, position {r['position']} in queue: {r['message']}", err=True)

            env = client_env([], base=os.environ)
            sys.exit(run_with_lease(controller, None if lease_id else request, lease_id, list(program), env,
                                    progress=progress))
        env = client_env(_servers(server))
    except LibraryMissing as e:
        raise click.ClickException(str(e))
    except ControllerError as e:
        raise click.ClickException(f"no vGPU from the controller: {e}")
    except LeasedRunError as e:
        raise click.ClickException(str(e))
    try:
        os.execvpe(program[0], list(program), env)
    except FileNotFoundError:
        raise click.ClickException(f"{program[0]}: no such program")
    except PermissionError:
        raise click.ClickException(f"{program[0]}: not executable")


@cli.command()
@click.option("--server", multiple=True, help="server URL(s), as for `rgpu run`")
@click.option("--json", "as_json", is_flag=True, help="print JSON instead of shell lines")
def env(server, as_json):
    """Print the environment that makes CUDA programs in this shell use rgpu.

    `eval "$(rgpu env --server tcp://gpuhost:7450)"`. LD_PRELOAD is one of the lines; without it,
    LD_LIBRARY_PATH alone works on hosts that have no CUDA libraries installed."""
    try:
        e = client_env(_servers(server), base={})
    except LibraryMissing as ex:
        raise click.ClickException(str(ex))
    keys = ["LD_LIBRARY_PATH", "LD_PRELOAD", "RGPU_SERVER"]
    if as_json:
        import json
        click.echo(json.dumps({k: e[k] for k in keys}))
        return
    for k in keys:
        click.echo(f"export {k}={shlex.quote(e[k])}")


pool_commands.register(cli)
admin_commands.register(cli)


def main() -> None:
    cli(prog_name="rgpu")


if __name__ == "__main__":
    main()
