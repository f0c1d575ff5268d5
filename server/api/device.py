"""Device queries and whole-device operations."""
from __future__ import annotations

from rgpu.protocol.generated import enums
from rgpu.protocol.generated.structs import CDEF

from ..errors import CudaError
from . import handles

_ffi = None


def _cffi():
    global _ffi
    if _ffi is None:
        import cffi
        _ffi = cffi.FFI()
        _ffi.cdef(CDEF)
    return _ffi


def _check_ordinal(dev: int) -> None:
    if dev != 0:  # the client maps its ordinals to sessions; a session sees its one GPU as 0
        raise CudaError("CUDA_ERROR_INVALID_DEVICE", f"device {dev}")


@handles("cuDeviceGetAttribute")
def cu_device_get_attribute(s, attrib, dev):
    _check_ordinal(dev)
    attrs = s.device.attributes()
    if attrib not in attrs:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"unknown device attribute {attrib}")
    return (attrs[attrib],)


@handles("cudaDeviceGetAttribute")
def cuda_device_get_attribute(s, attr, device):
    return cu_device_get_attribute(s, attr, device)


@handles("cuDeviceGetName")
def cu_device_get_name(s, length, dev):
    _check_ordinal(dev)
    return (s.device.name.encode()[: max(length - 1, 0)].decode(errors="ignore"),)


@handles("cuDeviceTotalMem_v2")
def cu_device_total_mem(s, dev):
    _check_ordinal(dev)
    return (s.device.total_memory,)


@handles("cuDeviceComputeCapability")
def cu_device_compute_capability(s, dev):
    _check_ordinal(dev)
    return s.device.cc


@handles("cuDeviceGetUuid_v2")
def cu_device_get_uuid(s, dev):
    _check_ordinal(dev)
    return (s.device.uuid,)


@handles("cudaGetDeviceProperties")
def cuda_get_device_properties(s, device):
    from rgpu.server.sim.properties import PROP_EXTRA
    _check_ordinal(device)
    ffi = _cffi()
    p = ffi.new("struct cudaDeviceProp *")
    name = s.device.name.encode()[:255]
    ffi.memmove(p.name, name, len(name))
    ffi.memmove(ffi.addressof(p.uuid), s.device.uuid, 16)
    attrs = s.device.attributes()
    table = enums.CUdevice_attribute_enum
    values = dict(PROP_EXTRA, totalGlobalMem=s.device.total_memory,
                  major=s.device.cc[0], minor=s.device.cc[1])
    values["multiProcessorCount"] = attrs.get(table["CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT"], 1)
    for field, value in values.items():
        if hasattr(p, field):  # fields come and go between CUDA versions
            if isinstance(value, list):
                for i, v in enumerate(value):
                    getattr(p, field)[i] = v
            else:
                setattr(p, field, value)
    return (bytes(ffi.buffer(p)),)


@handles("cudaDeviceGetStreamPriorityRange", "cuCtxGetStreamPriorityRange")
def stream_priority_range(s):
    return (0, -5)  # least, greatest: lower numbers are higher priority, as on CUDA GPUs


@handles("cudaDeviceSynchronize", "cuCtxSynchronize")
def synchronize(s):
    s.device.synchronize()
    return ()


@handles("cudaDeviceReset")
def device_reset(s):
    """Frees everything the session holds, as cudaDeviceReset destroys the primary context."""
    s.device.synchronize()
    for addr, _ in list(_allocations(s)):
        s.device.mem_free(addr)
    s.sticky = None
    s.deferred = None
    return ()


def _allocations(s):
    mem = getattr(s.device, "memory", None)
    return mem.allocations() if mem is not None else []
