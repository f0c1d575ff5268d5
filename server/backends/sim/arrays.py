"""CUDA arrays, texture and surface objects of the software GPU (the SimDevice's part of the Device
interface for them; the checks are above, in server/api/arrays.py and textures.py).

An array is an allocation of the session's device memory (so it counts against the quota and goes
with the session), its elements dense in row-major order: x fastest, then rows, then depth slices,
layers or cube faces (six per layer). Texture and surface objects are entries of the memory's
tables (``DeviceMemory.textures`` / ``surfaces``) under the 64-bit value kernels receive; values are
never reused within a session, so a kernel holding a destroyed object's value faults."""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..resources import ArrayDesc, Box, Resource, Side, TextureDesc, ViewDesc
from .texunit import Surface, Texture


class SimArray:
    __slots__ = ("desc", "addr", "freed")

    def __init__(self, desc: ArrayDesc, addr: int):
        self.desc, self.addr, self.freed = desc, addr, False


class SimArrays:
    """Mixed into SimDevice: needs ``self.memory`` (a DeviceMemory)."""

    def array_create(self, desc: ArrayDesc) -> SimArray:
        return SimArray(desc, self.memory.alloc(desc.nbytes))

    def array_destroy(self, arr: SimArray) -> None:
        if not arr.freed:
            arr.freed = True
            self.memory.free(arr.addr)

    def mipmap_create(self, desc: ArrayDesc, levels: int):
        made = []
        try:
            for n in range(levels):
                made.append(self.array_create(desc.level(n)))
        except BaseException:
            for a in made:
                self.array_destroy(a)
            raise
        return made, made

    def mipmap_destroy(self, mip) -> None:
        for a in mip:
            self.array_destroy(a)

    # -- checkpoints: an array is an allocation of the session, whose bytes go with its memory, so
    # only where it is travels; the restored layout holds that allocation already
    def array_state(self, desc: ArrayDesc, arr: SimArray, contents: bool) -> dict:
        return {"addr": arr.addr}

    def array_restore(self, desc: ArrayDesc, state: dict) -> SimArray:
        self.memory.check_range(state["addr"], desc.nbytes)
        return SimArray(desc, state["addr"])

    def mipmap_state(self, desc: ArrayDesc, mip, levels, contents: bool) -> dict:
        return {"addrs": [a.addr for a in mip]}

    def mipmap_restore(self, desc: ArrayDesc, state: dict):
        made = [self.array_restore(desc.level(n), {"addr": a}) for n, a in enumerate(state["addrs"])]
        return made, made

    # -- copies ----------------------------------------------------------------------------------
    def _region(self, side: Side, box: Box, host):
        """A (depth, height, width) uint8 view of one side's bytes of the box."""
        w, h, d = box.width, box.height, box.depth
        mem = self.memory
        if side.kind == "host":
            return np.frombuffer(host, np.uint8).reshape(d, h, w) if host is not None else np.empty((d, h, w), np.uint8)
        if side.kind == "array":
            a = side.array.obj
            desc = a.desc
            off = a.addr - mem.base
            whole = mem.arena[off:off + desc.nbytes].reshape(desc.slices, desc.rows, desc.row_bytes)
            return whole[side.z:side.z + d, side.y:side.y + h, side.x:side.x + w]
        start = side.address + (side.z * side.height + side.y) * side.pitch + side.x
        span = ((d - 1) * side.height + (h - 1)) * side.pitch + w
        off = mem.check_range(start, span)
        return as_strided(mem.arena[off:off + span], shape=(d, h, w), strides=(side.height * side.pitch, side.pitch, 1),
                          writeable=True)

    def array_copy(self, box: Box, stream, data=None):
        """Copy the box; host source bytes come packed in `data`, a host destination's are returned
        packed."""
        src = self._region(box.src, box, data)
        dst = self._region(box.dst, box, None)
        if box.dst.kind == "host":
            return np.ascontiguousarray(src).reshape(-1)
        if np.shares_memory(src, dst):
            src = src.copy()
        dst[...] = src
        return None

    # -- texture and surface objects -------------------------------------------------------------
    def _next_object(self) -> int:
        mem = self.memory
        mem.next_object += 1
        return mem.next_object

    def tex_create(self, res: Resource, tex: TextureDesc, view: ViewDesc | None):
        value = self._next_object()
        obj = Texture(res, tex, view)
        self.memory.textures[value] = obj
        return value, obj

    def tex_destroy(self, value: int, obj) -> None:
        self.memory.textures.pop(value, None)

    def surf_create(self, res: Resource):
        value = self._next_object()
        obj = Surface(res)
        self.memory.surfaces[value] = obj
        return value, obj

    def surf_destroy(self, value: int, obj) -> None:
        self.memory.surfaces.pop(value, None)

    objects_keep_values = True

    def object_restore(self, kind: str, value: int, res: Resource, tex: TextureDesc | None, view: ViewDesc | None):
        """An object made again at the value the program holds; later ones are numbered past it, as
        values are never reused within a session."""
        mem = self.memory
        table = mem.textures if kind == "texture" else mem.surfaces
        if value in mem.textures or value in mem.surfaces:
            from ...checkpoint.image import CheckpointError
            raise CheckpointError(f"{kind} object {value} is made twice")
        obj = Texture(res, tex, view) if kind == "texture" else Surface(res)
        table[value] = obj
        mem.next_object = max(mem.next_object, value)
        return obj
