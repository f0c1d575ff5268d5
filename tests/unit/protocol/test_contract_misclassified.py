"""The misclassifications the old rules made (direction guessed from `const`, typedef'd struct pointers
taken for opaque handles), each placed against the real CUDA 13 headers: the generator now refuses to
guess, and the records say what each parameter is. Each test fails on the old behaviour."""
from __future__ import annotations

import cffi
import pytest

from rgpu.protocol.codegen import __main__ as codegen
from rgpu.protocol.codegen import classify, emit_c, headers, records
from rgpu.protocol.codegen.ctypes_model import Resolver
from tests.support import cudabuild


@pytest.fixture(scope="module")
def real():
    cudabuild.ensure_nvcc()
    parsed = headers.parse()
    ffi = cffi.FFI()
    ffi.cdef(codegen._all_types(parsed))

    def sizeof(name):
        return ffi.sizeof(name if name in parsed.typedefs or name.startswith("struct ") else "struct " + name)
    contract = records.load()
    return parsed, contract, sizeof


def _place(real, name: str, body: dict | None = None) -> classify.Call:
    """`name` placed by `body` (a record) or by its checked-in record."""
    parsed, contract, sizeof = real
    fn = next(f for f in parsed.functions if f.name == name)
    record = records.parse_record(name, "test", body) if body is not None else contract.records[name]
    return classify.Classifier(parsed, contract, sizeof).classify(fn, record)


def test_batch_prefetch_arrays_are_arrays_not_one_out_value(real):
    # no guess: without a spec for the arrays, a forward record of the call is refused
    with pytest.raises(classify.ClassifyError, match="pointer parameter dptrs .* is not placed"):
        _place(real, "cuMemDiscardAndPrefetchBatchAsync", {"side": "forward"})
    # the record's specs: four input arrays with their lengths
    specs = records.load().records["cuMemDiscardAndPrefetchBatchAsync"].params
    assert {k: (v.dir, v.length) for k, v in specs.items()} == {
        "dptrs": ("in", "count"), "sizes": ("in", "count"), "prefetchLocs": ("in", "numPrefetchLocs"),
        "prefetchLocIdxs": ("in", "numPrefetchLocs")}
    # placed as a wire call, they travel as arrays of their element, sized by their length parameter
    call = _place(real, "cuMemDiscardAndPrefetchBatchAsync",
                  {"side": "forward", "params": {k: f"{v.dir}[{v.length}]" for k, v in specs.items()}})
    kinds = {p.name: (p.kind, p.size, p.length) for p in call.params}
    assert kinds["dptrs"] == ("a", 8, "count") and kinds["sizes"] == ("a", 8, "count")
    assert kinds["prefetchLocs"] == ("a", 8, "numPrefetchLocs") and kinds["prefetchLocIdxs"][0] == "a"
    assert not call.outs
    stub = emit_c.stub(call)
    assert "rgpu_put_b(&c, dptrs, (size_t)(count) * sizeof *dptrs);" in stub and "rgpu_out_" not in stub


def test_module_function_enumeration_returns_an_array_of_handles(real):
    with pytest.raises(classify.ClassifyError, match="pointer parameter functions .* is not placed"):
        _place(real, "cuModuleEnumerateFunctions", {"side": "forward"})
    call = _place(real, "cuModuleEnumerateFunctions")
    (functions,) = call.outs
    assert (functions.kind, functions.length, functions.hkind) == ("oah", "numFunctions", "function")
    assert "rgpu_out_ha(&c, (void **)functions, (size_t)(numFunctions));" in emit_c.stub(call)


def test_typedefd_struct_pointers_are_data_not_handles(real):
    parsed, contract, _ = real
    r = Resolver(parsed)
    for name in ("cuMemGetAccess", "cuMemCreate", "cuTexObjectGetResourceDesc"):
        fn = next(f for f in parsed.functions if f.name == name)
        types = {p.name: r.resolve(p.type) for p in fn.params}
        pointed = [t for t in types.values() if t.kind == "ptr" and t.target.kind == "struct"]
        assert pointed, f"{name}: its struct pointer resolved as {types}"
    # CUmemLocation (no pointers inside) travels as its bytes, as an input
    (flags, location, ptr) = _place(real, "cuMemGetAccess").params
    assert (location.kind, location.struct, location.size) == ("b", "CUmemLocation", 8) and flags.kind == "ou"
    # CUmemAllocationProp holds a pointer: refused as plain bytes unless the record says :raw
    with pytest.raises(classify.ClassifyError, match="struct CUmemAllocationProp holds pointers or handles"):
        _place(real, "cuMemGetAllocationGranularity", {"side": "forward", "params": {"prop": "in", "granularity": "out"}})
    assert _place(real, "cuMemGetAllocationGranularity").params[1].kind == "b"


def test_a_resource_descriptor_never_sends_a_host_address(real):
    # CUDA_RESOURCE_DESC names CUDA arrays (handles) inside a union: it cannot travel as bytes, and a
    # pointer to it is never a handle whose value (the caller's host address) would be sent
    with pytest.raises(classify.ClassifyError, match="pointer parameter pResDesc .* is not placed"):
        _place(real, "cuTexObjectGetResourceDesc", {"side": "forward"})
    with pytest.raises(classify.ClassifyError, match="CUDA_RESOURCE_DESC holds pointers or handles"):
        _place(real, "cuTexObjectGetResourceDesc", {"side": "forward", "params": {"pResDesc": "out"}})
    # the record: hand-written client code puts the session's array handle in and tags it on the way out,
    # so the descriptor travels as its bytes (:raw) and never with a host address in it
    call = _place(real, "cuTexObjectGetResourceDesc")
    assert call.client == "texture/texobj.c" and [(p.name, p.kind) for p in call.params][0] == ("pResDesc", "ob")
    assert contract_spec(real, "cuTexObjectGetResourceDesc", "pResDesc").raw
    assert contract_spec(real, "cuTexObjectCreate", "pResDesc").raw


def contract_spec(real, name, param):
    return real[1].records[name].params[param]


def test_no_wire_call_sends_a_pointer_as_a_handle(real):
    """Every handle on the wire is an opaque CUDA handle with a session kind, or an integer typedef
    types.toml declares a handle (CUmemGenericAllocationHandle), never a data pointer or a plain integer."""
    parsed, contract, sizeof = real
    # rgpu's own calls too (their records' prototypes), as the generator places them
    extra = headers.declare(parsed, codegen._all_types(parsed),
                            {n: r.prototype for n, r in contract.records.items() if r.prototype})
    calls = classify.Classifier(parsed, contract, sizeof).classify_all(extra=extra)
    assert "rgpuMemcpyToSymbol" in {c.name for c in calls}
    handle_tags = {t for t, kind in contract.types["handles"].items() if kind}
    integer_handles = set(contract.types["integer_handles"])
    for c in calls:
        for p in c.params:
            if p.kind in ("h", "oh", "ah", "oah") and p.ctype is not None:
                t = p.ctype.target if p.ctype.kind == "ptr" else p.ctype
                assert (t.kind == "handle" and t.name in handle_tags) or \
                    (t.kind == "int" and t.name in integer_handles), (c.name, p.name, t)
