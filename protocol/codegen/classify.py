"""Place every function of the CUDA headers by its record (protocol/contract/calls/*.toml): its side,
and for a call that crosses the wire, a wire kind for each argument and out-value. The header gives
the types; the record gives what types cannot say. A function without a record, a record without a
function, a pointer parameter the record does not place, a spec that does not fit its parameter's
type: each is an error naming the record to fix, never a guess."""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field

from pycparser import c_ast

from . import records as rec
from .ctypes_model import CType, Resolver
from .headers import Function, Parsed

# Wire kinds: one marshalling routine per kind on each end (libhook/src/submit/call.c put/out, the
# server's decode in server/dispatch.py and the cuda backend's generic path).
IN_KINDS = {"i": "signed integer", "u": "unsigned integer or device address", "f": "floating point",
            "h": "handle (the session's small integer)", "d": "device ordinal (routes the call; the server "
            "sees its own GPU as 0)", "s": "string", "b": "struct by pointer (its bytes)",
            "v": "struct by value (its bytes)", "a": "array of scalars or plain structs (their bytes)",
            "ah": "array of handles"}
OUT_KINDS = {"oi": "signed integer", "ou": "unsigned integer or device address", "of": "floating point",
             "oh": "handle", "ob": "struct (bytes)", "oa": "array of scalars or plain structs (bytes)",
             "oah": "array of handles", "os": "string (hand-written calls keep it)"}
# What the cuda backend's generic path can serve straight from the record (server/backends/cuda/generic.py).
GENERIC_KINDS = set(IN_KINDS) | set(OUT_KINDS) - {"os"}
RESULT_TYPES = {"CUresult": "driver", "cudaError_t": "runtime"}


class ClassifyError(Exception):
    pass


@dataclass
class Param:
    name: str
    kind: str  # one of IN_KINDS or OUT_KINDS
    ctype: CType | None = None
    size: int = 0  # scalar width; bytes of a struct; bytes of one element of an array
    struct: str = ""  # cffi name of the struct (or element struct) that travels as bytes
    nullable: bool = False
    length: str = ""  # arrays and out-buffers: how many elements (a parameter or a number)
    hkind: str = ""  # handles: the kind of object the server's session keeps behind it

    @property
    def is_out(self) -> bool:
        return self.kind in OUT_KINDS


@dataclass
class Call:
    name: str
    face: str
    side: str  # client / forward / bulk / unsupported (records.SIDES)
    call_id: int
    record: rec.Record | None = None
    params: list[Param] = field(default_factory=list)  # the wire's arguments and out-values, in order
    proto: list[tuple[str, CType]] = field(default_factory=list)  # (param name, type) of the C prototype
    ret: CType | None = None
    decl: c_ast.Decl | None = None

    @property
    def reason(self) -> str:
        return self.record.why if self.record else ""

    @property
    def client(self) -> str:
        return self.record.client if self.record else ""

    @property
    def on_wire(self) -> bool:
        return self.side in ("forward", "bulk")

    @property
    def cls(self) -> str:
        """The generated code's view: a stub it writes (forwarded), a wire call whose client code is
        hand-written (handwritten), a function answered in the client (local), or not supported."""
        if self.side == "unsupported":
            return "unsupported"
        if self.side == "client":
            return "local"
        return "handwritten" if self.client else "forwarded"

    @property
    def flags(self) -> frozenset:
        return self.record.flags if self.record else frozenset()

    @property
    def is_async(self) -> bool:
        return "async" in self.flags

    @property
    def capture(self) -> str:
        return self.record.capture if self.record else ""

    @property
    def ins(self):
        return [p for p in self.params if not p.is_out]

    @property
    def outs(self):
        return [p for p in self.params if p.is_out]

    @property
    def generic(self) -> str:
        """The driver function the cuda backend's generic path calls for this wire call, or ""."""
        r = self.record
        if not self.on_wire or self.client or any(p.kind not in GENERIC_KINDS for p in self.params):
            return ""
        if self.face == "driver":
            return self.name
        return r.same_as


def call_id(name: str) -> int:
    """Stable across CUDA versions and declaration order: a hash of the name alone."""
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


