"""The controller's durable state in etcd: the same interface as the SQLite ``Store`` (store.py),
for a cluster of controller replicas (election.py) sharing one state.

Keys, all under one prefix (``/rgpu`` unless the URL names another), values JSON::

    PREFIX/schema            the layout's version (SCHEMA_VERSION)
    PREFIX/leader            the elected replica (a key bound to an etcd lease; election.py)
    PREFIX/servers/URL       {url, state, backend, boot_id, registered_at, draining}
    PREFIX/gpus/UUID         {uuid, server_url, index, name, memory_total, sms, compute_capability, present}
    PREFIX/leases/ID         a live lease with its allocations (one key: a placement is one put)
    PREFIX/ended/ID          an ended lease {id, state, owner, created, ended, request}
    PREFIX/migrations/ID     {id, lease, seq, from_gpu, to_gpu, state, reason, created, ended, message}
    PREFIX/commits/STORE     {nonce, at}: the last transaction this store instance sent (below)

Every change is one etcd transaction. Group commit (``batch``): while the daemon serves a burst of
requests, their changes gather into one transaction, committed before any of their replies is
sent — one raft round for the burst instead of one per request. A batch that fails to commit
leaves this replica's memory ahead of etcd: the daemon then drops its Controller and loads it
again from etcd (or steps down when fenced). When a replica leads, each transaction also compares the
leader key's create revision with the one its election won (``fence``): a deposed leader — its
lease expired while it was cut off, another replica elected since — has every write refused
(``Fenced``), so two replicas never place into the same memory. Only the leader writes, so the
rows it last wrote are kept here (``_rows``) and changes are made on them without reading etcd.

A transaction whose reply was lost (the member died after raft committed it) is sent again to the
next member, where its preconditions now fail: a lease it creates exists. So every transaction also
writes a nonce of its own under ``commits/``; a refused or unanswered one whose nonce etcd holds
was committed, and is reported so, not as "nothing was done" (which made clients repeat a release
the dead member had done, and orphaned the leases of a burst).
"""
from __future__ import annotations

import json
import time
import uuid

from . import etcd as E
from .store import LIVE, StoreError

SCHEMA_VERSION = 1
FAMILIES = ("servers/", "gpus/", "leases/", "ended/", "migrations/", "commits/")
COMMIT_MARK_DAYS = 1.0  # a crashed instance's commit mark is pruned after this
SINGLES = ("schema", "leader")
MAX_OPS = 120  # etcd refuses a transaction of more than 128 operations (--max-txn-ops)


class Fenced(StoreError):
    """This replica no longer leads: another won the election since, its write was refused."""


class Conflict(StoreError):
    """A transaction's precondition failed (a key it needs is missing, or one it creates exists)."""


def _dump(row: dict) -> str:
    return json.dumps(row, separators=(",", ":"), sort_keys=True)


