"""Runs one decoded call against a session: finds its row in the generated call table and its
handler, checks the arguments' wire kinds, translates errors into the calling face's numbers."""
from __future__ import annotations

import structlog

from rgpu.protocol.generated.calltable import CALLS

from .api import Bulk, load_all
from .errors import CudaError, code_for

log = structlog.get_logger()

_KIND_TYPES = {"i": (int,), "u": (int,), "d": (int,), "h": (int,), "f": (float, int),
               "s": (str, type(None)), "b": (bytes, type(None)), "v": (bytes,)}


class Result:
    __slots__ = ("rc", "outs", "bulk", "message", "face")

    def __init__(self, rc, outs=(), bulk=(), message="", face="runtime"):
        self.rc, self.outs, self.bulk, self.message, self.face = rc, outs, bulk, message, face


class Dispatcher:
    def __init__(self):
        self.handlers = load_all()
        # per call id: (name, face, handler, the accepted Python types of each in-argument — one
        # isinstance per argument — or None for hand-written calls, whose handlers check their own)
        self.table = {}
        for cid, (name, face, cls, _async, params) in CALLS.items():
            types = None if cls == "handwritten" else \
                tuple(_KIND_TYPES[k] for _, k, _, _ in params if not k.startswith("o"))
            self.table[cid] = (name, face, self.handlers.get(name), types)

    def run(self, session, call_id: int, args: list, bulk: list) -> Result:
        row = self.table.get(call_id)
        if row is None:
            return Result(code_for("driver", "CUDA_ERROR_NOT_SUPPORTED"), message=f"unknown call id {call_id}")
        name, face, handler, types = row
        session.face = face
        session.calls += 1
        if session.sticky is not None:
            return Result(code_for(face, session.sticky.code), message=session.sticky.message, face=face)
        if handler is None:
            return Result(code_for(face, "CUDA_ERROR_NOT_SUPPORTED"), face=face,
                          message=f"{name} is not implemented by this server's device backend")
        if types is not None and (len(args) != len(types) or not all(map(isinstance, args, types))):
            return Result(code_for(face, "CUDA_ERROR_INVALID_VALUE"), face=face,
                          message=f"{name}: arguments do not match the call table")
        try:
            out = handler(session, *args, bulk=bulk) if bulk else handler(session, *args)
        except CudaError as e:
            if e.sticky:
                session.sticky = e
            return Result(code_for(face, e.code), message=e.message, face=face)
        except TypeError as e:  # a hand-written call with the wrong number of arguments
            return Result(code_for(face, "CUDA_ERROR_INVALID_VALUE"), message=f"{name}: {e}", face=face)
        except (ValueError, OverflowError, AttributeError, IndexError, KeyError) as e:
            if types is not None:
                log.exception("handler_failed", call=name)
                return Result(code_for(face, "CUDA_ERROR_UNKNOWN"), message=f"{name}: internal error {e!r}", face=face)
            # A hand-written call's arguments are checked by its handler alone: wrong kinds end here.
            log.warning("handler_rejected_arguments", call=name, error=repr(e)[:200])
            return Result(code_for(face, "CUDA_ERROR_INVALID_VALUE"), face=face,
                          message=f"{name}: arguments of the wrong kind or range ({str(e)[:120]})")
        except Exception as e:  # a bug must not take the session down with it
            log.exception("handler_failed", call=name)
            return Result(code_for(face, "CUDA_ERROR_UNKNOWN"), message=f"{name}: internal error {e!r}", face=face)
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
