"""The worker's compiled serving loop (server/native/serve.c) on the cuda backend over the null driver
(benchmarks/native/nulldriver.c): a client at the protocol level with a genuine call ring
(tests/security/test_call_ring.py's RingClient) sends the hot calls and others. The waits the loop
knows are answered without entering Python (the worker's own counts in its session_ended line say
which side served each ring message), every other call is still Python's, the replies are the
bytes Python would have sent, and bad input on the ring still ends only that session."""
from __future__ import annotations

import re

import pytest

from rgpu.protocol import wire
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.protocol.generated.constants import RING_PIECE
from tests.security.test_call_ring import RingClient
from tests.support import null_server
from tests.support.daemons import wait_until
from tests.support.session import Session

pytestmark = pytest.mark.e2e

STREAM_WAITS = ("cudaStreamSynchronize", "cuStreamSynchronize", "cudaStreamQuery", "cuStreamQuery")
EVENT_WAITS = ("cudaEventSynchronize", "cuEventSynchronize", "cudaEventQuery", "cuEventQuery")
DEVICE_WAITS = ("cudaDeviceSynchronize", "cuCtxSynchronize")
PER_ROUND = len(STREAM_WAITS) + len(EVENT_WAITS) + len(DEVICE_WAITS)


def _raw(c: RingClient, name: str, *args) -> bytes:
    """The reply's bytes to one sync call sent through the ring."""
    c.seq += 1
    before = c.u32("rep_seq")
    c.send_record(wire.encode_requests([(c.seq, BY_NAME[name], 1, list(args), 0)]))
    wait_until(lambda: c.u32("rep_seq") != before, 10, "a reply on the ring", interval_s=0.001)
    n = c.u32("rep_len")
    start = c.off + c.lay["size"] - (64 << 10)
    return bytes(c.mm[start:start + n])


def _goodbye(c: RingClient) -> None:
    c.seq += 1
    c.send_record(wire.encode_requests([(c.seq, wire.GOODBYE, 0, [], 0)]))


def _ended(handle, nth: int = 1) -> dict:
    """The counts of the nth session_ended line the server logged."""
    lines = wait_until(lambda: (m := re.findall(r"event=session_ended .*", handle.output(200000)))
                       and len(m) >= nth and m, 15, "the session ends")
    return {k: int(v) for k, v in re.findall(r"\b(\w+)=(\d+)\b", lines[nth - 1])}


def _loop_on_and_off(daemons, script):
    """`script(client)` run by a ring client of a server with the compiled loop on and of one with it
    off (RGPU_SERVE_LOOP=0), each session ended with a goodbye: {"1": (what it returned, the session's
    counts), "0": (...)}."""
    got = {}
    for loop in ("1", "0"):
        url, handle = null_server.start(daemons, env={"RGPU_SERVE_LOOP": loop})
        c = RingClient(url)
        try:
            out = script(c)
            _goodbye(c)
        finally:
            c.close()
        got[loop] = out, _ended(handle)
    return got


def _session(c: RingClient, rounds: int) -> list[bytes]:
    """An event made and recorded (Python's), then `rounds` of the waits on the default stream, on the
    event and on the device, then calls the loop does not serve: an allocation, a wait on a stream
    the session never created, a free. The replies from the first wait on."""
    event = wire.unpack(_raw(c, "cudaEventCreate"))[2][0]
    assert wire.unpack(_raw(c, "cudaEventRecord", event, 0))[1] == 0
    out = []
    for _ in range(rounds):
        out += [_raw(c, name, 0) for name in STREAM_WAITS]
        out += [_raw(c, name, event) for name in EVENT_WAITS]
        out += [_raw(c, name) for name in DEVICE_WAITS]
    out.append(_raw(c, "cudaMalloc", 4096))
    ptr = wire.unpack(out[-1])[2][0]
    out.append(_raw(c, "cudaStreamSynchronize", 0xDEAD000))
    out.append(_raw(c, "cudaFree", ptr))
    return out


def test_hot_waits_are_served_without_python_and_the_rest_by_python(daemons):
    url, handle = null_server.start(daemons)
    c = RingClient(url)
    try:
        replies = _session(c, 100)
        _goodbye(c)
    finally:
        c.close()
    counts = _ended(handle)
    waits = 100 * PER_ROUND
    for i, r in enumerate(replies[:waits]):
        assert wire.unpack(r) == [i + 4, 0, [], 0, "", ""], i
    malloc, bad, free = (wire.unpack(r) for r in replies[waits:])
    assert malloc[1] == 0 and malloc[2][0] != 0
    assert bad[1] != 0 and bad[4], bad  # Python's refusal, with its message
    assert free[1] == 0
    # the waits, the allocation and its free were the loop's; the event's making and recording, the bad
    # wait and the goodbye Python's
    assert counts["ring_compiled"] == waits + 2 and counts["copies_compiled"] == 2, counts
    assert counts["ring_to_python"] == 4, counts
    assert counts["ring_calls"] == waits + 6 and counts["waits_compiled"] == waits, counts
    assert counts["calls"] >= waits + 5, counts  # every call counted, wherever it was served


def test_the_loop_answers_as_python_does(daemons):
    """The same session with the loop off (RGPU_SERVE_LOOP=0): the same reply bytes, every message
    Python's."""
    got = _loop_on_and_off(daemons, lambda c: _session(c, 3))
    (on, counts_on), (off, counts_off) = got["1"], got["0"]
    waits = 3 * PER_ROUND
    assert on[:waits] == off[:waits]
    assert [wire.unpack(r)[1] for r in on[waits:]] == [wire.unpack(r)[1] for r in off[waits:]]
    assert counts_on["ring_compiled"] == waits + 2 and counts_off["ring_compiled"] == 0  # and malloc, free
    assert counts_off["ring_to_python"] == waits + 6
    assert counts_on["calls"] == counts_off["calls"]


