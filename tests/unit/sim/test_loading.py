"""Module images the software GPU accepts and refuses, and kernel parameter layouts."""
from __future__ import annotations

import struct

import numpy as np
import pytest

from rgpu.server.backends.sim import fatbin
from rgpu.server.backends.sim.cubin import Param
from rgpu.server.backends.sim.errors import SimError
from rgpu.server.backends.sim.kernels import KernelModule, param_layout
from tests.support.cudabuild import build

from pathlib import Path

KERNELS = Path(__file__).resolve().parents[2] / "cuda" / "kernels"


def _vec_add_works(mod, make_device):
    d = make_device(mod)
    a = np.arange(100, dtype=np.float32)
    pa, pc = d.put(a), d.zeros(100, np.float32)
    d.launch("vec_add", 1, 128, pa, pa, pc, 100)
    np.testing.assert_array_equal(d.get(pc, 100, np.float32), 2 * a)


@pytest.mark.parametrize("mode,flag", [("none", 0), ("speed", fatbin.FLAG_COMPRESSED_LZ4),
                                       ("balance", fatbin.FLAG_COMPRESSED_ZSTD),
                                       ("size", fatbin.FLAG_COMPRESSED_ZSTD)])
def test_fatbin_compression_modes(build_image, mode, flag):
    img = fatbin.parse_image(build_image("simcore.cu", f"fatbin-{mode}"))
    (ptx,) = img.ptx
    assert ptx.arch == 80 and b".version" in ptx.data and b".entry vec_add" in ptx.data
    assert (ptx.flags & (fatbin.FLAG_COMPRESSED_LZ4 | fatbin.FLAG_COMPRESSED_ZSTD)) == flag
    (elf,) = img.cubins
    assert elf.data[:4] == b"\x7fELF"


def test_registration_wrapper_and_back_to_back_containers(build_image, make_device):
    body = build_image("simcore.cu", "fatbin-size")
    wrapper = struct.pack("<IIQQ", fatbin.WRAPPER_MAGIC, 1, 0x401000, 0)
    _vec_add_works(KernelModule.load(wrapper + body), make_device)
    wrapper2 = struct.pack("<IIQQ", fatbin.WRAPPER_MAGIC, 2, 0x401000, 0x402000)
    img = fatbin.parse_image(wrapper2 + body + build_image("simio.cu", "fatbin-speed"))
    assert {e.container for e in img.entries} == {0, 1}
    mod = KernelModule.load(wrapper2 + body + build_image("simio.cu", "fatbin-speed"))
    assert {"vec_add", "say", "oob"} <= set(mod.functions)


def test_bare_ptx_text(build_image, make_device):
    _vec_add_works(KernelModule.load(build_image("simcore.cu", "ptx")), make_device)


def test_sass_only_module_says_how_to_rebuild():
    sass_only = build(KERNELS / "simio.cu", "fatbin", arch_flags=["-gencode", "arch=compute_75,code=sm_75"])
    with pytest.raises(SimError) as info:
        KernelModule.load(sass_only.read_bytes())
    assert info.value.code == "CUDA_ERROR_NO_BINARY_FOR_GPU"
    assert "only sm_75 SASS" in info.value.message and "-arch=sm_75" in info.value.message
    assert "--sim-arch" in info.value.message
    cubin = build(KERNELS / "simio.cu", "cubin")
    with pytest.raises(SimError) as info:
        KernelModule.load(cubin.read_bytes())
    # a bare cubin was never a build with PTX beside it: load the PTX; numba-cuda makes them with nvJitLink
    assert info.value.code == "CUDA_ERROR_NO_BINARY_FOR_GPU" and "bare sm_80 cubin" in info.value.message
    assert "nvJitLink" in info.value.message and "cuLink" in info.value.message


