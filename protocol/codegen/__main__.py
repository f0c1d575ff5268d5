"""Regenerate everything derived from the CUDA headers: `python -m rgpu.protocol.codegen`.

  --check   regenerate in memory and fail if a checked-in file differs (CI, where headers exist)
  --report  print coverage per face: served on cuda, served on sim, client-only, unsupported
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import cffi
from pycparser import c_ast
from pycparser.c_generator import CGenerator

from . import classify, cuda12, emit_c, emit_py, envelope, headers, nvml, proc_versions, records

ROOT = Path(__file__).resolve().parents[2]
C_OUT = ROOT / "libhook" / "generated"
PY_OUT = ROOT / "protocol" / "generated"


def _names_declared(d) -> set[str]:
    out = set()
    if isinstance(d, c_ast.Typedef):
        out.add(d.name)
    t = getattr(d, "type", None)
    t = t.type if isinstance(t, c_ast.TypeDecl) else t
    if isinstance(t, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and t.name:
        out.add(t.name)
    return out


def struct_cdef(parsed: headers.Parsed, wanted: set[str]) -> str:
    """The type declarations `wanted` needs, closed over what they reference, in header order."""
    decl_of = {}
    for i, d in enumerate(parsed.type_decls):
        for n in _names_declared(d):
            decl_of.setdefault(n, []).append(i)
    keep, todo = set(), list(wanted)
    while todo:
        n = todo.pop()
        for i in decl_of.get(n, []):
            if i not in keep:
                keep.add(i)
                todo.extend(headers.type_names(parsed.type_decls[i]))
    gen = CGenerator()
    return "\n".join(gen.visit(parsed.type_decls[i]) + ";" for i in sorted(keep))


def _all_types(parsed: headers.Parsed) -> str:
    return struct_cdef(parsed, {n for d in parsed.type_decls for n in _names_declared(d)})


def parse12() -> headers.Parsed | None:
    """The CUDA 12.x headers the libcudart.so.12 face is generated from, if installed."""
    dirs = cuda12.include_dirs()
    return headers.parse(dirs[0], dirs[1]) if dirs else None


_DEF_CACHE: dict[Path, str] = {}


def client_defines(record: records.Record) -> str:
    """"" when the record's hand-written file (libhook/src/...) defines the function, else why not."""
    path = ROOT / "libhook" / "src" / record.client
    if path not in _DEF_CACHE:
        try:
            _DEF_CACHE[path] = path.read_text()
        except OSError:
            return f"client {record.client}: no such file in libhook/src"
    text = _DEF_CACHE[path]
    for m in re.finditer(r"(?m)^(?![ \t#/]|extern)[^;\n(]*\b" + re.escape(record.name) + r"\s*\(", text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        if text[i + 1:].lstrip().startswith("{"):
            return ""
    return f"client {record.client} does not define it (a stale record?)"


def generate(parsed: headers.Parsed, p12: headers.Parsed | None = None) -> tuple[dict[Path, str], list[classify.Call]]:
    """Everything from the 13.0 headers; the CUDA 12 face too when `p12` (the 12.x headers) is given."""
    types_cdef = _all_types(parsed)
    full = cffi.FFI()
    full.cdef(types_cdef)

    def sizeof(name: str) -> int:
        return full.sizeof(name if name in parsed.typedefs or name.startswith("struct ") else "struct " + name)

    contract = records.load()
    try:
        extra = headers.declare(parsed, types_cdef, {n: r.prototype for n, r in contract.records.items() if r.prototype})
    except Exception as e:  # pycparser's errors name a position in the joined text: say which records
        raise classify.ClassifyError(f"a record's prototype does not parse: {e}") from None
    calls = classify.Classifier(parsed, contract, sizeof).classify_all(client_defines, extra)
    # Structs that cross the wire as bytes: the server builds and reads them with these layouts.
    used = sorted({p.struct for c in calls if c.on_wire for p in c.params if p.struct})
    sizes = {n: sizeof(n) for n in used}
    backend = contract.types.get("cuda_backend", {}).get("calls", [])
    by_name = {c.name: c for c in calls}
    missing = [n for n in backend if n not in by_name]
    if missing:
        raise classify.ClassifyError(f"types.toml [cuda_backend] names functions cuda.h does not declare: {missing}")
    driver_fns = sorted(set(backend) | {c.generic for c in calls if c.generic})
    gen = CGenerator()
    driver_cdef = struct_cdef(parsed, set().union(*(headers.type_names(by_name[n].decl) for n in driver_fns))) + \
        "\n" + "\n".join(gen.visit(by_name[n].decl) + ";" for n in driver_fns)
    major, minor = parsed.cuda_version // 1000, parsed.cuda_version % 1000 // 10
    stamp = f"generated from CUDA {major}.{minor} and protocol/contract by protocol/codegen — do not edit"
    files = {
        C_OUT / "rgpu_cuda_types.h": emit_c.types_header(types_cdef, parsed.constants, stamp),
        C_OUT / "rgpu_cuda.h": emit_c.protos_header(calls, stamp, {f.name for f in extra}),
        C_OUT / "rgpu_ids.h": emit_c.ids_header(calls, parsed.cuda_version, stamp),
        C_OUT / "rgpu_wire.h": emit_c.wire_header(contract.constants, stamp),
        C_OUT / "rgpu_calls.h": emit_c.calls_header(calls, stamp),
        C_OUT / "rgpu_calls.c": emit_c.calls_source(calls, stamp),
        C_OUT / "rgpu_stubs.c": emit_c.stubs_source(calls, stamp),
        C_OUT / "rgpu_errors.c": emit_c.errors_source(parsed, stamp),
        C_OUT / "rgpu_procs.c": emit_c.procs_source(calls, parsed.aliases, stamp, {f.name for f in extra}),
        PY_OUT / "calltable.py": emit_py.calltable(calls, parsed.cuda_version, stamp),
        PY_OUT / "constants.py": emit_py.constants(contract.constants, stamp),
        PY_OUT / "enums.py": emit_py.enums(parsed, stamp),
        PY_OUT / "structs.py": emit_py.structs(struct_cdef(parsed, {u.removeprefix("struct ") for u in used}),
                                               sizes, stamp),
        PY_OUT / "driver.py": emit_py.driver(driver_cdef, driver_fns, stamp),
    }
    files.update(envelope.files(C_OUT, PY_OUT))  # the message envelope's codecs (contract/envelope.toml)
    # cuGetProcAddress's (name, version, per-thread) table and the driver's legacy and per-thread names
    twelve = contract.cuda12
    defined_elsewhere = {n for n in [*twelve.get("same_as", {}), *twelve.get("handwritten", {}).get("names", []),
                                     *twelve.get("unsupported", {})] if not n.startswith("cuda")}
    table, exports = proc_versions.plan(parsed.include_dir, {c.name for c in calls if c.face == "driver"},
                                        defined_elsewhere, parsed.aliases, proc_versions.adapters())
    files[C_OUT / "rgpu_proc_versions.c"] = proc_versions.source(table, exports, stamp)
    if p12 is not None:
        plan = cuda12.plan(p12, parsed, calls, contract.cuda12, _all_types)
        v = p12.cuda_version
        stamp12 = (f"generated from CUDA {v // 1000}.{v % 1000 // 10} and {major}.{minor} by protocol/codegen "
                   f"— do not edit")
        files[C_OUT / "rgpu_cuda12.h"] = cuda12.header(plan, stamp12)
        files[C_OUT / "rgpu_v12.c"] = cuda12.source(
            plan, contract.cuda12.get("runtime_entry_points", {}).get("names", []), stamp12,
            declared=set(by_name))
    return files, calls


def served(call: classify.Call, backend: str, by_name: dict) -> bool:
    """Whether `backend` serves the call: a wire call its record does not declare unsupported there,
    or a client-side call whose wire calls (`via`) all are served there."""
    r = call.record
    if call.on_wire:
        return backend not in r.unsupported_on
    if call.side == "client" and r.via:
        return all(served(by_name[v], backend, by_name) for v in r.via)
    return False


def report(calls: list[classify.Call]) -> str:
    by_name = {c.name: c for c in calls}
    head = ["in headers", "served on cuda", "served on sim", "client-only", "unsupported"]
    lines = [f"{'face':<10}" + "".join(f"{h:>16}" for h in head)]
    for face in ("runtime", "driver", "total"):
        sel = [c for c in calls if face == "total" or c.face == face]
        row = [len(sel), sum(served(c, "cuda", by_name) for c in sel), sum(served(c, "sim", by_name) for c in sel),
               sum(c.side == "client" and not c.record.via for c in sel), sum(c.side == "unsupported" for c in sel)]
        lines.append(f"{face:<10}" + "".join(f"{v:>16}" for v in row))
    wire = [c for c in calls if c.on_wire]
    lines += ["", f"on the wire: {len(wire)} calls under their own id ({sum(not c.client for c in wire)} with generated "
              f"stubs, {sum(bool(c.client) for c in wire)} hand-written with generated encoders); "
              f"{sum(c.side == 'client' and bool(c.record.via) for c in calls)} client-side calls are made of them"]
    try:  # who serves them: the server's handlers (importable where the server is installed)
        from rgpu.server.backends import handlers_for
        api = handlers_for("sim")
        for face in ("runtime", "driver"):
            sel = [c for c in wire if c.face == face]
            by_api = sum(c.name in api for c in sel)
            generic = sum(c.name not in api and bool(c.generic) and "cuda" not in c.record.unsupported_on for c in sel)
            lines.append(f"  {face:<8} {len(sel):4d} on the wire: {by_api} by API handlers (sim and cuda), "
                         f"{generic} by the cuda backend's generic driver path")
    except ImportError:
        pass
    for backend in ("sim", "cuda"):
        reasons: dict[str, list] = {}
        for c in calls:
            if c.side in ("forward", "bulk", "client") and (c.on_wire or c.record.via) and \
                    not served(c, backend, by_name):
                why = c.record.unsupported_on.get(backend) or "made of calls it does not serve (via)"
                reasons.setdefault(why, []).append(c.name)
        lines.append(f"\nforwarded but not served on {backend} (answered not-supported in the client), by reason:")
        lines += [f"  {len(v):4d}  {k}" for k, v in sorted(reasons.items(), key=lambda kv: -len(kv[1]))] or ["     0"]
    reasons = {}
    for c in calls:
        if c.side == "unsupported":
            reasons[c.reason] = reasons.get(c.reason, 0) + 1
    lines.append("\nnot supported, by reason:")
    lines += [f"  {v:4d}  {k}" for k, v in sorted(reasons.items(), key=lambda kv: -kv[1])]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rgpu.protocol.codegen", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--include", type=Path, help="CUDA include directory (default: found automatically)")
    args = ap.parse_args(argv)
    try:
        parsed = headers.parse(args.include)
        p12 = parse12()
        if p12 is None:
            print(f"codegen: no CUDA {cuda12.SERIES} headers in {cuda12.wheel_dir()} (pip install --target there "
                  f"{' '.join(w + '==' + cuda12.SERIES + '.*' for w in cuda12.WHEELS)}): the CUDA 12 face "
                  f"(libhook/generated/rgpu_v12.c, rgpu_cuda12.h) is left as it is", file=sys.stderr)
        files, calls = generate(parsed, p12)
        face = nvml.generate(lambda client, name: client_defines(SimpleNamespace(client=client, name=name)))
        if face is None:
            print(f"codegen: no nvml.h in {nvml.wheel_dir()} (pip install --no-deps --target there "
                  f"{nvml.WHEEL}=={nvml.VERSION}): the NVML face (libhook/generated/rgpu_nvml.h, "
                  f"rgpu_nvml_stubs.c) is left as it is", file=sys.stderr)
        else:
            files.update(face[0])
    except (headers.HeadersNotFound, classify.ClassifyError, records.RecordError, envelope.EnvelopeError) as e:
        print(f"codegen: {e}", file=sys.stderr)
        return 2
    if args.report:
        print(report(calls))
        if p12 is not None:
            print(cuda12.summary(cuda12.plan(p12, parsed, calls, records.load().cuda12, _all_types)))
        return 0
    if args.check:
        drift = [p for p, text in files.items() if not p.exists() or p.read_text() != text]
        for p in drift:
            print(f"codegen: {os.path.relpath(p, ROOT)} differs from what the headers and annotations give; "
                  f"run `python -m rgpu.protocol.codegen`", file=sys.stderr)
        return 1 if drift else 0
    for p, text in files.items():
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    print(f"codegen: wrote {len(files)} files for {len(calls)} functions (CUDA {parsed.cuda_version})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
