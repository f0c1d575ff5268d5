"""The generator: every function of both headers is classified, ids are stable, nothing drifts."""
from __future__ import annotations

import textwrap
import zlib

import pytest

from rgpu.protocol.codegen import __main__ as codegen
from rgpu.protocol.codegen import classify, headers
from rgpu.protocol.generated import calltable
from tests.support import cuda12, cudabuild


@pytest.fixture(scope="module")
def parsed():
    cudabuild.ensure_nvcc()  # on a machine without a toolkit this installs the wheels, headers included
    return headers.parse()


@pytest.fixture(scope="module")
def generated(parsed):
    cuda12.ensure_installed()  # the CUDA 12 face is generated from the 12.x headers beside these
    return codegen.generate(parsed, codegen.parse12())


def test_every_function_of_both_headers_is_classified(parsed, generated):
    _, calls = generated
    assert {c.name for c in calls} == {f.name for f in parsed.functions}
    assert len(calls) > 700  # cuda.h + cuda_runtime_api.h of CUDA 12/13 declare ~750 functions
    by_face = {f: [c for c in calls if c.face == f] for f in ("runtime", "driver")}
    assert len(by_face["runtime"]) > 250 and len(by_face["driver"]) > 400
    assert all(c.cls in ("forwarded", "handwritten", "local", "unsupported") for c in calls)


def test_scalar_and_handle_functions_are_forwarded_without_handwritten_code(generated):
    _, calls = generated
    by = {c.name: c for c in calls}
    assert by["cuStreamCreate"].cls == "forwarded"
    assert [p.kind for p in by["cuStreamCreate"].params] == ["oh", "u"]
    assert [p.kind for p in by["cudaGetDeviceProperties"].params] == ["ob", "d"]
    assert by["cudaEventRecord"].is_async and not by["cudaEventRecord"].outs
    assert by["cudaMemcpy"].cls == "handwritten" and by["cudaGetLastError"].cls == "local"


def test_call_ids_are_a_hash_of_the_name_and_unique(generated):
    _, calls = generated
    ids = [c.call_id for c in calls]
    assert len(set(ids)) == len(ids)
    for c in calls:
        assert c.call_id == zlib.crc32(c.name.encode()) & 0x7FFFFFFF
    assert calltable.BY_NAME["cudaMalloc"] == classify.call_id("cudaMalloc")


def test_checked_in_files_match_the_headers(generated):
    files, _ = generated
    drift = [str(p) for p, text in files.items() if p.read_text() != text]
    assert not drift, f"regenerate with `python -m rgpu.protocol.codegen`: {drift}"
    assert all("do not edit" in text.splitlines()[0] for text in files.values())


def test_check_mode_reports_drift(parsed, generated, monkeypatch, tmp_path):
    files, _ = generated
    victim = next(iter(files))
    monkeypatch.setattr(codegen, "generate", lambda p, p12=None: ({tmp_path / victim.name: "stale"} | {
        k: v for k, v in files.items() if k != victim}, generated[1]))
    (tmp_path / victim.name).write_text("something else")
    assert codegen.main(["--check"]) == 1


def _tiny_headers(tmp_path, decls: str):
    (tmp_path / "cuda.h").write_text(textwrap.dedent("""
        #define CUDA_VERSION 13000
        typedef enum cudaError_enum { CUDA_SUCCESS = 0, CUDA_ERROR_INVALID_VALUE = 1 } CUresult;
        typedef struct CUstream_st *CUstream;
    """) + decls)
    (tmp_path / "cuda_runtime_api.h").write_text("typedef enum cudaError { cudaSuccess = 0 } cudaError_t;\n")
    return headers.parse(tmp_path)


def test_a_function_it_cannot_classify_is_an_error_naming_it(tmp_path):
    p = _tiny_headers(tmp_path, "CUresult cuMystery(void *what, CUstream s);\n")
    with pytest.raises(classify.ClassifyError, match="cuMystery: parameter what"):
        classify.Classifier(p, {}, lambda n: 8).classify_all()


def test_annotations_place_what_types_cannot(tmp_path):
    p = _tiny_headers(tmp_path, "CUresult cuMystery(void *what, CUstream s);\n")
    calls = classify.Classifier(p, {"param": {"cuMystery.what": "u"}, "async": {"cu*": True}},
                                lambda n: 8).classify_all()
    (c,) = calls
    assert [x.kind for x in c.params] == ["u", "h"] and c.is_async


def test_report_adds_up(generated):
    _, calls = generated
    text = codegen.report(calls)
    total = next(line for line in text.splitlines() if line.startswith("total")).split()
    assert int(total[1]) == len(calls) == sum(map(int, total[2:6]))
