"""Failover: the worker's side of a ``--failover`` lease (docs/failover.md).

The checkpoint lives with the client. At a synchronisation point, no more often than its interval,
the client sends CHECKPOINT; the worker captures the session (server/checkpoint: every call sent
before it has run, the device drained) and answers with the image as one bulk frame. The client
keeps that image and the calls it sends after it. When the server dies, the client's new worker on
another server gets RESTORE with the image as its first call and rebuilds the session from it (the
same addresses and handles), then runs the client's log again.

Why the client and not a standby server or the controller's store: the checkpoint then lives exactly
as long as the program that needs it, goes to whichever server has room when one dies (nothing is
reserved in advance, no standby must itself survive), and a tenant's memory never rests on a third
machine; the controller's store (etcd) holds small records, not device memory. The price is the
image's trip to the client at each checkpoint (compressed, written memory only), which grows with the
session's memory: benchmarks/test_failover_cost.py measures it.
"""
from __future__ import annotations

import time

from rgpu.protocol import wire

from .checkpoint import session as ckpt
from .checkpoint.image import CheckpointError, Image
from .errors import CudaError

ILLEGAL_STATE = 401  # CUDA_ERROR_ILLEGAL_STATE
NOT_PERMITTED = 800  # CUDA_ERROR_NOT_PERMITTED


def checkpoint(sock, ident, seq: int, session, backend: str, log) -> None:
    """CHECKPOINT []: the session as a checkpoint image, outs [image bytes, memory bytes], the image
    as the reply's one bulk frame."""
    if not getattr(session, "failover", False):
        sock.send_multipart([ident, wire.encode_reply(seq, NOT_PERMITTED, message="checkpoints are kept only for "
                                                      "sessions of a lease reserved with --failover")])
        return
    t0 = time.monotonic()
    try:
        image = ckpt.capture(session, backend)
        data = image.to_bytes()
    except (CheckpointError, CudaError) as e:
        message = getattr(e, "message", None) or str(e)
        log.warning("failover_checkpoint_failed", reason=message)
        sock.send_multipart([ident, wire.encode_reply(seq, ILLEGAL_STATE, message=f"no checkpoint: {message}")])
        return
    session.failover_checkpoints = getattr(session, "failover_checkpoints", 0) + 1
    log.debug("failover_checkpoint", bytes=len(data), memory_bytes=image.memory_bytes,
              capture_s=round(time.monotonic() - t0, 4))
    session.bytes_out += len(data)
    sock.send_multipart([ident, wire.encode_reply(seq, 0, [len(data), image.memory_bytes]), data], copy=False)


def restore(sock, ident, seq: int, bulk, session, backend: str, log) -> None:
    """RESTORE []: the bulk frame is a checkpoint image; the session (fresh: nothing allocated yet)
    becomes the one it holds. outs [memory bytes restored]."""
    rc, message, outs = 0, "", []
    if not getattr(session, "failover", False):
        rc, message = NOT_PERMITTED, "only a session of a lease reserved with --failover restores a checkpoint"
    elif getattr(session, "failover_restored", False):
        rc, message = ILLEGAL_STATE, "a checkpoint is restored into a fresh session only"
    elif len(bulk) != 1:
        rc, message = ILLEGAL_STATE, "restore carries the checkpoint image as one frame"
    else:
        t0 = time.monotonic()
        try:
            image = Image.from_bytes(bytes(bulk[0]), "the client's checkpoint")
            calls = session.calls
            session.failover_restored = True  # once, even a failed one: never over a half-restored session
            ckpt.restore(session, image, backend)
            session.calls = max(session.calls, calls)
            outs = [image.memory_bytes]
            log.info("failover_restored", memory_bytes=image.memory_bytes, restore_s=round(time.monotonic() - t0, 4))
        except (CheckpointError, CudaError) as e:
            rc, message = ILLEGAL_STATE, f"the checkpoint cannot be restored here: {getattr(e, 'message', None) or e}"
            log.warning("failover_restore_failed", reason=message)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
            # the image is the client's to send back: a well-formed one whose state is not what a
            # capture writes (made by hand, or by another program) is refused, not a worker's crash
            rc, message = ILLEGAL_STATE, f"the checkpoint is malformed: {type(e).__name__} {str(e)[:200]}"
            log.warning("failover_restore_failed", reason=message)
    sock.send_multipart([ident, wire.encode_reply(seq, rc, outs, message=message)])
