"""CUDA arrays, texture and surface objects on a real GPU: the CudaDevice's part of the Device
interface for them. The handlers above (server/api/arrays.py, textures.py) have checked every
descriptor and translated every session handle into the backend's object, so this only rebuilds the
Driver's structs by value with the driver's own handles in them (CUarray, CUmipmappedArray) and calls
it. A texture or surface object's value is the driver's CUtexObject / CUsurfObject: kernels receive
it by value, so it cannot be a session handle; the session remembers which values it made.

A moved or failed-over session's objects are made again at the values the program holds
(object_restore). The driver chooses a value, but from a table of its own: on an H200 (driver 580,
benchmarks/native/probes/object_values.cu) a fresh context numbers textures and surfaces together
from 1 and gives the lowest free value, the same in every process. So the target makes the objects
in the order of their values, with fillers for the values the program no longer holds (destroyed
once all are made), and checks every value it gets: one past the value wanted (a driver that numbers
otherwise) fails the restore, and the session stays where it was.

Arrays count against the session's memory quota by their bytes (the driver's padding is not seen)."""
from __future__ import annotations

from ..resources import RES_ARRAY, RES_LINEAR, RES_MIPMAP, ArrayDesc, Box, Resource, Side, TextureDesc, ViewDesc
from ...errors import CudaError

MEMORYTYPE_HOST, MEMORYTYPE_DEVICE, MEMORYTYPE_ARRAY = 1, 2, 3


def _destroy(lib, kind: str, value: int):
    """The driver's destroy of a texture or surface object; its CUresult (not checked: a session's
    end and a restore's clean-up go on past one that fails)."""
    return (lib.cuTexObjectDestroy if kind == "texture" else lib.cuSurfObjectDestroy)(value)


