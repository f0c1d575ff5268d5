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
]
SCHEMA_VERSION = len(MIGRATIONS)
LIVE = ("active", "degraded")


class StoreError(Exception):
    """The database cannot be used (newer schema, unreadable file)."""


class Store:
    def __init__(self, path: str | Path):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # autocommit mode: transactions are opened explicitly by _tx, one per change
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.execute("PRAGMA busy_timeout=5000")
        self.migrate()
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
            db.execute("INSERT INTO servers VALUES (?,?,?,?,?) ON CONFLICT(url) DO UPDATE SET "
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

    def load_servers(self) -> list[dict]:
        servers = {}
        for url, state, backend, boot_id, registered_at in self.db.execute(
                "SELECT url, state, backend, boot_id, registered_at FROM servers ORDER BY url"):
            servers[url] = {"url": url, "state": state, "backend": backend, "boot_id": boot_id,
                            "registered_at": registered_at, "gpus": []}
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
            db.executemany("INSERT INTO allocations VALUES (?,?,?,?,?,?,?)",
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

    def prune_ended(self, before: float) -> int:
        with self._tx() as db:
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
        for row in self.db.execute("SELECT lease_id, gpu_uuid, memory, compute, lim, exclusive "
                                   "FROM allocations ORDER BY lease_id, seq"):
            if row[0] in leases:
                leases[row[0]]["allocations"].append(
                    {"gpu": row[1], "memory": row[2], "compute": row[3], "limit": row[4],
                     "exclusive": bool(row[5])})
        return list(leases.values())

    def gpu_commitments(self) -> dict[str, dict]:
        """Per GPU: total memory and compute guarantee of live allocations (a consistency check
        tests and operators can run against the database itself)."""
        return {row[0]: {"memory": row[1], "compute": row[2], "memory_total": row[3],
                         "allocations": row[4], "exclusive": row[5]}
                for row in self.db.execute(
                    "SELECT a.gpu_uuid, SUM(a.memory), SUM(a.compute), g.memory_total, COUNT(*), "
                    "MAX(a.exclusive) FROM allocations a JOIN gpus g ON g.uuid = a.gpu_uuid "
                    "GROUP BY a.gpu_uuid")}
