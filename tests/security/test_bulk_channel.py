"""The bulk channel beside a CURVE wire (server/bulk.py, libhook/src/transport/bulk.c): a session
whose worker is on another host sends its large frames sealed with AEGIS-256 on a second connection,
under a key told only over CURVE. Its port admits, at ZeroMQ's handshake, only the PLAIN password the
channel's name makes (a stranger off the path is refused before a byte of theirs is queued); what
makes a frame the session's is the key: the frames of one who read the password off the path are
dropped and the session carries on; a frame from the client's own connection that does not open, or
is not the one its message named, ends that session with the reason; the program's data arrives exact."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import msgpack
import numpy as np
import pytest
import zmq

from rgpu.protocol import curve
from rgpu.protocol.generated.constants import BULK_MIN
from rgpu.protocol.generated.envelope import write_sealed
from rgpu.server import bulk, wire_keys
from rgpu.client import server_client
from tests.support.daemons import free_port, wait_until

pytestmark = pytest.mark.skipif(bulk.sodium() is None, reason="no libsodium with AEGIS-256 here (pyzmq's wheel has one)")

KEY, CHANNEL = bytes(range(32)), bytes(range(100, 116))


def _seal(key: bytes, counter: int, data: bytes, direction: int = bulk.TO_WORKER) -> tuple[bytes, bytes]:
    """A frame sealed as the client library seals one: its `sealed` record and the data with its tag."""
    ffi, lib = bulk.sodium()
    head = msgpack.packb(write_sealed((CHANNEL, direction, counter, len(data))), use_bin_type=True)
    out = ffi.new("unsigned char[]", len(data) + bulk.TAG_BYTES)
    lib.crypto_aead_aegis256_encrypt_detached(out, out + len(data), ffi.NULL, data, len(data), head, len(head),
                                              ffi.NULL, bulk.nonce(CHANNEL, direction, counter), key)
    return head, bytes(ffi.buffer(out))


@pytest.fixture
def channel():
    """(the worker's end, connect(password=the channel's)): a ZAP handler admitting what the worker's
    does (server/worker.py, Admission: the password, from any address here)."""
    ctx = zmq.Context()
    zap = curve.Zap(ctx, lambda mech, key, address: "bulk" if mech == "PLAIN" and key == bulk.password(CHANNEL) else None)
    zap.start()
    ch = bulk.BulkChannel(ctx, "tcp://127.0.0.1:*", None, KEY, CHANNEL, 1 << 26)
    socks = []

    def connect(password: bytes = bulk.password(CHANNEL), watched: bool = False):
        """A connection; `watched`: (it, its curve.Handshake), the monitor attached before it
        connects, so that no event of its first handshake comes before the monitor."""
        s = ctx.socket(zmq.DEALER)
        s.setsockopt(zmq.LINGER, 0)
        s.plain_username, s.plain_password = b"rgpu-bulk", password
        watch = curve.Handshake(s) if watched else None
        s.connect(ch.endpoint)
        socks.append(s)
        return (s, watch) if watched else s
    yield ch, connect
    for s in socks:
        s.close(0)
    ch.close()
    zap.stop()
    ctx.term()


def _said_hello(connect):
    """A client connection that sent its hello (an empty frame, count 0), as the library's does first."""
    client = connect()
    client.send_multipart(list(_seal(KEY, 0, b"")))
    return client


def test_a_stranger_without_the_password_is_refused_at_the_handshake(channel):
    ch, connect = channel
    stranger, watch = connect(b"guess", watched=True)
    try:
        stranger.send_multipart(list(_seal(KEY, 0, b"")))
        assert wait_until(lambda: watch.update().refused, 10, "the refusal")
        assert not ch.sock.poll(300) and ch.peer is None
    finally:
        watch.close()


