"""The compiled serving loop's door on the session's socket (server/native/sock_serve.c,
server/sock_loop.py): how a client on another host, with no session segment and no call ring, is
served.

In this process: the door on a CURVE ROUTER of this test's own, with a ZAP handler naming each
connection, hands over what it does not serve with the identity, the first part and the connection's
properties a received frame has (the worker's checks of a migration's source read its User-Id), and
leaves a message's other parts on the socket, in order. Against a cuda-backend server on the null
driver: the waits, allocations and frees a client without a segment sends are served without
Python, with the reply bytes and the counts Python gives (RGPU_SERVE_SOCKET=0 for the comparison);
steps of launches and a wait are the door's, and a kernel that outlasts its poll Python's; a
stranger, junk and a client's malformed heads are refused by Python while the door serves, and
everyone else carries on."""
from __future__ import annotations

import random
import re
import types

import pytest
import zmq

from rgpu.protocol import curve, wire
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.protocol.generated.constants import HEAD_DELTA_MIN
from rgpu.server import sock_loop
from rgpu.server.ring import HANDED, IDLE
from tests.component.server.test_serve_loop import _ended, _harness
from tests.support import null_server
from tests.support.session import Session, exchange

pytestmark = pytest.mark.e2e

needs_door = pytest.mark.skipif(bool(sock_loop.unavailable()), reason=f"no socket door here: {sock_loop.unavailable()}")


def _serve(door, timeout_s: float = 5.0):
    """One call of the door with no launcher (NULL): every message is handed over."""
    session = types.SimpleNamespace(accounted=0.0, device=None, sched=None, loop_sched=None, slot=0, heads=None,
                                    bulk=None, shm=None)
    return door.serve(0, 0.0, 0.0, timeout_s, 1e12, session)


@needs_door
def test_the_door_hands_over_what_it_does_not_serve_as_a_receive_gives_it():
    ctx = zmq.Context()
    server_keys, client_keys = curve.new_keypair(), curve.new_keypair()
    zap = curve.Zap(ctx, lambda mechanism, key, address: f"client:{key.decode()[:8]}" if key else None)
    zap.start()
    router = ctx.socket(zmq.ROUTER)
    curve.as_server(router, server_keys)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    dealer = ctx.socket(zmq.DEALER)
    dealer.setsockopt(zmq.IDENTITY, b"peer-1")
    curve.as_client(dealer, client_keys, server_keys.public)
    dealer.connect(f"tcp://127.0.0.1:{port}")
    stranger = ctx.socket(zmq.DEALER)
    stranger.setsockopt(zmq.IDENTITY, b"other")
    curve.as_client(stranger, curve.new_keypair(), server_keys.public)
    stranger.connect(f"tcp://127.0.0.1:{port}")
    door = sock_loop.SocketLoop(router, b"peer-1")
    try:
        assert _serve(door, 0.2) == (IDLE, None)
        # the client's message of three parts: its first handed over, the rest left on the socket
        dealer.send_multipart([b"head", b"frame-1", b"frame-2"])
        got, (ident, first, more, kept, _) = _serve(door)
        assert got == HANDED and ident == b"peer-1" and bytes(first) == b"head" and more
        assert first.buffer.tobytes() == b"head" and first.get("User-Id") == f"client:{client_keys.public.decode()[:8]}"
        assert first.get("Peer-Address") == "127.0.0.1"
        with pytest.raises(zmq.ZMQError):
            first.get("no such property")
        assert curve.peer_id(first) == first.get("User-Id")
        assert [router.recv() for _ in range(2)] == [b"frame-1", b"frame-2"] and not router.getsockopt(zmq.RCVMORE)
        # a stranger's one-part message, a delta's empty head, a head the head table keeps: handed over
        stranger.send(b"x" * 10)
        got, (ident, first, more, kept, _) = _serve(door)
        assert (got, ident, bytes(first), more) == (HANDED, b"other", b"x" * 10, False)
        assert first.get("User-Id").startswith("client:")
        dealer.send_multipart([b"", b"record", b"differences"])
        got, (ident, first, more, kept, _) = _serve(door)
        assert (got, bytes(first), more) == (HANDED, b"", True)
        assert [router.recv() for _ in range(2)] == [b"record", b"differences"]
        dealer.send(b"h" * HEAD_DELTA_MIN)
        got, (ident, first, more, kept, _) = _serve(door)
        assert (got, len(first), more) == (HANDED, HEAD_DELTA_MIN, False)
        assert door.received == 4 and door.handed == 4 and door.compiled == 0
    finally:
        door.close()
        for s in (dealer, stranger, router):
            s.close(0)
        zap.stop()
        ctx.term()


