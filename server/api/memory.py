"""Device memory: allocation, copies, memsets, pointer queries."""
from __future__ import annotations

from rgpu.protocol.generated.constants import D2H_CHUNK, MAX_CHUNKS

from ..errors import CudaError
from . import Bulk, handles, ipc, placed, pools
from .device import _cffi
from .managed import managed_range

H2H, H2D, D2H, D2D = 0, 1, 2, 3


@handles("cudaMalloc", "cuMemAlloc_v2")
def mem_alloc(s, size):
    if size == 0 and s.face == "runtime":
        return (0,)  # cudaMalloc(&p, 0) succeeds with a null pointer
    addr = s.device.mem_alloc(size)
    ipc.plain(s, addr, True)  # nothing but a cudaFree has a part in it: the serving loop may free it
    return (addr,)


@handles("cudaMallocAsync", "cuMemAllocAsync")
def mem_alloc_async(s, size, stream):
    """From the current memory pool (pools.py), charged to the quota like any allocation."""
    s.get("stream", stream)
    if size == 0 and s.face == "runtime":
        return (0,)
    if size == 0:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", "zero-byte allocation")
    return (pools.allocate(s, size),)


@handles("cudaMallocPitch", "cuMemAllocPitch_v2")
def mem_alloc_pitch(s, width, height, *elem):
    pitch = -(-width // placed.PITCH_ALIGN) * placed.PITCH_ALIGN if width else 0
    if pitch * height == 0:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", "zero-sized pitched allocation")
    return (s.device.mem_alloc(pitch * height), pitch)


@handles("cudaFree", "cuMemFree_v2")
def mem_free(s, addr):
    return _free(s, addr, None)


def _free(s, addr, stream):
    """cudaFree (`stream` None: once the device's work is done) and cudaFreeAsync (once `stream`'s is)."""
    if addr == 0:
        return ()  # freeing NULL is a no-op, in the driver too (NVIDIA's cudaFree(NULL) passes it down)
    found = s.device.allocation(addr)
    if found is None or found[0] != addr:
        # a real GPU answers cudaErrorInvalidValue (1) for a pointer it never returned
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"0x{addr:x} was not returned by an allocation")
    ipc.check_free(s, addr)
    placed.freed(s, s.device.mem_free(addr, stream))
    s.managed.pop(addr, None)
    pools.freed(s, addr)
    ipc.freed(s, addr)
    return ()


@handles("cudaFreeAsync", "cuMemFreeAsync")
def mem_free_async(s, addr, stream):
    return _free(s, addr, s.get("stream", stream))


@handles("cudaMemGetInfo", "cuMemGetInfo_v2")
def mem_get_info(s):
    return s.mem_info()


# D2H replies go in frames of up to D2H_CHUNK bytes, at most MAX_CHUNKS of them (constants shared
# with the client library: protocol/contract/constants.toml). They are views of device memory (no
# server copy), so small frames buy nothing here and cost the client: at 4 MiB a 16 MiB copy ran at
# half the speed of one 16 MiB frame (benchmarks/test_transport.py, d2h 16MiB tcp 1.5 -> 3.0 GB/s).
CHUNK, MAX_CHUNKS = D2H_CHUNK, MAX_CHUNKS


def check_range(s, addr, count):
    """The whole range before any chunk moves, so a bad copy changes nothing. (A moved module
    variable's old address is checked where the variable is now: backends/cuda/aliases.py.)"""
    addr = s.device.alias(addr, count)
    found = s.device.allocation(addr) if count >= 0 else None
    if found is None or addr + count > found[0] + found[1]:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"[0x{addr:x}, +{count}) is outside any allocation")


