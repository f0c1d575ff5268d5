"""Messages the compiled launcher serves before Python decodes them (the cuda backend's launches.c, or
the software GPU's idle waits): a step of launches and its wait, a step whose last call is a D2H copy
with its data in a frame, a batch of async calls; and how what it served is counted and answered, as
Python's dispatcher counts and answers each call. The serving loop's own results (loop_served.py) are
counted with the same functions."""
from __future__ import annotations

import zmq

from rgpu.protocol import wire

from .backends.base import host_buffer


def loop_may_serve(session) -> bool:
    """Whether compiled code may answer the session's messages (the serving loop, or the launcher's
    wait_alone and step in worker.py _serve): nothing is waiting for the next reply that only Python
    adds (a deferred or sticky error, a failed piece, late D2H data)."""
    return session.deferred is None and session.sticky is None and session.piece_error is None \
        and not session.later


def wait_settled(session, done) -> None:
    """A wait the launcher answered alone (`done`: its run record), which also settled the clock:
    that device time is charged, or, where the driver refused the settle, Python's settle says why."""
    if done.settled:
        session.settled(done.done)
    else:
        session.settle()


def step_ended(session, n: int, out) -> None:
    """A step's `n` calls and its wait answered (`out`: the launcher's run record): the device
    time the clock settled is charged, or, where the driver refused the settle, Python's settle says why."""
    if out.settled:
        session.stepped(n, out.done, out.kernels)
    else:
        session.ran_launches(n, out.last_seq, bool(out.runtime), out.kernels)
        session.settle()


def step(sock, ident, header, session, launcher, frames=()) -> int | None:
    """A message of launches and then one wait (the launch-and-wait step of most programs), served by
    the compiled loop before Python decodes it (launches.c, rgpu_launcher_step_checked) while no other session
    wants the GPU (session.py, hold_for_step). None: all of it served and the wait answered. Else the
    index of the first call Python serves: 0 when nothing ran; past the launches that ran when the
    loop stopped at a launch the driver refused or at a wait on work not done. `frames`: the message's
    data frames, each an async H2D copy's (a step or a batch only), whose bytes the session counts in."""
    launcher.begin(frames)
    try:
        return _step_of(sock, ident, header, session, launcher, with_frames=bool(frames))
    finally:
        if frames:
            frames_copied(session, launcher, launcher.frame_bytes(), launcher.pieces())
        launcher.end()


def frames_copied(session, launcher, nbytes: int, pieces: int) -> None:
    """Data frames the compiled loop copied to the device (a step's or batch's async H2D copies, large
    copies' pieces among them), counted in: the session's bytes and pieces (as run_piece_in counts a
    piece) and the launcher's."""
    session.bytes_in += nbytes
    launcher.frame_bytes_in += nbytes
    session.pieces_in += pieces
    launcher.pieces_in += pieces


def _step_of(sock, ident, header, session, launcher, with_frames: bool = False) -> int | None:
    n, kind, count = launcher.shape(header)
    if with_frames and kind not in (launcher.STEP_WAIT, launcher.STEP_ASYNC):
        return 0  # a copy's reply frame after data frames: Python's
    if kind == launcher.STEP_FRAME:
        return _frame_step(sock, ident, header, session, launcher, n, count)
    if kind == launcher.STEP_ASYNC:
        return _async_run(header, session, launcher, n)
    if kind != launcher.STEP_WAIT or not session.hold_for_step():
        return 0
    # a session that holds no scheduler settles its clock before a wait, as Python's settle does
    answered, out = launcher.step(header, n, settle_first=session.sched is None)
    if not answered:
        return ran_part(session, out)
    session.last_seq = out.last_seq
    for seq, data in launcher.late():  # its late copies' data (OUT_LATER), ahead of the reply: worker.py _send_late
        session.bytes_out += len(data)
        launcher.late_bytes_out += len(data)
        sock.send_multipart([ident, wire.encode_reply(seq, wire.LATE_OUT), data], copy=False)
    answer_wait(sock, ident, out.last_seq, session, launcher.face, session.device.take_output(out.pending))
    send_pulls(sock, ident, session, launcher, launcher.pulls())
    # after the replies: the client is not kept waiting for the scheduler's bookkeeping
    step_ended(session, n, out)
    return None


def send_pulls(sock, ident, session, launcher, pulls) -> None:
    """The managed pulls after a step's wait (`pulls`: (seq, digest, data or None) each), answered after
    its reply as api/managed.py's replies are, each counted as a call."""
    for seq, digest, data in pulls:
        session.calls += 1
        session.last_seq = seq
        launcher.pulls_served += 1
        head = wire.encode_reply(seq, 0, (digest,))
        if data is None:
            sock.send_multipart([ident, head])
        else:
            session.bytes_out += len(data)
            sock.send_multipart([ident, head, data], copy=False)


def ran_part(session, out) -> int:
    """The compiled loop stopped at call out.served of a message (a call the driver refused, work not
    done within its poll): what ran before it counted, and that index returned for Python."""
    if out.served:
        session.ran_launches(out.served, out.last_seq, bool(out.runtime), out.kernels)
    return out.served


def _async_run(header, session, launcher, n: int) -> int | None:
    """A message of async calls only, each one a step may hold (a batch the client sent full, in a
    training step of more calls than a batch holds): run by the compiled loop before Python decodes
    it (launches.c, rgpu_launcher_run_calls), the GPU held as for Python's runs of launches; the
    message's end settled as Python's end of a message settles. Returns as `step` (no reply: async)."""
    if not session.hold_for_launches():
        return 0
    out = launcher.run_calls(header, n)
    launcher.batches += out.served == n
    if out.served < n:
        return ran_part(session, out)
    session.ran_launches(n, out.last_seq, bool(out.runtime), out.kernels)
    session.settle()
    return None


def _frame_step(sock, ident, header, session, launcher, n: int, count: int) -> int | None:
    """`step` for a message of a step's calls whose last is a sync device-to-host copy with its data
    in a frame (a kernel and its result read back with cudaMemcpy, from another host): the calls and
    the copy served by the compiled loop (launches.c, rgpu_launcher_frame_step) once the device is idle,
    the data sent in the reply's frame as Python's run of the copy sends it. Returns as `step`."""
    if not session.hold_for_step():
        return 0
    buf = host_buffer(count)  # written whole by the copy when answered; sent only then
    answered, out = launcher.frame_step(header, n, buf, settle_first=session.sched is None)
    if not answered:
        return ran_part(session, out)
    session.last_seq = out.last_seq
    session.calls += 1
    session.face = launcher.face
    session.bytes_out += count
    head = wire.encode_reply(out.last_seq, 0, output=session.device.take_output(out.pending))
    sock.send_multipart([ident, head, buf], copy=False)
    step_ended(session, n, out)
    return None


def answer_wait(sock, ident, seq, session, face: str, output: str) -> None:
    """The reply to a wait the compiled loop answered (success), counted as the dispatcher counts a call."""
    session.calls += 1
    session.face = face
    sock.send(ident, zmq.SNDMORE)
    sock.send(wire.encode_reply(seq, 0, output=output))
