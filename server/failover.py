"""Failover: the worker's side of a ``--failover`` lease (docs/failover.md).

The checkpoint lives with the client. At a synchronisation point, no more often than its interval,
the client sends CHECKPOINT; the worker captures the session (server/checkpoint: every call sent
before it has run, the device drained) and answers with the image as one bulk frame: the first
whole, the next ones deltas on it (only the memory that changed: checkpoint/session.py Chain) while
the client asks for them. The client keeps the images and the calls it sends after the last. When
the server dies, the client's new worker on another server gets RESTORE with the images as its
first call and rebuilds the session from them (the same addresses and handles), then runs the
client's log again.

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


def checkpoint(sock, ident, seq: int, args, session, backend: str, log) -> None:
    """CHECKPOINT [delta]: the session as a checkpoint image, outs [image bytes, memory bytes, delta,
    whole bytes], the image as the reply's one bulk frame. `delta` 1: the client holds this session's chain (a whole
    image and the deltas since) and takes a delta on it (checkpoint/session.py Chain); the reply's
    `delta` says which it got (a whole image when the session has no chain: its first checkpoint, or
    the first here after a move or a restore); `whole bytes`, what a whole image would take now (the
    client asks for one when its chain has grown past twice that)."""
    if not getattr(session, "failover", False):
        sock.send_multipart([ident, wire.encode_reply(seq, NOT_PERMITTED, message="checkpoints are kept only for "
                                                      "sessions of a lease reserved with --failover")])
        return
    t0 = time.monotonic()
    try:
        made = ckpt.capture_failover(session, backend, delta=bool(args and args[0]))
        data = made.image.to_bytes()
    except (CheckpointError, CudaError) as e:
        message = getattr(e, "message", None) or str(e)
        log.warning("failover_checkpoint_failed", reason=message)
        sock.send_multipart([ident, wire.encode_reply(seq, ILLEGAL_STATE, message=f"no checkpoint: {message}")])
        return
    session.failover_checkpoints = getattr(session, "failover_checkpoints", 0) + 1
    image = made.image
    log.debug("failover_checkpoint", bytes=len(data), memory_bytes=image.memory_bytes, delta=made.delta,
              capture_s=round(time.monotonic() - t0, 4))
    session.bytes_out += len(data)
    sock.send_multipart([ident, wire.encode_reply(seq, 0, [len(data), image.memory_bytes, int(made.delta), made.whole_bytes]), data],
                        copy=False)
    made.commit()  # the next delta is taken against what the client now holds


def restore(sock, ident, seq: int, bulk, session, backend: str, log) -> None:
    """RESTORE []: the bulk frames are a checkpoint's images (a whole one and the deltas since, in
    order); the session (fresh: nothing allocated yet) becomes the one they hold. outs [memory bytes
    restored]."""
    rc, message, outs = 0, "", []
    if not getattr(session, "failover", False):
        rc, message = NOT_PERMITTED, "only a session of a lease reserved with --failover restores a checkpoint"
    elif getattr(session, "failover_restored", False):
        rc, message = ILLEGAL_STATE, "a checkpoint is restored into a fresh session only"
    elif not bulk:
        rc, message = ILLEGAL_STATE, "restore carries the checkpoint images as its frames"
    else:
        t0 = time.monotonic()
        try:
            image = ckpt.merged([Image.from_bytes(bytes(b), "the client's checkpoint") for b in bulk])
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