def _copy(s, kind, dst, src, count, stream, bulk, host=None, wait=True):
    """The dispatcher has checked that any data frames hold `count` bytes (the record's bulk_in).
    `host`: (view, address) of the program's pinned buffer the worker mapped (server/pinned.py): the
    copy goes straight between it and device memory, in stream order; `wait` for a synchronous call."""
    # the device side named by a moved module variable's old address, where the variable is now
    dst, src = s.device.alias(dst, count), s.device.alias(src, count)
    if host is not None:
        view, addr = host
        if len(view) != count or kind not in (H2D, D2H):
            raise CudaError("CUDA_ERROR_INVALID_VALUE", f"a pinned region of {len(view)} bytes for a copy of {count}")
        if kind == H2D:
            s.device.copy_htod_host(dst, view, addr, stream, wait)
        else:
            s.device.copy_dtoh_host(src, view, addr, stream, wait)
        return ()
    if kind == H2D:
        if not bulk:
            raise CudaError("CUDA_ERROR_INVALID_VALUE", "host data missing")
        if len(bulk) == 1:
            s.device.copy_htod(dst, bulk[0], stream)
            return ()
        check_range(s, dst, count)
        for b in bulk:  # a large copy arrives in chunks; each goes straight from its frame
            s.device.copy_htod(dst, b, stream)
            dst += len(b)
        return ()
    if kind == D2H:
        if count <= CHUNK:
            return (Bulk(s.device.copy_dtoh(src, count, stream)),)
        check_range(s, src, count)
        # Chunks: buffers of a size the allocator recycles, instead of fresh pages per copy.
        chunk = max(CHUNK, -(-count // MAX_CHUNKS))
        return tuple(Bulk(s.device.copy_dtoh(src + off, min(chunk, count - off), stream))
                     for off in range(0, count, chunk))
    if kind == D2D:
        s.device.copy_dtod(dst, src, count, stream)
        return ()
    raise CudaError("CUDA_ERROR_INVALID_VALUE", f"copy kind {kind}")


@handles("cudaMemcpy")
def cuda_memcpy(s, dst, src, count, kind, bulk=(), host=None):
    """[dst, src, count, kind] (the host side's address is 0); H2D data as frames, D2H data back as frames."""
    return _copy(s, kind, dst, src, count, None, bulk, host)


@handles("cudaMemcpyAsync")
def cuda_memcpy_async(s, dst, src, count, kind, stream, bulk=(), host=None):
    return _copy(s, kind, dst, src, count, s.get("stream", stream), bulk, host, False)


@handles("cuMemcpyHtoD_v2")
def cu_memcpy_htod(s, dst, count, bulk=(), host=None):
    return _copy(s, H2D, dst, 0, count, None, bulk, host)


@handles("cuMemcpyHtoDAsync_v2")
def cu_memcpy_htod_async(s, dst, count, stream, bulk=(), host=None):
    return _copy(s, H2D, dst, 0, count, s.get("stream", stream), bulk, host, False)


@handles("cuMemcpyDtoH_v2")
def cu_memcpy_dtoh(s, src, count, host=None):
    return _copy(s, D2H, 0, src, count, None, (), host)


@handles("cuMemcpyDtoHAsync_v2")
def cu_memcpy_dtoh_async(s, src, count, stream, host=None):
    return _copy(s, D2H, 0, src, count, s.get("stream", stream), (), host, False)


@handles("cuMemcpyDtoD_v2")
def cu_memcpy_dtod(s, dst, src, count):
    return _copy(s, D2D, dst, src, count, None, ())


@handles("cuMemcpyDtoDAsync_v2")
def cu_memcpy_dtod_async(s, dst, src, count, stream):
    return _copy(s, D2D, dst, src, count, s.get("stream", stream), ())


@handles("cudaPointerGetAttributes")
def cuda_pointer_get_attributes(s, ptr):
    """Device memory reports cudaMemoryTypeDevice, managed memory cudaMemoryTypeManaged (valid on
    both sides at one address); anything else is unregistered host memory."""
    ffi = _cffi()
    a = ffi.new("struct cudaPointerAttributes *")
    if managed_range(s, ptr) is not None:
        a.type, a.device = 3, 0
        a.devicePointer = a.hostPointer = ffi.cast("void *", ptr)
    elif s.device.allocation(ptr) is not None:
        a.type, a.device, a.devicePointer = 2, 0, ffi.cast("void *", ptr)
    else:
        a.type = 0  # cudaMemoryTypeUnregistered
        a.device = -2  # what CUDA reports for unregistered host memory
        a.hostPointer = ffi.cast("void *", ptr)
    return (bytes(ffi.buffer(a)),)


def _memset_2d(s, dst, pitch, value, elem, width, height, stream):
    """width elements of `elem` bytes in each of height rows, pitch bytes apart (a 1D memset is
    one row). The whole range is checked first, so a bad memset changes nothing."""
    if min(pitch, width, height) < 0:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"a negative extent ({width} x {height}, pitch {pitch})")
    if height == 0 or width == 0:
        return ()
    if pitch < width * elem:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"pitch {pitch} is less than the row ({width * elem} bytes)")
    check_range(s, dst, pitch * (height - 1) + width * elem)
    dst = s.device.alias(dst, pitch * (height - 1) + width * elem)
    for row in range(height):
        s.device.memset(dst + row * pitch, value, elem, width, stream)
    return ()