def test_ptx_newer_than_the_device():
    """PTX runs on its own architecture and newer ones (the default, sm_130, is newer than all), never
    an older one; the error names both ways out."""
    newer = build(KERNELS / "simio.cu", "fatbin", arch_flags=["-arch=sm_90"])
    with pytest.raises(SimError) as info:
        KernelModule.load(newer.read_bytes(), arch="sm_80")
    assert info.value.code == "CUDA_ERROR_NO_BINARY_FOR_GPU"
    assert "--sim-arch sm_90" in info.value.message and "-arch=sm_80" in info.value.message
    assert KernelModule.load(newer.read_bytes(), cc=(9, 0)).functions["oob"].param_size == 12
    assert KernelModule.load(newer.read_bytes()).functions["oob"].param_size == 12


def test_sass_of_the_devices_architecture_runs_from_the_later_revisions_ptx():
    """A library that pairs its SASS with PTX of its newest part alone (cuRAND 10.4: sm_75 ... sm_121
    SASS, compute_121 PTX): an sm_120 GPU runs the sm_120 SASS, and the software GPU at sm_120 runs
    the compute_121 PTX of the same kernels in its place. Not where a GPU would have no SASS to run:
    another major architecture, or SASS of a later minor revision only."""
    lib_like = build(KERNELS / "simio.cu", "fatbin", arch_flags=[
        "-gencode", "arch=compute_120,code=sm_120", "-gencode", "arch=compute_121,code=compute_121"])
    img = fatbin.parse_image(lib_like.read_bytes())
    assert sorted(e.arch for e in img.ptx) == [121] and sorted(e.arch for e in img.cubins) == [120]
    assert KernelModule.load(lib_like.read_bytes(), arch="sm_120").functions["oob"].param_size == 12
    with pytest.raises(SimError) as info:  # no SASS of major 10 to stand in for
        KernelModule.load(lib_like.read_bytes(), arch="sm_100")
    assert info.value.code == "CUDA_ERROR_NO_BINARY_FOR_GPU" and "compute_121" in info.value.message
    later_only = build(KERNELS / "simio.cu", "fatbin", arch_flags=[
        "-gencode", "arch=compute_121,code=[sm_121,compute_121]"])
    with pytest.raises(SimError) as info:  # sm_121 SASS does not run on sm_120
        KernelModule.load(later_only.read_bytes(), arch="sm_120")
    assert info.value.code == "CUDA_ERROR_NO_BINARY_FOR_GPU"


@pytest.mark.parametrize("junk", [b"", b"\x00" * 64, b"hello world, not a module", b"\x50\xed\x55\xba" + b"\xff" * 12])
def test_garbage_is_an_invalid_image(junk):
    with pytest.raises(SimError) as info:
        KernelModule.load(junk)
    assert info.value.code == "CUDA_ERROR_INVALID_IMAGE"


def test_unparsable_ptx():
    with pytest.raises(SimError) as info:
        KernelModule.load(b".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k( { ret; }\n")
    assert info.value.code == "CUDA_ERROR_INVALID_PTX"


def test_unknown_opcode_is_reported_at_launch(make_device):
    ptx = b""".version 8.0
.target sm_80
.address_size 64
.visible .entry good() { ret; }
.visible .entry bad(.param .u64 p)
{
    .reg .b32 %r<3>;
    frobnicate.b32 %r1, %r2;
    ret;
}
"""
    mod = KernelModule.load(ptx)
    d = make_device(mod)
    d.launch("good", 1, 32)
    with pytest.raises(SimError) as info:
        d.launch("bad", 1, 32, 0)
    assert info.value.code == "CUDA_ERROR_NOT_SUPPORTED" and not info.value.sticky
    assert "PTX instruction 'frobnicate.b32' is not supported by the software GPU" in info.value.message


