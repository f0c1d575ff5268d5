"""Device attributes of the software GPU: the limits of the architecture it presents (archs.py)
with the memory size the server was given. Names are CUdevice_attribute enumerators; numbers come
from the headers."""
from __future__ import annotations

from rgpu.protocol.generated import enums

from . import archs
from .kernels import MAX_BLOCK_DIM, MAX_GRID_DIM, MAX_THREADS_PER_BLOCK, SHARED_STATIC_MAX


# Texture and surface limits: those of the GPUs from Ampere to Blackwell (an A100's cudaDeviceProp);
# the sim enforces them when arrays and texture objects are made (server/backends/resources.py).
TEXTURE_LIMITS = {
    "MAXIMUM_TEXTURE1D_WIDTH": 131072, "MAXIMUM_TEXTURE2D_WIDTH": 131072, "MAXIMUM_TEXTURE2D_HEIGHT": 65536,
    "MAXIMUM_TEXTURE3D_WIDTH": 16384, "MAXIMUM_TEXTURE3D_HEIGHT": 16384, "MAXIMUM_TEXTURE3D_DEPTH": 16384,
    "MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE": 8192, "MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE": 8192,
    "MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE": 32768,
    "MAXIMUM_TEXTURE2D_LAYERED_WIDTH": 32768, "MAXIMUM_TEXTURE2D_LAYERED_HEIGHT": 32768,
    "MAXIMUM_TEXTURE2D_LAYERED_LAYERS": 2048, "MAXIMUM_TEXTURE1D_LAYERED_WIDTH": 32768,
    "MAXIMUM_TEXTURE1D_LAYERED_LAYERS": 2048, "CAN_TEX2D_GATHER": 1, "MAXIMUM_TEXTURE2D_GATHER_WIDTH": 32768,
    "MAXIMUM_TEXTURE2D_GATHER_HEIGHT": 32768, "MAXIMUM_TEXTURECUBEMAP_WIDTH": 32768,
    "MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH": 32768, "MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS": 2046,
    "MAXIMUM_TEXTURE1D_LINEAR_WIDTH": 1 << 28, "MAXIMUM_TEXTURE2D_LINEAR_WIDTH": 131072,
    "MAXIMUM_TEXTURE2D_LINEAR_HEIGHT": 65000, "MAXIMUM_TEXTURE2D_LINEAR_PITCH": 2097120,
    "MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH": 32768, "MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT": 32768,
    "MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH": 32768, "SURFACE_ALIGNMENT": 512,
    "MAXIMUM_SURFACE1D_WIDTH": 32768, "MAXIMUM_SURFACE2D_WIDTH": 131072, "MAXIMUM_SURFACE2D_HEIGHT": 65536,
    "MAXIMUM_SURFACE3D_WIDTH": 16384, "MAXIMUM_SURFACE3D_HEIGHT": 16384, "MAXIMUM_SURFACE3D_DEPTH": 16384,
    "MAXIMUM_SURFACE1D_LAYERED_WIDTH": 32768, "MAXIMUM_SURFACE1D_LAYERED_LAYERS": 2048,
    "MAXIMUM_SURFACE2D_LAYERED_WIDTH": 32768, "MAXIMUM_SURFACE2D_LAYERED_HEIGHT": 32768,
    "MAXIMUM_SURFACE2D_LAYERED_LAYERS": 2048, "MAXIMUM_SURFACECUBEMAP_WIDTH": 32768,
    "MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH": 32768, "MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS": 2046,
}

# Every other attribute of the headers has an answer too: NVIDIA's runtime reads them all when it
# builds a cudaDeviceProp, and fails to initialise if one is refused. Features the sim does not
# offer are 0; NUMA ids are -1 (none).
VALUES = {
    "NUMA_ID": -1, "HOST_NUMA_ID": -1, "HOST_REGISTER_SUPPORTED": 1, "MEM_SYNC_DOMAIN_COUNT": 1,
    "MAX_ACCESS_POLICY_WINDOW_SIZE": 134213632,
    # PCI vendor 0x10de in the low half, as the driver combines them; an A100's device id
    "GPU_PCI_DEVICE_ID": (0x20B0 << 16) | 0x10DE, "GPU_PCI_SUBSYSTEM_ID": (0x1450 << 16) | 0x10DE,
}


