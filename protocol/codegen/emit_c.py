"""Writes libhook/generated/: the CUDA headers' types and every function's prototype (so the compiler
checks each hand-written hook against them), call ids and flags, the wire encoders of hand-written
calls, the forwarding stubs, the constants shared with the server and the cuGetProcAddress table.

Every put/out below is the client's half of one wire kind; server/dispatch.py and the cuda backend's
generic path (server/backends/cuda/generic.py) are the other half of the same kinds."""
from __future__ import annotations

import copy
import re

from pycparser import c_ast
from pycparser.c_generator import CGenerator

from . import records
from .classify import Call, Param

FACE = {"runtime": "RGPU_RUNTIME", "driver": "RGPU_DRIVER"}
# Bits of rgpu_call.flags (libhook/src/transport/rgpu_call.h): the records' flags, then what the
# transport needs from the rest of a record.
FLAG_BITS = {name: 1 << i for i, name in enumerate(records.FLAGS)}
FLAG_BITS.update({"shm": 1 << 8, "not_sim": 1 << 9, "not_cuda": 1 << 10})
FLAG_DOC = dict(records.FLAGS, shm="its bulk data may move through the session's shared-memory segment",
                not_sim="the software GPU does not serve it: answered not-supported in the client",
                not_cuda="the cuda backend does not serve it: answered not-supported in the client")


def declaration(call: Call, name: str | None = None, first: str = "") -> str:
    """The header's prototype of `call` (parameter names filled in where the header has none), or of
    a function `name` with the same parameters after `first`."""
    d = copy.deepcopy(call.decl)
    d.storage = []  # the Runtime's header says `extern`; a definition does not
    for i, p in enumerate(_params(d)):
        if isinstance(p, c_ast.EllipsisParam):
            continue
        _set_name(p, call.proto[i][0])
    text = CGenerator().visit(d)
    if name is not None:
        head, _, rest = text.partition(call.name + "(")
        rest = first + (", " + rest if rest != "void)" and rest != ")" else ")")
        text = f"int {name}({rest}"
    return text


def _params(d: c_ast.Decl) -> list:
    args = d.type.args
    ps = list(args.params) if args else []
    if len(ps) == 1 and isinstance(ps[0], c_ast.Typename) and isinstance(ps[0].type, c_ast.TypeDecl) and \
            isinstance(ps[0].type.type, c_ast.IdentifierType) and ps[0].type.type.names == ["void"]:
        return []
    return ps


def _set_name(p, name: str) -> None:
    if isinstance(p, c_ast.Typename):  # an unnamed parameter: give it its name in place
        p.__class__ = c_ast.Decl
        p.__init__(name, [], [], [], [], p.type, None, None)
    else:
        p.name = name
    t = p.type
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    t.declname = name


def _flags(call: Call) -> str:
    r = call.record
    bits = [b for b in records.FLAGS if b in call.flags]
    if r.shm:
        bits.append("shm")
    if "sim" in r.unsupported_on:
        bits.append("not_sim")
    if "cuda" in r.unsupported_on:
        bits.append("not_cuda")
    return " | ".join(f"RGPU_F_{b.upper()}" for b in bits) or "0"


# ---- the CUDA headers, for the compiler --------------------------------------------------------------

def types_header(types_cdef: str, constants: dict[str, str], stamp: str) -> str:
    return "\n".join([
        f"/* {stamp} */",
        "/* The CUDA headers' types (typedefs, enums with their values, structs) and integer macros, as the",
        " * generator read them: hand-written code uses CUDA's own names and numbers instead of local copies. */",
        "#ifndef RGPU_CUDA_TYPES_H", "#define RGPU_CUDA_TYPES_H", "#include <stddef.h>", "#include <stdint.h>", "",
        *(f"#define {k} {v}" for k, v in sorted(constants.items())), "",
        types_cdef, "", "#endif", ""])


