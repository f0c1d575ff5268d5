"""The device backend interface: one GPU as one session sees it. `sim` (the software GPU) and
`cuda` (the real driver) implement it; every policy — handles, quotas, error translation — lives
above it, in the session and the API handlers, so both backends behave the same to clients."""
from __future__ import annotations

from abc import ABC, abstractmethod

from ..errors import CudaError


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
    def mem_free(self, addr: int) -> None: ...
    @abstractmethod
    def mem_info(self) -> tuple[int, int]: ...
    @abstractmethod
    def allocation(self, addr: int) -> tuple[int, int] | None:
        """(start, size) of the allocation holding addr, or None."""
    @abstractmethod
    def copy_htod(self, dst: int, data, stream) -> None: ...
    @abstractmethod
    def copy_dtoh(self, src: int, size: int, stream):
        """The bytes (any buffer; it is sent as it is) of [src, src+size)."""
    @abstractmethod
    def copy_dtod(self, dst: int, src: int, size: int, stream) -> None: ...
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
    def launch(self, function, grid, block, shared: int, stream, params: bytes, cooperative: bool = False) -> None:
        """Queue a kernel. `cooperative`: its blocks may wait for one another (grid-wide sync), so
        they must all be resident at once and get the grid workspace cooperative groups expects."""
    def set_limit(self, limit: str, value: int) -> None:
        """Apply a context limit (CU_LIMIT_* name) the session set; the server keeps the values the
        program reads back. Backends apply the ones that change what kernels can do."""

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

    @abstractmethod
    def take_output(self) -> str:
        """Device printf output produced since the last call (delivered at synchronisation)."""

    @abstractmethod
    def synchronize(self) -> None: ...
    @abstractmethod
    def close(self) -> None:
        """End of session: release everything it holds."""