def table(arch: archs.Arch) -> dict[str, int]:
    """Attribute short name -> value for ``arch``."""
    return {
        "MAX_THREADS_PER_BLOCK": MAX_THREADS_PER_BLOCK, "MAX_BLOCK_DIM_X": MAX_BLOCK_DIM[0],
        "MAX_BLOCK_DIM_Y": MAX_BLOCK_DIM[1], "MAX_BLOCK_DIM_Z": MAX_BLOCK_DIM[2], "MAX_GRID_DIM_X": MAX_GRID_DIM[0],
        "MAX_GRID_DIM_Y": MAX_GRID_DIM[1], "MAX_GRID_DIM_Z": MAX_GRID_DIM[2],
        "MAX_SHARED_MEMORY_PER_BLOCK": SHARED_STATIC_MAX, "TOTAL_CONSTANT_MEMORY": 65536, "WARP_SIZE": 32,
        "MAX_PITCH": 2**31 - 1, "MAX_REGISTERS_PER_BLOCK": 65536, "CLOCK_RATE": arch.clock_khz,
        "TEXTURE_ALIGNMENT": 512, "TEXTURE_PITCH_ALIGNMENT": 32, "GPU_OVERLAP": 1, "MULTIPROCESSOR_COUNT": arch.sms,
        "KERNEL_EXEC_TIMEOUT": 0, "INTEGRATED": 0, "CAN_MAP_HOST_MEMORY": 1, "COMPUTE_MODE": 0, "CONCURRENT_KERNELS": 1,
        "ECC_ENABLED": 0, "PCI_BUS_ID": 0, "PCI_DEVICE_ID": 0, "PCI_DOMAIN_ID": 0, "TCC_DRIVER": 0,
        "MEMORY_CLOCK_RATE": arch.memory_clock_khz, "GLOBAL_MEMORY_BUS_WIDTH": arch.bus_width,
        "L2_CACHE_SIZE": arch.l2_bytes, "MAX_THREADS_PER_MULTIPROCESSOR": arch.max_threads_per_sm,
        "ASYNC_ENGINE_COUNT": 2, "UNIFIED_ADDRESSING": 1, "COMPUTE_CAPABILITY_MAJOR": arch.major,
        "COMPUTE_CAPABILITY_MINOR": arch.minor, "STREAM_PRIORITIES_SUPPORTED": 1, "GLOBAL_L1_CACHE_SUPPORTED": 1,
        "LOCAL_L1_CACHE_SUPPORTED": 1, "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": arch.shared_per_sm,
        "MAX_REGISTERS_PER_MULTIPROCESSOR": 65536, "MANAGED_MEMORY": 1, "MULTI_GPU_BOARD": 0,
        "MULTI_GPU_BOARD_GROUP_ID": 0, "SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO": arch.fp64_ratio,
        "PAGEABLE_MEMORY_ACCESS": 0, "CONCURRENT_MANAGED_ACCESS": 0, "COMPUTE_PREEMPTION_SUPPORTED": 1,
        "COOPERATIVE_LAUNCH": 1, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": arch.shared_optin,
        # thread-block clusters from Hopper on (kernels.py runs a cluster's blocks in one batch)
        "CLUSTER_LAUNCH": 1 if arch.major >= 9 else 0,
        "MAX_BLOCKS_PER_MULTIPROCESSOR": arch.max_blocks_per_sm,
        "RESERVED_SHARED_MEMORY_PER_BLOCK": arch.reserved_shared, "MEMORY_POOLS_SUPPORTED": 1,
        # A GPU may keep up to three quarters of its L2 for persisting accesses (sm_80 and later).
        "MAX_PERSISTING_L2_CACHE_SIZE": arch.l2_bytes * 3 // 4 if arch.major >= 8 else 0,
        "HOST_NATIVE_ATOMIC_SUPPORTED": 0,
        # cuStreamWriteValue*/WaitValue*/BatchMemOp (stream_memops.py): 64-bit forms and NOR included
        "CAN_USE_64_BIT_STREAM_MEM_OPS": 1, "CAN_USE_STREAM_WAIT_VALUE_NOR": 1,
        # an H200's answer: its driver refuses CU_STREAM_WAIT_VALUE_FLUSH (seen on the lent GPU), as
        # stream_memops.py does
        "CAN_FLUSH_REMOTE_WRITES": 0,
        "CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM": 0, "DIRECT_MANAGED_MEM_ACCESS_FROM_HOST": 0,
        # cuMemCreate/cuMemMap and friends are served (server/api/vmm.py): PyTorch's expandable
        # segments look here before they use them
        "GPU_DIRECT_RDMA_SUPPORTED": 0, "VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED": 1,
        # CUDA 12's cudaDeviceProp still carries this one; rgpu serves no multi-device cooperative
        # launch, so it is reported as absent rather than as a GPU's.
        "COOPERATIVE_MULTI_DEVICE_LAUNCH": 0,
        **TEXTURE_LIMITS,
    }


def attributes(memory_bytes: int, arch: archs.Arch | str | None = None) -> dict[int, int]:
    """CUdevice_attribute number -> value of a software GPU of ``arch`` (default: archs.DEFAULT)."""
    if not isinstance(arch, archs.Arch):
        arch = archs.get(arch)
    table_ = enums.CUdevice_attribute_enum
    out = {}
    for short, value in table(arch).items():
        full = "CU_DEVICE_ATTRIBUTE_" + short
        if full in table_:  # attributes come and go between CUDA versions
            out[table_[full]] = value
    for full, number in table_.items():
        if number in out or full.endswith("_MAX"):
            continue
        out[number] = VALUES.get(full.removeprefix("CU_DEVICE_ATTRIBUTE_"), 0)
    return out