def protos_header(calls: list[Call], stamp: str, undeclared: set[str] = frozenset()) -> str:
    """Every function of the headers with the header's own prototype. Hand-written definitions see it, so
    a hook whose signature differs from CUDA's does not compile. With RGPU_CUDA_REAL_HEADERS defined after
    including NVIDIA's cuda.h and cuda_runtime_api.h, the same prototypes are checked against them."""
    out = [f"/* {stamp} */", "#ifndef RGPU_CUDA_H", "#define RGPU_CUDA_H", "#ifndef RGPU_CUDA_REAL_HEADERS",
           '#include "rgpu_cuda_types.h"', "#endif", ""]
    out += [declaration(c) + ";" for c in calls if c.name not in undeclared]
    if undeclared:  # entry points only the records declare: the real headers #define these names away
        out += ["", "#ifndef RGPU_CUDA_REAL_HEADERS"]
        decls = [declaration(c) + ";" for c in calls if c.name in undeclared]
        # struct tags of rgpu's own that only these prototypes name: declared at file scope first, or
        # each prototype would declare a type of its own
        out += [f"struct {t};" for t in sorted({t for d in decls for t in re.findall(r"struct (\w+)", d)})]
        out += decls
        out.append("#endif")
    out += ["", "#endif", ""]
    return "\n".join(out)


# ---- ids, flags, constants -------------------------------------------------------------------------

def ids_header(calls: list[Call], version: int, stamp: str) -> str:
    out = [f"/* {stamp} */", "/* Call ids (CRC of the name) and per-call flags of every call that crosses the wire. */",
           "#ifndef RGPU_IDS_H", "#define RGPU_IDS_H", ""]
    out += [f"#define RGPU_F_{k.upper()} 0x{v:x}u /* {FLAG_DOC[k]} */" for k, v in FLAG_BITS.items()]
    out.append("")
    for c in calls:
        if c.on_wire:
            out.append(f"#define RGPU_ID_{c.name} 0x{c.call_id:08x}u")
            out.append(f"#define RGPU_FLAGS_{c.name} ({_flags(c)})")
    out += ["", f"#define RGPU_CUDA_VERSION {version}", "#endif", ""]
    return "\n".join(out)


def _c_int(v: int) -> str:
    """A constant as C spells it: one beyond int's range but within 32 bits (a marker word such as the
    ring's RING_WRAP) as an unsigned hex literal, so that it is the uint32_t it is compared with (a decimal
    one would be a long)."""
    return f"0x{v:x}u" if 2**31 <= v < 2**32 else str(v)


def wire_header(constants: dict, stamp: str) -> str:
    out = [f"/* {stamp} */", "/* Constants the client and the server share (protocol/contract/constants.toml). */",
           "#ifndef RGPU_WIRE_H", "#define RGPU_WIRE_H", ""]
    out += [f"#define RGPU_{k} {_c_int(v)}" for k, v in constants.items()]
    out += ["", "#endif", ""]
    return "\n".join(out)


# ---- the client's half of each wire kind --------------------------------------------------------------

def _put(p: Param, face: str) -> list[str]:
    n = p.name
    ptr_in = p.ctype is not None and p.ctype.kind == "ptr" and p.kind in ("i", "u", "f", "h")
    v = f"*{n}" if ptr_in and not (p.kind == "u" and p.ctype.target.kind == "void") else n
    if p.kind == "i":
        return [f"rgpu_put_i(&c, (int64_t){v});"]
    if p.kind == "u":
        cast = "(uint64_t)(uintptr_t)" if v == n and p.ctype.kind == "ptr" else "(uint64_t)"
        return [f"rgpu_put_u(&c, {cast}{v});"]
    if p.kind == "f":
        return [f"rgpu_put_f(&c, (double){v});"]
    if p.kind == "h":
        if p.ctype.kind == "int" or (ptr_in and p.ctype.target.kind == "int"):  # an integer handle
            return [f"rgpu_put_h(&c, (const void *)(uintptr_t){v});"]
        return [f"rgpu_put_h(&c, {v});"]
    if p.kind == "d":
        return [f"rgpu_put_d(&c, {n});"]
    if p.kind == "s":
        return [f"rgpu_put_s(&c, {n});"]
    if p.kind == "b":
        return [f"rgpu_put_b(&c, {n}, sizeof *{n});"]
    if p.kind == "v":
        return [f"rgpu_put_b(&c, &{n}, sizeof {n});"]
    if p.kind == "a":
        return [f"rgpu_put_b(&c, {n}, (size_t)({p.length}) * sizeof *{n});"]
    if p.kind == "ah":
        return [f"rgpu_put_ha(&c, (void *const *){n}, (size_t)({p.length}));"]
    raise ValueError(p.kind)


