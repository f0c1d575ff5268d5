"""The NVML face (libnvidia-ml.so.1): generated from nvml.h like the CUDA faces.

nvml.h is read with every entry point under the name the real library exports (the legacy names and
the _vN ones: NVML_NO_UNVERSIONED_FUNC_DEFS). protocol/contract/nvml.toml places each function:

    [nvmlDeviceGetMemoryInfo]        # one record per function rgpu answers
    side = "client"                  # hand-written in `client` (libhook/src/...)
    client = "nvml/nvml.c"
    why = "the vGPU's quota and what its sessions hold"

    [[unsupported]]                  # the rest, by rules: every function must match one
    match = "nvmlDeviceSet*"         # fnmatch pattern over the function's name
    why = "rgpu's NVML reports; it changes nothing on the pool's GPUs"

A function no record and no rule places stops the generator, as does a record of a function nvml.h
lacks, or a client record whose file does not define it. Written: libhook/generated/rgpu_nvml.h (the
header's types, constants and prototypes, which the hand-written face compiles against) and
rgpu_nvml_stubs.c (every unsupported function, answering NVML_ERROR_NOT_SUPPORTED and logging its name
once).

The header comes from NVIDIA's nvidia-nvml-dev wheel of the CUDA series the rest is generated from,
pinned (VERSION) so that every machine generates the same files — never from a toolkit's include
directory, whose nvml.h may be another release. ``pip install --no-deps --target .cache/nvml
nvidia-nvml-dev==VERSION`` installs it, as tests/support/nvml.py does; without it the generated
files are left as they are."""
from __future__ import annotations

import copy
import fnmatch
import os
import re
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

from pycparser import CParser, c_ast
from pycparser.c_generator import CGenerator

from .classify import ClassifyError
from .headers import DEFINED_AWAY

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "protocol" / "contract" / "nvml.toml"
WHEEL = "nvidia-nvml-dev"
VERSION = "13.0.87"


def wheel_dir() -> Path:
    return Path(os.environ.get("RGPU_NVML_WHEELS", ROOT / ".cache" / "nvml"))


def find_header() -> Path | None:
    """nvml.h of the pinned wheel; None when it is not installed."""
    h = wheel_dir() / "nvidia" / "cu13" / "include" / "nvml.h"
    return h if h.is_file() else None


@dataclass
class NvmlFunction:
    name: str
    decl: c_ast.Decl
    side: str          # client | unsupported
    why: str
    client: str = ""


@dataclass
class Parsed:
    api_version: str
    type_decls: list
    functions: list[c_ast.Decl]
    constants: dict[str, str]
    struct_versions: list[tuple[str, str, str]]


def parse(header: Path) -> Parsed:
    cmd = ["gcc", "-E", "-x", "c", "-", f"-I{header.parent}", "-U__GNUC__", "-DNVML_NO_UNVERSIONED_FUNC_DEFS",
           "-DDECLDIR=", *[f"-D{d}" for d in DEFINED_AWAY]]
    text = subprocess.run(cmd, input="#include <nvml.h>\n", capture_output=True, text=True, check=True).stdout
    macros = subprocess.run(cmd + ["-dM"], input="#include <nvml.h>\n", capture_output=True, text=True,
                            check=True).stdout
    version = re.search(r'#define NVML_API_VERSION_STR "(\d+)"', macros).group(1)
    constants = dict(re.findall(r"^#define (NVML_\w+) (\(?-?(?:0x[0-9a-fA-F]+|\d+)[uUlL]*\)?)\s*$", macros, re.M))
    ast = CParser().parse(text)
    mine = [e for e in ast.ext if e.coord is not None and str(header) in str(e.coord.file)]
    functions = [e for e in mine if isinstance(e, c_ast.Decl) and isinstance(e.type, c_ast.FuncDecl)]
    types = [e for e in mine if not (isinstance(e, c_ast.Decl) and isinstance(e.type, c_ast.FuncDecl))]
    struct_versions = re.findall(r"^#define (nvml\w+) NVML_STRUCT_VERSION\((\w+), (\d+)\)\s*$", macros, re.M)
    return Parsed(version, types, functions, constants, sorted(struct_versions))


def load_contract(path: Path = CONTRACT) -> tuple[dict, list]:
    with open(path, "rb") as f:
        data = tomllib.load(f)
    rules = data.pop("unsupported", [])
    for name, r in data.items():
        if r.get("side") != "client" or not r.get("client") or not r.get("why"):
            raise ClassifyError(f"nvml.toml [{name}]: a record is side = \"client\" with `client` and `why`")
    for r in rules:
        if set(r) != {"match", "why"}:
            raise ClassifyError(f"nvml.toml [[unsupported]] {r}: a rule is match and why")
    return data, rules


