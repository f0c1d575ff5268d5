"""The cuda backend links the client's link images through the driver's cuLink* (cuda/linking.py):
each input goes in as what it is, in the program's order, and the driver's cubin is what loads.
The driver here is a stand-in in Python over the real declarations (no GPU): it records what it
was given and answers as the real linker would; what only a GPU confirms is that NVIDIA's linker
accepts these inputs, which the numba test of tests/e2e/test_frameworks.py runs on one."""
from __future__ import annotations

import struct

import pytest

from rgpu.server.backends.cuda import device as cuda_device
from rgpu.server.backends.cuda import linking
from rgpu.server.backends.sim import fatbin
from rgpu.server.errors import CudaError

PTX_A = b".version 9.0\n.target sm_90\n.address_size 64\n.extern .func f();\n.visible .entry k() { call f; ret; }\n"
PTX_B = b".version 9.0\n.target sm_90\n.address_size 64\n.visible .func f() { ret; }\n"
CUBIN = b"\x7fELF" + bytes(56) + b"sass"  # 8-byte multiple, as cubins are (no padding to strip)
ARCHIVE = b"!<arch>\n" + b"member"  # libcudadevrt.a as the program gave it: 14 bytes, padded in the image


def _container(entries: list[tuple[int, int, bytes]]) -> bytes:
    """A fatbin container as the client's link_entry writes it (library.c)."""
    body = b""
    for kind, arch, data in entries:
        padded = data + bytes(-len(data) % 8)
        head = struct.pack("<HHIQIIHHIIIQQQ", kind, 0x0101, 64, len(padded), 0, 0, 0, 0, arch, 0, 0, 0, 0, len(data))
        body += head + padded
    return struct.pack("<IHHQ", fatbin.CONTAINER_MAGIC, 1, 16, len(body)) + body


def _image(*containers: bytes) -> bytes:
    body = b"".join(containers)
    return fatbin.LINK_MAGIC + struct.pack("<Q", 16 + len(body)) + body


class FakeLinker:
    """cuLinkCreate/AddData/Complete/Destroy as the driver answers them."""

    def __init__(self, ffi, fail_complete: bytes | None = None):
        self.ffi, self.fail_complete = ffi, fail_complete
        self.added: list[tuple[int, bytes]] = []
        self.destroyed = 0
        self.log = None
        self._out = ffi.new("char[]", b"linked-cubin")

    def cuLinkCreate_v2(self, n, options, values, state):
        assert n == 2 and options[0] == self.ffi.typeof("CUjit_option").relements["CU_JIT_ERROR_LOG_BUFFER"]
        self.log = self.ffi.cast("char *", values[0])
        state[0] = self.ffi.cast("CUlinkState", 1)
        return 0

    def cuLinkAddData_v2(self, state, kind, data, size, name, n, options, values):
        self.added.append((kind, bytes(self.ffi.buffer(data, size))))
        return 0

    def cuLinkComplete(self, state, out, size):
        if self.fail_complete is not None:
            self.ffi.memmove(self.log, self.fail_complete + b"\0", len(self.fail_complete) + 1)
            return 218  # CUDA_ERROR_INVALID_PTX
        out[0] = self._out
        size[0] = len(b"linked-cubin")
        return 0

    def cuLinkDestroy(self, state):
        self.destroyed += 1
        return 0


@pytest.fixture(scope="module")
def ffi():
    return cuda_device.ffi()


def test_each_input_goes_to_the_driver_as_what_it_is_and_its_cubin_loads(ffi):
    whole = _container([(fatbin.KIND_ELF, 80, CUBIN), (fatbin.KIND_PTX, 80, PTX_B)])  # a fatbin added whole
    image = _image(_container([(fatbin.KIND_PTX, 90, PTX_A)]), _container([(fatbin.KIND_ELF, 90, CUBIN)]), whole,
                   _container([(fatbin.KIND_LIBRARY, 0, ARCHIVE)]))
    assert linking.is_link_image(image) and not linking.is_link_image(whole)
    fake = FakeLinker(ffi)
    assert linking.link(ffi, fake, image) == b"linked-cubin"
    kinds = [ffi.typeof("CUjitInputType").relements[k]
             for k in ("CU_JIT_INPUT_PTX", "CU_JIT_INPUT_CUBIN", "CU_JIT_INPUT_FATBINARY", "CU_JIT_INPUT_LIBRARY")]
    assert [k for k, _ in fake.added] == kinds
    assert fake.added[0][1] == PTX_A + b"\0"  # PTX text, NUL-terminated as the driver reads it
    assert fake.added[1][1] == CUBIN
    assert fake.added[2][1] == whole
    assert fake.added[3][1] == ARCHIVE  # exactly: an archive must not end in the image's padding
    assert fake.destroyed == 1


def test_a_failed_link_says_what_the_linker_said_and_frees_the_state(ffi):
    fake = FakeLinker(ffi, fail_complete=b"ptxas fatal   : Unresolved extern function 'f'")
    with pytest.raises(CudaError) as info:
        linking.link(ffi, fake, _image(_container([(fatbin.KIND_PTX, 90, PTX_A)])))
    assert info.value.code == "CUDA_ERROR_INVALID_PTX" and "Unresolved extern function 'f'" in str(info.value)
    assert fake.destroyed == 1


def test_a_link_image_without_inputs_is_refused(ffi):
    with pytest.raises(CudaError) as info:
        linking.link(ffi, FakeLinker(ffi), fatbin.LINK_MAGIC + struct.pack("<Q", 16))
    assert info.value.code == "CUDA_ERROR_INVALID_IMAGE"


def test_a_corrupt_container_is_an_invalid_image_not_a_crash(ffi):
    truncated = _image(_container([(fatbin.KIND_PTX, 90, PTX_A)]))[:-8]
    fake = FakeLinker(ffi)
    with pytest.raises(CudaError) as info:
        linking.link(ffi, fake, truncated)
    assert info.value.code == "CUDA_ERROR_INVALID_IMAGE" and fake.destroyed == 1
