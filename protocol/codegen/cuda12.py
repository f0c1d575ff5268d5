"""The CUDA 12 face, from CUDA 12.x headers read beside the 13.0 ones everything else comes from.

Programs built by CUDA 12 bind name@libcudart.so.12 and call the Driver API by 12.x names. Most
entry points mean the same in both series and the 12 node jumps straight to the 13 function. What
differs is found by diffing the two header sets, and each difference must be placed by the
tables of protocol/contract/cuda12.toml (same_as / handwritten / unsupported) or the generator stops:
  - names only 12.x declares (cudaGetDeviceProperties_v2, cudaThreadSynchronize, cuCtxCreate_v2...);
  - names both declare with different prototypes (cudaMemAdvise took a device in 12.x);
  - names whose structs changed layout (cudaDeviceProp, cudaPointerAttributes), unless 13 does not
    serve them anyway.
The 12.x layouts of the structs named in [layouts] are emitted with a converter from the 13.0
layout; fields 12.x has and 13.0 dropped are filled from device attributes ([fill]).
"""
from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from pathlib import Path

import cffi
from pycparser import c_ast
from pycparser.c_generator import CGenerator

from .classify import Call, ClassifyError
from .headers import Parsed, type_names

ROOT = Path(__file__).resolve().parents[2]
# The series the checked-in 12.x layouts come from, and the wheels that carry its headers
# (cuda.h and cuda_runtime_api.h in the runtime wheel, crt/ in the nvcc one).
SERIES = "12.9"
WHEELS = ("nvidia-cuda-runtime-cu12", "nvidia-cuda-nvcc-cu12")


def wheel_dir() -> Path:
    return Path(os.environ.get("RGPU_CUDA12_WHEELS", ROOT / ".cache" / "cuda12"))


def include_dirs() -> tuple[Path, tuple[Path, ...]] | None:
    """(cuda_runtime include, (crt include,)) of the installed 12.x wheels, or None."""
    base = wheel_dir() / "nvidia"
    rt, crt = base / "cuda_runtime" / "include", base / "cuda_nvcc" / "include"
    if (rt / "cuda.h").is_file() and (rt / "cuda_runtime_api.h").is_file() and (crt / "crt").is_dir():
        return rt, (crt,)
    return None


def signature(decl: c_ast.Decl) -> str:
    """The prototype without its name and parameter names: what the ABI sees."""
    d = copy.deepcopy(decl)
    d.name = None
    _strip(d.type)
    for p in (d.type.args.params if d.type.args else []):
        _strip(p.type)
    return CGenerator().visit(d.type)


def _strip(t):
    while not isinstance(t, c_ast.TypeDecl):
        if not hasattr(t, "type"):
            return
        t = t.type
    t.declname = None


def _type_names(decl: c_ast.Decl) -> set[str]:
    return type_names(decl.type)


@dataclass
class Layout:
    name: str  # as C spells it: "struct cudaDeviceProp"
    size12: int
    size13: int
    fields12: list[tuple[str, int, int]]  # (field, offset, size) in the 12.x layout
    common: list[tuple[int, int, int]]  # (offset12, offset13, bytes to copy)
    fills: list[tuple[str, int, str, int]]  # (field, offset12, attribute name, attribute value)


@dataclass
class Plan:
    version: int
    runtime: dict[str, str] = field(default_factory=dict)  # 12 name -> C function its trampoline jumps to
    driver_same: dict[str, str] = field(default_factory=dict)  # 12-only driver name -> 13 function
    unsupported: dict[str, tuple[str, str]] = field(default_factory=dict)  # C function -> (face, reason)
    handwritten: list[str] = field(default_factory=list)
    layouts: list[Layout] = field(default_factory=list)
    procs: dict[str, str] = field(default_factory=dict)  # cuGetProcAddress name at 12.x -> C function


def _is_struct_typedef(parsed: Parsed, name: str) -> bool:
    t = parsed.typedefs.get(name)
    t = t.type.type if t is not None and isinstance(t.type, c_ast.TypeDecl) else None
    while isinstance(t, c_ast.IdentifierType) and t.names[0] in parsed.typedefs:  # typedef of a typedef
        inner = parsed.typedefs[t.names[0]].type
        t = inner.type if isinstance(inner, c_ast.TypeDecl) else None
    return isinstance(t, c_ast.Struct)


