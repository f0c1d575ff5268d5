"""The data stream beside a plain wire (server/data_stream.py, libhook/src/transport/data_stream.c): a
session whose worker is on another host (here: RGPU_SHM=0 over loopback) sends its large frames as raw
bytes on a TCP connection of its own, each named in its message by a `sealed` record. The stream is the
session's by the name the client told the worker in its attach: a connection that does not say it is
closed unread. Data that comes out of its order or short ends that session with a reason, data that
does not come is waited for while the session's housekeeping keeps it (a stopped program);
the worker streams only what the client is waiting for; the program's data arrives exact either way."""
from __future__ import annotations

import os
import re
import socket
import subprocess
import threading
import time

import msgpack
import pytest
import zmq

from rgpu.protocol.generated.constants import BULK_MIN, LATE_OUT, STREAM_MIN
from rgpu.protocol.generated.envelope import write_sealed
from rgpu.server import bulk, data_stream

CHANNEL = bytes(range(100, 116))


def _record(counter: int, n: int, direction: int = data_stream.TO_WORKER) -> bytes:
    return msgpack.packb(write_sealed((CHANNEL, direction, counter, n)), use_bin_type=True)


@pytest.fixture
def stream():
    ds = data_stream.DataStream("tcp://127.0.0.1:*", None, CHANNEL, 1 << 26)
    conns = []

    def connect(name: bytes = CHANNEL) -> socket.socket:
        c = socket.create_connection(("127.0.0.1", ds.port), timeout=10)
        c.sendall(name)
        conns.append(c)
        return c
    yield ds, connect
    for c in conns:
        c.close()
    ds.close()


def test_a_strangers_connection_is_closed_and_the_clients_data_takes_its_records_places(stream):
    ds, connect = stream
    stranger = connect(b"x" * 16)
    stranger.sendall(os.urandom(4096))
    client = connect()
    one, two = os.urandom(BULK_MIN), os.urandom(BULK_MIN + 3)
    writer = threading.Thread(target=client.sendall, args=(one + two,))
    writer.start()
    body = [b"head", _record(1, len(one)), b"small", _record(2, len(two))]
    got = ds.open_parts(body)
    writer.join()
    assert got[0] == b"head" and got[2] == b"small"
    assert bytes(got[1].buffer) == one and bytes(got[3].buffer) == two
    assert ds.dropped == 1 and ds.frames_in == 2 and ds.bytes_in == len(one) + len(two)
    with pytest.raises(ConnectionRefusedError):  # the session's connection is here: no other is taken
        socket.create_connection(("127.0.0.1", ds.port), timeout=10)
    try:  # closed, nothing more of it read as the session's (an RST: it had sent more than the name)
        assert stranger.recv(1) == b""
    except ConnectionResetError:
        pass
    assert ds.open_parts([b"head", b"no record"]) == [b"head", b"no record"]


def test_a_frame_is_read_where_it_goes_those_ahead_of_it_into_buffers_and_the_rest_at_the_messages_end(stream):
    """An H2D copy's frame is read straight into device memory (open_into); a frame ahead of it in the
    stream that no call took yet goes into a buffer of its own first; what the message's calls leave
    unread is read once it is served (settle), so the next message's data is where it should be."""
    import numpy as np
    ds, connect = stream
    client = connect()
    a, b, c, d = (os.urandom(n) for n in (3000, 5000, 700, 900))
    client.sendall(a + b + c + d)
    first = ds.open_parts([b"head", _record(1, len(a)), _record(2, len(b)), _record(3, len(c))])
    out = np.zeros(len(b), np.uint8)
    first[2].open_into(out)
    assert out.tobytes() == b and first[1].bytes == a  # a: read ahead of b, into its own buffer
    with pytest.raises(bulk.BulkBroken, match="once already"):
        first[2].open_into(out)  # its data went where it was used: it is not kept twice
    ds.settle()  # c: no call took it
    assert first[3].bytes == c and ds.frames_in == 3
    second = ds.open_parts([b"head", _record(4, len(d))])
    assert second[1].bytes == d and ds.bytes_in == len(a + b + c + d)