def test_a_sealed_frame_opens_in_its_place_and_a_strangers_are_dropped(channel):
    ch, connect = channel
    client, stranger = connect(), connect()   # the stranger read the password off the path
    stranger.send_multipart([b"not", b"sealed"])                       # junk
    stranger.send_multipart(list(_seal(bytes(32), 1, b"x" * BULK_MIN)))  # sealed under another key
    client.send_multipart(list(_seal(KEY, 0, b"")))                  # the hello
    data = os.urandom(BULK_MIN + 7)
    head, sealed = _seal(KEY, 1, data)
    client.send_multipart([head, sealed])
    body = ch.open_parts([b"head", b"small", head])
    assert bytes(body[2].buffer) == data and body[1] == b"small"
    assert ch.peer is not None and ch.bytes_in == len(data) and ch.frames_in == 1
    # a stranger replaying the client's frame from its own connection reaches nothing
    stranger.send_multipart([head, sealed])
    head2, sealed2 = _seal(KEY, 2, data[::-1])
    client.send_multipart([head2, sealed2])
    assert bytes(ch.open_parts([b"head", head2])[1].buffer) == data[::-1]
    time.sleep(0.1)
    while ch.sock.poll(50):
        ch.sock.recv_multipart()
        ch.dropped += 1
    assert ch.dropped >= 3


def test_a_tampered_frame_from_the_client_ends_the_session(channel):
    """The client's own frame is opened where it is used (bulk.Sealed): into device memory by an H2D
    copy, into a buffer of its own otherwise. Tampered, either way raises BulkBroken, which ends the
    session (worker.py), and what was opened into device memory is cleared, not left there."""
    ch, connect = channel
    client = _said_hello(connect)
    data = os.urandom(BULK_MIN)
    head, sealed = _seal(KEY, 1, data)
    client.send_multipart([head, sealed])
    good = ch.open_parts([b"head", head])[1]
    device = np.full(BULK_MIN, 7, np.uint8)
    good.open_into(device)
    assert device.tobytes() == data and len(good) == BULK_MIN
    head, sealed = _seal(KEY, 2, data)
    client.send_multipart([head, sealed[:100] + bytes([sealed[100] ^ 1]) + sealed[101:]])
    bad = ch.open_parts([b"head", head])[1]
    with pytest.raises(bulk.BulkBroken, match="did not open"):
        bad.open_into(device)
    assert not device.any()
    with pytest.raises(bulk.BulkBroken, match="did not open"):
        bad.buffer


def test_an_h2d_copy_opens_the_frame_in_device_memory_and_a_bad_one_is_not_a_calls_error(channel):
    """Through the dispatcher onto a software GPU: a good sealed frame lands where the copy says; a
    tampered one is not turned into the call's CUDA_ERROR_UNKNOWN (what a handler's unexpected
    exception becomes, the session carrying on): BulkBroken goes through to the worker's loop, which
    ends the session."""
    from rgpu.protocol.generated.calltable import BY_NAME
    from rgpu.server.backends.sim.device import SimDevice
    from rgpu.server.dispatch import Dispatcher
    from rgpu.server.session import Session
    ch, connect = channel
    client = _said_hello(connect)
    data = os.urandom(BULK_MIN)
    frames = [_seal(KEY, 1, data), _seal(KEY, 2, data)]
    client.send_multipart(list(frames[0]))
    client.send_multipart([frames[1][0], frames[1][1][:-1] + bytes([frames[1][1][-1] ^ 1])])
    good, bad = ch.open_parts([b"head", frames[0][0], frames[1][0]])[1:]
    assert type(good) is bulk.Sealed and type(bad) is bulk.Sealed
    session, d = Session(SimDevice(1 << 24)), Dispatcher("sim")
    try:
        (addr,) = d.run(session, BY_NAME["cudaMalloc"], [BULK_MIN], []).outs
        assert d.run(session, BY_NAME["cuMemcpyHtoD_v2"], [addr, BULK_MIN], [good]).rc == 0
        assert bytes(d.run(session, BY_NAME["cuMemcpyDtoH_v2"], [addr, BULK_MIN], []).bulk[0]) == data
        with pytest.raises(bulk.BulkBroken, match="did not open"):
            d.run(session, BY_NAME["cuMemcpyHtoD_v2"], [addr, BULK_MIN], [bad])
    finally:
        session.close()


