"""Virtual memory management's physical side: cuMemCreate / cuMemRelease charge and return the
session's memory quota (an allocation is memory like cudaMalloc's), and cuMemMap / cuMemUnmap tell the
backend which addresses hold memory, so copies into a mapped range pass the bounds checks (adjacent
mappings count as one range: PyTorch's expandable segments map a block over several handles). The
address reservations and access rights are the driver's own, served from their records on a real
GPU; the software GPU has no VMM (its records say so), so these handlers are the cuda backend's
alone (server/backends/__init__.py)."""
from __future__ import annotations


def mem_create(s, size, prop, flags):
    return (s.device.vmm_create(size, prop, flags),)


def mem_release(s, handle):
    s.device.vmm_release(handle)
    return ()


def mem_map(s, ptr, size, offset, handle, flags):
    s.device.vmm_map(ptr, size, offset, handle, flags)
    return ()


def mem_unmap(s, ptr, size):
    s.device.vmm_unmap(ptr, size)
    return ()


CUDA_HANDLERS = {"cuMemCreate": mem_create, "cuMemRelease": mem_release, "cuMemMap": mem_map, "cuMemUnmap": mem_unmap}
