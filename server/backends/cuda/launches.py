"""The cuda backend's compiled launch loop (native/launches.c, built into librgpu_launches.so by
libhook/build.sh): a run of a message's async kernel launches goes to the driver without a Python
frame per launch, so the worker's launch rate is the driver's rather than the interpreter's.

Python keeps the policy and the state; the loop keeps copies of what it needs:
- the handles the session issued for functions and streams (server/session.py tells it as it issues,
  restores and drops them), so a forged or stale handle is never looked up anywhere but Python;
- the session's kernel clock (timing.py, native/clock.c), which it opens a timing window in before
  a stream's first launch, as Python's launch path does, so device time stays exact and a message of
  one launch and a synchronize runs its launch here too;
- it runs only while the session holds the GPU (session.py, `hold_for_launches`), so compute shares
  stay exact too; the worker counts what it ran into the session's accounting.
At any call it is not sure of, it stops before running it, and the worker's Python path serves that
call and the rest as before (launches.c says which).

RGPU_FAST_LAUNCH=0 turns it off (every launch through Python), for comparisons."""
from __future__ import annotations

import os

from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.protocol.generated.enums import CUfunction_attribute_enum

from . import compiled
from .compiled import ffi as _ffi
from .waits import SPIN_S

KINDS = {"function": 1, "stream": 2, "event": 3, "graph": 4}
ATTRIBUTES = CUfunction_attribute_enum  # a name's number, the wire's and the driver's
SERVED_ATTRIBUTES = ("CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", "CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT")


# the bytes of the late copies (OUT_LATER) a step the compiled loop serves may end with (`.item()`s and
# the like) and of the managed pulls after its wait (cuDNN's two buffers of 64 KiB); larger ones are
# Python's
LATE_CAP = 512 << 10