@needs_door
def test_the_door_takes_heads_into_the_sessions_table_as_python_takes_them(tmp_path):
    """With the session's head table (server/native/heads.c, the one Python's receives use): a head the
    table keeps is kept by the door, a delta made whole (Python is handed the whole head and told the
    table took it), the next delta made against that one, and a delta against a base the worker does
    not hold refused with why, changing nothing."""
    from rgpu.server.head_delta import HeadTable, NativeHeadTable
    from tests.support import clib
    from tests.unit.server.test_head_delta import changed, delta_message
    lib = clib.log_delta(tmp_path)
    table = HeadTable()
    assert isinstance(table, NativeHeadTable)
    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    dealer = ctx.socket(zmq.DEALER)
    dealer.setsockopt(zmq.IDENTITY, b"peer-1")
    dealer.connect(f"tcp://127.0.0.1:{port}")
    door = sock_loop.SocketLoop(router, b"peer-1")
    session = types.SimpleNamespace(accounted=0.0, device=None, sched=None, loop_sched=None, slot=0, heads=table,
                                    bulk=None, shm=None)
    rng = random.Random(5)
    try:
        first = rng.randbytes(20_000)
        dealer.send(first)
        got, (_, head, more, kept, _) = door.serve(0, 0.0, 0.0, 5.0, 1e12, session)
        assert (got, bytes(head), more, kept) == (HANDED, first, False, True)
        assert table.slots[table.lengths.index(20_000)] == first
        second = changed(rng, first, 20)
        dealer.send_multipart(delta_message(lib, first, second, [b"frame"]))
        got, (_, head, more, kept, _) = door.serve(0, 0.0, 0.0, 5.0, 1e12, session)
        assert (got, bytes(head), more, kept) == (HANDED, second, True, True)
        assert router.recv() == b"frame" and table.deltas == 1
        third = changed(rng, second, 20)
        dealer.send_multipart(delta_message(lib, second, third))
        got, (_, head, more, kept, _) = door.serve(0, 0.0, 0.0, 5.0, 1e12, session)
        assert (bytes(head), more, kept) == (third, False, True) and table.deltas == 2
        used = table.used
        other = rng.randbytes(20_000)  # a base of that length the table does not hold
        dealer.send_multipart(delta_message(lib, other, changed(rng, other, 3)))
        got, (_, head, why, kept, _) = door.serve(0, 0.0, 0.0, 5.0, 1e12, session)
        assert got == HANDED and head is None and "base is not the head" in why
        assert table.used == used and table.slots[table.lengths.index(20_000)] == third
    finally:
        door.close()
        for sock in (dealer, router):
            sock.close(0)
        ctx.term()


