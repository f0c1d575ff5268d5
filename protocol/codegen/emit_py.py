"""Writes protocol/generated/: the server's call table, the enums it needs and the struct layouts."""
from __future__ import annotations

import pprint

from .classify import Call

# Enums the server and tools use by name (the rest stay in the headers).
ENUMS = ["cudaError_enum", "cudaError", "CUdevice_attribute_enum", "cudaDeviceAttr", "cudaMemcpyKind",
         "CUlimit_enum", "cudaLimit", "CUpointer_attribute_enum", "cudaMemoryType", "CUmemorytype_enum",
         "CUfunction_attribute_enum", "cudaFuncAttribute"]


def calltable(calls: list[Call], version: int, stamp: str) -> str:
    rows = {}
    for c in calls:
        if c.cls not in ("forwarded", "handwritten"):
            continue
        params = tuple((p.name, p.kind, p.size, p.struct) for p in c.params)
        rows[c.call_id] = (c.name, c.face, c.cls, c.is_async, params)
    report = {}
    for c in calls:
        report.setdefault(c.face, {}).setdefault(c.cls, []).append(c.name)
    return "\n".join([
        f'"""{stamp}"""',
        f"CUDA_VERSION = {version}",
        "",
        "# call id -> (name, face, class, async, ((param, wire kind, size, struct or length param), ...))",
        f"CALLS = {pprint.pformat(rows, width=120, sort_dicts=True)}",
        "",
        "BY_NAME = {row[0]: cid for cid, row in CALLS.items()}",
        "",
        "# face -> class -> names, for the coverage report",
        f"COVERAGE = {pprint.pformat(report, width=120, sort_dicts=True)}",
        "",
    ])


def enums(parsed, stamp: str) -> str:
    out = [f'"""{stamp}"""', ""]
    for name in ENUMS:
        out.append(f"{name} = {pprint.pformat(parsed.enums[name], width=120, sort_dicts=False)}")
        out.append("")
    return "\n".join(out)


def structs(cdef: str, sizes: dict, stamp: str) -> str:
    return "\n".join([f'"""{stamp}"""', "", "# cffi declarations of the structs that travel as bytes",
                      f"CDEF = {cdef!r}", "", f"SIZES = {pprint.pformat(sizes, width=120)}", ""])
