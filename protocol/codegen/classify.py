"""Classify every function of the CUDA headers: forwarded (with a wire kind for each parameter),
hand-written, local, or not supported. The rules are data in annotations.toml; a function that neither
the type rules nor the annotations can place is an error, never a silent skip."""
from __future__ import annotations

import fnmatch
import tomllib
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from pycparser import c_ast

from .ctypes_model import CType, Resolver
from .headers import Function, Parsed

ANNOTATIONS = Path(__file__).resolve().parent.parent / "annotations.toml"

# Wire kinds: one marshalling routine per kind on each end (libhook/src/transport/call.c, server/dispatch.py).
IN_KINDS = {"i": "signed integer", "u": "unsigned integer or device pointer", "f": "floating point",
            "h": "handle", "d": "device ordinal (routes the call; the server sees its own GPU)", "s": "string", "b": "struct by pointer (bytes)", "v": "struct by value (bytes)"}
OUT_KINDS = {"oi": "signed integer", "ou": "unsigned integer or device pointer", "of": "floating point",
             "oh": "handle", "ob": "struct (bytes)"}
RESULT_TYPES = {"CUresult": "driver", "cudaError_t": "runtime"}


class ClassifyError(Exception):
    pass


@dataclass
class Param:
    name: str
    kind: str  # one of IN_KINDS or OUT_KINDS
    ctype: CType
    size: int = 0  # bytes for b/v/ob; scalar width for i/u/f/oi/ou/of
    struct: str = ""  # C type name for b/v/ob (for cffi on the server)
    nullable: bool = False


@dataclass
class Call:
    name: str
    face: str
    cls: str  # forwarded / handwritten / local / unsupported
    call_id: int
    params: list[Param] = field(default_factory=list)
    is_async: bool = False
    capture: str = ""  # "guard", "guard:param" or "hook": how the stub consults stream capture (capture.c)
    reason: str = ""
    proto: list[tuple[str, CType]] = field(default_factory=list)  # (param name, type) for the C prototype
    ret: CType | None = None

    @property
    def ins(self):
        return [p for p in self.params if p.kind in IN_KINDS]

    @property
    def outs(self):
        return [p for p in self.params if p.kind in OUT_KINDS]


def call_id(name: str) -> int:
    """Stable across CUDA versions and declaration order: a hash of the name alone."""
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


def load_annotations(path: Path = ANNOTATIONS) -> dict:
    with open(path, "rb") as f:
        return tomllib.load(f)


def _match(table: dict, name: str):
    """Exact names win over globs; among globs the longest pattern wins."""
    if name in table:
        return table[name]
    hits = [(len(k), v) for k, v in table.items() if any(ch in k for ch in "*?[") and fnmatch.fnmatchcase(name, k)]
    return max(hits, key=lambda kv: kv[0])[1] if hits else None


