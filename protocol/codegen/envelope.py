"""The message envelope's codecs, from protocol/contract/envelope.toml: protocol/generated/envelope.py
(Python: the server's decoder and encoder, and Python clients') and libhook/generated/rgpu_envelope.h
(C: the client library's, and the cuda backend's compiled launch loop's).

One routine per field kind writes each end (KINDS: the Python check, the C read, the C write), so the
two languages cannot drift apart; the top-level loops (a request's calls and their frames, the reply's
common case packed without msgpack) are templates below that call the records' own codecs."""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import msgpack

from .. import limits as _limits

CONTRACT = Path(__file__).resolve().parent.parent / "contract" / "envelope.toml"
_FIELD = re.compile(r"^(\w+):\s*(\w+)(?:\(([^)]*)\))?(\s+optional)?$")
KINDS = {"uint", "int", "enum", "str", "bin", "args", "list", "one_of"}


class EnvelopeError(ValueError):
    pass


@dataclass(frozen=True)
class Field:
    name: str
    kind: str
    params: tuple  # enum: (max,); str: (max,); bin: (n,); list: (record, max); one_of: records
    optional: bool


@dataclass(frozen=True)
class Record:
    name: str
    doc: str
    tag: int | None
    fields: tuple

    @property
    def cls(self) -> str:
        return "".join(p.capitalize() for p in self.name.split("_"))

    @property
    def required(self) -> int:
        return sum(not f.optional for f in self.fields)


@dataclass(frozen=True)
class Envelope:
    limits: dict
    records: dict


def load(path: Path = CONTRACT) -> Envelope:
    """The records, checked: a kind, limit or record it cannot place is an error, not a guess."""
    with open(path, "rb") as f:
        data = tomllib.load(f)
    lim = dict(data.get("limits", {}))
    lim["max_depth"] = _limits.MAX_DEPTH
    raw = data.get("records", {})

    def number(text: str, where: str) -> int:
        text = text.strip()
        if text.isdigit():
            return int(text)
        if text in lim:
            return lim[text]
        raise EnvelopeError(f"envelope.toml {where}: {text!r} is neither a number nor a [limits] entry")

    records = {}
    for name, r in raw.items():
        fields, seen_optional = [], False
        for spec in r.get("fields", []):
            m = _FIELD.match(spec.strip())
            if not m or m.group(2) not in KINDS:
                raise EnvelopeError(f"envelope.toml records.{name}: cannot read field {spec!r} (kinds: {sorted(KINDS)})")
            fname, kind, params, optional = m.group(1), m.group(2), m.group(3) or "", bool(m.group(4))
            where = f"records.{name}.{fname}"
            args = [p.strip() for p in params.split(",") if p.strip()]
            if kind == "uint" and args:
                # uint(wide): the C writer takes 4 bytes at least (msgpack uint32), so that a value that
                # grows (a call's seq) keeps the bytes after it in place from message to message
                if args != ["wide"]:
                    raise EnvelopeError(f"envelope.toml {where}: uint takes no bound, only (wide)")
                ps = ("wide",)
            elif kind in ("enum", "str", "bin"):
                if len(args) != 1:
                    raise EnvelopeError(f"envelope.toml {where}: {kind} takes one bound")
                ps = (number(args[0], where),)
            elif kind == "list":
                if len(args) != 2:
                    raise EnvelopeError(f"envelope.toml {where}: list takes (record, max)")
                ps = (args[0], number(args[1], where))
            elif kind == "one_of":
                ps = tuple(args)
            else:
                ps = ()
            if seen_optional and not optional:
                raise EnvelopeError(f"envelope.toml {where}: a required field after an optional one")
            seen_optional |= optional
            fields.append(Field(fname, kind, ps, optional))
        records[name] = Record(name, r.get("doc", "").strip(), r.get("tag"), tuple(fields))
    for rec in records.values():
        for f in rec.fields:
            refs = [f.params[0]] if f.kind == "list" else list(f.params) if f.kind == "one_of" else []
            for ref in refs:
                if ref not in records:
                    raise EnvelopeError(f"envelope.toml records.{rec.name}.{f.name}: no record {ref!r}")
                if f.kind == "one_of" and records[ref].tag is None:
                    raise EnvelopeError(f"envelope.toml records.{rec.name}.{f.name}: {ref} has no tag")
                if f.kind == "list" and records[ref].tag is not None:
                    raise EnvelopeError(f"envelope.toml records.{rec.name}.{f.name}: list of tagged {ref}")
    tags = [r.tag for r in records.values() if r.tag is not None]
    if len(tags) != len(set(tags)) or any(t <= 0 for t in tags):
        raise EnvelopeError("envelope.toml: tags must be distinct and positive (0 means absent in C)")
    for need in ("call", "reply", "region"):
        if need not in records:
            raise EnvelopeError(f"envelope.toml: no record {need!r} (the templates need it)")
    return Envelope(lim, records)