def test_bad_input_on_a_ring_the_loop_serves_ends_that_session_only(daemons):
    url, handle = null_server.start(daemons)
    bystander = Session(url)
    c = RingClient(url)
    try:
        assert wire.unpack(_raw(c, "cudaStreamSynchronize", 0))[1] == 0
        # garbage of a valid length (a seeded fuzz), and waits cut short or with a byte changed:
        # refused, answered; the loop serves on
        import random
        rnd = random.Random(38)
        call = wire.encode_requests([(99, BY_NAME["cudaStreamSynchronize"], 1, [0], 0)])
        junk = [b"\xc1" * 7, call[:-1], b"\x91\x95\x63", call[:3], call + b"\x00"]
        junk += [rnd.randbytes(rnd.choice((1, 2, 9, 64, 700, 4096))) for _ in range(150)]
        for i, j in enumerate(junk):
            before = c.u32("rep_seq")
            c.send_record(j)
            assert c.reply(before)[1] != 0, j[:40]
            if i % 25 == 0:
                assert wire.unpack(_raw(c, "cuStreamQuery", 0))[1] == 0
        assert wire.unpack(_raw(c, "cuStreamQuery", 0))[1] == 0
        # a length past the slot while the loop waits: that session ends, with the reason
        c.send_record(b"\x91", length=0xFFFFFFF0)
        assert c.sock.poll(10000), "the client hears why its session ended"
        notice = wire.unpack(c.sock.recv_multipart()[0])
        assert notice[1] == wire.SESSION_ENDED and "wrote over the ring" in notice[4]
        counts = _ended(handle)
        assert counts["ring_compiled"] == 2 + 7, counts  # the waits; every junk record Python's
        assert "reason=ring_broken" in handle.output(200000)
        assert bystander.call("cudaMalloc", 4096)[0] == 0
        assert handle.alive()
    finally:
        c.close()
        bystander.close()