def _get(p: Param) -> str:
    n = p.name
    if p.kind == "ob":
        return f"rgpu_out_b(&c, {n}, sizeof *{n});"
    if p.kind == "oa":
        return f"rgpu_out_b(&c, {n}, (size_t)({p.length}) * sizeof *{n});"
    if p.kind == "oah":
        return f"rgpu_out_ha(&c, (void **){n}, (size_t)({p.length}));"
    if p.kind == "oh":
        if p.ctype.target.kind == "int":  # an integer handle
            return f"*{n} = (__typeof__(*{n}))(uintptr_t)rgpu_out_h(&c);"
        return f"*{n} = (__typeof__(*{n}))rgpu_out_h(&c);"
    if p.kind == "ou" and p.ctype.target.kind == "ptr":  # out:devptr
        return f"*{n} = (void *)(uintptr_t)rgpu_out_u(&c);"
    fn = {"oi": "rgpu_out_i", "ou": "rgpu_out_u", "of": "rgpu_out_f"}[p.kind]
    return f"*{n} = (__typeof__(*{n})){fn}(&c);"


def _get_nullable(p: Param) -> str:
    """An out parameter the caller may pass as NULL: its value is still read off the reply, so the
    outs after it stay in step (cuModuleGetGlobal with no dptr still returns the size)."""
    if p.kind in ("ob", "oa", "oah"):  # these readers skip a NULL destination themselves
        return _get(p)
    fn = {"oi": "rgpu_out_i", "ou": "rgpu_out_u", "of": "rgpu_out_f", "oh": "rgpu_out_h"}[p.kind]
    return f"if ({p.name} != NULL) {_get(p)} else (void){fn}(&c);"


def _capture(call: Call, face: str) -> list[str]:
    """Stream capture (libhook/src/graph/capture.c): a guard refuses a call that is illegal while a capture is
    under way; a hook records a stream-ordered call into the capturing stream's graph instead of sending it."""
    kind, _, param = call.capture.partition(":")
    if kind == "guard":  # guard:legacy: the call works on the legacy stream (NULL)
        stream = "NULL" if param in ("", "legacy") else param
        return [f"    {{ int crc = rgpu_capture_guard({face}, {stream}, {'1' if param else '0'}); "
                "if (crc) return crc; }"]
    if kind == "hook":
        args = ", ".join(n for n, _ in call.proto)
        return [f"    {{ int crc; if (rgpu_capture_{call.name}(&crc, {args})) return crc; }}"]
    return []


def hook_proto(call: Call) -> str:
    return declaration(call, f"rgpu_capture_{call.name}", "int *rc") + ";"


def _note(call: Call) -> str:
    """The new allocation into the client's table (addresses.c): its address and size, out-values read
    as what the call wrote."""
    at, size = call.record.allocates
    outs = {p.name for p in call.outs}
    terms = [t if t.isdigit() else f"(size_t)(*{t})" if t in outs else f"(size_t)({t})"
             for t in size.replace(" ", "").split("*")]
    return f"rgpu_allocs_note(c.dev, (uint64_t)(uintptr_t)*{at}, {' * '.join(terms)});"


def stub(call: Call) -> str:
    face = FACE[call.face]
    r = call.record
    where = f"protocol/contract/calls/{r.family}.toml"
    if call.side == "unsupported":
        return "\n".join([f"/* {call.name}: not supported: {r.why} ({where}) */", declaration(call), "{",
                          f'    return rgpu_unsupported({face}, "{call.name}");', "}"])
    lines = [f"/* {call.name}: {call.side}{' (async)' if call.is_async else ''} ({where}) */", declaration(call), "{",
             "    rgpu_call c;"]
    for p in call.params:
        arr = p.kind in ("a", "ah", "oa", "oah")
        if p.nullable:
            continue
        if p.kind in ("oi", "ou", "of", "oh", "ob") or (p.kind in ("i", "u", "f", "h") and p.ctype.kind == "ptr"
                                                         and p.ctype.target.kind != "void"):
            lines.append(f"    if ({p.name} == NULL) return rgpu_invalid_value({face});")
        elif arr:
            lines.append(f"    if ({p.name} == NULL && ({p.length}) != 0) return rgpu_invalid_value({face});")
    if r.frees and r.frees != "all":  # forgotten first: a miss only asks the server (addresses.c)
        lines.append(f"    rgpu_allocs_forget(-1, (uint64_t)(uintptr_t){r.frees});")
    lines += _capture(call, face)
    lines.append(f'    rgpu_begin(&c, RGPU_ID_{call.name}, "{call.name}", {face}, RGPU_FLAGS_{call.name});')
    lines += ["    " + x for p in call.ins for x in _put(p, face)]
    if call.is_async:
        lines.append("    return rgpu_async(&c);")
    else:
        lines.append("    int rc = rgpu_sync(&c);")
        if r.frees == "all":  # whatever the reply said: the table only ever loses entries here
            lines.append("    rgpu_allocs_drop(c.dev);")
        if call.outs:
            lines.append("    if (rc == 0) {")
            for p in call.outs:
                lines.append(f"        {_get_nullable(p) if p.nullable else _get(p)}")
            if r.allocates:
                lines.append(f"        {_note(call)}")
            lines.append("    }")
        lines += ["    rgpu_end(&c);", "    return rc;"]
    lines.append("}")
    return "\n".join(lines)


