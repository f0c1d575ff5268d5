"""One launch of a compiled kernel: the context every worker thread gets, the workers themselves,
the launch's clock at back edges, and faults turned into the SimFault the interpreter raises.

Workers take blocks from one shared counter (the compiled code's atomic add), so a launch of many
blocks keeps every worker busy; the calling thread is worker 0, and only it calls the clock (the
session's time slices). A fault stops the others at their next block; the fault of the lowest
block is the one reported.

A launch takes a second worker only when it has the work to pay for it: handing blocks to the pool
and waiting for them costs some 100 us on a loaded two-core host, as much as 4e5 thread-instructions
of compiled code, so a small launch (a CuPy elementwise op on a small array: a few blocks) ran twice
as long on two workers as on one; a worker is worth it from about twice that work. The work is what
the kernel's earlier launches ran per thread (its loops included); a kernel's first launch, whose
loops are unknown, takes every worker.
"""
from __future__ import annotations

import ctypes
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .. import lanes
from ..errors import SimFault
from ..ptx import printf
from . import prelude as P
from . import threads
from .engine import Compiled

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
TICK = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p)


def _workers(n: int) -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None or _pool._max_workers < n:
            _pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="rgpu-sim-jit")
        return _pool


def _ptr(a: np.ndarray) -> int:
    # the array interface's address: a.ctypes.data builds a ctypes helper object each time; even
    # this costs 1-3 us (a dict built per call), so what lasts from launch to launch is looked up
    # in _addr instead
    return a.__array_interface__["data"][0]


_addrs: dict[int, tuple] = {}


def _addr(a: np.ndarray) -> int:
    """The address of an array that outlives launches (the device's arena, its allocation table,
    a tid table): remembered while the array lives (a weak reference: holding the arena would hold
    a closed device's memory). The table's arrays are replaced, never changed in size, when an
    allocation comes or goes (memory.py), so an array's address is its address for good."""
    hit = _addrs.get(id(a))
    if hit is not None and hit[0]() is a:
        return hit[1]
    at = _ptr(a)
    if len(_addrs) >= 64:
        _addrs.clear()
    _addrs[id(a)] = (weakref.ref(a), at)
    return at