@handles("cudaMemset")
def cuda_memset(s, dst, value, count):
    return _memset_2d(s, dst, count, value & 0xFF, 1, count, 1, None)


@handles("cudaMemsetAsync")
def cuda_memset_async(s, dst, value, count, stream):
    return _memset_2d(s, dst, count, value & 0xFF, 1, count, 1, s.get("stream", stream))


@handles("cudaMemset2D")
def cuda_memset_2d(s, dst, pitch, value, width, height):
    return _memset_2d(s, dst, pitch, value & 0xFF, 1, width, height, None)


@handles("cudaMemset2DAsync")
def cuda_memset_2d_async(s, dst, pitch, value, width, height, stream):
    return _memset_2d(s, dst, pitch, value & 0xFF, 1, width, height, s.get("stream", stream))


def _register_driver_memsets(bits: int) -> None:
    """cuMemsetD{8,16,32}[_v2|Async] and cuMemsetD2D{8,16,32}[_v2|Async]: elements of bits/8 bytes."""
    elem = bits // 8

    def d1(s, dst, value, count):
        return _memset_2d(s, dst, count * elem, value, elem, count, 1, None)

    def d1_async(s, dst, value, count, stream):
        return _memset_2d(s, dst, count * elem, value, elem, count, 1, s.get("stream", stream))

    def d2(s, dst, pitch, value, width, height):
        return _memset_2d(s, dst, pitch, value, elem, width, height, None)

    def d2_async(s, dst, pitch, value, width, height, stream):
        return _memset_2d(s, dst, pitch, value, elem, width, height, s.get("stream", stream))

    handles(f"cuMemsetD{bits}_v2")(d1)
    handles(f"cuMemsetD{bits}Async")(d1_async)
    handles(f"cuMemsetD2D{bits}_v2")(d2)
    handles(f"cuMemsetD2D{bits}Async")(d2_async)


for _bits in (8, 16, 32):
    _register_driver_memsets(_bits)


@handles("cuMemGetAddressRange_v2")
def mem_get_address_range(s, addr):
    found = s.device.allocation(addr)
    if found is None:
        raise CudaError("CUDA_ERROR_NOT_FOUND", f"0x{addr:x} is in no allocation")
    return found


def _copy_2d(s, kind, dst, dpitch, src, spitch, width, height, stream, bulk):
    """[dst, dpitch, src, spitch, width, height, kind(, stream)]: host rows travel packed."""
    if min(dpitch, spitch, width, height) < 0:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"a negative extent ({width} x {height})")
    if dpitch < width or spitch < width:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", "a pitch is less than the width")
    if kind == H2D:
        data = bytes(bulk[0]) if len(bulk) == 1 else b"".join(bytes(b) for b in bulk)
        if len(data) != width * height:
            raise CudaError("CUDA_ERROR_INVALID_VALUE", "host rows missing or of the wrong size")
        check_range(s, dst, dpitch * (height - 1) + width)
        for r in range(height):
            s.device.copy_htod(dst + r * dpitch, memoryview(data)[r * width:(r + 1) * width], stream)
        return ()
    if kind == D2H:
        check_range(s, src, spitch * (height - 1) + width)
        return (Bulk(b"".join(bytes(s.device.copy_dtoh(src + r * spitch, width, stream)) for r in range(height))),)
    if kind == D2D:
        check_range(s, src, spitch * (height - 1) + width)
        check_range(s, dst, dpitch * (height - 1) + width)
        for r in range(height):
            s.device.copy_dtod(dst + r * dpitch, src + r * spitch, width, stream)
        return ()
    raise CudaError("CUDA_ERROR_INVALID_VALUE", f"copy kind {kind}")


@handles("cudaMemcpy2D")
def cuda_memcpy_2d(s, dst, dpitch, src, spitch, width, height, kind, bulk=()):
    return _copy_2d(s, kind, dst, dpitch, src, spitch, width, height, None, bulk)


@handles("cudaMemcpy2DAsync")
def cuda_memcpy_2d_async(s, dst, dpitch, src, spitch, width, height, kind, stream, bulk=()):
    return _copy_2d(s, kind, dst, dpitch, src, spitch, width, height, s.get("stream", stream), bulk)
