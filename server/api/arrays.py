"""CUDA arrays: creation (plain, layered, cubemap, surface load/store, mipmapped), descriptors,
destruction, and copies between arrays and host or device memory, for both backends.

The checks live here, so both backends refuse the same input with the same error: a descriptor
with a format or shape CUDA does not make (server/backends/resources.py), a handle this session did
not make, a copy past an array's extent or outside device allocations. A copy is a box (bytes x rows
x slices, as CUDA_MEMCPY3D says it) between two sides; host data travels packed in the call's frames.
The linear forms (cuMemcpyHtoA and its kin: an offset into the array's bytes in row-major order)
become the boxes of whole and partial rows they cover."""
from __future__ import annotations

from rgpu.protocol.generated import enums

from ..backends.resources import ArrayDesc, ArrayRef, Box, MipmapRef, Side, bad, check_array, mip_levels
from ..errors import CudaError
from . import Bulk, handles
from .device import _cffi

_ATTR = enums.CUdevice_attribute_enum


def attr_number(name: str) -> int:
    return _ATTR[name]


def _struct(name: str, raw: bytes):
    ffi = _cffi()
    p = ffi.new(f"{name} *")
    if raw is None or len(raw) != ffi.sizeof(name):
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"{name}: {0 if raw is None else len(raw)} bytes")
    ffi.memmove(p, raw, len(raw))
    return p


def _pack(p) -> bytes:
    return bytes(_cffi().buffer(p))


def get_array(s, h: int) -> ArrayRef:
    return s.get("array", h)


# -- creation and descriptors ------------------------------------------------------------------------
def _make(s, desc: ArrayDesc) -> int:
    check_array(desc, s.device.attributes(), attr_number)
    return s.new_handle("array", ArrayRef(desc, s.device.array_create(desc)))


@handles("cuArrayCreate_v2")
def array_create(s, raw):
    d = _struct("CUDA_ARRAY_DESCRIPTOR", raw)
    return (_make(s, ArrayDesc(d.Width, d.Height, 0, int(d.Format), d.NumChannels)),)


@handles("cuArray3DCreate_v2")
def array3d_create(s, raw):
    d = _struct("CUDA_ARRAY3D_DESCRIPTOR", raw)
    return (_make(s, ArrayDesc(d.Width, d.Height, d.Depth, int(d.Format), d.NumChannels, d.Flags)),)


@handles("cuArrayGetDescriptor_v2")
def array_get_descriptor(s, h):
    desc = get_array(s, h).desc
    if desc.depth or desc.flags & 0x05:  # a 3D, layered or cubemap array has no 2D descriptor
        raise CudaError("CUDA_ERROR_INVALID_VALUE", "a 3D, layered or cubemap array: use cuArray3DGetDescriptor")
    p = _cffi().new("CUDA_ARRAY_DESCRIPTOR *")
    p.Width, p.Height, p.Format, p.NumChannels = desc.width, desc.height, desc.format, desc.channels
    return (_pack(p),)


@handles("cuArray3DGetDescriptor_v2")
def array3d_get_descriptor(s, h):
    desc = get_array(s, h).desc
    p = _cffi().new("CUDA_ARRAY3D_DESCRIPTOR *")
    p.Width, p.Height, p.Depth = desc.width, desc.height, desc.depth
    p.Format, p.NumChannels, p.Flags = desc.format, desc.channels, desc.flags
    return (_pack(p),)


@handles("cuArrayDestroy")
def array_destroy(s, h):
    ref = get_array(s, h)
    if ref.level_of is not None:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", "a level of a mipmapped array goes with its mipmapped array")
    s.drop("array", h)
    ref.alive = False
    s.device.array_destroy(ref.obj)
    return ()


@handles("cuMipmappedArrayCreate")
def mipmap_create(s, raw, levels):
    d = _struct("CUDA_ARRAY3D_DESCRIPTOR", raw)
    desc = ArrayDesc(d.Width, d.Height, d.Depth, int(d.Format), d.NumChannels, d.Flags)
    check_array(desc, s.device.attributes(), attr_number)
    if not 1 <= levels <= mip_levels(desc):
        raise CudaError("CUDA_ERROR_INVALID_VALUE",
                        f"{levels} mipmap levels: a {desc.width}x{desc.height}x{desc.depth} array has 1 to "
                        f"{mip_levels(desc)}")
    obj, level_objs = s.device.mipmap_create(desc, levels)
    mip = MipmapRef(desc, obj)
    mip.levels = [ArrayRef(desc.level(n), o, level_of=mip) for n, o in enumerate(level_objs)]
    return (s.new_handle("mipmap", mip),)


