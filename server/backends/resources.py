"""CUDA arrays, texture and surface objects as the Device interface takes them: plain descriptions
decoded and checked above the backends (server/api/arrays.py, textures.py), so that both backends
refuse the same bad input with the same error and see only well-formed requests.

Numbers are the Driver API's (cuda.h): CUarray_format, CUDA_ARRAY3D_* flags, CUaddress_mode,
CUfilter_mode, CU_TRSF_* flags, CUresourcetype. The Runtime's enums carry the same values, and the
client converts its structs to the Driver's before they travel (libhook/src/texture/)."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import CudaError

# CUarray_format -> (kind, bytes per channel): "u" unsigned, "s" signed integers, "f" IEEE floats
FORMATS = {0x01: ("u", 1), 0x02: ("u", 2), 0x03: ("u", 4), 0x08: ("s", 1), 0x09: ("s", 2), 0x0A: ("s", 4),
           0x10: ("f", 2), 0x20: ("f", 4)}
FORMAT_NAMES = {0x01: "UNSIGNED_INT8", 0x02: "UNSIGNED_INT16", 0x03: "UNSIGNED_INT32", 0x08: "SIGNED_INT8",
                0x09: "SIGNED_INT16", 0x0A: "SIGNED_INT32", 0x10: "HALF", 0x20: "FLOAT"}

LAYERED, SURFACE_LDST, CUBEMAP, TEXTURE_GATHER = 0x01, 0x02, 0x04, 0x08
DEPTH_TEXTURE, COLOR_ATTACHMENT, SPARSE, DEFERRED_MAPPING = 0x10, 0x20, 0x40, 0x80
KNOWN_FLAGS = LAYERED | SURFACE_LDST | CUBEMAP | TEXTURE_GATHER | DEPTH_TEXTURE | COLOR_ATTACHMENT

WRAP, CLAMP, MIRROR, BORDER = 0, 1, 2, 3
POINT, LINEAR = 0, 1
READ_AS_INTEGER, NORMALIZED_COORDINATES, SRGB = 0x01, 0x02, 0x10
DISABLE_TRILINEAR, SEAMLESS_CUBEMAP = 0x20, 0x40
TEX_FLAGS = READ_AS_INTEGER | NORMALIZED_COORDINATES | SRGB | DISABLE_TRILINEAR | SEAMLESS_CUBEMAP
RES_ARRAY, RES_MIPMAP, RES_LINEAR, RES_PITCH2D = 0, 1, 2, 3


def bad(message: str) -> CudaError:
    return CudaError("CUDA_ERROR_INVALID_VALUE", message)


def check_format(fmt: int, channels: int) -> None:
    if fmt not in FORMATS:
        raise bad(f"array format 0x{fmt:x} is not one CUDA arrays of this server hold "
                  f"({', '.join(FORMAT_NAMES.values())})")
    if channels not in (1, 2, 4):
        raise bad(f"{channels} channels: CUDA arrays have 1, 2 or 4")


@dataclass(frozen=True)
class ArrayDesc:
    """CUDA_ARRAY3D_DESCRIPTOR: Height 0 is a 1D array, Depth 0 a 2D one; a layered array's Depth is
    its layer count, a cubemap's six faces (times its layers)."""
    width: int
    height: int
    depth: int
    format: int
    channels: int
    flags: int = 0

    @property
    def kind(self) -> str:
        return FORMATS[self.format][0]

    @property
    def channel_bytes(self) -> int:
        return FORMATS[self.format][1]

    @property
    def elem(self) -> int:
        """Bytes of one element (all its channels)."""
        return self.channel_bytes * self.channels

    @property
    def layered(self) -> bool:
        return bool(self.flags & LAYERED)

    @property
    def cubemap(self) -> bool:
        return bool(self.flags & CUBEMAP)

    @property
    def rows(self) -> int:
        return max(self.height, 1)

    @property
    def slices(self) -> int:
        """Depth slices, layers or faces: what the third coordinate of a copy counts."""
        return max(self.depth, 1)

    @property
    def row_bytes(self) -> int:
        return self.width * self.elem

    @property
    def nbytes(self) -> int:
        return self.row_bytes * self.rows * self.slices

    @property
    def dims(self) -> int:
        """1, 2 or 3: the dimensions a texture coordinate has (a layer or face index is not one)."""
        if self.cubemap:
            return 2
        if self.layered:
            return 1 if self.height == 0 else 2
        return 1 if self.height == 0 else (2 if self.depth == 0 else 3)

    def level(self, n: int) -> "ArrayDesc":
        """Level n of a mipmapped array of this shape: each dimension halves (never below 1); a
        layered array keeps its layers."""
        def half(v):
            return max(v >> n, 1) if v else 0
        depth = self.depth if (self.layered or self.cubemap) else half(self.depth)
        return ArrayDesc(half(self.width), half(self.height), depth, self.format, self.channels, self.flags)


