"""Runs one decoded call against a session: finds its row in the generated call table (what its
record says its arguments, bulk data and backends are) and its handler on this session's backend,
checks the arguments against the row, translates errors into the calling face's numbers.

The checks are the server's half of the wire kinds (protocol/codegen/classify.py); the client's half
is generated from the same records (libhook/generated/), so a call whose arguments do not fit its
row is a client that is not rgpu's, answered with an error and never run."""
from __future__ import annotations

from operator import itemgetter

import structlog

from rgpu.protocol.generated.calltable import CALLS

from .backends import handlers_for
from .api import Bulk
from .bulk import BulkBroken
from .errors import CudaError, code_for

log = structlog.get_logger()

# The Python types msgpack gives each in-kind (out-kinds are not sent).
_KIND_TYPES = {"i": (int,), "u": (int,), "d": (int,), "h": (int,), "f": (float, int), "s": (str, type(None)),
               "b": (bytes, type(None)), "v": (bytes,), "a": (bytes, type(None)), "ah": (list,)}


# The calls a device whose kernels run after their launch (sim/queue.py) answers while they run:
# launches queue, queries and event records read the queue, and making a stream or a context-wide
# event touches nothing else. Every other call first waits for the queued kernels
# (Device.wait_idle), so that no call reads or writes memory a kernel is using.
RUN_BESIDE_KERNELS = frozenset((
    "cuLaunchKernel", "cudaLaunchKernel", "cuLaunchKernelEx", "cuLaunchCooperativeKernel",
    "cudaLaunchCooperativeKernel", "cuStreamQuery", "cudaStreamQuery", "cuEventQuery", "cudaEventQuery",
    "cuEventRecord", "cudaEventRecord", "cuEventRecordWithFlags", "cudaEventRecordWithFlags",
    "cuStreamWaitEvent", "cudaStreamWaitEvent", "cudaEventCreate", "cudaEventCreateWithFlags", "cuEventCreate",
    "cudaStreamCreate", "cudaStreamCreateWithFlags", "cuStreamCreate", "cudaStreamCreateWithPriority",
    "cuStreamCreateWithPriority", "cuCtxRecordEvent", "cuCtxWaitEvent"))


class Result:
    __slots__ = ("rc", "outs", "bulk", "message", "face")

    def __init__(self, rc, outs=(), bulk=(), message="", face="runtime"):
        self.rc, self.outs, self.bulk, self.message, self.face = rc, outs, bulk, message, face


def _length(expr: str, names: list[str]):
    """A function of the call's arguments giving a bulk length expression's value (`width * height`)."""
    if not expr:
        return None
    terms = [t.strip() for t in expr.split("*")]
    idx = [(None, int(t)) if t.isdigit() else (names.index(t), 0) for t in terms]

    def value(args):
        n = 1
        for i, k in idx:
            n *= k if i is None else args[i]
        return n
    return value


