"""Controller replicas sharing one etcd store, one of which leads.

The election is etcd's usual one: the key ``PREFIX/leader`` is created only if absent
(a transaction comparing its create revision with 0), bound to an etcd lease of ``ttl`` seconds
that the leader keeps alive. When the leader dies its lease expires and the key goes with it; the
next replica to look finds it absent and creates it. The create revision the winner got is its
fencing token: the store (store_etcd.py) compares it in every write, so a leader that was cut off
and replaced can no longer change anything, even before it notices.

``Replica.step`` runs in the daemon's loop (no thread): a follower looks at the key every
``poll`` seconds; the leader refreshes its lease every ttl/3 and steps down by itself once it has
not refreshed it for ttl - STEP_DOWN_MARGIN, before etcd lets another replica in. A new leader
builds its Controller from the store (``make_controller``): the pool, leases and migrations, with
the restart grace so that no lease whose renewals failed while no replica led expires at once.
"""
from __future__ import annotations

import json
import time
import uuid
from typing import Callable

import structlog

from . import etcd as E
from .store import StoreError

log = structlog.get_logger("rgpu.controller.election")
STEP_DOWN_MARGIN = 1.0


class Election:
    def __init__(self, etcd: E.Etcd, key: str, me: dict, ttl: int = 3, poll: float = 0.25,
                 clock=time.monotonic):
        self.etcd, self.key, self.ttl, self.poll, self.clock = etcd, key, max(2, int(ttl)), poll, clock
        self.me = dict(me, id=uuid.uuid4().hex)
        self.revision = 0          # the leader key's create revision while this replica leads
        self.lease = 0
        self.leader: dict | None = None   # who leads, as last seen (this replica's own record when leading)
        self._refreshed = 0.0      # when the lease was last known alive (sent time of the keepalive)
        self._next = 0.0

    @property
    def leading(self) -> bool:
        return self.revision != 0

    def step(self) -> None:
        now = self.clock()
        if now < self._next:
            return
        try:
            if self.leading:
                self._next = now + self.ttl / 3
                if self.etcd.keepalive(self.lease) <= 0:
                    self._lost("its etcd lease expired")
                    return
                # the key, not only the lease: an operator (or a bug) may have deleted it
                kv = self.etcd.get(self.key)
                if kv is None or kv.create_revision != self.revision:
                    self._lost(f"{self.key} was deleted or created again")
                    return
                self._refreshed = now
            else:
                self._next = now + self.poll
                self._campaign(now)
        except E.EtcdError as exc:
            if self.leading and self.clock() - self._refreshed > self.ttl - STEP_DOWN_MARGIN:
                self._lost(f"etcd unreachable for {self.clock() - self._refreshed:.1f}s ({exc})")
            elif not self.leading:
                self.leader = None
            self._next = self.clock() + self.poll

    def _campaign(self, now: float) -> None:
        kv = self.etcd.get(self.key)
        if kv is not None:
            self.leader = _record(kv.value)
            return
        lease = self.etcd.grant(self.ttl)
        ok, reply = self.etcd.txn([E.cmp_create(self.key, 0)], [E.put(self.key, json.dumps(self.me), lease)],
                                  [E.get(self.key)])
        if ok:
            self.lease, self.revision, self.leader = lease, int(reply["header"]["revision"]), self.me
            self._refreshed, self._next = now, now + self.ttl / 3
            return
        self.etcd.revoke(lease)
        kvs = reply.get("responses", [{}])[0].get("response_range", {}).get("kvs", [])
        self.leader = _record(E.unb64(kvs[0].get("value", ""))) if kvs else None

    def _lost(self, why: str) -> None:
        log.warning("leadership_lost", reason=why, revision=self.revision)
        self.revision, self.lease, self.leader = 0, 0, None
        self._next = self.clock() + self.poll

    def resign(self) -> None:
        """Leave the lead at once (a clean stop): the key goes with the lease, a follower takes over
        at its next look instead of after the ttl."""
        if self.leading:
            try:
                self.etcd.revoke(self.lease)
            except E.EtcdError:
                pass
            self.revision, self.lease = 0, 0


def _record(value: bytes) -> dict | None:
    try:
        record = json.loads(value)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


class Replica:
    """One controller of a cluster: it follows (knows who leads) or leads (holds the Controller)."""

    def __init__(self, store, make_controller: Callable[[], object], advertise: str, ttl: int = 3):
        self.store, self.make_controller = store, make_controller
        self.election = Election(store.client(), store.key("leader"), {"url": advertise}, ttl)
        self.ctl = None

    def leader_url(self) -> str:
        return (self.election.leader or {}).get("url", "") if not self.election.leading else self.election.me["url"]

    def step(self):
        """Campaign or keep the lead; returns the Controller while leading, else None."""
        self.election.step()
        if self.election.leading and self.ctl is None:
            started = time.monotonic()
            self.store.fence = (self.election.key, self.election.revision)
            self.store.forget()
            try:
                self.ctl = self.make_controller()
            except (StoreError, E.EtcdError) as exc:
                log.warning("leader_load_failed", reason=str(exc))
                self.election.resign()
                return None
            log.info("leader_elected", url=self.election.me["url"], revision=self.election.revision,
                     load_s=round(time.monotonic() - started, 3))
        elif not self.election.leading and self.ctl is not None:
            self.step_down("lost the election key")
        return self.ctl

    def step_down(self, why: str) -> None:
        """Drop the in-memory pool (a stale copy once another replica leads); keep following."""
        if self.ctl is not None:
            log.warning("leader_stepped_down", reason=why)
        self.ctl = None
        if self.election.leading:
            self.election.resign()
        self.store.forget()

    def reload(self) -> None:
        """The store holds less than the pool in memory (a change etcd did not take): build the
        Controller again from etcd, now if this replica still leads."""
        self.ctl = None
        self.store.forget()
        self.step()

    def close(self) -> None:
        self.election.etcd.retry_s = 0.0   # stopping: one try of each member, no waiting for etcd
        self.election.resign()
        self.election.etcd.close()
