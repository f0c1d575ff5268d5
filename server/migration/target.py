"""The target's side of a live migration: a worker whose session is restored from a transfer.

The worker's supervisor assigned it a session with ``restore`` in the assignment (from the source's
``incoming``); its device was opened at the source's address window. The first connection to present
the session's key with ``transfer`` (from the key the source named) is the source; the client comes
later, over its own connection, with the same key. Until the commit the session is the source's to
lose: any failure is answered, and this worker ends, freeing what it allocated. After the commit
the session is this worker's; it waits for its client as long as the source says the client may
come (``alive``), and MOVED_WAIT_S more once the source is silent (a drained server that stopped)."""
from __future__ import annotations

import time

from rgpu.protocol import curve, wire

from ..checkpoint import session as ckpt
from ..checkpoint.image import CheckpointError
from ..errors import CudaError
from .transfer import reply

MOVED_WAIT_S = 300.0


class Inbound:
    def __init__(self, session, assignment: dict, backend: str, log):
        self.session, self.assignment, self.backend = session, assignment, backend
        self.expect = assignment["restore"]
        self.log = log
        self.source: bytes | None = None
        self.layout: list | None = None
        self.committed = False
        self.heard = time.monotonic()
        self.ended: str | None = None   # why this session must end now
        self.restored_bytes = 0

    def waiting_for_client(self, now: float) -> bool:
        """Whether the session should still wait for its client (else it ends: never attached)."""
        if self.committed:
            return now - self.heard < MOVED_WAIT_S
        return now - self.heard < 60.0  # a transfer silent for a minute was abandoned

    def handle(self, sock, ident: bytes, body) -> None:
        try:
            header = wire.unpack(body[0].bytes)
        except Exception:
            return
        if not isinstance(header, dict):
            return
        rid, op = header.get("rid"), header.get("op")
        frames = [f.buffer for f in body[1:]]
        if self.source is None:
            ok = op == "transfer" and header.get("session") == self.assignment["session"] \
                and header.get("key") == self.assignment["key"] and self._from_source(body[0])
            if ok:
                self.source = ident
            sock.send_multipart([ident, reply(rid, ok, message="" if ok else "not the source of this session")])
            return
        if ident != self.source:
            sock.send_multipart([ident, reply(rid, False, message="not the source of this session")])
            return
        self.heard = time.monotonic()
        if op == "alive":
            return
        if op in ("abort", "client_gone"):
            self.ended = "migration_aborted" if op == "abort" else "client_gone"
            return
        try:
            if self.committed:
                raise CheckpointError(f"{op} after the commit")
            if op == "layout":
                self._layout(header)
            elif op == "chunks":
                self.restored_bytes += ckpt.apply_chunks(self.session, self._chunks(header["chunks"], frames))
            elif op == "commit":
                self._commit(header, frames)
            else:
                raise CheckpointError(f"unknown transfer op {str(op)[:20]!r}")
        except (CheckpointError, CudaError, KeyError, TypeError, ValueError) as e:
            message = (f"{e.code}: {e.message}" if isinstance(e, CudaError) else str(e)) or e.__class__.__name__
            self.log.warning("migration_refused", op=op, reason=message)
            sock.send_multipart([ident, reply(rid, False, message=message)])
            if op == "commit" or self.layout is None:
                self.ended = "restore_failed"
            return
        sock.send_multipart([ident, reply(rid)])

    def _from_source(self, frame) -> bool:
        """On a CURVE wire, the connection of the key the source named (a plain wire proves nothing:
        the session key is the proof)."""
        peer = curve.peer_id(frame)
        return peer in ("", "client") or peer == self.expect.get("source_key")

    def _layout(self, header) -> None:
        if self.layout is None:
            meta = header.get("meta") or {}
            dev = self.session.device
            if meta.get("backend") != self.backend:
                raise CheckpointError(f"a {meta.get('backend')} {meta.get('arch')} session cannot be restored onto "
                                      f"this {self.backend} {dev.arch_name()} GPU")
            if meta.get("arch") != dev.arch_name():
                # another model (the controller lets only an admin's named target differ): the
                # modules are loaded again for this GPU at the commit, and one without code for it
                # fails the move there, the session carrying on at its source
                self.log.info("migration_across_models", source=meta.get("arch"), target=dev.arch_name())
            ckpt.restore_layout(self.session, header["allocations"])
        else:
            ckpt.reconcile_layout(self.session, self.layout, header["allocations"])
        self.layout = header["allocations"]

    @staticmethod
    def _chunks(listed, frames):
        if len(listed) > len(frames):
            raise CheckpointError("fewer chunk frames than chunks listed")
        return [(a, n, frames[i]) for i, (a, n) in enumerate(listed)]

    def _commit(self, header, frames) -> None:
        t0 = time.monotonic()
        if self.layout is None:
            raise CheckpointError("commit before any layout")
        ckpt.reconcile_layout(self.session, self.layout, header["allocations"])
        self.layout = header["allocations"]
        listed = header["chunks"]
        chunks = self._chunks(listed, frames)
        self.restored_bytes += ckpt.apply_chunks(self.session, chunks)
        images, at = {}, len(listed)
        for digest, n in header["images"]:
            data = bytes(frames[at])
            if len(data) != n:
                raise CheckpointError(f"module image {digest[:16]} arrived with {len(data)} bytes, not {n}")
            images[digest] = data
            at += 1
        ckpt.restore_objects(self.session, header["state"], images)
        self.committed = True
        self.log.info("migration_restored", bytes=self.restored_bytes, restore_s=round(time.monotonic() - t0, 4))
