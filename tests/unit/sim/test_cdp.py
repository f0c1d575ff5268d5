"""Dynamic parallelism on the software GPU (ptx/ops_cdp.py, cdp.py): the grids a kernel launches run
after it, in launch order, tail launches last; parameter buffers come back; the device runtime's
refusals are each thread's last error; a child's fault is its parent's launch's."""
from __future__ import annotations

import numpy as np
import pytest

from rgpu.server.backends.sim import cdp
from rgpu.server.backends.sim.errors import SimFault
from rgpu.server.backends.sim.kernels import KernelModule


@pytest.fixture(scope="module")
def cdp_module(build_image):
    return KernelModule.load(build_image("simcdp.cu", "rdc"))


@pytest.fixture
def dev(cdp_module, make_device):
    return make_device(cdp_module)


def test_children_run_after_the_parent_in_launch_order_and_tail_launches_last(dev):
    log, n, flag = dev.zeros(8, np.int32), dev.zeros(1, np.int32), dev.zeros(1, np.int32)
    used = dev.mem.used
    dev.launch("parent", 1, 4, log, n, flag)
    assert dev.get(n, 1, np.int32)[0] == 5
    # every child saw its parent finished; the tail launch, asked for first, ran last
    assert dev.get(log, 5, np.int32).tolist() == [1, 11, 21, 31, 1001]
    assert dev.mem.used == used  # the parameter buffers were given back


def test_nesting_stops_at_the_depth_limit(dev):
    errs = dev.put(np.full(32, -1, np.int32))
    dev.launch("deep", 1, 1, errs, 0)
    got = dev.get(errs, 32, np.int32)
    last = cdp.MAX_DEPTH - 1  # the grid whose launch would be one level too deep
    assert got[:last].tolist() == [0] * last
    assert got[last] == cdp.MAX_DEPTH_EXCEEDED
    assert (got[last + 1:] == -1).all()  # nothing ran past it


def test_refusals_are_the_threads_last_error(dev):
    buf, errs = dev.put(np.full(1, 7, np.uint64)), dev.put(np.full(2, -1, np.int32))
    dev.launch("refused", 1, 1, buf, errs)
    assert dev.get(buf, 1, np.uint64)[0] == 0  # NULL for a function that is no kernel
    assert dev.get(errs, 2, np.int32).tolist() == [cdp.INVALID_DEVICE_FUNCTION, cdp.INVALID_VALUE]


def test_a_childs_fault_is_its_parents(dev):
    with pytest.raises(SimFault, match="ILLEGAL_ADDRESS"):
        dev.launch("faulting_parent", 1, 1)


def test_device_code_allocates_copies_sets_and_asks_attributes(dev):
    out, errs = dev.put(np.full(24, 0x55555555, np.int32)), dev.put(np.full(9, -1, np.int32))
    attr, keep = dev.zeros(1, np.int32), dev.zeros(1, np.uint64)
    dev.launch("memory_ops", 1, 1, out, errs, attr, keep)
    got = dev.get(out, 24, np.int32)
    assert got[:16].tolist() == list(range(100, 116))  # the heap block, copied after the grid wrote it
    # the memset of 7s sets zeros, as CUDA 13's device runtime does; the bytes past it are untouched
    assert got[16:20].tolist() == [cdp.DEVICE_MEMSET_BYTE] * 4 and got[20:].tolist() == [0x55555555] * 4
    assert dev.get(errs, 9, np.int32).tolist() == [0, 0, 0, cdp.INVALID_VALUE, 0, 0, 0, 0, cdp.INVALID_VALUE]
    assert dev.get(attr, 1, np.int32)[0] == dev.mod.arch.sms
    block = int(dev.get(keep, 1, np.uint64)[0])
    assert dev.mem.device_heap.blocks == {block: 64}
    release_errs = dev.put(np.full(2, -1, np.int32))
    dev.launch("release", 1, 1, block, release_errs)
    assert dev.get(release_errs, 2, np.int32).tolist() == [0, cdp.INVALID_VALUE]
    assert dev.mem.device_heap.used == 0