def test_a_frame_other_than_the_one_named_ends_the_session(channel):
    ch, connect = channel
    client = _said_hello(connect)
    client.send_multipart(list(_seal(KEY, 1, b"a" * BULK_MIN)))
    named, _ = _seal(KEY, 2, b"b" * BULK_MIN)
    with pytest.raises(bulk.BulkBroken, match="where the message named"):
        ch.open_parts([b"head", named])


def test_a_frame_that_never_comes_ends_the_session(channel, monkeypatch):
    ch, connect = channel
    monkeypatch.setattr(bulk, "WAIT_S", 0.3)
    head, _ = _seal(KEY, 1, b"z" * BULK_MIN)
    with pytest.raises(bulk.BulkBroken, match="did not come"):
        ch.open_parts([b"head", head])


def test_a_frame_a_live_client_has_not_sent_is_waited_for_while_housekeeping_keeps_the_session(channel, monkeypatch):
    """A program stopped (Ctrl-Z) between its message and its frame: no bound of the channel's own
    ends the session; the housekeeping, run every second meanwhile, does when it judges the client gone."""
    ch, connect = channel
    monkeypatch.setattr(bulk, "WAIT_S", 0.3)
    head, _ = _seal(KEY, 1, b"z" * BULK_MIN)

    class Ended(BaseException):
        pass
    calls = []

    def tick():
        calls.append(time.monotonic())
        if len(calls) == 3:
            raise Ended()
    ch.tick = tick  # as the worker sets it at attach
    with pytest.raises(Ended):
        ch.open_parts([b"head", head])
    assert calls[-1] - calls[0] >= 1.5  # a second apart, well past WAIT_S


def test_the_workers_frames_go_sealed_once_the_client_said_hello(channel):
    ch, connect = channel
    client = _said_hello(connect)
    assert ch.knows_peer()
    data = os.urandom(BULK_MIN)
    head = ch.seal(memoryview(data))
    got_head, got = client.recv_multipart()
    assert got_head == head and data not in got
    ffi, lib = bulk.sodium()
    out = ffi.new("unsigned char[]", len(data))
    assert lib.crypto_aead_aegis256_decrypt_detached(out, ffi.NULL, got, len(data), got[len(data):], head, len(head),
                                                     bulk.nonce(CHANNEL, bulk.TO_CLIENT, 1), KEY) == 0
    assert bytes(ffi.buffer(out)) == data


# ---- end to end: a program on a CURVE wire whose frames carry its copies (RGPU_SHM=0) -----------------
def _start_keyed(daemons, tmp_path, device: str = "sim", env: dict | None = None):
    """(URL@KEY, handle) of a server on `device` whose wire is CURVE, on a free loopback port."""
    keys = wire_keys.direct_keys(str(tmp_path / "server.key"))
    url = f"tcp://127.0.0.1:{free_port()}"
    keyed = f"{url}@{curve.key_hex(keys.public)}"
    argv = [sys.executable, "-m", "rgpu.server.cli", "--device", device, "--listen", url, "--log-level", "info",
            *(["--sim-memory", "512MiB"] if device == "sim" else []), "--wire", "curve",
            "--key-file", str(tmp_path / "server.key")]
    handle = daemons.start(argv, ready=lambda: server_client.ping(keyed), deadline_s=60, env={**os.environ, **(env or {})})
    return keyed, handle


@pytest.fixture
def keyed_server(daemons, tmp_path):
    return _start_keyed(daemons, tmp_path)


