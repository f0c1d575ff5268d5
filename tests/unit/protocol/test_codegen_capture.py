"""Stream-capture rules of the records (capture = ...) and the CUDA 12 version node's overrides
([runtime_v12] of protocol/contract/cuda12.toml) as the generator turns them into C: a guard or hook at
the top of a forwarded stub, a trampoline that jumps to the function with CUDA 12's signature."""
from __future__ import annotations

import textwrap

import pytest

from rgpu.protocol.codegen import classify, emit_c, headers, records


def _parsed(tmp_path):
    (tmp_path / "cuda.h").write_text(textwrap.dedent("""
        #define CUDA_VERSION 13000
        typedef enum cudaError_enum { CUDA_SUCCESS = 0 } CUresult;
        typedef struct CUstream_st *CUstream;
        CUresult cuMemsetD8Async(unsigned long long dst, unsigned char v, unsigned long n, CUstream hStream);
        CUresult cuStreamQuery(CUstream hStream);
        CUresult cuMemsetD8(unsigned long long dst, unsigned char v, unsigned long n);
    """))
    (tmp_path / "cuda_runtime_api.h").write_text(textwrap.dedent("""
        typedef enum cudaError { cudaSuccess = 0 } cudaError_t;
        cudaError_t cudaDeviceSynchronize(void);
    """))
    return headers.parse(tmp_path)


def _calls(tmp_path, capture):
    recs = {}
    for name in ("cuMemsetD8Async", "cuStreamQuery", "cuMemsetD8", "cudaDeviceSynchronize"):
        body = {"side": "forward", "flags": ["async"] if name == "cuMemsetD8Async" else []}
        if name in capture:
            body["capture"] = capture[name]
        recs[name] = records.parse_record(name, "test", body)
    contract = records.Contract(recs, {"handles": {"CUstream_st": "stream"}}, {}, {})
    return {c.name: c for c in classify.Classifier(_parsed(tmp_path), contract, lambda n: 8).classify_all()}


def test_guards_and_hooks_open_the_stub(tmp_path):
    calls = _calls(tmp_path, {"cuMemsetD8Async": "hook", "cuStreamQuery": "guard:hStream",
                              "cuMemsetD8": "guard:legacy", "cudaDeviceSynchronize": "guard"})
    hook = emit_c.stub(calls["cuMemsetD8Async"])
    assert "if (rgpu_capture_cuMemsetD8Async(&crc, dst, v, n, hStream)) return crc;" in hook
    assert hook.index("rgpu_capture_") < hook.index("rgpu_begin")
    assert "rgpu_capture_guard(RGPU_DRIVER, hStream, 1)" in emit_c.stub(calls["cuStreamQuery"])
    assert "rgpu_capture_guard(RGPU_DRIVER, NULL, 1)" in emit_c.stub(calls["cuMemsetD8"])
    assert "rgpu_capture_guard(RGPU_RUNTIME, NULL, 0)" in emit_c.stub(calls["cudaDeviceSynchronize"])
    # the hook's prototype: the function's own parameters, with CUDA's types, after the result slot
    header = emit_c.calls_header(list(calls.values()), "stamp")
    assert "int rgpu_capture_cuMemsetD8Async(int *rc, unsigned long long dst, unsigned char v, unsigned long n, " \
           "CUstream hStream);" in header
    # and the stub has the header's own prototype, so the compiler checks it against CUDA's
    assert hook.splitlines()[1] == "CUresult cuMemsetD8Async(unsigned long long dst, unsigned char v, unsigned long n, " \
                                   "CUstream hStream)"


@pytest.mark.parametrize("bad", ["record", "guard:noSuchParam", "hook:x"])
def test_an_unknown_capture_annotation_stops_the_generator(tmp_path, bad):
    with pytest.raises(classify.ClassifyError, match="cuStreamQuery: capture"):
        _calls(tmp_path, {"cuStreamQuery": bad})


def test_cuda12_overrides_route_the_version_node():
    """[runtime_v12] names reach the libcudart.so.12 node the CUDA 12 face generates (codegen/cuda12.py):
    a 12.x form the headers declare, and an older binary's name they #define away."""
    import tomllib
    from pathlib import Path
    root = Path(__file__).resolve().parents[3]
    text = (root / "libhook" / "generated" / "rgpu_v12.c").read_text()
    overrides = tomllib.loads((root / "protocol" / "contract" / "cuda12.toml").read_text())["runtime_v12"]
    assert overrides["cudaGraphGetEdges"] == "rgpu_v12_cudaGraphGetEdges"
    for name in ("cudaGraphGetEdges", "cudaStreamGetCaptureInfo"):
        assert (f"jmp {overrides[name]}@PLT\\n.symver rgpu12_{name}, {name}@libcudart.so.12") in text