def test_a_frame_named_out_of_its_order_ends_the_session(stream):
    ds, connect = stream
    connect()
    with pytest.raises(bulk.BulkBroken, match="frame 2 where 1"):
        ds.open_parts([b"head", _record(2, 10)])


def test_a_frame_larger_than_the_worker_takes_ends_the_session(stream):
    ds, connect = stream
    connect()
    with pytest.raises(bulk.BulkBroken, match="larger than"):
        ds.open_parts([b"head", _record(1, (1 << 26) + 1)])


def test_data_cut_short_ends_the_session_and_what_follows_is_refused(stream):
    ds, connect = stream
    client = connect()
    client.sendall(b"y" * 500)
    client.close()
    ds.open_parts([b"head", _record(1, 1000)])
    with pytest.raises(bulk.BulkBroken, match="500 of a frame's 1000"):
        ds.settle()  # the served message's data, which its calls left unread
    with pytest.raises(bulk.BulkBroken):
        ds.open_parts([b"head", _record(2, 10)])


class _Ended(BaseException):
    """What the session's housekeeping raises to end it (as worker.SessionEnding)."""


def _housekeeping_ending_after(n: int):
    """A housekeeping tick that ends the session at its n-th call, and the times it was called."""
    calls = []

    def tick():
        calls.append(time.monotonic())
        if len(calls) >= n:
            raise _Ended("client_gone")
    return tick, calls


def test_data_that_never_comes_from_a_live_client_is_waited_for_while_housekeeping_keeps_the_session(stream):
    """A program stopped (Ctrl-Z) mid-copy writes nothing for as long as its user likes; its host's
    kernel answers for it. No deadline of the stream's own ends the session: the housekeeping, run
    every second meanwhile, does when it judges the client gone (here at its 4th call)."""
    ds, connect = stream
    client = connect()
    client.sendall(b"x" * 300)  # part of the frame, then nothing
    tick, calls = _housekeeping_ending_after(4)
    ds.tick = tick  # as the worker sets it at attach
    got = ds.open_parts([b"head", _record(1, 1000)])
    with pytest.raises(_Ended):
        got[1].buffer
    assert len(calls) == 4 and calls[-1] - calls[0] >= 2.5  # one TICK_S apart, the frame still awaited
    assert ds.broken is None  # the stream itself was not judged broken: the session's end is housekeeping's


def test_a_live_client_that_takes_none_of_the_workers_frames_is_waited_for_with_housekeeping(stream):
    """The worker streams more than the kernels' buffers hold to a client that reads none of it (a
    program stopped while a copy comes to it): its host acknowledges each probe of the closed window,
    so the worker keeps writing, running its housekeeping every second, until that ends the session."""
    ds, connect = stream
    client = connect()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 16)
    ds.knows_peer()
    tick, calls = _housekeeping_ending_after(3)
    ds.tick = tick
    with pytest.raises(_Ended):
        ds.write([memoryview(bytearray(64 << 20))])
    assert len(calls) == 3 and ds.send_failed is None and ds.frames_out == 0
    # a connection that fails while the worker writes ends the stream with the reason
    client.close()
    ds.tick = None
    ds.write([memoryview(bytearray(64 << 20))])
    assert ds.send_failed and "stopped taking" in ds.send_failed and ds.conn is None


def test_no_connection_that_says_the_name_ends_the_session(stream, monkeypatch):
    monkeypatch.setattr(data_stream, "WAIT_S", 1.5)
    ds, connect = stream
    connect(b"z" * 16)
    with pytest.raises(bulk.BulkBroken, match="did not connect"):
        ds.open_parts([b"head", _record(1, 10)])
    assert ds.dropped == 1


