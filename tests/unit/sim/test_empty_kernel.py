"""A kernel whose body is only returns is done at its launch without being interpreted, yet its
launch is checked exactly as any other's: a bad configuration or too few parameter bytes fail."""
from __future__ import annotations

import pytest

from rgpu.server.backends.sim import kernels
from rgpu.server.backends.sim.errors import SimError
from rgpu.server.backends.sim.kernels import KernelModule

PTX = b""".version 8.0
.target sm_80
.address_size 64
.visible .entry empty(.param .u64 p, .param .u32 n) { ret; }
.visible .entry empty_uni() { ret.uni; }
.visible .entry guarded(.param .u64 p)
{
    .reg .pred %p<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    setp.eq.u64 %p1, %rd1, 0;
    @%p1 ret;
    ret;
}
"""


@pytest.fixture
def dev(make_device):
    return make_device(KernelModule.load(PTX))


def _launch(dev, name, grid=(1, 1, 1), block=(32, 1, 1), params=b"", shared=0):
    return kernels.launch(dev.mod, dev.mod.functions[name], dev.mem, grid, block, shared, params, dev.out)


@pytest.mark.parametrize("name, params", [("empty", bytes(12)), ("empty_uni", b"")])
def test_an_empty_kernel_is_not_interpreted(dev, name, params):
    st = _launch(dev, name, grid=(1000, 1, 1), block=(256, 1, 1), params=params)
    assert st.thread_instructions == 0 and st.batches == 0 and st.blocks == 1000


def test_a_kernel_with_work_is_interpreted(dev):
    st = _launch(dev, "guarded", params=bytes(8))
    assert st.thread_instructions > 0 and st.batches == 1


@pytest.mark.parametrize("grid, block, params, shared, why", [
    ((0, 1, 1), (32, 1, 1), bytes(12), 0, "grid"),
    ((1 << 31, 1, 1), (32, 1, 1), bytes(12), 0, "grid"),
    ((1, 1, 1), (64, 32, 1), bytes(12), 0, "threads per block"),
    ((1, 1, 1), (0, 1, 1), bytes(12), 0, "block"),
    ((1, 1, 1), (32, 1, 1), bytes(8), 0, "bytes of parameters"),
    ((1, 1, 1), (32, 1, 1), bytes(12), 1 << 20, "dynamic shared memory"),
])
def test_an_empty_kernel_launch_is_still_checked(dev, grid, block, params, shared, why):
    with pytest.raises(SimError, match=why) as info:
        _launch(dev, "empty", grid, block, params, shared)
    assert info.value.code == "CUDA_ERROR_INVALID_VALUE"
