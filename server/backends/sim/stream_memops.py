"""Stream memory operations on the software GPU: cuStreamWriteValue32/64, cuStreamWaitValue32/64
and cuStreamBatchMemOp (the cuda backend passes them to the driver, their records).

The software GPU runs each stream's work when it is submitted, in submission order, so a write
lands after everything before it on its stream and before everything after, and a wait is decided
when it is reached: its condition (GEQ as CUDA's cyclic comparison, EQ, AND, NOR) either holds then,
and the stream goes on, or can never come true in that order (nothing runs beside a waiting stream
to write the value), which is refused with an explanation instead of a hang. A memory barrier
changes nothing on a device whose every access is already visible; the write's NO_MEMORY_BARRIER is
invalid-value, as the _v2 API (every CUDA 12 and 13 program's) answers it. A flush of remote writes (CU_STREAM_WAIT_VALUE_FLUSH, CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES)
is refused with CUDA_ERROR_NOT_SUPPORTED, as an H100 or H200 refuses it: those report
CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES 0 (properties.py), and the driver serves the flush only
where the platform can (a program that uses it asks that attribute first)."""
from __future__ import annotations

import struct

from ...errors import CudaError

WAIT_GEQ, WAIT_EQ, WAIT_AND, WAIT_NOR = 0, 1, 2, 3
WAIT_FLUSH = 1 << 30
WRITE_NO_MEMORY_BARRIER = 1
# CUstreamBatchMemOpType
OP_WAIT_32, OP_WRITE_32, OP_FLUSH, OP_WAIT_64, OP_WRITE_64, OP_BARRIER = 1, 2, 3, 4, 5, 6
PARAMS = 48  # sizeof(CUstreamBatchMemOpParams): a 48-byte union whose first word is the operation
VALUE_OP = struct.Struct("<I4xQQI")  # operation, address, value (or value64), flags


def _invalid(why: str) -> CudaError:
    return CudaError("CUDA_ERROR_INVALID_VALUE", why)


def _no_flush(what: str) -> CudaError:
    return CudaError("CUDA_ERROR_NOT_SUPPORTED",
                     f"{what}: this device cannot flush remote writes (CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES "
                     f"is 0, as on an H100 or H200)")


def holds(current: int, value: int, flags: int, bits: int) -> bool:
    """The wait's condition on the word read (CUstreamWaitValue_flags)."""
    mask = (1 << bits) - 1
    cond = flags & ~WAIT_FLUSH
    if cond == WAIT_GEQ:  # (int32_t)(*addr - value) >= 0: cyclic, ignoring wraparound
        return ((current - value) & mask) < (1 << (bits - 1))
    if cond == WAIT_EQ:
        return current == value & mask
    if cond == WAIT_AND:
        return (current & value) != 0
    if cond == WAIT_NOR:
        return (~(current | value) & mask) != 0
    raise _invalid(f"wait condition {cond} (flags 0x{flags:x})")


def _word(s, addr: int, bits: int):
    width = bits // 8
    if addr % width:
        raise _invalid(f"0x{addr:x} is not aligned to {width} bytes")
    return s.device.memory.view(addr, width).view("<u4" if bits == 32 else "<u8")


def write_value(s, stream, addr: int, value: int, flags: int, bits: int) -> None:
    s.get("stream", stream)
    if flags & WRITE_NO_MEMORY_BARRIER:  # the driver refuses it too (seen on an H200)
        raise _invalid("CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER is not supported by the _v2 stream memory "
                       "operations, which CUDA 12 and 13 programs call")
    if flags:
        raise _invalid(f"write flags 0x{flags:x}")
    _word(s, addr, bits)[0] = value & ((1 << bits) - 1)


def wait_value(s, stream, addr: int, value: int, flags: int, bits: int) -> None:
    s.get("stream", stream)
    if flags & WAIT_FLUSH:
        raise _no_flush(f"cuStreamWaitValue{bits} with CU_STREAM_WAIT_VALUE_FLUSH")
    current = int(_word(s, addr, bits)[0])
    if not holds(current, value, flags, bits):
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED",
                        f"cuStreamWaitValue{bits} on 0x{addr:x}: the word is 0x{current:x}, and the condition "
                        f"(flags 0x{flags:x}, value 0x{value:x}) would have to be made true by work submitted "
                        f"after the wait; the software GPU runs every stream's work in submission order, so "
                        f"nothing can: submit the write first, or run on a GPU (rgpu-server --device cuda)")


def batch(s, stream, count: int, raw: bytes, flags: int) -> None:
    s.get("stream", stream)
    raw = bytes(raw or b"")
    if flags or count < 0 or len(raw) < count * PARAMS:
        raise _invalid(f"{count} operations in {len(raw)} bytes, flags 0x{flags:x}")
    ops = [struct.unpack_from("<I", raw, i * PARAMS)[0] for i in range(count)]
    if OP_FLUSH in ops:  # refused whole, before any operation of the batch is done
        raise _no_flush(f"cuStreamBatchMemOp's operation {ops.index(OP_FLUSH)} (CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES)")
    for i, op in enumerate(ops):
        if op == OP_BARRIER:
            continue
        _op, addr, value, oflags = VALUE_OP.unpack_from(raw, i * PARAMS)
        if op in (OP_WAIT_32, OP_WRITE_32):
            value &= 0xFFFFFFFF
        if op == OP_WRITE_32 or op == OP_WRITE_64:
            write_value(s, stream, addr, value, oflags, 32 if op == OP_WRITE_32 else 64)
        elif op == OP_WAIT_32 or op == OP_WAIT_64:
            wait_value(s, stream, addr, value, oflags, 32 if op == OP_WAIT_32 else 64)
        else:
            raise _invalid(f"stream memory operation {op}")


def handlers() -> dict[str, object]:
    """Call name -> handler(session, *args) for the stream memory operations the sim serves."""
    def w32(s, stream, addr, value, flags):
        write_value(s, stream, addr, value, flags, 32)
        return ()

    def w64(s, stream, addr, value, flags):
        write_value(s, stream, addr, value, flags, 64)
        return ()

    def q32(s, stream, addr, value, flags):
        wait_value(s, stream, addr, value, flags, 32)
        return ()

    def q64(s, stream, addr, value, flags):
        wait_value(s, stream, addr, value, flags, 64)
        return ()

    def b(s, stream, count, raw, flags):
        batch(s, stream, count, raw, flags)
        return ()
    return {"cuStreamWriteValue32_v2": w32, "cuStreamWriteValue64_v2": w64, "cuStreamWaitValue32_v2": q32,
            "cuStreamWaitValue64_v2": q64, "cuStreamBatchMemOp_v2": b}
