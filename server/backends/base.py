"""The device backend interface: one GPU as one session sees it. `sim` (the software GPU) and
`cuda` (the real driver) implement it; every policy — handles, quotas, error translation — lives
above it, in the session and the API handlers, so both backends behave the same to clients."""
from __future__ import annotations

import os
from abc import ABC, abstractmethod
from functools import cached_property

import numpy as np

from ..errors import CudaError


def host_buffer(n: int):
    """A writable host buffer of `n` bytes, its contents left as they are: for data that a device copy
    then writes whole (a D2H copy's reply). bytearray(n) would zero it first, a pass over memory as
    long as the copy's own: 7.7% of the CPU time of a 64 MiB D2H copy across TCP loopback on this project's
    2-core VM, where the copy's bandwidth is its CPU time (docs/performance.md)."""
    return np.empty(n, np.uint8)


# The kinds of a graph's nodes (graph_build; the wire's numbers, libhook/src/graph/graph_server.c)
GRAPH_KERNEL, GRAPH_MEMSET, GRAPH_COPY = 0, 1, 2


class Device(ABC):
    name: str
    uuid: bytes  # 16 bytes
    device_time: float = 0.0  # seconds of kernel execution so far, as the device measures it
    # Installed by the session around each launch. A backend that executes kernels itself (the
    # software GPU) calls it at safe points inside a long kernel with the device seconds run since
    # the last call; it may block (another session's turn) or raise SessionEnding. Real GPUs
    # time-slice contexts on their own, so the cuda backend never calls it.
    checkpoint = None
    total_memory: int
    cc: tuple[int, int]

    @abstractmethod
    def attributes(self) -> dict[int, int]:
        """CUdevice_attribute number -> value (the Runtime's cudaDeviceAttr uses the same numbers)."""

    # memory
    @abstractmethod
    def mem_alloc(self, size: int) -> int: ...
    def mem_alloc_managed(self, size: int, align: int) -> int:
        """Managed (unified) memory of `size` bytes (a multiple of `align`), at an address aligned to
        `align` where the backend chooses it, at least host-page aligned where the driver does: the
        client maps its host copy at the same address. Freed by mem_free like any other."""
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend has no managed memory")
    @abstractmethod
    def mem_free(self, addr: int, stream=None) -> int | None:
        """Frees the allocation at `addr`; the charge of one the client placed (mem_place), else None.
        Once the device's queued work is done, as cudaFree; with `stream` (cudaFreeAsync), once
        that stream's is."""

    # allocations the client places (server/api/placed.py)
    spare = 0  # bytes of the quota charged ahead for them

    @cached_property
    def spare_cap(self) -> int:
        """The most of its quota the session holds ahead for them after a free (RGPU_PLACE_SPARE bytes,
        default 64 MiB), read once: api/placed.py, and the cuda backend's serving loop."""
        return int(os.environ.get("RGPU_PLACE_SPARE", str(64 << 20)))

    def client_range(self) -> tuple[int, int, int, int, int] | None:
        """(base, span, granule, guard, charge unit) of the addresses the client lays its allocations
        out in with arena.c's rules, or None: it asks for each (cudaMalloc's round trip)."""
        return None
    @abstractmethod
    def mem_info(self) -> tuple[int, int]: ...
    @abstractmethod
    def allocation(self, addr: int) -> tuple[int, int] | None:
        """(start, size) of the allocation holding addr, or None."""
    @abstractmethod
    def copy_htod(self, dst: int, data, stream) -> None:
        """`data`: a buffer, or a frame still sealed on the bulk channel (server/bulk.py, Sealed: its
        `open_into(out)` writes it into a buffer of its length, its `buffer` opens it into one of its own)."""
    @abstractmethod
    def copy_dtoh(self, src: int, size: int, stream):
        """The bytes (any buffer; it is sent as it is) of [src, src+size)."""
    @abstractmethod
    def copy_dtod(self, dst: int, src: int, size: int, stream) -> None: ...

    # A compiled loop that runs a message's kernel launches (cuda/launches.py), or None: every launch
    # through the API handlers. The session tells it the handles it issues and drops.
    launcher = None
    # A compiled loop that answers the device's waits while it is idle (sim/idle_waits.py), or None; the
    # session tells it its handles too.
    idle_waits = None

    @property
    def loop_idle(self) -> bool:
        """Whether idle_waits may answer the session's waits now: nothing runs, nothing is due."""
        return False

    def stage_stats(self) -> dict:
        """How H2D frames read from the network were staged before the device copy (session_ended):
        none here; the cuda backend's page-locked stage (cuda/host_stage.py)."""
        return {}

    @property
    def compiled_loop(self):
        """The device's compiled loop (a cuda/launches.py Launcher), whichever it has: the cuda backend's
        launcher, or idle_waits (the software GPU's); None: Python serves everything."""
        return self.launcher if self.launcher is not None else self.idle_waits

    @property
    def compiled_copier(self):
        """The compiled copies the serving loop copies with for this device (cuda/copies.py), its
        compiled loop's; None: every copy is Python's."""
        loop = self.compiled_loop
        return loop.copier if loop is not None else None

    # the program's pinned host memory, mapped by the worker (server/pinned.py)
    registers_host = False  # host_register does something: the device DMAs from registered memory
    def host_register(self, addr: int, size: int):
        """Make [addr, +size) of the worker's address space (a mapped pinned segment) a DMA source and
        target of this device; a handle for host_unregister, or None when there is nothing to undo."""
        return None
    def host_unregister(self, handle) -> None:
        pass
    def host_map(self, mapping) -> int:
        """Map a registered pinned segment (server/pinned.Mapping) into this device's address space, so
        that kernels read and write its pages directly (mapped host memory); the device address of its
        first data byte (offset shm.DATA of the segment)."""
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", "this device cannot map host memory")
    def host_unmap(self, mapping) -> None:
        """Undo host_map (before host_unregister)."""
    def copy_htod_host(self, dst: int, data, addr: int, stream, wait: bool) -> None:
        """H2D from registered host memory (`data` a view of it, `addr` its address), in stream order;
        `wait`: return only when it is done (a synchronous copy). The caller keeps it mapped meanwhile."""
        self.copy_htod(dst, data, stream)
    def copy_dtoh_host(self, src: int, out, addr: int, stream, wait: bool) -> None:
        """D2H into registered host memory (`out` a writable view of it, `addr` its address)."""
        out[:] = memoryview(self.copy_dtoh(src, len(out), stream)).cast("B")
    @abstractmethod
    def memset(self, dst: int, value: int, width: int, count: int, stream) -> None: ...

    # streams and events (stream None is the default stream)
    @abstractmethod
    def stream_create(self, flags: int, priority: int): ...
    @abstractmethod
    def stream_destroy(self, stream) -> None: ...
    @abstractmethod
    def stream_synchronize(self, stream) -> None: ...
    @abstractmethod
    def stream_query(self, stream) -> bool: ...
    @abstractmethod
    def stream_wait_event(self, stream, event) -> None: ...
    def stream_priority(self, stream) -> int:
        """The priority a stream of this backend was made with (the default stream's is 0)."""
        return 0 if stream is None else stream.priority
    def stream_flags(self, stream) -> int:
        return 0 if stream is None else stream.flags
    @abstractmethod
    def event_create(self, flags: int): ...
    @abstractmethod
    def event_record(self, event, stream) -> None: ...
    @abstractmethod
    def event_synchronize(self, event) -> None: ...
    @abstractmethod
    def event_query(self, event) -> bool: ...
    @abstractmethod
    def event_elapsed_ms(self, start, end) -> float: ...
    @abstractmethod
    def event_destroy(self, event) -> None: ...

    # modules and launches
    @abstractmethod
    def module_load(self, image: bytes, companion: tuple[str, bytes] | None = None):
        """A module object from a fatbin / cubin / PTX image; its variables live in device memory.
        `companion` (digest, bundle): PTX of the image's library, for a backend that cannot run the
        image's SASS (server/backends/sim/companion.py); a backend that runs SASS ignores it."""
    @abstractmethod
    def module_unload(self, module) -> None: ...
    @abstractmethod
    def module_function(self, module, name: str):
        """The kernel `name` of module, or CudaError CUDA_ERROR_NOT_FOUND."""
    @abstractmethod
    def module_global(self, module, name: str) -> tuple[int, int]:
        """(device address, size) of a module variable, or CUDA_ERROR_NOT_FOUND."""

    def alias(self, addr: int, n: int = 1) -> int:
        """Where the program's [addr, addr + n) is on this device: itself, but on a backend that keeps
        a moved module variable's old address as its name (server/backends/cuda/aliases.py)."""
        return addr

    def fix_params(self, params):
        """A launch's parameters with any such old address rewritten (as alias)."""
        return params

    def symbol_range(self, module, name: str) -> tuple[int, int]:
        """module_global for a copy the server makes to or from the variable by its name (the
        program is not handed the address, so nothing it holds ties the variable to this process)."""
        return self.module_global(module, name)

    @abstractmethod
    def function_params(self, function) -> list[tuple[int, int]]:
        """(offset, size) of each kernel parameter in the launch buffer."""
    @abstractmethod
    def function_attribute(self, function, attribute: str) -> int:
        """A CUfunction_attribute by its enumerator name."""
    @abstractmethod
    def function_set_attribute(self, function, attribute: str, value: int) -> None: ...
    def module_functions(self, module) -> list:
        """Every kernel of `module`, as function objects (cuModuleEnumerateFunctions)."""
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend cannot list a module's functions")
    @abstractmethod
    def function_name(self, function) -> str:
        """The entry's name in its module (mangled, as cuFuncGetName gives it)."""
    @abstractmethod
    def launch(self, function, grid, block, shared: int, stream, params: bytes, cooperative: bool = False,
               cluster: tuple[int, int, int, int] | None = None) -> None:
        """Queue a kernel. `cooperative`: its blocks may wait for one another (grid-wide sync), so
        they must all be resident at once and get the grid workspace cooperative groups expects.
        `cluster`: (x, y, z, scheduling policy) of a thread-block cluster launch (x 0: no dimensions
        named, a policy alone)."""
    # Executable graphs the client sends once (server/api/graphs.py). A backend with graphs of its own
    # (the cuda one: cuda/graphs.py) builds one; this default keeps the nodes and issues them in order,
    # which is what the software GPU does with a graph anyway (one kernel at a time).
    def graph_build(self, nodes: list) -> object:
        """The backend's executable graph of `nodes`, run one after the other on the stream a launch
        names: (GRAPH_KERNEL, function, grid, block, shared, params), (GRAPH_MEMSET, dst, pitch, value,
        element size, width, height), (GRAPH_COPY, dst, src, bytes) device to device."""
        return list(nodes)
    def graph_launch(self, graph, stream) -> None:
        for kind, *n in graph:
            if kind == GRAPH_KERNEL:
                self.launch(*n[:4], stream, n[4])
            elif kind == GRAPH_MEMSET:
                dst, pitch, value, elsize, width, height = n
                for row in range(height):
                    self.memset(dst + row * pitch, value, elsize, width, stream)
            else:
                self.copy_dtod(*n, stream)
    def graph_destroy(self, graph) -> None:
        """Frees what `graph_build` made (a launch of it may still run: the driver keeps it)."""

    def occupancy(self, function, block_size: int, dynamic_shared: int, flags: int) -> int | None:
        """Resident blocks per SM as the device's driver answers it, or None: the server computes it
        from the device's and the function's attributes (server/api/module.py)."""
        return None

    def available_dynamic_smem(self, function, num_blocks: int, block_size: int) -> int | None:
        """cuOccupancyAvailableDynamicSMemPerBlock as the device's driver answers it, or None: the
        server computes it as it does occupancy (server/api/module.py)."""
        return None

    @abstractmethod
    def allocations(self) -> list[tuple[int, int]]:
        """(address, size) of every allocation the session holds: what cudaDeviceReset frees."""
    def cluster_occupancy(self, function, grid, block, shared: int, cluster: tuple[int, int, int, int],
                          potential: bool) -> int | None:
        """cuOccupancyMaxActiveClusters (or, `potential`, cuOccupancyMaxPotentialClusterSize) for the
        launch configuration, or None where the server computes it from the occupancy calculator
        (server/api/module.py); a device without thread-block clusters has neither."""
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED",
                        f"the {self.name} backend has no thread-block clusters (CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH is 0)")
    def set_limit(self, limit: str, value: int) -> None:
        """Apply a context limit (CU_LIMIT_* name) the session set; the server keeps the values the
        program reads back. Backends apply the ones that change what kernels can do."""

    # Virtual memory management: physical allocations mapped into reserved address ranges. The
    # bookkeeping (which mapping is where, what is accessible, handles, checks) is server/api/vmm.py's;
    # a backend makes, maps and exposes what it is told.
    def vmm_granularity(self, recommended: bool) -> int:
        """The allocation granularity (CU_MEM_ALLOC_GRANULARITY_MINIMUM or _RECOMMENDED) of device memory."""
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend has no virtual memory management")
    def vmm_create(self, size: int, prop: bytes):
        """A physical allocation of `size` bytes (charged to the quota): the backend's object."""
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend has no virtual memory management")
    def vmm_destroy(self, phys) -> None:
        """Free a physical allocation no mapping and no handle holds any more (uncharged)."""
    def vmm_reserve(self, size: int, align: int, hint: int) -> int:
        """`size` bytes of device address space, at `hint` if it is free."""
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend has no virtual memory management")
    def vmm_unreserve(self, addr: int, size: int) -> None: ...
    def vmm_map(self, addr: int, size: int, phys, offset: int) -> None:
        """Map [offset, offset+size) of `phys` at `addr` (inside a reservation, not yet accessible)."""
    def vmm_unmap(self, addr: int, size: int, phys, offset: int) -> None: ...
    def vmm_set_access(self, addr: int, size: int, flags: int) -> None:
        """Set this device's access (CU_MEM_ACCESS_FLAGS_PROT_*) to mapped [addr, addr+size)."""
    def vmm_expose(self, lo: int, hi: int, runs: list[tuple[int, int]]) -> None:
        """The accessible memory of reservation [lo, hi) is now exactly `runs` ((start, size), in
        order, adjacent mappings merged): what copies, memsets and kernels may touch there."""

    # CUDA arrays, texture and surface objects (server/backends/resources.py describes them; the
    # handlers in server/api/arrays.py and textures.py have checked them)
    def array_create(self, desc):
        """A CUDA array of `desc` (a resources.ArrayDesc): the backend's object."""
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend has no CUDA arrays")
    def array_destroy(self, array) -> None:
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend has no CUDA arrays")
    def mipmap_create(self, desc, levels: int):
        """(the backend's mipmapped array, [its level arrays])."""
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend has no CUDA arrays")
    def mipmap_destroy(self, mipmap) -> None:
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend has no CUDA arrays")
    def array_copy(self, box, stream, data=None):
        """Copy a resources.Box between arrays, device memory and host data (`data`: a host
        source's bytes, packed); returns a host destination's bytes, packed."""
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend has no CUDA arrays")
    def tex_create(self, res, tex, view):
        """(the value kernels receive, the backend's object) of a texture object."""
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend has no texture objects")
    def tex_destroy(self, value: int, obj) -> None:
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend has no texture objects")
    def surf_create(self, res):
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend has no surface objects")
    def surf_destroy(self, value: int, obj) -> None:
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend has no surface objects")

    # Checkpoints of CUDA arrays (server/checkpoint/objects.py): here their contents are read and
    # written through array_copy, as a driver's arrays (the cuda backend's) are no device memory a
    # checkpoint copies; a backend whose arrays are allocations of the session (the software GPU)
    # keeps only where they are.
    def array_state(self, desc, array, contents: bool) -> dict:
        """What array_restore needs to make `array` (of `desc`) again; its bytes only if `contents`
        (a check that the session can be captured reads nothing)."""
        return {"bytes": self._array_bytes(desc, array) if contents else b""}

    def array_restore(self, desc, state: dict):
        array = self.array_create(desc)
        self._array_fill(desc, array, state["bytes"])
        return array

    def mipmap_state(self, desc, mipmap, levels: list, contents: bool) -> dict:
        return {"levels": [self._array_bytes(desc.level(n), lv) if contents else b"" for n, lv in enumerate(levels)]}

    def mipmap_restore(self, desc, state: dict):
        """(the mipmapped array, [its level arrays]), made again with every level's bytes."""
        mipmap, levels = self.mipmap_create(desc, len(state["levels"]))
        for n, (lv, data) in enumerate(zip(levels, state["levels"])):
            self._array_fill(desc.level(n), lv, data)
        return mipmap, levels

    def _array_bytes(self, desc, array) -> bytes:
        from .resources import ArrayRef, Box, Side
        box = Box(Side("array", ArrayRef(desc, array)), Side("host"), desc.row_bytes, desc.rows, desc.slices)
        return bytes(self.array_copy(box, None))

    def _array_fill(self, desc, array, data: bytes) -> None:
        from .resources import ArrayRef, Box, Side
        if len(data) != desc.nbytes:
            from ..checkpoint.image import CheckpointError
            raise CheckpointError(f"a CUDA array of {desc.nbytes} bytes came with {len(data)}")
        self.array_copy(Box(Side("host"), Side("array", ArrayRef(desc, array)), desc.row_bytes, desc.rows,
                            desc.slices), None, data)

    # Texture and surface objects: kernels receive their values by value, so a restored session's
    # objects must have the values it holds. A backend that can make them at those values says so
    # here: the software GPU at any value it is told, the cuda backend by the order its driver
    # numbers them in (cuda/arrays.py); another's sessions holding one cannot be checkpointed
    # (server/checkpoint/session.py says why).
    objects_keep_values = False

    def object_restore(self, kind: str, value: int, res, tex, view):
        """Make a texture (kind "texture") or surface object again at `value`; its backend object.
        Called in the order of the values."""
        self._no_checkpoint(f"{kind} objects")

    def objects_restored(self) -> None:
        """Every object is made again (what object_restore needed only meanwhile can go)."""

    # CUDA IPC between sessions of one GPU (server/api/ipc.py keeps the handles and the policy)
    def ipc_export(self, addr: int, size: int) -> dict:
        """What another session's worker needs to map the allocation [addr, addr+size)."""
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend does not share memory between processes")
    def ipc_open(self, record: dict) -> int:
        """Map another session's export (`record`, from its ipc_export); the address of its first byte."""
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend does not share memory between processes")
    def ipc_close(self, addr: int) -> None:
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend does not share memory between processes")
    def ipc_event_export(self, event) -> dict:
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend does not share events between processes")
    def ipc_event_open(self, record: dict):
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend does not share events between processes")

    @abstractmethod
    def take_output(self) -> str:
        """Device printf output produced since the last call (delivered at synchronisation)."""

    # -- checkpoints (server/checkpoint): capture at a call boundary, restore at the same addresses.
    # A backend that cannot take part raises CUDA_ERROR_NOT_SUPPORTED, which refuses the checkpoint
    # (or the migration) before anything stops.
    # A backend whose driver checkpoints the session's process itself, keeping every address and
    # object where it is (the cuda backend: suspension.py), reclaims an idle session with
    # suspend() / resume() instead of an image (server/reclaim.py).
    suspends_in_place = False

    def suspend(self) -> int:
        """Release the session's device memory, keeping its contents and addresses; the bytes
        released."""
        self._no_checkpoint("sessions in place")

    def resume(self) -> None:
        self._no_checkpoint("sessions in place")

    def arch_name(self) -> str:
        """What a checkpoint must be restored onto: the architecture, as the image records it."""
        return f"sm_{self.cc[0]}{self.cc[1]}"

    def window(self) -> int | None:
        """The device address window the session's allocations live in (a restored session is
        opened at the same one); None where the driver chooses addresses."""
        return None

    def object_key(self, obj):
        """A value equal for the same device object (functions name their module by it)."""
        return id(obj)

    def _no_checkpoint(self, what: str):
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the {self.name} backend cannot checkpoint {what}")

    def quiesce(self) -> bool:
        """From a pre-copy thread: wait until the device work of every call made so far is done, and
        say so (True); False where a backend cannot (the software GPU runs kernels in the serving
        thread itself), and the stop then reads memory again."""
        return False

    def memory_layout(self) -> list[list[int]]:
        """Every allocation as [address, size, span] (span: the bytes it takes from the quota)."""
        self._no_checkpoint("memory")

    def written_ranges(self, addr: int, size: int) -> list[tuple[int, int]]:
        """The parts of [addr, addr+size) that may hold written data (all of it unless the
        backend can tell)."""
        return [(addr, size)]

    def escape_ranges(self) -> list[tuple[int, int, str]]:
        """[start, end) and name of each module variable whose address would not hold after a
        restore elsewhere, so must not be found in the memory copied (checkpoint/escapes.py). None
        where restores place every variable again where it was."""
        return []

    def read_memory(self, addr: int, size: int) -> bytes:
        """A copy of [addr, addr+size), at a call boundary or from a pre-copy thread."""
        return bytes(self.copy_dtoh(addr, size, None))

    def write_memory(self, addr: int, data) -> None:
        self.copy_htod(addr, data, None)

    def restore_allocations(self, allocations: list[list[int]]) -> None:
        """Allocate each [address, size, span] at its address (charging the quota), or raise."""
        self._no_checkpoint("memory")

    def release_allocation(self, addr: int) -> None:
        self.mem_free(addr)

    def capture_device(self) -> dict:
        """The backend's own state of the session: {"allocations": memory_layout(), ...}."""
        return {"allocations": self.memory_layout()}

    def restore_device(self, state: dict) -> None:
        """What capture_device returned, beyond the allocations (restored first)."""

    def stream_state(self, stream) -> dict:
        self._no_checkpoint("streams")

    def event_state(self, event) -> dict:
        self._no_checkpoint("events")

    def event_restore(self, state: dict):
        self._no_checkpoint("events")

    def module_state(self, module) -> dict:
        self._no_checkpoint("modules")

    def module_restore(self, image: bytes, companion, state: dict):
        """The module of ``image`` loaded again, its variables at the addresses ``state`` names
        (already allocated and filled by the memory restore)."""
        self._no_checkpoint("modules")

    def function_module(self, function):
        self._no_checkpoint("functions")

    def function_state(self, function) -> dict:
        return {}

    def function_restore(self, function, state: dict) -> None:
        pass

    def settle(self, wait_s: float = 0.0) -> None:
        """The client is about to wait for a reply, or the session gives the GPU up: a backend that
        times kernels asynchronously closes what it has open (the cuda backend's timing windows).
        `wait_s` > 0: another session has the GPU next, and a backend whose kernels run after their
        launch (a real GPU) waits up to that long for them to finish, so that they do not run
        beside the next session's (session.py)."""

    def settle_and_time(self) -> float:
        """settle(), then device_time: the session's settle at every reply (the cuda backend makes
        the two one compiled call)."""
        self.settle()
        return self.device_time

    # Installed by the worker: its checks (stop, client gone), for a backend to run while a call
    # waits on the device (the cuda backend's synchronising calls); may raise SessionEnding.
    housekeeping = None

    # A backend that queues kernels on a thread of its own, which takes the session's scheduler slot
    # itself (the software GPU unless RGPU_SIM_ASYNC=0, sim/queue.py): the session then neither acquires
    # nor charges around its launches. `queued`: whether work may still run (calls that touch memory
    # wait for it first: dispatch.py, `wait_idle`).
    schedules_itself = False
    queued = False

    def wait_idle(self) -> None:
        """Wait for queued work (see `queued`), raising the error a kernel left, if any."""

    def start_queued(self) -> None:
        """Start running the queued work no call waited for: the worker is about to wait for the
        client's next message (see `queued`)."""

    # A backend whose kernels cannot be time-sliced by the server (a real GPU) reports the time of
    # kernels still running, from another thread than the one serving calls, so that a kernel that
    # never ends shows its time while the worker waits in the driver.
    reports_running = False

    def running_time(self) -> float:
        """Seconds that kernels have been running and are not in device_time yet (any thread)."""
        return 0.0

    @abstractmethod
    def synchronize(self) -> None: ...
    @abstractmethod
    def close(self) -> None:
        """End of session: release everything it holds."""
