"""Tensor maps of the software GPU: what cuTensorMapEncodeTiled checks, and a 128-byte encoding of its
own that the interpreter's TMA copies read back (ptx/ops_bulk.py). A real driver's encoding is its
secret and opaque to programs, so the sim's may be anything the two agree on; what a program can
observe — which arguments are refused, and what a copy through the map moves — follows the Driver
API's documented requirements and the PTX ISA. The sim's copies move tiles without interleaving and
with the 32/64/128-byte swizzles; the interleaved layouts, the sub-byte types and Blackwell's
swizzle atoms are refused at encoding (CUDA_ERROR_NOT_SUPPORTED) rather than copied wrongly.

Served by the sim's handlers for cuTensorMapEncodeTiled and cuTensorMapReplaceAddress
(backends.handlers_for); the im2col maps stay refused by their records. Kernels change a map's fields
in place with tensormap.replace (ptx/ops_tensormap.py, at the offsets FIELDS names)."""
from __future__ import annotations

import struct
from dataclasses import dataclass

from .errors import SimError

MAP_BYTES = 128
MAGIC = b"RTM1"
MAX_RANK = 5
# CUtensorMapDataType -> element bytes (the sub-byte types of Blackwell are not copied by the sim)
ELEMENT_BYTES = {0: 1, 1: 2, 2: 4, 3: 4, 4: 8, 5: 8, 6: 2, 7: 4, 8: 8, 9: 2, 10: 4, 11: 4, 12: 4}
FLOAT_TYPES = {6, 7, 8, 9, 10, 11, 12}
SWIZZLE_SPAN = {0: 0, 1: 32, 2: 64, 3: 128}  # CU_TENSOR_MAP_SWIZZLE_*: the bytes a swizzled row spans
# u8 type, rank, interleave, swizzle, L2 promotion, OOB fill, swizzle atomicity (PTX's .swizzle_atomicity,
# 0 for 16 bytes: an encoding's swizzles 4-6 are 128-byte swizzles of other atoms); the address; dims - 1
# (u32); the strides of dims 1.. in bytes (u64); the box (u16); the element strides (u8)
_LAYOUT = struct.Struct("<4s7B5xQ5I4Q5H5B")
# Where tensormap.replace (ptx/ops_tensormap.py) finds each field in that layout: byte offset, width,
# and the offset of field `ord` from the first (fields across the rank)
FIELDS = {"elemtype": (4, 1, 0), "rank": (5, 1, 0), "interleave_layout": (6, 1, 0), "swizzle_mode": (7, 1, 0),
          "fill_mode": (9, 1, 0), "swizzle_atomicity": (10, 1, 0), "global_address": (16, 8, 0),
          "global_dim": (24, 4, 4), "global_stride": (44, 8, 8), "box_dim": (76, 2, 2), "element_stride": (86, 1, 1)}
# PTX's .elemtype numbers (PTX ISA, tensormap.replace) -> CUtensorMapDataType: they differ from 8 to 10
PTX_ELEMTYPE = {0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 10, 9: 8, 10: 9, 11: 11, 12: 12,
                13: 13, 14: 14, 15: 15}
ATOM_SWIZZLE = {1: 4, 2: 5, 3: 6}  # a 128-byte swizzle's atomicity -> CU_TENSOR_MAP_SWIZZLE_128B_ATOM_*


@dataclass(frozen=True)
class TensorMap:
    dtype: int
    rank: int
    address: int
    dims: tuple[int, ...]
    strides: tuple[int, ...]  # in bytes, of dims 1..rank-1 (dim 0's is the element size)
    box: tuple[int, ...]
    element_strides: tuple[int, ...]
    swizzle: int = 0
    l2: int = 0
    oob: int = 0
    interleave: int = 0

    @property
    def element_bytes(self) -> int:
        return ELEMENT_BYTES[self.dtype]

    def pack(self) -> bytes:
        pad = lambda v, n: tuple(v) + (0,) * (n - len(v))  # noqa: E731
        # a 128-byte swizzle of 32- or 64-byte atoms is kept as PTX's fields are: mode 3 and its atomicity
        atom = next((a for a, sw in ATOM_SWIZZLE.items() if sw == self.swizzle), 0)
        out = _LAYOUT.pack(MAGIC, self.dtype, self.rank, self.interleave, 3 if atom else self.swizzle, self.l2,
                           self.oob, atom, self.address, *pad([d - 1 for d in self.dims], 5), *pad(self.strides, 4),
                           *pad(self.box, 5), *pad(self.element_strides, 5))
        return out.ljust(MAP_BYTES, b"\0")


def _invalid(why: str):
    raise SimError("CUDA_ERROR_INVALID_VALUE", f"tensor map: {why}")