def _ffi(parsed: Parsed, cdef) -> cffi.FFI:
    f = cffi.FFI()
    f.cdef(cdef(parsed))
    return f


def _layout(ffi, parsed: Parsed, name: str):
    t = name if name in parsed.typedefs else f"struct {name}"
    try:
        ty = ffi.typeof(t)
        if ty.kind != "struct":
            return None
        return ffi.sizeof(ty), [(k, f.offset, ffi.sizeof(f.type)) for k, f in ty.fields]
    except Exception:  # opaque or not declared in this series
        return None


def plan(p12: Parsed, p13: Parsed, calls13: list[Call], a: dict, cdef) -> Plan:
    """Place every 12.x function by protocol/contract/cuda12.toml (`a`); `cdef(parsed)` gives the cffi
    declarations of a header set."""
    same_as: dict = a.get("same_as", {})
    hand = set(a.get("handwritten", {}).get("names", []))
    unsup: dict = a.get("unsupported", {})
    # [runtime_v12]: 12.x forms implemented by hand under a name of their own (graph_v12.c, ...)
    impl12: dict = a.get("runtime_v12", {})
    f12, f13 = _ffi(p12, cdef), _ffi(p13, cdef)
    changed = set()
    # Only the types prototypes name directly (a struct that embeds a changed one changes size
    # itself); cffi parses every type string it is asked about, so asking about all would take minutes.
    named = set().union(*(_type_names(f.decl) for f in p12.functions))
    for n in sorted(n for n in named if n in p12.structs or _is_struct_typedef(p12, n)):
        l12, l13 = _layout(f12, p12, n), _layout(f13, p13, n)
        if l12 and l13 and l12 != l13:
            changed.add(n)
    c13 = {c.name: c for c in calls13}
    d13 = {f.name: f for f in p13.functions}
    out = Plan(p12.cuda_version)
    errors = []  # all of them at once: one annotation pass fixes them
    for f in p12.functions:
        n, face = f.name, f.face
        if n in impl12 and face == "runtime":
            out.runtime[n] = impl12[n]
            continue
        if n in hand:
            out.handwritten.append(n)
            if face == "runtime":
                out.runtime[n] = f"rgpu12impl_{n}"
            continue
        if n in unsup:
            # A Driver name 13.0 also declares keeps 13.0's meaning when linked (the Driver face is
            # unversioned); cuGetProcAddress at a 12.x version gets the stub.
            impl = n if face == "driver" and n not in d13 else f"rgpu12impl_{n}"
            out.unsupported[impl] = (face, unsup[n])
            if face == "runtime":
                out.runtime[n] = impl
            elif impl != n:
                out.procs[n] = impl
            continue
        if n in same_as:
            target = same_as[n]
            if target not in d13 or signature(d13[target].decl) != signature(f.decl):
                errors.append(f"[same_as] {n} = {target}: 13.0 has no function of that name with "
                              f"the 12.x prototype")
                continue
            if face == "runtime":
                out.runtime[n] = target
            else:
                out.driver_same[n] = target
            continue
        if n not in d13:
            errors.append(f"{n}: CUDA 12 declares it and 13.0 does not")
        elif signature(d13[n].decl) != signature(f.decl):
            errors.append(f"{n}: 12.x and 13.0 prototypes differ")
        elif c13[n].cls != "unsupported" and _type_names(f.decl) & changed:
            errors.append(f"{n}: takes {sorted(_type_names(f.decl) & changed)}, whose layout changed "
                          f"between 12.x and 13.0")
        if face == "runtime":
            out.runtime[n] = n
    declared = {f.name for f in p12.functions}
    for n in sorted(hand - declared):  # exported by libcudart.so.12 though its header #defines it away
        if not n.startswith("cuda") or n not in d13:
            errors.append(f"[handwritten] {n}: neither header set declares it")
        else:
            out.handwritten.append(n)
            out.runtime[n] = f"rgpu12impl_{n}"
    # Names libcudart.so.12 exports for older binaries though its header #defines them to a _vN
    # (cudaStreamGetCaptureInfo is cudaStreamGetCaptureInfo_v2 there): a stub, so such a binary loads.
    for n in sorted(set(unsup) - declared):
        if not n.startswith("cuda"):
            errors.append(f"[unsupported] {n}: the 12.x headers do not declare it")
        else:
            out.unsupported[f"rgpu12impl_{n}"] = ("runtime", unsup[n])
            out.runtime[n] = f"rgpu12impl_{n}"
    for n in sorted(set(impl12) - declared):  # older binaries' names (cudaStreamGetCaptureInfo before 12.3)
        out.runtime[n] = impl12[n]
    errors += [f"[same_as] {n}: the 12.x headers do not declare it" for n in sorted(set(same_as) - declared)]
    if errors:
        raise ClassifyError("place these in protocol/contract/cuda12.toml (same_as, handwritten or unsupported):\n  "
                            + "\n  ".join(errors))
    for n in a.get("layouts", {}).get("names", []):
        out.layouts.append(_convert(n, f12, p12, f13, p13, a.get("fill", {}).get(n, {})))
    # cuGetProcAddress at 12.x: the names its headers #define to another _vN than 13.0's, and the
    # Driver names only 12.x has.
    driver12 = {f.name for f in p12.functions if f.face == "driver" and f.name not in d13}
    exported = {c.name for c in calls13} | driver12
    for short, full in p12.aliases.items():
        if not short.startswith("cuda") and p13.aliases.get(short) != full and full in exported:
            out.procs[short] = full
    out.procs.update({n: n for n in driver12})
    return out


