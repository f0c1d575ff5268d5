"""The CUDA 12 face of the generator: 12.x layouts match what a C compiler makes of the 12.x headers,
and every 12.x difference from 13.0 must be placed in protocol/contract/cuda12.toml."""
from __future__ import annotations

import copy
import re
import subprocess

import pytest

from rgpu.protocol.codegen import __main__ as codegen
from rgpu.protocol.codegen import classify, cuda12 as face, headers, records
from tests.support import cuda12, cudabuild

GENERATED = codegen.C_OUT / "rgpu_cuda12.h"


@pytest.fixture(scope="module")
def both():
    cudabuild.ensure_nvcc()
    cuda12.ensure_installed()
    p13 = headers.parse()
    _, calls = codegen.generate(p13)
    return codegen.parse12(), p13, calls


def _plan(both, ann):
    p12, p13, calls = both
    return face.plan(p12, p13, calls, ann, codegen._all_types)


def test_generated_12x_layouts_match_the_compiler(tmp_path):
    text = GENERATED.read_text()
    sizes = dict(re.findall(r"#define RGPU12_SIZEOF_(\w+) (\d+)", text))
    offsets = re.findall(r"#define RGPU12_OFFSETOF_(\w+?)_(\w+) (\d+)", text)
    assert set(sizes) == {"cudaDeviceProp", "cudaPointerAttributes"}
    assert {s for s, _, _ in offsets} == set(sizes) and len(offsets) > 90
    lines = ["#include <stdio.h>", "#include <stddef.h>", "#include <cuda_runtime_api.h>", "int main(void) {"]
    lines += [f'    printf("{s} %zu\\n", sizeof(struct {s}));' for s in sizes]
    lines += [f'    printf("{s}.{f} %zu\\n", offsetof(struct {s}, {f}));' for s, f, _ in offsets]
    lines += ["    return 0;", "}"]
    (tmp_path / "layout.c").write_text("\n".join(lines))
    subprocess.run(["gcc", *cuda12.include_flags(), "-o", str(tmp_path / "layout"), str(tmp_path / "layout.c")],
                   check=True)
    got = dict(line.split() for line in subprocess.run([str(tmp_path / "layout")], capture_output=True,
                                                          text=True, check=True).stdout.splitlines())
    assert {s: got[s] for s in sizes} == sizes
    assert {f"{s}.{f}": got[f"{s}.{f}"] for s, f, _ in offsets} == {f"{s}.{f}": o for s, f, o in offsets}
    # the 12.x struct really differs from 13.0's, or there would be nothing to convert
    assert int(sizes["cudaDeviceProp"]) != int(re.search(r"'struct cudaDeviceProp': (\d+)",
                                                         (codegen.PY_OUT / "structs.py").read_text()).group(1))


def test_the_12_node_maps_12_names_as_annotated(both):
    plan = _plan(both, records.load().cuda12)
    assert plan.runtime["cudaGetDeviceProperties_v2"] == "rgpu12impl_cudaGetDeviceProperties_v2"
    assert plan.runtime["cudaThreadSynchronize"] == "cudaDeviceSynchronize"
    assert plan.runtime["cudaMalloc"] == "cudaMalloc"
    assert plan.runtime["cudaMemAdvise"] == "rgpu12impl_cudaMemAdvise"  # the 12.x form: unsupported stub
    assert "cudaMallocFromPoolAsync" in plan.runtime
    assert plan.procs["cuCtxCreate"] == "cuCtxCreate_v2"  # cuGetProcAddress at a 12.x version
    assert plan.driver_same["cuDeviceGetUuid"] == "cuDeviceGetUuid_v2"
    layout = next(lay for lay in plan.layouts if lay.name == "struct cudaDeviceProp")
    assert {f for f, *_ in layout.fills} >= {"clockRate", "memoryClockRate", "computeMode"}


@pytest.mark.parametrize("section, name, message", [
    ("same_as", "cudaThreadSynchronize", "cudaThreadSynchronize: CUDA 12 declares it and 13.0 does not"),
    ("unsupported", "cudaMemAdvise", "cudaMemAdvise: 12.x and 13.0 prototypes differ"),
    ("handwritten", "cudaPointerGetAttributes", "whose layout changed"),
])
def test_an_unplaced_difference_stops_the_generator(both, section, name, message):
    ann = copy.deepcopy(records.load().cuda12)
    if section == "handwritten":
        ann[section]["names"].remove(name)
    else:
        del ann[section][name]
    with pytest.raises(classify.ClassifyError, match=re.escape(message)):
        _plan(both, ann)


def test_same_as_must_name_a_function_with_the_same_prototype(both):
    ann = copy.deepcopy(records.load().cuda12)
    ann["same_as"]["cudaThreadSynchronize"] = "cudaDeviceGetLimit"
    with pytest.raises(classify.ClassifyError, match="cudaThreadSynchronize = cudaDeviceGetLimit"):
        _plan(both, ann)


def test_a_dropped_field_without_an_attribute_stops_the_generator(both):
    ann = copy.deepcopy(records.load().cuda12)
    del ann["fill"]["cudaDeviceProp"]["clockRate"]
    with pytest.raises(classify.ClassifyError, match="cudaDeviceProp.clockRate"):
        _plan(both, ann)


def test_report_counts_the_cuda12_face(both):
    plan = _plan(both, records.load().cuda12)
    text = face.summary(plan)
    assert f"{len(plan.runtime):4d}  runtime names" in text
    assert "cudaDeviceProp, cudaPointerAttributes" in text
