"""Steps whose async host-to-device copies carry their data in frames (a client on another host, or
RGPU_SHM=0: a DataLoader's pinned batch copied without blocking, the first message of every training
step) are the compiled loop's on the cuda backend (native/copies.c frame_h2d_one): each copy goes from
its frame to the device once every stream is done, and the rest of the step, or of the batch of async
calls, runs as it does without frames. A socket client at the protocol level (tests/support/session.py)
sends the same messages to a null-driver server with the compiled launches on and off
(RGPU_FAST_LAUNCH=0, where Python serves every call): the same replies, the same device memory, the
same counts, and the messages the loop cannot serve whole (a frame of another length than its copy, a
copy past its allocation, a stream never made) are Python's, with Python's errors; a copy behind a
kernel still running (20 ms kernels: RGPU_NULL_KERNEL_US) stops the loop at that copy, after the
launch, and Python waits for the kernel, copies and answers the rest."""
from __future__ import annotations

import hashlib

import pytest

from rgpu.protocol import wire
from rgpu.protocol.generated.calltable import BY_NAME
from tests.support import null_server
from tests.support.session import Session, exchange
from tests.component.server.test_server_protocol import PARAMS_PTX

pytestmark = pytest.mark.e2e

SIZE = 16384


def _message(s: Session, calls: list, last: tuple | None):
    """One message: async calls [(name, args, data or None)], then the sync call `last` (name, args),
    whose reply is returned as (seq, rc, outs, deferred, message); None: async calls only, no reply."""
    records, frames = [], []
    for name, args, data in calls:
        records.append((next(s._seq), BY_NAME[name], 0, list(args), 0 if data is None else 1))
        if data is not None:
            frames.append(data)
    if last is None:
        s.sock.send_multipart([wire.encode_requests(records), *frames])
        return None
    seq = next(s._seq)
    records.append((seq, BY_NAME[last[0]], 1, list(last[1]), 0))
    got = exchange(s.sock, [wire.encode_requests(records), *frames])
    assert got is not None, "the worker did not answer"
    head = wire.unpack(got[0])
    assert head[0] == seq, head
    return tuple(head[:5])


def _pattern(i: int, n: int = 4096) -> bytes:
    return bytes((i * 7 + k * 13) % 251 for k in range(n))


def _script(url: str) -> tuple[list, bytes]:
    sync = ("cudaStreamSynchronize", [0])
    s = Session(url)
    try:
        ptr = s.call("cudaMalloc", SIZE)[1][0]
        stream = s.call("cudaStreamCreate")[1][0]
        replies = []
        for i in range(20):  # a step: copies in from frames (both faces, two streams), a memset, the wait
            replies.append(_message(s, [("cudaMemcpyAsync", [ptr, 0, 4096, 1, 0], _pattern(i)),
                                        ("cuMemcpyHtoDAsync_v2", [ptr + 4096, 4096, stream], _pattern(i + 100)),
                                        ("cuMemsetD8Async", [ptr + 8192, i, 16, 0], None)],
                                    ("cudaDeviceSynchronize", [])))
        # a batch of async calls only (as a client sends a full one), its data in frames; then a wait
        _message(s, [("cuMemcpyHtoDAsync_v2", [ptr + 12288 + 512 * k, 512, 0], _pattern(k, 512)) for k in range(8)],
                 None)
        replies.append(_message(s, [], sync))
        # a step whose batch is many tensors, a frame each (more frames than 16, fewer than a full batch)
        replies.append(_message(s, [("cuMemcpyHtoDAsync_v2", [ptr + 12288 + 64 * k, 64, 0], _pattern(k + 9, 64))
                                    for k in range(64)], sync))
        # Python's, whole, with Python's errors at the wait: a frame shorter than its copy, a copy past
        # its allocation, a stream never made
        replies.append(_message(s, [("cudaMemcpyAsync", [ptr, 0, 4096, 1, 0], b"x" * 100)], sync))
        replies.append(_message(s, [("cuMemcpyHtoDAsync_v2", [ptr + SIZE - 100, 4096, 0], b"y" * 4096)], sync))
        replies.append(_message(s, [("cuMemcpyHtoDAsync_v2", [ptr, 4096, 0xDEAD000], b"z" * 4096)], sync))
        # a kernel, then a copy in from a frame: the copy waits for the kernel (Python's wait)
        digest = hashlib.sha256(PARAMS_PTX).hexdigest()
        module = s.call("cuModuleLoadData", digest, len(PARAMS_PTX), "", 0, 1, len(PARAMS_PTX), bulk=[PARAMS_PTX])[1][0]
        fn = s.call("cuModuleGetFunction", module, "none")[1][0]
        replies.append(_message(s, [("cuLaunchKernel", [fn, 1, 1, 1, 1, 1, 1, 0, 0, b""], None),
                                    ("cuMemcpyHtoDAsync_v2", [ptr + 8192 + 16, 64, 0], b"k" * 64)], sync))
        rc, _, held, _ = s.call("cudaMemcpy", 0, ptr, SIZE, 2)
        assert rc == 0
        return replies, b"".join(held)
    finally:
        s.close()


