"""The cuda backend's page-locked stages (server/backends/cuda/host_stage.py), on the null driver
(benchmarks/native/nulldriver.c) in a process of its own that loaded it, as a worker does: a frame not
read yet (anything with `open_into`, as a streamed or sealed frame) is read into the one stage,
registered with the driver, and copied from it; every frame lands where its copy named, one after
another through the same stage; a frame larger than the stage, or a copy outside any allocation, goes
as before (the latter reading nothing); and closing the device releases it. A D2H copy's data comes in
one of the out stage's buffers, never one that something still holds: a reply kept, or a ZeroMQ frame
not sent yet."""
from __future__ import annotations

from tests.support.null_server import script_result


PRELUDE = """
import json, os
from rgpu.protocol.generated.constants import PIECE_MAX
from rgpu.server.backends.cuda import device
from rgpu.server.errors import CudaError

class Frame:
    # a frame that is read where it is used (server/data_stream.py Streamed): once
    def __init__(self, data):
        self.data, self.reads, self.into = data, 0, None
    def __len__(self):
        return len(self.data)
    def open_into(self, out):
        self.reads += 1
        self.into = type(out).__name__
        memoryview(out).cast("B")[:] = self.data
    @property
    def buffer(self):
        self.reads += 1
        return memoryview(self.data)

dev = device.CudaDevice(0, 1 << 30)

def uploaded(k, n):
    # k blocks of n random bytes in device memory, one after another: (their address, the blocks)
    a = dev.mem_alloc(k * n)
    data = [os.urandom(n) for _ in range(k)]
    for i, d in enumerate(data):
        dev.copy_htod(a + i * n, d, None)
    return a, data
"""


def run(body: str) -> dict:
    return script_result(PRELUDE, body)


def test_frames_go_through_one_registered_stage_and_land_where_their_copies_named():
    out = run("""
        a = dev.mem_alloc(3 * PIECE_MAX)
        frames = [Frame(os.urandom(n)) for n in (PIECE_MAX, 4096, PIECE_MAX - 1)]
        offs = [0, PIECE_MAX + 17, 2 * PIECE_MAX]
        for f, off in zip(frames, offs):
            dev.copy_htod(a + off, f, None)
        back = [bytes(dev.copy_dtoh(a + off, len(f), None)) == f.data for f, off in zip(frames, offs)]
        print(json.dumps({"back": back, "reads": [f.reads for f in frames], "into": [f.into for f in frames],
                          **dev.stage_stats(), "addr": dev._stage.addr}))
    """)
    assert out["back"] == [True, True, True]
    assert out["reads"] == [1, 1, 1] and out["into"] == ["memoryview"] * 3  # read once, into the stage
    assert out["staged_frames"] == 3 and out["stage_pinned"] == 1 and out["addr"] % 4096 == 0


def test_a_larger_frame_or_a_copy_outside_memory_does_not_use_the_stage():
    out = run("""
        a = dev.mem_alloc(2 * PIECE_MAX)
        big = Frame(os.urandom(PIECE_MAX + 1))
        dev.copy_htod(a, big, None)
        same = bytes(dev.copy_dtoh(a, len(big), None)) == big.data
        bad = Frame(b"x" * 4096)
        try:
            dev.copy_htod(a + 2 * PIECE_MAX, bad, None)
            err = None
        except CudaError as e:
            err = e.code
        print(json.dumps({"same": same, "big": [big.reads, big.into], "bad": [bad.reads, err],
                          **dev.stage_stats()}))
    """)
    assert out["same"] and out["big"] == [1, None]  # its `buffer`, not the stage
    assert out["bad"] == [0, "CUDA_ERROR_INVALID_VALUE"]  # nothing read: the frame is left to the stream
    assert out["staged_frames"] == 0 and out["stage_pinned"] == 0  # never made