def stubs_source(calls: list[Call], stamp: str) -> str:
    out = [f"/* {stamp} */", "/* The forwarding stubs: every call whose record has no hand-written client code, and the",
           " * not-supported answer of every unsupported one. */", '#include "rgpu_call.h"', ""]
    for c in calls:
        if c.cls in ("forwarded", "unsupported"):
            out += [stub(c), ""]
    return "\n".join(out)


# ---- hand-written wire calls: the encoding is generated, the policy is not --------------------------

_ARG = {"i": "int64_t {n}", "u": "uint64_t {n}", "f": "double {n}", "h": "const void *{n}", "d": "int {n}",
        "s": "const char *{n}", "b": "const void *{n}, size_t {n}_size", "v": "const void *{n}, size_t {n}_size",
        "a": "const void *{n}, size_t {n}_size", "ah": "void *const *{n}, size_t {n}_count"}
_OUT = {"oi": "int64_t *{n}", "ou": "uint64_t *{n}", "of": "double *{n}", "oh": "void **{n}",
        "ob": "void *{n}, size_t {n}_size", "oa": "void *{n}, size_t {n}_size", "os": "char *{n}, size_t {n}_size",
        "oah": "void **{n}, size_t {n}_count"}
_PUT = {"i": "rgpu_put_i(c, {n});", "u": "rgpu_put_u(c, {n});", "f": "rgpu_put_f(c, {n});", "h": "rgpu_put_h(c, {n});",
        "d": "rgpu_put_d(c, {n});", "s": "rgpu_put_s(c, {n});", "b": "rgpu_put_b(c, {n}, {n}_size);",
        "v": "rgpu_put_b(c, {n}, {n}_size);", "a": "rgpu_put_b(c, {n}, {n}_size);",
        "ah": "rgpu_put_ha(c, {n}, {n}_count);"}
_GET = {"oi": "*{n} = rgpu_out_i(c);", "ou": "*{n} = rgpu_out_u(c);", "of": "*{n} = rgpu_out_f(c);",
        "oh": "*{n} = rgpu_out_h(c);", "ob": "rgpu_out_b(c, {n}, {n}_size);", "oa": "rgpu_out_b(c, {n}, {n}_size);",
        "os": "rgpu_out_b(c, {n}, {n}_size);", "oah": "rgpu_out_ha(c, {n}, {n}_count);"}


def _encoder_protos(call: Call) -> tuple[str, str | None]:
    args = ", ".join(["rgpu_call *c"] + [_ARG[p.kind].format(n=p.name) for p in call.ins])
    enc = f"void rgpu_wire_{call.name}({args})"
    if not call.outs:
        return enc, None
    outs = ", ".join(["rgpu_call *c"] + [_OUT[p.kind].format(n=p.name) for p in call.outs])
    return enc, f"void rgpu_wire_out_{call.name}({outs})"


def _shape(call: Call) -> str:
    r = call.record
    parts = [", ".join(f"{p.name}:{p.kind}" for p in call.ins) or "no arguments"]
    if call.outs:
        parts.append("outs " + ", ".join(f"{p.name}:{p.kind}" for p in call.outs))
    if r.bulk_in:
        parts.append(f"bulk in {r.bulk_in}")
    if r.bulk_out:
        parts.append(f"bulk out {r.bulk_out}")
    return "; ".join(parts)


