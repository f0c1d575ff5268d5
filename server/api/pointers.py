"""What the driver knows of a pointer beyond cudaPointerGetAttributes (memory.py): the pool an
allocation came from, whether cudaIpcGetMemHandle takes it, and the mapping that holds it. The
client's cuPointerGetAttribute asks for MEMPOOL_HANDLE, IS_LEGACY_CUDA_IPC_CAPABLE and the MAPPING_*
attributes here (libhook/src/memory/pointer.c); the rest it answers itself. The same for every
backend: pools, cuMemMap mappings and IPC are this package's bookkeeping."""
from __future__ import annotations

from ..errors import CudaError
from . import handles, ipc, pools


def _legacy_ipc(s, addr: int) -> int:
    """1 when cudaIpcGetMemHandle would export the allocation at addr: the checks are its own, so the
    attribute cannot say yes to memory the export refuses (a pool's, a mapping's, managed memory,
    memory opened from another process, or any memory of a session that cannot share)."""
    if s.ipc is None:
        return 0
    try:
        ipc._sharable(s, s.ipc, addr)
    except CudaError:
        return 0
    return 1


@handles("rgpuPointerFacts")
def pointer_facts(s, ptr):
    """[ptr] -> [pool, legacy_ipc, mapping_base, mapping_size]"""
    found = s.device.allocation(ptr)
    if found is None:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"0x{ptr:x} is in no allocation of this device")
    base, size = found
    pool = 0
    if s.pools is not None and base in s.pools.of:
        pool = pools.handle_of(s, s.pools.of[base][0])
    if s.vmm is not None:
        try:
            m = s.vmm.reservation(ptr).mapping_at(ptr)
        except CudaError:  # in no reserved range: not mapped memory
            m = None
        if m is not None:
            base, size = m.addr, m.size
    return (pool, _legacy_ipc(s, ptr), base, size)