def _session(s: Session, rounds: int) -> list[bytes]:
    """As test_serve_loop's, on the socket: an event made and recorded (Python's), `rounds` of the
    waits on the default stream, on the event and on the device, then an allocation, a memset, a
    wait on a stream the session never made (Python's refusal) and a free. The replies' bytes from
    the first wait on."""
    def raw(name, *args) -> bytes:
        seq = next(s._seq)
        got = exchange(s.sock, [wire.encode_requests([(seq, BY_NAME[name], 1, list(args), 0)])])
        assert got is not None and len(got) == 1, name
        return got[0]

    event = wire.unpack(raw("cudaEventCreate"))[2][0]
    assert wire.unpack(raw("cudaEventRecord", event, 0))[1] == 0
    out = []
    for _ in range(rounds):
        out += [raw(name, 0) for name in ("cudaStreamSynchronize", "cuStreamSynchronize", "cudaStreamQuery",
                                          "cuStreamQuery")]
        out += [raw(name, event) for name in ("cudaEventSynchronize", "cuEventSynchronize", "cudaEventQuery",
                                              "cuEventQuery")]
        out += [raw(name) for name in ("cudaDeviceSynchronize", "cuCtxSynchronize")]
    out.append(raw("cudaMalloc", 1 << 20))
    ptr = wire.unpack(out[-1])[2][0]
    out.append(raw("cudaMemset", ptr, 7, 1 << 20))
    out.append(raw("cudaStreamSynchronize", 0xDEAD000))
    out.append(raw("cudaFree", ptr))
    return out


WAITS = 20 * 10  # _session's waits in _door_on_and_off


def _door_on_and_off(start) -> tuple:
    """_session's 20 rounds by a client without a segment, against `start(True)`'s server (the door
    serving) and `start(False)`'s (Python serving), each `start` giving (url, handle). The waits'
    replies are checked alike, each a success, and the sessions' calls, messages and memory peak equal;
    (the allocation's, memset's, bad wait's and free's replies unpacked, the sessions' counts on, off)."""
    got = []
    for door in (True, False):
        url, handle = start(door)
        s = Session(url)
        try:
            replies = _session(s, 20)
        finally:
            s.close()
        got.append((replies, _ended(handle)))
    (on, counts_on), (off, counts_off) = got
    assert on == off[:WAITS] + on[WAITS:WAITS + 1] + off[WAITS + 1:]  # the same bytes (an address aside)
    for i, r in enumerate(on[:WAITS]):
        assert wire.unpack(r) == [i + 4, 0, [], 0, "", ""], i
    for key in ("calls", "messages", "memory_peak"):
        assert counts_on[key] == counts_off[key], key
    return [wire.unpack(r) for r in on[WAITS:]], counts_on, counts_off


def test_waits_allocations_and_memsets_from_another_host_are_the_doors_as_python_answers_them(daemons):
    (malloc, memset, bad, free), counts_on, counts_off = _door_on_and_off(
        lambda door: null_server.start(daemons, env={"RGPU_SERVE_SOCKET": "1" if door else "0"}))
    assert malloc[1] == 0 and malloc[2][0] != 0 and memset[1] == 0 and free[1] == 0
    assert bad[1] != 0 and bad[4], bad  # Python's refusal, with its message
    # the waits, the allocation, the memset and the free were the door's; the attach, the event's
    # making and recording, the bad wait and the goodbye Python's
    assert counts_on["socket_compiled"] == WAITS + 3, counts_on
    assert counts_on["socket_to_python"] == 4, counts_on
    assert counts_on["waits_compiled"] == WAITS and counts_on["copies_compiled"] == 3, counts_on
    assert counts_off["socket_compiled"] == 0 and counts_off["copies_compiled"] == 0, counts_off


def test_steps_from_another_host_are_the_doors_and_slow_kernels_pythons(daemons):
    """The harness's launch + synchronize through librgpu without a segment (RGPU_SHM=0, as from
    another host): every step served by the door; with kernels of 2 ms (RGPU_NULL_KERNEL_US) the door
    launches, finds the wait not done within its poll, and Python finishes each step."""
    url, handle = null_server.start(daemons)
    _harness(url, "launch_sync", 500, shm="0")
    counts = _ended(handle)
    assert counts["socket_compiled"] >= 500 and counts["launches_compiled"] >= 500, counts
    assert counts["waits_compiled"] >= 500 and counts["calls"] >= 1000, counts
    url, handle = null_server.start(daemons, env={"RGPU_NULL_KERNEL_US": "2000"})
    got = _harness(url, "launch_sync", 50, shm="0")
    assert got["us"] >= 2000, got
    counts = _ended(handle)
    assert counts["launches_compiled"] >= 50 and counts["socket_to_python"] >= 50, counts


