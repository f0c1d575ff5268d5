"""The same-host call ring (libhook/src/transport/ring.h, server/ring.py) lives in the client's own
segment, so the client can write anything there, at any time. A record longer than its slot ends that
session with a clear error (and nothing past the slot is read); garbage of a valid length is a
malformed message, answered as on the socket; a header scribbled over, a client killed with a call in
the ring: the worker and every other session carry on. And the client never hangs on a worker that
died with its call in the ring."""
from __future__ import annotations

import ctypes
import os
import signal
import struct
import subprocess
import sys
import time

import pytest

from rgpu.paths import client_env
from rgpu.protocol import wire
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.protocol.generated.constants import SHM_DATA
from rgpu.server import ring as ring_mod
from tests.support import procs, ring_records, segments
from tests.support.daemons import wait_until
from tests.support.session import Session

pytestmark = pytest.mark.e2e

DATA_BYTES = 1 << 20
_libc = ctypes.CDLL(None, use_errno=True)
SYS_FUTEX = {"x86_64": 202, "aarch64": 98}.get(os.uname().machine, 202)


class RingClient:
    """A client at the protocol level with a genuine segment and call ring, as the client library
    offers them (shm.c, ring.c), that can also write into the ring what a broken client would."""

    def __init__(self, url: str):
        self.lay = ring_mod.layout()
        self.off = SHM_DATA + DATA_BYTES
        self.mm, self.sock = segments.attached_session(url, self.off + self.lay["size"], ring=self.off)
        self.addr = ctypes.addressof(ctypes.c_char.from_buffer(self.mm))
        assert self.u32("magic") == ring_records.MAGIC, "the worker serves the ring"
        self.seq = 1

    def u32(self, field: str) -> int:
        return struct.unpack_from("<I", self.mm, self.off + self.lay[field])[0]

    def put(self, field: str, value: int, fmt: str = "<I") -> None:
        struct.pack_into(fmt, self.mm, self.off + self.lay[field], value)

    def ring_doorbell(self) -> None:
        self.put("doorbell", (self.u32("doorbell") + 1) & 0xFFFFFFFF)
        _libc.syscall(SYS_FUTEX, ctypes.c_void_p(self.addr + self.off + self.lay["doorbell"]), 1, 1, None, None, 0)

    def send_record(self, record: bytes, length: int | None = None, async_: bool = False,
                    frames: bool = False) -> None:
        ring_records.append(self.mm, self.off, self.lay, record, length=length, async_=async_, frames=frames)
        self.ring_doorbell()

    def reply(self, before: int, timeout_s: float = 10.0) -> list:
        wait_until(lambda: self.u32("rep_seq") != before, timeout_s, "a reply on the ring", interval_s=0.002)
        n = self.u32("rep_len")
        start = self.off + self.lay["size"] - (64 << 10)
        return wire.unpack(self.mm[start:start + n])

    def call(self, name: str, *args) -> list:
        self.seq += 1
        before = self.u32("rep_seq")
        self.send_record(wire.encode_requests([(self.seq, BY_NAME[name], 1, list(args), 0)]))
        return self.reply(before)

    def close(self) -> None:
        self.sock.close(0)
        self.mm.close()


def _bystander_works(url: str) -> None:
    s = Session(url)
    try:
        rc, outs, _, msg = s.call("cudaMalloc", 4096)
        assert rc == 0, msg
        assert s.call("cudaFree", outs[0])[0] == 0
    finally:
        s.close()


def test_calls_travel_through_the_ring(start_server):
    """The ring carries a call and its reply (a client that only writes the ring, no socket message)."""
    url, handle = start_server()
    c = RingClient(url)
    try:
        seq, rc, outs, *_ = c.call("cudaMalloc", 4096)
        assert (seq, rc) == (c.seq, 0) and outs[0] != 0
        assert c.call("cudaFree", outs[0])[1] == 0
    finally:
        c.close()


