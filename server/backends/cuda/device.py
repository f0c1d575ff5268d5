"""The `cuda` backend: a real GPU through the NVIDIA driver (libcuda.so.1), via cffi.

Deliberately thin — every check, quota and handle lives above the Device interface — because no
test machine here has a GPU to catch its mistakes. The driver's declarations are generated from
cuda.h (protocol/generated/driver.py), never typed here; the forwarded calls no API handler covers
are served from their records by generic.py. Each call's CUresult is turned into CudaError with the
driver's own enumerator name (cuGetErrorName). RGPU_LIBCUDA names another library to load instead
of libcuda.so.1 (tests load a recording stand-in)."""
from __future__ import annotations

import bisect
import os
import threading

import cffi

from rgpu.protocol.generated import driver as decls
from rgpu.protocol.generated.enums import CUfunction_attribute_enum

from ..base import Device, host_buffer
from .arrays import CudaArrays
from .graphs import CudaGraphs
from .vmm import CudaVmm
from .ipc import CudaIpc
from .placement import CudaPlacement
from ...errors import CudaError
from ...shm import DATA
from .timing import KernelClock
from . import copies, launches, linking, suspension
from .arena import open_arena
from .host_stage import HostStage, OutStage
from .waits import SPIN_S, Waiter, copy_spin_s

_FUNC_ATTR = CUfunction_attribute_enum
_PARAM_BUFFER_POINTER, _PARAM_BUFFER_SIZE, _PARAM_END = 1, 2, 0
_HOST_REGISTER_PORTABLE = 1  # CU_MEMHOSTREGISTER_PORTABLE
_HOST_REGISTER_DEVICEMAP = 2  # CU_MEMHOSTREGISTER_DEVICEMAP
# A wait's own events sleep in cuEventSynchronize (waits.py): CU_EVENT_BLOCKING_SYNC, and no timing
_FENCE_EVENT = 0x1 | 0x2  # CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING
_STREAM_NON_BLOCKING = 0x1  # CU_STREAM_NON_BLOCKING
NOT_READY = 600


def param_extra(buf, size):
    """A launch's `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER buf, CU_LAUNCH_PARAM_BUFFER_SIZE *size, END):
    the kernel's parameters packed in `buf`, `size` (a size_t *) bytes of them. Both must outlive it."""
    return _ffi.new("void *[5]", [_ffi.cast("void *", _PARAM_BUFFER_POINTER), buf,
                                  _ffi.cast("void *", _PARAM_BUFFER_SIZE), size, _ffi.cast("void *", _PARAM_END)])


class CudaUnavailable(RuntimeError):
    pass


_ffi = None
_lib = None


def ffi() -> cffi.FFI:
    """The driver's declarations, parsed once per process (about half a second)."""
    global _ffi
    if _ffi is None:
        f = cffi.FFI()
        f.cdef(decls.CDEF)
        _ffi = f
    return _ffi


def _load():
    global _lib
    if _lib is None:
        path = os.environ.get("RGPU_LIBCUDA") or "libcuda.so.1"
        try:
            _lib = ffi().dlopen(path)
        except OSError as e:
            raise CudaUnavailable(f"the NVIDIA driver ({path}) cannot be loaded: {e}") from None
    return _lib


def lib():
    return _load()


def check(rc: int) -> None:
    _check(rc)


def _launch_config(grid, block, shared, stream, cluster):
    """A CUlaunchConfig with the cluster's attributes (CLUSTER_DIMENSION when it names dimensions,
    CLUSTER_SCHEDULING_POLICY_PREFERENCE when it names a policy), and what must outlive the call."""
    attrs = _ffi.new("CUlaunchAttribute[2]")
    n = 0
    if cluster[0]:
        attrs[n].id = _lib.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        attrs[n].value.clusterDim.x, attrs[n].value.clusterDim.y, attrs[n].value.clusterDim.z = cluster[:3]
        n += 1
    if cluster[3]:
        attrs[n].id = _lib.CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE
        attrs[n].value.clusterSchedulingPolicyPreference = cluster[3]
        n += 1
    config = _ffi.new("CUlaunchConfig *")
    config.gridDimX, config.gridDimY, config.gridDimZ = grid
    config.blockDimX, config.blockDimY, config.blockDimZ = block
    config.sharedMemBytes, config.hStream, config.attrs, config.numAttrs = shared, stream, attrs, n
    return config, attrs


def _check(rc: int) -> None:
    if rc != 0:
        name = _ffi.new("const char **")
        _lib.cuGetErrorName(rc, name)
        raise CudaError(_ffi.string(name[0]).decode() if name[0] else "CUDA_ERROR_UNKNOWN", f"driver returned {rc}")


