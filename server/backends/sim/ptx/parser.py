"""PTX text -> module structure (functions, variables, flat instruction lists with labels).

The grammar handled is what nvcc/NVVM emits (and what hand-written inline asm commonly adds):
directives, linking qualifiers, ``.entry``/``.func`` with parameter and return lists,
declarations with ``%r<N>`` ranges and vector types, module/function variables with alignment,
arrays and initializers, nested ``{}`` scopes (call sequences), labels, predicate guards, vector
operands and address expressions. Debug info (``.loc``, ``.file``, ``.section`` blocks of -G) is
dropped: the interpreter has no use for it.
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field

from ..errors import SimError

_TOKEN = re.compile(r"""
    "(?:[^"\\]|\\.)*"
  | 0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16}|0[xX][0-9a-fA-F]+U?
  | \d+\.\d*(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\d+U?
  | [.%$_a-zA-Z][.%$_a-zA-Z0-9]*(?:::[.%$_a-zA-Z0-9]+)*  # '::' joins qualifiers: L2::128B, shared::cta
  | [{}()\[\],;:+\-!@<>=|*/~&^]
""", re.VERBOSE)
_SPACE = re.compile(r"\s+")

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_DEBUG_LINES = re.compile(r"^[ \t]*(?:\.loc|\.file|@@DWARF)\b[^\n]*$", re.MULTILINE)

SPACES = (".global", ".const", ".shared", ".local", ".param", ".tex")
_GLUED_DIRECTIVES = tuple(d + "." for d in (".reg", *SPACES))
TYPE_SIZES = {
    "b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "bf16": 2, "b32": 4, "u32": 4,
    "s32": 4, "f32": 4, "f16x2": 4, "bf16x2": 4, "b64": 8, "u64": 8, "s64": 8, "f64": 8, "b128": 16,
    "pred": 1, "e4m3x2": 2, "e5m2x2": 2, "ue8m0x2": 2, "tf32": 4,
}


@dataclass
class Operand:
    kind: str  # reg | imm | sym | addr | vec | list (call arguments; texture operands: flt 'resource') | sink
    value: object = None  # reg/sym name, immediate (int/float bits), list of operands
    neg: bool = False  # '!%p' predicate negation
    offset: int = 0  # address displacement
    flt: str = ""  # 'f32'/'f64' when the immediate was written as 0f.../0d... hex bits


@dataclass
class Instruction:
    opcode: str  # full dotted name, e.g. 'ld.global.v4.f32'
    operands: list[Operand]
    guard: tuple[str, bool] | None = None  # (predicate register, negated)
    line: int = 0

    @property
    def parts(self) -> list[str]:
        return self.opcode.split(".")


@dataclass
class Label:
    name: str


@dataclass
class Variable:
    name: str
    space: str  # global | const | shared | local | param
    type: str  # element type, e.g. 'b8', 'f32'
    size: int  # bytes (0 for extern shared)
    align: int
    init: bytes | None = None
    relocs: list[tuple[int, str, int]] = field(default_factory=list)  # (offset, symbol, addend)
    extern: bool = False
    vec: int = 1

    @property
    def elem_size(self) -> int:
        return TYPE_SIZES.get(self.type, 1) * self.vec


@dataclass
class Function:
    name: str
    entry: bool
    params: list[Variable] = field(default_factory=list)
    rets: list[Variable] = field(default_factory=list)
    regs: dict[str, tuple[str, int]] = field(default_factory=dict)  # name -> (type, vector width)
    locals: list[Variable] = field(default_factory=list)  # .local/.shared/.param inside the body
    body: list = field(default_factory=list)  # Instruction | Label
    extern: bool = False  # declaration only (vprintf, __assertfail, ...)
    directives: dict[str, list[int]] = field(default_factory=dict)  # .maxntid, .reqntid, ...


@dataclass
class Module:
    version: str = ""
    target: list[str] = field(default_factory=list)
    address_size: int = 64
    variables: dict[str, Variable] = field(default_factory=dict)
    functions: dict[str, Function] = field(default_factory=dict)


def parse_int(tok: str) -> int:
    t = tok.rstrip("U")
    if t[:2] in ("0x", "0X"):
        return int(t, 16)
    if len(t) > 1 and t[0] == "0" and t.isdigit():
        return int(t, 8)
    return int(t)


class _Parser:
    def __init__(self, text: str, first_line: int = 1):
        text = _COMMENTS.sub(" ", text)
        text = _DEBUG_LINES.sub("", text)
        self.toks: list[str] = []
        self.lines: list[int] = []
        # Register scopes of the function being parsed, innermost last: name -> unique name.
        self.scopes: list[dict[str, str]] = []
        self._suffix: dict[str, int] = {}  # next free k of 'name$k' (declare)
        self._renamed: set[str] = set()  # names some scope declared under another name
        # One findall per line keeps the per-token work in the regex engine (big library modules
        # hold millions of tokens); a line's number is then shared by all its tokens.
        toks, lines, find = self.toks, self.lines, _TOKEN.findall
        covered = 0
        for n, line in enumerate(text.split("\n"), first_line):
            found = find(line)
            if not found:
                continue
            covered += sum(map(len, found))
            if ".reg." in line or any(d in line for d in _GLUED_DIRECTIVES[1:]):
                found = _unglue(found)
            toks.extend(found)
            lines.extend([n] * len(found))
        # Anything the token regex skipped is garbage; findall silently steps over it.
        # (Strings may hold spaces: '.pragma "used_bytes_mask 240";'.)
        covered -= sum(len(t) - len(_SPACE.sub("", t)) for t in toks if t[0] == '"')
        if covered != len(_SPACE.sub("", text)):
            bad = _first_unknown(text)
            raise SimError("CUDA_ERROR_INVALID_PTX", f"unexpected character {bad!r} in PTX")
        self.i = 0

    # -- token helpers -------------------------------------------------------------------------
    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else ""

    def next(self) -> str:
        if self.i >= len(self.toks):
            raise SimError("CUDA_ERROR_INVALID_PTX", "unexpected end of PTX")
        t = self.toks[self.i]
        self.i += 1
        return t

    def expect(self, t: str) -> None:
        got = self.next()
        if got != t:
            raise SimError("CUDA_ERROR_INVALID_PTX",
                           f"line {self.lines[self.i - 1]}: expected {t!r}, found {got!r}")

    def accept(self, t: str) -> bool:
        if self.peek() == t:
            self.i += 1
            return True
        return False

    def line(self) -> int:
        return self.lines[min(self.i, len(self.lines) - 1)] if self.lines else 0

    def skip_statement(self) -> None:
        depth = 0
        while True:
            t = self.next()
            if t == "{":
                depth += 1
            elif t == "}":
                depth -= 1
            elif t == ";" and depth <= 0:
                return

    # -- module level --------------------------------------------------------------------------
    def module(self) -> Module:
        mod = Module()
        while self.i < len(self.toks):
            t = self.peek()
            if t == ".version":
                self.next()
                mod.version = self.next()
            elif t == ".target":
                self.next()
                mod.target.append(self.next())
                while self.accept(","):
                    mod.target.append(self.next())
            elif t == ".address_size":
                self.next()
                mod.address_size = parse_int(self.next())
            elif t == ".section":
                self.next()
                self.next()
                self.expect("{")
                depth = 1
                while depth:
                    x = self.next()
                    depth += (x == "{") - (x == "}")
            elif t in (".pragma",):
                self.skip_statement()
            else:
                self.declaration(mod)
        return mod

    def declaration(self, mod: Module) -> None:
        quals = []
        while self.peek() in (".visible", ".extern", ".weak", ".common"):
            quals.append(self.next())
        t = self.peek()
        if t in (".entry", ".func"):
            fn = self.function(extern=".extern" in quals)
            old = mod.functions.get(fn.name)
            if old is None or old.extern:
                mod.functions[fn.name] = fn
        elif t in SPACES:
            for var in self.variables(extern=".extern" in quals):
                mod.variables[var.name] = var
        elif t in (".alias",):
            self.skip_statement()
        else:
            raise SimError("CUDA_ERROR_INVALID_PTX", f"line {self.line()}: unexpected {t!r} at module level")

    def variables(self, extern: bool = False) -> list[Variable]:
        space = self.next()[1:]
        align = 0
        vec = 1
        typ = None
        while True:
            t = self.peek()
            if t == ".align":
                self.next()
                align = parse_int(self.next())
            elif t in (".v2", ".v4", ".v8"):
                vec = int(self.next()[2:])
            elif t.startswith(".") and t[1:] in TYPE_SIZES:
                typ = self.next()[1:]
            elif t.startswith(".ptr") or t in (".relaxed", ".volatile"):
                self.next()
                if self.peek() in SPACES:
                    self.next()
                if self.peek() == ".align":
                    self.next()
                    self.next()
            elif t in (".texref", ".samplerref", ".surfref"):
                typ = "b64"
                self.next()
            elif t == ".attribute":
                # .attribute(.managed) (a __managed__ variable) and .attribute(.unified(...)): where the
                # driver keeps the variable, not what kernels see; the client maps managed ones itself
                self.next()
                self.expect("(")
                depth = 1
                while depth:
                    tok = self.next()
                    depth += (tok == "(") - (tok == ")")
            else:
                break
        if typ is None:
            raise SimError("CUDA_ERROR_INVALID_PTX", f"line {self.line()}: variable without a type")
        out = []
        while True:
            name = self.next()
            dims = []
            unsized = False
            while self.accept("["):
                if self.accept("]"):
                    unsized = True
                    dims.append(0)
                else:
                    dims.append(parse_int(self.next()))
                    self.expect("]")
            count = 1
            for d in dims:
                count *= d
            esize = TYPE_SIZES[typ] * vec
            var = Variable(name, space, typ, esize * count, align or esize, extern=extern or unsized, vec=vec)
            if self.accept("="):
                self.initializer(var, esize)
                if unsized and var.init is not None:
                    var.size = len(var.init)
                    var.extern = extern
            out.append(var)
            if not self.accept(","):
                break
        self.expect(";")
        return out

    def initializer(self, var: Variable, esize: int) -> None:
        items: list = []

        def value():
            neg = self.accept("-")
            t = self.next()
            if t[0].isdigit():
                if t[:2] in ("0f", "0F"):
                    return ("bits", int(t[2:], 16), 4)
                if t[:2] in ("0d", "0D"):
                    return ("bits", int(t[2:], 16), 8)
                if re.match(r"^\d+\.|^\d+[eE]", t):
                    return ("float", -float(t) if neg else float(t))
                return ("int", -parse_int(t) if neg else parse_int(t))
            if t in ("generic", "global", "shared", "const"):
                self.expect("(")
                sym = self.next()
                self.expect(")")
                return ("sym", sym, self.addend())
            return ("sym", t, self.addend())

        def walk():
            if self.accept("{"):
                if not self.accept("}"):
                    walk()
                    while self.accept(","):
                        walk()
                    self.expect("}")
            else:
                items.append(value())

        walk()
        data = bytearray()
        etype = var.type
        for it in items:
            off = len(data)
            if it[0] == "bits":
                data += it[1].to_bytes(it[2], "little")
            elif it[0] == "float":
                data += struct.pack("<d" if etype == "f64" else "<f", it[1]) if etype in ("f32", "f64") \
                    else int(it[1]).to_bytes(TYPE_SIZES[etype], "little", signed=True)
            elif it[0] == "int":
                n = TYPE_SIZES[etype]
                if etype == "f32":
                    data += struct.pack("<f", it[1])
                elif etype == "f64":
                    data += struct.pack("<d", it[1])
                else:
                    data += (it[1] & ((1 << (8 * n)) - 1)).to_bytes(n, "little")
            else:
                var.relocs.append((off, it[1], it[2]))
                data += bytes(TYPE_SIZES[etype])
        if var.size and len(data) < var.size:
            data += bytes(var.size - len(data))
        var.init = bytes(data)

    def addend(self) -> int:
        if self.peek() in ("+", "-") and self.peek(1)[:1].isdigit():
            sign = -1 if self.next() == "-" else 1
            return sign * parse_int(self.next())
        return 0

    # -- functions -----------------------------------------------------------------------------
    def param_list(self) -> list[Variable]:
        out = []
        self.expect("(")
        while not self.accept(")"):
            if self.peek() in (".param", ".reg"):
                out.extend(self.variables_inline())
            elif not self.accept(","):
                raise SimError("CUDA_ERROR_INVALID_PTX",
                               f"line {self.line()}: unexpected {self.peek()!r} in a parameter list")
        return out

    def variables_inline(self) -> list[Variable]:
        # A parameter declaration ends at ',' or ')' instead of ';'.
        space = self.next()[1:]
        align = 0
        typ = None
        vec = 1
        while self.peek().startswith(".") :
            t = self.next()
            if t == ".align":
                align = parse_int(self.next())
            elif t in (".v2", ".v4"):
                vec = int(t[2:])
            elif t[1:] in TYPE_SIZES:
                typ = t[1:]
            elif t == ".ptr":
                # '.ptr .global .align 1' describes what the pointer points to: the parameter
                # itself keeps its type's alignment.
                if self.peek() in SPACES:
                    self.next()
                if self.peek() == ".align":
                    self.next()
                    self.next()
            elif t in SPACES:
                pass
        name = self.next()
        count = 1
        while self.accept("["):
            count *= parse_int(self.next())
            self.expect("]")
        esize = TYPE_SIZES.get(typ or "b32", 4) * vec
        return [Variable(name, space, typ or "b32", esize * count, align or esize, vec=vec)]

    def function(self, extern: bool) -> Function:
        kind = self.next()
        rets = []
        if self.peek() == "(":
            rets = self.param_list()
        name = self.next()
        fn = Function(name, kind == ".entry", extern=extern)
        fn.rets = rets
        if self.peek() == "(":
            fn.params = self.param_list()
        while self.peek().startswith(".") and self.peek() not in SPACES:
            d = self.next()
            vals = []
            while self.peek()[:1].isdigit():
                vals.append(parse_int(self.next()))
                self.accept(",")
            fn.directives[d] = vals
        if self.accept(";"):
            fn.extern = True
            return fn
        self.expect("{")
        self.scopes = [{}]
        self.block(fn)
        self.scopes = []
        return fn

    def block(self, fn: Function) -> None:
        # Nested scopes flatten into the function, except that a register declared again in an
        # inner scope (inline asm blocks reuse names like 'r' or 'low', sometimes with another
        # type) gets a name of its own there, so each scope reads the register it declared.
        while True:
            t = self.peek()
            if t == "}":
                self.next()
                return
            if t == "{":
                self.next()
                self.scopes.append({})
                self.block(fn)
                self.scopes.pop()
            elif t == ".reg":
                self.regs(fn)
            elif t in SPACES:
                # Call sites in nested blocks each declare their own 'param0', 'retval0', ...
                # with the size and alignment of that call: the same rule as for registers.
                taken = {v.name for v in fn.locals}
                for var in self.variables():
                    var.name = self.declare(taken, var.name)
                    taken.add(var.name)
                    fn.locals.append(var)
            elif t in (".pragma",):
                self.skip_statement()
            elif self.peek(1) == ":" and self.peek(2) == ".callprototype":
                self.skip_statement()  # the shape of a call through a pointer: its callees say it too
            elif self.peek(1) == ":" and t[0] != "@":
                fn.body.append(Label(self.next()))
                self.next()
            else:
                fn.body.append(self.instruction())

    def regs(self, fn: Function) -> None:
        self.next()
        vec = 1
        typ = None
        while self.peek().startswith(".") and not self.peek().startswith("%"):
            t = self.next()
            if t in (".v2", ".v4"):
                vec = int(t[2:])
            else:
                typ = t[1:]
        while True:
            name = self.next()
            if self.accept("<"):
                n = parse_int(self.next())
                self.expect(">")
                for k in range(n):
                    fn.regs[self.declare(fn.regs, f"{name}{k}")] = (typ, vec)
            else:
                fn.regs[self.declare(fn.regs, name)] = (typ, vec)
            if not self.accept(","):
                break
        self.expect(";")

    def declare(self, taken, name: str) -> str:
        """The name something declared in the current scope is known by in the function (`taken`:
        the names the function already uses for that kind)."""
        unique = name
        if len(self.scopes) > 1 and name in taken:
            # Inline-asm scopes redeclare the same few names thousands of times in big kernels:
            # remember where the search for a free suffix stopped instead of starting at 1.
            k = self._suffix.get(name, 1)
            while f"{name}${k}" in taken:
                k += 1
            self._suffix[name] = k + 1
            unique = f"{name}${k}"
            self._renamed.add(name)
        if self.scopes:
            self.scopes[-1][name] = unique
        return unique

    def resolve(self, name: str) -> str:
        if name not in self._renamed:  # the common case: declared once, known by its own name
            return name
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return name

    def instruction(self) -> Instruction:
        line = self.line()
        guard = None
        if self.accept("@"):
            neg = self.accept("!")
            guard = (self.resolve(self.next()), neg)
        op = self.next()
        if not re.match(r"^[a-z]", op):
            raise SimError("CUDA_ERROR_INVALID_PTX", f"line {line}: expected an instruction, found {op!r}")
        ops = []
        if not self.accept(";"):
            while True:
                ops.append(self.operand())
                if self.accept(";"):
                    break
                if not self.accept(","):
                    raise SimError("CUDA_ERROR_INVALID_PTX",
                                   f"line {self.line()}: unexpected {self.peek()!r} in {op} operands")
        return Instruction(op, ops, guard, line)

    def operand(self) -> Operand:
        t = self.peek()
        if t == "[":
            self.next()
            return self.address()
        if t == "{":
            self.next()
            items = []
            while not self.accept("}"):
                items.append(self.operand())
                if not self.accept(",") and self.peek() != "}":
                    raise SimError("CUDA_ERROR_INVALID_PTX", f"line {self.line()}: bad vector operand")
            return Operand("vec", items)
        if t == "(":
            self.next()
            items = []
            while not self.accept(")"):
                items.append(self.operand())
                if not self.accept(",") and self.peek() != ")":
                    raise SimError("CUDA_ERROR_INVALID_PTX", f"line {self.line()}: bad operand list")
            return Operand("list", items)
        if t == "!":
            self.next()
            op = self.operand()
            op.neg = True
            return op
        if t == "-" or t[:1].isdigit():
            return self.immediate()
        name = self.resolve(self.next())
        if name == "_":
            return Operand("sink")
        if self.accept("|"):
            other = self.resolve(self.next())
            return Operand("vec", [Operand("reg", name), Operand("reg", other)], flt="pair")
        if name.startswith("%"):
            return Operand("reg", name)
        if name == "WARP_SZ":
            # PTX's one predefined constant (PTX ISA, "Predefined Identifiers"): the warp size,
            # an immediate wherever it appears (nvcc emits it for warpSize in some kernels).
            return Operand("imm", 32)
        # symbol, possibly with +offset
        return Operand("sym", name, offset=self.addend())

    def immediate(self) -> Operand:
        neg = self.accept("-")
        t = self.next()
        if t[:2] in ("0f", "0F"):
            bits = int(t[2:], 16)
            if neg:
                bits ^= 0x80000000
            return Operand("imm", bits, flt="f32")
        if t[:2] in ("0d", "0D"):
            bits = int(t[2:], 16)
            if neg:
                bits ^= 1 << 63
            return Operand("imm", bits, flt="f64")
        if re.match(r"^\d+\.|^\d+[eE]", t):
            v = float(t)
            return Operand("imm", -v if neg else v, flt="dec")
        v = parse_int(t)
        return Operand("imm", -v if neg else v)

    def address(self) -> Operand:
        base = None
        off = 0
        first = True
        while not self.accept("]"):
            t = self.next()
            if t == "," and base is not None:
                return self.resource_operands(base)
            if t in ("+", "-"):
                sign = -1 if t == "-" else 1
                t = self.next()
                if t == "-":
                    sign = -sign
                    t = self.next()
                off += sign * parse_int(t)
            elif first and t[:1].isdigit():
                off += parse_int(t)
            else:
                base = self.resolve(t)
            first = False
        return Operand("addr", base, offset=off)

    def resource_operands(self, handle: str) -> Operand:
        """The rest of '[tex, {x, y}]' / '[tex, sampler, {x, y}]' / '[surf, {x}]' of texture and
        surface instructions: a list of the handle, any sampler, and the coordinate vector."""
        items = [Operand("reg" if handle.startswith("%") else "sym", handle)]
        while True:
            items.append(self.operand())
            if self.accept("]"):
                return Operand("list", items, flt="resource")
            self.expect(",")


def _unglue(found: list[str]) -> list[str]:
    """'.reg.b32 f;' (inline asm in cuda_fp16.hpp) is '.reg .b32 f;' without the space."""
    out = []
    for s in found:
        if s.startswith(_GLUED_DIRECTIVES):
            out.extend("." + part for part in s[1:].split("."))
        else:
            out.append(s)
    return out


def _first_unknown(text: str) -> str:
    pos = 0
    for m in _TOKEN.finditer(text):
        gap = text[pos:m.start()].strip()
        if gap:
            return gap[:20]
        pos = m.end()
    return text[pos:pos + 20].strip()


def parse(text: str | bytes) -> Module:
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    p = _Parser(text)
    try:
        mod = p.module()
    except SimError:
        raise
    except (IndexError, ValueError, KeyError) as exc:
        raise SimError("CUDA_ERROR_INVALID_PTX", f"line {p.line()}: cannot parse PTX ({exc})") from exc
    if not mod.version and not mod.target:
        raise SimError("CUDA_ERROR_INVALID_PTX", "no .version/.target directive: not PTX")
    return mod
