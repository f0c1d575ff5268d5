"""What a library's PTX asks of the software GPU, found without parsing it.

A shared library (libcublas.so, ...) embeds its kernels as fatbin containers; the driver loads one
container per module and JITs the newest PTX in it that is not newer than the device. `modules`
finds the containers in a library's bytes and yields that PTX; `opcodes` lists the instructions of
a PTX text by a regular expression over its statements (a statement starts after ';', '{' or '}',
possibly behind labels and a guard), which reads hundreds of megabytes in seconds where a full
parse takes minutes. `unsupported` then names what the interpreter lacks (interp.unsupported).
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from .. import fatbin
from ..errors import SimError
from .parser import _COMMENTS

# An opcode: a lower-case name with dotted modifiers ('::' inside some), followed by a space or ';'
# (a bare name before ',' or '}' is an operand of a vector or initializer, not an instruction).
_STATEMENT = re.compile(r"(?:^|[;{}])\s*(?:[$\w.]+:\s*)*(?:@!?[%\w$]+\s+)?([a-z][\w.:]*)(?=[\s;])")


def containers(lib: bytes) -> Iterator[tuple[int, bytes]]:
    """(offset, bytes) of every fatbin container in a shared object's bytes."""
    return fatbin.embedded_containers(lib, aligned=True)


def modules(lib: bytes, cc: tuple[int, int]) -> Iterator[tuple[int, fatbin.Entry | None]]:
    """(offset, the PTX a ``cc`` device would run) of every container; None where it has none."""
    for pos, blob in containers(lib):
        try:
            img = fatbin.Image(fatbin.parse_container(blob, 0, (fatbin.KIND_PTX,))[0])
        except SimError:
            continue
        if not img.ptx:
            yield pos, None
            continue
        yield pos, fatbin.choose_ptx(img, cc)  # PTX newer than the device: the caller hears of it


def opcodes(text: bytes | str) -> Counter:
    """Opcode (with all its modifiers) -> count, for one PTX text."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    return Counter(_STATEMENT.findall(_COMMENTS.sub(" ", text)))


def unsupported(ops) -> dict[str, str]:
    """opcode -> why the interpreter cannot run it, for those of ``ops`` it cannot."""
    from . import interp, ops_async, ops_ctrl, ops_cvt, ops_float, ops_heap, ops_int, ops_mem, ops_mma, ops_warp  # noqa: F401
    from . import ops_cdp, ops_stack, ops_tensormap, ops_tex  # noqa: F401

    out = {}
    for o in ops:
        if o == "call" or o.startswith("call."):
            continue  # calls are inlined (program.py), never executed as an instruction
        why = interp.unsupported(o)
        if why is not None:
            out[o] = why
    return out
