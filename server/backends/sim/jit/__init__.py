"""The software GPU's compiler: a kernel's PTX to native code through LLVM (llvmlite).

The interpreter (ptx/interp.py) stays the reference; a kernel this compiler does not cover runs
there, decided once per kernel when it is first launched (jit/check.py says why, logged once).

How a block runs (codegen.py): its threads one after another, each as plain scalar code, from one
*sync point* to the next: a block barrier (bar.sync) or a warp-collective instruction (shfl, vote,
bar.warp.sync). A thread that reaches one saves the registers live there (liveness.py) into its
slot of a register file and returns; when every thread of the block has stopped, the lowest
warp-collective point is carried out for the lanes waiting at it (as min-PC scheduling would pick
it), or, when only barriers are left, every waiting thread is released. Divergence needs nothing:
each thread follows its own branches. Blocks are independent and are shared among worker threads
(runner.py), which run the compiled code without the GIL.

Configuration: ``RGPU_SIM_JIT`` (on/off, default on; ``rgpu-server --sim-jit``), ``RGPU_SIM_JIT_THREADS``
(worker threads per launch; default: the CPUs this process may use), ``RGPU_SIM_JIT_AFTER``: the
work (thread-instructions, estimated as threads x code length when a launch starts, then what its
interpreted batches really ran) a kernel's launches are interpreted for before it is compiled
(default 2e7, some 0.2 s of interpreting: about what compiling costs, so a kernel launched once on a
few threads never pays for LLVM; 0 compiles at the first launch). An interpreted batch counts at
least its time at 1e8 a second (interpreted_rate): a one-thread loop is slow to interpret long
before it is many instructions. A launch that passes it part way runs its remaining blocks
compiled (kernels.launch).
"""
from __future__ import annotations

import os
import time

_enabled: bool | None = None


def enabled() -> bool:
    """Whether sim launches try the compiled path (RGPU_SIM_JIT=on|off, default on)."""
    global _enabled
    if _enabled is None:
        _enabled = os.environ.get("RGPU_SIM_JIT", "on").strip().lower() not in ("0", "off", "false", "no")
    return _enabled


def set_enabled(on: bool) -> None:
    global _enabled
    _enabled = bool(on)


_after: float | None = None


def after() -> float:
    """Estimated thread-instructions of interpreted launches before a kernel is compiled."""
    if _after is not None:
        return _after
    return float(os.environ.get("RGPU_SIM_JIT_AFTER", "2e7"))


def set_after(work: float | None) -> None:
    """Override RGPU_SIM_JIT_AFTER (None: read it again)."""
    global _after
    _after = work


_rate: float | None = None


def interpreted_rate() -> float:
    """Thread-instructions a second that an interpreted launch's time counts as toward after():
    the interpreter's rate on whole blocks of lanes (a launch of few lanes runs far slower, and
    its time, not its instructions, says what compiling would save)."""
    return 1e8 if _rate is None else _rate


def set_interpreted_rate(rate: float | None) -> None:
    """Override the nominal rate (0: count instructions only; None: the default)."""
    global _rate
    _rate = rate


_cpus: tuple[float, int] = (float("-inf"), 1)


def threads() -> int:
    global _cpus
    n = os.environ.get("RGPU_SIM_JIT_THREADS")
    if n:
        return max(1, int(n))
    # the CPUs this process may use, read again once a second (a launch's call costs microseconds,
    # and the affinity of a server changes when its operator moves it, not launch by launch)
    now = time.monotonic()
    if now - _cpus[0] >= 1.0:
        try:
            count = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            count = os.cpu_count() or 1
        _cpus = (now, max(1, count))
    return _cpus[1]
