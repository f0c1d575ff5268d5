"""One error style for every rgpu command: ``PROG: error: MESSAGE`` on stderr (no click ``Error:``
block, no traceback), exit code 2 for a usage error and 1 otherwise. The ``rgpu`` CLI has its own
main (client/cli.py: JSON errors, a code per class of failure); the daemons use ``DaemonCommand``."""
from __future__ import annotations

import sys

import click


class DaemonCommand(click.Command):
    """A click command whose failures read ``rgpu-server: error: ...`` (the daemons' command lines)."""

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
            click.echo(f"{name}: error: {e.format_message()} ({name} --help)", err=True)
            sys.exit(e.exit_code)
        except click.ClickException as e:
            click.echo(f"{name}: error: {e.format_message()}", err=True)
            sys.exit(e.exit_code)
        sys.exit(0)
