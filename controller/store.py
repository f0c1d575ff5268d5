"""The controller's durable state in one SQLite file: servers, GPUs, leases and allocations.

WAL journal with ``synchronous=NORMAL``: every change is one committed transaction, so a killed
controller loses nothing; only an OS crash or power loss may drop the last commits (the price of
not waiting for fsync on each reserve). Heartbeats and usage are not stored — they are refreshed
within seconds after a restart.

Checkpoints (copying the WAL back into the database, with an fsync) would otherwise run inside
whichever commit crosses the threshold and put milliseconds on that request; a background thread
with its own connection runs them instead (``start_checkpointer``), off the request path.

The schema is versioned with ``PRAGMA user_version``; ``MIGRATIONS[i]`` takes version i to i+1
and runs in one transaction on start. Add steps at the end, never edit a released one.
"""
from __future__ import annotations

import json
import os
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path

MIGRATIONS = [
    # 0 → 1: the pool and its leases
    """
    CREATE TABLE servers (url TEXT PRIMARY KEY, state TEXT NOT NULL, backend TEXT NOT NULL,
                          boot_id TEXT NOT NULL, registered_at REAL NOT NULL);
    CREATE TABLE gpus (uuid TEXT PRIMARY KEY, server_url TEXT NOT NULL REFERENCES servers(url),
                       idx INTEGER NOT NULL, name TEXT NOT NULL, memory_total INTEGER NOT NULL,
                       sms INTEGER NOT NULL, compute_capability TEXT NOT NULL,
                       present INTEGER NOT NULL);
    CREATE TABLE leases (id TEXT PRIMARY KEY, state TEXT NOT NULL, created REAL NOT NULL,
                         expires REAL NOT NULL, ttl REAL NOT NULL, token_expires REAL NOT NULL,
                         owner TEXT NOT NULL, request TEXT NOT NULL, ended REAL);
    CREATE TABLE allocations (lease_id TEXT NOT NULL REFERENCES leases(id), seq INTEGER NOT NULL,
                              gpu_uuid TEXT NOT NULL REFERENCES gpus(uuid), memory INTEGER NOT NULL,
                              compute INTEGER NOT NULL, lim INTEGER NOT NULL,
                              exclusive INTEGER NOT NULL, PRIMARY KEY (lease_id, seq));
    """,
    # 1 → 2: startup loads live leases and the sweeper prunes ended ones by time
    """
    CREATE INDEX allocations_gpu ON allocations(gpu_uuid);
    CREATE INDEX leases_state_ended ON leases(state, ended);
    """,
    # 2 → 3: live migration (a vGPU's allocation moves; drained servers take no new vGPUs) and idle
    # reclaim (a reclaimed vGPU holds no memory or compute on its GPU until it is restored)
    """
    ALTER TABLE servers ADD COLUMN draining INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE allocations ADD COLUMN reclaimed INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE migrations (id TEXT PRIMARY KEY, lease_id TEXT NOT NULL, seq INTEGER NOT NULL,
                             from_gpu TEXT NOT NULL, to_gpu TEXT NOT NULL, state TEXT NOT NULL,
                             reason TEXT NOT NULL, created REAL NOT NULL, ended REAL,
                             message TEXT NOT NULL DEFAULT '');
    CREATE INDEX migrations_state ON migrations(state);
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)
LIVE = ("active", "degraded")


class StoreError(Exception):
    """The database cannot be used (newer schema, unreadable file)."""


def _private(path: str) -> None:
    """The database (leases, owners, the pool) readable by its owner alone (issue 39, attack 7): made
    0600 when created, and tightened when an older controller left it readable. SQLite gives its WAL
    and shared-memory files the database's mode; ones already there are tightened too."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        os.fchmod(fd, 0o600)
    except OSError:
        pass  # not ours to change (the open succeeded, so we may use it): leave its mode to its owner
    finally:
        os.close(fd)
    for extra in ("-wal", "-shm"):
        try:
            os.chmod(path + extra, 0o600, follow_symlinks=False)
        except (OSError, NotImplementedError):
            pass


class Store:
    def __init__(self, path: str | Path, check: bool = True):
        """``check``: verify the whole file first (PRAGMA integrity_check): a damaged database is
        refused with a StoreError that says what to do, instead of being used until a bad page is
        read (or failing with a raw sqlite3 error)."""
        self.path = str(path)
        try:
            if self.path != ":memory:":
                _private(self.path)
            # autocommit mode: transactions are opened explicitly by _tx, one per change
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open the controller database {self.path}: {exc}") from None
        try:
            if check and self.path != ":memory:":
                bad = [row[0] for row in self.db.execute("PRAGMA integrity_check(8)")]
                if bad != ["ok"]:
                    raise sqlite3.DatabaseError("; ".join(bad).replace("\n", "; "))
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.execute("PRAGMA busy_timeout=5000")
            self.migrate()
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise StoreError(f"the controller database {self.path} is damaged ({exc}): restore it from a backup, "
                             f"or move it away to start an empty pool (servers register again; leases are "
                             f"lost)") from None
        self._checkpointer: threading.Thread | None = None
        self._stop = threading.Event()

    def start_checkpointer(self, interval_s: float = 1.0) -> None:
        """Move WAL checkpoints to a background thread (the daemon calls this; tests need not)."""
        if self.path == ":memory:" or self._checkpointer is not None:
            return
        self.db.execute("PRAGMA wal_autocheckpoint=0")

        def run():
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA busy_timeout=5000")
            try:
                while not self._stop.wait(interval_s):
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            finally:
                db.close()

        self._checkpointer = threading.Thread(target=run, name="rgpu-wal-checkpoint", daemon=True)
        self._checkpointer.start()

    @contextmanager
    def _tx(self):
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def version(self) -> int:
        return self.db.execute("PRAGMA user_version").fetchone()[0]

    def migrate(self) -> int:
        """Bring the schema to SCHEMA_VERSION; return the version found before."""
        found = self.version()
        if found > SCHEMA_VERSION:
            raise StoreError(f"{self.path} has schema version {found}, newer than this rgpu-controller "
                             f"knows ({SCHEMA_VERSION}); upgrade rgpu or use another --db")
        for step in range(found, SCHEMA_VERSION):
            with self._tx() as db:
                for statement in filter(str.strip, MIGRATIONS[step].split(";")):
                    db.execute(statement)
                db.execute(f"PRAGMA user_version={step + 1}")
        return found

    def close(self) -> None:
        """Stop the checkpointer, fold the WAL into the database, close. Safe to call twice."""
        if self.db is None:
            return
        if self._checkpointer is not None:
            self._stop.set()
            self._checkpointer.join(10)
            self._checkpointer = None
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.db.close()
        self.db = None

    # ---- servers and GPUs -----------------------------------------------------------------------
    def upsert_server(self, url: str, state: str, backend: str, boot_id: str, gpus: list[dict],
                      now: float) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO servers (url, state, backend, boot_id, registered_at) VALUES (?,?,?,?,?) ON CONFLICT(url) DO UPDATE SET "
                       "state=excluded.state, backend=excluded.backend, boot_id=excluded.boot_id, "
                       "registered_at=excluded.registered_at", (url, state, backend, boot_id, now))
            db.execute("UPDATE gpus SET present=0 WHERE server_url=?", (url,))
            db.executemany(
                "INSERT INTO gpus VALUES (?,?,?,?,?,?,?,1) ON CONFLICT(uuid) DO UPDATE SET "
                "server_url=excluded.server_url, idx=excluded.idx, name=excluded.name, "
                "memory_total=excluded.memory_total, sms=excluded.sms, "
                "compute_capability=excluded.compute_capability, present=1",
                [(g["uuid"], url, g["index"], g["name"], g["memory_total"], g.get("sms", 0),
                  g.get("compute_capability", "")) for g in gpus])

    def delete_server(self, url: str) -> None:
        """Forget a server and its GPUs (its leases have ended: no allocation names them)."""
        with self._tx() as db:
            db.execute("DELETE FROM gpus WHERE server_url=?", (url,))
            db.execute("DELETE FROM servers WHERE url=?", (url,))

    def set_server_state(self, url: str, state: str) -> None:
        with self._tx() as db:
            db.execute("UPDATE servers SET state=? WHERE url=?", (state, url))

    def set_draining(self, url: str, draining: bool) -> None:
        with self._tx() as db:
            db.execute("UPDATE servers SET draining=? WHERE url=?", (int(draining), url))

    def load_servers(self) -> list[dict]:
        servers = {}
        for url, state, backend, boot_id, registered_at, draining in self.db.execute(
                "SELECT url, state, backend, boot_id, registered_at, draining FROM servers ORDER BY url"):
            servers[url] = {"url": url, "state": state, "backend": backend, "boot_id": boot_id,
                            "registered_at": registered_at, "draining": bool(draining), "gpus": []}
        for row in self.db.execute("SELECT uuid, server_url, idx, name, memory_total, sms, "
                                   "compute_capability, present FROM gpus ORDER BY server_url, idx"):
            servers[row[1]]["gpus"].append({"uuid": row[0], "index": row[2], "name": row[3],
                                            "memory_total": row[4], "sms": row[5],
                                            "compute_capability": row[6], "present": bool(row[7])})
        return list(servers.values())

    # ---- leases and allocations -----------------------------------------------------------------
    def insert_lease(self, lease: dict, allocations: list[dict]) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO leases VALUES (?,?,?,?,?,?,?,?,NULL)",
                       (lease["id"], lease["state"], lease["created"], lease["expires"],
                        lease["ttl"], lease["token_expires"], lease["owner"],
                        json.dumps(lease["request"])))
            db.executemany("INSERT INTO allocations (lease_id, seq, gpu_uuid, memory, compute, lim, exclusive) VALUES (?,?,?,?,?,?,?)",
                           [(lease["id"], seq, a["gpu"], a["memory"], a["compute"], a["limit"],
                             int(a["exclusive"])) for seq, a in enumerate(allocations)])

    def renew_lease(self, lease_id: str, expires: float, token_expires: float) -> None:
        with self._tx() as db:
            db.execute("UPDATE leases SET expires=?, token_expires=? WHERE id=?",
                       (expires, token_expires, lease_id))

    def set_lease_states(self, lease_ids, state: str) -> None:
        with self._tx() as db:
            db.executemany("UPDATE leases SET state=? WHERE id=?", [(state, i) for i in lease_ids])

    def end_leases(self, lease_ids, state: str, now: float) -> None:
        """Mark leases released/expired and free their allocations, in one transaction."""
        ids = list(lease_ids)
        with self._tx() as db:
            db.executemany("DELETE FROM allocations WHERE lease_id=?", [(i,) for i in ids])
            db.executemany("UPDATE leases SET state=?, ended=? WHERE id=?",
                           [(state, now, i) for i in ids])

    def ended_state(self, lease_id: str) -> tuple[str, str] | None:
        """(state, owner) of an ended lease, or None."""
        row = self.db.execute("SELECT state, owner FROM leases WHERE id=? AND ended IS NOT NULL",
                              (lease_id,)).fetchone()
        return (row[0], row[1]) if row else None

    def ended_since(self, since: float) -> list[dict]:
        """Leases that ended after ``since``, newest first."""
        return [{"id": r[0], "state": r[1], "owner": r[2], "created": r[3], "ended": r[4], "request": json.loads(r[5])}
                for r in self.db.execute("SELECT id, state, owner, created, ended, request FROM leases "
                                         "WHERE ended IS NOT NULL AND ended >= ? ORDER BY ended DESC", (since,))]

    def prune_ended(self, before: float) -> int:
        with self._tx() as db:
            db.execute("DELETE FROM migrations WHERE ended IS NOT NULL AND ended < ?", (before,))
            return db.execute("DELETE FROM leases WHERE ended IS NOT NULL AND ended < ?",
                              (before,)).rowcount

    def load_leases(self) -> list[dict]:
        leases = {}
        for row in self.db.execute(
                "SELECT id, state, created, expires, ttl, token_expires, owner, request FROM leases "
                "WHERE state IN (?, ?) ORDER BY created", LIVE):
            leases[row[0]] = {"id": row[0], "state": row[1], "created": row[2], "expires": row[3],
                              "ttl": row[4], "token_expires": row[5], "owner": row[6],
                              "request": json.loads(row[7]), "allocations": []}
        for row in self.db.execute("SELECT lease_id, gpu_uuid, memory, compute, lim, exclusive, reclaimed "
                                   "FROM allocations ORDER BY lease_id, seq"):
            if row[0] in leases:
                leases[row[0]]["allocations"].append(
                    {"gpu": row[1], "memory": row[2], "compute": row[3], "limit": row[4],
                     "exclusive": bool(row[5]), "reclaimed": bool(row[6])})
        return list(leases.values())

    def move_allocation(self, lease_id: str, seq: int, gpu_uuid: str, migration: str, state: str, now: float,
                        message: str = "") -> None:
        """A vGPU's allocation moved (its migration done), in one transaction with the migration's end."""
        with self._tx() as db:
            db.execute("UPDATE allocations SET gpu_uuid=?, reclaimed=0 WHERE lease_id=? AND seq=?",
                       (gpu_uuid, lease_id, seq))
            db.execute("UPDATE migrations SET state=?, ended=?, message=? WHERE id=?", (state, now, message, migration))

    def set_reclaimed(self, lease_id: str, seq: int, reclaimed: bool) -> None:
        with self._tx() as db:
            db.execute("UPDATE allocations SET reclaimed=? WHERE lease_id=? AND seq=?", (int(reclaimed), lease_id, seq))

    # ---- migrations ------------------------------------------------------------------------------
    def insert_migration(self, m: dict) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO migrations VALUES (?,?,?,?,?,?,?,?,?,?)",
                       (m["id"], m["lease"], m["seq"], m["from_gpu"], m["to_gpu"], m["state"], m["reason"],
                        m["created"], m["ended"], m["message"]))

    def end_migration(self, mid: str, state: str, now: float, message: str) -> None:
        with self._tx() as db:
            db.execute("UPDATE migrations SET state=?, ended=?, message=? WHERE id=?", (state, now, message, mid))

    def load_migrations(self) -> list[dict]:
        """The migrations still pending (their targets are charged again at start)."""
        return [{"id": r[0], "lease": r[1], "seq": r[2], "from_gpu": r[3], "to_gpu": r[4], "state": r[5],
                 "reason": r[6], "created": r[7]}
                for r in self.db.execute("SELECT id, lease_id, seq, from_gpu, to_gpu, state, reason, created "
                                         "FROM migrations WHERE state='pending' ORDER BY created")]

    def gpu_commitments(self) -> dict[str, dict]:
        """Per GPU: total memory and compute guarantee of live allocations (a consistency check
        tests and operators can run against the database itself)."""
        return {row[0]: {"memory": row[1], "compute": row[2], "memory_total": row[3],
                         "allocations": row[4], "exclusive": row[5]}
                for row in self.db.execute(
                    "SELECT a.gpu_uuid, SUM(a.memory), SUM(a.compute), g.memory_total, COUNT(*), "
                    "MAX(a.exclusive) FROM allocations a JOIN gpus g ON g.uuid = a.gpu_uuid "
                    "GROUP BY a.gpu_uuid")}