@pytest.mark.parametrize("broken", ["oversized", "frame table"])
def test_an_oversized_record_ends_that_session_only(start_server, broken):
    """A record longer than its slot, or one whose data frames' table names bytes past the record (the
    compiled loop reads the table: server/native/ring.c rgpu_ring_frames): that session ends, told why."""
    url, handle = start_server()
    bystander = Session(url)
    c = RingClient(url)
    try:
        if broken == "oversized":
            c.send_record(b"\x91", length=0xFFFFFFF0)  # a length past the slot (and past the segment)
        else:
            call = wire.encode_requests([(2, BY_NAME["cudaMalloc"], 1, [4096], 1)])
            c.send_record(ring_records.with_frames(call, [b"x" * 64], lengths=[1 << 30]), frames=True)
        assert c.sock.poll(10000), "the client hears why its session ended"
        notice = wire.unpack(c.sock.recv_multipart()[0])
        assert notice[0] == 0 and notice[1] == wire.SESSION_ENDED
        assert "wrote over the ring" in notice[4]
        assert ("frame table" in notice[4]) == (broken == "frame table"), notice[4]
        wait_until(lambda: "reason=ring_broken" in handle.output(100000), 10, "the session's end logged")
        assert bystander.call("cudaMalloc", 4096)[0] == 0  # an open session carries on
        _bystander_works(url)  # and a new one opens
        assert handle.alive()
    finally:
        c.close()
        bystander.close()


def test_garbage_of_a_valid_length_is_a_malformed_message(start_server):
    """Torn or random bytes in the slot (a fuzz of 300 records, seeded, and a real call cut short):
    each refused as malformed (the socket's answer), and the session serves the next call."""
    import random
    url, _ = start_server()
    c = RingClient(url)
    rnd = random.Random(38)
    call = wire.encode_requests([(99, BY_NAME["cudaMalloc"], 1, [4096], 0)])
    junk = [b"\x93\x01", b"\xc1" * 7, b"", call[:len(call) // 2], call[:-1]]
    junk += [rnd.randbytes(rnd.choice((1, 2, 9, 64, 700, 4096, 65536))) for _ in range(300)]
    try:
        for j in junk:
            before = c.u32("rep_seq")
            c.send_record(j)
            reply = c.reply(before)
            assert reply[1] != 0, j[:40]
        assert c.call("cudaMalloc", 4096)[1] == 0
    finally:
        c.close()


def test_a_scribbled_header_and_a_killed_client_leave_the_worker_and_others_serving(start_server):
    url, handle = start_server()
    bystander = Session(url)
    c = RingClient(url)
    try:
        # the whole header page overwritten with noise, the doorbell rung: whatever the worker makes
        # of it (a broken ring, a socket message it waits for), nobody else notices
        c.mm[c.off:c.off + 4096] = os.urandom(4096)
        c.ring_doorbell()
        assert bystander.call("cudaMalloc", 4096)[0] == 0
        _bystander_works(url)
    finally:
        c.close()
    # a client killed with a call in its ring and nothing read back
    code = ("import sys; sys.path[:0] = %r\n"
            "from tests.security.test_call_ring import RingClient\n"
            "import os, signal\n"
            "from rgpu.protocol import wire\nfrom rgpu.protocol.generated.calltable import BY_NAME\n"
            "c = RingClient(%r)\n"
            "c.send_record(wire.encode_requests([(2, BY_NAME['cudaDeviceSynchronize'], 1, [], 0)]))\n"
            "os.kill(os.getpid(), signal.SIGKILL)\n") % (sys.path, url)
    p = subprocess.run([sys.executable, "-c", code], timeout=60)
    assert p.returncode == -signal.SIGKILL
    wait_until(lambda: "reason=client_gone" in handle.output(100000), 30, "the killed client's session ended")
    assert bystander.call("cudaMalloc", 4096)[0] == 0
    _bystander_works(url)
    assert handle.alive()
    bystander.close()


def _mapping(pid: int, needle: str) -> bool:
    try:
        with open(f"/proc/{pid}/maps") as f:
            return needle in f.read()
    except OSError:
        return False


def test_a_worker_dead_mid_call_fails_the_call_not_the_program(start_server):
    """The client library waiting on the ring for a reply notices its worker died (the connection's
    end), well within RGPU_TIMEOUT, and reports the device unavailable."""
    from benchmarks.transport import build_harness
    url, handle = start_server()
    env = {**client_env([url], preload=False), "RGPU_SHM": "1", "RGPU_TIMEOUT": "120"}
    prog = subprocess.Popen([str(build_harness()), "rgpu", "ssync", "100000000"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # the program's worker: the server's process that maps the program's session segment
        needle = f"/rgpu-{prog.pid}-"
        workers = wait_until(lambda: [p for p in procs.descendants(handle.pid) if _mapping(p, needle)], 30,
                             "the session's worker")
        time.sleep(0.5)  # calls in flight through the ring
        for w in workers:
            os.kill(w, signal.SIGKILL)
        out, err = prog.communicate(timeout=60)  # far below RGPU_TIMEOUT: the connection's end, not the timeout
        assert prog.returncode != 0
        assert "unavailable" in err or "->" in err, err
    finally:
        if prog.poll() is None:
            prog.kill()
            prog.wait()
