"""The operator's commands of the ``rgpu`` CLI: ``rgpu user add/remove/list`` (credentials, on the
controller's machine: they edit its users directory, which it reads again when it changes) and
``rgpu server forget`` (an admin request to the controller: a GPU stays bound to the server that
registered it until that server is forgotten)."""
from __future__ import annotations

import json
from pathlib import Path

import click

from rgpu.config import config_dir
from rgpu.controller import users
from rgpu.protocol import curve

from .controller_client import ControllerClient
from .credentials import ENV_CREDENTIAL, CredentialError, controller_cert_path
from .pool_commands import controller_command, controller_option, json_option


def users_option(f):
    return click.option("--users", "users_dir", type=click.Path(file_okay=False), default=None,
                        help="The controller's users directory (default: <config>/users, as rgpu-controller's).")(f)


def _users_dir(given) -> Path:
    return Path(given) if given else config_dir() / "users"


@click.group("user")
def user_group():
    """Credentials of the controller's users (run on the controller's machine)."""


@user_group.command("add")
@click.argument("name")
@click.option("--admin", is_flag=True, help="An admin sees and acts on every lease.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Where to write the credential (default: ./NAME.credential); give it to the user.")
@click.option("--controller-key", default=None,
              help="The controller's public key to put in it (default: <config>/controller.key).")
@users_option
def user_add(name, admin, out, controller_key, users_dir):
    """Issue a credential for NAME: a CURVE secret certificate (mode 0600) that names the user, its
    role and the controller's key, and list its public half in the users directory. The user sets
    RGPU_CREDENTIAL to the file."""
    try:
        key = curve.parse_key(controller_key) if controller_key else \
            curve.read_cert(controller_cert_path(), secret=False)[0].public
        path = users.issue(_users_dir(users_dir), name, "admin" if admin else "user",
                           out or f"{name}.credential", key)
    except (CredentialError, curve.CurveError) as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"wrote {path} for {name} ({'admin' if admin else 'user'}); the user sets {ENV_CREDENTIAL}={path}")


@user_group.command("remove")
@click.argument("name")
@users_option
def user_remove(name, users_dir):
    """Stop admitting NAME (connections it opens from now on are refused)."""
    try:
        users.remove(_users_dir(users_dir), name)
    except CredentialError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"removed {name}")


@user_group.command("list")
@users_option
@json_option
def user_list(users_dir, as_json):
    """The users the controller admits."""
    found = []
    for cert in sorted(_users_dir(users_dir).glob("*.key")):
        try:
            keys, meta = curve.read_cert(cert, secret=False)
        except curve.CurveError:
            continue
        found.append({"name": meta.get("name", cert.stem), "role": meta.get("role", "user"),
                      "key": keys.public.decode()})
    if as_json:
        click.echo(json.dumps({"users": found}))
        return
    for u in found:
        click.echo(f"{u['name']:24} {u['role']:6} {u['key']}")


@click.group("server")
def server_group():
    """Servers of the pool (admin)."""


@server_group.command("forget")
@click.argument("url")
@controller_option
@json_option
@controller_command
def server_forget(url, controller, as_json):
    """Remove URL (a server that is down) and its GPUs from the pool; its leases are released and
    its GPUs may register under another URL."""
    with ControllerClient(controller) as c:
        released = c.call("forget_server", url=url)["released"]
    click.echo(json.dumps({"forgotten": url, "released": released}) if as_json else
               f"forgot {url}" + (f"; released {', '.join(released)}" if released else ""))


def register(group: click.Group) -> None:
    group.add_command(user_group)
    group.add_command(server_group)