def _harness(url: str, mode: str, n: int, shm: str = "1", env: dict | None = None, args: tuple = ()) -> dict:
    import json
    import subprocess

    from benchmarks.transport import build_harness
    from rgpu.paths import client_env
    env = {**client_env([url], preload=False), "RGPU_SHM": shm, **(env or {})}
    p = subprocess.run([str(build_harness()), "rgpu", mode, str(n), *map(str, args)], env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def _harness_on_and_off(daemons, switch: str, mode: str, n: int, **harness) -> tuple[dict, dict]:
    """The harness's `mode` (n steps; `harness`: _harness's shm and env) run against a server with
    `switch` on and one with it off ("1", "0"): the counts of each session."""
    got = {}
    for on in ("1", "0"):
        url, handle = null_server.start(daemons, env={switch: on})
        _harness(url, mode, n, **harness)
        got[on] = _ended(handle)
    return got["1"], got["0"]


def test_launch_and_wait_steps_are_served_by_the_loop(daemons):
    """The harness's launch + synchronize (a message of a launch and a wait, through librgpu): the
    loop takes the GPU through the scheduler, launches, answers the wait and gives the GPU back with
    the kernels counted, in every step."""
    url, handle = null_server.start(daemons)
    _harness(url, "launch_sync", 500)
    counts = _ended(handle)
    assert counts["ring_compiled"] >= 500 and counts["launches_compiled"] >= 500, counts
    assert counts["waits_compiled"] >= 500, counts
    assert counts["calls"] >= 1000, counts


def test_a_step_whose_kernel_outlasts_the_poll_is_finished_by_python(daemons):
    """Kernels of 2 ms (RGPU_NULL_KERNEL_US): the loop launches, finds the wait not done within its
    poll and hands the rest of the message to Python with the GPU held, which waits without going
    deaf (waits.py) and gives it back. Every step still waits for its kernel."""
    url, handle = null_server.start(daemons, env={"RGPU_NULL_KERNEL_US": "2000"})
    got = _harness(url, "launch_sync", 50)
    assert got["us"] >= 2000, got
    counts = _ended(handle)
    assert counts["launches_compiled"] >= 50, counts  # the launches were the loop's
    assert counts["ring_to_python"] >= 50, counts  # the waits Python's
    assert counts["calls"] >= 100, counts


def test_a_free_right_after_a_launch_waits_for_the_kernel(daemons):
    """cudaFree waits for the device's work, as the driver's does; the arena's free unmaps, which the
    driver does not wait for (a kernel still reading the memory would fault and end the context).
    With kernels of 2 ms (RGPU_NULL_KERNEL_US) the harness launches one on a stream and frees, with
    no wait between, a 4 MiB buffer (granules of its own, unmapped at the free) with cudaFreeAsync on
    that stream (which waits for that stream), then another with cudaFree and a 64 KiB one: each
    free waits for the kernel, Python's wait (the loop hands a free over while a stream is busy), and
    the program carries on. The null driver stops the worker at an unmap while a kernel runs, as a GPU's
    fault would end the session."""
    url, handle = null_server.start(daemons, env={"RGPU_NULL_KERNEL_US": "2000"})
    got = _harness(url, "free_after_launch", 20)
    assert got["us"] >= 2000, got  # each step waited for its kernel
    counts = _ended(handle)
    assert counts["launches_compiled"] >= 20, counts


def test_a_kernel_and_its_result_read_back_are_one_step_of_the_loop(daemons):
    """A plain program's step through librgpu (the harness's kernel_d2h: a memset, a kernel, then
    cudaMemcpy back to pageable memory, whose bytes the harness checks): one message whose last call is
    a sync copy through the segment, served whole by the loop (the copy once the device is idle, its
    reply naming the data), counted as Python counts it: the same calls and segment bytes with the
    loop off (RGPU_SERVE_LOOP=0), where Python serves every step. With kernels that outlast the
    loop's poll (RGPU_NULL_KERNEL_US), the loop launches and Python waits and copies."""
    steps = 300 + 300 // 10 + 1  # and the harness's warm-up
    got = {}
    for loop, kernel_us in (("1", "0"), ("0", "0"), ("1", "2000")):
        url, handle = null_server.start(daemons, env={"RGPU_SERVE_LOOP": loop, "RGPU_NULL_KERNEL_US": kernel_us})
        _harness(url, "kernel_d2h", 300 if kernel_us == "0" else 30)  # fails unless every read-back is right
        got[loop, kernel_us] = _ended(handle)
    on, off, slow = got["1", "0"], got["0", "0"], got["1", "2000"]
    assert on["ring_compiled"] >= steps and on["launches_compiled"] >= steps, on
    assert on["copies_compiled"] == steps, on  # every read-back the loop's
    assert off["ring_compiled"] == 0 and off["copies_compiled"] == 0, off
    assert on["shm_bytes_out"] == off["shm_bytes_out"] == steps * 4096, (on, off)
    # the same messages on the ring either way (the first server may be sent the module's image too:
    # the module cache is shared, so `calls` differ by that one)
    assert on["ring_calls"] == off["ring_calls"] and on["calls"] - off["calls"] in (0, 1), (on, off)
    slow_steps = 30 + 30 // 10 + 1
    assert slow["launches_compiled"] >= slow_steps and slow["ring_to_python"] >= slow_steps, slow
    assert slow["shm_bytes_out"] == slow_steps * 4096, slow


def test_a_kernel_and_its_result_read_back_on_the_socket_are_one_compiled_step(daemons):
    """The same step from a client without the session segment (RGPU_SHM=0, as from another host): the
    read-back's data goes back in a frame; the loop runs the calls and the copy (launches.c
    rgpu_launcher_frame_step) and Python sends the frame, the bytes counted as Python's own run of the
    copy counts them, as with the compiled launches off (RGPU_FAST_LAUNCH=0), where Python serves every
    call."""
    steps = 300 + 300 // 10 + 1
    # the harness fails unless every read-back is right
    on, off = _harness_on_and_off(daemons, "RGPU_FAST_LAUNCH", "kernel_d2h", 300, shm="0")
    assert on["copies_compiled"] == steps and on["launches_compiled"] >= steps, on
    assert off["copies_compiled"] == 0, off
    assert on["bytes_out"] == off["bytes_out"] >= steps * 4096, (on, off)
    assert on["calls"] - off["calls"] in (0, 1) and on["messages"] - off["messages"] in (0, 1), (on, off)


def test_a_kernel_and_its_result_read_back_with_the_ring_off_are_the_sockets_doors(daemons):
    """The same step on the same host with the call ring off (RGPU_RING=0: every message on the socket,
    the read-back's data through the session segment): the socket's door serves the copy through the
    segment as the ring's loop does, counted as Python counts it with the door off
    (RGPU_SERVE_SOCKET=0), where Python serves every message."""
    steps = 300 + 300 // 10 + 1
    # the harness fails unless every read-back is right
    on, off = _harness_on_and_off(daemons, "RGPU_SERVE_SOCKET", "kernel_d2h", 300, env={"RGPU_RING": "0"})
    assert on["ring_calls"] == off["ring_calls"] == 0, (on, off)
    assert on["copies_compiled"] == steps and on["socket_compiled"] >= steps, on
    assert off["copies_compiled"] == 0 and off["socket_compiled"] == 0, off
    assert on["shm_bytes_out"] == off["shm_bytes_out"] == steps * 4096, (on, off)
    assert on["bytes_out"] == off["bytes_out"] == 0, (on, off)  # none of it in frames
    assert on["calls"] - off["calls"] in (0, 1) and on["messages"] - off["messages"] in (0, 1), (on, off)


def test_managed_memory_the_host_writes_each_step_is_pulled_back_by_the_door(daemons):
    """Managed memory from another host (RGPU_SHM=0): each step the host writes a new value into a byte
    of a 4 KiB managed buffer, launches a kernel and synchronizes, then reads the byte (the harness
    checks it).
    Its message is the push of the host's write (an async H2D copy, its data in a frame), the launch,
    the wait, and the buffer's pull after it. Right after a push the client holds no digest of the
    device's copy to name, and its pull names none (nil, libhook/src/managed/managed.c): the door
    serves such a pull as one naming a digest, the data sent whole (copies.c rgpu_copier_pull_call),
    counted as Python counts it with the door off (RGPU_SERVE_SOCKET=0), where Python serves every
    message."""
    steps = 300 + 300 // 10 + 1
    # the harness fails unless every byte read back is the one written
    on, off = _harness_on_and_off(daemons, "RGPU_SERVE_SOCKET", "managed", 300, shm="0")
    # every step pushes (it writes a value the byte did not hold) and pulls, each the door's
    assert on["pulls_compiled"] == steps and on["frame_bytes_compiled"] == steps * 4096, on
    assert on["socket_compiled"] >= steps and on["socket_to_python"] < 20, on
    assert off["socket_compiled"] == 0, off
    assert on["bytes_out"] == off["bytes_out"] >= steps * 4096, (on, off)
    assert on["calls"] - off["calls"] in (0, 1) and on["messages"] - off["messages"] in (0, 1), (on, off)


def test_managed_memory_the_host_writes_each_step_keeps_to_the_call_ring(daemons):
    """The same managed memory on the same host, the call ring on. The pull goes ahead of the
    synchronize into the region's shadow, pinned memory the worker maps (managed.c plan_ahead); the
    push copies from that shadow too, the host's bytes put there first, so that its message names the
    memory instead of carrying a data frame, and the whole step (push, launch, synchronize with the
    pull ahead) is one record on the ring, served by the compiled loop. The harness checks every byte
    read back."""
    steps = 300 + 300 // 10 + 1
    url, handle = null_server.start(daemons)
    _harness(url, "managed", 300)
    got = _ended(handle)
    assert got["ring_compiled"] >= steps and got["socket_compiled"] + got["socket_to_python"] < 10, got
    # every push's granule from the shadow but the first, made before the first pull ahead made the
    # shadow pinned memory, whose data went in a frame (with the module's image: the rest of bytes_in)
    assert got["pinned_bytes_in"] == (steps - 1) * 4096 and got["bytes_in"] < 2 * 4096, got


@pytest.mark.parametrize("copies", [1, 40])
def test_a_ring_sessions_messages_with_data_frames_keep_to_the_ring(daemons, copies):
    """A framework's step whose input is not pinned, on the same host with the call ring on: async
    copies in from pageable memory (their data copied at the call, as CUDA lets the program reuse the
    buffer at once), a kernel, a synchronize. The copies' data travels in the ring's records after
    the messages' heads (ring.h RGPU_RING_FRAMES), and the compiled loop serves the step from there: no
    socket message. With 40 copies a step, the client sends full batches of async calls ahead of the
    step, records that want no reply, each with its frames. Python, with the loop off
    (RGPU_SERVE_LOOP=0), takes the same records from the ring with their frames; the harness checks
    the device's copy (the step's last) after each round either way."""
    n = 300 if copies == 1 else 100
    steps = n + n // 10 + 1
    on, off = _harness_on_and_off(daemons, "RGPU_SERVE_LOOP", "pageable_step", n, args=(4096, copies))
    # every step but the first, whose launch is Python's (the loop knows a function once Python ran it)
    assert on["ring_compiled"] >= steps - 1 and on["ring_to_python"] < 10, on
    assert on["frame_bytes_compiled"] >= (steps - 1) * 4096 * copies, on
    # the frames read where the client wrote them, in the ring (server/native/ring.c held); with the
    # loop off, Python takes every record copied out
    assert on["ring_in_place"] >= steps - 1 and off["ring_in_place"] == 0, (on, off)
    # the ring's area registered with the driver either way (server/staging.py register_ring), so a
    # GPU reads the frames copied from it by DMA
    assert on["ring_registered"] == off["ring_registered"] == 1, (on, off)
    if copies > 1:  # two full batches of 16 a step (RGPU_BATCH_CALLS's default), run without a reply
        assert on["batches_compiled"] >= 2 * (steps - 1), on
    assert off["ring_calls"] == off["ring_to_python"] >= steps and off["frame_bytes_compiled"] == 0, off
    for run in (on, off):  # (now and then one message of the session's set-up or end takes the socket)
        assert run["socket_compiled"] == 0 and run["socket_to_python"] <= 2, run
    assert on["calls"] - off["calls"] in (0, 1) and on["messages"] - off["messages"] in (0, 1), (on, off)


@pytest.mark.parametrize("size", [512 << 10, 1536 << 10], ids=["512KiB", "1.5MiB"])
def test_a_ring_sessions_large_pageable_copies_go_in_pieces_a_record_holds(daemons, size):
    """The same step with more input than a ring's record holds (a DataLoader's batch, unpinned): the
    client sends the copy in pieces of 240 KiB (libhook copy_pieces.c rgpu_ring_pieces), each a record
    that wants no reply, which the compiled loop copies from the ring (serve.c piece); the last is the
    copy's own call, with the launch and the synchronize after it. Python, with the loop off, takes
    the same records; the harness checks every page of the device's copy (the step's last), stamped
    with its offset and the step's number, after each round."""
    n = 300 if size < 1 << 20 else 100
    steps, records = n + n // 10 + 1, -(-size // RING_PIECE)
    on, off = _harness_on_and_off(daemons, "RGPU_SERVE_LOOP", "pageable_step", n, args=(size,))
    assert on["pieces_in"] == off["pieces_in"] == steps * (records - 1), (on, off)
    # every piece the loop's: a step's first is behind the last step's synchronize, the rest behind
    # copies the loop ran (a piece behind work still running would be Python's)
    assert on["pieces_compiled"] >= (steps - 1) * (records - 1) and on["ring_to_python"] < 10, on
    assert on["frame_bytes_compiled"] >= (steps - 1) * size, on
    # the ring's records with a frame (its pieces, the copy's own call) read in place, in the ring
    # (server/native/ring.c held): all but about one record a step (the harness's, without a frame;
    # 1,327 records, 993 in place at 512 KiB); none with the loop off
    assert on["ring_in_place"] >= max(steps, on["ring_compiled"] - 2 * steps) and off["ring_in_place"] == 0, (on, off)
    # A piece finding the ring full waits for room a while (ring.c rgpu_ring_send), then goes on the
    # socket, served by the door: how many do depends on how far behind the worker falls on a loaded
    # host, so the split is not fixed; but pieces took the ring, every step's on average
    assert on["ring_compiled"] >= 2 * steps, on
    assert off["ring_compiled"] == 0 and off["ring_to_python"] >= steps, off  # (the socket's door is on)
    assert on["calls"] - off["calls"] in (0, 1), (on, off)


def test_a_ring_sessions_messages_with_data_frames_too_large_for_a_record_are_the_sockets_doors(daemons):
    """The same step with 512 KiB of input, more than a ring's record holds, sent whole (RGPU_PIECES=0):
    the message goes on the socket beside the ring. The worker's ring loop hands it over (SOCKET); the
    socket's door serves it as it serves one from another host, and the ring goes on after it. Counted
    as Python counts them with the door off (RGPU_SERVE_SOCKET=0); the harness checks the device's copy."""
    steps, size = 300 + 300 // 10 + 1, 512 << 10
    on, off = _harness_on_and_off(daemons, "RGPU_SERVE_SOCKET", "pageable_step", 300, args=(size,),
                                  env={"RGPU_PIECES": "0"})
    assert on["socket_compiled"] >= steps - 1 and on["socket_to_python"] < 10, on
    assert on["frame_bytes_compiled"] == off["frame_bytes_compiled"] >= (steps - 1) * size, (on, off)
    assert off["socket_compiled"] == 0, off
    assert on["ring_calls"] == off["ring_calls"] > 0, (on, off)  # (the read-backs: a round's last copy)
    assert on["calls"] - off["calls"] in (0, 1) and on["messages"] - off["messages"] in (0, 1), (on, off)


@pytest.mark.parametrize("shm", ["1", "0"])
def test_batches_of_async_calls_are_run_before_python_decodes_them(daemons, shm):
    """The harness's async launches (20,000 empty kernels, one synchronize): the client sends them in
    full batches of async calls only, which the worker runs through the compiled loop without Python
    decoding them (launches.c rgpu_launcher_run_calls), counted as Python counts the same calls with
    the compiled launches off (RGPU_FAST_LAUNCH=0); on the ring and on the socket. On the ring they
    are records that want no reply, queued while the worker runs the last, and the compiled serving
    loop runs them without entering Python (serve.c async_run)."""
    on, off = _harness_on_and_off(daemons, "RGPU_FAST_LAUNCH", "launch", 20000, shm=shm)
    warm = 20000 // 10 + 1  # the harness's warm-up
    assert on["batches_compiled"] >= (20000 + warm) // 16 - 2, on  # every full batch (16: RGPU_BATCH_CALLS's default)
    assert on["launches_compiled"] >= 20000 + warm, on
    assert off["batches_compiled"] == 0 and off["launches_compiled"] == 0, off
    assert on["calls"] - off["calls"] in (0, 1) and on["messages"] - off["messages"] in (0, 1), (on, off)
    if shm == "1":
        # A batch finding the ring full goes on the socket (ring.c rgpu_ring_send): how many do depends
        # on how far the worker falls behind, so the split is not fixed; but some took the ring, and
        # none of those went to Python (one session: nobody contends for the GPU). The few the ring
        # hands to Python are the session's set-up (module load, lookups), not launches.
        assert on["ring_calls"] > 0 and on["ring_compiled"] > 0, on
        assert on["ring_to_python"] <= 10, on


@pytest.mark.parametrize("mode", ["launch_sync", "launch"])
def test_two_sessions_stepping_at_once_share_the_gpu_through_the_scheduler(daemons, mode):
    """Two programs on one GPU at once, doing launch + synchronize, or async launches in messages of
    16 on the ring (the harness's `launch`: 1,000 launches and one synchronize): each loop takes the GPU
    only while the other does not want it, and gives a batch of async launches back only while nobody
    does (their kernels may still run: Python's release lets them finish first); the rest is Python's
    scheduler (sched.c beside sched.py, one lock), so both finish, every launch and every wait counted
    once, wherever it was served."""
    from concurrent.futures import ThreadPoolExecutor
    url, handle = null_server.start(daemons, env={"RGPU_NULL_KERNEL_US": "20"})
    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda _: _harness(url, mode, 1000), range(2)))
    assert all(r["n"] == 1000 for r in runs), runs
    for nth in (1, 2):
        counts = _ended(handle, nth)
        if mode == "launch_sync":
            assert counts["calls"] >= 2000, counts  # the launches and the waits, each counted
        else:  # with the harness's warm-up (101 launches) and each round's synchronize
            assert counts["calls"] >= 1101 + 2 and counts["client_async_messages"] >= 1101 // 16, counts
        assert counts["ring_compiled"] + counts["ring_to_python"] == counts["ring_calls"], counts


