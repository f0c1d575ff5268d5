"""The generator: every function of both headers has a record and is placed by it, ids are stable,
nothing drifts, and a record that does not fit its function stops the generator."""
from __future__ import annotations

import textwrap
import zlib

import pytest

from rgpu.protocol.codegen import __main__ as codegen
from rgpu.protocol.codegen import classify, emit_c, headers, records
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


def test_every_function_of_both_headers_has_a_record_and_is_placed(parsed, generated):
    _, calls = generated
    # and the entry points only records declare (`prototype`): rgpu's own calls, such as the graphs the
    # worker builds (graph_server.c), which no header has
    own = {n for n, r in records.load().records.items() if r.prototype}
    assert own and all(n.startswith("rgpu") for n in own), own
    assert {c.name for c in calls} == {f.name for f in parsed.functions} | own
    assert len(calls) > 700  # cuda.h + cuda_runtime_api.h of CUDA 13 declare ~750 functions
    by_face = {f: [c for c in calls if c.face == f] for f in ("runtime", "driver")}
    assert len(by_face["runtime"]) > 250 and len(by_face["driver"]) > 400
    assert all(c.side in records.SIDES and c.record.name == c.name for c in calls)


def test_scalar_and_handle_functions_are_forwarded_without_handwritten_code(generated):
    _, calls = generated
    by = {c.name: c for c in calls}
    assert by["cuStreamCreate"].cls == "forwarded"
    assert [(p.kind, p.hkind) for p in by["cuStreamCreate"].params] == [("oh", "stream"), ("u", "")]
    assert [p.kind for p in by["cudaGetDeviceProperties"].params] == ["ob", "d"]
    assert by["cudaEventRecord"].is_async and not by["cudaEventRecord"].outs
    assert by["cudaMemcpy"].cls == "handwritten" and by["cudaMemcpy"].record.bulk_in == "count"
    assert by["cudaGetLastError"].cls == "local" and by["cudaGraphCreate"].side == "client"


def test_handwritten_wire_calls_have_their_shape_in_the_record(generated):
    _, calls = generated
    by = {c.name: c for c in calls}
    # the host pointer never travels: its data is the bulk frames the record names
    assert [p.name for p in by["cuMemcpyHtoD_v2"].params] == ["dstDevice", "ByteCount"]
    assert by["cuMemcpyHtoD_v2"].record.shm and by["cuMemcpyHtoD_v2"].side == "bulk"
    assert [(p.name, p.kind) for p in by["cuModuleLoadData"].params] == [
        ("digest", "s"), ("size", "u"), ("companion", "s"), ("companion_size", "u"), ("sent", "u"), ("frames", "u"),
        ("module", "oh")]
    files, _ = generated
    encoders = files[codegen.C_OUT / "rgpu_calls.c"]
    assert "void rgpu_wire_cudaMemcpy(rgpu_call *c, uint64_t dst, uint64_t src, uint64_t count, int64_t kind)" in encoders
    assert "void rgpu_wire_out_cuMemAllocManaged(rgpu_call *c, uint64_t *dptr, uint64_t *mapped)" in encoders


def test_flags_come_from_records_not_names(generated):
    _, calls = generated
    by = {c.name: c for c in calls}
    ids = generated[0][codegen.C_OUT / "rgpu_ids.h"]
    assert "#define RGPU_FLAGS_cudaStreamSynchronize (RGPU_F_SYNC | RGPU_F_DEFERRED)" in ids
    assert "#define RGPU_FLAGS_cuLaunchKernel (RGPU_F_ASYNC | RGPU_F_DEVICE_WORK)" in ids
    # a synchronous copy reports earlier asynchronous errors: sync + device_work imply deferred
    assert "#define RGPU_FLAGS_cudaMemcpy (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED | RGPU_F_SHM)" in ids
    assert "#define RGPU_FLAGS_cuStreamQuery (RGPU_F_SYNC)" in ids  # a query does not
    assert "RGPU_F_NOT_SIM" in ids.split("#define RGPU_FLAGS_cuDeviceGetLuid ")[1].splitlines()[0]
    assert "deferred" in by["cuCtxSynchronize"].flags and "sync" not in by["cudaMemcpyAsync"].flags


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


def _contract(recs: dict) -> records.Contract:
    return records.Contract({n: records.parse_record(n, "test", body) for n, body in recs.items()},
                            {"handles": {"CUstream_st": "stream"}}, {}, {})


def _classify(p, recs):
    return classify.Classifier(p, _contract(recs), lambda n: 8).classify_all()


def test_a_function_without_a_record_is_an_error_naming_it(tmp_path):
    p = _tiny_headers(tmp_path, "CUresult cuMystery(CUstream s);\n")
    with pytest.raises(classify.ClassifyError, match=r"cuMystery: no record"):
        _classify(p, {})


def test_a_pointer_parameter_without_a_spec_is_an_error_naming_it(tmp_path):
    p = _tiny_headers(tmp_path, "CUresult cuMystery(void *what, CUstream s);\n")
    with pytest.raises(classify.ClassifyError, match="cuMystery: pointer parameter what .* is not placed"):
        _classify(p, {"cuMystery": {"side": "forward"}})


