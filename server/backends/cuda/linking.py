"""The client's link images, linked by the driver.

A program that links through the driver (cuLinkCreate ... cuLinkComplete: numba-cuda without
nvJitLink, CuPy's RawModule with jitify) gets rgpu's link image from the client: a header, then one
fatbin container per input (libhook/src/module/library.c). The driver's cuModuleLoadData would read
the first container alone, so the cuda backend hands the inputs to the driver's own linker, each as
what it is, and loads the cubin it makes: the definitions of one input satisfy the externs of another
as they did in the program's own link."""
from __future__ import annotations

from ...errors import CudaError
from ..sim import fatbin  # the container format only
from ..sim.errors import SimError

LOG_BYTES = 16 << 10


def is_link_image(image) -> bool:
    return bytes(image[:len(fatbin.LINK_MAGIC)]) == fatbin.LINK_MAGIC


def inputs(image: bytes) -> list[tuple[str, bytes]]:
    """(kind, bytes) of each input, in the program's order: "ptx" (NUL-terminated text), "cubin",
    "object" and "library" for a container the client made of one input; "fatbin" for a container
    the program added whole, from which the driver picks the entry for its GPU."""
    buf = bytes(image)[fatbin.LINK_HEADER:]
    out = []
    pos = fatbin.find_container(buf, 0)
    while pos >= 0:
        try:
            entries, end = fatbin.parse_container(buf, pos, fatbin.LINK_KINDS)
        except SimError as e:  # the format's own errors (a truncated or corrupt container)
            raise CudaError(e.code, e.message) from None
        kind = entries[0].kind if len(entries) == 1 else None
        if kind == fatbin.KIND_PTX:
            out.append(("ptx", entries[0].data + b"\0"))
        elif kind in _GIVEN:
            out.append((_GIVEN[kind], entries[0].data))
        else:
            out.append(("fatbin", buf[pos:end]))
        pos = fatbin.find_container(buf, end)
    if not out:
        raise CudaError("CUDA_ERROR_INVALID_IMAGE", "link image without a container after its header")
    return out


_GIVEN = {fatbin.KIND_ELF: "cubin", fatbin.KIND_OBJECT: "object", fatbin.KIND_LIBRARY: "library"}
_KINDS = {"ptx": "CU_JIT_INPUT_PTX", "cubin": "CU_JIT_INPUT_CUBIN", "fatbin": "CU_JIT_INPUT_FATBINARY",
          "object": "CU_JIT_INPUT_OBJECT", "library": "CU_JIT_INPUT_LIBRARY"}


def link(ffi, lib, image: bytes) -> bytes:
    """The cubin the driver links from the image's inputs; a failure raises CudaError with the
    linker's own log (an unresolved extern names the function, as the program's link would)."""
    option = ffi.typeof("CUjit_option").relements
    log = ffi.new("char[]", LOG_BYTES)
    options = ffi.new("CUjit_option[2]", [option["CU_JIT_ERROR_LOG_BUFFER"],
                                          option["CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES"]])
    values = ffi.new("void *[2]", [log, ffi.cast("void *", LOG_BYTES)])
    state = ffi.new("CUlinkState *")
    rc = lib.cuLinkCreate_v2(2, options, values, state)
    if rc != 0:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"cuLinkCreate returned {rc}")

    def fail(what: str, rc: int):
        text = ffi.string(log).decode(errors="replace").strip()
        code = "CUDA_ERROR_INVALID_PTX" if rc == 218 else "CUDA_ERROR_INVALID_IMAGE"
        raise CudaError(code, f"{what} failed ({rc}){': ' + text if text else ''}")

    try:
        for i, (kind, data) in enumerate(inputs(image)):
            buf = ffi.from_buffer(data)
            rc = lib.cuLinkAddData_v2(state[0], ffi.typeof("CUjitInputType").relements[_KINDS[kind]], buf, len(data),
                                      f"input {i}".encode(), 0, ffi.NULL, ffi.NULL)
            if rc != 0:
                fail(f"adding input {i} ({kind}) to the link", rc)
        cubin, size = ffi.new("void **"), ffi.new("size_t *")
        rc = lib.cuLinkComplete(state[0], cubin, size)
        if rc != 0:
            fail("the link", rc)
        return bytes(ffi.buffer(cubin[0], size[0]))  # the state owns it: copied before the destroy
    finally:
        lib.cuLinkDestroy(state[0])