# ---- Python -----------------------------------------------------------------------------------------

def _py_check(f: Field, v: str, where: str) -> list[str]:
    """Lines that check value `v` of field `f` (raising MalformedMessage) and leave the decoded value in `v`."""
    bad = f'raise _bad("{where}", '
    if f.kind == "uint":
        return [f"if type({v}) is not int or {v} < 0:", f'    {bad}"an unsigned integer", {v})']
    if f.kind == "int":
        return [f"if type({v}) is not int:", f'    {bad}"an integer", {v})']
    if f.kind == "enum":
        return [f"if type({v}) not in _INTS or not 0 <= {v} <= {f.params[0]}:",
                f'    {bad}"an integer from 0 to {f.params[0]}", {v})']
    if f.kind == "str":
        return [f"if type({v}) is not str or len({v}) > {f.params[0]}:",
                f'    {bad}"a string of at most {f.params[0]} bytes", {v})']
    if f.kind == "bin":
        return [f"if type({v}) is not bytes or len({v}) != {f.params[0]}:",
                f'    {bad}"{f.params[0]} bytes", {v})']
    if f.kind == "args":
        return [f"if type({v}) is not list:", f'    {bad}"an array", {v})', f"_args_ok({v}, \"{where}\")"]
    if f.kind == "list":
        rec, n = f.params
        return [f"if type({v}) is not list or len({v}) > {n}:", f'    {bad}"an array of at most {n} {rec}", {v})',
                f'{v} = [read_{rec}(x, "{where}") for x in {v}]']
    if f.kind == "one_of":
        return [f'{v} = _read_{f.name}({v}, "{where}")']
    raise AssertionError(f.kind)