class Launcher:
    """One device's loop. `launch_address`: the driver's cuLaunchKernel; `clock`: the device's
    KernelClock (timing.py), which must outlive the loop."""

    def __init__(self, launch_address: int, clock, ids: tuple[int, int] | None = None):
        """`ids`: the call ids of the launches it runs (cuLaunchKernel's and cudaLaunchKernel's unless
        given: the software GPU's idle waits give ids no call has)."""
        lib = compiled.library()
        if lib is None:
            raise OSError(compiled.unavailable())
        self._lib = lib
        self._clock = clock  # kept: the loop's C side holds its pointer
        if ids is None:
            ids = (BY_NAME["cuLaunchKernel"], BY_NAME["cudaLaunchKernel"])
        self._l = _ffi.gc(lib.rgpu_launcher_new(_ffi.cast("void *", launch_address), clock.native, *ids),
                          lib.rgpu_launcher_free)
        if self._l == _ffi.NULL:
            raise MemoryError("rgpu_launcher_new")
        lib.rgpu_launcher_poll(self._l, int(SPIN_S * 1e9))  # a wait polls as long here as in waits.py
        self._run_out = _ffi.new("rgpu_launch_run *")
        self._count = _ffi.new("uint64_t *")
        self._value = _ffi.new("int32_t *")  # attribute_of's answer
        self._kind = _ffi.new("int *")
        # the loop's address, for the worker's compiled serving loop (server/native/serve.c), which
        # answers waits with it (the worker counts them in `waits`)
        self.loop = int(_ffi.cast("uintptr_t", self._l))
        self.ids = frozenset(ids)
        self.wait_ids = frozenset()  # the waits it answers (serve_waits)
        self.served = 0  # launches it ran (logs, tests)
        self.copier = None  # the device's compiled copies (copies.py), whose memsets and copies a step may hold
        self.waits = 0  # waits it answered (logs, tests)
        self.copies = 0  # copies and memsets the serving loop served beside it (copies.py; logs, tests)
        self.batches = 0  # messages of async calls only it ran whole, undecoded by Python (logs, tests)
        self._frames = None  # (pointers, lengths, the frames' cdata) of the message being read
        # where a step's late copies (OUT_LATER, from another host: `.item()`) are read into once its
        # wait is answered (copies.c late_frame_one), while a socket message is being served (begin)
        self._late = bytearray(LATE_CAP)
        self._late_c = _ffi.from_buffer(self._late)
        self._late_on = False
        self._late_out = _ffi.new("uint64_t[3]")
        self._pull_digest = _ffi.new("uint8_t[16]")
        self._pull_same = _ffi.new("int *")
        self.frame_bytes_in = 0  # bytes its runs copied from messages' frames to the device (logs, tests)
        self.late_bytes_out = 0  # bytes of steps' late copies it read for their frames (logs, tests)
        self.pulls_served = 0  # managed pulls after steps' waits it read and digested (logs, tests)
        self.pieces_in = 0  # large H2D copies' pieces it copied from their frames (logs, tests)
        self._copier_of = self._copier_c = None  # the copier `_copier` cast, and the cast
        self.face = "driver"  # the face of the last wait it answered

    address = staticmethod(compiled.address)
    # a message's last call, as rgpu_launcher_shape finds it (launcher.h); STEP_ASYNC: async calls only
    STEP_WAIT, STEP_FRAME, STEP_ASYNC = 1, 3, 4

    def serve_waits(self, query_address: int, synchronize_address: int) -> None:
        """Lets the loop answer a sync stream query or synchronize whose stream is done (`wait`), with
        the driver's cuStreamQuery and cuStreamSynchronize."""
        self._lib.rgpu_launcher_waits(self._l, _ffi.cast("void *", query_address),
                                      _ffi.cast("void *", synchronize_address), _ffi.new("uint64_t[4]", WAIT_IDS))
        self.wait_ids = frozenset(WAIT_IDS)

    def serve_more_waits(self, event_query: int, event_synchronize: int, ctx_synchronize: int) -> None:
        """Lets the loop answer event queries and synchronizes on events that are done, and a device
        synchronize with every stream done, too (after `serve_waits`)."""
        self._lib.rgpu_launcher_more_waits(self._l, _ffi.cast("void *", event_query),
                                           _ffi.cast("void *", event_synchronize),
                                           _ffi.cast("void *", ctx_synchronize), _ffi.new("uint64_t[6]", MORE_WAIT_IDS))
        self.wait_ids = frozenset(WAIT_IDS + MORE_WAIT_IDS)

    def serve_graphs(self, graph_launch: int) -> None:
        """Lets the loop launch the executable graphs the worker built (api/graphs.py, cuda/graphs.py)
        with the driver's cuGraphLaunch."""
        self._lib.rgpu_launcher_graphs(self._l, _ffi.cast("void *", graph_launch), GRAPH_LAUNCH_ID)
        self.ids = self.ids | {GRAPH_LAUNCH_ID}

    def serve_clusters(self, launch_ex: int) -> None:
        """Lets the loop make launches in thread-block clusters (cuLaunchKernelEx: cuBLASLt's matmuls in
        a mixed-precision step) with the driver's `launch_ex`, the attributes as `device.launch` gives
        them; a cluster the driver would refuse stays Python's, which says why."""
        self._lib.rgpu_launcher_clusters(self._l, _ffi.cast("void *", launch_ex), BY_NAME["cuLaunchKernelEx"])
        self.ids = self.ids | {BY_NAME["cuLaunchKernelEx"]}

    def serve_attributes(self, set_attribute: int) -> None:
        """Lets a step hold an async cuFuncSetAttribute of a function's dynamic shared memory or carveout,
        run with the driver's `set_attribute`: cuDNN sets its kernels' sizes for the forward and the
        backward pass in every training step, and such a set would leave the whole step's message to
        Python. What is set, here or by Python (`attribute`), is kept here for `attribute_of`."""
        self._lib.rgpu_launcher_attributes(self._l, _ffi.cast("void *", set_attribute), BY_NAME["cuFuncSetAttribute"],
                                           _ffi.new("int64_t[2]", [ATTRIBUTES[n] for n in SERVED_ATTRIBUTES]))

    def attribute(self, function, name: str, value: int) -> None:
        """Python set the driver's function `function`'s attribute `name` to `value` (the driver took it)."""
        if name in SERVED_ATTRIBUTES and self._lib.rgpu_launcher_attribute(
                self._l, _ffi.cast("void *", self.address(function)), ATTRIBUTES[name], value) != 0:
            raise MemoryError("rgpu_launcher_attribute")

    def attribute_of(self, function, name: str) -> int | None:
        """What was last set of `function`'s served attribute `name`, by the loop or by Python; None."""
        if name not in SERVED_ATTRIBUTES or not self._lib.rgpu_launcher_attribute_of(
                self._l, _ffi.cast("void *", self.address(function)), ATTRIBUTES[name], self._value):
            return None
        return self._value[0]

    def learn(self, h: int, kind: str, obj) -> None:
        if kind == "graph":  # the session's object (api/graphs.py) holds the driver's
            obj = obj.native
        if kind in KINDS and self._lib.rgpu_launcher_learn(self._l, h, _ffi.cast("void *", self.address(obj)),
                                                           KINDS[kind]) != 0:
            raise MemoryError("rgpu_launcher_learn")

    def forget(self, h: int) -> None:
        self._lib.rgpu_launcher_forget(self._l, h)

    def clear(self) -> None:
        self._lib.rgpu_launcher_clear(self._l)

    def run(self, header, token: int, start: int) -> tuple[int, int, bool]:
        """Serves the calls of the message whose first frame is `header` (a buffer) from index `start`
        while it can: (how many ran, the last one's seq, whether it was the runtime's face)."""
        out = self._run_out
        self._lib.rgpu_launcher_run(self._l, _ffi.from_buffer(header), len(header), token, start, out)
        n = out.served
        self.served += n
        return n, out.last_seq, bool(out.runtime)

    def wait(self, header, token: int, index: int) -> bool:
        """Answers call `index` of the message whose first frame is `header` if it is a sync stream query
        or synchronize of a stream whose work is done (the answer is success; launches.c says when it
        does); False leaves it to Python. `face` is then the call's ("runtime" or "driver")."""
        out = self._run_out
        if not self._lib.rgpu_launcher_wait(self._l, _ffi.from_buffer(header), len(header), token, index, out):
            return False
        self._answered(out)
        return True

    def aliases(self, triples: list[tuple[int, int, int]]) -> None:
        """[(held, size, here)] by held: launch parameters inside [held, held + size) are moved to
        here (aliases.py)."""
        flat = [v for t in triples for v in t]
        if self._lib.rgpu_launcher_aliases(self._l, _ffi.new("uint64_t[]", flat or [0]), len(triples)) != 0:
            raise MemoryError("rgpu_launcher_aliases")

    def printf_fd(self, fd: int) -> None:
        """The device printf pipe (printf.py), which `wait_alone` checks."""
        self._lib.rgpu_launcher_printf(self._l, fd)

    def wait_alone(self, header):
        """`wait` for a message whose one frame is `header`, not decoded by Python: when the loop
        answered its one call (a well-formed message of a wait on a stream that is done, nothing
        else), what it found (seq, settled, done, pending: rgpu_launch_run), else None. It has settled
        the kernel clock too (settled: done is the device time) and checked the printf pipe (pending
        bytes, -1 without one)."""
        out = self._run_out
        if not self._lib.rgpu_launcher_wait_alone(self._l, _ffi.from_buffer(header), len(header), out):
            return None
        self._answered(out)
        return out

    def shape(self, header) -> tuple[int, int, int]:
        """(calls, kind, bytes) of a message whose one frame is `header`, read once (launches.c,
        rgpu_launcher_shape): the calls the loop serves before its last, which is a wait it may answer
        (kind STEP_WAIT: a step), or, with the device's copier, a sync device-to-host copy whose data
        goes back in a frame (STEP_FRAME: a kernel and its result read back with cudaMemcpy, from
        another host; bytes: the copy's); or every call one of those a step runs before its last
        (STEP_ASYNC: a batch of async calls, calls: all of them). (0, 0, 0) for any other message."""
        kind, count = self._kind, self._count
        self._rewind()
        n = self._lib.rgpu_launcher_shape(self._l, self._copier(), _ffi.from_buffer(header), len(header), _ffi.NULL, 0,
                                          kind, count)
        return (n, kind[0], count[0]) if n else (0, 0, 0)

    def begin(self, frames) -> None:
        """A socket message's passes begin: its data frames (zmq.Frame, in order), each an async H2D
        copy's (from another host: a DataLoader's pinned batch copied without blocking), which a step
        or a batch then runs from its frame (copies.c frame_h2d_one); and a step may end with async
        D2H copies whose data goes back in frames before the reply (OUT_LATER: `.item()`), read once
        its wait is answered (`late`). Each pass (shape, then a run) starts from the first frame.
        `end` undoes it: the call ring's serving loop reads the same copier, with neither."""
        if self.copier is None:
            return
        self._late_on = True
        if not frames:
            self._frames = None
            return
        views = [_ffi.from_buffer(f.buffer) for f in frames]
        self._frames = (_ffi.new("void *[]", views), _ffi.new("uint64_t[]", [len(v) for v in views]), views)

    def end(self) -> None:
        if self.copier is None:
            return
        if self._frames is not None:  # (a message of one frame, most of them, set none)
            self._lib.rgpu_copier_frames(self._copier(), _ffi.NULL, _ffi.NULL, 0)
        self._frames, self._late_on = None, False
        self._lib.rgpu_copier_late_buffer(self._copier(), _ffi.NULL, 0)

    def late(self) -> list[tuple[int, bytes]]:
        """The late copies of the step `step` just answered: (seq, data) each, in order, to be sent
        before the wait's reply as Python's _send_late sends them."""
        if not self._late_on:
            return []
        lib, c, o = self._lib, self._copier(), self._late_out
        out = []
        for i in range(lib.rgpu_copier_late_n(c)):
            lib.rgpu_copier_late_get(c, i, o, o + 1, o + 2)
            out.append((int(o[0]), bytes(self._late[o[1]:o[1] + o[2]])))
        return out

    def pulls(self) -> list[tuple[int, bytes, bytes | None]]:
        """The managed pulls after the wait of the step `step` just answered (rgpuManagedPull, from
        another host): (seq, digest, data) each, in order, data None where the digest is the one the
        client named; their replies follow the wait's, as api/managed.py managed_pull answers."""
        if not self._late_on:
            return []
        lib, c, o, d = self._lib, self._copier(), self._late_out, self._pull_digest
        out = []
        for i in range(lib.rgpu_copier_pull_n(c)):
            lib.rgpu_copier_pull_get(c, i, o, o + 1, o + 2, d, self._pull_same)
            data = None if self._pull_same[0] else bytes(self._late[o[1]:o[1] + o[2]])
            out.append((int(o[0]), bytes(_ffi.buffer(d, 16)), data))
        return out

    def frame_bytes(self) -> int:
        """The bytes the last run copied from the frames (`frames`): the session's bytes in."""
        return int(self._lib.rgpu_copier_frame_bytes(self._copier())) if self._frames is not None else 0

    def pieces(self) -> int:
        """How many of the frames the last run copied were large copies' pieces (PIECE_IN: server/pieces.py)."""
        return int(self._lib.rgpu_copier_pieces(self._copier())) if self._frames is not None else 0

    def _rewind(self) -> None:
        if self._frames is not None:
            p, n, views = self._frames
            self._lib.rgpu_copier_frames(self._copier(), p, n, len(views))
        if self._late_on:
            self._lib.rgpu_copier_late_buffer(self._copier(), self._late_c, LATE_CAP)

    def _copier(self):
        """The device's compiled copies (copies.py sets `copier`), for a step's memsets and copies: cast
        once per copier, not at each of a message's calls into C."""
        c = self.copier
        if c is None:
            return _ffi.NULL
        if self._copier_of is not c:
            self._copier_c, self._copier_of = _ffi.cast("rgpu_copier *", c.address), c
        return self._copier_c

    def piece(self, header, frame) -> tuple[int, str] | None:
        """A message that is one piece of a large H2D copy (PIECE_IN, server/pieces.py) and its one data
        frame (a zmq.Frame): copied to the device by copies.c rgpu_copier_piece; (its seq, its face);
        None where nothing ran and Python serves the message (anything else, a piece the loop cannot
        run: past its allocation, behind work still running, refused by the driver)."""
        if self.copier is None:
            return None
        data = frame.buffer
        if not self._lib.rgpu_copier_piece(self._copier(), _ffi.from_buffer(header), len(header),
                                           _ffi.from_buffer(data), len(data), self._count, self._kind):
            return None
        self.pieces_in += 1
        self.frame_bytes_in += len(data)
        return int(self._count[0]), "runtime" if self._kind[0] else "driver"

    def step(self, header, n: int, settle_first: bool):
        """Serves a message `shape` found STEP_WAIT, `n` calls and a wait, not decoded by Python (nor
        read a second time, launches.c rgpu_launcher_step_checked): its launches, the windows
        closed (`settle_first`: settled) before the wait, the wait, the clock settled and the printf
        pipe checked after it. (answered, out): answered, out says the wait's seq, the device time
        (settled, done) and the printf bytes pending; not, the loop stopped at call out.served (a
        launch the driver refused, or a wait on work not done), which Python serves with the rest."""
        out = self._run_out
        self._rewind()
        rc = self._lib.rgpu_launcher_step_checked(self._l, self._copier(), _ffi.from_buffer(header), len(header), n,
                                                  settle_first, out)
        self.served += out.kernels
        if rc:
            self._answered(out)
        return bool(rc), out

    def run_calls(self, header, n: int):
        """Runs the `n` calls of a message `shape` found STEP_ASYNC (a batch of async calls only): the
        run record says how many ran (out.served; fewer: the driver refused the next, which Python
        serves with the rest), the last one's seq and face, and how many were launches."""
        out = self._run_out
        self._rewind()
        self._lib.rgpu_launcher_run_calls(self._l, self._copier(), _ffi.from_buffer(header), len(header), n, out)
        self.served += out.kernels
        return out

    def frame_step(self, header, n: int, buf, settle_first: bool):
        """Serves a message `shape` found STEP_FRAME, `n` calls and a copy into `buf` (of the copy's
        bytes), as `step` serves a step: (answered, out); not answered, the loop stopped at call
        out.served (work not done within its poll, printf output for the reply, a refused call),
        which Python serves with the rest."""
        out = self._run_out
        self._rewind()
        rc = self._lib.rgpu_launcher_frame_step(self._l, self._copier(), _ffi.from_buffer(header), len(header), n,
                                                settle_first, _ffi.from_buffer(buf), len(buf), out)
        self.served += out.kernels
        if rc:
            self.copies += 1
            self.face = "runtime" if out.runtime else "driver"
        return bool(rc), out

    def _answered(self, out) -> None:
        self.waits += 1
        self.face = "runtime" if out.runtime else "driver"