class CudaArrays:
    """Mixed into CudaDevice: needs ``self._reserve``, ``self._arrays``, ``self._objects``,
    ``self._fillers`` and the module's driver."""

    def _driver(self):
        from . import device
        return device.ffi(), device.lib(), device.check

    def _charge(self, nbytes: int) -> None:
        if self._reserve is not None and not self._reserve(nbytes):
            raise CudaError("CUDA_ERROR_OUT_OF_MEMORY", f"an array of {nbytes} bytes exceeds this session's memory")

    def _refund(self, nbytes: int) -> None:
        if self._reserve is not None:
            self._reserve(-nbytes)

    @staticmethod
    def _desc3d(ffi, d: ArrayDesc):
        p = ffi.new("CUDA_ARRAY3D_DESCRIPTOR *")
        p.Width, p.Height, p.Depth = d.width, d.height, d.depth
        p.Format, p.NumChannels, p.Flags = d.format, d.channels, d.flags
        return p

    def array_create(self, desc: ArrayDesc):
        ffi, lib, check = self._driver()
        self._charge(desc.nbytes)
        out = ffi.new("CUarray *")
        rc = lib.cuArray3DCreate_v2(out, self._desc3d(ffi, desc))
        if rc:
            self._refund(desc.nbytes)
            check(rc)
        self._arrays[out[0]] = desc.nbytes
        return out[0]

    def array_destroy(self, array) -> None:
        ffi, lib, check = self._driver()
        check(lib.cuArrayDestroy(array))
        self._refund(self._arrays.pop(array, 0))

    def mipmap_create(self, desc: ArrayDesc, levels: int):
        ffi, lib, check = self._driver()
        nbytes = sum(desc.level(n).nbytes for n in range(levels))
        self._charge(nbytes)
        out = ffi.new("CUmipmappedArray *")
        rc = lib.cuMipmappedArrayCreate(out, self._desc3d(ffi, desc), levels)
        if rc:
            self._refund(nbytes)
            check(rc)
        self._mipmaps[out[0]] = nbytes
        level_objs = []
        lv = ffi.new("CUarray *")
        for n in range(levels):
            check(lib.cuMipmappedArrayGetLevel(lv, out[0], n))
            level_objs.append(lv[0])
        return out[0], level_objs

    def mipmap_destroy(self, mipmap) -> None:
        ffi, lib, check = self._driver()
        check(lib.cuMipmappedArrayDestroy(mipmap))
        self._refund(self._mipmaps.pop(mipmap, 0))

    # -- copies ----------------------------------------------------------------------------------
    @staticmethod
    def _side(ffi, p, prefix: str, side: Side, box: Box, host_buf):
        setattr(p, prefix + "XInBytes", side.x)
        setattr(p, prefix + "Y", side.y)
        setattr(p, prefix + "Z", side.z)
        if side.kind == "array":
            setattr(p, prefix + "MemoryType", MEMORYTYPE_ARRAY)
            setattr(p, prefix + "Array", side.array.obj)
        elif side.kind == "device":
            setattr(p, prefix + "MemoryType", MEMORYTYPE_DEVICE)
            setattr(p, prefix + "Device", side.address)
            setattr(p, prefix + "Pitch", side.pitch)
            setattr(p, prefix + "Height", side.height)
        else:  # host data, packed: rows of `width` bytes, `height` rows a slice
            setattr(p, prefix + "MemoryType", MEMORYTYPE_HOST)
            setattr(p, prefix + "Host", host_buf)
            setattr(p, prefix + "Pitch", box.width)
            setattr(p, prefix + "Height", box.height)

    def array_copy(self, box: Box, stream, data=None):
        """One cuMemcpy3D of the box; host data is a buffer of this call, so a copy with a host side
        is waited for before it returns."""
        ffi, lib, check = self._driver()
        p = ffi.new("CUDA_MEMCPY3D *")
        out = None
        src_buf = ffi.from_buffer(data) if box.src.kind == "host" else ffi.NULL
        if box.dst.kind == "host":
            out = bytearray(box.width * box.height * box.depth)
            dst_buf = ffi.from_buffer(out)
        else:
            dst_buf = ffi.NULL
        self._side(ffi, p, "src", box.src, box, src_buf)
        self._side(ffi, p, "dst", box.dst, box, dst_buf)
        p.WidthInBytes, p.Height, p.Depth = box.width, box.height, box.depth
        s = stream or ffi.NULL
        check(lib.cuMemcpy3DAsync_v2(p, s))
        if box.src.kind == "host" or box.dst.kind == "host":
            check(lib.cuStreamSynchronize(s))
        return out

    # -- texture and surface objects -------------------------------------------------------------
    @staticmethod
    def resource_struct(ffi, res: Resource):
        """CUDA_RESOURCE_DESC with the driver's handles in it."""
        p = ffi.new("CUDA_RESOURCE_DESC *")
        p.resType = res.type
        if res.type == RES_ARRAY:
            p.res.array.hArray = res.array.obj
        elif res.type == RES_MIPMAP:
            p.res.mipmap.hMipmappedArray = res.mipmap.obj
        elif res.type == RES_LINEAR:
            p.res.linear.devPtr, p.res.linear.format = res.address, res.format
            p.res.linear.numChannels, p.res.linear.sizeInBytes = res.channels, res.size
        else:
            pd = p.res.pitch2D
            pd.devPtr, pd.format, pd.numChannels = res.address, res.format, res.channels
            pd.width, pd.height, pd.pitchInBytes = res.width, res.height, res.pitch
        return p

    @staticmethod
    def texture_struct(ffi, tex: TextureDesc):
        t = ffi.new("CUDA_TEXTURE_DESC *")
        for i in range(3):
            t.addressMode[i] = tex.address[i]
        t.filterMode, t.flags, t.maxAnisotropy = tex.filter, tex.flags, tex.max_anisotropy
        t.mipmapFilterMode, t.mipmapLevelBias = tex.mipmap_filter, tex.lod_bias
        t.minMipmapLevelClamp, t.maxMipmapLevelClamp = tex.min_lod, tex.max_lod
        for i in range(4):
            t.borderColor[i] = tex.border[i]
        return t

    @staticmethod
    def view_struct(ffi, view: ViewDesc | None):
        if view is None:
            return ffi.NULL
        v = ffi.new("CUDA_RESOURCE_VIEW_DESC *")
        v.format, v.width, v.height, v.depth = view.format, view.width, view.height, view.depth
        v.firstMipmapLevel, v.lastMipmapLevel = view.first_level, view.last_level
        v.firstLayer, v.lastLayer = view.first_layer, view.last_layer
        return v

    def tex_create(self, res: Resource, tex: TextureDesc, view: ViewDesc | None):
        ffi, lib, check = self._driver()
        out = ffi.new("CUtexObject *")
        check(lib.cuTexObjectCreate(out, self.resource_struct(ffi, res), self.texture_struct(ffi, tex),
                                    self.view_struct(ffi, view)))
        self._objects[("texture", out[0])] = True
        return out[0], out[0]

    def tex_destroy(self, value: int, obj) -> None:
        ffi, lib, check = self._driver()
        self._objects.pop(("texture", value), None)
        check(lib.cuTexObjectDestroy(value))

    def surf_create(self, res: Resource):
        ffi, lib, check = self._driver()
        out = ffi.new("CUsurfObject *")
        check(lib.cuSurfObjectCreate(out, self.resource_struct(ffi, res)))
        self._objects[("surface", out[0])] = True
        return out[0], out[0]

    def surf_destroy(self, value: int, obj) -> None:
        ffi, lib, check = self._driver()
        self._objects.pop(("surface", value), None)
        check(lib.cuSurfObjectDestroy(value))

    objects_keep_values = True
    # Values below the one wanted made as fillers at most: a program holding an object of a larger
    # value (a million made and destroyed) is refused rather than spending the pause on fillers
    MAX_FILLERS = 65536

    def object_restore(self, kind: str, value: int, res: Resource, tex: TextureDesc | None,
                       view: ViewDesc | None):
        """Makes the object until the driver gives it `value` (server/checkpoint/session.py calls this in
        the order of the values): smaller values are fillers, kept until objects_restored."""
        from ...checkpoint.image import CheckpointError
        _, lib, _ = self._driver()
        for _ in range(self.MAX_FILLERS + 1):
            if kind == "texture":
                got, obj = self.tex_create(res, tex, view)
            else:
                got, obj = self.surf_create(res)
            if got == value:
                return obj
            self._objects.pop((kind, got), None)
            if got > value:
                _destroy(lib, kind, got)
                raise CheckpointError(f"this GPU's driver made {kind} object 0x{got:x} where the program holds "
                                      f"0x{value:x} (kernels receive the value): it numbers objects otherwise than "
                                      f"the lowest free value")
            self._fillers.append((kind, got))
        raise CheckpointError(f"{kind} object 0x{value:x}: more than {self.MAX_FILLERS} values below it are free")

    def objects_restored(self) -> None:
        """The fillers object_restore made go; the values are free for the program's next objects."""
        _, lib, _ = self._driver()
        fillers, self._fillers = self._fillers, []
        for kind, value in fillers:
            _destroy(lib, kind, value)

    def close_arrays(self) -> None:
        """What the session left behind, before the context goes: objects first, then arrays."""
        self.objects_restored()
        ffi, lib, _ = self._driver()
        for kind, value in list(self._objects):
            _destroy(lib, kind, value)
        for m in list(self._mipmaps):
            lib.cuMipmappedArrayDestroy(m)
        for a in list(self._arrays):
            lib.cuArrayDestroy(a)
        self._refund(sum(self._arrays.values()) + sum(self._mipmaps.values()))
        self._objects.clear()
        self._mipmaps.clear()
        self._arrays.clear()
