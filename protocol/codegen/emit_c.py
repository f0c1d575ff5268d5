"""Writes libhook/generated/: call ids, the forwarding stubs and the cuGetProcAddress table."""
from __future__ import annotations

from .classify import Call, Param
from .ctypes_model import CType

FACE = {"runtime": "RGPU_RUNTIME", "driver": "RGPU_DRIVER"}


def spell(t: CType) -> str:
    """A C spelling ABI-identical to the header's type, without needing the CUDA headers."""
    if t.kind == "void":
        return "void"
    if t.kind == "int":
        return f"{'' if t.signed else 'u'}int{t.size * 8}_t"
    if t.kind == "enum":
        return "int"
    if t.kind == "float":
        return "float" if t.size == 4 else "double"
    if t.kind in ("handle", "funcptr"):
        return "void *"
    if t.kind == "struct":
        return f"rgpu_blob{t.size}" if t.size else "void"
    if t.kind == "ptr":
        tgt = t.target
        inner = "void" if tgt.kind == "struct" else ("char" if tgt.kind == "int" and tgt.size == 1 else spell(tgt))
        return ("const " if t.const else "") + inner + " *"
    raise TypeError(t)


def _proto(call: Call, sizes: dict) -> str:
    args = []
    for pname, t in call.proto:
        if pname == "...":
            args.append("...")
        elif t.kind == "struct":
            args.append(f"rgpu_blob{sizes(t.name)} {pname}")
        else:
            args.append(f"{spell(t)} {pname}")
    return f"int {call.name}({', '.join(args) or 'void'})"


def _put(p: Param) -> str:
    if p.kind == "i":
        return f"rgpu_put_i(&c, (int64_t){p.name});"
    if p.kind == "u":
        cast = "(uint64_t)(uintptr_t)" if p.ctype.kind == "ptr" else "(uint64_t)"
        return f"rgpu_put_u(&c, {cast}{p.name});"
    if p.kind == "f":
        return f"rgpu_put_f(&c, (double){p.name});"
    if p.kind == "h":
        return f"rgpu_put_h(&c, {p.name});"
    if p.kind == "d":
        return f"rgpu_put_d(&c, {p.name});"
    if p.kind == "s":
        return f"rgpu_put_s(&c, {p.name});"
    if p.kind == "b":
        return f"rgpu_put_b(&c, {p.name}, {p.size});"
    if p.kind == "v":
        return f"rgpu_put_b(&c, &{p.name}, sizeof {p.name});"
    raise ValueError(p.kind)


def _get(p: Param) -> str:
    tgt = p.ctype.target
    if p.kind == "ob":
        size = str(p.size) if p.size else f"(size_t){p.struct}"
        return f"rgpu_out_b(&c, {p.name}, {size});"
    if p.kind == "oh":
        return f"*{p.name} = rgpu_out_h(&c);"
    if tgt is not None and tgt.kind == "ptr":
        return f"*{p.name} = (void *)(uintptr_t)rgpu_out_u(&c);"
    fn = {"oi": "rgpu_out_i", "ou": "rgpu_out_u", "of": "rgpu_out_f"}[p.kind]
    return f"*{p.name} = ({spell(tgt)}){fn}(&c);"


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


def _hook_proto(call: Call, sizes: dict) -> str:
    return _proto(call, sizes).replace(f"int {call.name}(", f"int rgpu_capture_{call.name}(int *rc, ", 1) + ";"


def stub(call: Call, sizes: dict) -> str:
    face = FACE[call.face]
    if call.cls == "unsupported":
        # An unprototyped definition: the arguments are never read, so their types do not matter.
        return "\n".join([f"/* {call.name}: not supported: {call.reason} */", f"int {call.name}()", "{",
                          f'    return rgpu_unsupported({face}, "{call.name}");', "}"])
    lines = [f"/* {call.name}: {call.cls}{' (async)' if call.is_async else ''} */", _proto(call, sizes), "{"]
    lines.append("    rgpu_call c;")
    for p in call.params:
        if p.kind in ("oi", "ou", "of", "oh", "ob", "b") and not p.nullable and p.kind != "b":
            lines.append(f"    if ({p.name} == NULL) return rgpu_invalid_value({face});")
    lines += _capture(call, face)
    lines.append(f'    rgpu_begin(&c, RGPU_ID_{call.name}, "{call.name}", {face});')
    lines += ["    " + _put(p) for p in call.ins]
    if call.is_async:
        lines.append("    return rgpu_async(&c);")
    else:
        lines.append("    int rc = rgpu_sync(&c);")
        if call.outs:
            lines.append("    if (rc == 0) {")
            for p in call.outs:
                g = _get(p)
                lines.append(f"        if ({p.name} != NULL) {g}" if p.nullable else f"        {g}")
            lines.append("    }")
        lines += ["    rgpu_end(&c);", "    return rc;"]
    lines.append("}")
    return "\n".join(lines)


def ids_header(calls: list[Call], version: int, stamp: str, sizes: dict | None = None) -> str:
    out = [f"/* {stamp} */", "#ifndef RGPU_IDS_H", "#define RGPU_IDS_H", ""]
    # sizes of the structs that travel as bytes, for hand-written code that receives them
    out += [f"#define RGPU_SIZEOF_{n.replace('struct ', '')} {v}" for n, v in sorted((sizes or {}).items())]
    out.append("")
    out += [f"#define RGPU_ID_{c.name} 0x{c.call_id:08x}u" for c in calls if c.cls in ("forwarded", "handwritten")]
    out += ["", f"#define RGPU_CUDA_VERSION {version}", "#endif", ""]
    return "\n".join(out)


def stubs_source(calls: list[Call], sizes: dict, stamp: str) -> str:
    blobs = sorted({sizes(t.name) for c in calls if c.cls == "forwarded" for _, t in c.proto if t.kind == "struct"})
    out = [f"/* {stamp} */", '#include "rgpu_call.h"', '#include "rgpu_ids.h"', ""]
    # Structs passed by value travel as bytes; a blob of 8-byte words has the same SysV class (INTEGER,
    # or MEMORY above 16 bytes) as the header's struct, which the generator checks holds no float.
    out += [f"typedef struct {{ uint64_t w[{n // 8}]; }} rgpu_blob{n};" for n in blobs]
    out.append("")
    out += [_hook_proto(c, sizes) for c in calls if c.cls == "forwarded" and c.capture.startswith("hook")]
    out.append("")
    for c in calls:
        if c.cls in ("forwarded", "unsupported"):
            out += [stub(c, sizes), ""]
    return "\n".join(out)


def procs_source(calls: list[Call], aliases: dict[str, str], stamp: str) -> str:
    """Every exported entry point by name (and the un-suffixed names the headers #define to a _vN),
    sorted for bsearch: cuGetProcAddress and cudaGetDriverEntryPoint return rgpu's own functions."""
    names = {c.name for c in calls}
    entries = {n: n for n in names}
    for short, full in aliases.items():
        if full in names and short not in entries:
            entries[short] = full
    out = [f"/* {stamp} */", '#include "rgpu_call.h"', ""]
    out += [f"extern int {n}();" for n in sorted(names)]
    out += ["", "const rgpu_proc rgpu_procs[] = {"]
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

