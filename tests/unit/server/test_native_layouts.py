"""The structs that the worker's Python and its compiled code share (the serving loop's state, the
scheduler's and the quota's views of the shared arrays, a launch's result, a copy's) are declared twice:
in C (server/native, server/backends/cuda/native) and in the cffi declarations Python reads them
through (server/ring.py, server/backends/cuda/compiled.py). cffi takes its declarations on trust: a
field added, moved or resized on one side only shifts every field after it, and the two sides then
read each other's memory wrong without any error. Here every such struct's size, and each field's
offset and size as cffi lays them out, is checked by the C compiler against the real definition
(static assertions, compiled with the build's own include paths)."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
C_DIRS = (ROOT / "server" / "native", ROOT / "server" / "backends" / "cuda" / "native")
INCLUDES = (ROOT / "libhook" / "src" / "transport", ROOT / "libhook" / "generated", *C_DIRS)


def _shared_structs() -> dict[str, list[tuple[str, object, object]]]:
    """{struct name: [(module, ffi, type)]} for every complete struct typedef of the worker's cffi
    declarations."""
    from server import ring
    from server.backends.cuda import compiled
    out: dict[str, list] = {}
    for module in (ring, compiled):
        typedefs, _, _ = module.ffi.list_types()
        for name in typedefs:
            t = module.ffi.typeof(name)
            if t.kind == "struct" and t.fields is not None:
                out.setdefault(name, []).append((module.__name__, module.ffi, t))
    return out


def _defined_in(name: str) -> Path | None:
    """The C file whose `typedef struct ... } name;` defines it."""
    pattern = re.compile(r"typedef\s+struct\b[^;{]*\{.*?\}\s*" + re.escape(name) + r"\s*;", re.S)
    for d in C_DIRS:
        for path in sorted(d.glob("*.h")) + sorted(d.glob("*.c")):
            if pattern.search(path.read_text()):
                return path
    return None


def _asserts(name: str, module: str, ffi, t) -> list[str]:
    where = f"{module} declares {name}"
    lines = [f'_Static_assert(sizeof({name}) == {ffi.sizeof(t)}, "{where} of {ffi.sizeof(t)} bytes");']
    for field, f in t.fields:
        lines.append(f'_Static_assert(offsetof({name}, {field}) == {f.offset}, '
                     f'"{where}: {field} at byte {f.offset}");')
        lines.append(f'_Static_assert(sizeof((({name} *)0)->{field}) == {ffi.sizeof(f.type)}, '
                     f'"{where}: {field} of {ffi.sizeof(f.type)} bytes");')
    return lines


def _assert_compiles(tmp_path: Path, path: Path, lines: list[str]) -> None:
    """`lines` (static assertions) after `path` as the library compiles it, one translation unit a file,
    accepted by gcc; else the assertions that failed."""
    unit = tmp_path / f"check_{path.stem}.c"
    unit.write_text("#include <stddef.h>\n" f'#include "{path}"\n' + "\n".join(lines) + "\n")
    p = subprocess.run(["gcc", "-fsyntax-only", "-std=gnu11", *(f"-I{d}" for d in INCLUDES), str(unit)],
                       capture_output=True, text=True)
    assert p.returncode == 0, f"{path.relative_to(ROOT)} and Python's declarations disagree:\n" + \
        "\n".join(line for line in p.stderr.splitlines() if "error" in line)


def test_the_worker_declares_shared_structs_at_all():
    """The check below has something to check: the serving loop's state and the structs it points to."""
    assert {"rgpu_serve_state", "rgpu_sched", "rgpu_quota", "rgpu_launch_run", "rgpu_copy_done"} <= set(_shared_structs())


def test_every_struct_python_declares_is_laid_out_as_its_c_definition(tmp_path):
    by_file: dict[Path, list[str]] = {}
    for name, decls in _shared_structs().items():
        path = _defined_in(name)
        assert path is not None, f"{name} is declared to cffi ({decls[0][0]}) but defined in no C file of {C_DIRS}"
        for module, ffi, t in decls:
            by_file.setdefault(path, []).extend(_asserts(name, module, ffi, t))
    for path, lines in by_file.items():
        _assert_compiles(tmp_path, path, lines)


_SERVE = ("IDLE", "RING", "SOCKET", "YIELD", "ANSWERED", "STEP", "NOTIFY", "COPIED", "HANDED")
_OPS = ("H2D", "D2H", "RUNTIME_COPY", "MEMSET", "ALLOC", "FREE", "D2D", "EVENT", "EVENT_FLAGS", "PLACE")
# (Python module, its name, the C file, the C name) of each number both sides must agree on
CONSTANTS = (
    *(("server.ring", n, "server/native/serve.h", f"RGPU_SERVE_{n}") for n in _SERVE),
    *(("server.backends.cuda.copies", f"OP_{n}", "server/backends/cuda/native/copies.c", f"OP_{n}") for n in _OPS),
    ("server.backends.cuda.copies", "PLACED", "server/backends/cuda/native/copies.c", "PLACED"),
    ("server.head_delta", "BLOCK", "libhook/src/transport/log_delta.h", "RGPU_DELTA_BLOCK"),
)


def test_the_numbers_python_mirrors_are_the_compiled_codes(tmp_path):
    """The serving loop's results (server/ring.py), the copier's operations (cuda/copies.py) and the head
    deltas' block (head_delta.py) are the C code's numbers."""
    import importlib
    by_file: dict[str, list[str]] = {}
    for module, name, path, c_name in CONSTANTS:
        value = getattr(importlib.import_module(module), name)
        by_file.setdefault(path, []).append(f'_Static_assert({c_name} == {value}, "{module}.{name} is {value}");')
    for path, lines in by_file.items():
        _assert_compiles(tmp_path, ROOT / path, lines)