def encode_tiled(dtype, rank, address, dims: bytes, strides: bytes, box: bytes, element_strides: bytes,
                 interleave, swizzle, l2, oob) -> bytes:
    """cuTensorMapEncodeTiled's checks (CUDA Driver API, Tensor Map Object Management), then the map."""
    if not 1 <= rank <= MAX_RANK:
        _invalid(f"rank {rank}: 1 to {MAX_RANK}")
    sizes = {"dims": (dims, 8, rank), "strides": (strides, 8, rank - 1), "box": (box, 4, rank),
             "element strides": (element_strides, 4, rank)}
    for what, (data, width, n) in sizes.items():
        if not isinstance(data, bytes) or len(data) != width * n:
            _invalid(f"{what}: {n} elements for rank {rank}")
    dims_t = struct.unpack(f"<{rank}Q", dims)
    strides_t = struct.unpack(f"<{rank - 1}Q", strides)
    box_t = struct.unpack(f"<{rank}I", box)
    es_t = struct.unpack(f"<{rank}I", element_strides)
    if dtype in (13, 14, 15):
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", "tensor map: the software GPU copies no packed sub-byte types")
    if dtype not in ELEMENT_BYTES:
        _invalid(f"data type {dtype}")
    if interleave not in (0, 1, 2) or swizzle not in range(7) or l2 not in range(4) or oob not in (0, 1):
        _invalid(f"interleave {interleave}, swizzle {swizzle}, L2 promotion {l2}, OOB fill {oob}")
    if interleave:
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", "tensor map: the software GPU copies no interleaved layouts")
    if swizzle > 3:
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"tensor map: the software GPU has no swizzle atom mode {swizzle}")
    elem = ELEMENT_BYTES[dtype]
    if address % 16:
        _invalid(f"global address 0x{address:x} is not 16-byte aligned")
    if any(not 1 <= d <= 1 << 32 for d in dims_t):
        _invalid(f"dimensions {dims_t}: each 1 to 2^32")
    if any(s % 16 or s >= 1 << 40 for s in strides_t):
        _invalid(f"strides {strides_t}: multiples of 16 below 2^40")
    if any(not 1 <= b <= 256 for b in box_t):
        _invalid(f"box {box_t}: each 1 to 256")
    if box_t[0] * elem % 16:
        _invalid(f"the box's inner dimension ({box_t[0]} x {elem} bytes) is not a multiple of 16 bytes")
    if swizzle and box_t[0] * elem > SWIZZLE_SPAN[swizzle]:
        _invalid(f"the box's inner dimension ({box_t[0] * elem} bytes) exceeds the swizzle's span "
                 f"({SWIZZLE_SPAN[swizzle]} bytes)")
    if any(not 1 <= e <= 8 for e in es_t):
        _invalid(f"element strides {es_t}: each 1 to 8")
    if oob and dtype not in FLOAT_TYPES:
        _invalid("an OOB fill of NaN needs a floating-point type")
    return TensorMap(dtype, rank, address, dims_t, strides_t, box_t, es_t, swizzle, l2, oob).pack()


def replace_address(data: bytes, address: int) -> bytes:
    m = decode(data)
    if address % 16:
        _invalid(f"global address 0x{address:x} is not 16-byte aligned")
    return TensorMap(m.dtype, m.rank, address, m.dims, m.strides, m.box, m.element_strides, m.swizzle, m.l2,
                     m.oob, m.interleave).pack()


def decode(data: bytes) -> TensorMap:
    """The map `data` holds; CUDA_ERROR_INVALID_VALUE for bytes no encoding of the sim's made."""
    if not isinstance(data, (bytes, bytearray)) or len(data) != MAP_BYTES or data[:4] != MAGIC:  # nil: no map
        _invalid("not a tensor map the software GPU encoded")
    (_m, dtype, rank, interleave, swizzle, l2, oob, atom, address, *rest) = _LAYOUT.unpack_from(data)
    if not 1 <= rank <= MAX_RANK or dtype not in ELEMENT_BYTES:
        _invalid("not a tensor map the software GPU encoded")
    if atom or swizzle > 3:
        # what tensormap.replace can make and the encoder refuses: 128-byte swizzles of other atoms, 96B
        raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"tensor map: the software GPU copies no swizzle of mode "
                                                   f"{swizzle} with atomicity {atom} (only 16-byte atoms)")
    dims, strides, box, es = rest[:5], rest[5:9], rest[9:14], rest[14:19]
    return TensorMap(dtype, rank, address, tuple(d + 1 for d in dims[:rank]), tuple(strides[:rank - 1]),
                     tuple(box[:rank]), tuple(es[:rank]), swizzle, l2, oob, interleave)


def handlers() -> dict[str, object]:
    """Call name -> handler(session, *args) for the tensor-map calls the sim serves."""
    def tiled(s, dtype, rank, address, dims, strides, box, element_strides, interleave, swizzle, l2, oob):
        return (encode_tiled(dtype, rank, address, dims, strides, box, element_strides, interleave, swizzle,
                             l2, oob),)

    def replace(s, data, address):
        return (replace_address(data, address),)
    return {"cuTensorMapEncodeTiled": tiled, "cuTensorMapReplaceAddress": replace}
