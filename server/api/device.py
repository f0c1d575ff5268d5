"""Device queries and whole-device operations."""
from __future__ import annotations

from rgpu.protocol.generated import enums
from rgpu.protocol.generated.structs import CDEF

from ..errors import CudaError
from . import handles, placed

_ffi = None

# cudaDeviceProp fields and the device attribute each one reports (same value, one source).
PROP_FIELDS = {
    "sharedMemPerBlock": "MAX_SHARED_MEMORY_PER_BLOCK", "regsPerBlock": "MAX_REGISTERS_PER_BLOCK",
    "warpSize": "WARP_SIZE", "memPitch": "MAX_PITCH", "maxThreadsPerBlock": "MAX_THREADS_PER_BLOCK",
    "totalConstMem": "TOTAL_CONSTANT_MEMORY", "textureAlignment": "TEXTURE_ALIGNMENT",
    "multiProcessorCount": "MULTIPROCESSOR_COUNT", "integrated": "INTEGRATED", "canMapHostMemory": "CAN_MAP_HOST_MEMORY",
    "concurrentKernels": "CONCURRENT_KERNELS", "ECCEnabled": "ECC_ENABLED", "asyncEngineCount": "ASYNC_ENGINE_COUNT",
    "unifiedAddressing": "UNIFIED_ADDRESSING", "memoryBusWidth": "GLOBAL_MEMORY_BUS_WIDTH",
    "l2CacheSize": "L2_CACHE_SIZE", "maxThreadsPerMultiProcessor": "MAX_THREADS_PER_MULTIPROCESSOR",
    "streamPrioritiesSupported": "STREAM_PRIORITIES_SUPPORTED", "globalL1CacheSupported": "GLOBAL_L1_CACHE_SUPPORTED",
    "localL1CacheSupported": "LOCAL_L1_CACHE_SUPPORTED",
    "sharedMemPerMultiprocessor": "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR",
    "regsPerMultiprocessor": "MAX_REGISTERS_PER_MULTIPROCESSOR", "managedMemory": "MANAGED_MEMORY",
    "isMultiGpuBoard": "MULTI_GPU_BOARD", "sharedMemPerBlockOptin": "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
    "maxBlocksPerMultiProcessor": "MAX_BLOCKS_PER_MULTIPROCESSOR",
    "reservedSharedMemPerBlock": "RESERVED_SHARED_MEMORY_PER_BLOCK", "memoryPoolsSupported": "MEMORY_POOLS_SUPPORTED",
    "cooperativeLaunch": "COOPERATIVE_LAUNCH", "computePreemptionSupported": "COMPUTE_PREEMPTION_SUPPORTED",
    "persistingL2CacheMaxSize": "MAX_PERSISTING_L2_CACHE_SIZE", "major": "COMPUTE_CAPABILITY_MAJOR",
    "minor": "COMPUTE_CAPABILITY_MINOR",
    "texturePitchAlignment": "TEXTURE_PITCH_ALIGNMENT",
}
PROP_ARRAYS = {"maxThreadsDim": ("MAX_BLOCK_DIM_X", "MAX_BLOCK_DIM_Y", "MAX_BLOCK_DIM_Z"),
               "maxGridSize": ("MAX_GRID_DIM_X", "MAX_GRID_DIM_Y", "MAX_GRID_DIM_Z")}


def prop_values(attrs: dict[int, int]) -> dict:
    """cudaDeviceProp field -> value, read from a device's attributes (any backend)."""
    def get(name):
        return attrs.get(enums.CUdevice_attribute_enum.get("CU_DEVICE_ATTRIBUTE_" + name), 0)
    out = {field: get(attr) for field, attr in PROP_FIELDS.items()}
    out.update({field: [get(a) for a in names] for field, names in PROP_ARRAYS.items()})
    return out


def _cffi():
    global _ffi
    if _ffi is None:
        import cffi
        _ffi = cffi.FFI()
        _ffi.cdef(CDEF)
    return _ffi


# What clients see of managed memory is rgpu's, not the GPU's: the client keeps a host copy coherent
# at synchronisations (libhook/src/managed/managed.c), as on a device that cannot access managed memory
# concurrently with the host — whatever the real GPU behind a `cuda` backend could do.
MANAGED_POLICY = {"MANAGED_MEMORY": 1, "CONCURRENT_MANAGED_ACCESS": 0, "PAGEABLE_MEMORY_ACCESS": 0,
                  "PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES": 0, "DIRECT_MANAGED_MEM_ACCESS_FROM_HOST": 0}


def device_attributes(s) -> dict[int, int]:
    """The backend's attributes with rgpu's managed-memory policy over them, and mapped host memory
    as this session can have it: only a client on this host, whose pinned segments the worker maps
    (server/pinned.py), has host memory the device can map."""
    attrs = dict(s.device.attributes())
    for name, value in MANAGED_POLICY.items():
        attrs[enums.CUdevice_attribute_enum["CU_DEVICE_ATTRIBUTE_" + name]] = value
    can_map = enums.CUdevice_attribute_enum["CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY"]
    if getattr(s, "shm", None) is None:
        attrs[can_map] = 0
    # the device address of mapped memory is the worker's, never the program's host address
    attrs[enums.CUdevice_attribute_enum["CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM"]] = 0
    return attrs


def _check_ordinal(dev: int) -> None:
    if dev != 0:  # the client maps its ordinals to sessions; a session sees its one GPU as 0
        raise CudaError("CUDA_ERROR_INVALID_DEVICE", f"device {dev}")


@handles("cuDeviceGetAttribute")
def cu_device_get_attribute(s, attrib, dev):
    _check_ordinal(dev)
    attrs = device_attributes(s)
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
    _check_ordinal(device)
    ffi = _cffi()
    p = ffi.new("struct cudaDeviceProp *")
    name = s.device.name.encode()[:255]
    ffi.memmove(p.name, name, len(name))
    ffi.memmove(ffi.addressof(p.uuid), s.device.uuid, 16)
    values = dict(prop_values(device_attributes(s)), totalGlobalMem=s.device.total_memory,
                  major=s.device.cc[0], minor=s.device.cc[1])
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
    for addr, _ in s.device.allocations():
        placed.freed(s, s.device.mem_free(addr))
        s.managed.pop(addr, None)
    s.sticky = None
    s.deferred = None
    return ()
