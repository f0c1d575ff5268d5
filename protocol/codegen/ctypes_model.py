"""What a C type from the CUDA headers *is*, for marshalling: an integer, a float, an enum, an opaque
handle, a struct, a pointer to one of those, a function pointer. One resolver, so the C stubs and the
server's call table agree on every parameter."""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from .headers import Parsed


def _integer(names: tuple[str, ...]):
    """(size, signed) of a builtin integer type spelled in any word order, else None."""
    words = [w for w in names if w != "int"] or ["int"]
    unsigned = "unsigned" in words
    core = tuple(w for w in words if w not in ("unsigned", "signed")) or ("int",)
    sizes = {("char",): 1, ("short",): 2, ("int",): 4, ("long",): 8, ("long", "long"): 8, ("_Bool",): 1}
    if core not in sizes:
        return None
    return sizes[core], not unsigned and core != ("_Bool",)


@dataclass(frozen=True)
class CType:
    kind: str  # void int float enum handle struct ptr funcptr array
    size: int = 0
    signed: bool = False
    name: str = ""  # typedef/struct name for handle/struct/enum
    target: "CType | None" = None  # for ptr/array
    const: bool = False  # for ptr: the pointee is const
    c: str = ""  # the C spelling of the type as written (for prototypes)

    @property
    def is_scalar(self) -> bool:
        return self.kind in ("int", "float", "enum")


class Resolver:
    def __init__(self, parsed: Parsed):
        self.p = parsed

    def resolve(self, node) -> CType:
        if isinstance(node, c_ast.Typename) or isinstance(node, c_ast.Decl):
            node = node.type
        if isinstance(node, c_ast.PtrDecl):
            inner = node.type
            if isinstance(inner, c_ast.FuncDecl):
                return CType("funcptr")
            t = self.resolve(inner)
            const = "const" in getattr(inner, "quals", [])
            # A pointer to a struct the headers never define is an opaque handle (CUstream); one to a
            # struct with members, by tag or by typedef (CUmemLocation), is a pointer to data.
            if t.kind == "struct" and _struct_node(self.p, t.name) is None:
                return CType("handle", 8, name=t.name)
            # const-ness of the pointee only: `const char **` is a mutable pointer to `const char *`
            return CType("ptr", 8, target=t, const=const or (t.const and t.kind != "ptr"))
        if isinstance(node, (c_ast.Struct, c_ast.Union)):  # an anonymous member union/struct
            return CType("struct", name=node.name or "")
        if isinstance(node, c_ast.ArrayDecl):
            return CType("array", target=self.resolve(node.type))
        if isinstance(node, c_ast.FuncDecl):
            return CType("funcptr")
        if isinstance(node, c_ast.TypeDecl):
            const = "const" in node.quals
            t = node.type
            if isinstance(t, c_ast.IdentifierType):
                r = self._identifier(tuple(t.names))
            elif isinstance(t, c_ast.Struct) or isinstance(t, c_ast.Union):
                r = CType("struct", name=t.name or "")
            elif isinstance(t, c_ast.Enum):
                r = CType("enum", 4, name=t.name or "")
            else:
                raise TypeError(f"unknown type node {t!r}")
            return CType(r.kind, r.size, r.signed, r.name, r.target, const, r.c)
        raise TypeError(f"unknown type node {node!r}")

    def _identifier(self, names: tuple[str, ...]) -> CType:
        if names == ("void",):
            return CType("void")
        if names == ("float",):
            return CType("float", 4)
        if names == ("double",):
            return CType("float", 8)
        ints = _integer(names)
        if ints:
            return CType("int", *ints)
        (name,) = names
        if name in self.p.enums and name in self.p.typedefs and \
                isinstance(getattr(self.p.typedefs[name].type, "type", None), c_ast.Enum):
            return CType("enum", 4, name=name)
        if name in self.p.typedefs:
            inner = self.resolve(self.p.typedefs[name].type)
            if inner.kind == "struct":
                return CType("struct", name=name)
            return CType(inner.kind, inner.size, inner.signed, inner.name or name, inner.target, inner.const)
        for std, (size, signed) in {"size_t": (8, False), "uint64_t": (8, False), "int64_t": (8, True),
                                    "uint32_t": (4, False), "int32_t": (4, True), "uint8_t": (1, False),
                                    "uint16_t": (2, False), "int16_t": (2, True), "int8_t": (1, True)}.items():
            if name == std:
                return CType("int", size, signed)
        raise TypeError(f"unknown type name {name}")



def _struct_node(parsed: Parsed, name: str):
    """The struct/union node with members that `name` (a typedef or a tag) names, or None (opaque)."""
    if name in parsed.typedefs:
        inner = parsed.typedefs[name].type
        inner = inner.type if isinstance(inner, c_ast.TypeDecl) else inner
        if isinstance(inner, (c_ast.Struct, c_ast.Union)):
            if inner.decls is None:
                return parsed.structs.get(inner.name)
            return inner
        if isinstance(inner, c_ast.IdentifierType):
            return _struct_node(parsed, inner.names[0])
        return None
    return parsed.structs.get(name)


def has_pointers(self, name: str) -> bool:
    """Whether a struct (or union) holds a pointer, handle or function pointer anywhere inside it, at
    any depth of nested (named or anonymous) structs, unions and arrays. Opaque: True (unknowable)."""
    node = _struct_node(self.p, name)
    if node is None or node.decls is None:
        return True
    return _members_have_pointers(self.p, node, set())


def _members_have_pointers(parsed: Parsed, node, seen: set) -> bool:
    return any(_type_has_pointers(parsed, d.type, seen) for d in node.decls or [])


def _type_has_pointers(parsed: Parsed, t, seen: set) -> bool:
    if isinstance(t, (c_ast.PtrDecl, c_ast.FuncDecl)):
        return True
    if isinstance(t, c_ast.ArrayDecl):
        return _type_has_pointers(parsed, t.type, seen)
    if isinstance(t, c_ast.TypeDecl):
        inner = t.type
        if isinstance(inner, (c_ast.Struct, c_ast.Union)):
            if inner.decls is not None:
                return _members_have_pointers(parsed, inner, seen)
            if inner.name in seen:
                return False
            seen.add(inner.name)
            node = parsed.structs.get(inner.name)
            return True if node is None else _members_have_pointers(parsed, node, seen)
        if isinstance(inner, c_ast.IdentifierType):
            name = inner.names[-1]
            if name in parsed.typedefs and name not in seen:
                seen.add(name)
                return _type_has_pointers(parsed, parsed.typedefs[name].type, seen)
        return False
    return False


Resolver.has_pointers = has_pointers