def probe() -> list[dict]:
    """Every GPU the driver sees: {memory, name, uuid (16 bytes), sms, compute_capability}."""
    lib = _load()
    if lib.cuInit(0) != 0:
        raise CudaUnavailable("cuInit failed: the driver is installed but no GPU is usable")
    n = _ffi.new("int *")
    _check(lib.cuDeviceGetCount(n))
    out = []
    for i in range(n[0]):
        dev, mem, name = _ffi.new("CUdevice *"), _ffi.new("size_t *"), _ffi.new("char[256]")
        uuid, attr = _ffi.new("CUuuid *"), _ffi.new("int *")
        _check(lib.cuDeviceGet(dev, i))
        _check(lib.cuDeviceTotalMem_v2(mem, dev[0]))
        _check(lib.cuDeviceGetName(name, 256, dev[0]))
        _check(lib.cuDeviceGetUuid_v2(uuid, dev[0]))
        values = []
        for a in (16, 75, 76):  # MULTIPROCESSOR_COUNT, COMPUTE_CAPABILITY_MAJOR / _MINOR
            _check(lib.cuDeviceGetAttribute(attr, a, dev[0]))
            values.append(attr[0])
        out.append({"memory": mem[0], "name": _ffi.string(name).decode(), "uuid": bytes(_ffi.buffer(uuid)),
                    "sms": values[0], "compute_capability": f"{values[1]}.{values[2]}"})
    if not out:
        raise CudaUnavailable("the driver reports no GPU")
    return out