def _on_and_off(daemons, script) -> tuple:
    """`script(url)` against a null-driver server with the compiled launches on and one with them off
    (RGPU_FAST_LAUNCH=0: Python serves every call), 20 ms kernels: ((its result, the session_ended
    counts) on, (the same) off)."""
    got = []
    for fast in ("1", "0"):
        url, handle = null_server.start(daemons, env={"RGPU_FAST_LAUNCH": fast, "RGPU_NULL_KERNEL_US": "20000"})
        out = script(url)
        got.append((out, {k: int(v) for k, v in handle.session_ended().items() if v.isdigit()}))
    return tuple(got)


def test_steps_and_batches_with_copies_from_frames_are_the_loops_as_pythons(daemons):
    ((on, held_on), c_on), ((off, held_off), c_off) = _on_and_off(daemons, _script)
    assert on == off
    assert held_on == held_off
    assert held_on[:4096] == _pattern(19) and held_on[4096:8192] == _pattern(119)
    assert held_on[8192:8208] == bytes([19]) * 16 and held_on[8208:8272] == b"k" * 64
    assert held_on[12288:16384] == b"".join(_pattern(k + 9, 64) for k in range(64))
    assert all(r[1] == 0 and r[3] == 0 for r in on[:22]), on[:22]
    # the async copies' errors, deferred to the wait's reply with Python's messages
    assert all(r[3] != 0 for r in on[22:25]) and on[25][1] == on[25][3] == 0, on[22:]
    assert "outside any allocation" in on[23][4] and "not a stream" in on[24][4], on[22:]
    # the 20 steps, the batch and the step of 64 frames were the loop's, every byte of their frames
    # copied by it; with the compiled launches off, Python's
    # (not the copy behind the kernel: Python's, the launch before it the loop's)
    assert c_on["frame_bytes_compiled"] == 20 * 8192 + 4096 + 4096 and c_on["batches_compiled"] >= 1, c_on
    assert c_on["waits_compiled"] >= 20 and c_on["launches_compiled"] == 1, c_on
    # the door's, across the socket: the 20 steps, the batch and its wait, the step of 64 frames (a
    # message of more frames than 16, which Python used to take), the allocation and the read back
    assert c_on["socket_compiled"] == 25, c_on
    assert c_off["frame_bytes_compiled"] == 0 and c_off["batches_compiled"] == 0, c_off
    assert c_on["bytes_in"] == c_off["bytes_in"] >= 20 * 8192 + 4096 + 4096 + 64, (c_on, c_off)
    assert c_on["calls"] - c_off["calls"] in (0, 1) and c_on["messages"] - c_off["messages"] in (0, 1), (c_on, c_off)


def _message_until(s: Session, calls: list, last: tuple, after: list | tuple = ()) -> list:
    """`_message` for a step whose async calls may be D2H copies whose data comes back before the
    reply ([(name, args, wire.OUT_LATER)]) and whose wait `last` may carry calls after it in its
    message (`after`: managed pulls [(name, args)], each sync): every message the worker sent for it,
    (seq, result, data) of a late copy's and (seq, result, outs, deferred, message, data) of each
    reply, until the last call's."""
    records = [(next(s._seq), BY_NAME[name], field, list(args), 0) for name, args, field in calls]
    records.append((next(s._seq), BY_NAME[last[0]], 1, list(last[1]), 0))
    records += [(next(s._seq), BY_NAME[name], 1, list(args), 0) for name, args in after]
    final = records[-1][0]
    s.sock.send_multipart([wire.encode_requests(records)])
    got = []
    while True:
        assert s.sock.poll(10000), "the worker did not answer"
        parts = s.sock.recv_multipart()
        head = wire.unpack(parts[0])
        data = b"".join(parts[1:])
        got.append((head[0], head[1], data) if head[1] == wire.LATE_OUT else (*head[:5], data))
        if head[0] == final and head[1] != wire.LATE_OUT:
            return got