def _py_record(rec: Record, env: Envelope) -> list[str]:
    names = [f.name for f in rec.fields]
    params = ", ".join(n + ("=None" if f.optional else "") for n, f in zip(names, rec.fields))
    out = [f"class {rec.cls}(tuple):", f'    """{rec.doc}"""', "    __slots__ = ()"]
    if rec.tag is not None:
        out.append(f"    TAG = {rec.tag}")
    out.append(f"    FIELDS = {tuple(names)!r}")
    for i, n in enumerate(names):
        out.append(f"    {n} = property(_itemgetter({i}))")
    out += ["", f"    def __new__(cls, {params}):", f"        return tuple.__new__(cls, ({', '.join(names)},))", "",
            "    def __repr__(self):",
            f"        return \"{rec.cls}(\" + \", \".join(f\"{{n}}={{v!r}}\" for n, v in zip(self.FIELDS, self)) + \")\"",
            "", ""]
    # the encoder: the msgpack-ready value
    parts = []
    for i, f in enumerate(rec.fields):
        x = f"r[{i}]"
        if f.kind == "list":
            x = f"[write_{f.params[0]}(e) for e in {x}]"
        elif f.kind == "one_of":
            x = f"{x}.write()"
        elif f.kind == "args":
            x = f"list({x})"
        parts.append(x)
    head = [str(rec.tag)] if rec.tag is not None else []
    out.append(f"def write_{rec.name}(r) -> list:")
    out.append(f'    """{rec.cls} as the array that goes on the wire."""')
    opt = [i for i, f in enumerate(rec.fields) if f.optional]
    if opt:
        first = opt[0]
        out.append(f"    v = [{', '.join(head + parts[:first])}]")
        for i in opt:
            out += [f"    if r[{i}] is None:", "        return v", f"    v.append({parts[i]})"]
        out.append("    return v")
    else:
        out.append(f"    return [{', '.join(head + parts)}]")
    out += ["", "", f"{rec.cls}.write = write_{rec.name}", "", ""]
    # the decoder
    n, req, off = len(rec.fields), rec.required, 1 if rec.tag is not None else 0
    lens = f"{req + off} <= len(v) <= {n + off}" if req != n else f"len(v) == {n + off}"
    shape = f"an array of {req + off}" + (f" to {n + off}" if req != n else "") + " elements" + \
        (f" starting with tag {rec.tag}" if rec.tag is not None else "")
    out += [f"def read_{rec.name}(v, where: str = \"{rec.name}\") -> {rec.cls}:",
            f'    """{rec.cls} from a decoded msgpack value; MalformedMessage naming the field that fails."""',
            f"    if type(v) is not list or not {lens}" + (f" or v[0] != {rec.tag}" if rec.tag is not None else "")
            + ":", f'        raise _bad(where, "{shape}", v)']
    for i, f in enumerate(rec.fields):
        var = f"f_{f.name}"
        idx = i + off
        if f.optional:
            out.append(f"    {var} = v[{idx}] if len(v) > {idx} else None")
            out.append(f"    if {var} is not None:")
            ind = "        "
        else:
            out.append(f"    {var} = v[{idx}]")
            ind = "    "
        out += [ind + line.replace(f'"{rec.name}.{f.name}"', f'where + ".{f.name}"')
                for line in _py_check(f, var, f"{rec.name}.{f.name}")]
    out += [f"    return tuple.__new__({rec.cls}, ({', '.join('f_' + x for x in names)},))", "", ""]
    for f in rec.fields:
        if f.kind == "one_of":
            table = ", ".join(f"{env.records[r].tag}: read_{r}" for r in f.params)
            names_ = " or ".join(f"{r} ({env.records[r].tag})" for r in f.params)
            out += [f"def _read_{f.name}(v, where):",
                    f'    """One of {", ".join(f.params)}, chosen by its tag."""',
                    "    if type(v) is not list or not v or type(v[0]) is not int:",
                    f'        raise _bad(where, "a tagged array: {names_}", v)',
                    f"    read = _{f.name.upper()}_TAGS.get(v[0])",
                    "    if read is None:",
                    f'        raise _bad(where, "a known tag: {names_}", v[0])',
                    "    return read(v, where)", "", ""]
    return out


_PY_HEAD = '''"""{stamp}

The data-path message envelope (protocol/contract/envelope.toml), its records and their codecs. A
request is [call, ...] then the calls' bulk frames in order; a reply is one `reply` record and its
frames. protocol/wire.py says what the calls and replies mean."""
from __future__ import annotations

from operator import itemgetter as _itemgetter

import msgpack

from ..limits import TooDeep as _TooDeep, check_depth as _check_depth

{limits}


class MalformedMessage(ValueError):
    """A message the envelope's records refuse; the text names the record and field."""


_INTS = (int, bool)
_CONTAINERS = (list, dict, tuple)
_unpackb = msgpack.unpackb
_packb = msgpack.packb


def _summary(value) -> str:
    from ..limits import summary
    return summary(value)


def _bad(where: str, want: str, got) -> MalformedMessage:
    return MalformedMessage(f"{{where}}: expected {{want}}, got {{_summary(got)}}")


def _args_ok(args: list, where: str) -> None:
    """Arguments nested deeper than MAX_DEPTH are refused here, before any handler, log line or error
    message walks them: one type test per argument when none is a container."""
    for a in args:
        if type(a) in _CONTAINERS:
            try:
                _check_depth(args, MAX_DEPTH - 1)
            except _TooDeep as e:
                raise MalformedMessage(f"{{where}}: {{e}}") from None
            return


'''

