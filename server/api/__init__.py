"""API handlers: one small function per CUDA call the server implements, for both faces.

A handler receives the session and the call's in-arguments in header order (bulk frames as the
keyword ``bulk``) and returns the out-values in header order; a bulk reply is returned as
``Bulk(data)`` last. Errors are raised as CudaError with the Driver API's enumerator name; the
dispatcher turns them into the calling face's number. The arguments arrive as the call's record says
(protocol/contract/calls/): the dispatcher has checked their kinds and any data frames' length.
Registration checks every name against the generated call table (the calls that cross the wire), so
a typo or a handler for a call that never reaches the server is an import error, not a silent gap.
Handlers are written against the Device interface and serve every backend."""
from __future__ import annotations

from rgpu.protocol.generated.calltable import BY_NAME

HANDLERS: dict[str, object] = {}


class Bulk:
    __slots__ = ("data",)

    def __init__(self, data):
        self.data = data


def handles(*names: str):
    def register(fn):
        for n in names:
            if n not in BY_NAME:
                raise NameError(f"{n} does not cross the wire (see its record in protocol/contract/calls/)")
            HANDLERS[n] = fn
        return fn
    return register


def load_all() -> dict[str, object]:
    from . import arrays, context, device, graphs, ipc, managed, memory, module, placed, pointers, pools, stream, symbols, textures, vmm  # noqa: F401  (registration side effects)
    return HANDLERS