def _late_script(url: str) -> list:
    late, sync = wire.OUT_LATER, ("cudaStreamSynchronize", [0])
    s = Session(url)
    try:
        ptr = s.call("cudaMalloc", 4096)[1][0]
        stream = s.call("cudaStreamCreate")[1][0]
        got = []
        for i in range(10):  # a step ending as `.item()` ends it: the value copied out, the stream synchronized
            got.append(_message_until(s, [("cuMemsetD8Async", [ptr, i, 64, 0], 0),
                                        ("cuMemcpyDtoHAsync_v2", [ptr, 64, 0], late)], sync))
        # two late copies, both faces, before a device synchronize
        got.append(_message_until(s, [("cuMemsetD8Async", [ptr, 9, 16, 0], 0), ("cuMemcpyDtoHAsync_v2", [ptr, 8, 0], late),
                                    ("cudaMemcpyAsync", [0, ptr + 8, 8, 2, 0], late)], ("cudaDeviceSynchronize", [])))
        # Python's: a memset after the late copy (whose data is the first memset's, in stream order), a
        # copy on a stream the wait does not synchronize, a copy past its allocation
        got.append(_message_until(s, [("cuMemsetD8Async", [ptr, 1, 16, 0], 0), ("cuMemcpyDtoHAsync_v2", [ptr, 16, 0], late),
                                    ("cuMemsetD8Async", [ptr, 2, 16, 0], 0)], sync))
        got.append(_message_until(s, [("cuMemcpyDtoHAsync_v2", [ptr, 16, stream], late)], sync))
        got.append(_message_until(s, [("cuMemcpyDtoHAsync_v2", [ptr + 4090, 16, 0], late)], sync))
        # behind a 20 ms kernel: the wait is not done within the loop's poll, so Python waits and copies
        digest = hashlib.sha256(PARAMS_PTX).hexdigest()
        module = s.call("cuModuleLoadData", digest, len(PARAMS_PTX), "", 0, 1, len(PARAMS_PTX), bulk=[PARAMS_PTX])[1][0]
        fn = s.call("cuModuleGetFunction", module, "none")[1][0]
        got.append(_message_until(s, [("cuLaunchKernel", [fn, 1, 1, 1, 1, 1, 1, 0, 0, b""], 0),
                                    ("cuMemcpyDtoHAsync_v2", [ptr, 16, 0], late)], sync))
        return got
    finally:
        s.close()


def test_a_steps_late_copies_from_another_host_are_the_loops_as_pythons(daemons):
    """A step that ends as `.item()` ends it from another host: an async D2H copy whose data goes back
    before the next reply (wire.OUT_LATER), then the wait. The loop serves it whole (copies.c
    late_frame_one): the copy made once the wait is answered (nothing but other such copies after it in
    the message, and the wait covering its stream), its data sent ahead of the reply as Python's
    _send_late sends it. The same messages, data and counts with the compiled launches off; the steps
    it must not serve so (a memset after the copy, a stream the wait does not cover, a copy past its
    allocation, a kernel outlasting the loop's poll) are Python's, with Python's data and errors."""
    (on, c_on), (off, c_off) = _on_and_off(daemons, _late_script)
    assert on == off
    for i in range(10):
        assert on[i][0][1:] == (wire.LATE_OUT, bytes([i]) * 64) and on[i][1][1] == on[i][1][3] == 0, on[i]
    assert [m[2] for m in on[10][:2]] == [b"\x09" * 8] * 2 and on[10][2][3] == 0, on[10]
    assert on[11][0][2] == b"\x01" * 16, on[11]          # the copy read before the memset after it
    assert on[12][0][2] == b"\x02" * 16, on[12]            # after the second memset
    assert len(on[13]) == 1 and on[13][0][3] != 0 and "outside any allocation" in on[13][0][4], on[13]
    assert on[14][0][2] == b"\x02" * 16 and on[14][1][3] == 0, on[14]
    assert c_on["late_bytes_compiled"] == 10 * 64 + 16, c_on
    assert c_off["late_bytes_compiled"] == 0, c_off
    assert c_on["bytes_out"] == c_off["bytes_out"], (c_on, c_off)
    assert c_on["calls"] - c_off["calls"] in (0, 1) and c_on["messages"] - c_off["messages"] in (0, 1), (c_on, c_off)