def test_strangers_and_junk_while_the_door_serves_are_refused_and_the_session_goes_on(daemons):
    url, handle = null_server.start(daemons)
    s, bystander = Session(url), Session(url)
    stranger = zmq.Context.instance().socket(zmq.DEALER)
    try:
        assert s.call("cudaStreamSynchronize", 0)[0] == 0
        stranger.connect(s.endpoint)
        got = exchange(stranger, [wire.encode_requests([(1, BY_NAME["cudaStreamSynchronize"], 1, [0], 0)])])
        assert got is not None and wire.unpack(got[0])[1] == 201, got  # not attached to this session
        rnd = random.Random(38)
        call = wire.encode_requests([(99, BY_NAME["cudaStreamSynchronize"], 1, [0], 0)])
        junk = [b"\xc1" * 7, call[:-1], b"\x91\x95\x63", call[:3], call + b"\x00"]
        junk += [rnd.randbytes(rnd.choice((1, 2, 9, 64, 700, 4095))) for _ in range(100)]
        for i, j in enumerate(junk):
            got = exchange(s.sock, [j])
            assert got is not None and wire.unpack(got[0])[1] != 0, j[:40]
            if i % 20 == 0:
                assert s.call("cuStreamQuery", 0)[0] == 0
        assert s.call("cudaStreamSynchronize", 0)[0] == 0
        assert bystander.call("cudaMalloc", 4096)[0] == 0
    finally:
        stranger.close(0)
        s.close()
        bystander.close()
    # the junk's session, not the bystander's: the two end at once, their lines in either order
    counts = max(_ended(handle), _ended(handle, 2), key=lambda c: c["messages"])
    assert counts["socket_compiled"] >= 2, counts
    assert re.search(r"attach_refused", handle.output(200000))
    assert handle.alive()


