"""Checkpoints of a software-GPU session, in one process: capture everything a program built up
(memory, module variables, device-malloc blocks, streams, events, limits, managed memory), write it
to disk, read it back, restore it into a fresh session at the same addresses and handles, and carry
on computing there exactly as the original does. And the files a restore must refuse."""
from __future__ import annotations

import hashlib
import struct

import numpy as np
import pytest

from rgpu.protocol.generated import enums
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.server import module_cache
from rgpu.server.backends.sim.device import SimDevice
from rgpu.server.checkpoint import image as ckimage
from rgpu.server.checkpoint import session as cksession
from rgpu.server.checkpoint.image import CheckpointError, Image
from rgpu.server.checkpoint.memory import CHUNK
from rgpu.server.dispatch import Dispatcher
from rgpu.server.pieces import run_piece_in, take_piece_error
from rgpu.server.session import Session
from tests.unit.sim.conftest import image as kernel_image

MiB = 1 << 20


@pytest.fixture(scope="module")
def dispatcher():
    return Dispatcher()


@pytest.fixture(autouse=True)
def private_module_cache(tmp_path):
    module_cache.configure_modules(str(tmp_path / "modules"), 64 * MiB)


def call(d, s, name, *args, bulk=()):
    r = d.run(s, BY_NAME[name], list(args), list(bulk))
    assert r.rc == 0, (name, r.rc, r.message)
    return r


def load(d, s, source):
    img = kernel_image(source, "fatbin-none")
    digest = hashlib.sha256(img).hexdigest()
    return call(d, s, "cuModuleLoadData", digest, len(img), "", 0, 1, len(img), bulk=[img]).outs[0]


def launch(d, s, fn, grid, block, stream, *params):
    call(d, s, "cuLaunchKernel", fn, grid, 1, 1, block, 1, 1, 0, stream, b"".join(params))


def read(d, s, addr, n):
    r = call(d, s, "cudaMemcpy", 0, addr, n, 2)
    return b"".join(bytes(b) for b in r.bulk)


def u64(v):
    return struct.pack("<Q", v)


def i32(v):
    return struct.pack("<i", v)


@pytest.fixture
def program(dispatcher):
    """A session with a bit of everything, as a program leaves it mid-run."""
    d = dispatcher
    s = Session(SimDevice(64 * MiB, window=7), "a")
    x = np.arange(1024, dtype=np.float32)
    xa = call(d, s, "cudaMalloc", x.nbytes).outs[0]
    ya = call(d, s, "cudaMalloc", x.nbytes).outs[0]
    big = call(d, s, "cudaMalloc", 32 * MiB).outs[0]  # one page of it written: the image skips the rest
    call(d, s, "cudaMemcpy", xa, 0, x.nbytes, 1, bulk=[x.tobytes()])
    call(d, s, "cudaMemcpy", big + 5 * MiB, 0, 4, 1, bulk=[b"\x01\x02\x03\x04"])
    core, heap = load(d, s, "simcore.cu"), load(d, s, "simheap.cu")
    globals_fn = call(d, s, "cuModuleGetFunction", core, "globals").outs[0]
    keep = call(d, s, "cuModuleGetFunction", heap, "keep").outs[0]
    use = call(d, s, "cuModuleGetFunction", heap, "use_and_free").outs[0]
    stream = call(d, s, "cudaStreamCreateWithPriority", 1, -3).outs[0]
    e0, e1 = call(d, s, "cudaEventCreate").outs[0], call(d, s, "cudaEventCreateWithFlags", 2).outs[0]
    call(d, s, "cudaEventRecord", e0, stream)
    call(d, s, "cudaDeviceSetLimit", enums.cudaLimit["cudaLimitMallocHeapSize"], 4 * MiB)
    launch(d, s, globals_fn, 4, 256, stream, u64(xa), u64(ya), i32(1024))
    launch(d, s, keep, 1, 1, 0, i32(100))
    managed, mapped = call(d, s, "cudaMallocManaged", 1000, 1).outs
    call(d, s, "cudaMemcpy", managed, 0, 3, 1, bulk=[b"abc"])
    names = dict(x=xa, y=ya, big=big, core=core, globals=globals_fn, use=use, stream=stream, e0=e0, e1=e1,
                 managed=managed)
    yield s, names
    s.close()


