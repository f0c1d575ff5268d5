"""Writes protocol/generated/: the server's call table (its half of every wire kind: what each call's
arguments must be, its bulk data, its backends), the constants shared with the client, the enums the
server uses by name, the layouts of the structs that travel as bytes and the cuda backend's driver
declarations."""
from __future__ import annotations

import pprint

from .classify import Call

# Enums the server and tools use by name (the rest stay in the headers).
ENUMS = ["cudaError_enum", "cudaError", "CUdevice_attribute_enum", "cudaDeviceAttr", "cudaMemcpyKind",
         "CUlimit_enum", "cudaLimit", "CUpointer_attribute_enum", "cudaMemoryType", "CUmemorytype_enum",
         "CUfunction_attribute_enum", "cudaFuncAttribute", "CUmoduleLoadingMode_enum", "CUfunctionLoadingState_enum"]


def _row(c: Call) -> str:
    r = c.record
    params = tuple((p.name, p.kind, p.size, p.struct, p.length, p.hkind) for p in c.params)
    fields = dict(name=c.name, face=c.face, flags=tuple(sorted(c.flags)), params=params, bulk_in=r.bulk_in,
                  bulk_out=r.bulk_out, shm=r.shm, unsupported_on=dict(sorted(r.unsupported_on.items())),
                  generic=c.generic, drops=r.drops, record=f"{r.family}.toml")
    return "Call(" + ", ".join(f"{k}={v!r}" for k, v in fields.items()) + ")"


def calltable(calls: list[Call], version: int, stamp: str) -> str:
    rows = sorted((c for c in calls if c.on_wire), key=lambda c: c.call_id)
    out = [f'"""{stamp}"""', "from __future__ import annotations", "", "from typing import NamedTuple", "",
           f"CUDA_VERSION = {version}", "", "",
           "class Call(NamedTuple):",
           '    """One call that crosses the wire, as its record (protocol/contract/calls/) and header say."""',
           "    name: str",
           "    face: str  # runtime or driver: which numbering its errors use",
           "    flags: tuple  # async, device_work, sync, deferred",
           "    # (name, wire kind, size, struct, length, handle kind) in the C order; out kinds start with 'o'",
           "    params: tuple",
           "    bulk_in: str  # length expression of the data frames it may carry, or ''",
           "    bulk_out: str",
           "    shm: bool  # its data may move through the session's shared-memory segment",
           "    unsupported_on: dict  # backend -> why it does not serve the call",
           "    generic: str  # the driver function the cuda backend's generic path calls, or ''",
           "    drops: str  # the handle parameter the call destroys, or ''",
           "    record: str", "", "",
           "CALLS = {"]
    out += [f"    0x{c.call_id:08x}: {_row(c)}," for c in rows]
    out += ["}", "", "BY_NAME = {row.name: cid for cid, row in CALLS.items()}", ""]
    return "\n".join(out)


def constants(values: dict, stamp: str) -> str:
    out = [f'"""{stamp}"""', "# protocol/contract/constants.toml: the client library has the same values (rgpu_wire.h)", ""]
    out += [f"{k} = {v!r}" for k, v in values.items()]
    return "\n".join(out) + "\n"


def enums(parsed, stamp: str) -> str:
    out = [f'"""{stamp}"""', ""]
    for name in ENUMS:
        out.append(f"{name} = {pprint.pformat(parsed.enums[name], width=120, sort_dicts=False)}")
        out.append("")
    return "\n".join(out)


def structs(cdef: str, sizes: dict, stamp: str) -> str:
    return "\n".join([f'"""{stamp}"""', "", "# cffi declarations of the structs that travel as bytes",
                      f"CDEF = {cdef!r}", "", f"SIZES = {pprint.pformat(sizes, width=120)}", ""])


def driver(cdef: str, names: list[str], stamp: str) -> str:
    return "\n".join([f'"""{stamp}"""', "",
                      "# cffi declarations (from cuda.h) of the driver functions the cuda backend calls: its own",
                      "# (protocol/contract/types.toml [cuda_backend]) and those its generic path serves",
                      f"FUNCTIONS = {pprint.pformat(sorted(names), width=120, compact=True)}", "",
                      f"CDEF = {cdef!r}", ""])