def _convert(name, f12, p12, f13, p13, fill: dict) -> Layout:
    l12, l13 = _layout(f12, p12, name), _layout(f13, p13, name)
    if not l12 or not l13:
        raise ClassifyError(f"[layouts] {name}: not a struct in both header sets")
    at13 = {k: (o, s) for k, o, s in l13[1]}
    common, fills = [], []
    enum = p12.enums.get("cudaDeviceAttr", {})
    for k, o, s in l12[1]:
        if k in at13:
            common.append((o, at13[k][0], min(s, at13[k][1])))
        elif k in fill:
            if s != 4 or fill[k] not in enum:
                raise ClassifyError(f"[fill.{name}] {k} = {fill[k]}: an int field from a cudaDeviceAttr")
            fills.append((k, o, fill[k], enum[fill[k]]))
        else:
            raise ClassifyError(f"{name}.{k}: 12.x has it and 13.0 does not: say in [fill.{name}] "
                                f"which device attribute fills it")
    cname = name if name in p12.typedefs else f"struct {name}"
    return Layout(cname, l12[0], l13[0], l12[1], common, fills)


def summary(p: Plan) -> str:
    """The CUDA 12 face for `--report`."""
    hand_rt = [n for n in p.handwritten if n.startswith("cuda")]
    unsup_rt = [f for f, _ in p.unsupported.values() if f == "runtime"]
    same = sum(1 for n, t in p.runtime.items() if t == n)
    renamed = len(p.runtime) - same - len(hand_rt) - len(unsup_rt)
    driver = len(p.driver_same) + len(p.handwritten) - len(hand_rt) + len(p.unsupported) - len(unsup_rt)
    major, minor = p.version // 1000, p.version % 1000 // 10
    return "\n".join([
        f"\nCUDA {major}.{minor} face (the libcudart.so.12 node and 12.x Driver names):",
        f"  {len(p.runtime):4d}  runtime names: {same} as in 13.0, {renamed} the same as another 13.0 function, "
        f"{len(hand_rt)} hand-written, {len(unsup_rt)} not supported",
        f"  {driver:4d}  driver names 12.x declares differently: {len(p.driver_same)} the same as a 13.0 function, "
        f"{len(p.handwritten) - len(hand_rt)} hand-written, {len(p.unsupported) - len(unsup_rt)} not supported",
        f"  {len(p.layouts):4d}  structs served in their 12.x layout: "
        + ", ".join(lay.name.removeprefix("struct ") for lay in p.layouts)])


