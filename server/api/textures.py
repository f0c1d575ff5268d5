"""Texture and surface objects, for both backends.

The client sends the Driver's descriptors by value (CUDA_RESOURCE_DESC with the session's array
handle in place of the program's; CUDA_TEXTURE_DESC; CUDA_RESOURCE_VIEW_DESC), and the Runtime's are
converted to them in the client. They are checked here -- formats, modes, flags, alignment of
linear memory, the resource's handle belonging to this session -- so both backends refuse the same
descriptors, then the backend makes the object. Its value is what kernels receive by value, so it is
the backend's own (the driver's on a GPU), and the session remembers which values it made: any
other value is refused by every call here, as a GPU refuses an object of another context."""
from __future__ import annotations

from dataclasses import dataclass

from ..backends import resources as R
from ..errors import CudaError
from . import handles
from .arrays import _pack, _struct, attr_number, get_array
from .device import _cffi


@dataclass
class ObjectRecord:
    res: R.Resource
    obj: object
    res_raw: bytes  # the descriptors as the client sent them: the Get*Desc calls answer with them
    tex_raw: bytes = b""
    view_raw: bytes | None = None


def _attr(s, name: str) -> int:
    return s.device.attributes().get(attr_number("CU_DEVICE_ATTRIBUTE_" + name), 0)


def _in_allocation(s, address: int, nbytes: int, what: str) -> None:
    found = s.device.allocation(address)
    if found is None or address + nbytes > found[0] + found[1]:
        raise R.bad(f"{what}: [0x{address:x}, +{nbytes}) is outside any allocation")


def decode_resource(s, raw: bytes) -> R.Resource:
    ffi = _cffi()
    r = _struct("CUDA_RESOURCE_DESC", raw)
    if r.flags:
        raise R.bad(f"resource descriptor flags 0x{r.flags:x} (must be 0)")
    t = int(r.resType)
    if t == R.RES_ARRAY:
        return R.Resource(t, array=get_array(s, int(ffi.cast("uintptr_t", r.res.array.hArray))))
    if t == R.RES_MIPMAP:
        return R.Resource(t, mipmap=s.get("mipmap", int(ffi.cast("uintptr_t", r.res.mipmap.hMipmappedArray))))
    align = _attr(s, "TEXTURE_ALIGNMENT") or 1
    if t == R.RES_LINEAR:
        lin = r.res.linear
        fmt, ch = int(lin.format), lin.numChannels
        R.check_format(fmt, ch)
        elem = R.FORMATS[fmt][1] * ch
        if lin.devPtr % align:
            raise R.bad(f"linear texture memory at 0x{lin.devPtr:x} is not aligned to {align} bytes")
        if lin.sizeInBytes < elem or lin.sizeInBytes // elem > (_attr(s, "MAXIMUM_TEXTURE1D_LINEAR_WIDTH") or 1 << 62):
            raise R.bad(f"a linear texture of {lin.sizeInBytes} bytes")
        _in_allocation(s, lin.devPtr, lin.sizeInBytes, "linear texture")
        return R.Resource(t, address=lin.devPtr, format=fmt, channels=ch, size=lin.sizeInBytes)
    if t == R.RES_PITCH2D:
        p = r.res.pitch2D
        fmt, ch = int(p.format), p.numChannels
        R.check_format(fmt, ch)
        elem = R.FORMATS[fmt][1] * ch
        pitch_align = _attr(s, "TEXTURE_PITCH_ALIGNMENT") or 1
        if p.devPtr % align or p.pitchInBytes % pitch_align:
            raise R.bad(f"pitched texture memory at 0x{p.devPtr:x}, pitch {p.pitchInBytes}: the address must be "
                        f"aligned to {align} bytes and the pitch to {pitch_align}")
        if not (1 <= p.width <= (_attr(s, "MAXIMUM_TEXTURE2D_LINEAR_WIDTH") or 1 << 62)
                and 1 <= p.height <= (_attr(s, "MAXIMUM_TEXTURE2D_LINEAR_HEIGHT") or 1 << 62)
                and p.width * elem <= p.pitchInBytes <= (_attr(s, "MAXIMUM_TEXTURE2D_LINEAR_PITCH") or 1 << 62)):
            raise R.bad(f"a pitched texture of {p.width}x{p.height} elements of {elem} bytes, pitch {p.pitchInBytes}")
        _in_allocation(s, p.devPtr, p.pitchInBytes * (p.height - 1) + p.width * elem, "pitched texture")
        return R.Resource(t, address=p.devPtr, format=fmt, channels=ch, width=p.width, height=p.height,
                          pitch=p.pitchInBytes)
    raise R.bad(f"resource type {t}")