_PY_TAIL = '''
def decode_calls(frames: list) -> list[tuple]:
    """A request's calls as (seq, call_id, sync, args, bulk frames, copy) tuples, every call checked
    against its record and every frame claimed before any runs; MalformedMessage otherwise. `copy` is
    None or one of the `call.copy` records. The common call (no copy) is checked inline."""
    if not frames:
        raise MalformedMessage("empty message")
    try:
        calls = _unpackb(frames[0], raw=False, strict_map_key=False)
    except Exception as e:  # msgpack raises several types for bad input
        raise MalformedMessage(f"header is not msgpack: {{e}}") from None
    if type(calls) is not list:
        raise MalformedMessage(f"header must be an array of calls, got {{_summary(calls)}}")
    nframes, used, out = len(frames) - 1, 0, []
    for c in calls:
        if type(c) is list and len(c) == {ncall}:
            {req} = c
            {opt} = None
            if {fast}:
                for a in args:
                    if type(a) in _CONTAINERS:
                        _args_ok(args, "call.args")
                        break
            else:
                {names} = read_call(c)
        else:
            {names} = read_call(c)
        if nbulk > nframes - used:
            raise MalformedMessage(f"call.nbulk: call {{seq}} claims {{nbulk}} bulk frames, {{nframes - used}} are left")
        out.append(({out}))
        used += nbulk
    if used != nframes:
        raise MalformedMessage(f"{{nframes - used}} bulk frames not claimed by any call")
    return out


def encode_calls(calls) -> bytes:
    """A request's first frame: `calls` are Call records or (seq, call_id, sync, args, nbulk[, copy])."""
    return _packb([write_call(c if type(c) is Call else Call(*c)) for c in calls], use_bin_type=True)


{encode_reply}


def decode_reply(data) -> Reply:
    """A reply's first frame as a Reply record; MalformedMessage on anything else."""
    try:
        value = _unpackb(data, raw=False, strict_map_key=False)
    except Exception as e:
        raise MalformedMessage(f"reply is not msgpack: {{e}}") from None
    return read_reply(value)
'''


def _py_encode_reply(rec: Record, records: dict) -> str:
    """encode_reply: the reply record's fields as arguments, packed at once (no record object); the
    common reply (the first field given, every other its default) is its bytes from here, without msgpack."""
    default = {"uint": 0, "int": 0, "str": "", "args": ()}
    params, parts, opt = [], [], []
    for i, f in enumerate(rec.fields):
        if f.kind == "one_of" or (f.kind == "list" and any(
                g.kind in ("list", "one_of") for g in records[f.params[0]].fields)):
            raise EnvelopeError(f"envelope.toml records.reply.{f.name}: encode_reply packs flat fields only")
        if f.optional:
            params.append(f"{f.name}=None")
            opt.append(f)
            continue
        params.append(f.name if i == 0 else f"{f.name}={default[f.kind]!r}")
        parts.append(f"list({f.name})" if f.kind == "args" else f.name)
    first = rec.fields[0].name
    tail = b"".join(msgpack.packb(list(default[f.kind]) if f.kind == "args" else default[f.kind])
                    for f in rec.fields[1:] if not f.optional)
    head = bytes([0x90 | rec.required])
    rest = [f.name for f in rec.fields[1:] if not f.optional]
    out = [f"_OK_TAIL = {tail!r}  # every field after the first at its default",
           "", "",
           f"def encode_reply({', '.join(params)}) -> bytes:",
           '    """A reply record\'s bytes; the common one (success, nothing else) packed without msgpack."""',
           f"    if {' and '.join(f'{f.name} is None' for f in opt) or 'True'} and not ({' or '.join(rest)}):",
           f"        return {head!r} + _packb({first}) + _OK_TAIL",
           f"    v = [{', '.join(parts)}]"]
    for f in opt:
        conv = f"[list(e) for e in {f.name}]" if f.kind == "list" else f.name
        out += [f"    if {f.name} is not None:", f"        v.append({conv})"]
    out.append("    return _packb(v, use_bin_type=True)")
    return "\n".join(out)


