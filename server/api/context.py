"""Context-wide settings and queries: limits, cache and shared-memory preferences, PCI identity,
stream ids (a device's PCI location is the client's: libhook/src/state/devfacts.c). The software GPU has no caches to configure, but a program that sets a
preference and reads it back must see what it set, as on a GPU."""
from __future__ import annotations

from rgpu.protocol.generated import enums

from ..errors import CudaError
from . import handles

# CU_LIMIT_* defaults a GPU context starts with (CUDA documents these values)
_LIMIT_DEFAULTS = {"CU_LIMIT_STACK_SIZE": 1024, "CU_LIMIT_PRINTF_FIFO_SIZE": 1 << 20,
                   "CU_LIMIT_MALLOC_HEAP_SIZE": 8 << 20, "CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH": 2,
                   "CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT": 2048, "CU_LIMIT_MAX_L2_FETCH_GRANULARITY": 32,
                   "CU_LIMIT_PERSISTING_L2_CACHE_SIZE": 0,
                   # a context is never CIG-enabled (no graphics on a pooled GPU); queries only
                   "CU_LIMIT_SHMEM_SIZE": 0, "CU_LIMIT_CIG_ENABLED": 0, "CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED": 0}
_QUERY_ONLY = {"CU_LIMIT_SHMEM_SIZE", "CU_LIMIT_CIG_ENABLED"}
LIMITS = {enums.CUlimit_enum[k]: v for k, v in _LIMIT_DEFAULTS.items()}
_LIMIT_NAMES = {enums.CUlimit_enum[k]: k for k in _LIMIT_DEFAULTS}


def _settings(s) -> dict:
    if not hasattr(s, "settings"):
        s.settings = {"limits": dict(LIMITS), "cache": 0, "shmem": 1}  # PREFER_NONE, four-byte banks
    return s.settings


@handles("cudaDeviceGetLimit", "cuCtxGetLimit")
def get_limit(s, limit):
    limits = _settings(s)["limits"]
    if limit not in limits:
        raise CudaError("CUDA_ERROR_UNSUPPORTED_LIMIT", f"limit {limit}")
    return (limits[limit],)


@handles("cudaDeviceSetLimit", "cuCtxSetLimit")
def set_limit(s, limit, value):
    limits = _settings(s)["limits"]
    if limit not in limits:
        raise CudaError("CUDA_ERROR_UNSUPPORTED_LIMIT", f"limit {limit}")
    if _LIMIT_NAMES[limit] in _QUERY_ONLY:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"{_LIMIT_NAMES[limit]} can only be queried")
    s.device.set_limit(_LIMIT_NAMES[limit], value)
    limits[limit] = value
    return ()


@handles("cudaDeviceGetCacheConfig", "cuCtxGetCacheConfig")
def get_cache_config(s):
    return (_settings(s)["cache"],)


@handles("cudaDeviceSetCacheConfig", "cuCtxSetCacheConfig")
def set_cache_config(s, config):
    if not 0 <= config <= 3:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"cache configuration {config}")
    _settings(s)["cache"] = config
    return ()


@handles("cudaDeviceGetSharedMemConfig", "cuCtxGetSharedMemConfig")
def get_shmem_config(s):
    return (_settings(s)["shmem"],)


@handles("cudaDeviceSetSharedMemConfig", "cuCtxSetSharedMemConfig")
def set_shmem_config(s, config):
    if not 0 <= config <= 2:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"shared memory configuration {config}")
    _settings(s)["shmem"] = config
    return ()


@handles("cudaStreamGetId", "cuStreamGetId")
def stream_get_id(s, stream):
    s.get("stream", stream)
    return (stream,)  # unique per session, stable for the stream's life; the default stream is 0


@handles("cudaCtxResetPersistingL2Cache", "cuCtxResetPersistingL2Cache", "cudaDeviceFlushGPUDirectRDMAWrites",
         "cuFlushGPUDirectRDMAWrites")
def nothing_to_do(s, *args):
    return ()
