"""Device attributes of the software GPU: an sm_80-class part (A100-like limits), with the memory
size the server was given. Names are CUdevice_attribute enumerators; numbers come from the headers."""
from __future__ import annotations

from rgpu.protocol.generated import enums

SM80 = {
    "MAX_THREADS_PER_BLOCK": 1024, "MAX_BLOCK_DIM_X": 1024, "MAX_BLOCK_DIM_Y": 1024, "MAX_BLOCK_DIM_Z": 64,
    "MAX_GRID_DIM_X": 2**31 - 1, "MAX_GRID_DIM_Y": 65535, "MAX_GRID_DIM_Z": 65535,
    "MAX_SHARED_MEMORY_PER_BLOCK": 49152, "TOTAL_CONSTANT_MEMORY": 65536, "WARP_SIZE": 32,
    "MAX_PITCH": 2**31 - 1, "MAX_REGISTERS_PER_BLOCK": 65536, "CLOCK_RATE": 1410000,
    "TEXTURE_ALIGNMENT": 512, "GPU_OVERLAP": 1, "MULTIPROCESSOR_COUNT": 108, "KERNEL_EXEC_TIMEOUT": 0,
    "INTEGRATED": 0, "CAN_MAP_HOST_MEMORY": 0, "COMPUTE_MODE": 0, "CONCURRENT_KERNELS": 1, "ECC_ENABLED": 0,
    "PCI_BUS_ID": 0, "PCI_DEVICE_ID": 0, "PCI_DOMAIN_ID": 0, "TCC_DRIVER": 0, "MEMORY_CLOCK_RATE": 1215000,
    "GLOBAL_MEMORY_BUS_WIDTH": 5120, "L2_CACHE_SIZE": 40 << 20, "MAX_THREADS_PER_MULTIPROCESSOR": 2048,
    "ASYNC_ENGINE_COUNT": 2, "UNIFIED_ADDRESSING": 1, "COMPUTE_CAPABILITY_MAJOR": 8,
    "COMPUTE_CAPABILITY_MINOR": 0, "STREAM_PRIORITIES_SUPPORTED": 1, "GLOBAL_L1_CACHE_SUPPORTED": 1,
    "LOCAL_L1_CACHE_SUPPORTED": 1, "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": 167936,
    "MAX_REGISTERS_PER_MULTIPROCESSOR": 65536, "MANAGED_MEMORY": 0, "MULTI_GPU_BOARD": 0,
    "MULTI_GPU_BOARD_GROUP_ID": 0, "SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO": 2, "PAGEABLE_MEMORY_ACCESS": 0,
    "CONCURRENT_MANAGED_ACCESS": 0, "COMPUTE_PREEMPTION_SUPPORTED": 1, "COOPERATIVE_LAUNCH": 1,
    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 166912, "MAX_BLOCKS_PER_MULTIPROCESSOR": 32,
    "RESERVED_SHARED_MEMORY_PER_BLOCK": 1024, "MEMORY_POOLS_SUPPORTED": 1, "L2_CACHE_SIZE": 40 << 20,
    "MAX_PERSISTING_L2_CACHE_SIZE": 30 << 20, "HOST_NATIVE_ATOMIC_SUPPORTED": 0,
    "CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM": 0, "DIRECT_MANAGED_MEM_ACCESS_FROM_HOST": 0,
    "GPU_DIRECT_RDMA_SUPPORTED": 0, "VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED": 0,
}

# The sizes CUDA reports for the same limits in cudaDeviceProp fields that have no attribute.
PROP_EXTRA = {"totalGlobalMem": None, "sharedMemPerBlock": 49152, "regsPerBlock": 65536, "warpSize": 32,
              "memPitch": 2**31 - 1, "maxThreadsPerBlock": 1024, "totalConstMem": 65536, "major": 8,
              "minor": 0, "textureAlignment": 512, "texturePitchAlignment": 32, "multiProcessorCount": 108,
              "integrated": 0, "canMapHostMemory": 0, "concurrentKernels": 1, "ECCEnabled": 0,
              "asyncEngineCount": 2, "unifiedAddressing": 1, "memoryBusWidth": 5120, "l2CacheSize": 40 << 20,
              "maxThreadsPerMultiProcessor": 2048, "streamPrioritiesSupported": 1,
              "globalL1CacheSupported": 1, "localL1CacheSupported": 1, "sharedMemPerMultiprocessor": 167936,
              "regsPerMultiprocessor": 65536, "managedMemory": 0, "isMultiGpuBoard": 0,
              "sharedMemPerBlockOptin": 166912, "maxBlocksPerMultiProcessor": 32,
              "reservedSharedMemPerBlock": 1024, "memoryPoolsSupported": 1, "cooperativeLaunch": 1,
              "computePreemptionSupported": 1, "persistingL2CacheMaxSize": 30 << 20,
              "maxThreadsDim": [1024, 1024, 64], "maxGridSize": [2**31 - 1, 65535, 65535]}


def sm80_attributes(memory_bytes: int) -> dict[int, int]:
    table = enums.CUdevice_attribute_enum
    out = {}
    for short, value in SM80.items():
        full = "CU_DEVICE_ATTRIBUTE_" + short
        if full in table:  # attributes come and go between CUDA versions
            out[table[full]] = value
    return out