def python(env: Envelope, stamp: str) -> str:
    lim = "\n".join(f"{k.upper()} = {v}" for k, v in env.limits.items())
    out = [_PY_HEAD.format(stamp=stamp, limits=lim)]
    body = []
    for rec in env.records.values():
        body += _py_record(rec, env)
    for rec in env.records.values():
        for f in rec.fields:
            if f.kind == "one_of":
                body.append(f"_{f.name.upper()}_TAGS = {{{', '.join(f'{env.records[r].tag}: read_{r}' for r in f.params)}}}")
    call = env.records["call"]
    names = [f.name for f in call.fields]
    if names[:5] != ["seq", "call_id", "sync", "args", "nbulk"] or len(names) != 6 or not call.fields[5].optional:
        raise EnvelopeError("envelope.toml records.call: decode_calls's template wants seq, call_id, sync, args, "
                            "nbulk and one optional field, in that order")
    fast = []
    for f in call.fields[:5]:
        v = f.name
        fast.append({"uint": f"type({v}) is int and {v} >= 0", "int": f"type({v}) is int",
                     "enum": f"type({v}) is int and 0 <= {v} <= {f.params[0] if f.params else 0}",
                     "args": f"type({v}) is list"}.get(f.kind) or _no_fast(f))
    outs = ", ".join("frames[1 + used:1 + used + nbulk] if nbulk else ()" if n == "nbulk" else n for n in names)
    out.append("\n".join(body))
    out.append(_PY_TAIL.format(encode_reply=_py_encode_reply(env.records["reply"], env.records),
                               ncall=call.required, fast=("(" + "\n                    and ".join(fast) + ")"),
                               req=", ".join(names[:5]), opt=names[5], names=", ".join(names), out=outs))
    return "\n".join(out).rstrip() + "\n"


def _no_fast(f: Field):
    raise EnvelopeError(f"envelope.toml records.call.{f.name}: the decoder's inline path has no check for {f.kind}")


# ---- C ----------------------------------------------------------------------------------------------

_C_TYPES = {"uint": "uint64_t", "int": "int64_t", "enum": "uint64_t", "str": "rgpu_env_bytes",
            "bin": "rgpu_env_bytes", "args": "rgpu_env_list", "list": "rgpu_env_list"}


def _c_struct(rec: Record) -> list[str]:
    out = [f"/* {rec.name}: " + rec.doc.replace("\n", "\n * ").replace("*/", "* /") + " */", "typedef struct {"]
    for f in rec.fields:
        if f.optional and f.kind != "one_of":
            out.append(f"    int has_{f.name};")
        if f.kind == "one_of":
            out.append(f"    rgpu_env_{rec.name}_{f.name} {f.name};")
        else:
            note = f" /* of {f.params[0]} */" if f.kind == "list" else ""
            out.append(f"    {_C_TYPES[f.kind]} {f.name};{note}")
    out.append(f"}} rgpu_env_{rec.name};")
    return out


def _c_union(rec: Record, f: Field, env: Envelope) -> list[str]:
    out = [f"/* {rec.name}.{f.name}: tag 0 (absent) or one of " + ", ".join(f"RGPU_ENV_{r.upper()}" for r in f.params)
           + " */", "typedef struct {", "    uint64_t tag;", "    union {"]
    out += [f"        rgpu_env_{r} {r};" for r in f.params]
    out += ["    } u;", f"}} rgpu_env_{rec.name}_{f.name};"]
    return out


