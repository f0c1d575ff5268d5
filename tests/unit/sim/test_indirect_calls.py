"""Calls through function pointers on the software GPU (ptx/program.py emit_indirect): virtual
functions and tables of device functions reach the function the pointer holds, whatever each lane's
pointer is; a pointer that holds no function traps."""
from __future__ import annotations

import numpy as np
import pytest

from rgpu.server.backends.sim.errors import SimFault
from rgpu.server.backends.sim.kernels import KernelModule


@pytest.fixture(scope="module", params=["ptx", "rdc"])
def indirect_module(request, build_image):
    return KernelModule.load(build_image("simindirect.cu", request.param))


@pytest.fixture
def dev(indirect_module, make_device):
    return make_device(indirect_module)


def test_virtual_functions_of_each_lanes_object(dev):
    area, sides = dev.zeros(32, np.float32), dev.zeros(32, np.int32)
    dev.launch("shapes", 1, 32, area, sides)
    i = np.arange(32, dtype=np.float32)
    np.testing.assert_array_equal(dev.get(area, 32, np.float32), np.where(i % 2 == 1, 3 * i * i, i * i))
    # Circle keeps Shape's sides(): the base class's entry of its vtable
    assert dev.get(sides, 32, np.int32).tolist() == [4 if k % 2 == 0 else 0 for k in range(32)]


def test_a_table_of_device_functions(dev):
    which = dev.put((np.arange(32) * 7 % 3).astype(np.int32))
    out = dev.zeros(32, np.float32)
    dev.launch("table", 1, 32, which, out)
    i = np.arange(32, dtype=np.float32)
    k = np.arange(32) * 7 % 3
    np.testing.assert_array_equal(dev.get(out, 32, np.float32), np.choose(k, [i + 2, i * 2, i - 2]))


def test_a_pointer_to_no_function_traps(dev):
    bits, out = dev.put(np.array([0x1234], np.uint64)), dev.zeros(1, np.float32)
    with pytest.raises(SimFault, match="INVALID_PC.*0x1234"):
        dev.launch("wild", 1, 1, bits, out)
