"""Big PTX modules, parsed a function at a time.

NVIDIA's libraries carry PTX modules of several megabytes (one of cuBLAS's has 272 kernels in
7 MB), of which a program launches a handful. Loading such a module parses only its skeleton: the
directives, the module variables and every function's header (name, parameters, performance
directives) — what cuModuleGetFunction, cuFuncGetParamInfo and the launch-buffer layout need. A
function's body is cut out of the text by brace matching and parsed the first time something asks
for it (a launch, an attribute that depends on the code, a call from another function being
inlined), the way the driver JITs lazily under CUDA_MODULE_LOADING=LAZY. Parsed bodies go through
an on-disk cache (cache.py) keyed by the module's digest, so the next session pays nothing.

A body that does not parse is reported when it is first needed, naming the function.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, MutableMapping

from ..errors import SimError
from . import cache
from .parser import _COMMENTS, Function, Module, _Parser, parse

# A function definition or declaration at module level: optional linkage, .entry/.func, for .func
# an optional return list, then the name.
_FUNC_HEAD = re.compile(r"(?:^|(?<=[;}\s]))(?:\.(?:visible|weak|extern|common)\s+)*\.(?:entry|func)\b"
                        r"\s*(?:\([^)]*\)\s*)?([\w$.]+)")
_BRACES = re.compile(r"[{}]")


class LazyFunctions(MutableMapping):
    """name -> Function of one module; a body is parsed (or read from the cache) on first access."""

    def __init__(self, module: "LazyModule"):
        self._module = module
        self._funcs: dict[str, Function] = {}
        self._bodies: dict[str, tuple[int, int, int]] = {}  # name -> (start, end, first line)

    def __getitem__(self, name: str) -> Function:
        fn = self._funcs[name]
        span = self._bodies.get(name)
        if span is not None:
            self._module.parse_body(fn, *span)  # a body that fails stays unparsed, and fails again
            del self._bodies[name]
        return fn

    def header(self, name: str) -> Function:
        """The function as far as its header tells (params, directives), without parsing the body."""
        return self._funcs[name]

    def pending(self, name: str) -> bool:
        return name in self._bodies

    def __setitem__(self, name: str, fn: Function) -> None:
        self._bodies.pop(name, None)
        self._funcs[name] = fn

    def __delitem__(self, name: str) -> None:
        self._bodies.pop(name, None)
        del self._funcs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._funcs)

    def __len__(self) -> int:
        return len(self._funcs)

    def __contains__(self, name) -> bool:
        return name in self._funcs


class LazyModule(Module):
    """A Module whose ``functions`` parse their bodies on first access."""

    def __init__(self, text: str, digest: str):
        super().__init__()
        self.text = text
        self.digest = digest
        self.functions = LazyFunctions(self)

    def parse_body(self, fn: Function, start: int, end: int, first_line: int) -> None:
        key = f"{self.digest}:{fn.name}"
        body = cache.load_function(key)
        if body is None:
            body = Function(fn.name, fn.entry)
            try:
                p = _Parser(self.text[start:end], first_line)
                p.scopes = [{}]
                p.expect("{")
                p.block(body)
            except SimError as exc:
                raise SimError(exc.code, f"function {fn.name}: {exc.message}") from None
            except (IndexError, ValueError, KeyError) as exc:
                raise SimError("CUDA_ERROR_INVALID_PTX",
                               f"function {fn.name}, line {p.line()}: cannot parse PTX ({exc})") from None
            cache.store_function(key, body)
        fn.regs, fn.locals, fn.body = body.regs, body.locals, body.body


def load(text: str | bytes) -> Module:
    """The module in ``text`` with function bodies parsed on demand (see the module docstring)."""
    if isinstance(text, (bytes, bytearray)):
        raw = bytes(text)
        text = raw.decode("utf-8", errors="replace")
    else:
        raw = text.encode()
    digest = hashlib.sha256(raw).hexdigest()
    # Comments may hold braces; blanking them keeps every offset and line number in place.
    clean = _COMMENTS.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
    spans = list(_bodies(clean))
    if not spans:
        return parse(clean)
    # The skeleton: every body replaced by ';' (and the newlines it held), which turns each
    # definition into a declaration the ordinary parser reads in one pass.
    pieces, pos, line, first_lines = [], 0, 1, []
    for _name, start, end in spans:
        pieces.append(clean[pos:start])
        line += clean.count("\n", pos, start)  # counted piecewise: once over the text in all
        inside = clean.count("\n", start, end)
        first_lines.append(line)
        pieces.append(";" + "\n" * inside)
        line += inside
        pos = end
    pieces.append(clean[pos:])
    skeleton = parse("".join(pieces))
    mod = LazyModule(clean, digest)
    mod.version, mod.target, mod.address_size = skeleton.version, skeleton.target, skeleton.address_size
    mod.variables = skeleton.variables
    for name, fn in skeleton.functions.items():
        mod.functions[name] = fn
    for (name, start, end), first in zip(spans, first_lines):
        fn = mod.functions.header(name)
        fn.extern = False
        mod.functions._bodies[name] = (start, end, first)
    return mod


def _bodies(text: str) -> Iterator[tuple[str, int, int]]:
    """(function name, start, end) of every function body ``{...}`` at module level."""
    pos = 0
    n = len(text)
    while True:
        m = _FUNC_HEAD.search(text, pos)
        if m is None:
            return
        name = m.group(1)
        # The header runs to the body's '{' or to the ';' of a declaration (parameter lists and
        # directives hold neither).
        brace, semi = text.find("{", m.end()), text.find(";", m.end())
        if brace < 0 or (0 <= semi < brace):
            pos = m.end() if semi < 0 else semi + 1
            continue
        depth = 0
        for b in _BRACES.finditer(text, brace):
            depth += 1 if b.group() == "{" else -1
            if depth == 0:
                yield name, brace, b.end()
                pos = b.end()
                break
        else:
            raise SimError("CUDA_ERROR_INVALID_PTX", f"the body of {name} has no closing brace")
        if pos >= n:
            return