class CudaDevice(CudaPlacement, CudaArrays, CudaGraphs, CudaVmm, CudaIpc, Device):
    reports_running = True  # a kernel cannot be time-sliced by the server: its running time is watched
    registers_host = True  # host memory the worker maps is page-locked for DMA (cuMemHostRegister)

    def __init__(self, index: int, memory_limit: int, reserve=None, capture_printf: bool = False,
                 window: int | None = None):
        lib = _load()
        _check(lib.cuInit(0))
        dev = _ffi.new("CUdevice *")
        _check(lib.cuDeviceGet(dev, index))
        self.dev = dev[0]
        ctx = _ffi.new("CUcontext *")
        _check(lib.cuDevicePrimaryCtxRetain(ctx, self.dev))
        self.ctx = ctx[0]
        _check(lib.cuCtxSetCurrent(self.ctx))
        name, mem, uuid = _ffi.new("char[256]"), _ffi.new("size_t *"), _ffi.new("CUuuid *")
        _check(lib.cuDeviceGetName(name, 256, self.dev))
        _check(lib.cuDeviceTotalMem_v2(mem, self.dev))
        _check(lib.cuDeviceGetUuid_v2(uuid, self.dev))
        self.name, self.uuid = _ffi.string(name).decode(), bytes(_ffi.buffer(uuid))
        self.total_memory = min(mem[0], memory_limit)
        self.cc = (self._attr(75), self._attr(76))  # COMPUTE_CAPABILITY_MAJOR / _MINOR
        self._reserve = reserve
        self._allocs: dict[int, int] = {}
        self._placed: dict[int, int] = {}  # allocations the client placed: their charges (mem_free)
        self._spare = 0  # the quota charged ahead for the client's placements, without a copier (spare)
        self._starts: list[int] = []  # sorted starts of _allocs, _globals and VMM runs (allocation() bisects)
        self._streams, self._events, self._modules = set(), set(), set()
        self._graphs = set()  # executable graphs (graphs.py)
        self._globals: dict[int, int] = {}
        self._mapped_host: dict[int, int] = {}  # mapped host memory: device address -> size (host_map)
        self._attrs: dict[int, int] | None = None
        self.clock = KernelClock(_lib, _ffi, _check)
        self.launcher = launches.make(_ffi, _lib, self.clock)
        # the serving loop's copies and memsets (copies.py), told of every allocation in _allocs
        self.copier = copies.make(_ffi, _lib, self.launcher)
        if self.copier is not None:
            self.copier.set_spare(0, self.spare_cap)
        self._bound = threading.local()  # threads that made the context current (running_time)
        # One launch argument block, reused: the driver copies a kernel's parameters at the launch.
        self._params = _ffi.new("char[]", 4096)
        self._params_size = _ffi.new("size_t *")
        self._extra = param_extra(self._params, self._params_size)
        self._waiter = Waiter(lambda: _lib.cuCtxSetCurrent(self.ctx))
        self._fences: list = []  # blocking-sync events no wait is using (_fence)
        self._fence_stream = None  # made for the first long wait on an event of the program's
        self._printf = None
        if capture_printf:
            from .printf import StdoutCapture
            self._printf = StdoutCapture()
            if self.launcher is not None:
                self.launcher.printf_fd(self._printf.fd)
        # CUDA arrays and mipmapped arrays (driver handle -> bytes charged), texture and surface
        # objects made (arrays.py)
        self._arrays: dict = {}
        self._mipmaps: dict = {}
        self._objects: dict = {}
        self._fillers: list = []  # objects made only to give a restored one its value (cuda/arrays.py)
        self._vmm_tables()  # physical allocations, reserved ranges, mappings (vmm.py)
        self._ipc_tables()  # other sessions' memory opened here (ipc.py)
        self._placement_tables()  # what a checkpoint needs to know (placement.py)
        # the session's memory at addresses a move can give it again (arena.py), or None: cuMemAlloc's
        self.arena = None
        try:
            self.arena = open_arena(_ffi, _lib, _check, self.dev, self.vmm_granularity(False), mem[0], window)
        except (CudaError, AttributeError):
            pass
        if self.arena is not None and self.copier is not None:
            self.copier.use_arena(self.arena)
        self._suspended: int | None = None  # the bytes released while the driver holds a checkpoint
        self._stuck = False  # the driver's checkpoint or restore left the process locked for good
        # H2D frames read from the network, D2H data for replies (host_stage.py)
        self._stage = HostStage(_ffi, self.host_register, self.host_unregister)
        self._out_stage = OutStage(self.host_register, self.host_unregister)

    @property
    def housekeeping(self):
        return self._waiter.hook

    @housekeeping.setter
    def housekeeping(self, hook):
        self._waiter.hook = hook

    def _wait_stream(self, stream, copied: int = 0) -> None:
        """`copied`: the bytes of the copy just queued, which the wait is for (waits.copy_spin_s)."""
        s = stream or _ffi.NULL
        _check(self._waiter.wait(lambda: _lib.cuStreamQuery(s), lambda: _lib.cuStreamSynchronize(s),
                                 lambda: self._fence((s,)), copy_spin_s(copied) if copied else SPIN_S))

    def _query_all(self) -> int:
        for s in (_ffi.NULL, *self._streams):
            rc = _lib.cuStreamQuery(s)
            if rc != 0:
                return rc
        return 0

    def _busy_streams(self):
        return [s for s in (_ffi.NULL, *self._streams) if _lib.cuStreamQuery(s) == NOT_READY]

    def _fence(self, streams):
        """A wait for what `streams` hold now that sleeps instead of spinning (waits.py): a
        blocking-sync event recorded on each, run on whichever thread waits. Its events go back to
        the pool once it has waited, so a wait given up never has its events recorded again."""
        events = []
        for s in streams:
            if self._fences:
                e = self._fences.pop()
            else:
                box = _ffi.new("CUevent *")
                if _lib.cuEventCreate(box, _FENCE_EVENT) != 0:
                    break  # what is left is waited for by the blocking call itself
                e = box[0]
            if _lib.cuEventRecord(e, s) != 0:
                self._fences.append(e)
                break
            events.append(e)

        def sleep():
            for e in events:
                _lib.cuEventSynchronize(e)  # its error, if any, is the blocking call's to report
            self._fences.extend(events)
        return sleep

    def _fence_event(self, event):
        """`_fence` for an event of the program's, which may not be blocking-sync: a stream of the
        worker's own waits for it and the fence follows it there."""
        if self._fence_stream is None:
            s = _ffi.new("CUstream *")
            if _lib.cuStreamCreateWithPriority(s, _STREAM_NON_BLOCKING, 0) != 0:
                return lambda: None
            self._fence_stream = s[0]
        if _lib.cuStreamWaitEvent(self._fence_stream, event, 0) != 0:
            return lambda: None
        return self._fence((self._fence_stream,))

    def _attr(self, a: int) -> int:
        v = _ffi.new("int *")
        _check(_lib.cuDeviceGetAttribute(v, a, self.dev))
        return v[0]

    def attributes(self) -> dict[int, int]:
        """Every attribute the driver answers, read once: none of them changes while a context lives."""
        if self._attrs is None:
            out, v = {}, _ffi.new("int *")
            for a in range(1, 256):
                if _lib.cuDeviceGetAttribute(v, a, self.dev) == 0:
                    out[a] = v[0]
            self._attrs = out
        return self._attrs

    def _charge_quota(self, size) -> None:
        if self._reserve is not None and not self._reserve(size):
            raise CudaError("CUDA_ERROR_OUT_OF_MEMORY", f"{size} bytes exceed this session's memory")

    def _arena_alloc(self, size, align: int = 0) -> int:
        """An allocation from the arena, charged already: the charge goes back if the arena refuses."""
        try:
            addr = self.arena.alloc(size, align)
        except CudaError:
            if self._reserve is not None:
                self._reserve(-size)
            raise
        self._track(addr, size)
        return addr

    def mem_alloc(self, size):
        self._charge_quota(size)
        if self.arena is not None:
            return self._arena_alloc(size)
        p = _ffi.new("CUdeviceptr *")
        rc = _lib.cuMemAlloc_v2(p, size)
        if rc != 0 and self._reserve is not None:
            self._reserve(-size)
        _check(rc)
        self._track(p[0], size)
        return p[0]

    def _track(self, addr: int, size: int, table=None) -> None:
        (self._allocs if table is None else table)[addr] = size
        self._track_start(addr)
        if table is None and self.copier is not None:
            self.copier.track(addr, size)

    def loop_memory(self, addrs, sizes, n: int) -> None:
        """The allocations the worker's serving loop made (size > 0) and freed (size < 0; copies.c, in
        order), entered in the tables as mem_alloc and mem_free enter theirs: the copier and the quota
        have them already."""
        for i in range(n):
            addr, size = int(addrs[i]), int(sizes[i])
            if size > 0:
                self._allocs[addr] = size
                self._track_start(addr)
                if self.arena is not None and self.arena.lent(addr, size):  # the client placed it
                    self._placed[addr] = size
            else:
                self._allocs.pop(addr, None)
                self._placed.pop(addr, None)
                self._untrack_start(addr)

    def _untrack_alloc(self, addr: int) -> int:
        """An allocation gone from _allocs (and from the copier's copy of it): its size, 0 if none."""
        if self.copier is not None:
            self.copier.untrack(addr)
        return self._allocs.pop(addr, 0)

    def _track_start(self, addr: int) -> None:
        i = bisect.bisect_left(self._starts, addr)
        if i == len(self._starts) or self._starts[i] != addr:
            self._starts.insert(i, addr)

    def _untrack_start(self, addr: int) -> None:
        i = bisect.bisect_left(self._starts, addr)
        if i < len(self._starts) and self._starts[i] == addr:
            del self._starts[i]

    def mem_alloc_managed(self, size, align):
        # The client's coherence protocol (push before device work, pull after a synchronisation)
        # is what makes its host copy right, not the driver's migration, and the server process
        # never touches the pages itself: to the GPU it is device memory. So it comes from the
        # arena, at an address a multiple of `align` (a host page of any client), and moves with
        # the session as any allocation does (placement.py). Without an arena, cuMemAllocManaged:
        # the driver chooses the address; `size` is already a multiple of `align`, so a page-aligned
        # start (the smallest host page) is enough for the client to map it without sharing a page
        # with another allocation — the client checks against its own page size.
        self._charge_quota(size)
        if self.arena is not None:
            return self._arena_alloc(size, align)
        p = _ffi.new("CUdeviceptr *")
        rc = _lib.cuMemAllocManaged(p, size, 1)  # CU_MEM_ATTACH_GLOBAL
        if rc == 0 and p[0] % 4096:
            _lib.cuMemFree_v2(p[0])
            rc = 2  # CUDA_ERROR_OUT_OF_MEMORY: the client could not map it
        if rc != 0 and self._reserve is not None:
            self._reserve(-size)
        _check(rc)
        self._track(p[0], size)
        self._managed.add(p[0])
        return p[0]

    def allocations(self):
        return list(self._allocs.items())

    def window(self) -> int | None:
        """The program's device number its arena's place comes from (arena.py), carried by a move so that
        the target's arena is where the source's was; None without an arena."""
        return None if self.arena is None else self.arena.window

    def mem_free(self, addr, stream=None):
        """Frees the allocation at `addr`: the charge of one the client placed (which goes to the
        session's spare, server/api/placed.py, not back to the quota), None for any other. The
        device's queued work is waited for first, as cudaFree (and cuMemFree) does: the arena's free
        unmaps the memory, which the driver does not wait for, and a kernel still reading it would
        fault and end the context. With `stream` (cudaFreeAsync: the memory is freed where the
        stream reaches the free), that stream's work alone."""
        if stream is not None:
            if _lib.cuStreamQuery(stream or _ffi.NULL) != 0:
                self._wait_stream(stream)
        elif self._query_all() != 0:
            self.synchronize()  # a failed kernel's error is this free's, as cudaFree reports it
        with self.free_lock:  # not under a pre-copy read (placement.py)
            return self._mem_free(addr)

    def _mem_free(self, addr):
        if addr in self._group_of:  # placed through VMM by a restore (placement.py)
            self._unplace(addr)
            return None
        if self.arena is not None and addr in self._allocs and self.arena.holds(addr):
            self.arena.free(addr)
        else:
            _check(_lib.cuMemFree_v2(addr))
        self._managed.discard(addr)
        size = self._untrack_alloc(addr)
        if addr not in self._globals:
            self._untrack_start(addr)
        if self._placed.pop(addr, None) is not None:
            return size
        if self._reserve is not None:
            self._reserve(-size)
        return None

    # -- allocations the client placed (server/api/placed.py) --
    def client_range(self):
        """(base, span, granule, guard, charge unit) of the range the client places in (the arena's
        upper half), or None without an arena."""
        if self.arena is None:
            return None
        return (*self.arena.placement(), 0, 1)

    @staticmethod
    def placed_charge(size: int) -> int:
        return size  # as cuMemAlloc's: what the program asked for

    @property
    def spare(self) -> int:
        """Bytes of the quota charged ahead for the client's placements (api/placed.py): the copier's,
        which the serving loop's places and frees change too, where there is one."""
        copier = getattr(self, "copier", None)
        return copier.spare if copier is not None else self._spare

    @spare.setter
    def spare(self, n: int) -> None:
        copier = getattr(self, "copier", None)
        if copier is not None:
            copier.set_spare(n, self.spare_cap)
        else:
            self._spare = n

    def take_spare(self, n: int) -> bool:
        if self._reserve is not None and not self._reserve(n):
            return False
        self.spare += n
        return True

    def give_spare(self, n: int) -> None:
        self.spare -= n
        if self._reserve is not None:
            self._reserve(-n)

    def mem_place(self, addr: int, size: int, span: int) -> None:
        if self.arena is None or not 0 < size <= span or not self.arena.lent(addr, span) or not self.arena.place(addr, size):
            raise CudaError("CUDA_ERROR_INVALID_VALUE", f"[0x{addr:x}, +{span}) is not free in this session's placement range")
        self._placed[addr] = size
        self._track(addr, size)
        if self.copier is not None:
            self.copier.placed(addr)

    def mem_info(self):
        used = sum(self._allocs.values())
        return self.total_memory - used, self.total_memory

    def allocation(self, addr):
        i = bisect.bisect_right(self._starts, addr) - 1
        if i >= 0:
            start = self._starts[i]
            size = (self._allocs.get(start) or self._globals.get(start) or self._runs.get(start)
                    or self._opened.get(start, 0) or self._mapped_host.get(start, 0))
            if addr < start + size:
                return start, size
        return None

    def _range(self, addr, n):
        found = self.allocation(addr) if n >= 0 else None
        if found is None or addr + n > found[0] + found[1]:
            raise CudaError("CUDA_ERROR_INVALID_VALUE", f"[0x{addr:x}, +{n}) is outside any allocation")

    def _idle_first(self, stream) -> None:
        """A copy from or to pageable memory waits for its stream inside the driver's copy call,
        spinning a CPU as its synchronize does (waits.py): behind queued work, the stream is waited
        for the way a synchronize is first. Nothing else is queued meanwhile: the copy runs where
        it would have."""
        if _lib.cuStreamQuery(stream or _ffi.NULL) == NOT_READY:
            self._wait_stream(stream)

    def copy_htod(self, dst, data, stream):
        n = len(data)
        self._range(dst, n)
        if hasattr(data, "open_into"):  # a frame not read yet (streamed or sealed): read or opened here
            if self._stage.takes(n):
                with self._stage.holding(data) as src:  # into page-locked memory, reused (host_stage.py)
                    self._htod(dst, _ffi.cast("void *", src), n, stream)
                return
            data = data.buffer
        self._htod(dst, _ffi.from_buffer(data), n, stream)

    def _htod(self, dst, src, n, stream) -> None:
        self._idle_first(stream)
        _check(_lib.cuMemcpyHtoDAsync_v2(dst, src, n, stream or _ffi.NULL))
        self._wait_stream(stream, n)  # src is only the copy's until this returns

    def stage_stats(self) -> dict:
        return {"staged_frames": self._stage.frames, "stage_pinned": int(self._stage.registered),
                "staged_out": self._out_stage.frames, "stage_out_pinned": int(self._out_stage.registered)}

    def copy_dtoh(self, src, size, stream):
        self._range(src, size)
        out = self._out_stage.buffer(size)  # page-locked, reused where nothing holds it (host_stage.py)
        if out is None:
            out = host_buffer(size)  # written whole by the copy: not zeroed first
        self._idle_first(stream)
        _check(_lib.cuMemcpyDtoHAsync_v2(_ffi.from_buffer(out), src, size, stream or _ffi.NULL))
        self._wait_stream(stream, size)
        return out  # sent as it is: no second copy

    def host_register(self, addr, size):
        # portable: every context of the worker may DMA from and to it; mapped: a program that asks
        # (MAP_HOST) gets the device pointer of the same registration (pinned.py), none made twice
        _check(_lib.cuMemHostRegister_v2(_ffi.cast("void *", addr), size,
                                         _HOST_REGISTER_PORTABLE | _HOST_REGISTER_DEVICEMAP))
        return addr

    def host_map(self, mapping):
        d = _ffi.new("CUdeviceptr *")
        _check(_lib.cuMemHostGetDevicePointer_v2(d, _ffi.cast("void *", mapping.addr + DATA), 0))
        # copies and memsets at its device addresses are checked against it as against an allocation
        self._mapped_host[int(d[0])] = mapping.size - DATA
        self._track_start(int(d[0]))
        return int(d[0])

    def host_unmap(self, mapping):
        if self._mapped_host.pop(mapping.devptr, None) is not None:
            self._untrack_start(mapping.devptr)

    def host_unregister(self, handle):
        if self._suspended is not None or self._stuck:
            # checkpointed or locked by the driver, at the session's end (a message restores it
            # first): the call would block until a restore; the worker's process ends next, and the
            # driver releases its registrations with it (as close says)
            return
        _check(_lib.cuMemHostUnregister(_ffi.cast("void *", handle)))

    def copy_htod_host(self, dst, data, addr, stream, wait):
        # DMA straight from the program's pinned buffer: asynchronous in stream order, as in CUDA
        self._range(dst, len(data))
        _check(_lib.cuMemcpyHtoDAsync_v2(dst, _ffi.cast("void *", addr), len(data), stream or _ffi.NULL))
        if wait:
            self._wait_stream(stream, len(data))

    def copy_dtoh_host(self, src, out, addr, stream, wait):
        self._range(src, len(out))
        _check(_lib.cuMemcpyDtoHAsync_v2(_ffi.cast("void *", addr), src, len(out), stream or _ffi.NULL))
        if wait:
            self._wait_stream(stream, len(out))

    def copy_dtod(self, dst, src, size, stream):
        self._range(src, size)
        self._range(dst, size)
        _check(_lib.cuMemcpyDtoDAsync_v2(dst, src, size, stream or _ffi.NULL))

    def memset(self, dst, value, width, count, stream):
        self._range(dst, width * count)
        fn = {1: _lib.cuMemsetD8Async, 2: _lib.cuMemsetD16Async, 4: _lib.cuMemsetD32Async}[width]
        _check(fn(dst, value, count, stream or _ffi.NULL))

    def stream_create(self, flags, priority):
        s = _ffi.new("CUstream *")
        _check(_lib.cuStreamCreateWithPriority(s, flags, priority))
        self._streams.add(s[0])
        return s[0]

    def stream_destroy(self, stream):
        self._streams.discard(stream)
        _check(_lib.cuStreamDestroy_v2(stream))

    def stream_synchronize(self, stream):
        self._wait_stream(stream)

    def stream_query(self, stream):
        rc = _lib.cuStreamQuery(stream or _ffi.NULL)
        if rc == NOT_READY:
            return False
        _check(rc)
        return True

    def stream_priority(self, stream):
        v = _ffi.new("int *")
        _check(_lib.cuStreamGetPriority(stream or _ffi.NULL, v))
        return v[0]

    def stream_flags(self, stream):
        v = _ffi.new("unsigned int *")
        _check(_lib.cuStreamGetFlags(stream or _ffi.NULL, v))
        return v[0]

    def stream_wait_event(self, stream, event):
        _check(_lib.cuStreamWaitEvent(stream or _ffi.NULL, event, 0))

    def event_create(self, flags):
        e = _ffi.new("CUevent *")
        _check(_lib.cuEventCreate(e, flags))
        self._events.add(e[0])
        self._event_flags[self.object_key(e[0])] = flags
        return e[0]

    def event_record(self, event, stream):
        _check(_lib.cuEventRecord(event, stream or _ffi.NULL))

    def event_synchronize(self, event):
        _check(self._waiter.wait(lambda: _lib.cuEventQuery(event), lambda: _lib.cuEventSynchronize(event),
                                 lambda: self._fence_event(event)))

    def event_query(self, event):
        rc = _lib.cuEventQuery(event)
        if rc == NOT_READY:
            return False
        _check(rc)
        return True

    def event_elapsed_ms(self, start, end):
        ms = _ffi.new("float *")
        _check(_lib.cuEventElapsedTime_v2(ms, start, end))
        return ms[0]

    def event_destroy(self, event):
        self._events.discard(event)
        self._event_flags.pop(self.object_key(event), None)
        _check(_lib.cuEventDestroy_v2(event))

    # -- modules and launches --
    def module_load(self, image, companion=None):  # SASS runs here: no companion needed
        original = bytes(image)
        if linking.is_link_image(image):
            image = linking.link(_ffi, _lib, image)
        data = _ffi.from_buffer(bytes(image))
        m = _ffi.new("CUmodule *")
        _check(_lib.cuModuleLoadData(m, data))
        self._modules.add(m[0])
        self._images[self.object_key(m[0])] = original  # its variables, for a checkpoint (placement.py)
        return m[0]

    def module_unload(self, module):
        key = self.object_key(module)
        with self.free_lock:  # not while a pre-copy lists the variables' ranges (placement.py)
            self._modules.discard(module)
            self._images.pop(key, None)
            self._variable_names.pop(key, None)
            self._var_ranges.pop(key, None)
            self._handed.pop(key, None)
            self._alias_drop_module(key)
            _check(_lib.cuModuleUnload(module))

    def module_function(self, module, name):
        f = _ffi.new("CUfunction *")
        _check(_lib.cuModuleGetFunction(f, module, name.encode()))
        return f[0]

    def symbol_range(self, module, name):
        p, n = _ffi.new("CUdeviceptr *"), _ffi.new("size_t *")
        _check(_lib.cuModuleGetGlobal_v2(p, n, module, name.encode()))
        self._track(p[0], n[0], self._globals)  # copies to symbols pass the bounds checks of _range
        return p[0], n[0]

    def module_global(self, module, name):
        addr, size = self.symbol_range(module, name)
        key = self.object_key(module)
        # the program holds this address now: a move keeps it as the variable's name (aliases.py)
        handed = self._handed.setdefault(key, set())
        if name not in handed:
            handed.add(name)
            self._var_ranges.pop(key, None)  # listed again with it (an internal symbol's image name)
        held = self.held_address(key, name)
        return (addr if held is None else held), size

    def function_params(self, function):
        out, off, size = [], _ffi.new("size_t *"), _ffi.new("size_t *")
        while _lib.cuFuncGetParamInfo(function, len(out), off, size) == 0:
            out.append((off[0], size[0]))
        return out

    def function_module(self, function):
        m = _ffi.new("CUmodule *")
        _check(_lib.cuFuncGetModule(m, function))
        return m[0]

    def object_key(self, obj):
        # the driver's handles are pointers: two cdata objects may wrap the same one
        return int(_ffi.cast("uintptr_t", obj)) if isinstance(obj, _ffi.CData) else id(obj)

    def function_name(self, function):
        name = _ffi.new("const char **")
        _check(_lib.cuFuncGetName(name, function))
        return _ffi.string(name[0]).decode()

    def function_attribute(self, function, attribute):
        v = _ffi.new("int *")
        _check(_lib.cuFuncGetAttribute(v, _FUNC_ATTR[attribute], function))
        return v[0]

    def function_set_attribute(self, function, attribute, value):
        _check(_lib.cuFuncSetAttribute(function, _FUNC_ATTR[attribute], value))
        self._func_attrs.setdefault(self.object_key(function), {})[attribute] = value
        if self.launcher is not None:  # the loop sets some too, and keeps the latest of both (launches.py)
            self.launcher.attribute(function, attribute, value)

    @property
    def device_time(self) -> float:
        """Seconds of kernel time of the launches that have completed: launches stay asynchronous
        and are timed by windows of launches (timing.py), charged once the GPU has run them."""
        return self.clock.completed()

    def settle_and_time(self) -> float:
        return self.clock.settle()

    def settle(self, wait_s: float = 0.0):
        self.clock.close()
        if wait_s > 0:
            # The GPU goes to another session next (session.py): the kernels launched so far finish
            # first, or the GPU would run them beside that session's, each session's timing would
            # hold the other's kernels, and the shares would be the GPU's time slices, not the
            # guarantees. At most `wait_s`: kernels that outlast it are time-sliced by the GPU.
            busy = self._busy_streams()
            if busy:
                self._waiter.within(self._query_all, lambda: self._fence(busy), wait_s)

    def running_time(self) -> float:
        if not getattr(self._bound, "ctx", False):
            _lib.cuCtxSetCurrent(self.ctx)  # a thread of its own (the worker's watch)
            self._bound.ctx = True
        return self.clock.running()

    def launch(self, function, grid, block, shared, stream, params, cooperative=False, cluster=None):
        s = stream or _ffi.NULL
        params = self.fix_params(params)  # a moved variable's old address, where it is now (aliases.py)
        self.clock.before_launch(s)
        n = len(params)
        if cooperative or n > 4096:
            buf = _ffi.new("char[]", bytes(params) or b"\0")
        else:
            buf = self._params
            _ffi.memmove(buf, params, n)
        if cooperative:
            # cuLaunchCooperativeKernel takes kernelParams only (no `extra`): one pointer per
            # parameter into the packed buffer, at the offsets the driver reports.
            _check(_lib.cuLaunchCooperativeKernel(function, *grid, *block, shared, s, self._param_pointers(function, buf)))
            return
        if buf is self._params:
            self._params_size[0] = n
            extra = self._extra
        else:
            size = _ffi.new("size_t *", n)
            extra = param_extra(buf, size)
        if cluster is not None:
            config, _keep = _launch_config(grid, block, shared, s, cluster)
            _check(_lib.cuLaunchKernelEx(config, function, _ffi.NULL, extra))
        else:
            _check(_lib.cuLaunchKernel(function, *grid, *block, shared, s, _ffi.NULL, extra))

    def occupancy(self, function, block_size, dynamic_shared, flags):
        # the driver's own calculator: it knows the GPU's register and shared-memory allocation
        # rules (granularities, carveouts, the per-block reserve) that a formula only approximates
        out = _ffi.new("int *")
        _check(_lib.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(out, function, block_size, dynamic_shared,
                                                                         flags))
        return out[0]

    def available_dynamic_smem(self, function, num_blocks, block_size):
        out = _ffi.new("size_t *")
        _check(_lib.cuOccupancyAvailableDynamicSMemPerBlock(out, function, num_blocks, block_size))
        return out[0]

    def cluster_occupancy(self, function, grid, block, shared, cluster, potential):
        config, _keep = _launch_config(grid, block, shared, _ffi.NULL, cluster)
        out = _ffi.new("int *")
        ask = _lib.cuOccupancyMaxPotentialClusterSize if potential else _lib.cuOccupancyMaxActiveClusters
        _check(ask(out, function, config))
        return out[0]

    @staticmethod
    def _param_pointers(function, buf):
        offsets = []
        offset, size = _ffi.new("size_t *"), _ffi.new("size_t *")
        while _lib.cuFuncGetParamInfo(function, len(offsets), offset, size) == 0:  # INVALID_VALUE past the last
            offsets.append(offset[0])
        return _ffi.new("void *[]", [buf + o for o in offsets] or [_ffi.NULL])

    def set_limit(self, limit, value):
        from rgpu.protocol.generated.enums import CUlimit_enum
        _check(_lib.cuCtxSetLimit(CUlimit_enum[limit], value))

    @property
    def printf_buffered(self) -> int | None:
        """The address of the printf capture's flag for the worker's compiled serving loop (printf.py),
        or None without a capture."""
        return self._printf.buffered if self._printf is not None else None

    def take_output(self, pending: int = -1) -> str:
        """`pending`: the bytes the printf pipe held when the compiled loop looked (wait_alone), or -1
        to look now."""
        return self._printf.take(pending) if self._printf is not None else ""

    def synchronize(self):
        _check(self._waiter.wait(self._query_all, _lib.cuCtxSynchronize, lambda: self._fence(self._busy_streams())))

    # -- idle reclaim: the driver's checkpoint of this process (suspension.py) --------------------
    suspends_in_place = True

    def charged(self) -> int:
        """The bytes this session's device memory takes from its quota (the spare too: api/placed.py)."""
        return (sum(self._allocs.values()) + sum(self._arrays.values()) + sum(self._mipmaps.values())
                + sum(self._physical.values()) + self.spare)

    def suspend(self) -> int:
        """Give the GPU's memory back while the session keeps every address, module, stream and
        event: the driver moves the process's allocations into its host memory. The quota is
        released with it. Returns the bytes released; raises CudaError, nothing changed, when the
        driver cannot (a driver before r550: CUDA_ERROR_NOT_SUPPORTED), and CUDA_ERROR_NOT_READY
        while kernels of the session still run: a program that sleeps beside a long kernel is not
        idle, and the worker would stop serving it until that kernel ended."""
        if self._query_all() != 0:
            raise CudaError("CUDA_ERROR_NOT_READY", "its kernels are still running")
        self.synchronize()
        self.settle()
        try:
            suspension.checkpoint(os.getpid())
        except CudaError as e:
            self._stuck = e.sticky  # the driver left the process locked: no call may reach it now
            raise
        self._suspended = self.charged()
        if self._reserve is not None:
            self._reserve(-self._suspended)
        return self._suspended

    def resume(self) -> None:
        """Take the memory back (CUDA_ERROR_OUT_OF_MEMORY, still suspended, while the quota or the
        GPU has no room for it)."""
        n = self._suspended
        if self._reserve is not None and not self._reserve(n):
            raise CudaError("CUDA_ERROR_OUT_OF_MEMORY", f"{n} bytes of the suspended session exceed what is free")
        try:
            suspension.restore(os.getpid())
        except CudaError as e:
            self._stuck = e.sticky
            if self._reserve is not None:
                self._reserve(-n)
            raise
        self._suspended = None

    def close(self):
        if self._suspended is not None or self._stuck:
            # Checkpointed or locked by the driver: every call would block until a restore, and a
            # checkpoint's memory is already in this process's host memory and off the quota. The
            # worker's process ends next (without exit handlers: zygote.py), which releases what
            # the driver holds.
            if self._printf is not None:
                self._printf.close()
            return
        if self._waiter.abandoned:
            # A wait was given up behind a kernel that has not finished: synchronising or freeing
            # would wait for it too. The worker's process ends next, which frees the context.
            if self._printf is not None:
                self._printf.close()
            return
        _lib.cuCtxSynchronize()
        self.clock.destroy()
        for e in self._fences:
            _lib.cuEventDestroy_v2(e)
        self._fences.clear()
        if self._fence_stream is not None:
            _lib.cuStreamDestroy_v2(self._fence_stream)
            self._fence_stream = None
        if self.launcher is not None:
            self.launcher.clear()
        self.close_arrays()
        self._graphs_close()  # before their modules
        for e in list(self._events):
            _lib.cuEventDestroy_v2(e)
        for s in list(self._streams):
            _lib.cuStreamDestroy_v2(s)
        for m in list(self._modules):
            _lib.cuModuleUnload(m)
        self._vmm_close()
        self._ipc_close_all()
        for a in list(self._allocs):
            if a in self._group_of:
                self._unplace(a)
            elif self.arena is None or not self.arena.holds(a):
                _lib.cuMemFree_v2(a)
        if self.arena is not None:  # everything of it at once
            self.arena.close()
        if self._reserve is not None:
            self._reserve(-sum(self._allocs.values()))
        self._allocs.clear()
        if self.copier is not None:
            self.copier.clear()
        self.close_digests()
        self._stage.close()
        self._out_stage.close()
        _lib.cuDevicePrimaryCtxRelease_v2(self.dev)
        if self._printf is not None:
            self._printf.close()