def _send(c: RingClient, name: str, args: list, copy=None) -> bytes:
    """One sync call through the ring, with a copy record (wire.Shm) if given: its reply's bytes."""
    c.seq += 1
    call = (c.seq, BY_NAME[name], 1, list(args), 0) + ((copy,) if copy is not None else ())
    before = c.u32("rep_seq")
    c.send_record(wire.encode_requests([call]))
    wait_until(lambda: c.u32("rep_seq") != before, 10, "a reply on the ring", interval_s=0.001)
    n = c.u32("rep_len")
    start = c.off + c.lay["size"] - (64 << 10)
    return bytes(c.mm[start:start + n])


def _copies(c: RingClient) -> tuple[list, list]:
    """Copies through the segment both ways and memsets of every width and face, then ones the loop
    leaves to Python (out of range, a bad stream, a value past its width, a copy of more than the
    room): (the replies, what each D2H copy left in the segment)."""
    from rgpu.protocol.generated.constants import SHM_DATA as DATA
    from rgpu.protocol.wire import Shm
    first = _raw(c, "cudaMalloc", 8192)  # the null driver's addresses are the same in every worker
    ptr = wire.unpack(first)[2][0]
    pattern = bytes(range(256)) * 16
    replies, seen = [first], []

    def h2d(name, args, data):
        c.mm[DATA:DATA + len(data)] = data
        replies.append(_send(c, name, args, copy=Shm([[DATA, len(data)]], 0)))

    def d2h(name, args, n, room=None):
        c.mm[DATA:DATA + n] = b"\xee" * n
        replies.append(_send(c, name, args, copy=Shm([], room or n)))
        seen.append(bytes(c.mm[DATA:DATA + n]))

    h2d("cudaMemcpy", [ptr, 0, 4096, 1], pattern)
    d2h("cudaMemcpy", [0, ptr, 4096, 2], 4096)
    h2d("cuMemcpyHtoD_v2", [ptr + 4096, 4096], pattern[::-1])
    d2h("cuMemcpyDtoH_v2", [ptr, 8192], 8192, 1 << 16)
    replies.append(_send(c, "cuMemsetD8_v2", [ptr, 0x5A, 100]))
    replies.append(_send(c, "cudaMemset", [ptr + 100, 0x107, 50]))
    replies.append(_send(c, "cuMemsetD16_v2", [ptr + 160, 0xBEEF, 20]))
    replies.append(_send(c, "cuMemsetD32_v2", [ptr + 200, 0xDEADBEEF, 10]))
    replies.append(_send(c, "cudaMemsetAsync", [ptr + 300, 9, 10, 0]))  # sync: a program's memset then wait
    replies.append(_send(c, "cuMemsetD8Async", [ptr + 320, 3, 10, 0]))
    h2d("cudaMemcpyAsync", [ptr + 400, 0, 16, 1, 0], b"z" * 16)
    d2h("cuMemcpyDtoHAsync_v2", [ptr, 512, 0], 512)
    d2h("cudaMemcpy", [0, ptr, 8192, 2], 8192)
    # Python's: outside the allocation, an unknown stream, a value past its width, a D2H naming input
    d2h("cudaMemcpy", [0, ptr + 8000, 4096, 2], 4096)
    h2d("cuMemcpyHtoD_v2", [ptr + 8100, 200], b"q" * 200)
    replies.append(_send(c, "cuMemsetD8_v2", [ptr + 8000, 1, 500]))
    replies.append(_send(c, "cudaMemsetAsync", [ptr, 1, 10, 0xDEAD000]))
    replies.append(_send(c, "cuMemsetD16_v2", [ptr, 0x10000, 4]))
    replies.append(_send(c, "cuMemcpyDtoH_v2", [ptr, 16], copy=Shm([[DATA, 16]], 16)))  # D2H naming input
    replies.append(_raw(c, "cudaFree", ptr))
    return replies, seen