def test_the_workers_frames_stream_after_their_message_but_a_late_copy_stays_on_the_socket(stream):
    ds, connect = stream
    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER, socket_class=bulk.SealingSocket)
    dealer = ctx.socket(zmq.DEALER)
    try:
        router.setsockopt(zmq.LINGER, 0)
        dealer.setsockopt(zmq.LINGER, 0)
        dealer.setsockopt(zmq.ROUTING_ID, b"client")
        port = router.bind_to_random_port("tcp://127.0.0.1")
        dealer.connect(f"tcp://127.0.0.1:{port}")
        dealer.send(b"hi")
        ident, _ = router.recv_multipart()
        router.bulk, router.bulk_for = ds, ident
        client = connect()
        data = os.urandom(STREAM_MIN + 5)
        reply = msgpack.packb([7, 0, [], 0, "", ""])
        router.send_multipart([ident, reply, b"small", data])
        head, small, rec = dealer.recv_multipart()
        assert head == reply and small == b"small" and rec == _record(1, len(data), data_stream.TO_CLIENT)
        got = b""
        client.settimeout(10)
        while len(got) < len(data):
            got += client.recv(len(data) - len(got))
        assert got == data and ds.frames_out == 1
        # a LATE_OUT copy's data: the client reads it at its next wait, maybe while writing the stream
        late = msgpack.packb([7, LATE_OUT, [], 0, "", ""])
        router.send_multipart([ident, late, data])
        assert dealer.recv_multipart() == [late, data] and ds.frames_out == 1
        # a frame below STREAM_MIN stays on the socket too (constants.toml says why)
        router.send_multipart([ident, reply, data[:STREAM_MIN - 1]])
        assert dealer.recv_multipart() == [reply, data[:STREAM_MIN - 1]] and ds.frames_out == 1
    finally:
        dealer.close(0)
        router.close(0)
        ctx.term()


