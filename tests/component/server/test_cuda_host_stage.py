"""The cuda backend's page-locked stage for H2D frames read from the network (server/backends/cuda/
host_stage.py), on the null driver (benchmarks/native/nulldriver.c) in a process of its own that
loaded it, as a worker does: a frame not read yet (anything with `open_into`, as a streamed or
sealed frame) is read into the one stage, registered with the driver, and copied from it; every
frame lands where its copy named, one after another through the same stage; a frame larger than
the stage, or a copy outside any allocation, goes as before (the latter reading nothing); and
closing the device releases it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from benchmarks.native import run as native

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
"""


def run(body: str) -> dict:
    p = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(body)], capture_output=True, text=True,
                       timeout=120, env={**os.environ, "RGPU_LIBCUDA": str(native.null_driver())})
    assert p.returncode == 0, p.stdout + p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


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
