"""cuGetProcAddress's version table, from cudaTypedefs.h.

A runtime asks the driver for `cuMemcpyHtoD` "as CUDA 3.2 meant it" (cuMemcpyHtoD_v2), for
`cuStreamBeginCapture` as 10.0 meant it (no mode argument) or as 10.1 did (cuStreamBeginCapture_v2),
with or without the per-thread default stream (_ptds/_ptsz). cudaTypedefs.h declares one PFN typedef per
(name, version[, per-thread]) with its prototype: `PFN_cuMemcpyHtoD_v3020`, `PFN_cuMemcpyHtoD_v7000_ptds`.
NVIDIA's libcuda exports the k-th version of a name as NAME (k=1) or NAME_vK, and the per-thread forms
with `_ptds`/`_ptsz` appended (cuda.h's __CUDA_API_PTDS/__CUDA_API_PTSZ).

From that this module writes libhook/generated/rgpu_proc_versions.c:
- the table (name, version, per-thread) -> the symbol it means, which cuGetProcAddress searches for the
  newest version not above the caller's;
- every such symbol that rgpu does not define itself, exported under NVIDIA's name (libraries such as
  cuBLASLt dlsym the legacy names directly): a jump to rgpu's function when its prototype is the same as
  rgpu's (the per-thread forms, `cuCtxPushCurrent` = `cuCtxPushCurrent_v2`, ...), else a stub that answers
  CUDA_ERROR_NOT_SUPPORTED and logs its name once (the 32-bit forms of CUDA 2.x, superseded semantics);
  protocol/contract/proc_versions.toml names a hand-written adapter instead where one exists.
"""
from __future__ import annotations

import re
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

from pycparser import CParser, c_ast

from . import headers

ADAPTERS = Path(__file__).resolve().parent.parent / "contract" / "proc_versions.toml"


def adapters(path: Path = ADAPTERS) -> dict[str, str]:
    """Symbol NVIDIA's driver exports -> rgpu's hand-written function serving that older form."""
    with open(path, "rb") as f:
        return tomllib.load(f).get("adapters", {})


_PFN = re.compile(r"^PFN_(cu\w+?)_v(\d+)(_ptds|_ptsz)?$")


@dataclass(frozen=True)
class Version:
    base: str        # cuMemcpyHtoD
    version: int     # 3020
    pt: str          # "", "_ptds" or "_ptsz"
    symbol: str      # what NVIDIA's driver exports for it: cuMemcpyHtoD_v2_ptds
    signature: tuple  # canonical parameter types


def _parse_typedefs(include_dir: Path) -> c_ast.FileAST:
    src = "#include <cudaTypedefs.h>\n"
    cmd = ["gcc", "-E", "-x", "c", "-", f"-I{include_dir}", "-U__GNUC__", "-D__CUDA_API_VERSION_INTERNAL"]
    cmd += [f"-D{d}" for d in headers.DEFINED_AWAY]
    text = subprocess.run(cmd, input=src, capture_output=True, text=True, check=True).stdout
    return CParser().parse(text)


class _Canon:
    """Parameter types with every typedef resolved, so CUdevice_v1 == CUdevice == int and
    CUdeviceptr_v1 (unsigned int) != CUdeviceptr_v2 (unsigned long long)."""

    def __init__(self, typedefs: dict[str, c_ast.Typedef]):
        self.typedefs = typedefs

    def of(self, node) -> str:
        if isinstance(node, (c_ast.Typename, c_ast.Decl, c_ast.Typedef)):
            return self.of(node.type)
        if isinstance(node, c_ast.PtrDecl):
            return self.of(node.type) + "*"
        if isinstance(node, c_ast.ArrayDecl):
            return self.of(node.type) + "[]"
        if isinstance(node, c_ast.FuncDecl):
            return "fn(" + ",".join(self.params(node)) + ")"
        if isinstance(node, c_ast.TypeDecl):
            const = "const " if "const" in node.quals else ""
            return const + self.of(node.type)
        if isinstance(node, c_ast.IdentifierType):
            name = " ".join(node.names)
            if name in self.typedefs:
                return self.of(self.typedefs[name].type)
            return name
        if isinstance(node, (c_ast.Struct, c_ast.Union)):
            return f"struct {node.name}"
        if isinstance(node, c_ast.Enum):
            return "int"
        raise TypeError(f"cannot canonicalise {type(node).__name__}")

    def params(self, fn: c_ast.FuncDecl) -> tuple:
        ps = list(fn.args.params) if fn.args else []
        if len(ps) == 1 and self.of(ps[0]) == "void":
            return ()
        return tuple(self.of(p) for p in ps)


