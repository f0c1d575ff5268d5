"""Where the host<->device copy calls keep their arguments, for the data paths that cut a copy into
chunks or pieces or count its bytes (staging.py's staged and pinned paths, pieces.py): one table
instead of one per path."""
from __future__ import annotations

from typing import NamedTuple

from rgpu.protocol.generated.calltable import BY_NAME

H2D_KIND, D2H_KIND = 1, 2  # cudaMemcpyKind


class Copy(NamedTuple):
    h2d: bool
    addr: int            # the device side's argument place
    count: int
    stream: int | None   # None: a synchronous call


# The Driver's calls name their direction; the Runtime's say it in `kind` (argument 3), their
# device side being dst for H2D and src for D2H.
_DRIVER = {BY_NAME["cuMemcpyHtoD_v2"]: Copy(True, 0, 1, None), BY_NAME["cuMemcpyHtoDAsync_v2"]: Copy(True, 0, 1, 2),
           BY_NAME["cuMemcpyDtoH_v2"]: Copy(False, 0, 1, None), BY_NAME["cuMemcpyDtoHAsync_v2"]: Copy(False, 0, 1, 2)}
_RUNTIME = {BY_NAME["cudaMemcpy"]: None, BY_NAME["cudaMemcpyAsync"]: 4}  # the stream's place


def copy_of(call_id: int, args: list) -> Copy | None:
    """The host<->device copy call `call_id` is with these arguments, or None (another call, or a
    Runtime copy of another kind, or too few arguments to hold its places)."""
    c = _DRIVER.get(call_id)
    if c is None:
        if call_id not in _RUNTIME or len(args) < 4 or args[3] not in (H2D_KIND, D2H_KIND):
            return None
        h2d = args[3] == H2D_KIND
        c = Copy(h2d, 0 if h2d else 1, 2, _RUNTIME[call_id])
    return c if len(args) > max(c.addr, c.count, c.stream or 0) else None