def test_copies_and_memsets_are_served_by_the_loop_as_python_serves_them(daemons):
    """Copies through the session segment (H2D from a region, D2H into the room) and memsets, each alone
    in its message: with the loop on, the loop's (the session's counts say so); with it off
    (RGPU_SERVE_LOOP=0), Python's; the same reply bytes, the same bytes left in the segment and on the
    device, the same counts of segment traffic."""
    got = _loop_on_and_off(daemons, _copies)
    ((on, seen_on), counts_on), ((off, seen_off), counts_off) = got["1"], got["0"]
    assert on == off
    assert seen_on == seen_off
    # what the device held, as both read it back: the memsets and copies landed where they should
    full = seen_on[3]
    assert full[:100] == b"\x5a" * 100 and full[100:150] == b"\x07" * 50
    assert full[160:200] == b"\xef\xbe" * 20 and full[200:240] == b"\xef\xbe\xad\xde" * 10
    assert full[300:310] == b"\x09" * 10 and full[320:330] == b"\x03" * 10
    assert seen_on[2][400:416] == b"z" * 16
    pattern = bytes(range(256)) * 16
    assert seen_on[0] == pattern and seen_on[1][4096:] == pattern[::-1]
    # the refused ones are refused, with Python's messages
    for r in on[-7:-1]:
        assert wire.unpack(r)[1] != 0 and wire.unpack(r)[4], wire.unpack(r)
    # every copy and memset above the refused ones, and the allocation and its free
    assert counts_on["copies_compiled"] == 15, counts_on
    assert counts_off["copies_compiled"] == 0, counts_off
    for k in ("calls", "shm_bytes_in", "shm_bytes_out", "ring_calls"):
        assert counts_on[k] == counts_off[k], k
    assert counts_on["ring_compiled"] == counts_off["ring_compiled"] + 15