def test_parameter_layout_from_cubin_matches_ptx(build_image):
    from_fatbin = param_layout(build_image("simcore.cu", "fatbin-none"))  # has the cubin's KPARAM_INFO
    from_ptx = param_layout(build_image("simcore.cu", "ptx"))
    assert from_fatbin == from_ptx
    params, size = from_fatbin["struct_params"]
    assert params == [Param(0, 24, 8), Param(24, 20, 4), Param(44, 1, 1), Param(48, 8, 8)] and size == 56
    cubin_only = param_layout(build(KERNELS / "simcore.cu", "cubin").read_bytes())
    assert [(p.offset, p.size) for p in cubin_only["struct_params"][0]] == [(0, 24), (24, 20), (44, 1), (48, 8)]
    # 32,000 bytes by value: the cubin says so in KPARAM_INFO_V2
    assert [(p.offset, p.size) for p in cubin_only["large_params"][0]] == [(0, 32000), (32000, 8)]
    assert from_fatbin["large_params"] == ([Param(0, 32000, 4), Param(32000, 8, 8)], 32008)
    mod = KernelModule.load(build_image("simcore.cu", "fatbin-none"))
    f = mod.functions["struct_params"]
    assert f.params == params and f.param_size == 56
    assert mod.functions["local_array"].local_bytes >= 64
    assert mod.variables["coeffs"].space == "const" and mod.variables["coeffs"].size == 16
    assert mod.variables["counter"].space == "global"


def test_function_ptx_version_is_the_modules_not_the_devices(build_image):
    """cudaFuncAttributes.ptxVersion names the PTX a kernel was JIT-compiled from (CUB picks its
    tuning policies by it); binaryVersion names the device."""
    from rgpu.server.backends.sim.device import SimDevice
    dev = SimDevice(64 << 20)
    try:
        mod = dev.module_load(build_image("simcore.cu", "fatbin-none"))  # -arch=sm_80
        fn = dev.module_function(mod, "vec_add")
        assert dev.function_attribute(fn, "CU_FUNC_ATTRIBUTE_PTX_VERSION") == 80
        assert dev.function_attribute(fn, "CU_FUNC_ATTRIBUTE_BINARY_VERSION") == dev.arch.number == 130
    finally:
        dev.close()


def _many_registers_kernel(name: str, directives: str) -> str:
    """An entry declaring 400 32-bit registers, all used: more than any thread may hold."""
    adds = "\n".join(f"    add.u32 %r{i}, %r{i - 1}, {i};" for i in range(1, 400))
    return f""".visible .entry {name}(.param .u64 p) {directives}
{{
    .reg .b32 %r<400>; .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r0, 1;
{adds}
    st.global.u32 [%rd1], %r399;
    ret;
}}
"""


@pytest.mark.parametrize("name,directives,regs,threads", [
    ("unbounded", "", 64, 1024),                      # a 1024-thread block must fit the register file
    ("bounded", ".maxntid 384, 1, 1", 168, 384),      # what ptxas allows __launch_bounds__(384)
    ("required", ".reqntid 256", 255, 256),           # no more than a thread may hold
    ("min_blocks", ".maxntid 128 .minnctapersm 4", 128, 128),
    ("capped", ".maxntid 256 .maxnreg 40", 40, 256),
])
def test_registers_fit_the_launch_bounds(name, directives, regs, threads):
    """A kernel reports the registers ptxas would give it at its launch bounds, not its PTX's
    virtual registers: the occupancy calculator then finds its blocks resident (CUB sized its
    histogram's grid by occupancy x SMs, 0 for a 255-register kernel of 384 threads)."""
    ptx = f".version 9.0\n.target sm_80\n.address_size 64\n{_many_registers_kernel(name, directives)}"
    fn = KernelModule.load(ptx.encode()).functions[name]
    assert (fn.num_regs, fn.max_threads_per_block) == (regs, threads)


def test_a_block_past_a_launch_bound_or_past_the_registers_is_refused_as_the_driver_does():
    """Past a launch bound (.maxntid: __launch_bounds__) the driver answers CUDA_ERROR_INVALID_VALUE
    (numba-cuda's TestLaunchBounds expects it, run on GPUs); within the bounds but past what the
    kernel's registers allow in one SM, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES."""
    from rgpu.server.backends.sim.kernels import _check_config
    bounded = KernelModule.load(
        f".version 9.0\n.target sm_80\n.address_size 64\n{_many_registers_kernel('b', '.maxntid 128, 1, 1')}"
        .encode()).functions["b"]
    params = bytes(bounded.param_size)
    _check_config(bounded, (1, 1, 1), (128, 1, 1), 0, params)
    with pytest.raises(SimError) as info:
        _check_config(bounded, (1, 1, 1), (256, 1, 1), 0, params)
    assert info.value.code == "CUDA_ERROR_INVALID_VALUE" and "maximum of 128" in info.value.message
    heavy = KernelModule.load(
        f".version 9.0\n.target sm_80\n.address_size 64\n{_many_registers_kernel('h', '')}".encode())
    heavy.register_counts["h"] = 255  # SASS of 255 registers a thread: 8 warps fill the file
    fn = heavy.functions["h"]
    assert fn.max_threads_per_block == 256
    _check_config(fn, (1, 1, 1), (256, 1, 1), 0, params)
    with pytest.raises(SimError) as info:
        _check_config(fn, (1, 1, 1), (512, 1, 1), 0, params)
    assert info.value.code == "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" and "registers" in info.value.message


