"""Modules, functions and launches.

Images are cached by content hash in a directory every worker of the server shares (module_cache.py),
so a second session running the same program does not upload its kernels again: the client first
offers the hash alone, and sends the bytes only when told the server does not have them. In a pool
the images are private to the user whose lease uploaded them (the session's cache scope): another
tenant's digest finds nothing, and is told what it is told of a digest nobody sent."""
from __future__ import annotations

import hashlib

import structlog

from rgpu.protocol.generated import enums

from .. import module_cache
from ..errors import CudaError
from . import handles

log = structlog.get_logger()
_FUNC_ATTRS = {v: k for k, v in enums.CUfunction_attribute_enum.items()}


def _cached_image(s, digest: str, size: int, bulk) -> bytes:
    """The image the client sent, stored in the server's module cache (module_cache.py: private,
    verified on every read, bounded), or the cached one when it sent only the digest."""
    if not (isinstance(digest, str) and len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)):
        raise CudaError("CUDA_ERROR_INVALID_VALUE", "module digest must be 64 hex digits (sha256)")
    if bulk:
        data = bytes(bulk[0])
        if len(data) != size or hashlib.sha256(data).hexdigest() != digest:
            raise CudaError("CUDA_ERROR_INVALID_IMAGE", "module image does not match its digest")
        module_cache.modules().put(digest, data, s.cache_scope)
        return data
    data = module_cache.modules().get(digest, s.cache_scope)
    if data is None or len(data) != size:
        raise CudaError("CUDA_ERROR_NOT_FOUND", "module not cached here: send the image")
    return data


@handles("cuModuleLoadData")
def module_load(s, digest, size, companion, companion_size, sent, frames, bulk=()):
    """[image sha256 hex, image size, companion sha256 hex or "", companion size, which of the two the
    frames carry (1 image, 2 companion), their total bytes] (+ the frames when the server asked for
    them) -> [module].

    The companion is a bundle of PTX containers from the library the image came from, for a module
    with SASS alone (server/backends/sim/companion.py); it travels in chunks, once per server."""
    bulk = list(bulk)
    image_frames = bulk[:1] if bulk and sent & 1 else []
    companion_frames = bulk[len(image_frames):] if sent & 2 else []
    expected = (size if sent & 1 else 0) + (companion_size if sent & 2 else 0)
    if bulk and frames != expected:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"the frames hold {frames} bytes, not the {expected} sent says")
    image = _cached_image(s, digest, size, image_frames)
    loaded = None
    if companion:
        joined = [b"".join(bytes(f) for f in companion_frames)] if companion_frames else []
        loaded = (companion, _cached_image(s, companion, companion_size, joined))
    module = s.device.module_load(image, companion=loaded) if loaded else s.device.module_load(image)
    log.info("module_loaded", digest=digest[:16], size=size, source="upload" if image_frames else "cache",
             companion=companion[:16] if companion else None)
    h = s.new_handle("module", module)
    s.remember_module(h, digest, image, loaded)  # a checkpoint of the session loads it again elsewhere
    return (h,)


@handles("cuModuleUnload")
def module_unload(s, module):
    # Its functions go with it, as in CUDA (cuBLASLt loads a module to probe the GPU with one kernel,
    # then unloads it): a handle left behind would name a function no checkpoint can make again.
    s.drop_functions_of(s.get("module", module))
    s.device.module_unload(s.drop("module", module))
    return ()


@handles("cuModuleGetFunction")
def module_get_function(s, module, name):
    mod = s.get("module", module)
    return (s.new_function(mod, s.device.module_function(mod, name)),)


@handles("cuModuleGetFunctionCount")
def module_get_function_count(s, module):
    return (len(s.device.module_functions(s.get("module", module))),)


@handles("cuModuleEnumerateFunctions")
def module_enumerate_functions(s, count, module):
    """[room for `count` functions, module] -> [the function handles, in the module's order] (CUDA
    refuses a count other than the module's)."""
    fns = s.device.module_functions(s.get("module", module))
    if count != len(fns):
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"the module has {len(fns)} functions, not {count}")
    mod = s.get("module", module)
    return ([s.new_function(mod, f) for f in fns],)


@handles("cuModuleGetGlobal_v2")
def module_get_global(s, module, name):
    return s.device.module_global(s.get("module", module), name)


@handles("cuFuncGetParamInfo")
def func_get_param_info(s, function, index):
    params = s.device.function_params(s.get("function", function))
    if not 0 <= index < len(params):
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"parameter {index} of {len(params)}")
    return params[index]


@handles("cuFuncGetAttribute")
def func_get_attribute(s, attrib, function):
    if attrib not in _FUNC_ATTRS:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"function attribute {attrib}")
    return (s.device.function_attribute(s.get("function", function), _FUNC_ATTRS[attrib]),)


