"""What the compiled serving loop served, on the same-host call ring (ring.py) or at the socket's door
(sock_loop.py), added to the session's counts as the dispatcher counts each call; the replies and
settles the loop left to Python sent and charged here; a step it began with the GPU held, finished or
handed back to Python at the call where it stopped."""
from __future__ import annotations

import zmq

from rgpu.protocol import wire

from .loop_steps import answer_wait, frames_copied, ran_part, send_pulls, step_ended, wait_settled
from .ring import COPIED, NOTIFY, STEP
from .shm import DATA


def compiled_launcher(session):
    """The launcher the compiled serving loop serves the session with: the device's own (the cuda
    backend's, cuda/launches.py), else the software GPU's idle waits while its device is idle
    (sim/idle_waits.py); None: Python serves every message."""
    device = session.device
    loop = device.compiled_loop
    return loop if loop is device.launcher or device.loop_idle else None


def loop_served(sock, peer, ring, session, launcher, got: int) -> bool:
    """Adds what the compiled loop served (ring.serve, or its door on the socket: sock_loop.py) to the
    session's counts, as the dispatcher, answer_wait and Session.stepped count each call; finishes a
    wait it answered whose reply or accounting is Python's (ANSWERED), as worker.py _serve's
    wait_alone path does, and wakes the sessions waiting for the GPU a step gave back (NOTIFY). True
    when it served anything."""
    st = ring.state
    n = st.served
    if st.late_bytes:  # late copies' data the door sent ahead of steps' replies, as loop_steps.py _step_of counts it
        session.bytes_out += st.late_bytes
        launcher.late_bytes_out += st.late_bytes
    session.bytes_out += st.frame_out  # copies' data sent in replies' frames, as loop_steps.py _frame_step counts it
    session.pieces_out += st.out_pieces  # and large D2H copies' pieces, as run_d2h_pieces counts them
    session.d2h_sent = st.out_sent  # a D2H copy's pieces sent before the message was handed over
    session.calls += st.calls  # (with none served: the pieces of a copy it then handed over)
    if n:
        session.messages += n
        session.last_seq = st.last_seq
        session.face = "runtime" if st.runtime else "driver"
        launcher.waits += n - st.copies - st.batches - st.piece_msgs
        launcher.batches += st.batches
        launcher.served += st.launches
        if st.copies:
            launcher.copies += st.copies
            if session.shm is not None:  # (across hosts: memsets, allocations and frees, no segment)
                session.shm.bytes_in += st.shm_in  # as run_shm counts them, and Segment.put
                session.shm.bytes_out += st.shm_out
    if st.frame_bytes_in:  # data frames the socket's door copied to the device
        frames_copied(session, launcher, st.frame_bytes_in, st.frame_pieces)
    if st.pulls:  # managed pulls the socket's door answered after steps' waits, as send_pulls counts them
        session.calls += st.pulls
        session.last_seq = st.pull_seq
        launcher.pulls_served += st.pulls
        session.bytes_out += st.pull_bytes
    if session.sched is not None:
        session.loop_accounted(st.accounted)
    if got == NOTIFY:
        with session.sched.cond:
            session.sched.cond.notify_all()
    if got == STEP:
        session.messages += 1
        return True
    if got == COPIED:
        _finish_loop_copy(sock, peer, ring, session)
        return True
    if ring.answered is None:
        return n > 0
    done, ring.answered = ring.answered, None
    session.messages += 1
    _finish_loop_wait(sock, peer, ring, session, launcher, done)
    wait_settled(session, done)
    return True


def _finish_loop_copy(sock, peer, ring, session) -> None:
    """A copy or memset the compiled loop served (COPIED), counted already: its reply, when it carries
    printf output (the loop sent none), as worker.py _serve sends a copy's; then its settle charged."""
    st = ring.state
    done, copied = st.wait, st.copied
    if copied.sync and not st.replied:
        regions = [[DATA, copied.out_len]] if copied.out_len else None
        outs = [copied.addr] if copied.size > 0 else ()  # an allocation's address
        out = ring.replies(sock)
        out.send(peer, zmq.SNDMORE)
        out.send(wire.encode_reply(done.last_seq, 0, outs, output=session.device.take_output(done.pending),
                                   regions=regions))
    wait_settled(session, done)


