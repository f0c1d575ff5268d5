"""Regenerate everything derived from the CUDA headers: `python -m rgpu.protocol.codegen`.

  --check   regenerate in memory and fail if a checked-in file differs (CI, where headers exist)
  --report  print coverage: functions in the headers, forwarded, hand-written, local, not supported
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import cffi
from pycparser import c_ast
from pycparser.c_generator import CGenerator

from . import classify, cuda12, emit_c, emit_py, headers, proc_versions

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


def generate(parsed: headers.Parsed, p12: headers.Parsed | None = None) -> tuple[dict[Path, str], list[classify.Call]]:
    """Everything from the 13.0 headers; the CUDA 12 face too when `p12` (the 12.x headers) is given."""
    full = cffi.FFI()
    full.cdef(_all_types(parsed))

    def sizeof(name: str) -> int:
        return full.sizeof(name if name in parsed.typedefs or name.startswith("struct ") else "struct " + name)

    annotations = classify.load_annotations()
    calls = classify.Classifier(parsed, annotations, sizeof).classify_all()
    # Structs that cross the wire: those of forwarded calls, and those [wire_structs] names for
    # hand-written calls whose server side fills one (the call table carries no params for those).
    used = sorted({p.struct for c in calls if c.cls == "forwarded" for p in c.params
                   if p.kind in ("b", "v", "ob") and p.size and p.struct}
                  | set(annotations.get("wire_structs", {}).get("names", [])))
    sizes = {n: sizeof(n) for n in used}
    # Hand-written client code fills structs the wire does not carry (cudaFuncAttributes, ...):
    # give it the size of every struct any function points to.
    pointed = {t.target.name for c in calls for _, t in c.proto
               if t.kind == "ptr" and t.target is not None and t.target.kind == "struct" and t.target.name}
    all_sizes = dict(sizes)
    for n in sorted(pointed):
        try:
            all_sizes[n if n in parsed.typedefs else f"struct {n}"] = sizeof(n)
        except Exception:  # an opaque struct has no size; nothing to write into
            pass
    for c in calls:  # by-value blobs: no float members (see emit_c.stubs_source)
        for _, t in c.proto:
            if c.cls == "forwarded" and t.kind == "struct" and sizeof(t.name) <= 16 and \
                    "float" in struct_cdef(parsed, {t.name}):
                raise classify.ClassifyError(f"{c.name}: struct {t.name} by value holds floats: annotate it")
    major, minor = parsed.cuda_version // 1000, parsed.cuda_version % 1000 // 10
    stamp = f"generated from CUDA {major}.{minor} by protocol/codegen — do not edit"
    files = {
        C_OUT / "rgpu_ids.h": emit_c.ids_header(calls, parsed.cuda_version, stamp, all_sizes),
        C_OUT / "rgpu_stubs.c": emit_c.stubs_source(calls, sizeof, stamp),
        C_OUT / "rgpu_errors.c": emit_c.errors_source(parsed, stamp),
        C_OUT / "rgpu_procs.c": emit_c.procs_source(calls, parsed.aliases, stamp),
        PY_OUT / "calltable.py": emit_py.calltable(calls, parsed.cuda_version, stamp),
        PY_OUT / "enums.py": emit_py.enums(parsed, stamp),
        PY_OUT / "structs.py": emit_py.structs(struct_cdef(parsed, {u.removeprefix("struct ") for u in used}),
                                               sizes, stamp),
    }
    # cuGetProcAddress's (name, version, per-thread) table and the driver's legacy and per-thread names
    twelve = annotations.get("cuda12", {})
    defined_elsewhere = {n for n in [*twelve.get("same_as", {}), *twelve.get("handwritten", {}).get("names", []),
                                     *twelve.get("unsupported", {})] if not n.startswith("cuda")}
    table, exports = proc_versions.plan(parsed.include_dir, {c.name for c in calls if c.face == "driver"},
                                        defined_elsewhere, parsed.aliases, annotations.get("proc_versions", {}))
    files[C_OUT / "rgpu_proc_versions.c"] = proc_versions.source(table, exports, stamp)
    if p12 is not None:
        plan = cuda12.plan(p12, parsed, calls, annotations, _all_types)
        v = p12.cuda_version
        stamp12 = (f"generated from CUDA {v // 1000}.{v % 1000 // 10} and {major}.{minor} by protocol/codegen "
                   f"— do not edit")
        files[C_OUT / "rgpu_cuda12.h"] = cuda12.header(plan, stamp12)
        files[C_OUT / "rgpu_v12.c"] = cuda12.source(
            plan, annotations.get("runtime_entry_points", {}).get("names", []), stamp12)
    return files, calls


def report(calls: list[classify.Call]) -> str:
    lines = [f"{'face':<10}{'in headers':>12}{'forwarded':>11}{'hand-written':>14}{'local':>7}{'not supported':>15}"]
    for face in ("runtime", "driver", "total"):
        sel = [c for c in calls if face == "total" or c.face == face]
        n = {k: sum(c.cls == k for c in sel) for k in ("forwarded", "handwritten", "local", "unsupported")}
        lines.append(f"{face:<10}{len(sel):>12}{n['forwarded']:>11}{n['handwritten']:>14}{n['local']:>7}"
                     f"{n['unsupported']:>15}")
    reasons: dict[str, int] = {}
    for c in calls:
        if c.cls == "unsupported":
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
    except (headers.HeadersNotFound, classify.ClassifyError) as e:
        print(f"codegen: {e}", file=sys.stderr)
        return 2
    if args.report:
        print(report(calls))
        if p12 is not None:
            print(cuda12.summary(cuda12.plan(p12, parsed, calls, classify.load_annotations(), _all_types)))
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