def _bench(url: str, *args: str, env: dict | None = None) -> dict:
    """The harness (benchmarks/harness/bench.c) through librgpu without a segment, as from another host."""
    import json
    import subprocess

    from benchmarks.transport import build_harness
    from rgpu.paths import client_env
    p = subprocess.run([str(build_harness()), "rgpu", *args], env={**client_env([url], preload=False), "RGPU_SHM": "0",
                                                                  **(env or {})},
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("args, late, copies", [
    (("kernel_d2h", "300"), 0, 1),  # a memset, a kernel, cudaMemcpy back: the copy's data in the reply's frame
    (("item_step", "300"), 8, 0),   # a memset, a kernel, 8 bytes async into pinned memory, a wait: loss.item()
    (("d2h", "4096", "300"), 0, 1),  # cudaMemcpy back alone
    # 4 KiB in from pinned memory in the step's own message (a data frame), a kernel, 4 KiB out: a
    # DataLoader batch and .item()
    (("pinned_step", "300"), 4096, 0),
])
def test_a_programs_steps_from_another_host_are_the_doors_counted_as_python_counts_them(daemons, args, late, copies):
    """The harness checks every value it reads back; the door serves each step whole, the data going
    ahead of the reply (late copies) or in its frame, a batch coming in the step's own data frame,
    and the session's counts are Python's own with the door shut (RGPU_SERVE_SOCKET=0)."""
    got = {}
    for door in ("1", "0"):
        url, handle = null_server.start(daemons, env={"RGPU_SERVE_SOCKET": door})
        _bench(url, *args)
        got[door] = _ended(handle)
    on, off = got["1"], got["0"]
    steps = 300 if args[0] == "d2h" else 300 + 300 // 10 + 1  # (and the harness's warm-up)
    assert on["socket_compiled"] >= steps and off["socket_compiled"] == 0, (on, off)
    assert on["late_bytes_compiled"] == steps * late, on
    assert on["copies_compiled"] >= steps * copies, on
    assert on["bytes_out"] == off["bytes_out"], (on, off)
    assert on["frame_bytes_compiled"] == off["frame_bytes_compiled"], (on, off)
    if args[0] == "pinned_step":  # every step's batch copied from its frame by the door
        assert on["frame_bytes_compiled"] >= 300 * 4096 and on["socket_to_python"] <= 10, on
    # the same messages and calls either way; the first server may be sent the module's image too (the
    # module cache is shared between the servers), a message and a call more
    assert on["calls"] - off["calls"] in (0, 1) and on["messages"] - off["messages"] in (0, 1), (on, off)
    assert on["calls"] - off["calls"] == on["messages"] - off["messages"], (on, off)


def test_a_step_whose_kernel_outlasts_the_doors_poll_is_finished_by_python(daemons):
    """Kernels of 2 ms (RGPU_NULL_KERNEL_US): the door launches, finds the device busy at the copy and
    hands the rest of the step to Python with the GPU held, which waits and copies; every read-back
    is still right (the harness checks), and a late copy's data still comes ahead of its reply; a
    step whose batch came in its data frame is finished by Python with that frame."""
    url, handle = null_server.start(daemons, env={"RGPU_NULL_KERNEL_US": "2000"})
    assert _bench(url, "kernel_d2h", "30")["us"] >= 2000
    assert _bench(url, "item_step", "30")["us"] >= 2000
    # the batch's frame taken and copied by the door, the step then Python's with that frame
    assert _bench(url, "pinned_step", "30")["us"] >= 2000
    first, second, third = _ended(handle), _ended(handle, 2), _ended(handle, 3)
    assert third["frame_bytes_compiled"] >= 30 * 4096 and third["bytes_in"] >= 30 * 4096, third
    for counts in (first, second, third):
        assert counts["launches_compiled"] >= 34 and counts["socket_to_python"] >= 34, counts


@needs_door
def test_a_large_copys_pieces_from_another_host_are_the_doors_and_land_as_pythons(daemons, cuda_program):
    """failover_readback writes 8 MiB and reads it back each step, checking every word: from another
    host (RGPU_SHM=0) the write goes as pieces, a message and its frame each (server/pieces.py), which
    the door copies to the device itself (serve.c piece). The program's digest and the session's
    counts of pieces and bytes are those of Python's receive with the door shut (RGPU_SERVE_SOCKET=0)."""
    import subprocess

    from rgpu.paths import client_env
    exe = cuda_program("failover_readback")
    got, out = {}, {}
    for door in ("1", "0"):
        url, handle = null_server.start(daemons, env={"RGPU_SERVE_SOCKET": door})
        # the pieces on the session socket: a plain wire's path without its data stream (data_stream.py)
        p = subprocess.run([str(exe), "5", "0"], env={**client_env([url]), "RGPU_SHM": "0", "RGPU_DATA_STREAM": "0"},
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and " OK" in p.stdout, p.stdout + p.stderr[-2000:]
        out[door], got[door] = p.stdout.strip().splitlines()[-1], _ended(handle)
    on, off = got["1"], got["0"]
    assert out["1"] == out["0"]
    assert on["pieces_in"] == off["pieces_in"] >= 5 * 3, (on, off)  # 8 MiB in 2 MiB pieces, the last the call's
    assert on["pieces_compiled"] == on["pieces_in"] == off["pieces_compiled"], (on, off)
    assert on["bytes_in"] == off["bytes_in"] and on["calls"] == off["calls"], (on, off)
    assert on["socket_pieces"] == on["pieces_in"] and off["socket_compiled"] == 0, (on, off)
    # the read back goes in pieces too (SYNC_PIECES_OUT): the door's, sent as Python sends them
    assert on["pieces_out"] == off["pieces_out"] >= 5 * 3 and on["bytes_out"] == off["bytes_out"], (on, off)
    assert on["copies_compiled"] >= 5 and off["copies_compiled"] == 0, (on, off)


def _read_back(sock, seq: int, call_id: int, args: list, field: int):
    """A D2H copy sent by hand, and what came back for it: (the offsets of its PIECE_OUT replies, the
    pieces' sizes, the reply's result, its message, the data of all of it in order)."""
    sock.send_multipart([wire.encode_requests([(seq, call_id, field, args, 0)])])
    offsets, sizes, data = [], [], b""
    while True:
        assert sock.poll(15000), "no reply"
        frames = sock.recv_multipart()
        head = wire.unpack(frames[0])
        assert head[0] == seq, head
        body = b"".join(bytes(f) for f in frames[1:])
        if head[1] != wire.PIECE_OUT:
            return offsets, sizes, head[1], head[4], data + body
        assert len(frames) == 2, head  # one frame a piece
        offsets.append(head[2][0])
        sizes.append(len(body))
        data += body


@needs_door
def test_large_reads_from_another_host_are_the_doors_in_pieces_as_pythons(daemons):
    """Reads of 256 KiB and more from a null-driver server, sent by hand as a client on another host
    sends them, door open and shut: in pieces where the call asks for them (SYNC_PIECES_OUT: PIECE_OUT
    replies at their offsets, a frame each, then the reply with the last), else in the reply's frames.
    The door serves those it can (its data read into the frames ZeroMQ sends) with the replies,
    offsets, data and counts Python gives; one past its allocation gets the handler's error alone;
    one of more than a frame's D2H_CHUNK without pieces is Python's; a bystander is served."""
    from rgpu.protocol.generated.constants import D2H_CHUNK

    htod, dtoh, memcpy = BY_NAME["cuMemcpyHtoD_v2"], BY_NAME["cuMemcpyDtoH_v2"], BY_NAME["cudaMemcpy"]
    mib = 1 << 20
    size = D2H_CHUNK + 4 * mib  # (20 MiB: more than one frame's worth)
    data = random.Random(11).randbytes(size)
    got, counts = {}, {}
    for door in ("1", "0"):
        url, handle = null_server.start(daemons, env={"RGPU_SERVE_SOCKET": door})
        s, bystander = Session(url), Session(url)
        try:
            rc, (dev,), _, _ = s.call("cuMemAlloc_v2", size)
            assert rc == 0
            for off in range(0, size, 4 * mib):  # (a message of 4 MiB each: no pieces)
                assert s.call("cuMemcpyHtoD_v2", dev + off, 4 * mib, bulk=[data[off:off + 4 * mib]])[0] == 0
            runs = [
                _read_back(s.sock, 101, dtoh, [dev, 8 * mib], wire.SYNC_PIECES_OUT),      # 4 pieces of 2 MiB
                _read_back(s.sock, 102, memcpy, [0, dev + mib, size - mib, 2], wire.SYNC_PIECES_OUT),  # 19 MiB
                _read_back(s.sock, 103, dtoh, [dev + 3, 3 * mib], wire.SYNC_PIECES_OUT),  # below PIECE_MIN: whole
                _read_back(s.sock, 104, dtoh, [dev + 5, 300 << 10], 1),                  # 300 KiB, one frame
                _read_back(s.sock, 105, dtoh, [dev, size], 1),                            # 20 MiB: two frames
                _read_back(s.sock, 106, dtoh, [dev + size - 100, 8 * mib], wire.SYNC_PIECES_OUT),  # past its end
            ]
            assert bystander.call("cudaMalloc", 4096)[0] == 0
        finally:
            s.close()
            bystander.close()
        got[door] = runs
        counts[door] = max(_ended(handle), _ended(handle, 2), key=lambda c: c["messages"])  # not the bystander's
        assert handle.alive()
    on, off = got["1"], got["0"]
    assert on == off
    (o1, z1, rc1, _, d1), (o2, z2, rc2, _, d2), (o3, _, rc3, _, d3), (o4, _, rc4, _, d4), \
        (o5, _, rc5, _, d5), (o6, _, rc6, why6, d6) = on
    assert (rc1, d1, o1, z1) == (0, data[:8 * mib], [0, 2 * mib, 4 * mib], [2 * mib] * 3)
    assert rc2 == 0 and d2 == data[mib:] and o2 == list(range(0, 18 * mib, 2 * mib)), o2  # 19 MiB in 2 MiB pieces
    assert z2 == [2 * mib] * 9
    assert (rc3, o3, d3) == (0, [], data[3:3 + 3 * mib])
    assert (rc4, o4, d4) == (0, [], data[5:5 + (300 << 10)])
    assert (rc5, o5, d5) == (0, [], data)
    assert rc6 != 0 and o6 == [] and d6 == b"", why6
    c_on, c_off = counts["1"], counts["0"]
    assert c_on["pieces_out"] == c_off["pieces_out"] == 3 + 9 and c_on["bytes_out"] == c_off["bytes_out"], (c_on, c_off)
    assert c_on["calls"] == c_off["calls"] and c_on["bytes_in"] == c_off["bytes_in"] == size, (c_on, c_off)
    # the door served the allocation, the five writes from their frames and the first four reads, not the
    # 20 MiB one (two frames) or the bad one
    assert c_on["copies_compiled"] == 1 + 5 + 4 and c_off["copies_compiled"] == 0, (c_on, c_off)


@needs_door
def test_pieces_the_door_cannot_run_are_pythons_and_fail_their_copy_alone(daemons):
    """Pieces sent by hand to a null-driver server: two good ones and the copy's last call land whole;
    a piece with a frame too many is refused as malformed, and one past its allocation fails its copy
    (answered by the copy's last call), the door having taken their frames first; the session, its
    memory and a bystander carry on."""
    url, handle = null_server.start(daemons)
    s, bystander = Session(url), Session(url)
    htod, mib = BY_NAME["cuMemcpyHtoD_v2"], 1 << 20
    rnd = random.Random(7)
    try:
        rc, (dev,), _, _ = s.call("cuMemAlloc_v2", 3 * mib)
        assert rc == 0
        parts = [rnd.randbytes(mib) for _ in range(3)]
        for i in range(2):
            s.raw_call(htod, [dev + i * mib, mib], [parts[i]], sync=False, field=wire.PIECE_IN)
        assert s.call("cuMemcpyHtoD_v2", dev + 2 * mib, mib, bulk=[parts[2]])[0] == 0
        rc, _, data, _ = s.call("cuMemcpyDtoH_v2", dev, 3 * mib)
        assert rc == 0 and b"".join(bytes(f) for f in data) == b"".join(parts)
        # a frame more than its call takes: the decoder's refusal, for this message alone
        head = wire.encode_requests([(900, htod, wire.PIECE_IN, [dev, mib], 1)])
        got = exchange(s.sock, [head, parts[1], b"extra"])
        assert got is not None and wire.unpack(got[0])[1] != 0 and "malformed" in wire.unpack(got[0])[4], got
        # past the allocation: the copy fails at its last call, and nothing was written
        s.raw_call(htod, [dev + 3 * mib - 100, mib], [parts[0]], sync=False, field=wire.PIECE_IN)
        rc, _, _, why = s.call("cuMemcpyHtoD_v2", dev, mib, bulk=[parts[0]])
        assert rc != 0, why
        rc, _, data, _ = s.call("cuMemcpyDtoH_v2", dev, 3 * mib)
        assert rc == 0 and b"".join(bytes(f) for f in data) == b"".join(parts)
        # the next copy's pieces are the door's again
        s.raw_call(htod, [dev, mib], [parts[2]], sync=False, field=wire.PIECE_IN)
        assert s.call("cuMemcpyHtoD_v2", dev + mib, mib, bulk=[parts[0]])[0] == 0
        rc, _, data, _ = s.call("cuMemcpyDtoH_v2", dev, 2 * mib)
        assert rc == 0 and b"".join(bytes(f) for f in data) == parts[2] + parts[0]
        assert bystander.call("cudaMalloc", 4096)[0] == 0
    finally:
        s.close()
        bystander.close()
    counts = max(_ended(handle), _ended(handle, 2), key=lambda c: c["messages"])  # not the bystander's
    assert counts["pieces_compiled"] == counts["socket_pieces"] == 3 and counts["pieces_in"] == 4, counts
    assert handle.alive()


@needs_door
def test_junk_with_data_frames_while_the_door_serves_is_refused_and_the_session_goes_on(daemons):
    """Messages with data frames the door looks at before Python does: junk heads with frames, a copy
    whose frame is not its size (async, alone: its error comes at the next synchronisation), a piece
    whose frame is not its size (its copy fails at the copy's last call), a call with a frame it does
    not take; each is refused for what it is, and the session's memory, the session and a bystander
    carry on."""
    url, handle = null_server.start(daemons)
    s, bystander = Session(url), Session(url)
    rnd = random.Random(39)
    copy_async, htod = BY_NAME["cudaMemcpyAsync"], BY_NAME["cuMemcpyHtoD_v2"]
    try:
        rc, (dev,), _, _ = s.call("cuMemAlloc_v2", 1 << 20)
        good = rnd.randbytes(4096)
        assert s.call("cuMemcpyHtoD_v2", dev, 4096, bulk=[good])[0] == 0
        for i in range(60):
            frames = [rnd.randbytes(rnd.choice((0, 1, 48, 4096))) for _ in range(rnd.randint(1, 3))]
            got = exchange(s.sock, [rnd.randbytes(rnd.choice((1, 9, 64, 700))), *frames])
            assert got is not None and wire.unpack(got[0])[1] != 0
        # an async H2D copy whose one frame is not its count: its error deferred to the next
        # synchronisation's reply (the reply's `deferred`, as the client library raises it)
        s.raw_call(copy_async, [dev, 0, 4096, 1, 0], [good[:100]], sync=False)
        got = exchange(s.sock, [wire.encode_requests([(700, BY_NAME["cudaStreamSynchronize"], 1, [0], 0)])])
        assert got is not None and wire.unpack(got[0])[3] != 0, wire.unpack(got[0])
        # a piece whose frame is not its count: the copy fails at its last call
        s.raw_call(htod, [dev, 4096], [good[:10]], sync=False, field=wire.PIECE_IN)
        assert s.call("cuMemcpyHtoD_v2", dev + 4096, 4096, bulk=[good])[0] != 0
        # a synchronize with a frame it does not take: malformed
        got = exchange(s.sock, [wire.encode_requests([(500, BY_NAME["cudaStreamSynchronize"], 1, [0], 0)]), good])
        assert got is not None and wire.unpack(got[0])[1] != 0
        rc, _, data, _ = s.call("cuMemcpyDtoH_v2", dev, 4096)
        assert rc == 0 and b"".join(bytes(f) for f in data) == good
        assert s.call("cudaStreamSynchronize", 0)[0] == 0
        assert bystander.call("cudaMalloc", 4096)[0] == 0
    finally:
        s.close()
        bystander.close()
    counts = max(_ended(handle), _ended(handle, 2), key=lambda c: c["messages"])  # not the bystander's
    assert counts["socket_compiled"] >= 2, counts
    assert handle.alive()
