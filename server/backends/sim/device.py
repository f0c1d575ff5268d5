"""The software GPU as a backend: memory, in-order streams, events with timestamps, and the
properties of a real GPU of the architecture it presents (archs.py, `--sim-arch`). Work executes in arrival
order, which is a valid schedule for every stream (a stream's work is in order; distinct streams may
overlap or not). Kernels run after their launch (queue.py): on the device's executor thread while
the session waits for its client's next message, so a stream or event query answers
CUDA_ERROR_NOT_READY while one runs, as a GPU does; a call that must wait for them runs the ones not
yet started itself, and then runs when it arrives (RGPU_SIM_ASYNC=0: a kernel runs inside its launch
call, and every query says done)."""
from __future__ import annotations

import hashlib
import os
import time

import numpy as np

from ..base import Device
from . import archs, identity, idle_waits, kernels
from .arrays import SimArrays
from . import companion as sim_companion
from .errors import SimError
from .queue import ACQUIRE_S, SimQueue
from ...session import HOLD_S
from .memory import GRANULE, GUARD, WINDOWS, DeviceMemory
from .sharing import ArenaSharing
from .hostmap import HostMaps, map_segment
from ...shm import DATA
from .properties import attributes

GRID_WORKSPACE_BYTES = 16


def async_enabled() -> bool:
    """Kernels run after their launch on a thread of the device's (queue.py), unless RGPU_SIM_ASYNC=0."""
    return os.environ.get("RGPU_SIM_ASYNC", "1").strip().lower() not in ("0", "off", "false", "no")
TEXTURE_ALIGNMENT = 512  # CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT (properties.py)


class SimStream:
    def __init__(self, flags: int, priority: int):
        self.flags, self.priority = flags, priority


EVENT_DISABLE_TIMING, EVENT_INTERPROCESS = 0x2, 0x4  # CU_EVENT_*


class SimEvent:
    def __init__(self, flags: int):
        self.flags = flags
        self.time_ns: int | None = None  # None: never recorded (or not reached yet: queue.py)
        self.seq = 0  # the queue position it was recorded at (queue.py)


class SimFunction:
    __slots__ = ("module", "kernel")

    def __init__(self, module, kernel):
        self.module, self.kernel = module, kernel


VMM_GRANULE = 2 << 20  # cuMemGetAllocationGranularity, minimum and recommended, as on NVIDIA's GPUs


class SimPhysical:
    """A physical allocation (cuMemCreate): where it is mapped, and what it held when unmapped."""

    def __init__(self, size: int):
        self.size = size
        self.mapped_at: tuple[int, int, int] | None = None  # (address, offset, size)
        self.kept: list[tuple[int, bytes]] = []  # (offset, bytes) written before its last unmap


def default_window(server_id: str, gpu_index: int) -> int:
    """The address window of a session whose client named none: consecutive for the GPUs of one
    server, spread by server over the rest. Two servers' windows coincide 1 time in WINDOWS, which
    is why clients name their own (one per device of the program: transport/session.c)."""
    digest = hashlib.sha256(f"rgpu-sim-window:{server_id}".encode()).digest()
    return (int.from_bytes(digest[:4], "little") + gpu_index) % WINDOWS