def _pull_script(url: str) -> list:
    late, sync, pull = wire.OUT_LATER, ("cudaStreamSynchronize", [0]), "rgpuManagedPull"
    s = Session(url)
    try:
        a = s.call("cudaMalloc", 4096)[1][0]
        b = s.call("cudaMalloc", 65536)[1][0]
        s.call("cudaMemset", b, 5, 65536)
        # a client names no digest (nil) where it holds none: at first, and right after it pushed the
        # host's writes (libhook/src/managed/managed.c)
        known = {a: None, b: None}
        got = []
        for i in range(10):  # `.item()` with two managed buffers pulled after its wait, as a client names them
            out = _message_until(s, [("cuMemsetD8Async", [a, i, 4096, 0], 0), ("cuMemcpyDtoHAsync_v2", [a, 4, 0], late)],
                                 sync, [(pull, [a, 4096, known[a] if i % 3 else None]), (pull, [b, 65536, known[b]])])
            known[a], known[b] = out[-2][2][0], out[-1][2][0]
            got.append(out)
        # a digest of another length than the worker's is not the same digest: the data goes
        got.append(_message_until(s, [("cuMemsetD8Async", [a, 1, 16, 0], 0)], ("cudaDeviceSynchronize", []),
                                  [(pull, [b, 65536, known[b][:8]])]))
        # Python's: a pull past its allocation (Python's error), a call after a pull, and a pull behind
        # a 20 ms kernel (the wait not done within the loop's poll)
        got.append(_message_until(s, [("cuMemsetD8Async", [a, 2, 16, 0], 0)], sync, [(pull, [a + 4000, 4096, b""])]))
        got.append(_message_until(s, [("cuMemsetD8Async", [a, 3, 16, 0], 0)], sync,
                                  [(pull, [a, 4096, b""]), ("cudaStreamSynchronize", [0])]))
        digest = hashlib.sha256(PARAMS_PTX).hexdigest()
        module = s.call("cuModuleLoadData", digest, len(PARAMS_PTX), "", 0, 1, len(PARAMS_PTX), bulk=[PARAMS_PTX])[1][0]
        fn = s.call("cuModuleGetFunction", module, "none")[1][0]
        got.append(_message_until(s, [("cuLaunchKernel", [fn, 1, 1, 1, 1, 1, 1, 0, 0, b""], 0)], sync,
                                  [(pull, [a, 4096, known[a]])]))
        return got
    finally:
        s.close()


def test_a_steps_managed_pulls_from_another_host_are_the_loops_as_pythons(daemons):
    """From another host a synchronisation after device work carries the pulls of the program's managed
    allocations after it in its message (rgpuManagedPull: PyTorch's cuDNN keeps two). The loop answers
    them after the wait (copies.c rgpu_copier_pull_call): each read once the device is done and digested
    as api/managed.py digests it, the data sent only where the digest is not the one the client named.
    The same messages, data and counts with the compiled launches off; what it must not serve so (a
    pull past its allocation, a call after a pull, a kernel outlasting the loop's poll) is Python's."""
    (on, c_on), (off, c_off) = _on_and_off(daemons, _pull_script)
    assert on == off
    for i in range(10):
        value, wait, pa, pb = on[i]
        assert value[1:] == (wire.LATE_OUT, bytes([i]) * 4) and wait[1] == wait[3] == 0, on[i]
        assert pa[1] == 0 and pa[5] == bytes([i]) * 4096, pa        # written every step: the data goes
        assert pb[1] == 0 and pb[5] == (bytes([5]) * 65536 if i == 0 else b""), pb[:5]  # unchanged: its digest only
        assert len(pa[2][0]) == len(pb[2][0]) == 16 and pb[2][0] == on[0][3][2][0]
    assert on[10][-1][5] == bytes([5]) * 65536, on[10][-1][:5]
    assert on[11][-1][1] != 0 and "allocation" in on[11][-1][4], on[11]
    assert on[12][-2][5][:16] == bytes([3]) * 16 and on[12][-1][1] == 0, on[12]
    # behind the kernel: Python's pull, the data since the last step's digest changed by the memsets
    assert on[13][-1][1] == 0 and on[13][-1][5] == bytes([3]) * 16 + bytes([9]) * 4080, on[13][-1][:5]
    # the ten steps' pulls and the eleventh's were the loop's; none with the compiled launches off
    assert c_on["pulls_compiled"] == 21 and c_off["pulls_compiled"] == 0, (c_on, c_off)
    assert c_on["bytes_out"] == c_off["bytes_out"], (c_on, c_off)
    assert c_on["calls"] - c_off["calls"] in (0, 1) and c_on["messages"] - c_off["messages"] in (0, 1), (c_on, c_off)


