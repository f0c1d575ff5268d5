"""Find the CUDA toolkit's headers, preprocess them with gcc and parse them with pycparser.

The CUDA headers are C with GNU and CUDA decorations; defining those away (and hiding __GNUC__
so glibc headers stay plain) leaves C99 that pycparser reads in about half a second.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from pycparser import CParser, c_ast

HEADERS = ("cuda.h", "cuda_runtime_api.h")

# Decorations pycparser cannot read; each expands to nothing (or to a plain type).
DEFINED_AWAY = [
    "__attribute__(x)=", "__attribute(x)=", "__align__(x)=", "__declspec(x)=", "__asm__(x)=",
    "__cudart_builtin__=", "__device_builtin__=", "__host__=", "__device__=", "__forceinline__=",
    "CUDARTAPI=", "__CUDA_DEPRECATED=", "__extension__=", "__restrict__=", "__restrict=",
    "__inline__=", "__inline=", "__volatile__=", "__builtin_va_list=int", "__const=const",
]


class HeadersNotFound(RuntimeError):
    pass


def find_include_dir() -> Path:
    """CUDA_HOME, then the nvcc on PATH, then /usr/local/cuda, then the nvidia-cuda-* wheels."""
    candidates = []
    if os.environ.get("CUDA_HOME"):
        candidates.append(Path(os.environ["CUDA_HOME"]) / "include")
    nvcc = shutil.which("nvcc")
    if nvcc:
        candidates.append(Path(nvcc).resolve().parent.parent / "include")
    candidates.append(Path("/usr/local/cuda/include"))
    for site in sys.path:
        for sub in ("nvidia/cu13/include", "nvidia/cuda_runtime/include"):
            candidates.append(Path(site) / sub)
    for c in candidates:
        if all((c / h).is_file() for h in HEADERS):
            return c
    raise HeadersNotFound("no CUDA headers (cuda.h, cuda_runtime_api.h) found: set CUDA_HOME, put nvcc on "
                          "PATH, or `pip install nvidia-cuda-runtime nvidia-cuda-crt`")


@dataclass
class Function:
    name: str
    face: str  # "runtime" or "driver"
    decl: c_ast.Decl

    @property
    def params(self) -> list:
        args = self.decl.type.args
        ps = list(args.params) if args else []
        # `f(void)` is a parameter list of one unnamed void.
        if len(ps) == 1 and isinstance(ps[0], c_ast.Typename) and _is_void(ps[0].type):
            return []
        return ps


def _is_void(t) -> bool:
    return isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) and t.type.names == ["void"]


@dataclass
class Parsed:
    include_dir: Path
    cuda_version: int
    functions: list[Function]
    typedefs: dict[str, c_ast.Typedef]
    structs: dict[str, c_ast.Struct]  # by tag, with members
    enums: dict[str, dict[str, int]]  # typedef or tag name -> {enumerator: value}
    aliases: dict[str, str] = field(default_factory=dict)  # cuMemAlloc -> cuMemAlloc_v2
    type_decls: list = field(default_factory=list)  # typedef/struct/enum nodes of the CUDA headers
    constants: dict[str, str] = field(default_factory=dict)  # integer #defines: cudaHostAllocMapped -> 0x02


def _preprocess(include_dir: Path, extra: list[str], also: tuple[Path, ...] = ()) -> str:
    src = "".join(f"#include <{h}>\n" for h in HEADERS)
    cmd = ["gcc", "-E", "-x", "c", "-", f"-I{include_dir}", *(f"-I{d}" for d in also), "-U__GNUC__", *extra]
    cmd += [f"-D{d}" for d in DEFINED_AWAY]
    out = subprocess.run(cmd, input=src, capture_output=True, text=True, check=True)
    return out.stdout


def parse(include_dir: Path | None = None, also: tuple[Path, ...] = ()) -> Parsed:
    """`also`: further include directories (the wheels split a toolkit's headers: crt/ comes with nvcc)."""
    include_dir = include_dir or find_include_dir()
    text = _preprocess(include_dir, [], also)
    macros = _preprocess(include_dir, ["-dM"], also)
    version = int(re.search(r"#define CUDA_VERSION (\d+)", macros).group(1))
    # `#define cuMemAlloc cuMemAlloc_v2`: what the un-suffixed name means today (cuGetProcAddress).
    aliases = dict(re.findall(r"#define (cu\w+) (cu\w+_v\d+)\s*$", macros, re.M))
    # Flags and limits the headers give as macros, not enums (cudaHostAllocMapped, cudaCpuDeviceId).
    constants = dict(re.findall(r"^#define ((?:cuda|CU_|CUDA_)\w+) (\(?(?:\((?:int|unsigned int)\))?-?"
                                r"(?:0x[0-9a-fA-F]+|\d+)[uUlL]*\)?)\s*$", macros, re.M))
    ast = CParser().parse(text)
    functions, typedefs, structs, enums = [], {}, {}, {}
    seen = set()
    # Type declarations of the CUDA headers themselves (not glibc's), in order, for cffi.
    type_decls = [e for e in ast.ext if not isinstance(getattr(e, "type", None), c_ast.FuncDecl)
                  and e.coord is not None and str(include_dir) in str(e.coord.file)]

    def collect_struct(node):
        if isinstance(node, c_ast.Struct) and node.decls is not None and node.name:
            structs[node.name] = node

    for ext in ast.ext:
        if isinstance(ext, c_ast.Typedef):
            typedefs[ext.name] = ext
            inner = ext.type.type if isinstance(ext.type, c_ast.TypeDecl) else None
            collect_struct(inner)
            if isinstance(inner, c_ast.Enum) and inner.values is not None:
                enums[ext.name] = _enum_values(inner)
                if inner.name:
                    enums[inner.name] = enums[ext.name]
        elif isinstance(ext, c_ast.Decl):
            if isinstance(ext.type, c_ast.FuncDecl):
                if ext.name.startswith("cu") and ext.name not in seen:
                    seen.add(ext.name)
                    face = "runtime" if ext.name.startswith("cuda") else "driver"
                    functions.append(Function(ext.name, face, ext))
            else:
                collect_struct(ext.type)
                if isinstance(ext.type, c_ast.Enum) and ext.type.values is not None and ext.type.name:
                    enums[ext.type.name] = _enum_values(ext.type)
    for d in type_decls:
        _FoldDims(enums).visit(d)
    return Parsed(include_dir, version, functions, typedefs, structs, enums, aliases, type_decls, constants)


# The <stdint.h>/<stddef.h> names the headers' types use, which cffi knows and pycparser does not (their
# widths do not matter here: only the prototypes' shapes are read).
_STDINT = "".join(f"typedef unsigned long {t};\n" for t in ("size_t", "uint64_t", "uintptr_t")) + \
    "".join(f"typedef {c} {t};\n" for c, t in (("unsigned int", "uint32_t"), ("unsigned short", "uint16_t"),
                                               ("unsigned char", "uint8_t"), ("long", "int64_t"), ("int", "int32_t"),
                                               ("short", "int16_t"), ("signed char", "int8_t"), ("long", "ssize_t")))


def declare(parsed: Parsed, types_cdef: str, prototypes: dict[str, str]) -> list[Function]:
    """Functions the headers do not declare, from C prototypes written in the headers' types (the
    records' `prototype`): each checked to declare the name it is recorded under."""
    if not prototypes:
        return []
    ast = CParser().parse(_STDINT + types_cdef + "\n" + "\n".join(p.rstrip(";") + ";" for p in prototypes.values()))
    decls = [e for e in ast.ext if isinstance(e, c_ast.Decl) and isinstance(e.type, c_ast.FuncDecl)]
    out = []
    for (name, _), d in zip(prototypes.items(), decls):
        if d.name != name:
            raise ValueError(f"{name}: its prototype declares {d.name}")
        out.append(Function(name, "runtime" if name.startswith("cuda") else "driver", d))
    return out


def _enum_values(enum: c_ast.Enum) -> dict[str, int]:
    values, nxt = {}, 0
    for e in enum.values.enumerators:
        if e.value is not None:
            nxt = _const_eval(e.value, values)
        values[e.name] = nxt
        nxt += 1
    return values


def _const_eval(node, env: dict[str, int]) -> int:
    if isinstance(node, c_ast.Constant):
        return int(node.value.rstrip("uUlL"), 0)
    if isinstance(node, c_ast.ID):
        return env[node.name]
    if isinstance(node, c_ast.UnaryOp):
        v = _const_eval(node.expr, env)
        return {"-": -v, "~": ~v, "+": v}[node.op]
    if isinstance(node, c_ast.BinaryOp):
        a, b = _const_eval(node.left, env), _const_eval(node.right, env)
        return {"<<": a << b, ">>": a >> b, "|": a | b, "&": a & b, "+": a + b, "-": a - b, "*": a * b}[node.op]
    if isinstance(node, c_ast.Cast):
        return _const_eval(node.expr, env)
    raise ValueError(f"cannot evaluate enum value {node!r}")


class _Refs(c_ast.NodeVisitor):
    def __init__(self):
        self.names = set()

    def visit_IdentifierType(self, n):
        self.names.update(n.names)

    def visit_Struct(self, n):
        if n.name:
            self.names.add(n.name)
        self.generic_visit(n)

    visit_Union = visit_Struct

    def visit_Enum(self, n):
        if n.name:
            self.names.add(n.name)


def type_names(node) -> set[str]:
    """Every type name a declaration refers to: typedef names, struct/union/enum tags, nested too."""
    r = _Refs()
    r.visit(node)
    return r.names


class _FoldDims(c_ast.NodeVisitor):
    """Array sizes like `8 - sizeof(CUlaunchAttributeID)` become numbers (cffi wants constants).
    On LP64 a pointer is 8 bytes and every CUDA enum is 4."""

    def __init__(self, enums):
        self.enums = enums

    def visit_ArrayDecl(self, node):
        if node.dim is not None and not isinstance(node.dim, c_ast.Constant):
            node.dim = c_ast.Constant("int", str(self._eval(node.dim)))
        self.generic_visit(node)

    def _eval(self, n):
        if isinstance(n, c_ast.UnaryOp) and n.op == "sizeof":
            t = n.expr.type if isinstance(n.expr, c_ast.Typename) else n.expr
            if isinstance(t, c_ast.PtrDecl):
                return 8
            names = t.type.names if isinstance(t, c_ast.TypeDecl) else []
            if names and names[0] in self.enums:
                return 4
            raise ValueError(f"cannot size {names}")
        if isinstance(n, c_ast.BinaryOp):
            a, b = self._eval(n.left), self._eval(n.right)
            return {"+": a + b, "-": a - b, "*": a * b}[n.op]
        return _const_eval(n, {})