@handles("cuFuncGetName")
def func_get_name(s, function):
    """[function] -> the entry's (mangled) name; the client keeps the string (library.c)."""
    return (s.device.function_name(s.get("function", function)),)


@handles("cuFuncGetModule")
def func_get_module(s, function):
    """[function] -> the handle of its module: the one the program loaded it from, not a new one."""
    key = s.device.object_key(s.device.function_module(s.get("function", function)))
    for h, (kind, obj) in s.handles().items():
        if kind == "module" and s.device.object_key(obj) == key:
            return (h,)
    raise CudaError("CUDA_ERROR_NOT_FOUND", "the function's module is not one of this session's")


@handles("cuFuncSetAttribute")
def func_set_attribute(s, function, attrib, value):
    if attrib not in _FUNC_ATTRS:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"function attribute {attrib}")
    s.device.function_set_attribute(s.get("function", function), _FUNC_ATTRS[attrib], value)
    return ()


@handles("cuFuncIsLoaded")
def func_is_loaded(s, function):
    s.get("function", function)
    return (enums.CUfunctionLoadingState_enum["CU_FUNCTION_LOADING_STATE_LOADED"],)


@handles("cuFuncLoad")
def func_load(s, function):
    s.get("function", function)  # loaded with its module already
    return ()


@handles("cuFuncSetCacheConfig", "cuFuncSetSharedMemConfig")
def func_preference(s, function, config, *device):
    """[function, preference(, device)]: a cache or shared-memory preference, checked and accepted
    (as cudaFuncSetCacheConfig is in the client); it changes no result."""
    s.get("function", function)
    if not 0 <= config <= 3:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"preference {config}")
    return ()


@handles("cuLaunchKernel", "cudaLaunchKernel")
def launch_kernel(s, function, gx, gy, gz, bx, by, bz, shared, stream, params):
    """[function, grid x y z, block x y z, dynamic shared bytes, stream, packed parameters]"""
    fn, st = s.get("function", function), s.get("stream", stream)
    s.run_kernel(lambda: s.device.launch(fn, (gx, gy, gz), (bx, by, bz), shared, st, bytes(params)))
    return ()


@handles("cuLaunchKernelEx")
def launch_kernel_ex(s, function, gx, gy, gz, bx, by, bz, shared, stream, cx, cy, cz, policy, params):
    """[function, grid x y z, block x y z, dynamic shared bytes, stream, cluster x y z, scheduling
    policy, packed parameters]: a launch in thread-block clusters of cx × cy × cz blocks (cx 0: the
    function's own cluster dimensions, a scheduling policy alone)."""
    fn, st = s.get("function", function), s.get("stream", stream)
    cluster = _cluster(gx, gy, gz, cx, cy, cz, policy)
    s.run_kernel(lambda: s.device.launch(fn, (gx, gy, gz), (bx, by, bz), shared, st, bytes(params), cluster=cluster))
    return ()


@handles("cuOccupancyMaxActiveClusters")
def max_active_clusters(s, function, gx, gy, gz, bx, by, bz, shared, cx, cy, cz, policy):
    """[function, grid x y z, block x y z, dynamic shared bytes, cluster x y z, policy] -> clusters
    that can be resident at once: the driver's answer on a real GPU, else the resident blocks of every
    SM (the occupancy calculator's) in whole clusters."""
    fn = s.get("function", function)
    cluster = _cluster(gx, gy, gz, cx, cy, cz, policy)
    asked = s.device.cluster_occupancy(fn, (gx, gy, gz), (bx, by, bz), shared, cluster, potential=False)
    if asked is not None:
        return (asked,)
    dims = s.device.cluster_dims(fn, (gx, gy, gz), cluster)  # the backend answered None: the software GPU
    per_sm, = occupancy(s, function, bx * by * bz, shared)
    return (per_sm * _attr(s.device.attributes(), "MULTIPROCESSOR_COUNT") // (dims[0] * dims[1] * dims[2]),)


@handles("cuOccupancyMaxPotentialClusterSize")
def max_potential_cluster_size(s, function, gx, gy, gz, bx, by, bz, shared, cx, cy, cz, policy):
    """As max_active_clusters -> the largest cluster size the configuration could launch with."""
    return (s.device.cluster_occupancy(s.get("function", function), (gx, gy, gz), (bx, by, bz), shared,
                                       _cluster(gx, gy, gz, cx, cy, cz, policy), potential=True),)


def _cluster(gx, gy, gz, cx, cy, cz, policy):
    """The cluster a configuration names, checked as the driver checks it: every dimension at least 1
    and dividing the grid's."""
    if cx:
        if min(cx, cy, cz) < 1 or gx % cx or gy % cy or gz % cz:
            raise CudaError("CUDA_ERROR_INVALID_CLUSTER_SIZE",
                            f"cluster {cx}x{cy}x{cz} does not divide grid {gx}x{gy}x{gz}")
    elif cy or cz:
        raise CudaError("CUDA_ERROR_INVALID_CLUSTER_SIZE", f"cluster {cx}x{cy}x{cz}")
    if policy > 2:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"cluster scheduling policy {policy}")
    return (cx, cy, cz, policy)