def versions(include_dir: Path) -> tuple[list[Version], dict[str, tuple]]:
    """Every PFN of cudaTypedefs.h as a Version, and the canonical prototype of every cu* function
    cuda.h declares (its legacy names included)."""
    ast = _parse_typedefs(include_dir)
    typedefs = {e.name: e for e in ast.ext if isinstance(e, c_ast.Typedef)}
    canon = _Canon(typedefs)
    declared = {}
    for e in ast.ext:
        if isinstance(e, c_ast.Decl) and isinstance(e.type, c_ast.FuncDecl) and e.name.startswith("cu"):
            declared.setdefault(e.name, canon.params(e.type))
    by_base: dict[str, list[tuple[int, str, tuple]]] = {}
    for name, td in typedefs.items():
        m = _PFN.match(name)
        if not m or not isinstance(td.type, c_ast.PtrDecl) or not isinstance(td.type.type, c_ast.FuncDecl):
            continue
        by_base.setdefault(m.group(1), []).append((int(m.group(2)), m.group(3) or "", canon.params(td.type.type)))
    out = []
    for base, entries in by_base.items():
        # The k-th version is NAME (k=1) or NAME_vK; a per-thread form appeared later than the function
        # it is a form of (cuMemcpyHtoD_v7000_ptds is cuMemcpyHtoD_v2_ptds): it takes the rank of the
        # newest plain version not after it.
        plain = sorted({v for v, pt, _ in entries if not pt})
        for v, pt, sig in entries:
            k = sum(1 for p in plain if p <= v) or 1
            symbol = (base if k == 1 else f"{base}_v{k}") + pt
            if declared.get(symbol, sig) != sig:
                raise ValueError(f"PFN_{base}_v{v}{pt} does not match the prototype cuda.h declares for {symbol}")
            out.append(Version(base, v, pt, symbol, sig))
    out.sort(key=lambda x: (x.base, x.pt, x.version))
    return out, declared


def plan(include_dir: Path, own: set[str], defined_elsewhere: set[str], aliases: dict[str, str],
         overrides: dict[str, str]) -> tuple[list[Version], dict[str, tuple[str, str]]]:
    """Every Version, and the exported names rgpu must add for them: symbol -> ("jump", target),
    ("adapter", function) or ("unsupported", why).

    `own`: rgpu's driver functions generated from the 13.0 headers; `defined_elsewhere`: driver names the
    CUDA 12 face defines (cuda12.c, rgpu_v12.c); `aliases`: cuda.h's `#define NAME NAME_vK`;
    `overrides`: [adapters] of contract/proc_versions.toml: a symbol -> the hand-written function serving it."""
    vs, declared = versions(include_dir)
    implemented = {n: declared[n] for n in own if n in declared}
    exports = {}
    for v in vs:
        if v.symbol in implemented or v.symbol in defined_elsewhere:
            continue
        plain = v.symbol[: -len(v.pt)] if v.pt else v.symbol
        now = aliases.get(v.base, v.base)  # the name as 13.0 means it
        if v.symbol in overrides or plain in overrides:
            exports[v.symbol] = ("adapter", overrides.get(v.symbol) or overrides[plain])
        elif plain in implemented and implemented[plain] == v.signature:
            exports[v.symbol] = ("jump", plain)  # a per-thread form of a function rgpu has
        elif now in implemented and implemented[now] == v.signature:
            exports[v.symbol] = ("jump", now)  # cuCtxPushCurrent is cuCtxPushCurrent_v2
        else:
            exports[v.symbol] = ("unsupported", f"the CUDA {v.version // 1000}.{v.version % 1000 // 10} form of {v.base}")
    return vs, exports


def source(table: list[Version], exports: dict[str, tuple[str, str]], stamp: str) -> str:
    out = [f"/* {stamp} */", "/* cuGetProcAddress's versions and the driver's legacy and per-thread names",
           " * (protocol/codegen/proc_versions.py). */", '#include "rgpu_call.h"', ""]
    for sym, (kind, target) in sorted(exports.items()):
        if kind == "unsupported":
            out.append(f"/* {target} */")
            out.append(f'int {sym}(void) {{ return rgpu_unsupported(RGPU_DRIVER, "{sym}"); }}')
        else:
            out.append(f'__asm__(".text\\n.globl {sym}\\n.type {sym}, @function\\n{sym}:\\n    jmp {target}@PLT\\n");')
    out += ["", "const rgpu_proc_version rgpu_proc_versions[] = {"]
    out += [f'    {{"{v.base}", {v.version}, {1 if v.pt else 0}, "{v.symbol}"}},' for v in table]
    out += ["};", f"const size_t rgpu_nproc_versions = {len(table)};", ""]
    names = sorted(exports)
    out += [f"extern int {s}();" for s in names if exports[s][0] != "unsupported"]
    out += ["const rgpu_proc rgpu_procs_legacy[] = {"]
    out += [f'    {{"{s}", (void *){s}}},' for s in names]
    out += ["};", f"const size_t rgpu_nprocs_legacy = {len(names)};", ""]
    return "\n".join(out)