# ---- end to end: a program whose frames carry its copies (RGPU_SHM=0) over a plain wire -----------------
def _run(program, server: str, *args: str, **env) -> subprocess.Popen:
    from rgpu.paths import libdir
    env = {**os.environ, "RGPU_SERVER": server, "RGPU_SHM": "0", "LD_LIBRARY_PATH": str(libdir()), **env}
    return subprocess.Popen([str(program), *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


@pytest.mark.e2e
@pytest.mark.sim_only("the server is a software GPU whose log the test reads")
def test_copies_travel_on_the_data_stream_and_arrive_exact(start_server, cuda_program):
    url, handle = start_server()  # loopback: the plain wire by default
    prog = cuda_program("driver_copy_pieces")
    before = handle.log_size()
    p = _run(prog, url, "24")
    out, err = p.communicate(timeout=180)
    assert p.returncode == 0 and "OK driver_copy_pieces 24 MiB" in out, out + err
    got = handle.session_ended(before)
    assert got["bulk_kind"] == "stream" and got["reason"] == "goodbye", got
    assert int(got["bulk_bytes_in"]) >= 24 << 20 and int(got["bulk_bytes_out"]) >= 24 << 20, got
    assert int(got["bulk_frames_in"]) >= 6, got  # its pieces, each a frame of its own
    # RGPU_DATA_STREAM=0: the same program, every byte on the session socket
    before = handle.log_size()
    p = _run(prog, url, "24", RGPU_DATA_STREAM="0")
    out, err = p.communicate(timeout=180)
    assert p.returncode == 0 and "OK driver_copy_pieces 24 MiB" in out, out + err
    got = handle.session_ended(before)
    assert "bulk_bytes_in" not in got and int(got["bytes_in"]) >= 24 << 20, got


@pytest.mark.e2e
@pytest.mark.sim_only("the server is a software GPU whose log the test reads")
def test_copies_into_pinned_memory_come_on_the_stream_and_late_ones_on_the_socket(start_server, cuda_program):
    """pinned_copies: sync and async D2H copies into pinned memory on several streams. A sync copy's data
    comes on the stream, an async one's (LATE_OUT, taken at a later wait) on the session socket: every
    byte right either way."""
    url, handle = start_server()
    before = handle.log_size()
    p = _run(cuda_program("pinned_copies"), url, "4")
    out, err = p.communicate(timeout=180)
    assert p.returncode == 0 and "OK pinned_copies" in out, out + err
    got = handle.session_ended(before)
    assert got["bulk_kind"] == "stream" and int(got["bulk_bytes_out"]) >= 4 << 20, got
    assert int(got["bytes_out"]) > int(got["bulk_bytes_out"]), got  # the late copies', on the socket


@pytest.mark.e2e
def test_the_cuda_backend_takes_its_copies_from_the_data_stream(start_server, cuda_program):
    """The stream is the transport's, whatever serves the calls: the cuda backend on the null driver
    (benchmarks/native/nulldriver.c), its copies exact and their data counted on the stream, the D2H
    pieces' data sent from its page-locked out stage."""
    from benchmarks.native import run as native
    url, handle = start_server("--device", "cuda", env={"RGPU_LIBCUDA": str(native.null_driver())})
    before = handle.log_size()
    p = _run(cuda_program("driver_copy_pieces"), url, "16")
    out, err = p.communicate(timeout=180)
    assert p.returncode == 0 and "OK driver_copy_pieces 16 MiB" in out, out + err
    got = handle.session_ended(before)
    assert got["bulk_kind"] == "stream", got
    assert int(got["bulk_bytes_in"]) >= 16 << 20 and int(got["bulk_bytes_out"]) >= 16 << 20, got
    # its D2H pieces came from the device into the page-locked out stage (server/backends/cuda/host_stage.py)
    assert int(got["staged_out"]) >= 8 and got["stage_out_pinned"] == "1", got


@pytest.mark.e2e
@pytest.mark.sim_only("the server is a software GPU whose log the test reads")
def test_strangers_at_the_stream_port_change_nothing(start_server, cuda_program):
    url, handle = start_server()
    before = handle.log_size()
    p = _run(cuda_program("driver_copy_pieces"), url, "96")
    from tests.support.daemons import wait_until
    wait_until(lambda: "data_stream_opened" in handle.output(1 << 22)[before:], 60, "the data stream")
    port = int(re.search(r"data_stream_opened .*endpoint=tcp://\*:(\d+)", handle.output(1 << 22)[before:]).group(1))
    strangers = []
    try:
        for name in (b"x" * 16, CHANNEL, b""):  # a guess, another name, nothing at all
            try:  # refused once the session's own connection was taken (the worker stops listening)
                s = socket.create_connection(("127.0.0.1", port), timeout=10)
            except ConnectionRefusedError:
                continue
            strangers.append(s)
            try:
                s.sendall(name + _record(1, 64) + os.urandom(64))
            except OSError:
                pass  # closed by the worker already
        out, err = p.communicate(timeout=180)
    finally:
        for s in strangers:
            s.close()
    assert p.returncode == 0 and "OK driver_copy_pieces 96 MiB" in out, out + err
    got = handle.session_ended(before)
    assert got["reason"] == "goodbye" and int(got["bulk_bytes_in"]) >= 96 << 20, got


# A worker whose stream stops partway through a frame (the connection closed after half of it): the
# program must end with a clear error within seconds, not take wrong data or hang; the server frees
# the session. sitecustomize changes the worker's DataStream.write in every process of that server.
CUT = '''
import rgpu.server.data_stream as d
def write(self, datas):
    data = datas[0]
    self.conn.sendall(data[:len(data) // 2])
    self.conn.close()
    self.conn = None
    self.broken = "cut by the test"
d.DataStream.write = write
'''


@pytest.mark.e2e
@pytest.mark.sim_only("the server is a software GPU")
def test_a_stream_cut_partway_fails_the_program_clearly(start_server, cuda_program, tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(CUT)
    url, handle = start_server(env={"PYTHONPATH": os.pathsep.join([str(tmp_path / "site"),
                                                                  os.environ.get("PYTHONPATH", "")])})
    before = handle.log_size()
    started = time.monotonic()
    p = _run(cuda_program("driver_copy_pieces"), url, "8")
    out, err = p.communicate(timeout=120)
    assert p.returncode != 0 and "OK driver_copy_pieces" not in out, out + err
    assert "data stream failed" in err and "connection lost" in err, err
    assert time.monotonic() - started < 60
    got = handle.session_ended(before)  # the server ends the session whose client left
    assert got["bulk_kind"] == "stream", got