def calls_header(calls: list[Call], stamp: str) -> str:
    """Prototypes of the generated encoders and of the capture hooks (capture.c defines those)."""
    out = [f"/* {stamp} */", "#ifndef RGPU_CALLS_H", "#define RGPU_CALLS_H", "", "struct rgpu_call;", ""]
    out.append("/* Hand-written calls: rgpu_wire_NAME begins the call and puts its arguments, rgpu_wire_out_NAME "
               "reads its out-values. */")
    for c in calls:
        if c.on_wire and c.client:
            enc, dec = _encoder_protos(c)
            out.append(f"/* {c.name} ({c.client}): {_shape(c)} */")
            out.append(enc.replace("rgpu_call *", "struct rgpu_call *") + ";")
            if dec:
                out.append(dec.replace("rgpu_call *", "struct rgpu_call *") + ";")
    out += ["", "/* Stream capture hooks (libhook/src/graph/capture.c): 1 when the call became a graph node "
                "(its result in *rc). */"]
    out += [hook_proto(c) for c in calls if c.capture == "hook"]
    out += ["", "/* Capture guards of hand-written calls, as their records say: 0, or the error the call returns. */"]
    for c in calls:
        kind, _, param = c.capture.partition(":")
        if c.client and kind == "guard":
            if param in ("", "legacy"):
                out.append(f"#define RGPU_GUARD_{c.name}() rgpu_capture_guard({FACE[c.face]}, NULL, "
                           f"{1 if param else 0})")
            else:
                out.append(f"#define RGPU_GUARD_{c.name}({param}) rgpu_capture_guard({FACE[c.face]}, ({param}), 1)")
    out += ["", "#endif", ""]
    return "\n".join(out)


def calls_source(calls: list[Call], stamp: str) -> str:
    out = [f"/* {stamp} */", '#include "rgpu_call.h"', ""]
    for c in calls:
        if not (c.on_wire and c.client):
            continue
        enc, dec = _encoder_protos(c)
        face = FACE[c.face]
        out += [enc, "{", f'    rgpu_begin(c, RGPU_ID_{c.name}, "{c.name}", {face}, RGPU_FLAGS_{c.name});']
        out += ["    " + _PUT[p.kind].format(n=p.name) for p in c.ins]
        out += ["}", ""]
        if dec:
            out += [dec, "{"] + ["    " + _GET[p.kind].format(n=p.name) for p in c.outs] + ["}", ""]
    return "\n".join(out)


def procs_source(calls: list[Call], aliases: dict[str, str], stamp: str, undeclared: set[str] = frozenset()) -> str:
    """Every exported entry point by name (and the un-suffixed names the headers #define to a _vN),
    sorted for bsearch: cuGetProcAddress and cudaGetDriverEntryPoint return rgpu's own functions.
    `undeclared`: rgpu's own calls (records' prototypes), which are no CUDA entry point to look up."""
    names = {c.name for c in calls} - set(undeclared)
    entries = {n: n for n in names}
    for short, full in aliases.items():  # at this version a name means what the headers #define it to,
        if full in names:                 # even where a legacy entry point of that name exists (dlsym finds that)
            entries[short] = full
    out = [f"/* {stamp} */", '#include "rgpu_call.h"', ""]
    out += ["const rgpu_proc rgpu_procs[] = {"]
    out += [f'    {{"{k}", (void *){v}}},' for k, v in sorted(entries.items())]
    out += ["};", f"const size_t rgpu_nprocs = {len(entries)};", ""]
    return "\n".join(out)


def errors_source(parsed, stamp: str) -> str:
    """cudaGetErrorName / cuGetErrorName tables, from the headers' enums."""
    out = [f"/* {stamp} */", "#include <stddef.h>", ""]
    for var, enum in (("runtime", "cudaError"), ("driver", "cudaError_enum")):
        out.append(f"static const struct {{ int code; const char *name; }} {var}_names[] = {{")
        out += [f'    {{{v}, "{k}"}},' for k, v in parsed.enums[enum].items()]
        out.append("};")
    out += ["",
            "const char *rgpu_error_name(int face, int code) {",
            "    size_t n = face ? sizeof driver_names / sizeof *driver_names : sizeof runtime_names / sizeof *runtime_names;",
            "    for (size_t i = 0; i < n; i++) {",
            "        if (face && driver_names[i].code == code) return driver_names[i].name;",
            "        if (!face && runtime_names[i].code == code) return runtime_names[i].name;",
            "    }",
            "    return face ? NULL : \"cudaErrorUnknown\";",
            "}", ""]
    return "\n".join(out)