class EtcdStore:
    def __init__(self, url: str, *, timeout: float = 2.0, create: bool = True, tls: E.TlsFiles | None = None):
        """``tls``: the CA and client certificate for an ``etcds://`` URL (default: RGPU_ETCD_*)."""
        try:
            self.endpoints, self.prefix = E.parse_url(url)
        except ValueError as exc:
            raise StoreError(str(exc)) from None
        tls = E.TlsFiles.from_env() if tls is None else tls
        if not E.secure(url) and tls.given():
            raise StoreError(f"{url} is plain HTTP but TLS files are given (--etcd-cacert/--etcd-cert/--etcd-key "
                             f"or RGPU_ETCD_*): use etcds:// to talk TLS to etcd")
        self.tls = tls if E.secure(url) else None
        self.path, self.timeout = url, timeout
        try:
            self.etcd = self.client()
        except E.EtcdTlsError as exc:
            raise StoreError(str(exc)) from None
        self.fence: tuple[str, int] | None = None
        self._pending: _Pending | None = None   # the open batch's changes
        self.failed: StoreError | None = None    # why a part of the open batch was not committed
        self._rows: dict[str, dict] = {}   # key -> the row this replica last wrote or read there
        self._scanned: set[str] = set()    # families read whole into _rows since the last forget()
        self._mark = f"{self.prefix}/commits/{uuid.uuid4().hex}"   # this instance's commit mark
        self._marked = False
        try:
            self._open(create)
        except E.EtcdUnavailable as exc:
            self.etcd.close()
            tls_ports = [e for e in self.endpoints if self.tls is None and E.speaks_tls(e)]
            if tls_ports:
                raise StoreError(f"etcd at {', '.join(tls_ports)} serves TLS, and {url} is plain HTTP: use "
                                 f"etcds:// with --etcd-cacert (and --etcd-cert/--etcd-key when it checks "
                                 f"clients)") from None
            raise StoreError(f"cannot reach etcd at {','.join(self.endpoints)}: {exc}; check --store "
                             f"(etcd://HOST:PORT[,HOST:PORT...][/PREFIX]) and that etcd runs") from None
        except E.EtcdTlsError as exc:
            self.etcd.close()
            raise StoreError(str(exc)) from None
        except E.EtcdError as exc:
            self.etcd.close()
            raise StoreError(f"{url}: {exc}") from None

    def client(self) -> E.Etcd:
        """A new client of the same members, with the same TLS (the election's)."""
        return E.Etcd(self.endpoints, timeout=self.timeout, tls=self.tls)

    def key(self, name: str) -> str:
        return f"{self.prefix}/{name}"

    def _open(self, create: bool) -> None:
        """Check what is under the prefix before writing anything: only rgpu's keys, of a layout
        this controller knows."""
        kvs, _ = self.etcd.range(self.prefix + "/", prefix=True, keys_only=True)
        base = len(self.prefix) + 1
        foreign = [kv.key for kv in kvs if not (kv.key[base:] in SINGLES or kv.key[base:].startswith(FAMILIES))]
        if foreign:
            raise StoreError(f"etcd prefix {self.prefix}/ holds keys that are not rgpu's ({', '.join(foreign[:3])}"
                             f"{', ...' if len(foreign) > 3 else ''}); give rgpu a prefix of its own "
                             f"(--store etcd://HOST:PORT/PREFIX)")
        schema = self.etcd.get(self.key("schema"))
        if schema is not None:
            try:
                found = int(schema.value)
            except ValueError:
                raise StoreError(f"{self.key('schema')} is {schema.value[:40]!r}, not a schema version") from None
            if found > SCHEMA_VERSION:
                raise StoreError(f"etcd prefix {self.prefix}/ has schema version {found}, newer than this "
                                 f"rgpu-controller knows ({SCHEMA_VERSION}); upgrade rgpu or use another prefix")
            return
        if kvs:
            raise StoreError(f"etcd prefix {self.prefix}/ holds rgpu-like keys but no schema version; "
                             f"not written by rgpu-controller: give rgpu a prefix of its own")
        if create:
            self.etcd.txn([E.cmp_create(self.key("schema"), 0)], [E.put(self.key("schema"), str(SCHEMA_VERSION))])

    def version(self) -> int:
        kv = self.etcd.get(self.key("schema"))
        return int(kv.value) if kv else 0

    def start_checkpointer(self, interval_s: float = 1.0) -> None:
        """Nothing to do: etcd compacts and snapshots itself."""

    def close(self) -> None:
        if self._marked:
            try:
                self.etcd.txn([], [E.delete(self._mark)])
            except E.EtcdError:
                pass                # pruned later (prune_ended)
        self.etcd.close()

    def forget(self) -> None:
        """Drop the rows kept from earlier writes (a new leader reads everything afresh)."""
        self._rows.clear()
        self._scanned.clear()

    # ---- transactions ---------------------------------------------------------------------------
    def batch(self) -> "_Batch":
        """``with store.batch(): ...``: the changes made inside are committed together at its end
        (or earlier, in parts, when they outgrow one transaction); raises like a change would."""
        return _Batch(self)

    def _commit(self, puts: dict[str, dict] = None, deletes=(), compare=()) -> None:
        """Put ``puts`` (key -> row) and delete ``deletes`` in one transaction, fenced when leading
        (or add them to the open batch)."""
        puts = puts or {}
        if self._pending is not None:
            self._pending.add(puts, deletes, compare)
            for k in deletes:
                self._rows.pop(k, None)
            self._rows.update(puts)
            if self._pending.size() > MAX_OPS - 8:
                self.flush()
            return
        self._send(puts, deletes, compare)

    def flush(self) -> None:
        """Commit the open batch's changes now (the batch stays open)."""
        pending = self._pending
        if pending is None:
            return
        self._pending = _Pending()
        if pending.puts or pending.deletes:
            try:
                self._send(pending.puts, pending.deletes, pending.compare.values())
            except StoreError as exc:
                self.forget()           # the rows held the failed changes
                self.failed = exc
                raise

    def _send(self, puts: dict[str, dict], deletes, compare) -> None:
        compare = list(compare)
        if self.fence is not None:
            compare.append(E.cmp_create(*self.fence))
        nonce = uuid.uuid4().hex
        ops = ([E.put(k, _dump(v)) for k, v in puts.items()] + [E.delete(k) for k in deletes]
               + [E.put(self._mark, _dump({"nonce": nonce, "at": time.time()}))])
        if len(ops) > MAX_OPS + 1:
            raise StoreError(f"one change of {len(ops) - 1} keys exceeds etcd's transaction limit")
        self._marked = True
        try:
            ok, _ = self.etcd.txn(compare, ops)
        except E.EtcdError as exc:
            ok = self._committed(nonce)
            if ok is not True:
                raise StoreError(f"etcd write failed: {exc}"
                                 + ("" if ok is False else "; whether it was stored is not known")) from None
        if not ok and not self._committed(nonce):
            if self.fence is not None:
                leader = self.etcd.get(self.fence[0])
                if leader is None or leader.create_revision != self.fence[1]:
                    raise Fenced(f"this controller no longer leads ({self.fence[0]} was created at revision "
                                 f"{leader.create_revision if leader else 'none'}, not {self.fence[1]})")
            raise Conflict("etcd transaction refused: a key it needs is missing or one it creates exists")
        for k in deletes:
            self._rows.pop(k, None)
        self._rows.update(puts)

    def _committed(self, nonce: str) -> bool | None:
        """Whether the transaction carrying ``nonce`` was committed (None: etcd cannot say now).
        Etcd.post sends a transaction again to the next member when one fails mid-request, so
        an earlier attempt may have been applied although this one was refused or failed."""
        try:
            kv = self.etcd.get(self._mark)
        except E.EtcdError:
            return None
        try:
            return kv is not None and json.loads(kv.value).get("nonce") == nonce
        except (ValueError, AttributeError):
            return False

    def _row(self, key: str) -> dict | None:
        row = self._rows.get(key)
        if row is None:
            if self._pending is not None and key in self._pending.deletes:
                return None
            kv = self.etcd.get(key)
            if kv is None:
                return None
            row = self._rows[key] = json.loads(kv.value)
        return row

    def _scan(self, family: str) -> list[dict]:
        kvs, _ = self.etcd.range(self.key(family), prefix=True)
        rows = []
        for kv in kvs:
            row = json.loads(kv.value)
            self._rows[kv.key] = row
            rows.append(row)
        self._scanned.add(family)
        return rows

    # ---- servers and GPUs -----------------------------------------------------------------------
    def upsert_server(self, url: str, state: str, backend: str, boot_id: str, gpus: list[dict],
                      now: float) -> None:
        skey = self.key("servers/" + url)
        old = self._row(skey) or {}
        puts = {skey: {"url": url, "state": state, "backend": backend, "boot_id": boot_id, "registered_at": now,
                       "draining": bool(old.get("draining", False))}}
        for row in self._gpus_of(url):
            puts[self.key("gpus/" + row["uuid"])] = dict(row, present=False)
        for g in gpus:
            puts[self.key("gpus/" + g["uuid"])] = {
                "uuid": g["uuid"], "server_url": url, "index": g["index"], "name": g["name"],
                "memory_total": g["memory_total"], "sms": g.get("sms", 0),
                "compute_capability": g.get("compute_capability", ""), "present": True}
        self._commit(puts)

    def _gpus_of(self, url: str) -> list[dict]:
        base = self.key("gpus/")
        known = [r for k, r in self._rows.items() if k.startswith(base) and r["server_url"] == url]
        if known or "gpus/" in self._scanned:  # a leader read them all at start: no need to look
            return known
        return [r for r in self._scan("gpus/") if r["server_url"] == url]

    def delete_server(self, url: str) -> None:
        self._commit(deletes=[self.key("gpus/" + r["uuid"]) for r in self._gpus_of(url)]
                     + [self.key("servers/" + url)])

    def _update(self, key: str, **changes) -> None:
        row = self._row(key)
        if row is not None:
            self._commit({key: dict(row, **changes)})

    def set_server_state(self, url: str, state: str) -> None:
        self._update(self.key("servers/" + url), state=state)

    def set_draining(self, url: str, draining: bool) -> None:
        self._update(self.key("servers/" + url), draining=bool(draining))

    def load_servers(self) -> list[dict]:
        servers = {s["url"]: dict(s, gpus=[]) for s in sorted(self._scan("servers/"), key=lambda s: s["url"])}
        for g in sorted(self._scan("gpus/"), key=lambda g: (g["server_url"], g["index"])):
            if g["server_url"] in servers:
                servers[g["server_url"]]["gpus"].append({k: g[k] for k in ("uuid", "index", "name", "memory_total", "sms",
                                                                           "compute_capability", "present")})
        return list(servers.values())

    # ---- leases and allocations -----------------------------------------------------------------
    def insert_lease(self, lease: dict, allocations: list[dict]) -> None:
        """One transaction: the lease did not exist, and every GPU it charges does."""
        key = self.key("leases/" + lease["id"])
        row = dict(lease, allocations=[dict(a, exclusive=bool(a["exclusive"]), reclaimed=False) for a in allocations])
        gpus = {self.key("gpus/" + a["gpu"]) for a in allocations}
        self._commit({key: row}, compare=[E.cmp_create(key, 0)] + [
            {"key": E.b64(g), "target": "VERSION", "result": "GREATER", "version": "0"} for g in sorted(gpus)])

    def renew_lease(self, lease_id: str, expires: float, token_expires: float) -> None:
        self._update(self.key("leases/" + lease_id), expires=expires, token_expires=token_expires)

    def set_lease_states(self, lease_ids, state: str) -> None:
        puts = {}
        for i in lease_ids:
            row = self._row(self.key("leases/" + i))
            if row is not None:
                puts[self.key("leases/" + i)] = dict(row, state=state)
        for chunk in _chunks(list(puts.items()), MAX_OPS):
            self._commit(dict(chunk))

    def end_leases(self, lease_ids, state: str, now: float) -> None:
        """Each lease's end (its allocations freed, its ended record written) is one transaction
        with the others of its chunk; a lease is never half ended."""
        ops = []
        for i in lease_ids:
            row = self._row(self.key("leases/" + i))
            if row is not None:
                ops.append((i, row))
        for chunk in _chunks(ops, MAX_OPS // 2):
            self._commit({self.key("ended/" + i): {"id": i, "state": state, "owner": row["owner"],
                                                   "created": row["created"], "ended": now,
                                                   "request": row["request"]} for i, row in chunk},
                         deletes=[self.key("leases/" + i) for i, _ in chunk])

    def ended_state(self, lease_id: str) -> tuple[str, str] | None:
        key = self.key("ended/" + lease_id)
        row = self._pending.puts.get(key) if self._pending is not None else None
        if row is None:
            kv = self.etcd.get(key)
            if kv is None:
                return None
            row = json.loads(kv.value)
        return row["state"], row["owner"]

    def ended_since(self, since: float) -> list[dict]:
        kvs, _ = self.etcd.range(self.key("ended/"), prefix=True)
        rows = [json.loads(kv.value) for kv in kvs]
        return sorted((r for r in rows if r["ended"] >= since), key=lambda r: r["ended"], reverse=True)

    def prune_ended(self, before: float) -> int:
        kvs, _ = self.etcd.range(self.key("ended/"), prefix=True)
        old = [kv.key for kv in kvs if json.loads(kv.value)["ended"] < before]
        old_m = [self.key("migrations/" + m["id"]) for m in self._scan("migrations/")
                 if m.get("ended") is not None and m["ended"] < before]
        marks, _ = self.etcd.range(self.key("commits/"), prefix=True)
        stale = time.time() - COMMIT_MARK_DAYS * 86400
        old_c = [kv.key for kv in marks if kv.key != self._mark and _mark_time(kv.value) < stale]
        for chunk in _chunks(old + old_m + old_c, MAX_OPS):
            self._commit(deletes=chunk)
        return len(old)

    def load_leases(self) -> list[dict]:
        rows = [r for r in self._scan("leases/") if r["state"] in LIVE]
        return [dict(r, allocations=[dict(a) for a in r["allocations"]])
                for r in sorted(rows, key=lambda r: r["created"])]

    def move_allocation(self, lease_id: str, seq: int, gpu_uuid: str, migration: str, state: str, now: float,
                        message: str = "") -> None:
        """A vGPU's allocation moved, in one transaction with its migration's end."""
        lkey, mkey = self.key("leases/" + lease_id), self.key("migrations/" + migration)
        lease, m = self._row(lkey), self._row(mkey)
        puts = {}
        if lease is not None:
            allocs = [dict(a) for a in lease["allocations"]]
            allocs[seq] = dict(allocs[seq], gpu=gpu_uuid, reclaimed=False)
            puts[lkey] = dict(lease, allocations=allocs)
        if m is not None:
            puts[mkey] = dict(m, state=state, ended=now, message=message)
        self._commit(puts)

    def set_reclaimed(self, lease_id: str, seq: int, reclaimed: bool) -> None:
        key = self.key("leases/" + lease_id)
        lease = self._row(key)
        if lease is not None:
            allocs = [dict(a) for a in lease["allocations"]]
            allocs[seq] = dict(allocs[seq], reclaimed=bool(reclaimed))
            self._commit({key: dict(lease, allocations=allocs)})

    # ---- migrations ------------------------------------------------------------------------------
    def insert_migration(self, m: dict) -> None:
        key = self.key("migrations/" + m["id"])
        self._commit({key: dict(m)}, compare=[E.cmp_create(key, 0)])

    def end_migration(self, mid: str, state: str, now: float, message: str) -> None:
        self._update(self.key("migrations/" + mid), state=state, ended=now, message=message)

    def load_migrations(self) -> list[dict]:
        return [{k: m[k] for k in ("id", "lease", "seq", "from_gpu", "to_gpu", "state", "reason", "created")}
                for m in sorted(self._scan("migrations/"), key=lambda m: m["created"]) if m["state"] == "pending"]

    def write_state(self, state: dict) -> None:
        """Write a whole pool read from another store (migrate_store.py: ``servers`` as
        load_servers gives them, ``leases`` as load_leases, ``ended`` as ended_since,
        ``migrations`` as load_migrations) in as few transactions as etcd takes."""
        k = self.key
        with self.batch():
            for s in state["servers"]:
                self._commit({k("servers/" + s["url"]): {f: s[f] for f in ("url", "state", "backend", "boot_id",
                                                                             "registered_at", "draining")}})
                for g in s["gpus"]:
                    self._commit({k("gpus/" + g["uuid"]): dict(g, server_url=s["url"])})
            for lease in state["leases"]:
                self._commit({k("leases/" + lease["id"]): dict(lease)})
            for row in state["ended"]:
                self._commit({k("ended/" + row["id"]): dict(row)})
            for m in state["migrations"]:
                self._commit({k("migrations/" + m["id"]): dict(m, ended=None, message="")})

    def gpu_commitments(self) -> dict[str, dict]:
        """Per GPU: total memory and compute of live allocations, read from etcd itself (not from
        this replica's rows), for tests and operators. Like SQLite's, it counts reclaimed ones."""
        kvs, rev = self.etcd.range(self.key("leases/"), prefix=True)
        gkvs, _ = self.etcd.range(self.key("gpus/"), prefix=True)
        totals = {json.loads(kv.value)["uuid"]: json.loads(kv.value)["memory_total"] for kv in gkvs}
        out: dict[str, dict] = {}
        for kv in kvs:
            for a in json.loads(kv.value)["allocations"]:
                c = out.setdefault(a["gpu"], {"memory": 0, "compute": 0, "memory_total": totals.get(a["gpu"]),
                                              "allocations": 0, "exclusive": 0})
                c["memory"] += a["memory"]
                c["compute"] += a["compute"]
                c["allocations"] += 1
                c["exclusive"] = max(c["exclusive"], int(a["exclusive"]))
        return out


class _Pending:
    """The changes of an open batch, merged: the last write of a key wins, so no key appears
    twice in the transaction (etcd refuses that). A compare on a key the batch itself wrote is
    dropped: etcd would check it against the state before the batch, the batch decides it."""

    def __init__(self):
        self.puts: dict[str, dict] = {}
        self.deletes: set[str] = set()
        self.compare: dict[str, dict] = {}

    def add(self, puts: dict, deletes, compare) -> None:
        for c in compare:
            k = E.unb64(c["key"]).decode()
            if k not in self.puts and k not in self.deletes:
                self.compare.setdefault(json.dumps(c, sort_keys=True), c)
        for k in deletes:
            self.puts.pop(k, None)
            self.deletes.add(k)
        for k, v in puts.items():
            self.deletes.discard(k)
            self.puts[k] = v

    def size(self) -> int:
        return max(len(self.puts) + len(self.deletes), len(self.compare) + 1)


class _Batch:
    def __init__(self, store: EtcdStore):
        self.store = store

    def __enter__(self):
        self.store._pending, self.store.failed = _Pending(), None
        return self

    def __exit__(self, exc_type, *_):
        try:
            if exc_type is None:
                self.store.flush()
        finally:
            if exc_type is not None:
                self.store.forget()
            self.store._pending = None


def _mark_time(value: str) -> float:
    try:
        return float(json.loads(value)["at"])
    except (ValueError, KeyError, TypeError):
        return 0.0


def _chunks(items: list, size: int):
    for i in range(0, len(items), size):
        yield items[i:i + size]