def test_a_small_kernel_keeps_its_own_register_count():
    ptx = """.version 9.0\n.target sm_80\n.address_size 64
.visible .entry small(.param .u64 p) .maxntid 1024
{
    .reg .b32 %r<20>; .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, 7;
    st.global.u32 [%rd1], %r1;
    ret;
}
"""
    fn = KernelModule.load(ptx.encode()).functions["small"]
    assert fn.num_regs == 24  # %r0..%r19 and %rd0, %rd1 (two each): below the 64 the bounds allow


def test_a_link_image_without_a_container_is_refused():
    """The header of the client's link image (library.c) must be followed by its inputs."""
    for image in (fatbin.LINK_MAGIC + struct.pack("<Q", 16), fatbin.LINK_MAGIC + struct.pack("<Q", 48) + bytes(32)):
        with pytest.raises(SimError) as info:
            fatbin.parse_image(image)
        assert info.value.code == "CUDA_ERROR_INVALID_IMAGE" and "link image" in info.value.message


MODULE_DATA = """.version 9.0
.target sm_80
.address_size 64
.global .align 4 .b8 tiny[3] = {1, 2, 3};
.global .align 16 .f32 coeffs[4] = {1.0, 2.0, 3.0, 4.0};
.const .align 8 .u64 where[1] = {generic(coeffs)};
.global .align 8 .u64 plain;
.visible .entry read(.param .u64 out)
{
    .reg .b64 %rd<4>; .reg .f32 %f<2>;
    ld.param.u64 %rd1, [out];
    ld.const.u64 %rd2, [where];
    ld.f32 %f1, [%rd2+8];
    st.global.f32 [%rd1], %f1;
    ret;
}
"""


def test_a_modules_variables_lie_in_one_allocation():
    """As a driver loads them: one data segment per module, each variable at its alignment and
    initialised, a pointer initialiser relocated to the variable's address. A module of CuPy's CUB
    reductions declares about 1,300 variables; one allocation each made every later load slower."""
    from rgpu.server.backends.sim.device import SimDevice

    dev = SimDevice(64 << 20)
    before = dev.memory.layout()
    mod = dev.module_load(MODULE_DATA.encode())
    grown = [a for a in dev.memory.layout() if a not in before]
    assert len(grown) == 1 and mod.segment == grown[0][0]
    base, size = grown[0][0], grown[0][1]
    for name, var in mod.variables.items():
        addr = mod.addresses[name]
        assert base <= addr and addr + var.size <= base + size and addr % var.align == 0, name
    assert len({mod.addresses[n] for n in mod.variables}) == len(mod.variables)
    assert dev.memory.read(mod.addresses["tiny"], 3) == bytes([1, 2, 3])
    assert np.frombuffer(dev.memory.read(mod.addresses["coeffs"], 16), np.float32).tolist() == [1, 2, 3, 4]
    assert int.from_bytes(dev.memory.read(mod.addresses["where"], 8), "little") == mod.addresses["coeffs"]
    out = dev.memory.alloc(4)
    from rgpu.server.backends.sim.kernels import launch
    launch(mod, mod.functions["read"], dev.memory, (1, 1, 1), (1, 1, 1), 0, out.to_bytes(8, "little"), [])
    assert np.frombuffer(dev.memory.read(out, 4), np.float32)[0] == 3.0
    dev.memory.free(out)
    dev.module_unload(mod)
    assert dev.memory.layout() == before