def _c_read_field(rec: Record, f: Field, dst: str) -> list[str]:
    where = f"{rec.name}.{f.name}"
    fail = lambda what: f'{{ *why = "{where}: expected {what}"; return -1; }}'  # noqa: E731
    if f.kind == "uint":
        return ["if (mp_next(r, &o) || o.type != MP_UINT) " + fail("an unsigned integer"), f"{dst} = o.v.u;"]
    if f.kind == "int":
        return ["if (mp_next(r, &o) || (o.type != MP_INT && !(o.type == MP_UINT && o.v.u <= INT64_MAX))) "
                + fail("an integer"), f"{dst} = o.type == MP_INT ? o.v.i : (int64_t)o.v.u;"]
    if f.kind == "enum":
        m = f.params[0]
        return [f"if (mp_next(r, &o) || !((o.type == MP_UINT && o.v.u <= {m}) || o.type == MP_BOOL)) "
                + fail(f"an integer from 0 to {m}"), f"{dst} = o.type == MP_BOOL ? (uint64_t)o.v.b : o.v.u;"]
    if f.kind == "str":
        return [f"if (mp_next(r, &o) || o.type != MP_STR || o.n > {f.params[0]}) " +
                fail(f"a string of at most {f.params[0]} bytes"), f"{dst}.p = o.p; {dst}.n = o.n;"]
    if f.kind == "bin":
        return [f"if (mp_next(r, &o) || o.type != MP_BIN || o.n != {f.params[0]}) " + fail(f"{f.params[0]} bytes"),
                f"{dst}.p = o.p; {dst}.n = o.n;"]
    if f.kind == "args":
        return [f"const uint8_t *at_{f.name} = r->p;", "if (mp_next(r, &o) || o.type != MP_ARRAY) " + fail("an array"),
                f"{dst}.at = at_{f.name}; {dst}.n = o.n; {dst}.p = r->p; {dst}.items = NULL;",
                "for (uint32_t i = 0; i < o.n; i++)",
                f"    if (rgpu_env_skip(r, RGPU_ENV_MAX_DEPTH - 2)) "
                f'{{ *why = "{where}: torn, or nested deeper than the limit"; return -1; }}',
                f"{dst}.len = (size_t)(r->p - {dst}.p);"]
    if f.kind == "list":
        rec_, n = f.params
        return [f"const uint8_t *at_{f.name} = r->p;",
                f"if (mp_next(r, &o) || o.type != MP_ARRAY || o.n > {n}) " + fail(f"an array of at most {n} {rec_}"),
                f"{dst}.at = at_{f.name}; {dst}.n = o.n; {dst}.p = r->p; {dst}.items = NULL;",
                "for (uint32_t i = 0; i < o.n; i++) {",
                f"    rgpu_env_{rec_} item;",
                f"    if (rgpu_env_read_{rec_}(r, &item, why)) return -1;",
                "}", f"{dst}.len = (size_t)(r->p - {dst}.p);"]
    if f.kind == "one_of":
        out = ["{", "    mp_reader peek = *r;",
               "    if (mp_next(&peek, &o) || o.type != MP_ARRAY || o.n < 1 || mp_next(&peek, &o) || o.type != MP_UINT) "
               + fail("a tagged array"), f"    {dst}.tag = o.v.u;", f"    switch ({dst}.tag) {{"]
        for r in f.params:
            out.append(f"    case RGPU_ENV_{r.upper()}: if (rgpu_env_read_{r}(r, &{dst}.u.{r}, why)) return -1; break;")
        out += [f'    default: *why = "{where}: unknown tag"; return -1;', "    }", "}"]
        return out
    raise AssertionError(f.kind)


