"""Which store holds the controller's state: ``--store sqlite:PATH`` (or ``--db PATH``), the
embedded default for one machine, or ``--store etcd://HOST:PORT[,HOST:PORT...][/PREFIX]`` for
replicas sharing one state (election.py); ``etcds://`` talks TLS to etcd, with the CA and client
certificate of ``--etcd-cacert``, ``--etcd-cert`` and ``--etcd-key`` (tls_options).

Both implement one interface (``Store`` in store.py, ``EtcdStore`` in store_etcd.py), which the
Controller (service.py) alone calls: ``upsert_server``, ``delete_server``, ``set_server_state``,
``set_draining``, ``load_servers``, ``insert_lease``, ``renew_lease``, ``set_lease_states``,
``end_leases``, ``ended_state``, ``ended_since``, ``prune_ended``, ``load_leases``,
``move_allocation``, ``set_reclaimed``, ``insert_migration``, ``end_migration``,
``load_migrations``, ``gpu_commitments``, ``version``, ``start_checkpointer``, ``close`` and
``path`` (what it is, for logs). Each change is one transaction in either.
"""
from __future__ import annotations

import click

from .etcd import TlsFiles
from .store import Store, StoreError
from .store_etcd import EtcdStore


def tls_options(f):
    """``--etcd-cacert``, ``--etcd-cert``, ``--etcd-key`` (etcdctl's --cacert/--cert/--key): TLS
    with an ``etcds://`` store; passed on as ``etcd_tls`` (a TlsFiles)."""
    def keep(ctx, param, value):
        ctx.meta[param.name] = value
        return value
    for name, env, what in (("--etcd-key", "RGPU_ETCD_KEY", "the key of --etcd-cert"),
                            ("--etcd-cert", "RGPU_ETCD_CERT", "this client's certificate (PEM), for members that "
                                                              "check clients (--client-cert-auth)"),
                            ("--etcd-cacert", "RGPU_ETCD_CACERT", "the CA (PEM) that signed the etcd members' "
                                                                  "certificates (default: the system's)")):
        f = click.option(name, envvar=env, metavar="PATH", type=click.Path(dir_okay=False), default=None,
                         expose_value=False, callback=keep, help=f"With an etcds:// store: {what}.")(f)
    return f


def tls_files() -> TlsFiles:
    """The TLS files the current command was given (tls_options)."""
    meta = click.get_current_context().meta
    return TlsFiles(meta.get("etcd_cacert"), meta.get("etcd_cert"), meta.get("etcd_key"))


def open_store(spec: str, tls: TlsFiles | None = None):
    """The store ``spec`` names; raises StoreError (with what to do) if it cannot be used."""
    if spec.startswith(("etcd://", "etcds://")):
        return EtcdStore(spec, tls=tls)
    if spec.startswith("sqlite:"):
        return Store(spec.removeprefix("sqlite:").removeprefix("//"))
    raise StoreError(f"--store {spec!r}: expected sqlite:PATH or etcd://HOST:PORT[,HOST:PORT...][/PREFIX] (etcds:// for TLS)")