def _run(program, server: str, mib: int, **env) -> subprocess.Popen:
    from rgpu.paths import libdir
    env = {**os.environ, "RGPU_SERVER": server, "RGPU_SHM": "0", "LD_LIBRARY_PATH": str(libdir()), **env}
    return subprocess.Popen([str(program), str(mib)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.e2e
@pytest.mark.sim_only("the server is a software GPU whose log the test reads")
def test_copies_travel_sealed_beside_a_curve_wire_and_arrive_exact(keyed_server, cuda_program):
    server, handle = keyed_server
    prog = cuda_program("driver_copy_pieces")
    before = handle.log_size()
    p = _run(prog, server, 24)
    out, err = p.communicate(timeout=180)
    assert p.returncode == 0 and "OK driver_copy_pieces" in out, out + err
    got = handle.session_ended(before)
    assert int(got["bulk_bytes_in"]) >= 24 << 20 and int(got["bulk_bytes_out"]) >= 24 << 20, got
    assert int(got["bulk_frames_in"]) >= 3 and got["reason"] == "goodbye", got
    # RGPU_BULK=0: the same program, every byte on the CURVE wire
    before = handle.log_size()
    p = _run(prog, server, 24, RGPU_BULK="0")
    out, err = p.communicate(timeout=180)
    assert p.returncode == 0 and "OK driver_copy_pieces" in out, out + err
    got = handle.session_ended(before)
    assert "bulk_bytes_in" not in got and int(got["bytes_in"]) >= 24 << 20, got


@pytest.mark.e2e
@pytest.mark.sim_only("the server is a software GPU whose log the test reads")
def test_copies_into_pinned_memory_open_where_they_go(keyed_server, cuda_program):
    """Synchronous and asynchronous D2H copies into pinned memory (an async one's data comes ahead of a
    later reply: copy_late.c), several streams, each opened by the client straight into the program's
    memory (bulk.c, rgpu_recv_part_into): every byte right, and the copies' data on the channel."""
    server, handle = keyed_server
    before = handle.log_size()
    p = _run(cuda_program("pinned_copies"), server, 4)
    out, err = p.communicate(timeout=180)
    assert p.returncode == 0 and "OK pinned_copies" in out, out + err
    got = handle.session_ended(before)
    assert int(got["bulk_bytes_out"]) >= 8 << 20 and got["reason"] == "goodbye", got


@pytest.mark.e2e
@pytest.mark.sim_only("the server is a software GPU whose log the test reads")
def test_a_plain_wire_has_no_sealed_channel(start_server, cuda_program):
    """A plain wire's frames cost no cipher: its large ones go on the data stream, unsealed
    (tests/security/test_data_stream.py), and no sealed channel is opened."""
    url, handle = start_server()            # loopback: the plain wire by default
    before = handle.log_size()
    p = _run(cuda_program("driver_copy_pieces"), url, 8)
    out, err = p.communicate(timeout=180)
    assert p.returncode == 0, out + err
    got = handle.session_ended(before)
    assert got["bulk_kind"] == "stream" and int(got["bytes_in"]) >= 8 << 20, got
    assert "bulk_opened" not in handle.output(1 << 22)[before:]


@pytest.mark.e2e
@pytest.mark.sim_only("the server is a software GPU whose log the test reads")
def test_a_stranger_at_the_bulk_port_is_refused_and_changes_nothing(keyed_server, cuda_program):
    server, handle = keyed_server
    before = handle.log_size()
    p = _run(cuda_program("driver_copy_pieces"), server, 96)
    wait_until(lambda: "bulk_opened" in handle.output(1 << 22)[before:], 60, "the bulk channel")
    endpoint = re.search(r"bulk_opened .*endpoint=(\S+)", handle.output(1 << 22)[before:]).group(1)
    ctx = zmq.Context()
    strangers = [ctx.socket(zmq.DEALER) for _ in range(2)]
    strangers[1].plain_username, strangers[1].plain_password = b"rgpu-bulk", b"0" * 32   # a guess
    watches = [curve.Handshake(s) for s in strangers]
    try:
        for s in strangers:
            s.setsockopt(zmq.LINGER, 0)
            s.connect(endpoint)
            for i in range(10):
                s.send_multipart([msgpack.packb(write_sealed((CHANNEL, 0, i + 1, 4)), use_bin_type=True), b"junk" * 9])
                s.send_multipart([os.urandom(64)])
        assert wait_until(lambda: all(w.update().refused or w.broken for w in watches), 30, "the strangers refused")
        out, err = p.communicate(timeout=180)
    finally:
        for w, s in zip(watches, strangers):
            w.close()
            s.close(0)
        ctx.term()
    assert p.returncode == 0 and "OK driver_copy_pieces 96 MiB" in out, out + err
    got = handle.session_ended(before)
    assert got["reason"] == "goodbye" and int(got["bulk_bytes_in"]) >= 96 << 20, got
    assert int(got["bulk_dropped"]) == 0, got   # nothing of theirs reached the channel


# A worker whose sealed frames do not open (here: sealed under the wrong nonce, as if changed on the
# path): the client library must end the call with a clear error within seconds, not hand the program
# wrong data or hang. The worker runs the project's code; sitecustomize changes its nonce for frames to
# the client in every process of that server (the zygote is a fresh interpreter, not a fork).
TAMPER = '''
import rgpu.server.bulk as b
_nonce = b.nonce
b.nonce = lambda channel, direction, counter: _nonce(channel, direction, counter + (direction == b.TO_CLIENT))
'''


def _changed_server(daemons, tmp_path, site: str):
    """A keyed sim server every process of which runs `site` first (sitecustomize)."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(site)
    return _start_keyed(daemons, tmp_path, env={
        "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), os.environ.get("PYTHONPATH", "")])})


@pytest.mark.e2e
@pytest.mark.sim_only("the server is a software GPU")
def test_a_frame_that_does_not_open_at_the_client_fails_the_program_clearly(daemons, tmp_path, cuda_program):
    keyed, handle = _changed_server(daemons, tmp_path, TAMPER)
    before = handle.log_size()
    started = time.monotonic()
    p = _run(cuda_program("driver_copy_pieces"), keyed, 8)
    out, err = p.communicate(timeout=120)
    assert p.returncode != 0 and "OK driver_copy_pieces" not in out, out + err
    assert "bulk channel failed" in err and "did not open" in err, err
    assert time.monotonic() - started < 60
    got = handle.session_ended(before)   # the server ends the session whose client left
    assert int(got["bulk_bytes_out"]) > 0, got


@pytest.mark.e2e
def test_the_cuda_backend_takes_its_copies_from_the_bulk_channel(daemons, tmp_path, cuda_program):
    """The channel is the transport's, whatever serves the calls: the cuda backend on the null driver
    (benchmarks/native/nulldriver.c), its copies exact and their data counted on the channel."""
    from benchmarks.native import run as native
    keyed, handle = _start_keyed(daemons, tmp_path, "cuda", {"RGPU_LIBCUDA": str(native.null_driver())})
    before = handle.log_size()
    p = _run(cuda_program("driver_copy_pieces"), keyed, 16)
    out, err = p.communicate(timeout=180)
    assert p.returncode == 0 and "OK driver_copy_pieces" in out, out + err
    got = handle.session_ended(before)
    assert int(got["bulk_bytes_in"]) >= 16 << 20 and int(got["bulk_bytes_out"]) >= 16 << 20, got


@pytest.mark.e2e
def test_the_socket_door_serves_a_curve_sessions_small_frames_and_hands_its_sealed_ones_to_python(
        daemons, tmp_path, cuda_program):
    """On the cuda backend the compiled loop's door takes a step's data frames itself
    (server/native/sock_serve.c): a CURVE session's frames below BULK_MIN stay on the wire as data,
    which it copies; its large ones are `sealed` records whose data comes on the bulk channel, which it
    must leave to Python (bulk.py opens them where they go). The harness's pinned_step (a 4 KiB batch
    in the step's message) is served by the door; driver_copy_pieces's copies, sealed, arrive exact."""
    import json

    from benchmarks.native import run as native
    from benchmarks.transport import build_harness
    from rgpu.paths import libdir
    keyed, handle = _start_keyed(daemons, tmp_path, "cuda", {"RGPU_LIBCUDA": str(native.null_driver())})
    before = handle.log_size()
    env = {**os.environ, "RGPU_SERVER": keyed, "RGPU_SHM": "0", "LD_LIBRARY_PATH": str(libdir())}
    p = subprocess.run([str(build_harness()), "rgpu", "pinned_step", "300"], env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0 and "us" in json.loads(p.stdout.strip().splitlines()[-1]), p.stderr[-2000:]
    got = handle.session_ended(before)
    assert int(got["frame_bytes_compiled"]) >= 300 * 4096 and int(got["socket_to_python"]) <= 10, got
    assert got["bulk_frames_in"] == "0", got  # (4 KiB frames: not the channel's)
    before = handle.log_size()
    p = _run(cuda_program("driver_copy_pieces"), keyed, 16)
    out, err = p.communicate(timeout=180)
    assert p.returncode == 0 and "OK driver_copy_pieces" in out, out + err
    got = handle.session_ended(before)
    # (a piece sent before the channel's handshake ended goes on the wire as data, the door's to copy)
    assert int(got["bulk_bytes_in"]) >= 16 << 20 and int(got["socket_pieces"]) < int(got["pieces_in"]) // 2, got


@pytest.mark.e2e
@pytest.mark.sim_only("the server is a software GPU whose log the test reads")
def test_a_channel_the_client_cannot_open_leaves_the_copies_on_the_curve_wire(daemons, tmp_path, cuda_program):
    """As behind a firewall that drops the second port: here the worker's handshake refuses the
    client's password (it expects another). The client uses the channel only once its handshake
    succeeded, so its frames stay on the session socket; the worker, without the client's hello,
    sends its own there too. The program runs as without a channel."""
    keyed, handle = _changed_server(daemons, tmp_path, "import rgpu.server.bulk as b\nb.password = lambda channel: b'0' * 32\n")
    before = handle.log_size()
    p = _run(cuda_program("driver_copy_pieces"), keyed, 16)
    out, err = p.communicate(timeout=180)
    assert p.returncode == 0 and "OK driver_copy_pieces" in out, out + err
    got = handle.session_ended(before)
    assert got["bulk_bytes_in"] == "0" and got["bulk_bytes_out"] == "0" and int(got["bytes_in"]) >= 16 << 20, got


@pytest.mark.e2e
@pytest.mark.sim_only("the server is a software GPU whose log the test reads")
@pytest.mark.parametrize("way, mib, calls", [("uploads", 64, 120), ("copies", 256, 30)])
def test_a_program_stopped_in_the_middle_of_sealed_copies_keeps_its_session_and_channel(
        keyed_server, cuda_program, way, mib, calls):
    """Ctrl-Z while 64 MiB copies go on the bulk channel, for longer than the channel's own bound (WAIT_S):
    the program's host answers for it, so the worker keeps the session, waits for the rest of its frames
    (uploads) or for it to take its own (copies: 256 MiB a call, 32 frames, more than the channel queues)
    while the session's housekeeping judges the host, and the copies go on, on the channel, when the
    program is continued: every byte arrives."""
    import signal
    from rgpu.paths import libdir
    server, handle = keyed_server
    before = handle.log_size()
    env = {**os.environ, "RGPU_SERVER": server, "RGPU_SHM": "0", "LD_LIBRARY_PATH": str(libdir())}
    proc = subprocess.Popen([str(cuda_program("hold_memory")), str(mib), way, str(calls)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout.readline().startswith("READY")
        time.sleep(1.0)  # copies under way
        os.killpg(proc.pid, signal.SIGSTOP)
        assert proc.poll() is None  # stopped with copies still to do
        time.sleep(bulk.WAIT_S + 2)
        os.killpg(proc.pid, signal.SIGCONT)
        out, err = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGCONT)
            proc.kill()
            proc.wait(30)
    assert proc.returncode == 0 and f"OK hold_memory {calls}" in out, out + err
    got = handle.session_ended(before)
    moved = int(got["bulk_bytes_in"] if way == "uploads" else got["bulk_bytes_out"])
    assert got["reason"] == "goodbye" and "bulk_send_failed" not in got and moved >= (calls - 2) * (mib << 20), got
