"""The software GPU's tensor maps and bulk copies (server/backends/sim/tensormaps.py, ptx/ops_bulk.py),
through the kernels of tests/cuda/kernels/tma.cu: boxes loaded through a map land in shared memory as
the PTX ISA lays them out (the 32/64/128-byte swizzles, element strides, zeros or NaN outside the
tensor), stores write only what lies inside it, plain bulk copies move their bytes, and an mbarrier's
phases, arrival counts and transaction bytes behave as the ISA says. Each kernel runs from its PTX
alone and from a fatbin whose sm_90 cubin places the map at offset 112 of the parameter buffer (where
the ABI puts a 128-byte aligned parameter), not at the PTX's 0. The maps' encoding is checked against
the Driver API's documented requirements. And cuda::barrier with cuda::memcpy_async, as libcu++ writes
them for sm_80 and sm_90 (tests/cuda/kernels/barrier.cu)."""
from __future__ import annotations

import struct

import numpy as np
import pytest

from rgpu.server.backends.sim import tensormaps
from rgpu.server.backends.sim.errors import SimError
from rgpu.server.backends.sim.kernels import KernelModule
from tests.support.cudabuild import build

from .conftest import KERNELS

F32, NAN_FILL = 7, 1
W, H, ROW = 40, 10, 48  # a 2-d float tensor of W x H, rows ROW floats apart (192 bytes: a multiple of 16)


@pytest.fixture(scope="module", params=["ptx", "fatbin"])
def tma(request):
    kind = request.param
    return KernelModule.load(build(KERNELS / "tma.cu", kind, arch_flags=["-arch=sm_90"]).read_bytes())


def encode(addr, dims, strides, box, es=None, swizzle=0, oob=0, dtype=F32):
    rank = len(dims)
    return tensormaps.encode_tiled(dtype, rank, addr, struct.pack(f"<{rank}Q", *dims),
                                   struct.pack(f"<{rank - 1}Q", *strides), struct.pack(f"<{rank}I", *box),
                                   struct.pack(f"<{rank}I", *(es or [1] * rank)), 0, swizzle, 0, oob)


def tensor2d(d):
    t = np.zeros((H, ROW), np.float32)
    t[:, :W] = np.arange(H)[:, None] * 1000 + np.arange(W)[None, :]
    return d.put(t), t


def test_the_map_at_the_cubins_offset_is_the_one_the_program_reads(tma):
    fn = tma.functions["box2d"]
    assert fn.params[0].size == 128
    assert fn.params[0].offset in (0, 112)  # PTX alone: 0; the sm_90 cubin's layout: 112


