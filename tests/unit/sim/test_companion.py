"""Which PTX the software GPU loads for a module of SASS alone (server/backends/sim/companion.py):
the one container of a library that defines every kernel, or an -rdc program's units between them,
the device runtime's functions left to the software GPU; a kernel without PTX refuses the module."""
from __future__ import annotations

import re
import struct

import pytest

from rgpu.server.backends.sim import fatbin
from rgpu.server.backends.sim.companion import CompanionIndex
from rgpu.server.backends.sim.errors import SimError

CC = (13, 0)


def container(arch: int, *defs: str) -> bytes:
    """A fatbin container of one PTX entry for compute_`arch` defining `defs` ("entry k" or "func f")."""
    body = "".join(f".visible .{kind} {name}()\n{{\n    ret;\n}}\n" for kind, name in (d.split() for d in defs))
    ptx = f".version 9.0\n.target sm_{arch}\n.address_size 64\n{body}".encode() + b"\0"
    ptx += b"\0" * (-len(ptx) % 8)
    entry = struct.pack("<HHIQIIHHIIIQQQ", fatbin.KIND_PTX, 0x0101, 64, len(ptx), 0, 0, 0, 0, arch, 0, 0, 0, 0,
                        len(ptx))
    return struct.pack("<IHHQ", fatbin.CONTAINER_MAGIC, 1, 16, len(entry) + len(ptx)) + entry + ptx


def names(image: bytes) -> set[str]:
    img = fatbin.parse_image(image)
    return {n.decode() for e in img.ptx for n in re.findall(rb"\.(?:entry|func) ([A-Za-z_]\w*)\(", e.data)}


UNIT_A = container(80, "entry parent", "func helper")
UNIT_B = container(80, "entry child")
RUNTIME = container(121, "func __cudaCDP2LaunchDeviceV2", "entry runtime_memcpy")
LIBRARY = container(120, "entry gemm", "entry gemv")


def test_a_librarys_module_loads_the_one_container_defining_all_its_kernels():
    idx = CompanionIndex(UNIT_A + LIBRARY + UNIT_B)
    assert idx.container_for({"gemm", "gemv"}, CC) == LIBRARY


def test_an_rdc_programs_units_are_linked_and_the_runtimes_functions_left_out():
    idx = CompanionIndex(UNIT_A + LIBRARY + UNIT_B + RUNTIME)
    wanted = {"parent", "helper", "child", "__cudaCDP2LaunchDeviceV2", "runtime_memcpy"}
    assert idx.container_for(wanted, (9, 0)) == UNIT_A + UNIT_B  # the runtime's PTX is for sm_121
    assert names(idx.container_for(wanted, CC)) == wanted  # on a newer device its unit comes too


def test_a_kernel_no_container_has_ptx_of_refuses_the_module():
    idx = CompanionIndex(UNIT_A + UNIT_B + RUNTIME)
    with pytest.raises(SimError, match="no PTX for sm_130 of sass_only"):
        idx.container_for({"parent", "child", "sass_only"}, CC)
    with pytest.raises(SimError, match="sm_90 of gemm"):  # PTX only for a newer part than the device
        CompanionIndex(LIBRARY + UNIT_A).container_for({"gemm", "parent"}, (9, 0))