def header(p: Plan, stamp: str) -> str:
    out = [f"/* {stamp} */", "#ifndef RGPU_CUDA12_H", "#define RGPU_CUDA12_H", "#include <stddef.h>", "",
           f"#define RGPU12_CUDA_VERSION {p.version}", ""]
    for lay in p.layouts:
        short = lay.name.removeprefix("struct ")
        out.append(f"#define RGPU12_SIZEOF_{short} {lay.size12}")
        out += [f"#define RGPU12_OFFSETOF_{short}_{k} {o}" for k, o, _ in lay.fields12]
        out.append(f"/* the 12.x layout from the 13.0 one (RGPU_SIZEOF_{short} bytes); fields 13.0 dropped are 0 */")
        out.append(f"void rgpu12_from13_{short}(void *dst12, const void *src13);")
        if lay.fills:
            out.append("/* the fields 13.0 dropped, from device attributes; a CUDA error code */")
            out.append(f"int rgpu12_fill_{short}(void *dst12, int device);")
        out.append("")
    out += ["#ifdef RGPU_CALL_H",
            "/* cuGetProcAddress at a 12.x cudaVersion: names that mean another entry point than at 13.0 */",
            "extern const rgpu_proc rgpu_procs12[];", "extern const size_t rgpu_nprocs12;", "#endif", "",
            "#endif", ""]
    return "\n".join(out)


def source(p: Plan, entry_points: list[str], stamp: str, declared: set[str] = frozenset()) -> str:
    """The libcudart.so.12 version node (one-jump trampolines carrying the version, so one library
    serves both series), the 12.x layouts, the 12-only Driver names and their stubs. `declared`: the
    13.0 functions rgpu_cuda.h already declares with their prototypes."""
    out = [f"/* {stamp} */", "#include <string.h>", "", '#include "rgpu_call.h"', '#include "rgpu_cuda12.h"', ""]
    tramp = dict(p.runtime)
    tramp.update({n: n for n in entry_points})
    for n, target in sorted(tramp.items()):
        out.append(f'__asm__(".text\\n.globl rgpu12_{n}\\n.type rgpu12_{n}, @function\\nrgpu12_{n}:\\n'
                   f'    jmp {target}@PLT\\n.symver rgpu12_{n}, {n}@libcudart.so.12\\n");')
    out.append("")
    out.append("/* Driver names only 12.x has, with the prototype of a 13.0 one (the Driver face is unversioned) */")
    for n, target in sorted(p.driver_same.items()):
        out.append(f'__asm__(".text\\n.globl {n}\\n.type {n}, @function\\n{n}:\\n    jmp {target}@PLT\\n");')
    out.append("")
    for impl, (face, reason) in sorted(p.unsupported.items()):
        name = impl.removeprefix("rgpu12impl_")
        fc = "RGPU_RUNTIME" if face == "runtime" else "RGPU_DRIVER"
        out += [f"/* {name} (CUDA 12): not supported: {reason} */", f"int {impl}()", "{",
                f'    return rgpu_unsupported({fc}, "{name}");', "}", ""]
    for lay in p.layouts:
        short = lay.name.removeprefix("struct ")
        out.append(f"static const struct {{ unsigned short off12, off13, n; }} map_{short}[] = {{")
        out += [f"    {{{a}, {b}, {n}}}," for a, b, n in lay.common]
        out += ["};", f"void rgpu12_from13_{short}(void *dst12, const void *src13)", "{",
                f"    memset(dst12, 0, {lay.size12});",
                f"    for (size_t i = 0; i < sizeof map_{short} / sizeof *map_{short}; i++)",
                f"        memcpy((char *)dst12 + map_{short}[i].off12, (const char *)src13 + map_{short}[i].off13, "
                f"map_{short}[i].n);", "}", ""]
        if lay.fills:
            out.append(f"static const struct {{ unsigned short off12; int attr; }} fill_{short}[] = {{")
            out += [f"    {{{o}, {v}}}, /* {k}: {attr} */" for k, o, attr, v in lay.fills]
            out += ["};", f"int rgpu12_fill_{short}(void *dst12, int device)", "{",
                    f"    for (size_t i = 0; i < sizeof fill_{short} / sizeof *fill_{short}; i++) {{",
                    "        int v, rc = cudaDeviceGetAttribute(&v, fill_" + short + "[i].attr, device);",
                    "        if (rc != 0) return rc;",
                    f"        memcpy((char *)dst12 + fill_{short}[i].off12, &v, sizeof v);", "    }",
                    "    return 0;", "}", ""]
    fns = sorted(set(p.procs.values()))
    out += [f"extern int {n}();" for n in fns if n not in declared]
    out += ["", "const rgpu_proc rgpu_procs12[] = {"]
    out += [f'    {{"{k}", (void *){v}}},' for k, v in sorted(p.procs.items())]
    out += ["};", f"const size_t rgpu_nprocs12 = {len(p.procs)};", ""]
    return "\n".join(out)