@pytest.mark.parametrize("swizzle, bw", [(0, 8), (1, 8), (2, 16), (3, 32)], ids=["none", "32B", "64B", "128B"])
@pytest.mark.parametrize("x, y", [(4, 2), (W - 5, H - 3), (-3, -1)], ids=["inside", "past the end", "before 0"])
def test_a_box_lands_in_shared_memory_swizzled_as_the_map_says(tma, make_device, swizzle, bw, x, y):
    d = make_device(tma)
    addr, t = tensor2d(d)
    bh = 8
    tmap = encode(addr, (W, H), (ROW * 4,), (bw, bh), swizzle=swizzle)
    nbytes = bw * bh * 4
    out = d.zeros(nbytes, np.uint8)
    d.launch("box2d", 1, 64, tmap, x, y, nbytes, out)
    want = bytearray(nbytes)
    span = {0: 0, 1: 32, 2: 64, 3: 128}[swizzle]
    for j in range(bh):
        for i in range(bw):
            r, c = y + j, x + i
            v = t[r, c] if 0 <= r < H and 0 <= c < W else 0.0
            o = (j * bw + i) * 4
            if span:
                o ^= ((o >> 7) & (span // 16 - 1)) << 4
            want[o:o + 4] = struct.pack("<f", v)
    assert d.get(out, nbytes, np.uint8).tobytes() == bytes(want)


def test_element_strides_nan_fill_and_a_barriers_second_phase(tma, make_device):
    d = make_device(tma)
    dims = (16, 6, 5)
    t = (np.arange(5)[:, None, None] * 10000 + np.arange(6)[None, :, None] * 100
         + np.arange(16)[None, None, :]).astype(np.float32)
    addr = d.put(t)
    tmap = encode(addr, dims, (16 * 4, 16 * 6 * 4), (8, 4, 1), es=(1, 2, 1), oob=NAN_FILL)
    nbytes = 8 * 2 * 1 * 4  # element stride 2 on dimension 1: ceil(4 / 2) rows of the box
    out = d.zeros(2 * nbytes, np.uint8)
    x, y, z = 6, 3, 3
    d.launch("box3d", 1, 32, tmap, x, y, z, nbytes, out)
    got = d.get(out, 2 * nbytes // 4, np.float32).reshape(2, 2, 8)
    for phase in range(2):
        for k in range(2):
            for i in range(8):
                c, r, p = x + i, y + 2 * k, z + phase
                inside = c < 16 and r < 6 and p < 5
                if inside:
                    assert got[phase, k, i] == t[p, r, c]
                else:
                    assert np.isnan(got[phase, k, i]), (phase, k, i)


def test_a_store_writes_what_lies_inside_the_tensor_only(tma, make_device):
    d = make_device(tma)
    addr = d.put(np.full((H, ROW), -1.0, np.float32))
    bw, bh, x, y = 8, 4, W - 3, H - 2
    src = np.arange(bw * bh, dtype=np.float32) + 0.5
    d.launch("store2d", 1, 64, encode(addr, (W, H), (ROW * 4,), (bw, bh)), x, y, src.nbytes, d.put(src))
    got = d.get(addr, H * ROW, np.float32).reshape(H, ROW)
    want = np.full((H, ROW), -1.0, np.float32)
    for j in range(bh):
        for i in range(bw):
            if y + j < H and x + i < W:
                want[y + j, x + i] = src[j * bw + i]
    assert (got == want).all()


def test_a_plain_bulk_copy_moves_its_bytes(tma, make_device):
    d = make_device(tma)
    data = np.arange(256, dtype=np.uint8)[::-1].copy()
    out = d.zeros(256, np.uint8)
    d.launch("bulk", 1, 32, d.put(data), 256, out)
    assert (d.get(out, 256, np.uint8) == data).all()


def test_an_mbarriers_phases_arrivals_and_transaction_bytes(tma, make_device):
    d = make_device(tma)
    out = d.zeros(8, np.uint64)
    d.launch("phases", 1, 32, out)
    assert list(d.get(out, 8, np.uint64)) == [0, 2, 0, 1, 0, 1, 0, 1]


@pytest.mark.parametrize("change, why", [
    (dict(addr=0x7F0000000008), "16-byte aligned"),
    (dict(strides=(100,)), "multiples of 16"),
    (dict(box=(8, 300)), "1 to 256"),
    (dict(box=(3, 4)), "multiple of 16 bytes"),
    (dict(box=(16, 4), swizzle=1), "swizzle's span"),
    (dict(es=(1, 9)), "1 to 8"),
    (dict(dtype=3, oob=NAN_FILL), "floating-point"),
    (dict(dims=(0, 10)), "1 to 2^32"),
], ids=["address", "stride", "box size", "inner bytes", "swizzle span", "element stride", "NaN of ints", "dim"])
def test_the_encoding_refuses_what_the_driver_refuses(change, why):
    args = dict(addr=0x7F0000000000, dims=(W, H), strides=(ROW * 4,), box=(8, 4)) | change
    with pytest.raises(SimError) as e:
        encode(**args)
    assert e.value.code == "CUDA_ERROR_INVALID_VALUE" and why in e.value.message


def test_layouts_the_sim_does_not_copy_are_refused_and_foreign_bytes_are_no_map():
    base = (7, 2, 0x7F0000000000, struct.pack("<2Q", W, H), struct.pack("<Q", ROW * 4), struct.pack("<2I", 8, 4),
            struct.pack("<2I", 1, 1))
    with pytest.raises(SimError) as e:
        tensormaps.encode_tiled(*base, 1, 0, 0, 0)  # 16-byte interleave
    assert e.value.code == "CUDA_ERROR_NOT_SUPPORTED"
    with pytest.raises(SimError) as e:
        tensormaps.encode_tiled(13, *base[1:], 0, 0, 0, 0)  # 16 x U4 packed
    assert e.value.code == "CUDA_ERROR_NOT_SUPPORTED"
    with pytest.raises(SimError) as e:
        tensormaps.decode(bytes(128))
    assert e.value.code == "CUDA_ERROR_INVALID_VALUE"
    m = tensormaps.decode(tensormaps.replace_address(encode(0x7F0000000000, (W, H), (ROW * 4,), (8, 4)),
                                                     0x7F0000100000))
    assert (m.address, m.dims, m.strides, m.box) == (0x7F0000100000, (W, H), (ROW * 4,), (8, 4))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_libcuxx_barriers_and_memcpy_async_stage_a_pipeline(make_device, arch):
    mod = KernelModule.load(build(KERNELS / "barrier.cu", "ptx", arch_flags=[f"-arch={arch}"]).read_bytes())
    d = make_device(mod)
    chunks = 5
    data = (np.arange(chunks * 256, dtype=np.float32) % 97) * 0.5
    out = d.zeros(256, np.float32)
    d.launch("staged_sum", 1, 256, d.put(data), out, chunks)
    assert np.allclose(d.get(out, 256, np.float32), data.reshape(chunks, 256).sum(axis=0))
