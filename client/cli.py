"""The `rgpu` command: run programs on remote GPUs, print the environment, and (with a controller)
list, reserve, renew and release virtual GPUs, and watch them (`rgpu smi`).

Every failure is one sentence on stderr, ``rgpu: error: ...``, or with --json one JSON object on
stdout — never a traceback (RGPU_LOG=debug shows one for an unexpected error) — and an exit code
per class of failure (client/exits.py: 2 usage, 3 refused, 4 not found, 5 authentication,
6 controller unreachable, 127 no such program, ...).

Shell completion comes from click: `eval "$(rgpu completion bash)"` (or zsh, fish)."""
from __future__ import annotations

import json
import os
import sys

import click

from rgpu import __version__, logs
from rgpu.client import admin_commands, exits, migrate_commands, pool_commands, smi
from rgpu.client.controller_client import DEFAULT_CONTROLLER_URL, ControllerClient, ControllerError
from rgpu.client.leased_run import LeasedRunError, run_with_lease
from rgpu.client.params import CONTROLLER_URLS, SERVER_URL, WaitLine, fail
from rgpu.client.known_servers import ServerKeyError, resolve
from rgpu.client.server_client import backends, software_gpu_env
from rgpu.paths import LibraryMissing, client_env

DEFAULT_SERVER = "tcp://127.0.0.1:7450"


def _servers(server: tuple[str, ...]) -> list[str]:
    out = [s.strip() for item in server for s in item.split(",") if s.strip()]
    return out or [s.strip() for s in (os.environ.get("RGPU_SERVER") or DEFAULT_SERVER).split(",") if s.strip()]


def _pinned(servers: list[str]) -> list[str]:
    """Each direct-mode server URL with its pinned key (client/known_servers.py), said on stderr
    when a key is pinned or a wire is plain; ServerKeyError for a key that cannot be trusted."""
    return [resolve(url, say=lambda line: click.echo(line, err=True)) for url in servers]


def _direct(server: tuple[str, ...]) -> bool:
    """Direct mode (servers named, no controller): --server, or RGPU_SERVER without RGPU_CONTROLLER."""
    return bool(server) or (bool(os.environ.get("RGPU_SERVER")) and not os.environ.get("RGPU_CONTROLLER"))


def _asked_for_a_request() -> bool:
    """Whether the command line of `rgpu run` names any request option (--mem, -n, ...)."""
    from click.core import ParameterSource
    ctx = click.get_current_context()
    return any(ctx.get_parameter_source(p.name) == ParameterSource.COMMANDLINE
               for p in ctx.command.params if p.name in pool_commands.REQUEST_OPTIONS)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="rgpu")
def cli():
    """rgpu: run unmodified CUDA programs on GPUs of other machines.

    Sizes (--mem) are MiB when bare (--mem 512), or take a binary unit (512M, 8G, 16GiB), or are a
    share of the GPU with % (50%). URLs are tcp://HOST:PORT, HOST:PORT or ipc://PATH. Exit codes:
    2 usage, 3 refused, 4 not found, 5 authentication, 6 controller unreachable, 127 no such
    program (docs/configuration.md)."""
    logs.configure_cli()


@cli.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--server", multiple=True, type=SERVER_URL,
              help="server URL (direct mode); repeat or comma-separate for several devices; URL#N picks GPU N")
@click.option("--controller", envvar="RGPU_CONTROLLER", default=DEFAULT_CONTROLLER_URL, type=CONTROLLER_URLS,
              show_default=True, help="reserve from this controller (env RGPU_CONTROLLER)")
@click.option("--lease", "lease_id", default=None,
              help="run on an existing lease (left in place); default: $RGPU_LEASE_ID (a `rgpu reserve` shell's "
                   "lease) when no request option is given")
