"""The NVML face's generator (protocol/codegen/nvml.py): every function of nvml.h is placed by a record
of protocol/contract/nvml.toml or an [[unsupported]] rule, the checked-in files are what nvml.h and
the contract give, and a contract that does not fit the header or the hand-written code stops it."""
from __future__ import annotations

import subprocess

import pytest

from rgpu.protocol.codegen import __main__ as codegen
from rgpu.protocol.codegen import classify, nvml
from tests.support import nvml as nvml_wheel


def defines(client, name):
    return codegen.client_defines(type("R", (), {"client": client, "name": name}))


@pytest.fixture(scope="module")
def parsed():
    return nvml.parse(nvml_wheel.ensure_installed())


def test_checked_in_files_match_nvml_h_and_the_contract(parsed):
    files, functions = nvml.generate(defines)
    for path, text in files.items():
        assert path.read_text() == text, f"{path.name} drifted: run python -m rgpu.protocol.codegen"
    placed = {f.name: f.side for f in functions}
    assert set(placed) == {d.name for d in parsed.functions} and len(placed) > 350
    for name in ("nvmlInit_v2", "nvmlDeviceGetCount_v2", "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetName",
                 "nvmlDeviceGetUUID", "nvmlDeviceGetMemoryInfo", "nvmlDeviceGetComputeRunningProcesses_v3"):
        assert placed[name] == "client"
    assert placed["nvmlDeviceSetPowerManagementLimit"] == "unsupported"
    stubs = files[codegen.C_OUT / "rgpu_nvml_stubs.c"]
    assert "nvmlDeviceGetName" not in stubs and 'rgpu_nvml_unsupported("nvmlDeviceSetPowerManagementLimit"' in stubs


def test_the_generated_header_compiles_and_has_nvml_h_layouts(parsed, tmp_path):
    """The face's structs as NVIDIA's nvml.h lays them out (a program's pynvml reads them)."""
    probes = ["nvmlMemory_t", "nvmlMemory_v2_t", "nvmlProcessInfo_t", "nvmlProcessInfo_v1_t", "nvmlPciInfo_t",
              "nvmlUtilization_t"]
    body = "\n".join(f'    printf("{t} %zu\\n", sizeof({t}));' for t in probes)
    body += '\n    printf("v2 %u\\n", (unsigned)nvmlMemory_v2);'
    outs = []
    for include in (f"-I{codegen.C_OUT}", f"-I{nvml.find_header().parent}"):
        header = "rgpu_nvml.h" if include.endswith("generated") else "nvml.h"
        (tmp_path / "p.c").write_text(f"#include <stdio.h>\n#include <{header}>\nint main(void) {{\n{body}\n}}\n")
        subprocess.run(["gcc", "-Wall", "-Werror", include, "-o", str(tmp_path / "p"), str(tmp_path / "p.c")],
                       check=True)
        outs.append(subprocess.run([str(tmp_path / "p")], capture_output=True, text=True, check=True).stdout)
    assert outs[0] == outs[1] and "nvmlMemory_v2_t 40" in outs[0]


def test_a_function_no_record_or_rule_places_stops_the_generator(parsed):
    records, rules = nvml.load_contract()
    with pytest.raises(classify.ClassifyError, match="nvmlDeviceGetName"):
        nvml.place(parsed, {k: v for k, v in records.items() if k != "nvmlDeviceGetName"},
                   [r for r in rules if r["match"] != "nvml*"], defines)


def test_a_stale_record_or_one_whose_file_lacks_the_function_stops_it(parsed):
    records, rules = nvml.load_contract()
    stale = dict(records, nvmlDeviceGetFrobnication={"side": "client", "client": "nvml/nvml.c", "why": "x"})
    with pytest.raises(classify.ClassifyError, match="nvmlDeviceGetFrobnication"):
        nvml.place(parsed, stale, rules, defines)
    elsewhere = dict(records, nvmlDeviceGetName={"side": "client", "client": "driver/driver_local.c", "why": "x"})
    with pytest.raises(classify.ClassifyError, match="nvmlDeviceGetName: client driver/driver_local.c does not"):
        nvml.place(parsed, elsewhere, rules, defines)


def test_a_rule_cannot_place_a_function_that_does_not_return_nvml_return_t(parsed):
    records, rules = nvml.load_contract()
    del records["nvmlErrorString"]
    with pytest.raises(classify.ClassifyError, match="nvmlErrorString does not return nvmlReturn_t"):
        nvml.place(parsed, records, rules, defines)