def test_torn_and_changed_copy_records_get_an_answer_and_the_loop_serves_on(daemons):
    """The copies, memsets, allocations and frees the loop serves, each cut short, lengthened or with
    bytes changed (a seeded fuzz):
    each gets an answer (the loop's, when what is left is a copy it serves whole, else Python's,
    with its refusal); the loop goes on serving copies, and another session never notices."""
    import random

    from rgpu.protocol.generated.constants import SHM_DATA as DATA
    from rgpu.protocol.wire import Shm
    url, handle = null_server.start(daemons)
    bystander = Session(url)
    c = RingClient(url)
    try:
        ptr = wire.unpack(_raw(c, "cudaMalloc", 8192))[2][0]
        valid = [wire.encode_requests([(99, BY_NAME["cudaMemcpy"], 1, [ptr, 0, 4096, 1], 0, Shm([[DATA, 4096]], 0))]),
                 wire.encode_requests([(99, BY_NAME["cudaMemcpy"], 1, [0, ptr, 4096, 2], 0, Shm([], 4096))]),
                 wire.encode_requests([(99, BY_NAME["cuMemsetD32_v2"], 1, [ptr, 7, 16], 0)]),
                 wire.encode_requests([(99, BY_NAME["cudaMalloc"], 1, [1 << 20], 0)]),
                 wire.encode_requests([(99, BY_NAME["cuMemFree_v2"], 1, [ptr + 4096], 0)])]
        rnd = random.Random(38)
        for i in range(300):
            m = bytearray(rnd.choice(valid))
            how = rnd.randrange(3)
            if how == 0:
                m = m[:rnd.randrange(1, len(m))]
            elif how == 1:
                m += rnd.randbytes(rnd.randrange(1, 9))
            else:
                for _ in range(rnd.randrange(1, 4)):
                    m[rnd.randrange(len(m))] = rnd.randrange(256)
            before = c.u32("rep_seq")
            c.send_record(bytes(m))
            wait_until(lambda: c.u32("rep_seq") != before, 10, "an answer", interval_s=0.001)
            if c.u32("rep_len") == 0xFFFFFFFF:  # an answer with bulk frames: on the socket
                assert c.sock.poll(10000)
                c.sock.recv_multipart()
            if i % 25 == 0:
                c.mm[DATA:DATA + 4] = b"ok!!"
                assert wire.unpack(_send(c, "cuMemcpyHtoD_v2", [ptr, 4], copy=Shm([[DATA, 4]], 0)))[1] == 0
                c.mm[DATA:DATA + 4] = b"...."
                assert wire.unpack(_send(c, "cuMemcpyDtoH_v2", [ptr, 4], copy=Shm([], 4)))[1] == 0
                assert c.mm[DATA:DATA + 4] == b"ok!!"
        _goodbye(c)
        counts = _ended(handle)
        assert counts["copies_compiled"] >= 24, counts
        assert bystander.call("cudaMalloc", 4096)[0] == 0
        assert handle.alive()
    finally:
        c.close()
        bystander.close()


def _fill(url: str, start, refused, out: dict, key) -> None:
    """A session that allocates 1 GiB at a time (cudaMalloc through the ring) once `start` is set, until
    refused, then, once every session was refused (the barrier `refused`), frees it all: out[key] =
    (bytes it got, the refusal, free after the frees)."""
    c = RingClient(url)
    try:
        start.wait(30)
        got = []
        while True:
            r = c.call("cudaMalloc", 1 << 30)
            if r[1] != 0:
                break
            got.append(r[2][0])
        refused.wait(60)
        frees = [c.call("cudaFree", p)[1] for p in got]
        assert frees == [0] * len(got)
        out[key] = (len(got) << 30, r, c.call("cudaMemGetInfo")[2][0])
        _goodbye(c)
    finally:
        c.close()


def test_sessions_allocating_at_once_share_one_exact_memory_count(daemons):
    """Two sessions of one GPU (null driver: its 80 GiB are address space) each allocate 1 GiB at a time
    until refused, at once, then (both refused) free it all, with the loop serving their allocations (quota.c) and
    with it off (RGPU_FAST_ALLOC=0): together they never get more than the GPU lends, they get all of
    it between them, the refusal is Python's (with its message), and every byte comes back."""
    import threading
    totals = {}
    for fast in ("1", "0"):
        url, handle = null_server.start(daemons, env={"RGPU_FAST_ALLOC": fast})
        probe = RingClient(url)
        free, _total = probe.call("cudaMemGetInfo")[2]
        _goodbye(probe)
        probe.close()
        start, refused, out = threading.Event(), threading.Barrier(2), {}
        threads = [threading.Thread(target=_fill, args=(url, start, refused, out, k)) for k in range(2)]
        for t in threads:
            t.start()
        start.set()
        for t in threads:
            t.join(120)
        assert len(out) == 2, out
        got = out[0][0] + out[1][0]
        assert free - 2 * (1 << 30) < got <= free, (got, free, out, fast)  # all of it at once, never more
        for _n, refusal, after in out.values():
            assert refusal[1] == 2 and "memory" in refusal[4], refusal  # cudaErrorMemoryAllocation, Python's
            assert after <= free
        counts = [_ended(handle, nth) for nth in (1, 2, 3)]
        compiled = sum(k["copies_compiled"] for k in counts)
        assert (compiled >= got >> 30) if fast == "1" else compiled == 0, counts
        after = RingClient(url)
        assert after.call("cudaMemGetInfo")[2][0] == free  # every byte back
        _goodbye(after)
        after.close()
        totals[fast] = got
    assert totals["1"] == totals["0"]