def _int_range(kind: str, size: int) -> tuple[int, int] | None:
    """The values a C integer of this wire kind and size can hold (None: not an integer kind). A
    client library never sends another; msgpack can carry any int64 or uint64, so a size of -1 or a
    4-byte count of 2**40 is a client that is not rgpu's (issue 39, attack 5)."""
    if kind in ("u", "h"):
        return 0, (1 << (8 * size)) - 1
    if kind in ("i", "d"):
        return -(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1
    return None


def _pick(idx: list[int]):
    """args -> a tuple of the arguments at `idx` (itemgetter gives a bare value for one index)."""
    if len(idx) == 1:
        i = idx[0]
        return lambda args: (args[i],)
    return itemgetter(*idx)


class Row:
    """What the dispatcher needs of one call-table row, prepared once."""
    __slots__ = ("name", "face", "handler", "types", "unsigned", "narrow", "bulk_in", "shm", "why_not", "waits")

    def __init__(self, call, handler, backend: str):
        ins = [p for p in call.params if not p[1].startswith("o")]
        self.name, self.face, self.handler = call.name, call.face, handler
        self.types = tuple(_KIND_TYPES[p[1]] for p in ins)
        # Integer arguments are checked against their C type before any handler sees them: every
        # size, count, offset and extent is then a number a C caller could have passed, and the
        # handlers' range checks (against allocations) never meet a negative one. 8-byte unsigned
        # ones (most: sizes, addresses, handles) can only be wrong by being negative: one min() over
        # them; the few narrower or signed ones are checked one by one.
        full, narrow = [], []
        for i, p in enumerate(ins):
            r = _int_range(p[1], p[2])
            if r == (0, (1 << 64) - 1):
                full.append(i)
            elif r is not None:
                narrow.append((i, *r))
        self.unsigned = _pick(full) if full else None
        self.narrow = tuple(narrow)
        self.bulk_in = _length(call.bulk_in, [p[0] for p in ins]) if call.bulk_in else False
        self.shm = call.shm
        self.why_not = call.unsupported_on.get(backend, "")
        self.waits = call.name not in RUN_BESIDE_KERNELS


class Dispatcher:
    def __init__(self, backend: str = "sim"):
        """`backend`: the kind of device this worker's session runs on (server/backends)."""
        self.backend = backend
        handlers = handlers_for(backend)
        self.table = {cid: Row(call, handlers.get(call.name), backend) for cid, call in CALLS.items()}

    def shm_allowed(self, call_id: int) -> bool:
        row = self.table.get(call_id)
        return row is not None and row.shm

    def run(self, session, call_id: int, args: list, bulk: list, host=None) -> Result:
        """`host`: the mapped pinned region a copy names instead of data (server/pinned.py), for the
        calls whose records allow the same-host path."""
        row = self.table.get(call_id)
        if row is None:
            return Result(code_for("driver", "CUDA_ERROR_NOT_SUPPORTED"), message=f"unknown call id {call_id}")
        face = row.face
        session.face = face
        session.calls += 1
        if session.sticky is not None:
            return Result(code_for(face, session.sticky.code), message=session.sticky.message, face=face)
        if row.handler is None:
            why = row.why_not or "no handler"
            return Result(code_for(face, "CUDA_ERROR_NOT_SUPPORTED"), face=face,
                          message=f"{row.name} is not served by the {self.backend} backend: {why}")
        types = row.types
        if len(args) != len(types) or not all(map(isinstance, args, types)):
            return Result(code_for(face, "CUDA_ERROR_INVALID_VALUE"), face=face,
                          message=f"{row.name}: arguments do not match its record ({len(types)} expected)")
        if (row.unsigned is not None and min(row.unsigned(args)) < 0) or \
                (row.narrow and not all(lo <= args[i] <= hi for i, lo, hi in row.narrow)):
            return Result(code_for(face, "CUDA_ERROR_INVALID_VALUE"), face=face,
                          message=f"{row.name}: an argument is outside the range of its C type")
        if bulk:
            if row.bulk_in is False:
                return Result(code_for(face, "CUDA_ERROR_INVALID_VALUE"), face=face,
                              message=f"{row.name} carries no data frames")
            if row.bulk_in is not None and sum(map(len, bulk)) != row.bulk_in(args):
                return Result(code_for(face, "CUDA_ERROR_INVALID_VALUE"), face=face,
                              message=f"{row.name}: the data frames hold {sum(map(len, bulk))} bytes, "
                                      f"not the {row.bulk_in(args)} its arguments say")
        try:
            if row.waits and session.device.queued:
                session.device.wait_idle()
            if host is not None:
                if not row.shm:
                    return Result(code_for(face, "CUDA_ERROR_INVALID_VALUE"), face=face,
                                  message=f"{row.name} does not name pinned host memory (its record)")
                out = row.handler(session, *args, host=host)
            else:
                out = row.handler(session, *args, bulk=bulk) if bulk else row.handler(session, *args)
        except CudaError as e:
            if e.sticky:
                session.sticky = e
            return Result(code_for(face, e.code), message=e.message, face=face)
        except BulkBroken:
            raise  # the session's data would be wrong: it ends (worker.py)
        except Exception as e:  # a bug must not take the session down with it
            log.exception("handler_failed", call=row.name)
            return Result(code_for(face, "CUDA_ERROR_UNKNOWN"), message=f"{row.name}: internal error {e!r}", face=face)
        if not out:
            return _OK
        outs, blk = [], []
        for v in out:
            if isinstance(v, Bulk):
                blk.append(v.data)
            else:
                outs.append(v)
        return Result(0, outs, blk, face=face)


_OK = Result(0)  # shared: results are read, never changed
