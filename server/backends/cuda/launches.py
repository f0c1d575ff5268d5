"""The cuda backend's compiled launch loop (native/launches.c, built into librgpu_launches.so by
libhook/build.sh): a run of a message's async kernel launches goes to the driver without a Python
frame per launch, so the worker's launch rate is the driver's rather than the interpreter's.

Python keeps the policy and the state; the loop keeps copies of what it needs:
- the handles the session issued for functions and streams (server/session.py tells it as it issues,
  restores and drops them), so a forged or stale handle is never looked up anywhere but Python;
- which streams have an open timing window (timing.py tells it), so device time stays exact; a
  stream without one it opens itself with a timing event the clock lent it, and the clock adopts
  that window (`opened`), so a message of one launch and a synchronize runs its launch here too;
- it runs only while the session holds the GPU (session.py, `hold_for_launches`), so compute shares
  stay exact too; the worker counts what it ran into the session's accounting.
At any call it is not sure of, it stops before running it, and the worker's Python path serves that
call and the rest as before (launches.c says which).

RGPU_FAST_LAUNCH=0 turns it off (every launch through Python), for comparisons."""
from __future__ import annotations

import os

import cffi
import structlog

from rgpu.protocol.generated.calltable import BY_NAME

log = structlog.get_logger()

_CDEF = """
typedef struct rgpu_launcher rgpu_launcher;
typedef struct { uint32_t served; uint64_t last_seq; int runtime; uint32_t opened; uint64_t streams[8];
                 uint64_t events[8]; } rgpu_launch_run;
rgpu_launcher *rgpu_launcher_new(void *launch, void *record, uint64_t driver_id, uint64_t runtime_id);
void rgpu_launcher_free(rgpu_launcher *l);
int rgpu_launcher_learn(rgpu_launcher *l, uint64_t h, void *object, int kind);
void rgpu_launcher_forget(rgpu_launcher *l, uint64_t h);
void rgpu_launcher_clear(rgpu_launcher *l);
void rgpu_launcher_window_opened(rgpu_launcher *l, void *stream);
void rgpu_launcher_windows_closed(rgpu_launcher *l);
int rgpu_launcher_lend(rgpu_launcher *l, void *event);
int rgpu_launcher_take_back(rgpu_launcher *l, void **out, int max);
void rgpu_launcher_run(rgpu_launcher *l, const void *header, size_t len, uint64_t token, uint32_t start,
                       rgpu_launch_run *out);
"""
KINDS = {"function": 1, "stream": 2}
LIBRARY = "librgpu_launches.so"

_ffi = cffi.FFI()
_ffi.cdef(_CDEF)
_lib = None
_unavailable = ""  # why the library could not be loaded (logged once per worker)


def _library():
    global _lib, _unavailable
    if _lib is None and not _unavailable:
        from rgpu.paths import LibraryMissing, libdir
        try:
            _lib = _ffi.dlopen(str(libdir() / LIBRARY))
        except (LibraryMissing, OSError) as e:
            _unavailable = str(e)
            log.warning("compiled_launches_unavailable", reason=_unavailable)
    return _lib


LEND_MAX = 16  # launches.c MAX_LENT


class Launcher:
    """One device's loop. `launch`, `record`: the driver's cuLaunchKernel and cuEventRecord as function
    pointers (any cffi's)."""

    def __init__(self, launch_address: int, record_address: int):
        lib = _library()
        if lib is None:
            raise OSError(_unavailable)
        self._lib = lib
        self._l = _ffi.gc(lib.rgpu_launcher_new(_ffi.cast("void *", launch_address), _ffi.cast("void *", record_address),
                                                BY_NAME["cuLaunchKernel"], BY_NAME["cudaLaunchKernel"]),
                          lib.rgpu_launcher_free)
        if self._l == _ffi.NULL:
            raise MemoryError("rgpu_launcher_new")
        self._run_out = _ffi.new("rgpu_launch_run *")
        self.ids = frozenset((BY_NAME["cuLaunchKernel"], BY_NAME["cudaLaunchKernel"]))
        self.served = 0  # launches it ran (logs, tests)
        self.on_opened = None  # the clock's adopt(run): run.opened windows, run.streams[i]'s with run.events[i]

    @staticmethod
    def address(obj) -> int:
        """A driver object (a cdata pointer of the backend's cffi) as a number."""
        return int(_ffi.cast("uintptr_t", obj)) if obj is not None else 0

    def learn(self, h: int, kind: str, obj) -> None:
        if kind in KINDS and self._lib.rgpu_launcher_learn(self._l, h, _ffi.cast("void *", self.address(obj)),
                                                           KINDS[kind]) != 0:
            raise MemoryError("rgpu_launcher_learn")

    def forget(self, h: int) -> None:
        self._lib.rgpu_launcher_forget(self._l, h)

    def clear(self) -> None:
        self._lib.rgpu_launcher_clear(self._l)

    def window_opened(self, stream) -> None:
        self._lib.rgpu_launcher_window_opened(self._l, _ffi.cast("void *", self.address(stream)))

    def windows_closed(self) -> None:
        self._lib.rgpu_launcher_windows_closed(self._l)

    def lend(self, event) -> bool:
        """Gives the loop a timing event to open a window with; False when it holds LEND_MAX."""
        return self._lib.rgpu_launcher_lend(self._l, _ffi.cast("void *", self.address(event))) == 0

    def take_back(self) -> list[int]:
        """The addresses of the lent events the loop has not used (it holds none after this)."""
        out = _ffi.new("void *[]", LEND_MAX)
        n = self._lib.rgpu_launcher_take_back(self._l, out, LEND_MAX)
        return [int(_ffi.cast("uintptr_t", out[i])) for i in range(n)]

    def run(self, header, token: int, start: int) -> tuple[int, int, bool]:
        """Serves the calls of the message whose first frame is `header` (a buffer) from index `start`
        while it can: (how many ran, the last one's seq, whether it was the runtime's face)."""
        out = self._run_out
        self._lib.rgpu_launcher_run(self._l, _ffi.from_buffer(header), len(header), token, start, out)
        if out.opened:  # even when nothing ran: a launch the driver refused had its window opened
            self.on_opened(out)
        n = out.served
        self.served += n
        return n, out.last_seq, bool(out.runtime)


def make(cuda_ffi, cuda_lib):
    """A Launcher over `cuda_lib`'s cuLaunchKernel, or None: switched off (RGPU_FAST_LAUNCH=0) or its
    library not built (logged: every launch then goes through Python, as before)."""
    if os.environ.get("RGPU_FAST_LAUNCH", "1") == "0":
        return None
    try:
        launch = cuda_ffi.addressof(cuda_lib, "cuLaunchKernel")
        record = cuda_ffi.addressof(cuda_lib, "cuEventRecord")
    except AttributeError:  # a stand-in driver of a test that launches nothing
        return None
    try:
        return Launcher(int(cuda_ffi.cast("uintptr_t", launch)), int(cuda_ffi.cast("uintptr_t", record)))
    except OSError:
        return None