def _c_write_field(f: Field, src: str) -> list[str]:
    if f.kind == "uint" and f.params == ("wide",):
        return [f"mp_uint_wide(w, {src});"]
    if f.kind in ("uint", "enum"):
        return [f"mp_uint(w, {src});"]
    if f.kind == "int":
        return [f"mp_int(w, {src});"]
    if f.kind == "str":
        return [f"mp_strn(w, (const char *){src}.p, {src}.n);"]
    if f.kind == "bin":
        return [f"mp_bin(w, {src}.p, {src}.n);"]
    if f.kind == "args":
        return [f"mp_array(w, {src}.n);", f"mp_raw(w, {src}.p, {src}.len);"]
    if f.kind == "list":
        rec = f.params[0]
        return [f"mp_array(w, {src}.n);",
                f"if ({src}.items) for (uint32_t i = 0; i < {src}.n; i++) "
                f"rgpu_env_write_{rec}(w, &((const rgpu_env_{rec} *){src}.items)[i]);",
                f"else mp_raw(w, {src}.p, {src}.len);"]
    if f.kind == "one_of":
        out = [f"switch ({src}.tag) {{"]
        for r in f.params:
            out.append(f"case RGPU_ENV_{r.upper()}: rgpu_env_write_{r}(w, &{src}.u.{r}); break;")
        return out + ["default: break;", "}"]
    raise AssertionError(f.kind)


def _c_record_fns(rec: Record) -> list[str]:
    n, off = len(rec.fields), 1 if rec.tag is not None else 0
    # writer
    out = [f"static inline void rgpu_env_write_{rec.name}(mp_writer *w, const rgpu_env_{rec.name} *v) {{"]
    opt = [f for f in rec.fields if f.optional]
    if opt:
        present = " + ".join(f"(v->{f.name}.tag != 0)" if f.kind == "one_of" else f"(v->has_{f.name} != 0)"
                             for f in opt)
        out.append(f"    mp_array(w, {rec.required + off} + {present});")
    else:
        out.append(f"    mp_array(w, {n + off});")
    if rec.tag is not None:
        out.append(f"    mp_uint(w, RGPU_ENV_{rec.name.upper()});")
    for f in rec.fields:
        lines = _c_write_field(f, f"v->{f.name}")
        if f.optional:
            cond = f"v->{f.name}.tag != 0" if f.kind == "one_of" else f"v->has_{f.name}"
            out.append(f"    if ({cond}) {{")
            out += ["        " + x for x in lines]
            out.append("    }")
        else:
            out += ["    " + x for x in lines]
    out += ["}", ""]
    # reader
    lo, hi = rec.required + off, n + off
    cond = f"o.n != {hi}" if lo == hi else f"o.n < {lo} || o.n > {hi}"
    shape = f"an array of {lo}" + (f" to {hi}" if lo != hi else "") + " elements"
    out += [f"/* Reads one {rec.name} record, all of it checked; 0, or -1 with *why naming the field that failed. */",
            f"static inline int rgpu_env_read_{rec.name}(mp_reader *r, rgpu_env_{rec.name} *v, const char **why) {{",
            "    mp_obj o;", "    (void)o;",
            f"    if (mp_next(r, &o) || o.type != MP_ARRAY || {cond}) "
            f'{{ *why = "{rec.name}: expected {shape}"; return -1; }}', "    uint32_t count = o.n;", "    (void)count;"]
    if rec.tag is not None:
        out.append(f"    if (mp_next(r, &o) || o.type != MP_UINT || o.v.u != RGPU_ENV_{rec.name.upper()}) "
                   f'{{ *why = "{rec.name}: expected tag {rec.tag}"; return -1; }}')
    for i, f in enumerate(rec.fields):
        lines = _c_read_field(rec, f, f"v->{f.name}")
        if f.optional:
            absent = f"v->{f.name}.tag = 0;" if f.kind == "one_of" else f"v->has_{f.name} = 0;"
            present = [] if f.kind == "one_of" else [f"v->has_{f.name} = 1;"]
            out.append(f"    {absent}")
            out.append(f"    if (count > {i + off}) {{")
            out += ["        " + x for x in present + lines]
            out.append("    }")
        else:
            out += ["    " + x for x in lines]
    out += ["    return 0;", "}", ""]
    return out