class Classifier:
    def __init__(self, parsed: Parsed, annotations: dict, sizeof):
        self.p = parsed
        self.a = annotations
        self.r = Resolver(parsed)
        self.sizeof = sizeof  # callable(C type name) -> bytes (cffi over the headers' types)

    def classify_all(self) -> list[Call]:
        calls, errors = [], []
        for fn in self.p.functions:
            try:
                calls.append(self.classify(fn))
            except ClassifyError as e:
                errors.append(f"{fn.name}: {e}")
        ids = {}
        for c in calls:
            if c.call_id in ids:
                errors.append(f"call id collision: {c.name} and {ids[c.call_id]}")
            ids[c.call_id] = c.name
        if errors:
            raise ClassifyError("cannot classify (fix protocol/annotations.toml):\n  " + "\n  ".join(errors))
        return calls

    def classify(self, fn: Function) -> Call:
        name = fn.name
        proto = []
        for i, prm in enumerate(fn.params):
            if isinstance(prm, c_ast.EllipsisParam):
                proto.append(("...", CType("void")))
            else:
                proto.append((prm.name or f"arg{i}", self.r.resolve(prm.type)))
        ret = self.r.resolve(fn.decl.type.type)
        call = Call(name, fn.face, "forwarded", call_id(name), proto=proto, ret=ret)
        for cls in ("local", "handwritten", "unsupported"):
            reason = _match(self.a.get(cls, {}), name)
            if reason is not None:
                call.cls, call.reason = cls, reason
                return call
        ret_name = fn.decl.type.type.type.names[0] if isinstance(fn.decl.type.type, c_ast.TypeDecl) and \
            isinstance(fn.decl.type.type.type, c_ast.IdentifierType) else ""
        if ret_name not in RESULT_TYPES:
            raise ClassifyError(f"returns {ret_name or 'a non-result type'}: annotate as local or handwritten")
        for pname, t in proto:
            call.params.append(self._param(name, pname, t))
        call.is_async = _match(self.a.get("async", {}), name) is not None
        call.capture = _match(self.a.get("capture", {}), name) or ""
        kind, _, param = call.capture.partition(":")
        if call.capture and (kind not in ("guard", "hook") or
                             (param and param != "legacy" and param not in dict(proto))):
            raise ClassifyError(f"capture annotation {call.capture!r} is not guard, guard:PARAM, guard:legacy or hook")
        if call.is_async and call.outs:
            raise ClassifyError("annotated async but has out-parameters")
        return call

    def _param(self, fname: str, pname: str, t: CType) -> Param:
        override = _match(self.a.get("param", {}), f"{fname}.{pname}")
        nullable = _match(self.a.get("nullable", {}), f"{fname}.{pname}") is not None
        if override == "d" and t.kind != "int":
            override = None  # the device-ordinal rule names scalar ordinals, not out-pointers
        if override is not None:
            # "ob:N" / "ob:param": an out buffer of N bytes, or of as many bytes as another parameter says.
            kind, _, length = override.partition(":")
            if kind not in IN_KINDS and kind not in OUT_KINDS:
                raise ClassifyError(f"annotation gives {pname} unknown kind {kind!r}")
            size, struct = 8, ""
            if kind == "ob" and length.isdigit():
                size = int(length)
            elif kind == "ob" and length:
                size, struct = 0, length  # the length is another parameter's value
            elif kind == "ob":
                size, struct = self.sizeof(t.target.name), self.cffi_name(t.target.name)
            return Param(pname, kind, t, size, struct=struct, nullable=nullable)
        if pname == "...":
            raise ClassifyError("is variadic")
        k = t.kind
        if k in ("int", "enum"):
            return Param(pname, "i" if (k == "enum" or t.signed) else "u", t, t.size or 4)
        if k == "float":
            return Param(pname, "f", t, t.size)
        if k == "handle":
            return Param(pname, "h", t, 8)
        if k == "struct":
            self._plain_struct(t, pname)
            return Param(pname, "v", t, self.sizeof(t.name), self.cffi_name(t.name))
        if k == "ptr":
            tgt = t.target
            if tgt.kind == "int" and tgt.size == 1:
                if t.const:
                    return Param(pname, "s", t, nullable=nullable)
                raise ClassifyError(f"parameter {pname} is a char buffer: annotate its length")
            if not t.const:
                if tgt.kind in ("int", "enum"):
                    return Param(pname, "oi" if (tgt.kind == "enum" or tgt.signed) else "ou", t,
                                 tgt.size or 4, nullable=nullable)
                if tgt.kind == "float":
                    return Param(pname, "of", t, tgt.size, nullable=nullable)
                if tgt.kind == "handle":
                    return Param(pname, "oh", t, 8, nullable=nullable)
                if tgt.kind == "struct":
                    self._plain_struct(tgt, pname)
                    return Param(pname, "ob", t, self.sizeof(tgt.name), self.cffi_name(tgt.name), nullable=nullable)
            elif tgt.kind == "struct":
                self._plain_struct(tgt, pname)
                return Param(pname, "b", t, self.sizeof(tgt.name), self.cffi_name(tgt.name), nullable=nullable)
        raise ClassifyError(f"parameter {pname} ({_describe(t)}) needs an annotation")

    def cffi_name(self, name: str) -> str:
        return name if name in self.p.typedefs else f"struct {name}"

    def _plain_struct(self, t: CType, pname: str) -> None:
        """Structs travel as their bytes; one holding pointers or handles would carry client addresses."""
        if self.r.has_pointers(t.name):
            raise ClassifyError(f"parameter {pname}: struct {t.name} holds pointers or handles")


def _describe(t: CType) -> str:
    if t.kind == "ptr":
        return ("const " if t.const else "") + _describe(t.target) + " *"
    return t.kind + (f" {t.name}" if t.name else "")
