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
    # the waits were the loop's; the event's making and recording, the allocation, the bad wait, the
    # free and the goodbye Python's
    assert counts["ring_compiled"] == waits, counts
    assert counts["ring_to_python"] == 6, counts
    assert counts["ring_calls"] == waits + 6 and counts["waits_compiled"] == waits, counts
    assert counts["calls"] >= waits + 5, counts  # every call counted, wherever it was served


def test_the_loop_answers_as_python_does(daemons):
    """The same session with the loop off (RGPU_SERVE_LOOP=0): the same reply bytes, every message
    Python's."""
    got = {}
    for loop in ("1", "0"):
        url, handle = null_server.start(daemons, env={"RGPU_SERVE_LOOP": loop})
        c = RingClient(url)
        try:
            replies = _session(c, 3)
            _goodbye(c)
        finally:
            c.close()
        got[loop] = replies, _ended(handle)
    (on, counts_on), (off, counts_off) = got["1"], got["0"]
    waits = 3 * PER_ROUND
    assert on[:waits] == off[:waits]
    assert [wire.unpack(r)[1] for r in on[waits:]] == [wire.unpack(r)[1] for r in off[waits:]]
    assert counts_on["ring_compiled"] == waits and counts_off["ring_compiled"] == 0
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


def _harness(url: str, mode: str, n: int) -> dict:
    import json
    import subprocess

    from benchmarks.transport import build_harness
    from rgpu.paths import client_env
    env = {**client_env([url], preload=False), "RGPU_SHM": "1"}
    p = subprocess.run([str(build_harness()), "rgpu", mode, str(n)], env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


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


def test_two_sessions_stepping_at_once_share_the_gpu_through_the_scheduler(daemons):
    """Two programs on one GPU doing launch + synchronize at once: each loop takes the GPU only while the
    other does not want it and leaves the rest to Python's scheduler (sched.c beside sched.py, one
    lock), so both finish, every launch and every wait counted once, wherever it was served."""
    from concurrent.futures import ThreadPoolExecutor
    url, handle = null_server.start(daemons, env={"RGPU_NULL_KERNEL_US": "20"})
    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda _: _harness(url, "launch_sync", 1000), range(2)))
    assert all(r["n"] == 1000 for r in runs), runs
    for nth in (1, 2):
        counts = _ended(handle, nth)
        assert counts["calls"] >= 2000, counts  # the launches and the waits, each counted
        assert counts["ring_compiled"] + counts["ring_to_python"] == counts["ring_calls"], counts
