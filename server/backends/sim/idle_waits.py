"""The compiled serving loop's answers to the software GPU's waits (server/native/serve.c).

The software GPU's work is Python's (its kernels run in the worker's process: queue.py), so no
compiled code can wait for it. But a wait that finds the device idle (nothing queued or running, no
kernel's error kept, no printf output due) has one answer for every stream and event of the session:
success, as its Python path gives it (api/stream.py, api/device.py). While the device is so
(SimDevice.loop_idle), the worker lets the compiled serving loop (the call ring on the same host, the
socket's door across hosts) serve the session with this launcher: the cuda backend's (launches.py),
knowing the session's streams and events only, running nothing, over a "driver" whose queries and
synchronizes all answer done (launches.c rgpu_launcher_done_*). The synchronize round trip, the
commonest blocking call, then costs the worker no Python.

Copies and memsets too: an idle device's copy runs at once (device.py copy_htod and the rest wait for
the queue, then touch memory), and the session's memory is one mapping in the worker (memory.py). So
the launcher carries the cuda backend's compiled copies (copies.py) over that mapping instead of a
driver: memcpy and memset at the device address's place in it, into ranges inside one allocation of
the memory's table, which the memory keeps the copier told of (DeviceMemory.mirror_to). Every copy
path the loop serves for the cuda backend is then the loop's here too: pieces and frames from
another host, reads into a reply's frame buffer, the segment's copies on the same host, copies
from and to the program's pinned segments (server/pinned.py tells it them: Device.compiled_copier),
a step's late reads and managed pulls. Larger reads stay Python's, which sends the mapping's bytes as
a view without copying them (copies.c rgpu_copier_d2h_alone); so do allocations, frees and event
records (no driver calls are given to it).

Anything else the loop hands to Python, as a call it does not know; once a launch is queued the
worker serves every message in Python again until the device is idle.

RGPU_FAST_LAUNCH=0 turns it off with the cuda backend's loop (every call through Python);
RGPU_FAST_COPY=0 the copies alone."""
from __future__ import annotations

import os
import types

from ..cuda import compiled
from ..cuda.compiled import ffi as _ffi
from ..cuda.copies import Copier
from ..cuda.launches import KINDS, Launcher

NO_CALL = (1 << 64) - 1  # a call id no message carries: the loop's launches are never this launcher's


class IdleWaits(Launcher):
    def __init__(self):
        lib = compiled.library()
        if lib is None:
            raise OSError(compiled.unavailable())
        # a kernel clock that never opens a window (nothing launches here): its settle is 0 s at once
        clock = _ffi.gc(lib.rgpu_clock_new(*([_ffi.NULL] * 5)), lib.rgpu_clock_free)
        if clock == _ffi.NULL:
            raise MemoryError("rgpu_clock_new")
        super().__init__(0, types.SimpleNamespace(native=clock), ids=(NO_CALL, NO_CALL))
        done, device_done = (int(_ffi.cast("uintptr_t", _ffi.addressof(lib, n)))
                             for n in ("rgpu_launcher_done_object", "rgpu_launcher_done_device"))
        self.serve_waits(done, done)
        self.serve_more_waits(done, done, device_done)

    def learn(self, h: int, kind: str, obj) -> None:
        """Streams and events only, each under its own handle as the object the "driver" ignores;
        functions and graphs never (nothing launches here)."""
        if kind in ("stream", "event") and self._lib.rgpu_launcher_learn(self._l, h, _ffi.cast("void *", h),
                                                                          KINDS[kind]) != 0:
            raise MemoryError("rgpu_launcher_learn")


def make(memory) -> IdleWaits | None:
    """The device's IdleWaits, copying in `memory` (memory.py DeviceMemory) unless RGPU_FAST_COPY=0,
    or None: switched off (RGPU_FAST_LAUNCH=0) or its library not built (every wait then goes through
    Python)."""
    if os.environ.get("RGPU_FAST_LAUNCH", "1") == "0":
        return None
    try:
        waits = IdleWaits()
    except OSError:
        return None
    if os.environ.get("RGPU_FAST_COPY", "1") != "0":
        # no driver calls: every copy and memset in the mapping (copies.c rgpu_copier_flat)
        memory.mirror_to(Copier(waits, [0] * 5, None))
    return waits