class SimDevice(SimArrays, Device):
    def __init__(self, memory_bytes: int, gpu_index: int = 0, server_id: str = "", reserve=None,
                 arch: str | None = None, window: int | None = None):
        """``window``: the address window to use (the one the program's client asked for, or a
        restored session's, which keeps its addresses); by default the one of this server's GPU
        ``gpu_index``."""
        self.index = gpu_index
        self.total_memory = memory_bytes
        self.arch = archs.get(arch)
        self.cc = self.arch.cc
        self.name = identity.name(gpu_index, self.arch.name)
        self.uuid = identity.uuid(server_id, gpu_index)
        if window is None:
            window = default_window(server_id, gpu_index)
        self.memory = DeviceMemory(memory_bytes, window, reserve=reserve)
        self._attrs = attributes(memory_bytes, self.arch)
        self._printf: list[str] = []
        self.device_time = 0.0  # seconds spent executing kernels (accounting, scheduling)
        self._workspace = 0  # grid-sync workspace of cooperative launches, allocated on first use
        self._physical: set[SimPhysical] = set()  # physical allocations of the VMM API
        self._host_maps: HostMaps | None = None  # mapped host memory (hostmap.py), made at the first MAP_HOST
        # Kernels queued to run after their launch (queue.py), or None: each runs inside its launch.
        self._queue = SimQueue() if async_enabled() else None
        self.schedules_itself = self._queue is not None
        # the compiled serving loop's answers to waits while the device is idle (loop_idle); with a
        # queue only, where a session never holds the GPU across messages (Session.settle)
        self.idle_waits = idle_waits.make(self.memory) if self._queue is not None else None
        self.sched = None  # the session's GpuScheduler and slot, for the queue's kernels (session.py)
        self.slot = 0
        # The executor's hold of the GPU over a run of queued kernels (as Session's, HOLD_S): the
        # scheduler, and the device time and kernels to charge at the release. Executor thread only.
        self._held = None
        self._held_time = 0.0
        self._held_kernels = 0

    @property
    def queued(self) -> bool:
        """Kernels queued or running, or an error one left that a call has not reported yet."""
        return self._queue is not None and (self._queue.busy() or self._queue.error_kept())

    @property
    def loop_idle(self) -> bool:
        """Nothing queued or running, no kernel's error kept, no printf output due: every wait of the
        session is answered success (idle_waits.py). Only the serving thread queues work and takes
        output, so it stays so until Python serves the next message."""
        return not self.queued and not self._printf

    def wait_idle(self) -> None:
        if self._queue is not None:
            self._queue.wait_idle(self.housekeeping)

    def start_queued(self) -> None:
        if self._queue is not None:
            self._queue.kick()

    def _quiet(self) -> None:
        """Before the serving thread reads or writes memory outside a call's dispatch (a checkpoint,
        a migration, staged copies): no kernel runs; an error a kernel left stays for the next call."""
        if self._queue is not None and self._queue.busy():
            self._queue.wait_idle(self.housekeeping, raise_error=False)

    def attributes(self) -> dict[int, int]:
        return self._attrs

    # -- memory --
    def mem_alloc(self, size: int) -> int:
        if size == 0:
            raise SimError("CUDA_ERROR_INVALID_VALUE", "zero-byte allocation")
        # At the texture alignment, as a GPU's allocations are: a linear texture over any
        # cudaMalloc'ed pointer must be acceptable (server/api/textures.py checks it).
        return self.memory.alloc(size, TEXTURE_ALIGNMENT)

    def mem_alloc_managed(self, size: int, align: int) -> int:
        if size == 0:
            raise SimError("CUDA_ERROR_INVALID_VALUE", "zero-byte allocation")
        return self.memory.alloc(size, align)

    def mem_free(self, addr: int, stream=None) -> int | None:
        """Frees the allocation at `addr`: the charge of one the client placed (which goes to the
        session's spare, server/api/placed.py, not back to the quota), None for any other."""
        self._quiet()
        if addr in self.memory.device_heap.blocks:
            raise SimError("CUDA_ERROR_INVALID_VALUE", f"0x{addr:x} was allocated by device malloc(): only device free() releases it")
        placed = addr in self.memory.placed
        size = self.memory.free(addr)
        return size if placed else None

    # -- allocations the client placed (server/api/placed.py) --
    def client_range(self):
        """(base, span, granule, guard, charge unit) of the range the client places in, or None."""
        region = self.memory.placement_region()
        if region is None:
            return None
        # a guard after each allocation, as cudaMalloc's have here (memory.py GUARD)
        return region[0], region[1] - region[0], GRANULE, GUARD, TEXTURE_ALIGNMENT

    @staticmethod
    def placed_charge(size: int) -> int:
        return max(TEXTURE_ALIGNMENT, -(-size // TEXTURE_ALIGNMENT) * TEXTURE_ALIGNMENT)

    def take_spare(self, n: int) -> bool:
        try:
            self.memory.charge(n, f"{n} bytes of spare")
        except SimError:
            return False
        self.spare += n
        return True

    def give_spare(self, n: int) -> None:
        self.spare -= n
        self.memory.uncharge(n)

    def mem_place(self, addr: int, size: int, span: int) -> None:
        self.memory.place(addr, size, span, self.placed_charge(size))

    # -- virtual memory management (server/api/vmm.py) --
    def vmm_granularity(self, recommended: bool) -> int:
        return VMM_GRANULE

    def vmm_create(self, size: int, prop: bytes):
        self.memory.charge(size, f"{size} bytes of physical memory requested")
        phys = SimPhysical(size)
        self._physical.add(phys)
        return phys

    def vmm_destroy(self, phys) -> None:
        self._physical.discard(phys)
        self.memory.uncharge(phys.size)

    def vmm_reserve(self, size: int, align: int, hint: int) -> int:
        return self.memory.reserve_range(size, align, hint)

    def vmm_unreserve(self, addr: int, size: int) -> None:
        self.memory.unreserve_range(addr)

    def vmm_map(self, addr: int, size: int, phys, offset: int) -> None:
        # One arena holds the device's memory at its addresses, so a physical allocation lives at
        # the one address it is mapped at; two mappings of it at once would be two copies that
        # disagree. What it held while unmapped comes back with it.
        if phys.mapped_at is not None:
            raise SimError("CUDA_ERROR_NOT_SUPPORTED", "the software GPU maps a physical allocation at one "
                                                       "address at a time: cuMemUnmap it before mapping it again")
        phys.mapped_at = (addr, offset, size)
        self.memory.load(addr, [(o - offset, d) for o, d in phys.kept if offset <= o < offset + size])

    def vmm_unmap(self, addr: int, size: int, phys, offset: int) -> None:
        phys.kept = [(o + offset, d) for o, d in self.memory.store(addr, size)]
        phys.mapped_at = None

    def vmm_expose(self, lo: int, hi: int, runs) -> None:
        self.memory.expose(lo, hi, runs)

    def set_limit(self, limit: str, value: int) -> None:
        if limit == "CU_LIMIT_MALLOC_HEAP_SIZE":
            heap = self.memory.device_heap
            if heap.fixed or heap.blocks:  # as CUDA: the heap is fixed once a kernel has called malloc()
                raise SimError("CUDA_ERROR_INVALID_VALUE",
                               "a kernel has used the device heap: set its size before launching kernels that malloc()")
            heap.limit = int(value)

    def mem_info(self) -> tuple[int, int]:
        return self.total_memory - (self.memory.used - self.spare), self.total_memory

    def allocation(self, addr: int):
        return self.memory.allocation(addr)

    # -- CUDA IPC (server/api/ipc.py): pages shared with other sessions' workers (sharing.py) --
    def _sharing(self) -> ArenaSharing:
        if self.memory.sharing is None:
            self.memory.sharing = ArenaSharing(self.memory)
        return self.memory.sharing

    def ipc_export(self, addr: int, size: int) -> dict:
        return self._sharing().export(addr, size)

    def ipc_open(self, record: dict) -> int:
        return self._sharing().open(record)

    def ipc_close(self, addr: int) -> None:
        self._sharing().close(addr)

    # -- mapped host memory (hostmap.py): the program's pinned segment in the arena --
    def host_map(self, mapping) -> int:
        self._quiet()
        if self._host_maps is None or self._host_maps.memory is not self.memory:
            self._host_maps = HostMaps(self.memory)
        return map_segment(self._host_maps, mapping, DATA)

    def host_unmap(self, mapping) -> None:
        self._quiet()
        if self._host_maps is not None and self._host_maps.memory is self.memory:
            self._host_maps.unmap(mapping.devptr)

    def ipc_event_export(self, event) -> dict:
        if not event.flags & EVENT_INTERPROCESS:
            raise SimError("CUDA_ERROR_INVALID_VALUE", "the event was not created with cudaEventInterprocess")
        # Work ends with its call here, so every event is complete when another process asks:
        # an opened event needs only the flags.
        return {"flags": event.flags}

    def ipc_event_open(self, record: dict):
        return SimEvent(record["flags"])

    def copy_htod(self, dst, data, stream) -> None:
        self._quiet()
        self.memory.write(dst, data)

    def copy_dtoh(self, src, size, stream):
        self._quiet()
        # A view of device memory, sent without a copy. Safe: the reply is the last thing the
        # worker does for its message, and nothing touches this session's memory again until the
        # client — which waits for the whole reply — sends its next message.
        return self.memory.view(src, size)

    def copy_dtoh_host(self, src, out, addr, stream, wait) -> None:
        self._quiet()
        # the program's pinned buffer, mapped: written in place (the sim runs work in call order)
        np.frombuffer(out, dtype=np.uint8)[:] = self.memory.view(src, len(out))

    def copy_dtod(self, dst, src, size, stream) -> None:
        self._quiet()
        # check both ranges first so a bad destination leaves memory untouched
        s = self.memory.view(src, size)
        self.memory.view(dst, size)[:] = s.copy() if _overlap(dst, src, size) else s

    def memset(self, dst, value, width, count, stream) -> None:
        self._quiet()
        view = self.memory.view(dst, width * count)
        dtype = {1: np.uint8, 2: np.uint16, 4: np.uint32}[width]
        view.view(dtype)[:] = value & ((1 << (8 * width)) - 1)

    # -- streams and events --
    def stream_create(self, flags, priority):
        return SimStream(flags, priority)

    def stream_destroy(self, stream) -> None:
        if self._queue is not None:
            self._queue.forget(stream)

    def stream_synchronize(self, stream) -> None:
        self.wait_idle()

    def stream_query(self, stream) -> bool:
        if self._queue is None:
            return True
        return self._queue.reached(self._queue.position(stream, stream is None or not stream.flags & 1))

    def stream_wait_event(self, stream, event) -> None:
        if self._queue is not None:
            self._queue.after(stream, event.seq)

    def event_create(self, flags):
        if flags & EVENT_INTERPROCESS and not flags & EVENT_DISABLE_TIMING:
            raise SimError("CUDA_ERROR_INVALID_VALUE", "an interprocess event must disable timing (cudaEventDisableTiming)")
        return SimEvent(flags)

    def event_record(self, event, stream) -> None:
        if self._queue is None:
            event.time_ns = time.perf_counter_ns()
        else:
            self._queue.stamp(event, self._queue.position(stream, stream is None or not stream.flags & 1))

    def event_synchronize(self, event) -> None:
        self.wait_idle()

    def event_query(self, event) -> bool:
        return self._queue is None or self._queue.reached(event.seq)

    def event_elapsed_ms(self, start, end) -> float:
        if start.flags & 0x2 or end.flags & 0x2:  # cudaEventDisableTiming
            raise SimError("CUDA_ERROR_INVALID_HANDLE", "event created with timing disabled")
        if start.time_ns is None or end.time_ns is None:
            raise SimError("CUDA_ERROR_INVALID_HANDLE", "event has not been recorded")
        return (end.time_ns - start.time_ns) / 1e6

    def event_destroy(self, event) -> None:
        pass

    # -- modules and launches --
    def module_load(self, image: bytes, companion=None):
        mod = self._module(image, companion)
        mod.bind(self.memory)
        return mod

    def _module(self, image: bytes, companion=None):
        image = bytes(image)
        label = f"sha256:{hashlib.sha256(image).hexdigest()[:16]}"
        try:
            mod = kernels.KernelModule.load(image, arch=self.arch, label=label)
        except SimError as e:
            if e.code != "CUDA_ERROR_NO_BINARY_FOR_GPU" or companion is None:
                raise
            index = sim_companion.index_of(*companion)
            names = sim_companion.kernel_names(image)
            mod = kernels.KernelModule.load(index.container_for(names, self.cc), arch=self.arch,
                                            label=f"{label} (PTX from its library)")
            # the module is the SASS module's kernels, not every kernel the PTX container holds
            mod.exposed = names
        return mod

    def module_unload(self, module) -> None:
        self._quiet()
        segment = getattr(module, "segment", None)
        # a module restored from a checkpoint of an older rgpu has an allocation per variable
        for addr in ([segment] if segment is not None else module.addresses.values()):
            self.memory.free(addr)
        module.addresses = {}
        module.segment = None

    def module_function(self, module, name):
        exposed = getattr(module, "exposed", None)
        fn = module.functions.get(name) if exposed is None or name in exposed else None
        if fn is None:
            raise SimError("CUDA_ERROR_NOT_FOUND", f"no kernel named {name} in this module")
        return SimFunction(module, fn)

    def module_functions(self, module):
        exposed = getattr(module, "exposed", None)
        return [SimFunction(module, fn) for name, fn in module.functions.items() if exposed is None or name in exposed]

    def module_global(self, module, name):
        if name not in module.addresses:
            raise SimError("CUDA_ERROR_NOT_FOUND", f"no variable named {name} in this module")
        return module.addresses[name], module.variables[name].size

    def prepare_function(self, function) -> None:
        """Compile the function's code now (kept for its launches), raising what the interpreter
        cannot run (an instruction it lacks, with its line): asked at a function's first launch,
        before the launch is queued, so the launch fails with the cause as a GPU's driver fails
        a kernel its JIT cannot compile, not the next synchronising call after it."""
        function.module.compiled(function.kernel)

    def function_params(self, function):
        return [(p.offset, p.size) for p in function.kernel.params]

    def function_name(self, function) -> str:
        return function.kernel.name

    def function_attribute(self, function, attribute):
        function = function.kernel
        values = {
            "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK": function.max_threads_per_block,
            "CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES": function.static_shared_bytes,
            "CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES": function.const_bytes,
            "CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES": function.local_bytes,
            "CU_FUNC_ATTRIBUTE_NUM_REGS": function.num_regs,
            "CU_FUNC_ATTRIBUTE_PTX_VERSION": function.module.ptx_arch,
            "CU_FUNC_ATTRIBUTE_BINARY_VERSION": self.arch.number,
            "CU_FUNC_ATTRIBUTE_CACHE_MODE_CA": 0,
            "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES": function.max_dynamic_shared_bytes,
            "CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT": -1,
            # thread-block clusters: the dimensions compiled in (__cluster_dims__), if any
            "CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET": int(function.explicit_cluster),
            "CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH": (function.required_cluster or (0, 0, 0))[0],
            "CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT": (function.required_cluster or (0, 0, 0))[1],
            "CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH": (function.required_cluster or (0, 0, 0))[2],
            "CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED": 0,
            "CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE": 0,
        }
        if attribute not in values:
            raise SimError("CUDA_ERROR_INVALID_VALUE", f"function attribute {attribute} is not supported")
        return values[attribute]

    def function_set_attribute(self, function, attribute, value) -> None:
        if attribute == "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES":
            function.kernel.set_max_dynamic_shared(value)
        elif attribute not in ("CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT",
                               "CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED",
                               "CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE"):
            raise SimError("CUDA_ERROR_INVALID_VALUE", f"function attribute {attribute} cannot be set")

    def allocations(self):
        return self.memory.allocations()

    def launch(self, function, grid, block, shared, stream, params, cooperative=False, cluster=None) -> None:
        dims = self.cluster_dims(function, grid, cluster)
        if self._queue is not None:
            if cooperative:
                self.wait_idle()  # its workspace is allocated and cleared by this thread
            workspace = self._grid_workspace() if cooperative else 0
            self._queue.submit(stream, self._queued_launch(function, grid, block, shared, bytes(params), workspace, dims))
            return
        workspace = self._grid_workspace() if cooperative else 0
        stats = kernels.launch(function.module, function.kernel, self.memory, grid, block, shared, params,
                               self._printf, self.checkpoint, workspace, dims)
        self.device_time += stats.seconds

    def _queued_launch(self, function, grid, block, shared, params, workspace, dims):
        """The kernel as the executor runs it (queue.py): in the session's turn on the GPU, yielding
        it at time slices, charged at the end; its printf output kept for the next sync call."""
        sched, slot, queue = self.sched, self.slot, self._queue

        def run(aborted, on_slice=None) -> None:
            charged = 0.0

            def slice_done(seconds: float) -> None:
                nonlocal charged
                aborted()
                if sched is not None:
                    charged += seconds
                    sched.yield_slice(slot, seconds)
                    aborted()
                if on_slice is not None:  # run by a waiting call (queue.wait_idle): the worker's checks
                    on_slice()

            if sched is not None and self._held is None:
                while not sched.acquire(slot, timeout=ACQUIRE_S):
                    aborted()
                self._held = (sched, slot)
            printed: list[str] = []
            t0 = time.perf_counter()
            seconds = None
            try:
                stats = kernels.launch(function.module, function.kernel, self.memory, grid, block, shared, params,
                                       printed, slice_done, workspace, dims)
                seconds = stats.seconds
            finally:
                failed = seconds is None
                if failed:
                    seconds = time.perf_counter() - t0
                self.device_time += seconds
                if self._held is not None:
                    self._held_time += max(seconds - charged, 0.0)
                    self._held_kernels += 1
                    # kept for the next queued kernel, as a run of launches keeps it (session.py,
                    # HOLD_S); given back when the queue has no more, or the run has used its time
                    if failed or len(queue._jobs) <= 1 or self._held_time >= HOLD_S \
                            or sched.contended(slot) or queue.closing():
                        self._give_back()
                if printed:
                    with queue._cond:
                        self._printf.extend(printed)
        return run

    def _give_back(self) -> None:
        sched, slot = self._held
        sched.release(slot, self._held_time, kernels=self._held_kernels)
        self._held, self._held_time, self._held_kernels = None, 0.0, 0

    MAX_CLUSTER = 8  # the portable cluster size (larger ones need the non-portable opt-in, not modelled)

    def cluster_dims(self, function, grid, cluster) -> tuple[int, int, int]:
        """The clusters a launch (or an occupancy question) runs in: the launch's (cuLaunchKernelEx),
        else the kernel's own (__cluster_dims__), else none; checked as the driver checks them."""
        required = function.kernel.required_cluster
        if cluster is not None and cluster[0]:
            dims = (cluster[0], max(cluster[1], 1), max(cluster[2], 1))
            if required is not None and dims != required:
                raise SimError("CUDA_ERROR_INVALID_CLUSTER_SIZE", f"cluster {dims} for a kernel compiled for {required}")
        else:
            dims = required or (1, 1, 1)
        size = dims[0] * dims[1] * dims[2]
        if size == 1:
            return dims
        if self.arch.major < 9:
            # as a GPU before Hopper answers: such a part reports CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH 0
            raise SimError("CUDA_ERROR_NOT_SUPPORTED", f"the software GPU presents {self.arch.name}, which runs no "
                           f"thread-block clusters ({dims[0]}x{dims[1]}x{dims[2]} asked for)")
        if size > self.MAX_CLUSTER or any(g % c for g, c in zip(grid, dims)):
            raise SimError("CUDA_ERROR_INVALID_CLUSTER_SIZE",
                           f"cluster {dims[0]}x{dims[1]}x{dims[2]} for grid {tuple(grid)} (at most "
                           f"{self.MAX_CLUSTER} blocks, dividing the grid)")
        return dims

    def cluster_occupancy(self, function, grid, block, shared, cluster, potential):
        if self.arch.major < 9:
            return super().cluster_occupancy(function, grid, block, shared, cluster, potential)
        if potential:
            return self.MAX_CLUSTER
        return None  # the occupancy calculator's, in clusters of cluster_dims (server/api/module.py)

    def _grid_workspace(self) -> int:
        """The device word cooperative groups' grid.sync() counts arrivals in (the driver's own
        allocation: outside the session's quota, like its other internal memory)."""
        if not self._workspace:
            self._workspace = self.memory.alloc(GRID_WORKSPACE_BYTES)
            self.memory.write(self._workspace, bytes(GRID_WORKSPACE_BYTES))
        return self._workspace

    # -- checkpoints (server/checkpoint) --
    def arch_name(self) -> str:
        return self.arch.name

    def window(self) -> int:
        return self.memory.window

    def memory_layout(self):
        self._quiet()
        return self.memory.layout()

    def written_ranges(self, addr, size):
        self._quiet()
        return self.memory.written(addr, size)

    def read_memory(self, addr, size):
        self._quiet()
        return self.memory.read_raw(addr, size)

    def write_memory(self, addr, data) -> None:
        self._quiet()
        self.memory.write(addr, data)

    def restore_allocations(self, allocations) -> None:
        done = []
        try:
            for addr, size, span in allocations:
                self._restore_one(addr, size, span)
                done.append(addr)
        except SimError:
            for addr in done:  # all or nothing: a session that does not fit holds nothing
                self.memory.free(addr, release=True)
            raise

    def _restore_one(self, addr: int, size: int, span: int) -> None:
        """One allocation at its address: one the client placed goes back into the placement range
        (made here where it lies in this window too), charged to the quota now and placed still, so
        that its free goes to the spare as the client counts it (api/placed.py)."""
        lo, hi = self.memory.region_bounds()
        if not lo <= addr < hi:
            self.memory.alloc_at(addr, size, span)
            return
        if self.memory.region is None and self.memory.placement_region() is None:
            raise SimError("CUDA_ERROR_INVALID_VALUE", f"0x{addr:x}: the placement range is taken here")
        charge = self.placed_charge(size)
        self.memory.charge(charge, f"{size} bytes to restore")
        try:
            self.memory.place(addr, size, span + GUARD, charge)
        except SimError:
            self.memory.uncharge(charge)
            raise

    def release_allocation(self, addr) -> None:
        self.memory.free(addr, release=True)

    def capture_device(self) -> dict:
        self._quiet()
        heap = self.memory.device_heap
        return {"allocations": self.memory.layout(), "window": self.memory.window,
                "heap": {"limit": heap.limit, "used": heap.used, "blocks": [[a, n] for a, n in heap.blocks.items()]},
                "workspace": self._workspace, "device_time": self.device_time,
                "output": "".join(self._printf),  # printf of async launches not yet delivered
                "spare": self.spare}  # the quota held ahead for the client's placements (api/placed.py)

    def restore_device(self, state) -> None:
        heap = self.memory.device_heap
        heap.limit, heap.used = state["heap"]["limit"], state["heap"]["used"]
        heap.blocks = {a: n for a, n in state["heap"]["blocks"]}
        self._workspace = state["workspace"]
        self.device_time = state["device_time"]
        if state.get("output"):
            self._printf.insert(0, state["output"])
        # the spare the client counts on, where the quota has room for it (else the client's next
        # places are charged one by one: api/placed.py)
        if state.get("spare"):
            self.take_spare(state["spare"])

    def stream_state(self, stream) -> dict:
        return {"flags": stream.flags, "priority": stream.priority}

    def event_state(self, event) -> dict:
        # a timestamp's age, not the clock itself: another process's (or host's) clock differs
        age = None if event.time_ns is None else time.perf_counter_ns() - event.time_ns
        return {"flags": event.flags, "age_ns": age}

    def event_restore(self, state):
        event = SimEvent(state["flags"])
        if state.get("age_ns") is not None:
            event.time_ns = time.perf_counter_ns() - state["age_ns"]
        return event

    def module_state(self, module) -> dict:
        exposed = getattr(module, "exposed", None)
        return {"addresses": dict(module.addresses), "segment": module.segment,
                "exposed": sorted(exposed) if exposed is not None else None,
                "max_dynamic_shared": {name: fn._max_dynamic for name, fn in module.functions.items()
                                       if fn._max_dynamic is not None}}

    def module_restore(self, image, companion, state):
        mod = self._module(image, companion)
        if state.get("exposed") is not None:
            mod.exposed = set(state["exposed"])
        missing = set(mod.variables) - set(state["addresses"])
        if missing:
            raise SimError("CUDA_ERROR_INVALID_IMAGE", f"the checkpoint lacks module variables {sorted(missing)[:3]}")
        mod.addresses = dict(state["addresses"])
        mod.segment = state.get("segment")
        mod._mem = self.memory
        for name, value in state.get("max_dynamic_shared", {}).items():
            if name in mod.functions:
                mod.functions[name]._max_dynamic = value
        return mod

    def function_module(self, function):
        return function.module

    def take_output(self) -> str:
        if self._queue is not None:
            with self._queue._cond:  # the executor adds a kernel's output when it ends
                out, self._printf = "".join(self._printf), []
            return out
        out, self._printf = "".join(self._printf), []
        return out

    def synchronize(self) -> None:
        self.wait_idle()

    def close(self) -> None:
        if self._queue is not None:
            self._queue.close()
            if self._held is not None and not self._queue.running():
                self._give_back()
        for phys in list(self._physical):
            self.vmm_destroy(phys)
        self.memory.free_all()
        if self.spare:
            self.give_spare(self.spare)
        self.memory.close()


def _overlap(a: int, b: int, n: int) -> bool:
    return a < b + n and b < a + n