def run(compiled: Compiled, prog, mem, grid, block, dynamic_shared: int, kparam: np.ndarray,
        clock=None, first: int = 0, printf_out: list | None = None, batch_blocks: int = 1) -> int:
    """Run the blocks of the grid from block `first` (in launch order) to its last; returns the
    thread-instructions executed. `clock`: called every so many backward branches
    (kernels._Slices); an exception from it abandons the kernel. The lines the kernel's printf and
    assert write go to `printf_out`, also when the launch faults, in the interpreter's order for the
    same launch (HostCalls.output; `batch_blocks`: the blocks it runs together)."""
    T = block[0] * block[1] * block[2]
    tpad = -(-T // lanes.WARP_SIZE) * lanes.WARP_SIZE
    nblocks = grid[0] * grid[1] * grid[2]
    shared_limit = lanes.shared_window(prog.dynamic_shared_offset + dynamic_shared if dynamic_shared
                                       else prog.static_shared)  # the interpreter's window (kernels.py)
    shared_stride = -(-max(shared_limit, 1) // 16) * 16
    local_stride = max(16, prog.local_size)
    tids = _tids(block, tpad)
    # held for the launch: the table cannot change under it; a kernel reaches to its granule (memory.py)
    starts, ends = mem._np_starts, mem._np_reach
    nworkers = _worker_count(compiled, nblocks - first, T)
    local_size = T * local_stride if prog.local_size else 16
    # each worker's context, shared memory, local frames, register file, thread states and (worker
    # 0's, read or shared by all) the launch's next block and abort flag and its parameters, in one
    # buffer: one allocation and one address per worker (a small launch is mostly this setup)
    parts = (8 * (P.SLOTS + 2 * compiled.slots), shared_stride, local_size, max(tpad * compiled.rf_size, 8), 8 * tpad,
             16, max(len(kparam), prog.param_size))  # at least the declared parameters (codegen: dereferenceable)
    offs = [0]
    for size in parts:
        offs.append(offs[-1] + -(-size // 64) * 64)
    bufs = [np.zeros(offs[-1] // 8, np.int64) for _ in range(nworkers)]
    ats = [_ptr(b) for b in bufs]
    bufs[0][offs[5] // 8] = first
    bufs[0].view(np.uint8)[offs[6]:offs[6] + len(kparam)] = kparam
    flags_at = ats[0] + offs[5]
    head = [0] * P.SLOTS
    head[P.ARENA], head[P.BASE], head[P.STARTS], head[P.ENDS] = _addr(mem.arena), mem.base, _addr(starts), _addr(ends)
    head[P.NALLOC], head[P.KPARAM], head[P.KPLEN] = len(starts), ats[0] + offs[6], len(kparam)
    head[P.SLIMIT], head[P.SSIZE], head[P.LSTRIDE] = shared_limit, shared_stride, local_stride if prog.local_size else 0
    head[P.LLIMIT], head[P.NTX], head[P.NTY], head[P.NTZ] = prog.local_size, block[0], block[1], block[2]
    head[P.NCX], head[P.NCY], head[P.NCZ], head[P.NTHREADS], head[P.TPAD] = grid[0], grid[1], grid[2], T, tpad
    head[P.NEXT], head[P.HI], head[P.ABORT], head[P.TICKS] = flags_at, nblocks, flags_at + 8, P.TICK_EDGES
    head[P.TIDS] = _addr(tids)
    head[P.CHUNK] = _chunk(compiled, len(prog.code), nblocks - first, T, nworkers)
    head = np.array(head, np.int64)
    ctxs = []
    for buf, at in zip(bufs, ats):
        ctx = buf[:P.SLOTS + 2 * compiled.slots]
        ctx[:P.SLOTS] = head
        ctx[P.SHARED], ctx[P.LOCAL], ctx[P.RF], ctx[P.WHERE] = (at + o for o in offs[1:5])
        ctxs.append(ctx)
    raised: list[BaseException] = []
    if clock is not None:
        def tick(_ctx) -> int:
            try:
                clock()
                return 0
            except BaseException as exc:  # noqa: BLE001  (carried to the launching thread, re-raised there)
                raised.append(exc)
                return 1
        callback = TICK(tick)
        ctxs[0][P.TICKFN] = ctypes.cast(callback, ctypes.c_void_p).value
    printer = None
    if compiled.host_calls:
        printer = HostCalls(prog.name, mem, kparam, batch_blocks)
        for ctx in ctxs:
            ctx[P.HOSTFN] = printer.address
    results = [0] * nworkers
    try:
        if nworkers > 1:
            pool = _workers(nworkers - 1)
            futures = [pool.submit(_one, compiled, ats[w], results, w) for w in range(1, nworkers)]
            _one(compiled, ats[0], results, 0)
            for f in futures:
                f.result()
        else:
            _one(compiled, ats[0], results, 0)
    finally:
        if printer is not None and printf_out is not None:
            printf_out.extend(printer.output())
    if printer is not None and printer.raised:
        raise printer.raised[0]
    if raised:
        raise raised[0]
    faults = [c for c, r in zip(ctxs, results) if r == P.FAULT]
    if faults:
        ctx = min(faults, key=lambda c: int(c[P.FBLOCK]))
        raise _fault(prog, ctx, len(kparam))
    del bufs
    executed = int(sum(int(c[P.EXEC]) for c in ctxs))
    _learn(compiled, executed / (T * (nblocks - first)) if nblocks > first else 0.0)
    return executed


# Estimated thread-instructions per worker: a second worker from twice this (see the docstring);
# 0: every launch takes every worker.
WORK_PER_WORKER = 4e5


def _worker_count(compiled: Compiled, blocks: int, T: int) -> int:
    n = max(1, min(threads(), blocks))
    per_thread = compiled.per_thread
    if n > 1 and per_thread and WORK_PER_WORKER:
        n = max(1, min(n, int(blocks * T * per_thread // WORK_PER_WORKER)))
    return n


# Thread-instructions a worker takes at once from a launch of a kernel without loops (a few
# microseconds of compiled code): taking block by block, the launch's counter went from core to core
# each time, a tenth of a launch of small blocks (vector add: 256 threads, 0.6 us a block).
CHUNK_WORK = 1e5


def _chunk(compiled: Compiled, length: int, blocks: int, T: int, nworkers: int) -> int:
    """Blocks a worker takes from the launch's counter at once. One for a kernel with loops: its
    blocks may wait for one another (a decoupled look-back waits for the block before it), and a
    worker holding both a waiting block and the one it waits for would never run the second. A
    kernel without loops runs at most `length` instructions a thread, so its blocks never wait; each
    worker still gets a few chunks, so that the blocks stay spread."""
    if not compiled.loop_free or nworkers < 2:
        return 1
    return max(1, min(int(CHUNK_WORK // (T * max(length, 1))), blocks // (4 * nworkers)))


def _learn(compiled: Compiled, per_thread: float) -> None:
    """Remember the thread-instructions a thread ran: a larger figure at once, a smaller one by
    halves, so that a kernel whose launches alternate small and large keeps its workers for the
    large ones. (Compiled code is shared by every session of the server: a race loses one figure.)"""
    compiled.per_thread = max(per_thread, compiled.per_thread / 2)


HOST = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64, ctypes.c_int64,
                        ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64)


class _Window:
    """What ptx/printf.py reads memory through (the interpreter's launch state), for one thread
    of a compiled launch: its shared memory, its local frame, the parameters, device memory."""

    lane_block = (0,)
    shared_stride = local_stride = 0

    def __init__(self, mem, ctx: np.ndarray, frame: int, kparam: np.ndarray):
        self.mem, self.kparam = mem, kparam
        self.shared_limit, self.local_limit = int(ctx[P.SLIMIT]), int(ctx[P.LLIMIT])
        self.shared = _bytes_at(int(ctx[P.SHARED]), self.shared_limit)
        self.local = _bytes_at(frame, self.local_limit)


def _bytes_at(at: int, n: int) -> np.ndarray:
    return np.ctypeslib.as_array((ctypes.c_uint8 * max(n, 1)).from_address(at)) if at else np.zeros(1, np.uint8)


class HostCalls:
    """The callback of one launch's calls to the host (prelude.HOST_CALL): printf formats each line
    as the interpreter does (ptx/printf.py); an assert writes the interpreter's line for it
    (ptx/ops_ctrl.c_assertfail). Each line is kept with where it came from; a read outside memory
    is kept, answered -1 (the launch stops), and raised by run(). Called from every worker, with the
    GIL held.

    The order of the lines is the interpreter's. It runs `batch_blocks` blocks' lanes together, so
    at one printf every lane of the batch prints (block after block, lane after lane) before any
    prints its next. Here a block's lanes print in lane order at one printf (a WAIT point), and a
    block's next *round* begins when a lane no higher than the last one prints; lines are sorted by
    (batch, round, block) and otherwise kept in the order printed. Blocks whose lanes print
    different numbers of lines (divergent printing) may come out in another interleaving than the
    interpreter's; each thread's own lines, and each printf's lanes, are in order either way (a GPU
    orders nothing across blocks). An assert fails its block once every lane at it has written its
    line; the interpreter's batch may hold more blocks that fail at the same instruction, whose lines
    it writes too (a GPU writes those its blocks reached before the kernel was stopped)."""

    def __init__(self, name: str, mem, kparam: np.ndarray, batch_blocks: int = 1):
        self.name, self.mem, self.kparam, self.batch = name, mem, kparam, max(1, batch_blocks)
        self.lines: list[tuple[tuple, str]] = []
        self.rounds: dict[int, list[int]] = {}  # block -> [round, last lane]
        self.raised: list[BaseException] = []
        self.formats: dict[int, str] = {}
        self._callback = HOST(self._call)
        self.address = ctypes.cast(self._callback, ctypes.c_void_p).value

    def _call(self, ctx_at, kind, t, blk, frame, a0, a1, a2, a3) -> int:
        try:
            ctx = np.ctypeslib.as_array((ctypes.c_int64 * P.SLOTS).from_address(ctx_at))
            st = _Window(self.mem, ctx, frame or 0, self.kparam)
            if kind == 0:
                text = self.formats.get(a0)
                if text is None:
                    text = self.formats[a0] = printf.read_cstring(st, a0)
                line, answer = printf.format_printf(st, text, a1)
            else:
                nx, ny = int(ctx[P.NTX]), int(ctx[P.NTY])
                tid = (t % nx, t // nx % ny, t // (nx * ny))
                cta = (int(ctx[P.CTAX]), int(ctx[P.CTAY]), int(ctx[P.CTAZ]))
                line, answer = (f"{printf.read_cstring(st, a1)}:{a2}: {printf.read_cstring(st, a3)}: "
                                f"block: [{cta[0]},{cta[1]},{cta[2]}], thread: [{tid[0]},{tid[1]},{tid[2]}] "
                                f"Assertion `{printf.read_cstring(st, a0)}` failed.\n"), 0
            r = self.rounds.setdefault(blk, [0, -1])
            if t <= r[1]:
                r[0] += 1
            r[1] = t
            self.lines.append(((blk // self.batch, r[0], blk), line))
            return answer
        except BaseException as exc:  # noqa: BLE001  (carried to the launching thread, raised there)
            self.raised.append(exc)
            return -1

    def output(self) -> list[str]:
        # sorted is stable: lines of one (batch, round, block) keep the order they were printed in
        return [line for _, line in sorted(self.lines, key=lambda x: x[0])]


_tid_tables: dict[tuple, np.ndarray] = {}


def _tids(block, tpad: int) -> np.ndarray:
    """%tid.x, .y, .z (and a pad) of every thread of a block, as int32 quadruples."""
    key = (block, tpad)
    table = _tid_tables.get(key)
    if table is None:
        t = np.arange(tpad)
        table = np.zeros((tpad, 4), np.int32)
        table[:, 0] = t % block[0]
        table[:, 1] = (t // block[0]) % block[1]
        table[:, 2] = t // (block[0] * block[1])
        if len(_tid_tables) >= 64:
            _tid_tables.clear()
        _tid_tables[key] = table
    return table


def _one(compiled: Compiled, ctx_at: int, results: list, w: int) -> None:
    results[w] = compiled.run(ctx_at)


def _fault(prog, ctx: np.ndarray, kplen: int) -> SimFault:
    code = int(ctx[P.FCODE])
    name, text = P.FAULTS.get(code, ("CUDA_ERROR_LAUNCH_FAILED", "{name}: fault {code}"))
    limit = int(ctx[P.FAULT_LIMIT[code]]) if code in P.FAULT_LIMIT else 0
    return SimFault(name, text.format(w=int(ctx[P.FWIDTH]), a=int(ctx[P.FADDR]) & ((1 << 64) - 1), limit=limit,
                                      name=prog.name, code=code))