def test_closing_the_device_releases_the_stage():
    out = run("""
        a = dev.mem_alloc(4096)
        dev.copy_htod(a, Frame(b"y" * 4096), None)
        stage = dev._stage
        dev.close()
        print(json.dumps({"closed": stage._map is None, "frames": stage.frames}))
    """)
    assert out == {"closed": True, "frames": 1}


def test_d2h_data_comes_in_page_locked_buffers_that_nothing_else_holds():
    out = run("""
        from rgpu.server.backends.cuda.host_stage import OutStage
        n = 1 << 20
        a, data = uploaded(4, n)
        first = dev.copy_dtoh(a, n, None)       # kept, as a LATE_OUT copy's data is until the next reply
        second = dev.copy_dtoh(a + n, n, None)  # kept too: both buffers held
        third = dev.copy_dtoh(a + 2 * n, n, None)  # a fresh buffer, as before the stage
        both_held = [third.base is None, dev.stage_stats()["staged_out"]]
        addr = first.ctypes.data
        del first, third
        again = dev.copy_dtoh(a + 3 * n, n, None)  # first's buffer, free again
        small = dev.copy_dtoh(a, OutStage.MIN - 1, None)
        print(json.dumps({"second": bytes(second) == data[1], "again": bytes(again) == data[3],
                          "reused": again.ctypes.data == addr, "aligned": addr % 4096 == 0,
                          "small_fresh": small.base is None, "both_held": both_held, **dev.stage_stats()}))
    """)
    assert out["second"] and out["again"], out  # a held buffer was not written over by the later copies
    assert out["reused"] and out["aligned"], out
    assert out["both_held"] == [True, 2], out  # the third copy's buffer is its own: nothing staged
    assert out["small_fresh"], out
    assert out["staged_out"] == 3 and out["stage_out_pinned"] == 1, out


def test_a_zeromq_frame_in_flight_keeps_its_buffer_until_it_is_sent():
    """A reply's frame is sent without a copy (copy=False): ZeroMQ holds the buffer until its I/O thread
    is done with it. Copies meanwhile take the other buffer, then fresh ones; the frame arrives as copied."""
    out = run("""
        import time, zmq
        n = 1 << 20
        a, data = uploaded(3, n)
        ctx = zmq.Context()
        tx, rx = ctx.socket(zmq.PAIR), ctx.socket(zmq.PAIR)
        tx.bind("inproc://reply")
        rx.connect("inproc://reply")
        first = dev.copy_dtoh(a, n, None)
        addr = first.ctypes.data
        tx.send(first, copy=False)  # nobody reads it yet
        del first
        held = [dev.copy_dtoh(a + (1 + i % 2) * n, n, None) for i in range(4)]  # the other buffer, then fresh
        later = [bytes(h) == data[1 + i % 2] for i, h in enumerate(held)]
        fresh = [h.base is None for h in held]
        got = rx.recv()
        del held
        back, deadline = False, time.monotonic() + 10  # pyzmq lets its buffer go on a thread of its own
        while not back and time.monotonic() < deadline:
            back = dev.copy_dtoh(a, n, None).ctypes.data == addr
            time.sleep(0.01)
        print(json.dumps({"arrived": got == data[0], "later": later, "fresh": fresh, "back": back}))
        dev.close()
    """)
    assert out["arrived"] and all(out["later"]), out
    assert out["fresh"] == [False, True, True, True], out
    assert out["back"], out  # the frame's buffer came back once it was sent


def test_closing_the_device_unregisters_the_out_stage():
    out = run("""
        a = dev.mem_alloc(1 << 20)
        held = dev.copy_dtoh(a, 1 << 20, None)
        stage = dev._out_stage
        registered = stage.registered
        dev.close()
        held[:] = 1  # still this process's memory, pageable now
        print(json.dumps({"registered": registered, "after": stage.registered, "slots": len(stage._slots),
                          "held": int(held.sum()) == 1 << 20}))
    """)
    assert out == {"registered": True, "after": False, "slots": 0, "held": True}