_C_HEAD = """/* {stamp} */
/* The data-path message envelope (protocol/contract/envelope.toml): its records and their codecs, the
 * client library's and the cuda backend's compiled loop's. Every function is static inline, so each
 * program that includes this links nothing more than its msgpack reader and writer (mpack.c).
 *
 * A record travels as a msgpack array of its fields; a tagged record (one variant of a one_of) as
 * [tag, fields...]. Readers check the whole record (types, bounds, nesting) and return 0, or -1 with
 * *why naming the record and field; they leave the reader past the record. Strings, byte strings and
 * arrays are not copied: they point into the message (an rgpu_env_list's elements are checked, and
 * read again with rgpu_env_read_<record>, or mp_rinit over [p, p + len) for args). Writers write a
 * list from `items` when it is set, else its encoded elements from [p, p + len). */
#ifndef RGPU_ENVELOPE_H
#define RGPU_ENVELOPE_H
#include <stddef.h>
#include <stdint.h>

#include "mpack.h"

{limits}

typedef struct {{
    const void *p; /* into the message (reading), or the caller's (writing) */
    uint32_t n;
}} rgpu_env_bytes;

typedef struct {{
    const uint8_t *at; /* reading: the array itself, its header included (to read it as a record) */
    const uint8_t *p;  /* the encoded elements */
    size_t len;
    uint32_t n;        /* how many */
    const void *items; /* writing only: n records to encode instead of [p, p + len) */
}} rgpu_env_list;

/* Skips one value, refusing containers nested more than `depth` levels. */
static inline int rgpu_env_skip(mp_reader *r, int depth) {{
    mp_obj o;
    if (mp_next(r, &o)) return -1;
    if (o.type != MP_ARRAY && o.type != MP_MAP) return 0;
    if (depth <= 0) return -1;
    uint64_t items = o.type == MP_ARRAY ? o.n : 2ull * o.n;
    if (items > (uint64_t)(r->end - r->p)) return -1; /* every element takes a byte at least */
    for (uint64_t i = 0; i < items; i++)
        if (rgpu_env_skip(r, depth - 1)) return -1;
    return 0;
}}
"""


def c_header(env: Envelope, stamp: str) -> str:
    lim = [f"#define RGPU_ENV_{k.upper()} {v}" for k, v in env.limits.items()]
    lim += [f"#define RGPU_ENV_{r.name.upper()} {r.tag} /* {r.name}'s tag */" for r in env.records.values()
            if r.tag is not None]
    out = [_C_HEAD.format(stamp=stamp, limits="\n".join(lim))]
    done: set[str] = set()

    def emit(name: str):
        if name in done:
            return
        rec = env.records[name]
        for f in rec.fields:
            for dep in ([f.params[0]] if f.kind == "list" else list(f.params) if f.kind == "one_of" else []):
                emit(dep)
        done.add(name)
        for f in rec.fields:
            if f.kind == "one_of":
                out.extend(_c_union(rec, f, env))
                out.append("")
        out.extend(_c_struct(rec))
        out.append("")
        out.extend(_c_record_fns(rec))

    for name in env.records:
        emit(name)
    out += ["#endif", ""]
    return "\n".join(out)


def files(c_out: Path, py_out: Path) -> dict[Path, str]:
    env = load()
    stamp = "generated from protocol/contract/envelope.toml by protocol/codegen/envelope.py — do not edit"
    return {c_out / "rgpu_envelope.h": c_header(env, stamp), py_out / "envelope.py": python(env, stamp)}