def test_a_spec_places_what_types_cannot(tmp_path):
    p = _tiny_headers(tmp_path, "CUresult cuMystery(void *what, CUstream s);\n")
    (c,) = _classify(p, {"cuMystery": {"side": "forward", "params": {"what": "devptr"}, "flags": ["async"]}})
    assert [(x.kind, x.hkind) for x in c.params] == [("u", ""), ("h", "stream")] and c.is_async


def test_stale_records_stop_the_generator(tmp_path):
    p = _tiny_headers(tmp_path, "CUresult cuMystery(int *out, CUstream s);\n")
    with pytest.raises(classify.ClassifyError, match=r"params \['gone'\] are not parameters"):
        _classify(p, {"cuMystery": {"side": "forward", "params": {"out": "out", "gone": "in"}}})
    with pytest.raises(classify.ClassifyError, match="cuVanished: recorded in test.toml but the CUDA 13000 headers"):
        _classify(p, {"cuMystery": {"side": "forward", "params": {"out": "out"}},
                      "cuVanished": {"side": "unsupported", "why": "gone"}})
    # a function newer than the headers is fine when its record says so
    _classify(p, {"cuMystery": {"side": "forward", "params": {"out": "out"}},
                  "cuFuture": {"side": "unsupported", "why": "later", "since": "13.1"}})
    with pytest.raises(classify.ClassifyError, match="spec string does not fit its type"):
        _classify(p, {"cuMystery": {"side": "forward", "params": {"out": "string"}}})


def test_a_record_names_a_file_that_defines_its_hand_written_code():
    bad = records.parse_record("cudaMemcpy", "memory", {"side": "client", "why": "x", "client": "memory/memcpy2d.c"})
    assert "does not define it" in codegen.client_defines(bad)
    good = records.parse_record("cudaMemcpy", "memory", {"side": "client", "why": "x", "client": "memory/memcpy.c"})
    assert codegen.client_defines(good) == ""


@pytest.mark.parametrize("body, message", [
    ({"side": "forwarded"}, "side 'forwarded' is not one of"),
    ({"side": "unsupported"}, "says why"),
    ({"side": "forward", "flags": ["fast"]}, "known flags are"),
    ({"side": "bulk"}, "names its data"),
    ({"side": "forward", "params": {"p": "sideways"}}, "parameter spec 'sideways'"),
    ({"side": "client", "why": "x", "client": "a.c", "sim": "no"}, "belong to forward and bulk records"),
])
def test_malformed_records_are_refused_with_the_reason(body, message):
    with pytest.raises(records.RecordError, match=message):
        records.parse_record("cuMystery", "test", body)


def test_report_adds_up(generated):
    _, calls = generated
    text = codegen.report(calls)
    rows = {line.split()[0]: list(map(int, line.split()[1:])) for line in text.splitlines()[1:4]}
    total = rows["total"]
    assert total[0] == len(calls)
    assert total == [a + b for a, b in zip(rows["runtime"], rows["driver"])]
    # every function is served on a backend, answered in the client, or not supported
    by = {c.name: c for c in calls}
    unplaced = [c.name for c in calls if not (codegen.served(c, "cuda", by) or codegen.served(c, "sim", by)
                                              or c.side in ("client", "unsupported"))]
    assert not unplaced
    assert total[1] >= total[2]  # the cuda backend serves everything the sim does


def test_a_record_declares_an_entry_point_the_headers_lack(tmp_path):
    """A legacy name (the headers #define it to a _vN, programs find it with dlsym) is one record with
    its prototype: placed like any other, declared for the compiler beside the headers' own."""
    p = _tiny_headers(tmp_path, "CUresult cuMemAlloc_v2(unsigned long long *dptr, unsigned long bytesize);\n")
    legacy = "CUresult cuMemAlloc(unsigned int *dptr, unsigned int bytesize)"
    recs = {"cuMemAlloc_v2": {"side": "forward", "params": {"dptr": "out"}},
            "cuMemAlloc": {"side": "forward", "prototype": legacy, "params": {"dptr": "out"}}}
    extra = headers.declare(p, codegen._all_types(p), {"cuMemAlloc": legacy})
    calls = {c.name: c for c in classify.Classifier(p, _contract(recs), lambda n: 8).classify_all(extra=extra)}
    assert [(x.kind, x.size) for x in calls["cuMemAlloc"].params] == [("ou", 4), ("u", 4)]
    text = emit_c.protos_header(list(calls.values()), "stamp", {"cuMemAlloc"})
    assert text.index("#ifndef RGPU_CUDA_REAL_HEADERS\nCUresult cuMemAlloc(unsigned int *dptr") > \
        text.index("CUresult cuMemAlloc_v2(")
    # without the record's prototype it is a record for a function nobody declares
    with pytest.raises(classify.ClassifyError, match="cuMemAlloc: recorded in test.toml but"):
        classify.Classifier(p, _contract({**recs, "cuMemAlloc": {"side": "forward"}}), lambda n: 8).classify_all()
    # and a prototype for a name the headers declare is stale
    recs["cuMemAlloc_v2"]["prototype"] = "CUresult cuMemAlloc_v2(void)"
    with pytest.raises(classify.ClassifyError, match="cuMemAlloc_v2: the headers declare it"):
        classify.Classifier(p, _contract(recs), lambda n: 8).classify_all(extra=extra)