# cuStreamQuery's, cudaStreamQuery's, cuStreamSynchronize's and cudaStreamSynchronize's ids (launches.c)
WAIT_IDS = (BY_NAME["cuStreamQuery"], BY_NAME["cudaStreamQuery"], BY_NAME["cuStreamSynchronize"],
            BY_NAME["cudaStreamSynchronize"])
# cuEventQuery's, cudaEventQuery's, cuEventSynchronize's, cudaEventSynchronize's, cuCtxSynchronize's and
# cudaDeviceSynchronize's (launches.c, rgpu_launcher_more_waits)
MORE_WAIT_IDS = (BY_NAME["cuEventQuery"], BY_NAME["cudaEventQuery"], BY_NAME["cuEventSynchronize"],
                 BY_NAME["cudaEventSynchronize"], BY_NAME["cuCtxSynchronize"], BY_NAME["cudaDeviceSynchronize"])


GRAPH_LAUNCH_ID = BY_NAME["rgpuGraphLaunch"]


def make(cuda_ffi, cuda_lib, clock):
    """A Launcher over `cuda_lib`'s cuLaunchKernel timed by `clock`, or None: switched off
    (RGPU_FAST_LAUNCH=0) or its library not built (logged: every launch then goes through Python)."""
    if os.environ.get("RGPU_FAST_LAUNCH", "1") == "0":
        return None
    try:
        launch = cuda_ffi.addressof(cuda_lib, "cuLaunchKernel")
    except AttributeError:  # a stand-in driver of a test that launches nothing
        return None
    try:
        launcher = Launcher(int(cuda_ffi.cast("uintptr_t", launch)), clock)
    except OSError:
        return None
    try:
        launcher.serve_graphs(int(cuda_ffi.cast("uintptr_t", cuda_ffi.addressof(cuda_lib, "cuGraphLaunch"))))
    except AttributeError:  # a stand-in driver without graphs: their launches stay Python's
        pass
    try:
        launcher.serve_clusters(int(cuda_ffi.cast("uintptr_t", cuda_ffi.addressof(cuda_lib, "cuLaunchKernelEx"))))
    except AttributeError:  # a stand-in driver without it: such launches stay Python's
        pass
    try:
        launcher.serve_attributes(int(cuda_ffi.cast("uintptr_t", cuda_ffi.addressof(cuda_lib, "cuFuncSetAttribute"))))
    except AttributeError:  # a stand-in driver without it: those sets stay Python's
        pass
    try:
        query, synchronize = (cuda_ffi.addressof(cuda_lib, n) for n in ("cuStreamQuery", "cuStreamSynchronize"))
    except AttributeError:  # a stand-in driver without streams: every wait is Python's
        return launcher
    launcher.serve_waits(int(cuda_ffi.cast("uintptr_t", query)), int(cuda_ffi.cast("uintptr_t", synchronize)))
    try:
        more = [cuda_ffi.addressof(cuda_lib, n) for n in ("cuEventQuery", "cuEventSynchronize", "cuCtxSynchronize")]
    except AttributeError:  # a stand-in driver without events: those waits stay Python's
        return launcher
    launcher.serve_more_waits(*(int(cuda_ffi.cast("uintptr_t", f)) for f in more))
    return launcher