def restored(image: Image) -> Session:
    s = Session(SimDevice(64 * MiB, window=image.meta["window"]), "b")
    cksession.restore(s, image, "sim")
    return s


def test_a_restored_session_has_the_same_memory_objects_and_handles_and_computes_on(dispatcher, program, tmp_path):
    d = dispatcher
    a, n = program
    img = cksession.capture(a, "sim")
    # never-written memory is not in the image: 32 MiB allocated, one chunk of it written
    assert img.memory_bytes < 32 * MiB // 8, img.memory_bytes
    path = tmp_path / "session.ckpt"
    img.save(path)
    assert (path.stat().st_mode & 0o777) == 0o600
    b = restored(Image.load(path))
    try:
        assert b.device.memory.layout() == a.device.memory.layout()
        for addr, size, _ in a.device.memory.layout():
            assert b.device.memory.read(addr, size) == a.device.memory.read(addr, size), hex(addr)
        assert {h: k for h, (k, _) in b.handles().items()} == {h: k for h, (k, _) in a.handles().items()}
        assert b.next_handle == a.next_handle and b.managed == a.managed and b.settings == a.settings
        assert b.origins == a.origins  # a restored session can be checkpointed again
        assert call(d, b, "cudaStreamGetPriority", n["stream"]).outs == [-3]
        assert call(d, b, "cudaStreamGetFlags", n["stream"]).outs == [1]
        assert call(d, b, "cudaMemGetInfo").outs == call(d, a, "cudaMemGetInfo").outs
        assert call(d, b, "cudaDeviceGetLimit", enums.cudaLimit["cudaLimitMallocHeapSize"]).outs == [4 * MiB]
        # events keep their timestamps' ages; one without timing stays without
        e2 = call(d, b, "cudaEventCreate").outs[0]
        call(d, b, "cudaEventRecord", e2, 0)
        call(d, b, "cudaEventRecord", n["e1"], 0)
        assert call(d, b, "cudaEventElapsedTime", n["e0"], e2).outs[0] >= 0
        assert d.run(b, BY_NAME["cudaEventElapsedTime"], [n["e0"], n["e1"]], []).rc != 0
        # both sessions go on alike: the module's counter, the device-malloc block kept by `keep`
        for s in (a, b):
            launch(d, s, n["globals"], 4, 256, n["stream"], u64(n["x"]), u64(n["y"]), i32(1024))
            out = call(d, s, "cudaMalloc", 4).outs[0]
            launch(d, s, n["use"], 1, 1, 0, u64(out))
        addr, size = call(d, a, "cuModuleGetGlobal_v2", n["core"], "counter").outs
        assert call(d, b, "cuModuleGetGlobal_v2", n["core"], "counter").outs == [addr, size]
        assert read(d, a, addr, 4) == read(d, b, addr, 4) == i32(2048)
        assert read(d, a, out, 4) == read(d, b, out, 4) == i32(sum(100 + k for k in range(64)))
        assert read(d, b, n["y"], 4096) == read(d, a, n["y"], 4096)
        assert read(d, b, n["managed"], 3) == b"abc"
    finally:
        b.close()


def test_a_session_that_does_not_fit_is_refused_whole(program):
    a, _ = program
    img = cksession.capture(a, "sim")
    small = Session(SimDevice(8 * MiB, window=img.meta["window"]), "c")
    try:
        with pytest.raises(Exception) as e:
            cksession.restore(small, img, "sim")
        assert "OUT_OF_MEMORY" in str(e.value) or "outside" in str(e.value)
        assert small.device.memory.layout() == [] and small.device.memory.used == 0
    finally:
        small.close()


def test_a_checkpoint_of_another_gpu_kind_is_refused(program):
    a, _ = program
    img = cksession.capture(a, "sim")
    other = Session(SimDevice(64 * MiB, window=img.meta["window"], arch="sm_90"), "c")
    try:
        with pytest.raises(CheckpointError, match="same architecture"):
            cksession.restore(other, img, "sim")
        with pytest.raises(CheckpointError, match="on a cuda server"):
            Image({**img.meta, "backend": "cuda"}, img.state).check_compatible("sim", img.meta["arch"])
    finally:
        other.close()


