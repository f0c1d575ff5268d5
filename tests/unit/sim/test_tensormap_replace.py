"""tensormap.replace and tensormap.cp_fenceproxy on the software GPU (server/backends/sim/ptx/ops_tensormap.py):
a kernel copies a map into shared memory, replaces its fields with the PTX ISA's values (the rank less one,
PTX's own element-type numbers, strides counted from dimension 1), publishes it to global memory, and the
map read back is the one those values describe, every other field untouched. A map's 128 bytes must lie in their state space, and a field is replaced in a map held
in a one-int shared array (numba's test_device_arch_specific), which a GPU's shared-memory unit holds."""
from __future__ import annotations

import struct

import numpy as np
import pytest

from rgpu.server.backends.sim import tensormaps
from rgpu.server.backends.sim.errors import SimError, SimFault
from rgpu.server.backends.sim.kernels import KernelModule

PTX = b"""
.version 8.3
.target sm_90a
.address_size 64

.visible .entry replace_all(.param .u64 src, .param .u64 dst, .param .u64 newaddr)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<12>;
    .reg .pred %p<2>;
    .shared .align 128 .b8 tm[128];
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [dst];
    ld.param.u64 %rd3, [newaddr];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 8;
    add.s64 %rd5, %rd1, %rd4;
    ld.global.u64 %rd6, [%rd5];
    mov.u32 %r2, tm;
    cvt.u64.u32 %rd7, %r2;
    add.s64 %rd8, %rd7, %rd4;
    st.shared.u64 [%rd8], %rd6;
    bar.sync 0;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    tensormap.replace.tile.global_address.shared::cta.b1024.b64 [tm], %rd3;
    tensormap.replace.tile.rank.shared::cta.b1024.b32 [tm], 2;
    tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [tm], 0, 24;
    tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [tm], 1, 5;
    tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [tm], 2, 3;
    tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [tm], 0, 256;
    tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [tm], 1, 1280;
    tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [tm], 0, 4;
    tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [tm], 1, 2;
    tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [tm], 2, 1;
    tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [tm], 0, 1;
    tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [tm], 1, 1;
    tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [tm], 2, 1;
    tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [tm], 9;
    tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [tm], 2;
    tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [tm], 1;
DONE:
    bar.sync 0;
    tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd2], [tm], 128;
    ret;
}

.visible .entry in_global(.param .u64 map, .param .u32 dim)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [map];
    ld.param.u32 %r1, [dim];
    tensormap.replace.tile.global_dim.global.b1024.b32 [%rd1], 1, %r1;
    ret;
}

.visible .entry in_one_int(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    .shared .align 4 .b8 sm[4];
    mov.u32 %r1, sm;
    tensormap.replace.tile.rank.shared::cta.b1024.b32 [%r1], 2;
    mov.u32 %r2, 2;
    st.shared.u32 [sm], %r2;
    bar.sync 0;
    ld.shared.u32 %r2, [sm];
    ld.param.u64 %rd1, [out];
    st.global.u32 [%rd1], %r2;
    ret;
}

.visible .entry past_the_unit(.param .u32 off)
{
    .reg .b32 %r<3>;
    .shared .align 4 .b8 sm[4];
    ld.param.u32 %r1, [off];
    mov.u32 %r2, sm;
    add.s32 %r2, %r2, %r1;
    tensormap.replace.tile.rank.shared::cta.b1024.b32 [%r2], 0;
    ret;
}
"""

F32, F64 = 7, 8  # CUtensorMapDataType


def encode(addr, dims, strides, box, dtype=F32):
    rank = len(dims)
    return tensormaps.encode_tiled(dtype, rank, addr, struct.pack(f"<{rank}Q", *dims),
                                   struct.pack(f"<{rank - 1}Q", *strides), struct.pack(f"<{rank}I", *box),
                                   struct.pack(f"<{rank}I", *[1] * rank), 0, 0, 0, 0)


@pytest.fixture
def dev(make_device):
    return make_device(KernelModule.load(PTX))


def test_a_map_rewritten_in_shared_memory_and_published_is_the_one_its_fields_say(dev):
    old = dev.zeros(64, np.float32)
    src = dev.put(np.frombuffer(encode(old, (40, 10), (192,), (8, 8)), np.uint8))
    dst = dev.zeros(128, np.uint8)
    new = dev.zeros(24 * 5 * 3, np.float64)
    dev.launch("replace_all", 1, 16, src, dst, new)
    m = tensormaps.decode(dev.get(dst, 128, np.uint8).tobytes())
    assert (m.rank, m.address, m.dims, m.strides, m.box, m.element_strides) == \
        (3, new, (24, 5, 3), (256, 1280), (4, 2, 1), (1, 1, 1))
    assert (m.dtype, m.swizzle, m.oob, m.interleave, m.l2) == (F64, 2, 1, 0, 0)  # PTX's .f64 is 9, CU's 8


def test_a_field_of_a_map_in_global_memory_changes_alone(dev):
    before = encode(0x1000, (40, 10), (192,), (8, 8))
    at = dev.put(np.frombuffer(before, np.uint8))
    dev.launch("in_global", 1, 1, at, 77)
    after = dev.get(at, 128, np.uint8).tobytes()
    assert tensormaps.decode(after).dims == (40, 77)
    changed = [i for i in range(128) if before[i] != after[i]]
    off = tensormaps.FIELDS["global_dim"][0] + 4
    assert changed and all(off <= i < off + 4 for i in changed)


def test_a_field_is_replaced_in_a_map_held_in_a_one_int_shared_array(dev):
    out = dev.zeros(1, np.int32)
    dev.launch("in_one_int", 1, 1, out)
    assert dev.get(out, 1, np.int32)[0] == 2


def test_the_whole_map_must_lie_in_the_blocks_shared_memory(dev):
    dev.launch("past_the_unit", 1, 1, 0)  # the 128-byte unit a 4-byte array takes holds the map
    with pytest.raises(SimFault) as info:
        dev.launch("past_the_unit", 1, 1, 16)
    assert info.value.code == "CUDA_ERROR_ILLEGAL_ADDRESS"


def test_no_map_at_all_is_invalid_not_an_internal_error():
    """cuTensorMapReplaceAddress with a null map arrives as nil (the fuzz suite found it a TypeError)."""
    with pytest.raises(SimError, match="CUDA_ERROR_INVALID_VALUE"):
        tensormaps.replace_address(None, 0)