class Classifier:
    def __init__(self, parsed: Parsed, contract: rec.Contract, sizeof):
        self.p = parsed
        self.c = contract
        self.r = Resolver(parsed)
        self.sizeof = sizeof  # callable(C type name) -> bytes (cffi over the headers' types)
        self.devices = set(contract.types.get("device", {}))
        self.handles = dict(contract.types.get("handles", {}))
        self.int_handles = dict(contract.types.get("integer_handles", {}))

    def classify_all(self, check_client=None, extra: list[Function] = ()) -> list[Call]:
        """`check_client(record)`: "" when its hand-written file defines the function, else why not.
        `extra`: the functions records declare by `prototype` (headers.declare)."""
        calls, errors = [], []
        names = {f.name for f in self.p.functions}
        for name, r in sorted(self.c.records.items()):
            if r.prototype and name in names:
                errors.append(f"{name}: the headers declare it: its record takes their prototype (drop `prototype`)")
        for fn in [*self.p.functions, *extra]:
            record = self.c.records.get(fn.name)
            try:
                if record is None:
                    raise ClassifyError(f"no record: add [{fn.name}] to a protocol/contract/calls/*.toml "
                                        f"(side = client, forward, bulk or unsupported)")
                if not record.exists_in(self.p.cuda_version):
                    raise ClassifyError(f"the record's version range ({record.since or '..'}-{record.until or '..'}) "
                                        f"excludes CUDA {self.p.cuda_version}, whose headers declare it")
                calls.append(self.classify(fn, record))
                if check_client and record.client:
                    why = check_client(record)
                    if why:
                        raise ClassifyError(why)
            except (ClassifyError, rec.RecordError) as e:
                errors.append(f"{fn.name}: {e}")
        for name, r in sorted(self.c.records.items()):
            if name not in names and not r.prototype and r.exists_in(self.p.cuda_version):
                errors.append(f"{name}: recorded in {r.family}.toml but the CUDA {self.p.cuda_version} headers "
                              f"do not declare it (remove the record, or give it since/until)")
        by_name = {c.name: c for c in calls}
        for c in calls:
            errors += [f"{c.name}: {e}" for e in self._links(c, by_name)]
        ids = {}
        for c in calls:
            if c.call_id in ids:
                errors.append(f"call id collision: {c.name} and {ids[c.call_id]}")
            ids[c.call_id] = c.name
        if errors:
            raise ClassifyError("cannot place (fix protocol/contract/calls/*.toml):\n  " + "\n  ".join(errors))
        return calls

    def _links(self, c: Call, by_name: dict) -> list[str]:
        """What a record says about other calls must be true of them."""
        r, errors = c.record, []
        for v in r.via:
            if v not in by_name or not by_name[v].on_wire:
                errors.append(f"via {v}: not a call that crosses the wire")
        if r.same_as:
            t = by_name.get(r.same_as)
            if c.face != "runtime" or t is None or t.face != "driver" or not t.on_wire:
                errors.append(f"same_as {r.same_as}: a runtime call is served as a driver call that crosses the wire")
            elif [(p.kind, p.hkind) for p in t.params] != [(p.kind, p.hkind) for p in c.params]:
                errors.append(f"same_as {r.same_as}: its wire arguments differ "
                              f"({[p.kind for p in c.params]} vs {[p.kind for p in t.params]})")
            elif t.client:
                errors.append(f"same_as {r.same_as}: that call's wire shape is hand-written")
        return errors

    def classify(self, fn: Function, record: rec.Record) -> Call:
        name = fn.name
        proto = []
        for i, prm in enumerate(fn.params):
            if isinstance(prm, c_ast.EllipsisParam):
                proto.append(("...", CType("void")))
            else:
                proto.append((prm.name or f"arg{i}", self.r.resolve(prm.type)))
        ret = self.r.resolve(fn.decl.type.type)
        call = Call(name, fn.face, record.side, call_id(name), record, proto=proto, ret=ret, decl=fn.decl)
        types = dict(proto)
        stale = set(record.params) - set(types)
        if stale:
            raise ClassifyError(f"params {sorted(stale)} are not parameters of the function "
                                f"({', '.join(types) or 'none'})")
        if record.capture:
            kind, _, param = record.capture.partition(":")
            if kind not in ("guard", "hook") or (kind == "hook" and param) or \
                    (param and param != "legacy" and param not in types):
                raise ClassifyError(f"capture {record.capture!r} is not guard, guard:PARAM, guard:legacy or hook")
        if record.drops and (record.drops not in types or not (types[record.drops].kind == "handle" or
                                                                types[record.drops].name in self.int_handles)):
            raise ClassifyError(f"drops {record.drops!r}: not a handle parameter")
        if not call.on_wire:
            for pname, spec in record.params.items():  # documentation only, but it must fit
                self._check_spec_fits(pname, types[pname], spec)
            return call
        ret_name = _ret_name(fn)
        if ret_name not in RESULT_TYPES:
            raise ClassifyError(f"returns {ret_name or 'a non-result type'}: only CUresult/cudaError_t calls "
                                f"cross the wire (make it side = \"client\")")
        if "..." in types:
            raise ClassifyError("is variadic")
        if record.wire is not None:
            call.params = [self._explicit(pname, kind, hkind) for pname, kind, hkind in record.wire + record.outs]
        else:
            for pname, t in proto:
                p = self._param(pname, t, record.params.get(pname))
                if p is not None:
                    call.params.append(p)
                elif not record.client:
                    raise ClassifyError(f"parameter {pname} ({record.params[pname].dir}) cannot travel: a generated "
                                        f"stub has no way to send it (hand-write the call: `client`)")
        self._check_call(call, types)
        return call

    def _check_call(self, call: Call, types: dict) -> None:
        r = call.record
        wire_names = {p.name for p in call.params}
        for p in call.params:
            if p.length and not p.length.isdigit() and p.length not in wire_names:
                raise ClassifyError(f"parameter {p.name}: its length {p.length!r} is not a wire argument")
            if p.kind == "os" and not r.client:
                raise ClassifyError(f"parameter {p.name}: a returned string needs client storage (hand-write it)")
        for expr in (r.bulk_in, r.bulk_out):
            for term in expr.replace(" ", "").split("*") if expr else ():
                if not term.isdigit() and term not in wire_names:
                    raise ClassifyError(f"bulk length {expr!r}: {term} is not a wire argument")
        if call.is_async and call.outs:
            raise ClassifyError("flagged async but has out-values")
        by_name = {p.name: p for p in call.params}
        if r.allocates:
            at, size = r.allocates
            if at not in by_name or by_name[at].kind != "ou" or by_name[at].nullable:
                raise ClassifyError(f"allocates at {at!r}: not an out-value that is an address")
            for term in size.replace(" ", "").split("*"):
                if not term.isdigit() and (term not in by_name or by_name[term].kind not in ("u", "i", "ou")):
                    raise ClassifyError(f"allocates bytes {size!r}: {term} is not an integer wire argument")
        if r.frees and r.frees != "all" and (r.frees not in by_name or by_name[r.frees].kind != "u"):
            raise ClassifyError(f"frees {r.frees!r}: not an address parameter (or \"all\")")
        if r.frees == "all" and call.is_async:
            raise ClassifyError("frees = \"all\" on an async call: the table is cleared once the reply came")
        if r.shm and not (r.bulk_in or r.bulk_out):
            raise ClassifyError("shm = true without bulk data")
        if set(r.unsupported_on) >= set(rec.BACKENDS):
            raise ClassifyError("no backend serves it: make it side = \"unsupported\" (answered in the client)")

    def _explicit(self, pname: str, kind: str, hkind: str) -> Param:
        if kind not in IN_KINDS and kind not in OUT_KINDS:
            raise ClassifyError(f"wire {pname}:{kind}: unknown kind (in: {', '.join(IN_KINDS)}; "
                                f"out: {', '.join(OUT_KINDS)})")
        if kind in ("h", "oh", "ah", "oah") and hkind not in self.handles.values():
            raise ClassifyError(f"wire {pname}:{kind}: name the handle kind ({pname}:{kind}:KIND, one of "
                                f"{sorted(set(v for v in self.handles.values() if v))})")
        return Param(pname, kind, None, 8, hkind=hkind)

    def _handle_kind(self, pname: str, t: CType) -> str:
        kind = self.handles.get(t.name)
        if kind is None:
            raise ClassifyError(f"parameter {pname}: handle type {t.name} has no session kind in "
                                f"protocol/contract/types.toml [handles]")
        if not kind:
            raise ClassifyError(f"parameter {pname}: a {t.name} handle lives in the client and never crosses "
                                f"the wire (make the call side = \"client\" or \"unsupported\")")
        return kind

    def _param(self, pname: str, t: CType, spec: rec.Spec | None) -> Param | None:
        """The wire parameter for C parameter `pname`, or None when it does not travel (host, callback)."""
        if spec is None:
            k = t.kind
            if k in ("int", "enum"):
                if k == "int" and t.name in self.devices:
                    return Param(pname, "d", t, 4)
                if k == "int" and t.name in self.int_handles:
                    return Param(pname, "h", t, 8, hkind=self.int_handles[t.name])
                return Param(pname, "i" if (k == "enum" or t.signed) else "u", t, t.size or 4)
            if k == "float":
                return Param(pname, "f", t, t.size)
            if k == "handle":
                return Param(pname, "h", t, 8, hkind=self._handle_kind(pname, t))
            if k == "struct":
                self._plain_struct(t.name, pname)
                return Param(pname, "v", t, self.sizeof(t.name), self.cffi_name(t.name))
            if k == "ptr":
                raise ClassifyError(f"pointer parameter {pname} ({_describe(t)}) is not placed: give it a spec in "
                                    f"the record's params (in, out, in[LEN], out[LEN], string, devptr, ...)")
            raise ClassifyError(f"parameter {pname} ({_describe(t)}) cannot travel: the call is client-side or "
                                f"unsupported")
        self._check_spec_fits(pname, t, spec)
        d, n = spec.dir, spec.nullable
        if d in ("host", "callback", "inout"):
            return None
        if d == "device":
            return Param(pname, "d", t, 4)
        if d == "devptr":
            return Param(pname, "u", t, 8, nullable=n)
        if d == "out:devptr":
            return Param(pname, "ou", t, 8, nullable=n)
        if d == "string":
            return Param(pname, "s", t, nullable=n)
        if d == "out:string":
            return Param(pname, "os", t, nullable=n)
        tgt = t.target
        if spec.length:  # arrays
            if tgt.kind == "handle":
                return Param(pname, "ah" if d == "in" else "oah", t, 8, nullable=n, length=spec.length,
                             hkind=self._handle_kind(pname, tgt))
            size, struct = self._element(pname, tgt, spec.raw)
            return Param(pname, "a" if d == "in" else "oa", t, size, struct, nullable=n, length=spec.length)
        if tgt.kind == "int" and tgt.name in self.int_handles:
            return Param(pname, "h" if d == "in" else "oh", t, 8, nullable=n, hkind=self.int_handles[tgt.name])
        if tgt.kind in ("int", "enum"):
            signed = tgt.kind == "enum" or tgt.signed
            if d == "in":
                return Param(pname, "i" if signed else "u", t, tgt.size or 4, nullable=n)
            return Param(pname, "oi" if signed else "ou", t, tgt.size or 4, nullable=n)
        if tgt.kind == "float":
            return Param(pname, "f" if d == "in" else "of", t, tgt.size, nullable=n)
        if tgt.kind == "handle":
            return Param(pname, "h" if d == "in" else "oh", t, 8, nullable=n, hkind=self._handle_kind(pname, tgt))
        if tgt.kind == "struct":
            if not spec.raw:
                self._plain_struct(tgt.name, pname)
            return Param(pname, "b" if d == "in" else "ob", t, self.sizeof(tgt.name), self.cffi_name(tgt.name),
                         nullable=n)
        raise ClassifyError(f"parameter {pname} ({_describe(t)}): {d} of a {tgt.kind} cannot travel")

    def _element(self, pname: str, t: CType, raw: bool) -> tuple[int, str]:
        if t.kind in ("int", "enum", "float"):
            return t.size or 4, ""
        if t.kind == "struct":
            if not raw:
                self._plain_struct(t.name, pname)
            return self.sizeof(t.name), self.cffi_name(t.name)
        raise ClassifyError(f"parameter {pname}: an array of {t.kind} cannot travel")

    def _check_spec_fits(self, pname: str, t: CType, spec: rec.Spec) -> None:
        d = spec.dir
        ok = {
            "device": t.kind == "int",
            "devptr": t.kind == "ptr" and t.target.kind == "void",
            "out:devptr": t.kind == "ptr" and t.target.kind == "ptr" and t.target.target.kind == "void",
            "string": t.kind == "ptr" and t.target.kind == "int" and t.target.size == 1 and t.const,
            "out:string": t.kind == "ptr" and t.target.kind == "ptr" and t.target.target.kind == "int"
                          and t.target.target.size == 1,
            "host": t.kind == "ptr",
            "callback": t.kind == "funcptr",
            "inout": t.kind == "ptr",
            "in": t.kind == "ptr" and t.target.kind not in ("void", "ptr", "funcptr"),
            "out": t.kind == "ptr" and not t.const and t.target.kind not in ("void", "ptr", "funcptr"),
        }[d]
        if spec.length:
            ok = d in ("in", "out") and t.kind == "ptr" and t.target.kind not in ("void", "ptr", "funcptr")
            if d == "out" and t.const:
                ok = False
        if not ok:
            raise ClassifyError(f"parameter {pname}: spec {d}{'[' + spec.length + ']' if spec.length else ''} "
                                f"does not fit its type ({_describe(t)})")
        if spec.raw and not (t.kind == "ptr" and t.target.kind == "struct"):
            raise ClassifyError(f"parameter {pname}: :raw is for structs")

    def cffi_name(self, name: str) -> str:
        return name if name in self.p.typedefs else f"struct {name}"

    def _plain_struct(self, name: str, pname: str) -> None:
        """Structs travel as their bytes; one holding pointers or handles would carry client addresses
        (or the client's handle values) to a server that cannot use them."""
        if self.r.has_pointers(name):
            raise ClassifyError(f"parameter {pname}: struct {name} holds pointers or handles, which cannot "
                                f"travel as bytes (:raw if they are device addresses; else hand-write the call "
                                f"or make it unsupported)")


def _ret_name(fn: Function) -> str:
    t = fn.decl.type.type
    return t.type.names[0] if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) else ""


def _describe(t: CType) -> str:
    if t.kind == "ptr":
        return ("const " if t.const else "") + _describe(t.target) + " *"
    return t.kind + (f" {t.name}" if t.name else "")