def _finish_loop_wait(sock, peer, ring, session, launcher, done) -> None:
    """A wait the compiled loop answered (``done``: its run record): counted, and its reply sent
    here unless the loop sent it on the ring (``replied``)."""
    session.last_seq = done.last_seq
    launcher.waits += 1
    face = "runtime" if done.runtime else "driver"
    if ring.state.replied:
        session.calls += 1
        session.face = face
    else:
        answer_wait(ring.replies(sock), peer, done.last_seq, session, face, session.device.take_output(done.pending))


def step_taken_over(sock, peer, ring, session, launcher) -> int | None:
    """A step the compiled loop began (STEP) with `launcher` (compiled_launcher's): the GPU is this
    session's where the loop takes it (the loop took it as hold_for_step does). As step: a step
    answered whose reply or settle is Python's is finished here (None); one that stopped part way has
    its launches counted, and the index of the call Python serves next is returned."""
    st = ring.state
    out = st.wait
    session.held_by_loop()
    launcher.served += out.kernels
    if not st.answered:
        return ran_part(session, out)
    n = st.steps
    if st.copy_step:
        launcher.copies += 1
        _finish_copy_step(sock, peer, ring, session, out)
    elif st.frame_step:
        launcher.copies += 1
        _finish_frame_step(sock, peer, ring, session, out)
    else:
        _finish_loop_wait(sock, peer, ring, session, launcher, out)
        if st.pulls_due:  # (the socket's door) the step's managed pulls, after the wait's reply
            send_pulls(ring.replies(sock), peer, session, launcher, ring.pulls(launcher.copier.address))
        elif st.pulls:
            session.last_seq = st.pull_seq  # the door answered them after the wait's reply
    step_ended(session, n, out)
    return None


def _finish_copy_step(sock, peer, ring, session, done) -> None:
    """A step whose last call was a copy or memset (serve.c copy_step), served whole by the compiled
    loop, whose reply or settle is Python's: the copy counted as a copy's alone is, and its reply,
    naming its data in the segment as the loop's would, sent here unless the loop sent it."""
    st = ring.state
    copied = st.copied
    session.last_seq = done.last_seq
    session.calls += 1
    session.face = "runtime" if done.runtime else "driver"
    if session.shm is not None:
        session.shm.bytes_in += copied.shm_in
        session.shm.bytes_out += copied.out_len
    if not st.replied:
        out = ring.replies(sock)
        out.send(peer, zmq.SNDMORE)
        out.send(wire.encode_reply(done.last_seq, 0, output=session.device.take_output(done.pending),
                                   regions=[[DATA, copied.out_len]] if copied.out_len else None))


def _finish_frame_step(sock, peer, door, session, done) -> None:
    """A step whose last call was a sync D2H copy with its data in a frame (serve.c frame_step), served
    whole by the socket's door, whose reply (printf output) or settle is Python's: counted as
    loop_steps.py _frame_step counts it, and its reply, with the copy's data, sent here unless the
    door sent it."""
    st = door.state
    session.last_seq = done.last_seq
    session.calls += 1
    session.face = "runtime" if done.runtime else "driver"
    session.bytes_out += st.frame_len
    if not st.replied:
        head = wire.encode_reply(done.last_seq, 0, output=session.device.take_output(done.pending))
        sock.send_multipart([peer, head, door.frame()])


def door_served(door, sock, peer, session, launcher, quota, spin_s: float, next_spin_s: float, timeout_s: float,
                until: float):
    """The socket's door (sock_loop.py) serving the session's socket until `until` (or one message,
    with until 0), its allocations and frees put in the device's tables and what it served counted:
    (got, held, looped, resume). `held`: the message it handed to Python, as SocketLoop.serve gives
    it, or None; `resume`: where Python goes on in a step the loop began (None: from the start)."""
    copier = launcher.copier
    try:
        got, held = door.serve(launcher.loop, spin_s, next_spin_s, timeout_s, until, session,
                               copier.address if copier is not None else 0, quota)
    finally:  # what it allocated and freed, in the device's tables before anything reads them
        if door.state.mem_n:
            session.device.loop_memory(door.state.mem_addr, door.state.mem_size, door.state.mem_n)
    looped = loop_served(sock, peer, door, session, launcher, got)
    resume = None
    if got == STEP and (resume := step_taken_over(sock, peer, door, session, launcher)) is None:
        held = None
    return got, held, looped, resume
