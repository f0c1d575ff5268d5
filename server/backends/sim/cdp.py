"""The launches a grid's threads make (dynamic parallelism), kept while the grid runs and run after it.

The device runtime's calls (ptx/ops_cdp.py) land here: a parameter buffer is an allocation of the
session's device memory (it counts against the quota, as the device runtime's launch pool does on a
GPU), the launch is checked as the device runtime checks it and queued, and once the parent grid has
run every queued grid runs in launch order, then the tail launches; each child's own launches run
within its own launch, so a grid has finished only when everything it launched has. Copies and
memsets device code asks for (cudaMemcpyAsync, cudaMemsetAsync) are queued with the launches, in
the order they were asked for: stream order, since every stream of device code runs in that one
order here (which also makes its events and stream waits already satisfied)."""
from __future__ import annotations

import numpy as np

from .errors import SimError

# cudaError_t values the device runtime returns
INVALID_VALUE = 1
MEMORY_ALLOCATION = 2
INVALID_CONFIGURATION = 9
MAX_DEPTH_EXCEEDED = 65
PENDING_COUNT_EXCEEDED = 69
INVALID_DEVICE_FUNCTION = 98

TAIL_LAUNCH = 3  # cudaStreamTailLaunch; cudaStreamFireAndForget (4), NULL and device-made streams: in order
MAX_DEPTH = 24  # the hardware's nesting limit
PENDING_LIMIT = 2048  # cudaLimitDevRuntimePendingLaunchCount's default
STREAM_BASE = 0x5D00_0000  # handles of the streams and events device code makes
# Device code's cudaMemsetAsync sets its bytes to zero, whatever value it is given: CUDA 13.0's
# libcudadevrt (__cudaCDP2MemsetAsync) never reads its value argument and hands its memset kernel a
# zero byte (its PTX), and an H100 left 0, not 0x07070707, where cdp_launches.cu set 7s.
DEVICE_MEMSET_BYTE = 0


class DeviceLaunches:
    def __init__(self, module, mem, depth: int, check):
        self.module, self.mem, self.depth = module, mem, depth
        self.check = check  # kernels._check_config
        self.buffers: dict[int, tuple] = {}  # parameter buffer -> (function, grid, block, shared)
        # ("grid", function, grid, block, shared, buffer), ("copy", dst, src, count) or ("fill", dst,
        # byte, count), in the order device code asked for them
        self.queued: list[tuple] = []
        self.tail: list[tuple] = []
        self._streams = 0
        self._attributes: dict[int, int] | None = None

    def __bool__(self) -> bool:
        return bool(self.buffers or self.queued or self.tail)

    def parameter_buffer(self, func_addr: int, grid, block, shared: int) -> tuple[int, int]:
        """(buffer, 0), or (0, the error) for a function that is no kernel of the module, or no room."""
        func = self.module.function_at(func_addr)
        if func is None:
            return 0, INVALID_DEVICE_FUNCTION
        if len(self.buffers) + len(self.queued) + len(self.tail) >= PENDING_LIMIT:
            return 0, PENDING_COUNT_EXCEEDED
        try:
            buf = self.mem.alloc(max(func.param_size, 8))
        except SimError:
            return 0, MEMORY_ALLOCATION
        self.buffers[buf] = (func, grid, block, shared)
        return buf, 0

    def copy(self, dst: int, src: int, count: int) -> int:
        """Queues a device-to-device copy; its error (0: queued)."""
        if not (self._inside(dst, count) and self._inside(src, count)):
            return INVALID_VALUE
        self.queued.append(("copy", dst, src, count))
        return 0

    def fill(self, dst: int, value: int, count: int) -> int:
        """Queues device code's cudaMemsetAsync of `count` bytes; its error (0: queued, or nothing to
        set). The bytes become DEVICE_MEMSET_BYTE whatever `value` is, as CUDA 13's device runtime sets
        them."""
        del value
        if count == 0:
            return 0
        if not self._inside(dst, count):
            return INVALID_VALUE
        self.queued.append(("fill", dst, DEVICE_MEMSET_BYTE, count))
        return 0

    def _inside(self, addr: int, count: int) -> bool:
        found = self.mem.allocation(addr)
        return found is not None and addr + count <= found[0] + found[1]

    def launch(self, buf: int, stream: int) -> int:
        """Queues the launch whose parameters `buf` holds; its error (0: launched)."""
        cfg = self.buffers.pop(buf, None)
        if cfg is None:
            return INVALID_VALUE
        func, grid, block, shared = cfg
        if self.depth + 1 >= MAX_DEPTH:
            self.mem.free(buf)
            return MAX_DEPTH_EXCEEDED
        try:
            self.check(func, grid, block, shared, bytes(func.param_size))
        except SimError:
            self.mem.free(buf)
            return INVALID_CONFIGURATION
        (self.tail if stream == TAIL_LAUNCH else self.queued).append(("grid", func, grid, block, shared, buf))
        return 0

    def attribute(self, number: int) -> int | None:
        """A device attribute (cudaDeviceGetAttribute in device code): the device's own table."""
        if self._attributes is None:
            from . import properties  # it reads kernels.py's limits, and kernels.py imports this module
            self._attributes = properties.attributes(self.mem.capacity, self.module.arch)
        return self._attributes.get(number)

    def streams(self, n: int) -> np.ndarray:
        """Handles for `n` streams (or events) device code makes: only ever passed back."""
        first = self._streams
        self._streams += n
        return np.arange(STREAM_BASE + first, STREAM_BASE + first + n, dtype=np.uint64) * 16

    def drop(self) -> None:
        """Frees the parameter buffers of launches that will not run (the parent grid faulted)."""
        for item in self.queued + self.tail:
            if item[0] == "grid":
                self.mem.free(item[5])
        for buf in self.buffers:
            self.mem.free(buf)
        self.queued, self.tail, self.buffers = [], [], {}

    def run(self, launch) -> tuple[int, float]:
        """Runs the queued grids, then the tail launches, through `launch(func, grid, block, shared,
        params, depth)` (kernels.launch); (thread instructions, seconds) of them all. Buffers never
        launched are freed, and so are the rest if a child faults (its error is the parent's)."""
        executed, seconds = 0, 0.0
        for buf in self.buffers:  # asked for, never launched
            self.mem.free(buf)
        self.buffers = {}
        try:
            while self.queued or self.tail:
                item = (self.queued or self.tail).pop(0)
                if item[0] == "copy":
                    _, dst, src, count = item
                    self.mem.write(dst, self.mem.read(src, count))
                    continue
                if item[0] == "fill":
                    _, dst, value, count = item
                    self.mem.write(dst, bytes([value]) * count)
                    continue
                _, func, grid, block, shared, buf = item
                params = self.mem.read(buf, func.param_size) if func.param_size else b""
                self.mem.free(buf)
                stats = launch(func, grid, block, shared, params, self.depth + 1)
                executed += stats.thread_instructions
                seconds += stats.seconds
        except BaseException:
            self.drop()
            raise
        return executed, seconds
