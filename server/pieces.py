"""Large copies in pieces, where frames carry the data (across hosts, or RGPU_SHM=0).

ZeroMQ hands a message to the worker only once all of it has arrived. A 64 MiB copy sent as one
message is received whole, then written to the device, then answered: the network and the device
take turns. Sent as pieces, each its own message, the network carries the next piece while the
device takes this one (protocol/contract/constants.toml, PIECE_*):

- H2D: the client sends each piece but the last as a call whose `sync` field is PIECE_IN; the last
  piece is the copy's own call, sync or async. A piece is run at once, like an async call, but its
  failure is the copy's: the rest of its pieces are skipped and the last call answers that failure
  (a sync one in its reply, an async one as any async call's failure is answered). On the cuda
  backend the worker's compiled loop copies a piece from its frame itself (native/copies.c
  piece_in_one) and leaves to `run_piece_in` only one it cannot run: its failure is then recorded
  here, and the loop takes no piece of that copy after it (loop_steps.py loop_may_serve).
- D2H: a sync call whose `sync` field is SYNC_PIECES_OUT may be answered in pieces: replies with
  the call's seq and result PIECE_OUT, outs [offset] and one data frame each, then the reply,
  whose data is the last piece. The whole range is checked first, so a bad copy sends nothing
  but its error, as one reply.
"""
from __future__ import annotations

from rgpu.protocol import wire
from rgpu.protocol.generated.constants import PIECE_COUNT, PIECE_MAX, PIECE_MIN, PIECE_OUT

from .copy_calls import copy_of
from .dispatch import Result


def piece_size(count: int) -> int:
    """About PIECE_COUNT pieces, within [PIECE_MIN / 2, PIECE_MAX] bytes: the rule the client sends
    its H2D pieces by too (libhook/src/transport/session.c); it takes D2H pieces of any size."""
    return max(PIECE_MIN // 2, min(PIECE_MAX, -(-count // PIECE_COUNT)))


def run_piece_in(session, run, call_id, args, bulk) -> None:
    """An H2D piece: run now; a failure waits for the copy's sync call (`session.piece_error`)."""
    if session.piece_error is not None:
        return  # an earlier piece of this copy failed: the copy has failed
    c = copy_of(call_id, args)
    if c is None or not c.h2d:
        session.piece_error = Result(1, message=f"call {call_id} is not a host-to-device copy: it has no pieces")
        return
    session.pieces_in += 1
    res = run(session, call_id, args, bulk)
    if res.rc:
        session.piece_error = res


def take_piece_error(session):
    """The failure of an earlier piece of the copy whose last call this is (None: they all ran)."""
    err, session.piece_error = session.piece_error, None
    return err


def run_d2h_pieces(sock, ident, seq, session, run, call_id, args):
    """A D2H copy answered in pieces (a sync call, or an async one into pageable memory, which comes
    as a sync call: each piece's handler waits for its data); returns the Result of the last piece
    (the reply), or None when the copy does not go in pieces (too small, not a D2H copy, or a range
    the handler must refuse as one reply): the caller runs it whole. Pieces the socket's door sent
    before it handed the message over (session.d2h_sent bytes: serve.c d2h_out) are not sent again."""
    start, session.d2h_sent = session.d2h_sent, 0
    c = copy_of(call_id, args)
    if c is None or c.h2d:
        return None
    src, count = args[c.addr], args[c.count]
    if type(src) is not int or type(count) is not int or count < PIECE_MIN:
        return None
    found = session.device.allocation(src)
    if found is None or src + count > found[0] + found[1]:
        return None  # the handler says what is wrong, with nothing sent before
    size = piece_size(count)
    a = list(args)
    off = start  # (the door's pieces are this size too: the client takes them in order)
    while True:
        k = min(size, count - off)
        a[c.addr], a[c.count] = src + off, k
        res = run(session, call_id, a, ())
        if res.rc or off + k == count:
            return res
        session.bytes_out += k
        session.pieces_out += 1
        # Sent without a copy: the sim's data is a view of device memory nothing writes until the
        # client, which is waiting for this copy's reply, sends its next message.
        sock.send_multipart([ident, wire.encode_reply(seq, PIECE_OUT, wire.write_piece_out((off,))), *res.bulk], copy=False)
        off += k