def check_array(d: ArrayDesc, attrs: dict[int, int], attr_number) -> None:
    """A descriptor CUDA would refuse raises CUDA_ERROR_INVALID_VALUE (or NOT_SUPPORTED for the
    kinds of arrays no backend here serves). `attrs`: the device's attributes; `attr_number(name)`."""
    check_format(d.format, d.channels)
    if d.flags & ~KNOWN_FLAGS:
        if d.flags & (SPARSE | DEFERRED_MAPPING):
            raise CudaError("CUDA_ERROR_NOT_SUPPORTED", "sparse and deferred-mapping CUDA arrays are not served")
        raise bad(f"unknown CUDA array flags 0x{d.flags:x}")
    if d.width <= 0 or d.height < 0 or d.depth < 0 or (d.height == 0 and d.depth and not d.layered):
        raise bad(f"array extent {d.width}x{d.height}x{d.depth} is not 1D (w,0,0), 2D (w,h,0) or 3D (w,h,d)")

    def limit(name):
        return attrs.get(attr_number("CU_DEVICE_ATTRIBUTE_MAXIMUM_" + name), 0) or (1 << 31)

    w, h, dp = d.width, d.height, d.depth
    if d.cubemap:
        if w != h or dp == 0 or dp % 6 or (dp != 6 and not d.layered):
            raise bad(f"a cubemap array is square with six faces per layer, not {w}x{h}x{dp}")
        if d.layered:
            ok = w <= limit("TEXTURECUBEMAP_LAYERED_WIDTH") and dp // 6 <= limit("TEXTURECUBEMAP_LAYERED_LAYERS")
        else:
            ok = w <= limit("TEXTURECUBEMAP_WIDTH")
    elif d.layered:
        if dp == 0:
            raise bad("a layered array has at least one layer (Depth)")
        if h == 0:
            ok = w <= limit("TEXTURE1D_LAYERED_WIDTH") and dp <= limit("TEXTURE1D_LAYERED_LAYERS")
        else:
            ok = (w <= limit("TEXTURE2D_LAYERED_WIDTH") and h <= limit("TEXTURE2D_LAYERED_HEIGHT")
                  and dp <= limit("TEXTURE2D_LAYERED_LAYERS"))
    elif h == 0:
        ok = w <= limit("TEXTURE1D_WIDTH")
    elif dp == 0:
        ok = w <= limit("TEXTURE2D_WIDTH") and h <= limit("TEXTURE2D_HEIGHT")
    else:
        ok = (w <= limit("TEXTURE3D_WIDTH") and h <= limit("TEXTURE3D_HEIGHT") and dp <= limit("TEXTURE3D_DEPTH")) or \
             (w <= limit("TEXTURE3D_WIDTH_ALTERNATE") and h <= limit("TEXTURE3D_HEIGHT_ALTERNATE")
              and dp <= limit("TEXTURE3D_DEPTH_ALTERNATE"))
    if not ok:
        raise bad(f"array extent {w}x{h}x{dp} exceeds the device's texture limits")


def mip_levels(d: ArrayDesc) -> int:
    """How many levels a full mipmap chain of `d` has (down to 1x1x1)."""
    biggest = max(d.width, d.height, 0 if (d.layered or d.cubemap) else d.depth)
    return biggest.bit_length()


@dataclass
class ArrayRef:
    """A CUDA array as the session knows it: its descriptor and the backend's object. `level_of`:
    the mipmapped array it is a level of (such an array is destroyed with it, never alone)."""
    desc: ArrayDesc
    obj: object
    level_of: object = None
    alive: bool = True


@dataclass
class MipmapRef:
    desc: ArrayDesc
    obj: object
    levels: list[ArrayRef] = field(default_factory=list)
    level_handles: dict[int, int] = field(default_factory=dict)  # level -> the session handle given out
    alive: bool = True


@dataclass(frozen=True)
class Side:
    """One side of a copy: host data (packed, travelling as frames), device memory (address,
    pitch, rows per slice) or a CUDA array; `x` in bytes, `y` rows, `z` slices."""
    kind: str  # "host", "device" or "array"
    array: ArrayRef | None = None
    address: int = 0
    pitch: int = 0
    height: int = 0
    x: int = 0
    y: int = 0
    z: int = 0


@dataclass(frozen=True)
class Box:
    """A 3D copy: `width` bytes x `height` rows x `depth` slices from src to dst."""
    src: Side
    dst: Side
    width: int
    height: int
    depth: int


@dataclass(frozen=True)
class Resource:
    """CUDA_RESOURCE_DESC: an array, a mipmapped array, or linear / pitched device memory."""
    type: int
    array: ArrayRef | None = None
    mipmap: MipmapRef | None = None
    address: int = 0
    format: int = 0
    channels: int = 0
    size: int = 0  # linear: bytes
    width: int = 0  # pitch2D: elements
    height: int = 0
    pitch: int = 0

    @property
    def desc(self) -> ArrayDesc:
        """The shape and format a fetch sees (level 0 of a mipmapped array)."""
        if self.type == RES_ARRAY:
            return self.array.desc
        if self.type == RES_MIPMAP:
            return self.mipmap.desc
        elem = FORMATS[self.format][1] * self.channels
        if self.type == RES_LINEAR:
            return ArrayDesc(self.size // elem, 0, 0, self.format, self.channels)
        return ArrayDesc(self.width, self.height, 0, self.format, self.channels)


@dataclass(frozen=True)
class TextureDesc:
    """CUDA_TEXTURE_DESC."""
    address: tuple[int, int, int] = (CLAMP, CLAMP, CLAMP)
    filter: int = POINT
    flags: int = 0
    max_anisotropy: int = 0
    mipmap_filter: int = POINT
    lod_bias: float = 0.0
    min_lod: float = 0.0
    max_lod: float = 0.0
    border: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)

    @property
    def normalized(self) -> bool:
        return bool(self.flags & NORMALIZED_COORDINATES)


@dataclass(frozen=True)
class ViewDesc:
    """CUDA_RESOURCE_VIEW_DESC (format 0: the resource's own)."""
    format: int = 0
    width: int = 0
    height: int = 0
    depth: int = 0
    first_level: int = 0
    last_level: int = 0
    first_layer: int = 0
    last_layer: int = 0
