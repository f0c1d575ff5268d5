"""Tensor maps (TMA descriptors) on a real GPU: the driver's own encoding of what the client sent
(libhook/src/texture/tensormap.c), returned as the map's 128 bytes. Served by the cuda backend alone (its
handlers join the API's in backends.handlers_for); the records say the software GPU serves none. The
arrays arrive as bytes; their lengths are checked against the rank here as well as in the client, since
the driver reads as many elements as the rank says, whatever a message carried."""
from __future__ import annotations

from ...errors import CudaError
from . import device as drv

MAP_BYTES = 128
# Per kind: its arrays, in argument order after (data type, rank, address), as (C element type, how many
# fewer than the rank); None for a scalar argument, passed as it is. And the least rank it takes.
_LAYOUT = {
    "tiled": ([("cuuint64_t", 0), ("cuuint64_t", 1), ("cuuint32_t", 0), ("cuuint32_t", 0)] + [None] * 4, 1),
    "im2col": ([("cuuint64_t", 0), ("cuuint64_t", 1), ("int", 2), ("int", 2), None, None, ("cuuint32_t", 0)]
               + [None] * 4, 3),
    "im2col_wide": ([("cuuint64_t", 0), ("cuuint64_t", 1), None, None, None, None, ("cuuint32_t", 0)]
                    + [None] * 5, 3),
}
_ENTRY = {"tiled": "cuTensorMapEncodeTiled", "im2col": "cuTensorMapEncodeIm2col",
          "im2col_wide": "cuTensorMapEncodeIm2colWide"}
MAX_RANK = 5


def _aligned_map(ffi):
    """A CUtensorMap the driver accepts (64-byte aligned: cffi's allocations are not), and its owner."""
    owner = ffi.new("char[]", MAP_BYTES + 64)
    addr = (int(ffi.cast("uintptr_t", owner)) + 63) & ~63
    return ffi.cast("CUtensorMap *", addr), owner


def encode(ffi, lib, check, kind: str, args) -> bytes:
    out, _owner = _aligned_map(ffi)
    if kind == "replace":
        data, address = args
        if not isinstance(data, (bytes, bytearray)) or len(data) != MAP_BYTES:  # a null map comes as nil
            raise CudaError("CUDA_ERROR_INVALID_VALUE", f"a tensor map is {MAP_BYTES} bytes, not "
                                                        f"{len(data) if isinstance(data, (bytes, bytearray)) else 'none'}")
        ffi.memmove(out, data, MAP_BYTES)
        check(lib.cuTensorMapReplaceAddress(out, ffi.cast("void *", address)))
        return bytes(ffi.buffer(out, MAP_BYTES))
    layout, least = _LAYOUT[kind]
    dtype, rank, address, *rest = args
    if not least <= rank <= MAX_RANK:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"tensor rank {rank} (this kind takes {least} to {MAX_RANK})")
    c_args, keep = [], []
    for value, spec in zip(rest, layout):
        if spec is None:
            c_args.append(value)
            continue
        ctype, fewer = spec
        n = rank - fewer
        if not isinstance(value, bytes) or len(value) != n * ffi.sizeof(ctype):
            raise CudaError("CUDA_ERROR_INVALID_VALUE",
                            f"{_ENTRY[kind]}: an array of {n} {ctype} for rank {rank}, not {len(value)} bytes")
        arr = ffi.new(f"{ctype}[]", max(n, 1))
        ffi.memmove(arr, value, len(value))
        keep.append(arr)
        c_args.append(arr)
    check(getattr(lib, _ENTRY[kind])(out, dtype, rank, ffi.cast("void *", address), *c_args))
    return bytes(ffi.buffer(out, MAP_BYTES))


def handlers() -> dict[str, object]:
    """Call name -> handler(session, *args): each call's wire arguments, in its record's order."""
    def serve(kind):
        def handler(s, *args):
            return (encode(drv.ffi(), drv.lib(), drv.check, kind, args),)
        handler.__name__ = f"tensor_map_{kind}"
        return handler
    return {"cuTensorMapEncodeTiled": serve("tiled"), "cuTensorMapEncodeIm2col": serve("im2col"),
            "cuTensorMapEncodeIm2colWide": serve("im2col_wide"), "cuTensorMapReplaceAddress": serve("replace")}
