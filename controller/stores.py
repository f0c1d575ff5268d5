"""Which store holds the controller's state: ``--store sqlite:PATH`` (or ``--db PATH``), the
embedded default for one machine, or ``--store etcd://HOST:PORT[,HOST:PORT...][/PREFIX]`` for
replicas sharing one state (election.py).

Both implement one interface (``Store`` in store.py, ``EtcdStore`` in store_etcd.py), which the
Controller (service.py) alone calls: ``upsert_server``, ``delete_server``, ``set_server_state``,
``set_draining``, ``load_servers``, ``insert_lease``, ``renew_lease``, ``set_lease_states``,
``end_leases``, ``ended_state``, ``ended_since``, ``prune_ended``, ``load_leases``,
``move_allocation``, ``set_reclaimed``, ``insert_migration``, ``end_migration``,
``load_migrations``, ``gpu_commitments``, ``version``, ``start_checkpointer``, ``close`` and
``path`` (what it is, for logs). Each change is one transaction in either.
"""
from __future__ import annotations

from .store import Store, StoreError
from .store_etcd import EtcdStore


def open_store(spec: str):
    """The store ``spec`` names; raises StoreError (with what to do) if it cannot be used."""
    if spec.startswith("etcd://"):
        return EtcdStore(spec)
    if spec.startswith("sqlite:"):
        return Store(spec.removeprefix("sqlite:").removeprefix("//"))
    raise StoreError(f"--store {spec!r}: expected sqlite:PATH or etcd://HOST:PORT[,HOST:PORT...][/PREFIX]")
