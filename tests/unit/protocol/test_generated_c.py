"""The generated C headers against NVIDIA's own: every prototype in rgpu_cuda.h is compatible with the
declaration cuda.h / cuda_runtime_api.h make (so a hand-written hook that compiles against rgpu_cuda.h
has CUDA's signature), and every struct the prototypes name has the size and alignment the real
headers give it (the generator reads the headers with their alignment attributes defined away)."""
from __future__ import annotations

import re
import subprocess

import cffi
import pytest

from rgpu.protocol.codegen import __main__ as codegen
from rgpu.protocol.codegen import headers
from tests.support import cudabuild

GENERATED = codegen.C_OUT


@pytest.fixture(scope="module")
def include_dir():
    cudabuild.ensure_nvcc()
    return headers.find_include_dir()


def _gcc(args, cwd):
    return subprocess.run(["gcc", *args], cwd=cwd, capture_output=True, text=True)


def test_every_generated_prototype_matches_the_real_headers(include_dir, tmp_path):
    (tmp_path / "check.c").write_text("#include <cuda.h>\n#include <cuda_runtime_api.h>\n"
                                      "#define RGPU_CUDA_REAL_HEADERS\n#include \"rgpu_cuda.h\"\n")
    p = _gcc(["-fsyntax-only", "-Werror", f"-I{include_dir}", f"-I{GENERATED}", "check.c"], tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    # and the check has teeth: a prototype that differs from CUDA's is an error
    (tmp_path / "bad.c").write_text("#include <cuda.h>\nint cuMemAlloc_v2(void **p, int n);\n")
    assert _gcc(["-fsyntax-only", f"-I{include_dir}", "bad.c"], tmp_path).returncode != 0


def test_struct_layouts_of_the_generated_types_are_the_headers(include_dir, tmp_path):
    protos = (GENERATED / "rgpu_cuda.h").read_text()
    names = sorted(set(re.findall(r"\b((?:struct )?(?:CU|cuda)\w+)\b", protos)))
    ffi = cffi.FFI()
    ffi.cdef(codegen._all_types(headers.parse()))
    structs = []
    for n in names:
        try:
            if ffi.typeof(n).kind == "struct":
                structs.append(n)
        except (cffi.FFIError, cffi.CDefError, TypeError):
            pass  # a function, an enum or an opaque handle
    assert len(structs) > 40
    body = "\n".join(f'    printf("{n} %zu %zu\\n", sizeof({n}), _Alignof({n}));' for n in structs)
    prog = "#include <stdio.h>\nINCLUDES\nint main(void) {\n" + body + "\n    return 0;\n}\n"
    (tmp_path / "real.c").write_text(prog.replace("INCLUDES", "#include <cuda.h>\n#include <cuda_runtime_api.h>"))
    (tmp_path / "ours.c").write_text(prog.replace("INCLUDES", '#include "rgpu_cuda_types.h"'))
    out = {}
    for which, inc in (("real", include_dir), ("ours", GENERATED)):
        p = _gcc([f"-I{inc}", "-o", which, f"{which}.c"], tmp_path)
        assert p.returncode == 0, p.stderr[-3000:]
        out[which] = subprocess.run([str(tmp_path / which)], capture_output=True, text=True, check=True).stdout
    assert out["ours"] == out["real"]