@handles("cuLaunchCooperativeKernel", "cudaLaunchCooperativeKernel")
def launch_cooperative_kernel(s, function, gx, gy, gz, bx, by, bz, shared, stream, params):
    """As launch_kernel, for blocks that synchronise across the grid: every block must be resident
    at once, so the grid may not exceed what the occupancy calculator allows on all SMs."""
    fn, st = s.get("function", function), s.get("stream", stream)
    per_sm, = occupancy(s, function, bx * by * bz, shared)
    sms = _attr(s.device.attributes(), "MULTIPROCESSOR_COUNT")
    if gx * gy * gz > per_sm * sms:
        raise CudaError("CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
                        f"{gx * gy * gz} blocks cannot all be resident: at most {per_sm} per SM x {sms} SMs")
    s.run_kernel(lambda: s.device.launch(fn, (gx, gy, gz), (bx, by, bz), shared, st, bytes(params), cooperative=True))
    return ()


def _attr(attrs, name):
    return attrs[enums.CUdevice_attribute_enum["CU_DEVICE_ATTRIBUTE_" + name]]


@handles("cuOccupancyAvailableDynamicSMemPerBlock")
def available_dynamic_smem(s, function, num_blocks, block_size):
    """[function, blocks per SM, block size] -> the most dynamic shared memory a block may use for
    `num_blocks` of them to be resident on an SM: the driver's answer where a real GPU gives one, else
    what the occupancy calculator above allows — the SM's shared memory shared out among the blocks, less
    each one's static part and reserve, in whole allocation units, within what a block may opt in to.
    Blocks that cannot be resident together even without dynamic shared memory (threads, registers,
    blocks) are CUDA_ERROR_INVALID_VALUE, as the H100's driver and CUDA's cuda_occupancy.h answer."""
    fn = s.get("function", function)
    if num_blocks <= 0 or block_size <= 0:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"{num_blocks} blocks of {block_size} threads")
    asked = s.device.available_dynamic_smem(fn, num_blocks, block_size)
    if asked is not None:
        return (asked,)
    resident, = occupancy(s, function, block_size, 0)
    if resident < num_blocks:
        raise CudaError("CUDA_ERROR_INVALID_VALUE",
                        f"{num_blocks} blocks of {block_size} threads cannot be resident on an SM (at most {resident})")
    attrs = s.device.attributes()
    static = s.device.function_attribute(fn, "CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES")
    per_block = _attr(attrs, "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR") // num_blocks
    room = (per_block - static - _attr(attrs, "RESERVED_SHARED_MEMORY_PER_BLOCK")) // SMEM_UNIT * SMEM_UNIT
    return (max(0, min(room, _attr(attrs, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN") - static)),)


SMEM_UNIT = 128  # shared memory is allocated to blocks in units of this many bytes


@handles("cuOccupancyMaxActiveBlocksPerMultiprocessor", "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags")
def occupancy(s, function, block_size, dynamic_shared, flags=0):
    """Resident blocks per SM: the driver's answer where a real GPU gives one, else as CUDA's
    occupancy calculator counts them: the least of the per-SM limits on blocks, threads (whole
    warps), registers (allocated per warp in units of 256) and shared memory (the function's static
    + dynamic + the per-block reserve)."""
    fn = s.get("function", function)
    if block_size <= 0:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"block size {block_size}")
    asked = s.device.occupancy(fn, block_size, dynamic_shared, flags)
    if asked is not None:
        return (asked,)
    if block_size > s.device.function_attribute(fn, "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK"):
        return (0,)
    attrs = s.device.attributes()
    regs = max(s.device.function_attribute(fn, "CU_FUNC_ATTRIBUTE_NUM_REGS"), 1)
    shared = (s.device.function_attribute(fn, "CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES") + dynamic_shared
              + _attr(attrs, "RESERVED_SHARED_MEMORY_PER_BLOCK"))
    warps = -(-block_size // 32)
    regs_per_warp = -(-regs * 32 // 256) * 256
    limits = [_attr(attrs, "MAX_BLOCKS_PER_MULTIPROCESSOR"),
              _attr(attrs, "MAX_THREADS_PER_MULTIPROCESSOR") // (warps * 32),
              _attr(attrs, "MAX_REGISTERS_PER_MULTIPROCESSOR") // (regs_per_warp * warps),
              _attr(attrs, "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR") // shared]
    return (max(0, min(limits)),)