def place(parsed: Parsed, records: dict, rules: list, defines) -> list[NvmlFunction]:
    """Every function of nvml.h with its record or rule; ClassifyError names what cannot be placed."""
    names = {d.name for d in parsed.functions}
    stale = sorted(set(records) - names)
    if stale:
        raise ClassifyError(f"nvml.toml records functions nvml.h does not declare: {stale}")
    out, unplaced, problems = [], [], []
    for d in parsed.functions:
        r = records.get(d.name)
        if r is not None:
            why = defines(r["client"], d.name)
            if why:
                problems.append(f"{d.name}: {why}")
            out.append(NvmlFunction(d.name, d, "client", r["why"], r["client"]))
            continue
        rule = next((x for x in rules if fnmatch.fnmatchcase(d.name, x["match"])), None)
        if rule is None:
            unplaced.append(d.name)
            continue
        if CGenerator().visit(d.type.type) != "nvmlReturn_t":
            problems.append(f"{d.name} does not return nvmlReturn_t: it needs a record of its own")
        out.append(NvmlFunction(d.name, d, "unsupported", rule["why"]))
    if unplaced:
        raise ClassifyError(f"nvml.h functions no record or [[unsupported]] rule of nvml.toml places: {unplaced}")
    if problems:
        raise ClassifyError("nvml.toml: " + "; ".join(problems))
    return out


def _defined_once(decls: list) -> list:
    """`typedef struct s {...} a_t, b_t;` reaches pycparser as two typedefs that each carry the body:
    the second one names the struct only."""
    out, seen = [], set()
    for d in decls:
        t = d.type.type if isinstance(d, c_ast.Typedef) and isinstance(d.type, c_ast.TypeDecl) else None
        if isinstance(t, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and t.name:
            body = t.decls if not isinstance(t, c_ast.Enum) else t.values
            if body is not None and (type(t), t.name) in seen:
                d = copy.deepcopy(d)
                inner = d.type.type
                if isinstance(inner, c_ast.Enum):
                    inner.values = None
                else:
                    inner.decls = None
            elif body is not None:
                seen.add((type(t), t.name))
        out.append(d)
    return out


def header(parsed: Parsed, functions: list[NvmlFunction], stamp: str) -> str:
    gen = CGenerator()
    lines = [f"/* {stamp} */", "#ifndef RGPU_NVML_H", "#define RGPU_NVML_H", "#include <stddef.h>",
             "#include <stdint.h>", ""]
    lines += [f"#define {k} {v}" for k, v in sorted(parsed.constants.items())]
    lines.append(f'#define NVML_API_VERSION_STR "{parsed.api_version}"')
    # NVML_STRUCT_VERSION's versioned structs (nvmlMemory_v2, ...): the macro pastes names, so each
    # one the header defines is written out
    lines += [f"#define {name} (unsigned int)(sizeof(nvml{data}_v{ver}_t) | ({ver}U << 24U))"
              for name, data, ver in parsed.struct_versions]
    lines.append("")
    lines += [gen.visit(d) + ";" for d in _defined_once(parsed.type_decls)]
    lines.append("")
    lines += [gen.visit(f.decl) + ";" for f in functions]
    lines += ["", "#endif", ""]
    return "\n".join(lines)


def stubs(functions: list[NvmlFunction], stamp: str) -> str:
    gen = CGenerator()
    out = [f"/* {stamp} */", "/* NVML functions rgpu does not answer: NVML_ERROR_NOT_SUPPORTED, their name logged once. */",
           '#include "rgpu_nvml.h"', "", "nvmlReturn_t rgpu_nvml_unsupported(const char *name, const char *why);", ""]
    for f in functions:
        if f.side != "unsupported":
            continue
        proto = gen.visit(f.decl)
        out.append(f"/* {f.why} */")
        out.append(f"{proto}\n{{\n    return rgpu_nvml_unsupported(\"{f.name}\", \"{f.why}\");\n}}\n")
    return "\n".join(out)


def generate(defines) -> tuple[dict[Path, str], list[NvmlFunction]] | None:
    """The NVML face's files, or None when no nvml.h is installed (they are left as they are).
    ``defines(client_file, name)``: "" when libhook/src/<client_file> defines the function, else why not."""
    found = find_header()
    if found is None:
        return None
    parsed = parse(found)
    records, rules = load_contract()
    functions = place(parsed, records, rules, defines)
    stamp = f"generated from nvml.h (NVML API {parsed.api_version}) and protocol/contract/nvml.toml by protocol/codegen — do not edit"
    out = ROOT / "libhook" / "generated"
    return {out / "rgpu_nvml.h": header(parsed, functions, stamp),
            out / "rgpu_nvml_stubs.c": stubs(functions, stamp)}, functions
