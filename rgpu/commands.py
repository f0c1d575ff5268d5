"""One error style for every rgpu command: ``PROG: error: MESSAGE`` on stderr (no click ``Error:``
block, no traceback), exit code 2 for a usage error and 1 otherwise. The ``rgpu`` CLI has its own
main (client/cli.py: JSON errors, a code per class of failure); the daemons use ``DaemonCommand``,
``rgpu-k8s`` (a group of commands) ``DaemonGroup``."""
from __future__ import annotations

import sys

import click


class _OneStyle:
    """click's ``main`` with rgpu's error style (mixed into a Command or a Group)."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        name = prog_name or self.name or "rgpu"
        try:
            super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.Exit as e:
            sys.exit(e.exit_code)
        except click.Abort:
            click.echo(f"{name}: interrupted", err=True)
            sys.exit(130)
        except click.UsageError as e:
            # the help of the (sub)command that was misused: `rgpu-k8s device-plugin --help`
            where = e.ctx.command_path if e.ctx is not None and e.ctx.command_path else name
            click.echo(f"{name}: error: {e.format_message()} ({where} --help)", err=True)
            sys.exit(e.exit_code)
        except click.ClickException as e:
            click.echo(f"{name}: error: {e.format_message()}", err=True)
            sys.exit(e.exit_code)
        sys.exit(0)


class DaemonCommand(_OneStyle, click.Command):
    """A click command whose failures read ``rgpu-server: error: ...`` (the daemons' command lines)."""


class DaemonGroup(_OneStyle, click.Group):
    """A click group of commands with the same error style (``rgpu-k8s: error: ...``)."""
