"""Managed (unified) memory, the server's half: device memory tagged managed, at addresses aligned
to host pages so the client can map its host copy at the same address (libhook/src/managed/managed.c).
The client keeps that copy coherent — it pushes what the host wrote before device work and pulls
after a synchronisation — so the server only allocates, tags, frees and answers for it."""
from __future__ import annotations

from ..checkpoint import digest as chunk_digest
from ..errors import CudaError
from . import Bulk, handles

# Managed allocations start and end on this boundary: a multiple of every host page size a client
# may have (4 KiB, 16 KiB, 64 KiB), so no two allocations share a page of the client's mapping.
GRANULE = 64 << 10
ATTACH_GLOBAL, ATTACH_HOST, ATTACH_SINGLE = 1, 2, 4


@handles("cudaMallocManaged", "cuMemAllocManaged")
def mem_alloc_managed(s, size, flags):
    """[size, flags] -> [address, mapped size]: the client maps `mapped size` bytes at `address`."""
    if size == 0:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", "zero-byte managed allocation")
    if flags not in (ATTACH_GLOBAL, ATTACH_HOST):
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"managed allocation flags {flags}: use Global or Host")
    mapped = -(-size // GRANULE) * GRANULE
    addr = s.device.mem_alloc_managed(mapped, GRANULE)
    try:
        # The client's fresh host pages are zero: the device copy starts equal to them.
        s.device.memset(addr, 0, 1, mapped, None)
    except CudaError:
        s.device.mem_free(addr)
        raise
    s.managed[addr] = size  # what the program asked for: the size it may name the allocation by
    return (addr, mapped)


def managed_range(s, addr: int) -> tuple[int, int] | None:
    """(start, size) of the managed allocation holding addr, or None."""
    found = s.device.allocation(addr)
    if found is not None and found[0] in s.managed:
        return found
    return None


@handles("cudaStreamAttachMemAsync", "cuStreamAttachMemAsync")
def stream_attach_mem(s, stream, addr, length, flags):
    """Accepted: with every allocation visible to every stream of the session and the host copy
    made coherent at synchronisations, attaching changes no result. The arguments are checked as
    CUDA checks them."""
    s.get("stream", stream)
    if flags not in (ATTACH_GLOBAL, ATTACH_HOST, ATTACH_SINGLE):
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"attach flags {flags}")
    found = managed_range(s, addr)
    if found is None:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"0x{addr:x} is not managed memory")
    if addr != found[0] or length not in (0, s.managed[addr], found[1]):
        raise CudaError("CUDA_ERROR_INVALID_VALUE", "attach the whole allocation (length 0 or its size)")
    return ()


@handles("rgpuManagedPull")
def managed_pull(s, addr, count, known):
    """[address, size, the digest the client's copy is of, or None] -> [the digest now] and the data
    when it differs (protocol/contract/calls/managed.toml): read as cuMemcpyDtoH reads, after the
    legacy stream's work, and digested here (server/checkpoint/digest.py: device_digest.h's function
    where the native library is built, 16 bytes of SHA-256 where not; a digest from a worker without
    the one never equals the other's, so such a client is sent the data). The digest is of the
    program's own memory and reaches only its own client."""
    from .memory import D2H, _copy  # memory.py imports this module (managed_range)
    parts = [b.data for b in _copy(s, D2H, 0, addr, count, None, ())]
    digest = chunk_digest.chunk(parts[0]) if len(parts) == 1 else \
        chunk_digest.chunk(b"".join(chunk_digest.chunk(p) for p in parts))
    digest = digest[:16]
    if known == digest:
        return (digest,)
    return (digest, *map(Bulk, parts))