def _message(c: RingClient, calls: list, name: str, args: list) -> bytes:
    """One message of async calls [(name, args)] and then the sync call `name`, through the ring: the
    reply's bytes (the sync call's)."""
    records = []
    for async_name, async_args in calls:
        c.seq += 1
        records.append((c.seq, BY_NAME[async_name], 0, list(async_args), 0))
    c.seq += 1
    records.append((c.seq, BY_NAME[name], 1, list(args), 0))
    before = c.u32("rep_seq")
    c.send_record(wire.encode_requests(records))
    wait_until(lambda: c.u32("rep_seq") != before, 10, "a reply on the ring", interval_s=0.001)
    n = c.u32("rep_len")
    start = c.off + c.lay["size"] - (64 << 10)
    return bytes(c.mm[start:start + n])


def _step(c: RingClient, calls: list) -> bytes:
    """One message of async calls [(name, args)] and then a stream synchronize: its reply's bytes."""
    return _message(c, calls, "cudaStreamSynchronize", [0])


def _steps(c: RingClient) -> tuple[list, bytes]:
    """Steps of async memsets, device-to-device copies and event records of both faces, then steps the loop leaves to
    Python whole (a copy past its allocation, a memset on a stream never made, a D2D of the host kind):
    (the replies, what the allocation held at the end, read back through the segment)."""
    from rgpu.protocol.generated.constants import SHM_DATA as DATA
    from rgpu.protocol.wire import Shm
    first = _raw(c, "cudaMalloc", 8192)
    ptr = wire.unpack(first)[2][0]
    event = wire.unpack(_raw(c, "cudaEventCreate"))[2][0]
    replies = [first]
    replies.append(_step(c, [("cudaEventRecord", [event, 0]),
                             ("cudaMemsetAsync", [ptr, 0x11, 4096, 0]),
                             ("cuEventRecordWithFlags", [event, 0, 0]),
                             ("cuMemsetD32Async", [ptr + 64, 0xCAFEF00D, 8, 0]),
                             ("cuMemsetD16Async", [ptr + 128, 0xBEEF, 4, 0]),
                             ("cudaMemcpyAsync", [ptr + 4096, ptr, 256, 3, 0]),
                             ("cuMemcpyDtoDAsync_v2", [ptr + 6000, ptr + 64, 32, 0])]))
    for i in range(20):  # the common shape, again and again: each step a memset, a copy and the wait
        replies.append(_step(c, [("cuMemsetD8Async", [ptr + 7000 + i, i, 1, 0]),
                                 ("cudaMemcpyAsync", [ptr + 7100 + i, ptr + 7000 + i, 1, 3, 0])]))
    # Python's, each whole: the first two fail at the wait with the async call's error; the third
    # copies nothing the loop would call device-to-device
    replies.append(_step(c, [("cudaMemsetAsync", [ptr, 1, 16, 0]),
                             ("cuMemcpyDtoDAsync_v2", [ptr + 8000, ptr, 4096, 0])]))
    replies.append(_step(c, [("cuMemsetD8Async", [ptr + 8100, 7, 8, 0xDEAD000])]))
    replies.append(_step(c, [("cudaMemcpyAsync", [ptr + 8150, ptr, 8, 1, 0])]))
    replies.append(_raw(c, "cudaEventQuery", event))  # recorded in a step: reached
    c.mm[DATA:DATA + 8192] = b"\xee" * 8192
    replies.append(_send(c, "cudaMemcpy", [0, ptr, 8192, 2], copy=Shm([], 8192)))
    held = bytes(c.mm[DATA:DATA + 8192])
    replies.append(_raw(c, "cudaFree", ptr))
    return replies, held


def test_steps_with_memsets_and_device_copies_are_served_by_the_loop_as_python_serves_them(daemons):
    """A message of async memsets, device-to-device copies and event records (each face) and then a wait, as programs
    make them (a buffer cleared or copied, a kernel, a synchronize): with the loop on, its step serves
    it whole; with it off (RGPU_SERVE_LOOP=0), Python does; the same replies and the same device
    memory, and the steps the loop cannot serve whole (an error to report at the wait, a stream it does
    not know, a copy of another kind) are Python's in both."""
    got = _loop_on_and_off(daemons, _steps)
    ((on, held_on), counts_on), ((off, held_off), counts_off) = got["1"], got["0"]
    assert on == off
    assert held_on == held_off
    # what the steps wrote: the memsets, the runtime's D2D copy of them and the driver's
    assert held_on[16:64] == b"\x11" * 48 and held_on[64:96] == bytes.fromhex("0df0feca") * 8
    assert held_on[128:136] == b"\xef\xbe" * 4 and held_on[136:256] == b"\x11" * 120
    assert held_on[4096:4096 + 16] == b"\x11" * 16 and held_on[4096 + 16:4096 + 256] == held_on[16:256]
    assert held_on[6000:6032] == held_on[64:96]
    assert held_on[:16] == b"\x01" * 16  # the failed step's memset ran: its copy is what failed
    assert held_on[7000:7020] == bytes(range(20)) and held_on[7100:7120] == bytes(range(20))
    assert wire.unpack(on[-3])[1] == 0  # the event recorded in the first step
    waits = [wire.unpack(r) for r in on[1:-3]]
    assert all(w[1] == 0 and w[3] == 0 for w in waits[:21]), waits[:21]
    # the async calls' errors, deferred to the wait's reply with Python's messages
    assert waits[21][3] != 0 and "outside any allocation" in waits[21][4], waits[21]
    assert waits[22][3] != 0 and "not a stream" in waits[22][4], waits[22]
    # the 21 steps were the loop's (and the allocation, the read-back and the free, each alone), their
    # memsets and copies not counted as launches; the three steps it could not serve whole Python's
    # (and the event query, a wait alone)
    assert counts_on["ring_compiled"] == 21 + 3 + 1 and counts_off["ring_compiled"] == 0, (counts_on, counts_off)
    assert counts_on["ring_to_python"] == 3 + 2, counts_on  # and the event's making, the goodbye
    assert counts_on["launches_compiled"] == 0 and counts_on["waits_compiled"] >= 21, counts_on
    assert counts_on["calls"] == counts_off["calls"], (counts_on, counts_off)