def decode_texture(raw: bytes, res: R.Resource) -> R.TextureDesc:
    t = _struct("CUDA_TEXTURE_DESC", raw)
    modes = tuple(int(t.addressMode[i]) for i in range(3))
    if any(m not in (R.WRAP, R.CLAMP, R.MIRROR, R.BORDER) for m in modes):
        raise R.bad(f"address modes {modes}")
    if int(t.filterMode) not in (R.POINT, R.LINEAR) or int(t.mipmapFilterMode) not in (R.POINT, R.LINEAR):
        raise R.bad(f"filter modes {int(t.filterMode)}, {int(t.mipmapFilterMode)}")
    if t.flags & ~R.TEX_FLAGS:
        raise R.bad(f"texture flags 0x{t.flags:x}")
    desc = R.TextureDesc(modes, int(t.filterMode), t.flags, t.maxAnisotropy, int(t.mipmapFilterMode),
                         t.mipmapLevelBias, t.minMipmapLevelClamp, t.maxMipmapLevelClamp,
                         tuple(t.borderColor[i] for i in range(4)))
    shape = res.desc
    if res.type == R.RES_MIPMAP and not desc.normalized:
        raise R.bad("a texture over a mipmapped array takes normalised coordinates (CU_TRSF_NORMALIZED_COORDINATES)")
    integer = shape.kind != "f" and (desc.flags & R.READ_AS_INTEGER or shape.channel_bytes == 4)
    if desc.filter == R.LINEAR and integer and res.type != R.RES_LINEAR:
        raise R.bad("linear filtering returns floats: an integer format must be read as normalised floats")
    if desc.flags & R.SEAMLESS_CUBEMAP and not shape.cubemap:
        raise R.bad("seamless cubemap filtering needs a cubemap array")
    return desc


def decode_view(raw: bytes | None, res: R.Resource) -> R.ViewDesc | None:
    if raw is None:
        return None
    v = _struct("CUDA_RESOURCE_VIEW_DESC", raw)
    view = R.ViewDesc(int(v.format), v.width, v.height, v.depth, v.firstMipmapLevel, v.lastMipmapLevel,
                      v.firstLayer, v.lastLayer)
    if res.type not in (R.RES_ARRAY, R.RES_MIPMAP):
        raise R.bad("a resource view is for arrays and mipmapped arrays")
    d = res.desc
    if view.format != 0 or (view.width, view.height, view.depth) not in ((0, 0, 0), (d.width, d.height, d.depth)):
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", "resource views that change the format or extent are not served")
    levels = len(res.mipmap.levels) if res.type == R.RES_MIPMAP else 1
    layers = d.slices // 6 if d.cubemap else (d.slices if d.layered else 1)
    if not (view.first_level <= view.last_level < levels or view.first_level == view.last_level == 0):
        raise R.bad(f"mipmap levels {view.first_level}..{view.last_level} of {levels}")
    if not (view.first_layer <= view.last_layer < layers or view.first_layer == view.last_layer == 0):
        raise R.bad(f"layers {view.first_layer}..{view.last_layer} of {layers}")
    return view


def _record(s, kind: str, value: int) -> ObjectRecord:
    rec = s.objects.get((kind, value))
    if rec is None:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"0x{value:x} is not a {kind} object of this session")
    return rec


@handles("cuTexObjectCreate")
def tex_create(s, res_raw, tex_raw, view_raw):
    """[resource, texture and view descriptors (bytes; the view may be nil)] -> the object's value."""
    res = decode_resource(s, res_raw)
    tex = decode_texture(tex_raw, res)
    view = decode_view(view_raw, res)
    value, obj = s.device.tex_create(res, tex, view)
    s.objects[("texture", value)] = ObjectRecord(res, obj, bytes(res_raw), bytes(tex_raw),
                                                 None if view_raw is None else bytes(view_raw))
    return (value,)


@handles("cuTexObjectDestroy")
def tex_destroy(s, value):
    rec = _record(s, "texture", value)
    del s.objects[("texture", value)]
    s.device.tex_destroy(value, rec.obj)
    return ()


@handles("cuTexObjectGetResourceDesc")
def tex_resource_desc(s, value):
    return (_record(s, "texture", value).res_raw,)


@handles("cuTexObjectGetTextureDesc")
def tex_texture_desc(s, value):
    return (_record(s, "texture", value).tex_raw,)


@handles("cuTexObjectGetResourceViewDesc")
def tex_view_desc(s, value):
    rec = _record(s, "texture", value)
    if rec.view_raw is not None:
        return (rec.view_raw,)
    return (_pack(_cffi().new("CUDA_RESOURCE_VIEW_DESC *")),)


@handles("cuSurfObjectCreate")
def surf_create(s, res_raw):
    res = decode_resource(s, res_raw)
    if res.type != R.RES_ARRAY:
        raise R.bad("a surface object's resource is a CUDA array")
    if not res.array.desc.flags & R.SURFACE_LDST:
        raise R.bad("the array was not made for surfaces (CUDA_ARRAY3D_SURFACE_LDST / cudaArraySurfaceLoadStore)")
    value, obj = s.device.surf_create(res)
    s.objects[("surface", value)] = ObjectRecord(res, obj, bytes(res_raw))
    return (value,)


@handles("cuSurfObjectDestroy")
def surf_destroy(s, value):
    rec = _record(s, "surface", value)
    del s.objects[("surface", value)]
    s.device.surf_destroy(value, rec.obj)
    return ()


@handles("cuSurfObjectGetResourceDesc")
def surf_resource_desc(s, value):
    return (_record(s, "surface", value).res_raw,)