@handles("cuMipmappedArrayGetLevel")
def mipmap_get_level(s, h, level):
    mip = s.get("mipmap", h)
    if level >= len(mip.levels):
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"level {level} of a mipmapped array of {len(mip.levels)}")
    if level not in mip.level_handles:  # the same handle every time, as CUDA's is the same array
        mip.level_handles[level] = s.new_handle("array", mip.levels[level])
    return (mip.level_handles[level],)


@handles("cuMipmappedArrayDestroy")
def mipmap_destroy(s, h):
    mip = s.drop("mipmap", h)
    for lh in mip.level_handles.values():
        s.drop("array", lh)
    for ref in mip.levels:
        ref.alive = False
    mip.alive = False
    s.device.mipmap_destroy(mip.obj)
    return ()


@handles("cuDeviceGetTexture1DLinearMaxWidth")
def texture_1d_linear_max_width(s, fmt, channels, dev):
    from ..backends.resources import check_format
    check_format(fmt, channels)
    return (s.device.attributes().get(attr_number("CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH"), 0),)


# -- copies ---------------------------------------------------------------------------------------
def _side(s, array, device, pitch, height, x, y, z) -> Side:
    if array:
        return Side("array", get_array(s, array), x=x, y=y, z=z)
    if device:
        return Side("device", address=device, pitch=pitch, height=height, x=x, y=y, z=z)
    return Side("host")


def _check_side(s, side: Side, w: int, h: int, d: int, what: str) -> None:
    if side.kind == "array":
        desc = side.array.desc
        if side.x % desc.elem or w % desc.elem:
            raise bad(f"{what}: x {side.x} and width {w} must be whole {desc.elem}-byte elements of the array")
        if side.x + w > desc.row_bytes or side.y + h > desc.rows or side.z + d > desc.slices:
            raise bad(f"{what}: a box of {w} bytes x {h} rows x {d} slices at ({side.x}, {side.y}, {side.z}) is past "
                      f"the array's extent ({desc.row_bytes} bytes x {desc.rows} rows x {desc.slices} slices)")
    elif side.kind == "device":
        if side.pitch < side.x + w:
            raise CudaError("CUDA_ERROR_INVALID_VALUE", f"{what}: pitch {side.pitch} is less than x + width")
        if d > 1 and side.height < side.y + h:
            raise bad(f"{what}: {side.height} rows per slice hold no {side.y + h}")
        start = side.address + (side.z * side.height + side.y) * side.pitch + side.x
        span = ((d - 1) * side.height + (h - 1)) * side.pitch + w
        found = s.device.allocation(start)
        if found is None or start + span > found[0] + found[1]:
            raise bad(f"{what}: [0x{start:x}, +{span}) is outside any allocation")


def copy_box(s, box: Box, stream, bulk=()):
    """Check and run one box; returns the packed bytes for a host destination."""
    if box.width == 0 or box.height == 0 or box.depth == 0:
        return None
    if box.src.kind == "host" and box.dst.kind == "host":
        raise bad("a copy between host memory and host memory has nothing to do on a device")
    _check_side(s, box.src, box.width, box.height, box.depth, "source")
    _check_side(s, box.dst, box.width, box.height, box.depth, "destination")
    data = None
    if box.src.kind == "host":
        n = box.width * box.height * box.depth
        data = bytes(bulk[0]) if len(bulk) == 1 else b"".join(bytes(b) for b in bulk)
        if len(data) != n:
            raise bad(f"host data of {len(data)} bytes for a box of {n}")
    return s.device.array_copy(box, stream, data)


def _memcpy3d(s, stream, sa, sd, sp, sh, sx, sy, sz, da, dd, dp, dh, dx, dy, dz, w, h, d, bulk):
    box = Box(_side(s, sa, sd, sp, sh, sx, sy, sz), _side(s, da, dd, dp, dh, dx, dy, dz), w, h, d)
    out = copy_box(s, box, stream, bulk)
    return (Bulk(out),) if box.dst.kind == "host" and out is not None else ()