@pool_commands.request_options
@click.argument("program", nargs=-1, required=True, type=click.UNPROCESSED)
def run(server, controller, lease_id, program, **request_opts):
    """Run PROGRAM with its CUDA calls served by rgpu; its exit code is passed through.

    With a controller (--controller, RGPU_CONTROLLER, else tcp://127.0.0.1:7440 as for `rgpu ls`)
    it reserves vGPUs, renews the lease while PROGRAM runs and releases it at exit; device i of
    PROGRAM is vGPU i of the lease. Inside a shell of `rgpu reserve` (RGPU_LEASE_ID set) it runs on
    that lease instead, as srun does inside salloc, unless request options ask for a new one.
    --server (or RGPU_SERVER alone) names servers instead.

    \b
    rgpu run --mem 8G --compute 50 -- ./train.py
    rgpu run -n 2 --policy spread -- ./multi_gpu_app
    rgpu run --server tcp://gpuhost:7450 -- ./app args
    """
    if not lease_id and not server and os.environ.get("RGPU_LEASE_ID") and not _asked_for_a_request():
        lease_id = os.environ["RGPU_LEASE_ID"]
    try:
        if lease_id or not _direct(server):
            request = None if lease_id else pool_commands.request_from_options(**request_opts)
            env = client_env([], base=os.environ)
            sys.exit(run_with_lease(controller, request, lease_id, list(program), env,
                                    progress=WaitLine()))
        servers = _pinned(_servers(server))
        env = {**software_gpu_env(backends(servers)), **client_env(servers)}
    except ServerKeyError as e:
        fail(False, e.code, str(e))
    except LibraryMissing as e:
        fail(False, "no_library", str(e))
    except ControllerError as e:
        fail(False, e.code, f"no vGPU from the controller: {e}")
    except LeasedRunError as e:
        fail(False, e.code, str(e))
    try:
        os.execvpe(program[0], list(program), env)
    except FileNotFoundError:
        fail(False, "no_program", f"{program[0]}: no such program")
    except PermissionError:
        fail(False, "not_executable", f"{program[0]}: not executable")


@cli.command()
@click.option("--server", multiple=True, type=SERVER_URL, help="server URL(s), as for `rgpu run`")
@click.option("--lease", "lease_id", default=None,
              help="the lease's environment (RGPU_LEASE, RGPU_SERVER with the servers' keys); renews it")
@click.option("--controller", envvar="RGPU_CONTROLLER", default=DEFAULT_CONTROLLER_URL, type=CONTROLLER_URLS,
              show_default=True, help="controller of --lease (env RGPU_CONTROLLER)")
@click.option("--json", "as_json", is_flag=True, help="print JSON instead of shell lines")
def env(server, lease_id, controller, as_json):
    """Print the environment that makes CUDA programs in this shell use rgpu.

    `eval "$(rgpu env --server tcp://gpuhost:7450)"`, or for a lease of the pool
    `eval "$(rgpu env --lease l-3fa9c2b1d0)"`. LD_PRELOAD is one of the lines; without it,
    LD_LIBRARY_PATH alone works on hosts that have no CUDA libraries installed."""
    if lease_id:
        try:
            with ControllerClient(controller) as c:
                values = pool_commands.lease_exports(c.renew(lease_id), controller)
        except ControllerError as e:
            fail(as_json, e.code, str(e))
    else:
        try:
            servers = _pinned(_servers(server))
            e = {**software_gpu_env(backends(servers)), **client_env(servers, base={})}
        except ServerKeyError as ex:
            fail(as_json, ex.code, str(ex))
        except LibraryMissing as ex:
            fail(as_json, "no_library", str(ex))
        keys = ["LD_LIBRARY_PATH", "LD_PRELOAD", "RGPU_SERVER", *(k for k in e if k.startswith("CUPY_"))]
        values = {k: e[k] for k in keys}
    if as_json:
        click.echo(json.dumps(values))
        return
    for line in pool_commands.shell_lines(values):
        click.echo(line)


@cli.command()
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell):
    """Print the completion script of SHELL: `eval "$(rgpu completion bash)"` in ~/.bashrc
    (zsh: the same with zsh; fish: `rgpu completion fish | source`)."""
    from click.shell_completion import get_completion_class
    comp = get_completion_class(shell)(cli, {}, "rgpu", "_RGPU_COMPLETE")
    click.echo(comp.source())


pool_commands.register(cli)
admin_commands.register(cli)
migrate_commands.register(cli)
smi.register(cli)


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    as_json = "--json" in args
    try:
        code = cli.main(args=args, prog_name="rgpu", standalone_mode=False)
        sys.exit(code or 0)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except click.Abort:
        click.echo("rgpu: interrupted", err=True)
        sys.exit(exits.INTERRUPTED)
    except click.UsageError as e:
        # one error style: `rgpu: error: ...`, the command's help named rather than click's `Error:`
        where = f" (rgpu {e.ctx.command_path.partition(' ')[2]} --help)".replace("rgpu  ", "rgpu ") if e.ctx else ""
        fail(as_json, "usage", e.format_message() + ("" if as_json else where), exits.USAGE)
    except click.ClickException as e:
        fail(as_json, "error", e.format_message(), exits.ERROR if e.exit_code == 1 else e.exit_code)
    except KeyboardInterrupt:
        click.echo("rgpu: interrupted", err=True)
        sys.exit(exits.INTERRUPTED)
    except Exception as e:  # a bug: say what it was, without a traceback unless asked
        if logs.level_of(None, "warning") <= 10:
            raise
        fail(as_json, "internal", f"internal error {e.__class__.__name__}: {e} (RGPU_LOG=debug shows where)")


if __name__ == "__main__":
    main()
