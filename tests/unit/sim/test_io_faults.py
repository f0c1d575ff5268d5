"""printf, assert, traps and faults (tests/cuda/kernels/simio.cu) on the software GPU."""
from __future__ import annotations

import numpy as np
import pytest

from rgpu.server.backends.sim.errors import SimError, SimFault
from rgpu.server.backends.sim.kernels import KernelModule


@pytest.fixture(scope="module", params=["ptx", "fatbin-size", "debug-G"])
def io_module(request, build_image):
    return KernelModule.load(build_image("simio.cu", request.param))


@pytest.fixture
def iodev(io_module, make_device):
    return make_device(io_module)


def test_printf_formats(iodev):
    label = iodev.put(np.frombuffer(b"x\0", np.uint8))
    iodev.launch("say", 2, 3, 1000, 0.5, label)
    lines = iodev.out
    assert len(lines) == 2 * 3 + 2
    # Lines come out in execution order: first call of every thread, then thread 0's second call.
    first = [ln for ln in lines if ln.startswith("block")]
    expect = [f"block {b} thread {t}: base=1000 d={0.5 * t:.3f} hex={1000 + t:x} ll={1000 << 32} "
              f"c={chr(65 + t)} s=lit\n" for b in range(2) for t in range(3)]
    assert sorted(first) == sorted(expect)
    second = [ln for ln in lines if not ln.startswith("block")]
    assert second == [" 3.14|7   |4000000000|1.234568e+04|0.0001|%\n"] * 2


def test_assert_prints_and_faults(iodev):
    v = iodev.put(np.array([1, 2, -3, 4, -5, 6], np.int32))
    with pytest.raises(SimFault) as info:
        iodev.launch("check", 1, 6, v)
    assert info.value.code == "CUDA_ERROR_ASSERT" and info.value.sticky
    assert len(iodev.out) == 2
    for line, tid in zip(iodev.out, (2, 4)):
        assert line.endswith(f"block: [0,0,0], thread: [{tid},0,0] Assertion `v[i] >= 0` failed.\n")
        assert "simio.cu:" in line and "check" in line


def test_assert_not_triggered(iodev):
    v = iodev.put(np.arange(8, dtype=np.int32))
    iodev.launch("check", 1, 8, v)
    assert iodev.out == []


def test_out_of_bounds_store_is_illegal_address(iodev):
    p = iodev.zeros(64, np.int32)
    iodev.launch("oob", 1, 64, p, 0)  # in bounds
    np.testing.assert_array_equal(iodev.get(p, 64, np.int32), np.arange(64))
    with pytest.raises(SimFault) as info:
        iodev.launch("oob", 1, 64, p, 1000)
    assert info.value.code == "CUDA_ERROR_ILLEGAL_ADDRESS"


def test_trap(iodev):
    iodev.launch("trapper", 1, 32, 2)
    with pytest.raises(SimFault) as info:
        iodev.launch("trapper", 1, 32, 3)
    assert info.value.code == "CUDA_ERROR_LAUNCH_FAILED"


def test_launch_configuration_errors(iodev):
    p = iodev.zeros(64, np.int32)
    for grid, block in (((1, 1, 1), (1025, 1, 1)), ((1, 1, 1), (32, 32, 2)), ((1, 1, 1), (1, 1, 65)),
                        ((0, 1, 1), (32, 1, 1)), ((1, 65536, 1), (32, 1, 1))):
        with pytest.raises(SimError) as info:
            iodev.launch("oob", grid, block, p, 0)
        assert info.value.code == "CUDA_ERROR_INVALID_VALUE" and not info.value.sticky


def test_shared_memory_limits(dev):
    f = dev.mod.functions["dyn_shared"]
    x = dev.zeros(64, np.float32)
    with pytest.raises(SimError) as info:
        dev.launch("dyn_shared", 1, 64, x, x, 64, shared=48 * 1024 + 4)
    assert info.value.code == "CUDA_ERROR_INVALID_VALUE"
    optin = dev.mod.arch.shared_optin - f.static_shared_bytes  # the device's opt-in ceiling
    f.set_max_dynamic_shared(optin)  # cudaFuncSetAttribute opt-in
    try:
        dev.launch("dyn_shared", 1, 64, x, x, 64, shared=optin)
        with pytest.raises(SimError):
            f.set_max_dynamic_shared(optin + 1)
    finally:
        f.set_max_dynamic_shared(48 * 1024 - f.static_shared_bytes)
    assert dev.mod.functions["matmul"].static_shared_bytes == 2 * 16 * 16 * 4


def test_shared_out_of_bounds_faults(make_device):
    ptx = b"""
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u32 k_param_0)
{
    .reg .b32 %r<4>;
    .shared .align 4 .b8 buf[64];
    ld.param.u32 %r1, [k_param_0];
    mov.u32 %r2, buf;
    add.s32 %r3, %r2, %r1;
    st.shared.u32 [%r3], %r1;
    ret;
}
"""
    d = make_device(KernelModule.load(ptx))
    d.launch("k", 1, 32, 60)
    # past the 64 bytes declared but inside the 128-byte unit the block's shared memory is allocated
    # in (lanes.SHARED_GRANULE): no fault, as on a GPU; past the unit, one
    d.launch("k", 1, 32, 124)
    with pytest.raises(SimFault) as info:
        d.launch("k", 1, 32, 128)
    assert info.value.code == "CUDA_ERROR_ILLEGAL_ADDRESS"
    with pytest.raises(SimFault) as info:
        d.launch("k", 1, 32, 2)
    assert info.value.code == "CUDA_ERROR_MISALIGNED_ADDRESS"