@pytest.mark.parametrize("damage, message", [
    (lambda b: b[:len(b) // 2], "corrupt"),                                   # truncated
    (lambda b: b[:100] + bytes([b[100] ^ 1]) + b[101:], "corrupt"),            # one bit flipped
    (lambda b: b"NOTACKPT" + b[8:], "not an rgpu checkpoint"),
    (lambda b: b[:8] + struct.pack("<I", ckimage.FORMAT + 1) + b[12:], "format"),
    (lambda b: b"", "not an rgpu checkpoint"),
])
def test_a_damaged_or_foreign_checkpoint_is_refused_with_a_clear_error(program, tmp_path, damage, message):
    a, _ = program
    path = tmp_path / "s.ckpt"
    cksession.capture(a, "sim").save(path)
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(CheckpointError, match=message):
        Image.load(path)


def test_a_checkpoint_of_another_rgpu_version_is_refused(program, tmp_path, monkeypatch):
    a, _ = program
    img = cksession.capture(a, "sim")
    img.meta["rgpu"] = "0.0.1"
    path = tmp_path / "old.ckpt"
    img.save(path)
    with pytest.raises(CheckpointError, match="rgpu 0.0.1"):
        Image.load(path)


def test_handles_of_kinds_checkpoints_do_not_know_refuse_the_capture(program):
    a, _ = program
    a.new_handle("texture", object())
    with pytest.raises(CheckpointError, match="texture"):
        cksession.capture(a, "sim")


def test_a_failed_piece_of_a_copy_still_fails_the_copy_after_a_move(dispatcher, program):
    """An H2D copy in pieces whose end piece failed (past its allocation) moves between pieces: the
    copy's last call, served by the restored session, answers that failure instead of succeeding
    with part of the data written (server/pieces.py)."""
    d = dispatcher
    a, n = program
    run_piece_in(a, d.run, BY_NAME["cudaMemcpy"], [n["x"] + 4000, 0, 200, 1], [bytes(200)])
    assert a.piece_error is not None and a.piece_error.rc != 0
    b = restored(cksession.capture(a, "sim"))
    try:
        want = take_piece_error(a)
        got = take_piece_error(b)
        assert (got.rc, got.message, got.face) == (want.rc, want.message, want.face)
        assert b.piece_error is None  # taken once, as the copy's reply takes it
    finally:
        b.close()
    clean = restored(cksession.capture(a, "sim"))
    try:
        assert clean.piece_error is None
    finally:
        clean.close()


def test_written_pages_are_told_from_untouched_and_freed_ones():
    dev = SimDevice(64 * MiB, window=3)
    try:
        m = dev.memory
        a = m.alloc(8 * MiB)
        assert m.written(a, 8 * MiB) == []
        m.write(a + 3 * MiB + 10, b"x")
        m.read(a + 5 * MiB, 4096)  # a read maps the zero page: not written
        [(start, n)] = m.written(a, 8 * MiB)
        assert start <= a + 3 * MiB + 10 < start + n and n <= 2 * 4096
        m.free(a)
        b = m.alloc(8 * MiB)
        assert b == a and m.written(b, 8 * MiB) == []
        assert CHUNK % 4096 == 0
    finally:
        dev.close()


def test_a_modules_functions_go_with_it_and_a_checkpoint_after_the_unload_is_taken(dispatcher, program):
    """cuBLASLt loads a module to probe the GPU with one kernel and unloads it: the function handle
    goes with its module (as in CUDA, where it is invalid after the unload), so a later checkpoint
    has nothing to make it from and is taken; a launch through the old handle is refused."""
    d = dispatcher
    s, n = program
    probe = load(d, s, "simcore.cu")
    fn = call(d, s, "cuModuleGetFunction", probe, "globals").outs[0]
    call(d, s, "cuModuleUnload", probe)
    assert fn not in s.handles() and probe not in s.handles()
    r = d.run(s, BY_NAME["cuLaunchKernel"], [fn, 1, 1, 1, 32, 1, 1, 0, 0, b"\0" * 20], [])
    assert r.rc != 0, r
    b = restored(cksession.capture(s, "sim"))
    try:
        assert fn not in b.handles() and n["globals"] in b.handles()
    finally:
        b.close()


def test_cuda_arrays_and_texture_objects_go_with_the_session(dispatcher):
    """A session's arrays (one of them a level the program asked of a mipmapped array), a texture
    object over an array, one over linear memory and a surface object, through a checkpoint's bytes
    into a fresh session: the same handles hold the same bytes, the level's handle is the one asked
    before, the objects answer with the same values and descriptors, and an object made after the
    restore takes a value none of them had."""
    from tests.unit.server.test_arrays import array_desc, raw, resource
    from rgpu.server.api.device import _cffi
    d = dispatcher
    a = Session(SimDevice(16 * MiB, window=5), "a")
    (arr,) = call(d, a, "cuArrayCreate_v2", array_desc(8, 4)).outs
    data = bytes((i * 37) & 0xff for i in range(128))
    call(d, a, "cuMemcpyHtoA_v2", arr, 0, 128, bulk=[data])
    (mip,) = call(d, a, "cuMipmappedArrayCreate", raw("CUDA_ARRAY3D_DESCRIPTOR", Width=16, Height=8, Format=0x20,
                                                      NumChannels=1), 3).outs
    (level,) = call(d, a, "cuMipmappedArrayGetLevel", mip, 1).outs
    call(d, a, "cuMemcpyHtoA_v2", level, 0, 128, bulk=[data[::-1]])
    surf_arr = call(d, a, "cuArray3DCreate_v2", raw("CUDA_ARRAY3D_DESCRIPTOR", Width=4, Height=4, Format=0x20,
                                                    NumChannels=1, Flags=0x02)).outs[0]  # SURFACE_LDST
    lin = call(d, a, "cudaMalloc", 4096).outs[0]
    call(d, a, "cudaMemcpy", lin, 0, 8, 1, bulk=[b"linear!!"])
    ffi = _cffi()
    p = ffi.new("CUDA_RESOURCE_DESC *")
    p.resType = 2  # CU_RESOURCE_TYPE_LINEAR
    p.res.linear.devPtr, p.res.linear.format, p.res.linear.numChannels, p.res.linear.sizeInBytes = lin, 0x20, 1, 4096
    lin_res = bytes(ffi.buffer(p))
    tex_desc = raw("CUDA_TEXTURE_DESC", filterMode=0)
    (tex,) = call(d, a, "cuTexObjectCreate", resource(arr), tex_desc, None).outs
    (ltex,) = call(d, a, "cuTexObjectCreate", lin_res, tex_desc, None).outs
    (surf,) = call(d, a, "cuSurfObjectCreate", resource(surf_arr)).outs
    img = Image.from_bytes(cksession.capture(a, "sim").to_bytes(), "test")
    b = Session(SimDevice(16 * MiB, window=img.meta["window"]), "b")
    try:
        cksession.restore(b, img, "sim")
        assert bytes(call(d, b, "cuMemcpyAtoH_v2", arr, 0, 128).bulk[0]) == data
        assert call(d, b, "cuMipmappedArrayGetLevel", mip, 1).outs == [level]
        assert bytes(call(d, b, "cuMemcpyAtoH_v2", level, 0, 128).bulk[0]) == data[::-1]
        assert call(d, b, "cuTexObjectGetResourceDesc", tex).outs[0] == resource(arr)
        assert call(d, b, "cuTexObjectGetResourceDesc", ltex).outs[0] == lin_res
        assert call(d, b, "cuTexObjectGetTextureDesc", tex).outs[0] == tex_desc
        assert call(d, b, "cuSurfObjectGetResourceDesc", surf).outs[0] == resource(surf_arr)
        assert b.device.memory.textures.keys() == a.device.memory.textures.keys() == {tex, ltex}
        assert b.device.memory.surfaces.keys() == {surf}
        (later,) = call(d, b, "cuTexObjectCreate", resource(arr), tex_desc, None).outs
        assert later not in (tex, ltex, surf)
        # the restored objects are the session's to destroy, and the arrays with them
        for name, v in (("cuTexObjectDestroy", tex), ("cuTexObjectDestroy", ltex), ("cuSurfObjectDestroy", surf),
                        ("cuTexObjectDestroy", later)):
            call(d, b, name, v)
        call(d, b, "cuMipmappedArrayDestroy", mip)
        call(d, b, "cuArrayDestroy", arr)
        assert d.run(b, BY_NAME["cuMemcpyAtoH_v2"], [level, 0, 4], []).rc != 0  # went with its mipmap
    finally:
        a.close()
        b.close()


def test_texture_objects_refuse_a_checkpoint_where_the_device_chooses_their_values(dispatcher, monkeypatch):
    """On a GPU the driver chooses a texture object's value, which kernels receive by value, so a
    session holding one cannot go elsewhere: the capture says so, naming the object."""
    from tests.unit.server.test_arrays import array_desc, raw, resource
    d = dispatcher
    a = Session(SimDevice(16 * MiB), "a")
    try:
        (arr,) = call(d, a, "cuArrayCreate_v2", array_desc(8, 4)).outs
        (tex,) = call(d, a, "cuTexObjectCreate", resource(arr), raw("CUDA_TEXTURE_DESC"), None).outs
        cksession.describe(a, contents=False)  # the software GPU makes them at the value it is told
        monkeypatch.setattr(a.device, "objects_keep_values", False)
        with pytest.raises(CheckpointError, match=f"texture object 0x{tex:x}.*by value.*keeps its GPU"):
            cksession.describe(a, contents=False)
        call(d, a, "cuTexObjectDestroy", tex)
        cksession.describe(a, contents=False)  # destroyed: the array alone goes
    finally:
        a.close()


def test_the_chunk_digest_changes_with_any_bit_its_order_and_its_length():
    """The copier's digest (server/native/digest.c, compiled into librgpu_launches.so at setup): equal
    for equal data however it is held, different for one bit flipped anywhere in a chunk, for two
    16-byte words swapped within a lane's turn or between lanes, and for zeros of another length."""
    import os

    from rgpu.server.checkpoint import digest
    assert digest._library() is not None, "librgpu_launches.so is built by scripts/setup.sh"
    data = bytearray(os.urandom(CHUNK))
    d = digest.chunk(data)
    assert len(d) == 16 and digest.chunk(bytes(data)) == d and digest.chunk(memoryview(data)) == d
    for bit in (0, 7, 8 * 63, 8 * 64 + 3, 8 * (CHUNK - 1) + 7):
        data[bit // 8] ^= 1 << bit % 8
        assert digest.chunk(data) != d, bit
        data[bit // 8] ^= 1 << bit % 8
    for a, b in ((0, 64), (0, 16), (128, 4096)):
        swapped = bytearray(data)
        swapped[a:a + 16], swapped[b:b + 16] = data[b:b + 16], data[a:a + 16]
        assert digest.chunk(swapped) != d, (a, b)
    zeros = {digest.chunk(bytes(n)) for n in (0, 1, 15, 16, 63, 64, 65, CHUNK)}
    assert len(zeros) == 8


@pytest.mark.parametrize("size", [0, 1, 100, 2 * ckimage.SAMPLE, 2 * ckimage.SAMPLE + 1, ckimage.RAW_BLOCK,
                                  ckimage.RAW_BLOCK + 1, CHUNK, 3 * CHUNK + 7])
def test_a_chunk_that_does_not_shrink_travels_as_raw_blocks_any_zstd_reads_and_one_that_does_shrinks(size):
    """checkpoint/image.py compress_chunk: random bytes (a sample of their start does not shrink) go
    as a zstd frame of raw blocks, a copy; zeros are compressed; both decompress with zstd itself,
    byte for byte, and a raw frame that is cut short is refused as corrupt."""
    import os

    import zstandard
    cctx = ckimage.compressor()
    noise, zeros = os.urandom(size), bytes(size)
    for data in (noise, zeros, bytearray(noise), memoryview(noise)):
        frame = ckimage.compress_chunk(cctx, data)
        assert ckimage.decompress(frame, size) == bytes(data)
        assert zstandard.ZstdDecompressor().decompress(frame, max_output_size=size + 1) == bytes(data)
    raw = ckimage.compress_chunk(cctx, noise)
    if size > 2 * ckimage.SAMPLE:
        assert raw == ckimage.raw_frame(noise) and len(raw) == size + 13 + 3 * -(-size // ckimage.RAW_BLOCK)
        assert len(ckimage.compress_chunk(cctx, zeros)) < size // 100
        with pytest.raises(CheckpointError, match="corrupt"):
            ckimage.decompress(raw[:-1], size)