def test_steps_with_copies_from_and_to_pinned_memory_are_the_loops_and_counted(daemons):
    """A framework's step through librgpu (benchmarks/harness/bench.c pinned_step: a batch copied in
    from pinned memory, a kernel, the result copied out to pinned memory, a synchronize, the result
    read and checked by the program): the loop serves every step whole once the worker has mapped the
    segment, straight between the mapping and the device; the pinned bytes are counted as Python counts
    them, the same with the loop off (RGPU_SERVE_LOOP=0), where Python serves every step."""
    steps = 300 + 300 // 10 + 1  # and the harness's warm-up
    # the harness fails unless every step read back what it sent
    on, off = _harness_on_and_off(daemons, "RGPU_SERVE_LOOP", "pinned_step", 300)
    for counts in (on, off):
        assert counts["pinned_bytes_in"] == counts["pinned_bytes_out"] == steps * 4096, counts
        assert counts["pinned_segments"] == 1, counts
    assert on["ring_compiled"] >= steps - 1 and on["launches_compiled"] >= steps, on
    assert off["ring_compiled"] == 0, off
    # the same messages on the ring either way (the first server may be sent the module's image too:
    # the module cache is shared, so `calls` differ by that one)
    assert on["ring_calls"] == off["ring_calls"], (on, off)


def test_a_failover_sessions_item_step_is_the_loops_its_data_written_into_pinned_memory(daemons):
    """The same steps from a --failover session's client (RGPU_FAILOVER set, its checkpoints never due:
    the log kept as under a lease): its copy out to pinned memory names the memory with `sync`
    OUT_LATER, the worker to fill it before its next reply (libhook's memcpy.c), and the step's
    synchronize of that copy's stream covers it, so the loop serves the step whole as for any session,
    the data DMA'd into the program's pinned memory (counted out) instead of coming in a message."""
    steps = 300 + 300 // 10 + 1
    on, off = _harness_on_and_off(daemons, "RGPU_SERVE_LOOP", "pinned_step", 300,
                                  env={"RGPU_FAILOVER": "no-controller", "RGPU_FAILOVER_INTERVAL": "3600"})
    for counts in (on, off):
        assert counts["pinned_bytes_in"] == counts["pinned_bytes_out"] == steps * 4096, counts
    assert on["ring_compiled"] >= steps - 1 and on["launches_compiled"] >= steps, on
    assert off["ring_compiled"] == 0 and on["ring_calls"] == off["ring_calls"], (on, off)


def _placed_then(c: RingClient, places: list, name: str, args: list) -> bytes:
    """One message: allocations the client placed (rgpuMemPlace, async: [addr, size, span]), then the
    sync call `name`: its reply's bytes."""
    return _message(c, [("rgpuMemPlace", p) for p in places], name, args)


def _placements(c: RingClient) -> list:
    """Allocations placed in the range the session lends (server/api/placed.py) before calls the loop
    serves (a memset, a free of one placed in the same message, a free of an earlier one) and before
    ones it leaves to Python whole (a wait on a stream never made; a place over one already there):
    the reply codes, with what cudaMemGetInfo says at the end."""
    base = wire.unpack(_raw(c, "rgpuMemPlacement"))[2][0]
    out = [wire.unpack(_raw(c, "rgpuMemPlaceGrant", base, 4096, 4096, 1 << 20))[1:3]]
    out.append(wire.unpack(_placed_then(c, [[base + 4096, 1000, 1024]], "cudaMemset", [base + 4096, 7, 1000]))[1])
    out.append(wire.unpack(_placed_then(c, [[base + 8192, 100, 512], [base + 8704, 300, 512]], "cudaFree",
                                        [base + 8192]))[1])
    out.append(wire.unpack(_raw(c, "cudaFree", base + 8704))[1])
    out.append(wire.unpack(_placed_then(c, [[base + 16384, 100, 512]], "cudaStreamSynchronize", [0xDEAD000]))[1])
    out.append(wire.unpack(_placed_then(c, [[base + 4096, 100, 512]], "cudaMemset", [base, 1, 16]))[1:5])
    out.append(wire.unpack(_raw(c, "cudaFree", base + 16384))[1])
    out.append(wire.unpack(_raw(c, "cudaMemGetInfo"))[2][0])
    return out


def test_placed_allocations_are_placed_by_the_loop_before_its_call_exactly_once(daemons):
    """With the loop on and off (RGPU_SERVE_LOOP=0) the same replies and the same free memory at the
    end: a place the loop ran and then left its message to Python for is undone first, not placed
    twice; a place the loop refuses is Python's, whose error the call after it reports."""
    got = _loop_on_and_off(daemons, _placements)
    (on, counts_on), (off, counts_off) = got["1"], got["0"]
    assert on == off, (on, off)
    grant, memset, free_same, free_earlier, bad_wait, over, free_last, _free = on
    assert grant == [0, [1 << 20]] and memset == free_same == free_earlier == free_last == 0
    assert bad_wait != 0  # the wait's own error; the place before it stands (freed after)
    # the memset ran; the place over another's invalid value is the asynchronous error its reply reports
    assert over[0] == 0 and over[2] == 1 and "not free" in over[3], over
    # the memset and the two frees after their places were the loop's; the wait on a stream never made
    # and the place over another Python's
    assert counts_on["copies_compiled"] == 4 and counts_off["copies_compiled"] == 0, counts_on
    assert counts_on["calls"] == counts_off["calls"]
