"""The software GPU can run every instruction in the PTX NVIDIA ships inside its CUDA 13.0 libraries
(the pinned wheels of tests/support/nvlibs.py, installed once into .cache/nvlibs).

For each library: every fatbin container that carries PTX has PTX the default architecture can run,
and every opcode of that PTX (with all its modifiers) is one the interpreter implements. The scan
reads the opcodes with a regular expression (ptx/scan.py) instead of parsing: the six libraries
hold over a gigabyte of PTX. Its result is kept beside the wheels, keyed by the library's version
and the scanner's source, so a rerun costs nothing."""
from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from rgpu.server.backends.sim import archs
from rgpu.server.backends.sim.ptx import interp, scan
from tests.support import nvlibs


def _scanner_digest() -> str:
    h = hashlib.sha256()
    for mod in (scan, interp):
        h.update(Path(mod.__file__).read_bytes())
    return h.hexdigest()[:12]


def library_opcodes(name: str) -> dict:
    """{'opcodes': {opcode: count}, 'modules': containers with PTX, 'sass_only': without}."""
    package, _so = nvlibs.LIBRARIES[name]
    path = nvlibs.library(name)
    memo = nvlibs.target(package) / f".opcodes-{name}-{_scanner_digest()}.json"
    if memo.exists():
        return json.loads(memo.read_text())
    ops: Counter = Counter()
    with_ptx = without = 0
    for _pos, entry in scan.modules(path.read_bytes(), archs.get().cc):
        if entry is None:
            without += 1
            continue
        with_ptx += 1
        ops.update(scan.opcodes(entry.data))
    result = {"opcodes": dict(ops), "modules": with_ptx, "sass_only": without}
    tmp = memo.with_suffix(".tmp")
    tmp.write_text(json.dumps(result))
    tmp.replace(memo)
    return result


@pytest.mark.parametrize("name", list(nvlibs.LIBRARIES))
def test_every_opcode_of_the_library_ptx_is_implemented(name):
    found = library_opcodes(name)
    assert found["modules"] > 0, f"{name}: no container with PTX the default {archs.DEFAULT} can run"
    missing = scan.unsupported(found["opcodes"])
    report = "\n".join(f"  {op} ({why}; {found['opcodes'][op]} uses)" for op, why in sorted(missing.items()))
    assert not missing, f"{name} {nvlibs.PINS[nvlibs.LIBRARIES[name][0]]}: the software GPU lacks\n{report}"


def test_the_scan_sees_what_the_libraries_are_known_to_hold():
    """The scanner itself: cuBLAS's forward-compatible CUTLASS kernels use the tensor-core forms
    measured when the libraries were pinned, and cuBLASLt converts to 8-bit floats."""
    blas = library_opcodes("cublas")["opcodes"]
    for op in ("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
               "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", "ldmatrix.sync.aligned.x4.trans.m8n8.shared.b16",
               "cp.async.commit_group", "shfl.sync.idx.b32", "bar.sync"):
        assert blas.get(op, 0) > 0, op
    lt = library_opcodes("cublasLt")["opcodes"]
    assert lt.get("cvt.rn.satfinite.e4m3x2.f32", 0) > 0 and lt.get("cvt.pack.sat.s8.s32.b32", 0) > 0


def test_scan_reads_statements_not_lines():
    text = """.version 9.0
.target sm_120
.visible .entry k() {
    .reg .b32 r<3>;
$L0: @%p1 bra $L0; { .reg .b16 lo, hi; mov.b32 {lo, hi}, r1; cvt.pack.sat.s8.s32.b32 r2, r1, r1, r1; }
    call.uni (retval0),
        foo, (param0,
        param1);
    ret;
}"""
    assert scan.opcodes(text) == Counter({"bra": 1, "mov.b32": 1, "cvt.pack.sat.s8.s32.b32": 1, "call.uni": 1,
                                          "ret": 1})
    assert scan.unsupported(["frobnicate.b32", "add.s32", "min.xorsign.abs.f32", "call.uni"]) == {
        "frobnicate.b32": "unknown instruction", "min.xorsign.abs.f32": "modifier .xorsign, .abs not implemented"}