def _piece(s: Session, name: str, args: list, data: bytes) -> None:
    """One piece of a large H2D copy, a message of its own (libhook's copy_pieces.c): the copy's call
    with `sync` PIECE_IN and the piece's data in a frame; no reply."""
    s.sock.send_multipart([wire.encode_requests([(next(s._seq), BY_NAME[name], wire.PIECE_IN, list(args), 1)]), data])


def _pieces_script(url: str) -> tuple[list, bytes]:
    k, sync = 8192, ("cudaStreamSynchronize", [0])
    s = Session(url)
    try:
        p = s.call("cudaMalloc", 10 * k)[1][0]
        stream = s.call("cudaStreamCreate")[1][0]
        got = []
        # a sync cudaMemcpy in three pieces, the end of its range first, the last the copy's own call
        _piece(s, "cudaMemcpy", [p + 2 * k, 0, k, 1], _pattern(2, k))
        _piece(s, "cudaMemcpy", [p, 0, k, 1], _pattern(0, k))
        got.append(s.call("cudaMemcpy", p + k, 0, k, 1, bulk=[_pattern(1, k)]))
        # the driver's sync form, and an async copy's pieces on a stream of its own
        _piece(s, "cuMemcpyHtoD_v2", [p + 4 * k, k], _pattern(4, k))
        _piece(s, "cuMemcpyHtoD_v2", [p + 3 * k, k], _pattern(3, k))
        got.append(s.call("cuMemcpyHtoD_v2", p + 5 * k, k // 2, bulk=[_pattern(5, k // 2)]))
        _piece(s, "cuMemcpyHtoDAsync_v2", [p + 6 * k + 4096, 4096, stream], _pattern(7, 4096))
        _piece(s, "cudaMemcpyAsync", [p + 6 * k, 0, 2048, 1, stream], _pattern(6, 2048))
        _message(s, [("cuMemcpyHtoDAsync_v2", [p + 6 * k + 2048, 2048, stream], _pattern(8, 2048))], None)
        got.append(s.call("cudaStreamSynchronize", stream))
        # a first piece behind async calls the client had queued, in one message with them (a step's)
        s.sock.send_multipart([wire.encode_requests([
            (next(s._seq), BY_NAME["cuMemsetD8Async"], 0, [p + 9 * k, 7, 4096, 0], 0),
            (next(s._seq), BY_NAME["cudaMemcpy"], wire.PIECE_IN, [p + 8 * k, 0, k, 1], 1)]), _pattern(10, k)])
        got.append(s.call("cudaMemcpy", p + 9 * k + 4096, 0, 4096, 1, bulk=[_pattern(11, 4096)]))
        # Python's, the failure the copy's, answered by its last call: a piece past the allocation's end
        # (the piece after it, inside, not written), a frame shorter than its piece
        _piece(s, "cudaMemcpy", [p + 10 * k - 4096, 0, k, 1], _pattern(9, k))
        _piece(s, "cudaMemcpy", [p, 0, k, 1], b"\xee" * k)
        got.append(s.call("cudaMemcpy", p + k, 0, k, 1, bulk=[b"\xee" * k]))
        _piece(s, "cuMemcpyHtoD_v2", [p + 7 * k, k], b"s" * 100)
        got.append(s.call("cuMemcpyHtoD_v2", p + 7 * k + 4096, 4096, bulk=[b"s" * 4096]))
        # a piece behind a 20 ms kernel: the device busy, Python's copy waits for it
        digest = hashlib.sha256(PARAMS_PTX).hexdigest()
        module = s.call("cuModuleLoadData", digest, len(PARAMS_PTX), "", 0, 1, len(PARAMS_PTX), bulk=[PARAMS_PTX])[1][0]
        fn = s.call("cuModuleGetFunction", module, "none")[1][0]
        _message(s, [("cuLaunchKernel", [fn, 1, 1, 1, 1, 1, 1, 0, 0, b""], None)], None)
        _piece(s, "cuMemcpyHtoD_v2", [p + 7 * k, 4096], b"q" * 4096)
        got.append(s.call("cuMemcpyHtoD_v2", p + 7 * k + 4096, 4096, bulk=[b"r" * 4096]))
        got.append(_message(s, [], sync))
        rc, _, held, _ = s.call("cudaMemcpy", 0, p, 10 * k, 2)
        assert rc == 0
        return got, b"".join(held)
    finally:
        s.close()


def test_a_large_copys_pieces_are_the_loops_as_pythons(daemons):
    """A copy of 4 MiB or more whose data frames carry (another host, or RGPU_SHM=0) comes as pieces,
    each a message of its own whose call's `sync` is PIECE_IN (server/pieces.py). The loop copies a
    piece from its frame as it copies an async copy's (copies.c piece_in_one): sync copies' pieces on
    both faces, an async copy's on its stream. The same replies, device memory and counts with the
    compiled launches off; a piece it must not run (past its allocation, a frame shorter than its
    count, behind a kernel still running) is Python's, whose failure is the copy's, answered by the
    copy's last call, the copy's later pieces not written."""
    ((on, held_on), c_on), ((off, held_off), c_off) = _on_and_off(daemons, _pieces_script)
    assert on == off
    assert held_on == held_off
    k = 8192
    assert all(r[0] == 0 for r in on[:4]), on[:4]
    assert held_on[:3 * k] == _pattern(0, k) + _pattern(1, k) + _pattern(2, k)  # not the failed copy's 0xee
    assert held_on[3 * k:5 * k + k // 2] == _pattern(3, k) + _pattern(4, k) + _pattern(5, k // 2)
    assert held_on[6 * k:6 * k + 8192] == _pattern(6, 2048) + _pattern(8, 2048) + _pattern(7, 4096)
    assert held_on[8 * k:] == _pattern(10, k) + b"\x07" * 4096 + _pattern(11, 4096)
    assert on[4][0] != 0 and "outside any allocation" in on[4][3], on[4]
    assert on[5][0] != 0, on[5]
    assert on[6][0] == 0 and held_on[7 * k:8 * k] == b"q" * 4096 + b"r" * 4096, on[6]
    # the seven pieces of the four copies that succeeded were the loop's (six a message of their own,
    # one in a step's message); none with the launches off
    assert c_on["pieces_compiled"] == 7 and c_off["pieces_compiled"] == 0, (c_on, c_off)
    assert c_on["pieces_in"] == c_off["pieces_in"] == 10, (c_on, c_off)
    assert c_on["bytes_in"] == c_off["bytes_in"], (c_on, c_off)
    assert c_on["calls"] - c_off["calls"] in (0, 1) and c_on["messages"] - c_off["messages"] in (0, 1), (c_on, c_off)


def _reply_to(s: Session, seq: int) -> tuple:
    """The worker's reply to `seq`, (head, frames); whatever it sends before it (a late copy's data, a
    reply to a call of a changed message) dropped."""
    while True:
        assert s.sock.poll(10000), f"the worker did not answer call {seq}"
        parts = s.sock.recv_multipart()
        head = wire.unpack(parts[0])
        if head[0] == seq and head[1] != wire.LATE_OUT:
            return head, parts[1:]


def test_torn_and_changed_socket_steps_get_an_answer_and_the_loop_serves_on(daemons):
    """The socket messages the compiled loop reads before Python decodes them (a step's copies from
    frames, a large copy's pieces, a step ending with late copies or managed pulls), each cut short,
    lengthened, with bytes changed or with a frame dropped, added or resized (a seeded fuzz): the
    worker answers the next call after each, goes on serving those messages in the loop with the
    right data, and another session never notices."""
    import random

    url, handle = null_server.start(daemons)
    bystander = Session(url)
    s = Session(url)
    try:
        a = s.call("cudaMalloc", 65536)[1][0]
        b = s.call("cudaMalloc", 4096)[1][0]
        out_later, pull = wire.OUT_LATER, BY_NAME["rgpuManagedPull"]

        def shapes():  # (records, frames), fresh seqs each
            n = lambda: next(s._seq)  # noqa: E731
            return [
                ([(n(), BY_NAME["cudaMemcpyAsync"], 0, [a, 0, 4096, 1, 0], 1),
                  (n(), BY_NAME["cuMemsetD8Async"], 0, [a + 4096, 3, 64, 0], 0),
                  (n(), BY_NAME["cudaDeviceSynchronize"], 1, [], 0)], [_pattern(1)]),
                ([(n(), BY_NAME["cudaMemcpy"], wire.PIECE_IN, [a + 8192, 0, 8192, 1], 1)], [_pattern(2, 8192)]),
                ([(n(), BY_NAME["cuMemcpyHtoDAsync_v2"], wire.PIECE_IN, [a + 16384, 4096, 0], 1)], [_pattern(3)]),
                ([(n(), BY_NAME["cuMemsetD8Async"], 0, [a + 20480, 5, 64, 0], 0),
                  (n(), BY_NAME["cuMemcpyDtoHAsync_v2"], out_later, [a + 20480, 64, 0], 0),
                  (n(), BY_NAME["cudaStreamSynchronize"], 1, [0], 0)], []),
                ([(n(), BY_NAME["cuMemsetD8Async"], 0, [b, 6, 64, 0], 0),
                  (n(), BY_NAME["cudaStreamSynchronize"], 1, [0], 0),
                  (n(), pull, 1, [b, 4096, b""], 0)], []),
            ]

        def barrier():
            seq = next(s._seq)
            s.sock.send_multipart([wire.encode_requests([(seq, BY_NAME["cudaStreamQuery"], 1, [0], 0)])])
            return _reply_to(s, seq)

        rnd = random.Random(3807)
        checks = 0
        for i in range(300):
            records, frames = rnd.choice(shapes())
            m, frames = bytearray(wire.encode_requests(records)), list(frames)
            how = rnd.randrange(4)
            if how == 0:
                m = m[:rnd.randrange(1, len(m))]
            elif how == 1:
                m += rnd.randbytes(rnd.randrange(1, 9))
            elif how == 2:
                for _ in range(rnd.randrange(1, 4)):
                    m[rnd.randrange(len(m))] = rnd.randrange(256)
            else:
                pick = rnd.randrange(3)
                if pick == 0 and frames:
                    frames.pop()
                elif pick == 1:
                    frames.append(rnd.randbytes(rnd.choice([0, 64, 4096])))
                elif frames:
                    frames[0] = frames[0][:rnd.randrange(len(frames[0]))]
            s.sock.send_multipart([bytes(m), *frames])
            barrier()
            if i % 25 == 24:  # the loop still copies a piece and a step's frame, exactly
                data, step = rnd.randbytes(8192), rnd.randbytes(4096)
                records, _ = shapes()[1]
                s.sock.send_multipart([wire.encode_requests(records), data])
                records, _ = shapes()[0]
                s.sock.send_multipart([wire.encode_requests(records), step])
                head, _ = _reply_to(s, records[-1][0])
                rc, _, held, _ = s.call("cudaMemcpy", 0, a, 16384, 2)
                held = b"".join(held)
                assert head[1] == 0 and rc == 0, (i, head)
                assert held[:4096] == step and held[8192:] == data, i
                checks += 1
        s.close()
        counts = {k: int(v) for k, v in handle.session_ended().items() if v.isdigit()}
        assert counts["pieces_compiled"] >= checks == 12, counts
        assert counts["frame_bytes_compiled"] >= checks * (8192 + 4096), counts
        assert bystander.call("cudaMalloc", 4096)[0] == 0
        assert handle.alive()
    finally:
        s.close()
        bystander.close()