@handles("cuMemcpy3D_v2")
def memcpy3d(s, sa, sd, sp, sh, sx, sy, sz, da, dd, dp, dh, dx, dy, dz, w, h, d, bulk=()):
    """[src array, device, pitch, rows, x, y, z, dst ..., width bytes, height, depth]: a side with neither
    array nor address is host data (frames in, or packed frames back)."""
    return _memcpy3d(s, None, sa, sd, sp, sh, sx, sy, sz, da, dd, dp, dh, dx, dy, dz, w, h, d, bulk)


@handles("cuMemcpy3DAsync_v2")
def memcpy3d_async(s, sa, sd, sp, sh, sx, sy, sz, da, dd, dp, dh, dx, dy, dz, w, h, d, stream, bulk=()):
    return _memcpy3d(s, s.get("stream", stream), sa, sd, sp, sh, sx, sy, sz, da, dd, dp, dh, dx, dy, dz, w, h, d,
                     bulk)


def linear_runs(desc: ArrayDesc, offset: int, count: int):
    """(x, y, z, width, rows) boxes covering bytes [offset, offset+count) of an array in row-major
    order: a partial first row, whole rows (never across a slice), a partial last row."""
    if offset < 0 or count < 0 or offset + count > desc.nbytes:
        raise bad(f"bytes [{offset}, +{count}) are past the array's {desc.nbytes}")
    if offset % desc.elem or count % desc.elem:
        raise bad(f"offset {offset} and count {count} must be whole {desc.elem}-byte elements")
    row, rows = desc.row_bytes, desc.rows
    out = []
    while count:
        line, x = divmod(offset, row)
        z, y = divmod(line, rows)
        if x or count < row:
            w, n = min(row - x, count), 1
        else:
            w, n = row, min(count // row, rows - y)
        out.append((x, y, z, w, n))
        offset += w * n
        count -= w * n
    return out


def _linear(s, stream, array_h, offset, count, other: Side, to_array: bool, bulk=()):
    """Bytes [offset, +count) of an array to or from `other` (host data, or device memory read or
    written contiguously)."""
    ref = get_array(s, array_h)
    runs = linear_runs(ref.desc, offset, count)
    data = None
    if other.kind == "host" and to_array:
        data = bytes(bulk[0]) if len(bulk) == 1 else b"".join(bytes(b) for b in bulk)
    out, done = [], 0
    for x, y, z, w, n in runs:
        arr = Side("array", ref, x=x, y=y, z=z)
        if other.kind == "device":
            lin = Side("device", address=other.address + done, pitch=w, height=n)
        else:
            lin = Side("host")
        box = Box(lin, arr, w, n, 1) if to_array else Box(arr, lin, w, n, 1)
        part = copy_box(s, box, stream, (data[done:done + w * n],) if data is not None else ())
        if part is not None:
            out.append(bytes(part))
        done += w * n
    return b"".join(out)


@handles("cuMemcpyHtoA_v2")
def memcpy_htoa(s, dst, offset, count, bulk=()):
    _linear(s, None, dst, offset, count, Side("host"), True, bulk)
    return ()


@handles("cuMemcpyHtoAAsync_v2")
def memcpy_htoa_async(s, dst, offset, count, stream, bulk=()):
    _linear(s, s.get("stream", stream), dst, offset, count, Side("host"), True, bulk)
    return ()


@handles("cuMemcpyAtoH_v2")
def memcpy_atoh(s, src, offset, count):
    return (Bulk(_linear(s, None, src, offset, count, Side("host"), False)),)


@handles("cuMemcpyAtoHAsync_v2")
def memcpy_atoh_async(s, src, offset, count, stream):
    return (Bulk(_linear(s, s.get("stream", stream), src, offset, count, Side("host"), False)),)


@handles("cuMemcpyDtoA_v2")
def memcpy_dtoa(s, dst, offset, src, count):
    _linear(s, None, dst, offset, count, Side("device", address=src), True)
    return ()


@handles("cuMemcpyAtoD_v2")
def memcpy_atod(s, dst, src, offset, count):
    _linear(s, None, src, offset, count, Side("device", address=dst), False)
    return ()


@handles("cuMemcpyAtoA_v2")
def memcpy_atoa(s, dst, dst_offset, src, src_offset, count):
    """Through the server: the two arrays' rows need not line up."""
    data = _linear(s, None, src, src_offset, count, Side("host"), False)
    linear_runs(get_array(s, dst).desc, dst_offset, count)  # checked before anything is written
    _linear(s, None, dst, dst_offset, count, Side("host"), True, (data,))
    return ()
