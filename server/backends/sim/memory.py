"""Device memory of the software GPU: a 64-bit address space with bounds-checked allocations.

The host API's copies and sets are checked against the bytes asked for, exactly. A kernel's
accesses are checked against the allocation's granule (its size rounded up to the alignment it
was made at: 512 bytes for cudaMalloc, sim/device.py), as a GPU, which faults only where nothing
is mapped, lets a kernel run a little past an array into memory that belongs to that allocation
(numba's test_localmem writes 10 ints into a 1-int array and passes on every GPU). Past the
granule lies the guard, which no allocation takes: an access there faults, so a kernel that
overruns by more than the rounding still reports an illegal address.

One lazily-committed anonymous mapping backs a session's memory (pages cost nothing until touched),
so device addresses translate to offsets with one subtraction and kernels gather/scatter with numpy
fancy indexing. The allocation table is two sorted arrays, so checking a whole warp's (or a whole
grid's) addresses is one ``searchsorted``.
"""
from __future__ import annotations

import bisect
import mmap
import threading

import numpy as np

from .errors import SimError, SimFault

# Device addresses live where Linux never places a process's own mappings by default: above a
# non-PIE program's heap, below where PIE programs load (0x55..) and far below the top-down mmap
# area (0x7f..). A managed allocation is mapped at the same address in the client (libhook/src/
# managed.c), which therefore rarely finds the range taken, and a client's host pointer is never
# mistaken for a device pointer (cudaMemcpyDefault). Each device of a program has its own window,
# which the program's client names at hello (its device index), so the GPUs of different servers
# that one program uses have distinct pointers, as devices under unified addressing do. A session
# whose client named none gets one chosen from its server's identity (sim/device.py).
BASE_ADDRESS = 0x2000_0000_0000
GPU_WINDOW = 0x0010_0000_0000  # 64 GiB of address space per simulated GPU
WINDOWS = 512  # up to 0x4000_0000_0000
ALIGNMENT = 256  # cudaMalloc guarantees 256-byte alignment
GRANULE = 2 << 20  # the allocation granule the quota is counted in is finer; this is the VA step
# Address space left unallocated after every allocation: the bytes just past an allocation belong
# to no other one, so a copy or an access that starts there fails as it does on a GPU (whose
# allocations do not sit back to back) instead of landing in a neighbour. Not counted as memory.
GUARD = ALIGNMENT
MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000)  # Linux's value; Python's mmap does not name it


class DeviceHeap:
    """The blocks kernels allocated with malloc(), within cudaLimitMallocHeapSize."""

    def __init__(self, limit: int = 8 << 20):
        self.limit = limit
        self.used = 0
        self.blocks: dict[int, int] = {}  # address -> size
        # Once a kernel has called malloc() the heap's size is fixed, as CUDA documents for
        # cudaDeviceSetLimit(cudaLimitMallocHeapSize) (even if every block was freed since).
        self.fixed = False


class DeviceMemory:
    """Address space + backing store of one simulated GPU as seen by one session.

    ``capacity`` bounds the sum of live allocations (the accounting hook ``reserve`` lets the
    server charge a shared, cross-process counter too).
    """

    def __init__(self, capacity: int, window: int = 0, reserve=None):
        self.capacity = int(capacity)
        self.window = window % WINDOWS
        self.base = BASE_ADDRESS + self.window * GPU_WINDOW
        # Address space is larger than capacity so freed holes do not force compaction, and so that
        # reservations (cuMemAddressReserve) fit: PyTorch's expandable segments reserve 1.125 times
        # the device's memory for each of its two pools. Pages cost nothing until touched, and the
        # mapping reserves no swap (MAP_NORESERVE), so its size commits no host memory.
        self._span = min(max(self.capacity * 4, 1 << 20), GPU_WINDOW)
        self._map = mmap.mmap(-1, self._span, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_NORESERVE)
        self.arena = np.frombuffer(self._map, dtype=np.uint8)
        self._starts: list[int] = []  # sorted allocation start addresses
        self._ends: list[int] = []  # matching end addresses as requested (exclusive): bounds checks are exact
        self._spans: list[int] = []  # matching end addresses rounded to the alignment, plus GUARD: the layout
        self._np_starts = np.zeros(0, np.uint64)
        self._np_ends = np.zeros(0, np.uint64)
        self._np_spans = np.zeros(0, np.uint64)
        # what a kernel may touch of each: to its granule's end (the span less its guard; a VMM run,
        # which has no guard, to its end)
        self._np_reach = np.zeros(0, np.uint64)
        self.used = 0
        self.peak = 0
        # Virtual memory management (server/api/vmm.py): address ranges reserved by
        # cuMemAddressReserve (sorted [start, end) pairs no allocation may take), and the table
        # entries that are runs of mapped, accessible memory inside them (not cuMemFree'able).
        self._reserved: list[tuple[int, int]] = []
        self._vmm_runs: set[int] = set()
        # The range the session's client places its own allocations in (server/api/placed.py), made
        # at its first question, and those allocations' charges: a place charges nothing here (the
        # session's spare paid), a free gives its charge back to the spare.
        self.region: tuple[int, int] | None = None
        self.placed: dict[int, int] = {}
        self._reserve = reserve  # callable(delta_bytes) -> bool, for cross-session accounting
        self.device_heap = DeviceHeap()  # what kernels malloc() (ptx/ops_heap.py)
        # The table changes only on the worker's thread; a migration's pre-copy thread reads it.
        self._lock = threading.Lock()
        # Texture and surface objects by the value kernels pass (arrays.py, ptx/ops_tex.py); values
        # count up and are never reused, so a destroyed object's value finds nothing.
        self.textures: dict[int, object] = {}
        self.surfaces: dict[int, object] = {}
        self.next_object = 0
        # Pages shared with other sessions by CUDA IPC (sharing.py), made at the first export or open.
        self.sharing = None
        # The compiled copies that serve this memory while the device is idle (idle_waits.py,
        # cuda/copies.py), told of every change of the table: a range inside one allocation they know is
        # one check_range accepts, so they copy nothing Python would refuse.
        self.mirror = None

    # -- allocation -------------------------------------------------------------------------
    def alloc(self, nbytes: int, align: int = ALIGNMENT) -> int:
        """Allocate ``nbytes`` (rounded up to ``align``, a multiple of the alignment, at an address
        aligned so: managed memory asks for host pages); returns the device address."""
        if nbytes < 0:
            raise SimError("CUDA_ERROR_INVALID_VALUE", "negative allocation size")
        size = max(align, -(-int(nbytes) // align) * align)
        self.charge(size, f"{nbytes} bytes requested")
        addr = self._find_hole(size + GUARD, align)
        if addr is None:
            self.uncharge(size)
            raise SimError("CUDA_ERROR_OUT_OF_MEMORY", "device address space fragmented")
        with self._lock:
            i = bisect.bisect_left(self._starts, addr)
            end, span = addr + max(int(nbytes), 1), addr + size + GUARD
            self._starts.insert(i, addr)
            self._ends.insert(i, end)
            self._spans.insert(i, span)
            # the arrays in step with the lists, without converting every entry again
            self._np_starts = np.insert(self._np_starts, i, np.uint64(addr))
            self._np_ends = np.insert(self._np_ends, i, np.uint64(end))
            self._np_spans = np.insert(self._np_spans, i, np.uint64(span))
            self._np_reach = np.insert(self._np_reach, i, np.uint64(addr + size))
        if self.mirror is not None:
            self.mirror.track(addr, end - addr)
        return addr

    def mirror_to(self, copier) -> None:
        """Lets `copier` (cuda/copies.py) copy and set this memory in place: its mapping, and every
        allocation now and at each change."""
        copier.flat(self.base, self.arena.ctypes.data, self._span)
        self.mirror = copier
        self._mirror_all()

    def _mirror_all(self) -> None:
        if self.mirror is not None:
            self.mirror.clear()
            for start, end in zip(self._starts, self._ends):
                self.mirror.track(start, end - start)

    def charge(self, size: int, what: str) -> None:
        """Count `size` bytes of device memory against this GPU's capacity and the lease's quota
        (an allocation, or a physical allocation of the VMM API), or raise out-of-memory."""
        if self.used + size > self.capacity:
            raise SimError("CUDA_ERROR_OUT_OF_MEMORY", f"{what}, {self.capacity - self.used} free")
        if self._reserve is not None and not self._reserve(size):
            raise SimError("CUDA_ERROR_OUT_OF_MEMORY", f"{what}, device is full (its memory or the lease's quota)")
        self.used += size
        self.peak = max(self.peak, self.used)

    def uncharge(self, size: int) -> None:
        self.used -= size
        if self._reserve is not None:
            self._reserve(-size)

    def _taken(self):
        """Every range no new allocation may overlap, in address order: allocations with their
        guards, and reserved address ranges (whose mapped runs lie inside them)."""
        return sorted([*zip(self._starts, self._spans), *self._reserved, *([self.region] if self.region else [])])

    def _find_hole(self, size: int, align: int, hint: int = 0) -> int | None:
        """The lowest address (aligned) with ``size`` bytes free before the next taken range, or
        ``hint`` when that is free. In numpy over every taken range at once: a scan in Python made
        each allocation cost as many steps as allocations before it (8,000 cudaMallocs took 20 s)."""
        starts, ends = self._np_starts.astype(np.int64), self._np_spans.astype(np.int64)
        taken = self._reserved + ([self.region] if self.region else [])
        if taken:
            reserved = np.array(taken, np.int64).reshape(-1, 2)
            starts, ends = np.concatenate([starts, reserved[:, 0]]), np.concatenate([ends, reserved[:, 1]])
            order = np.argsort(starts, kind="stable")
            starts, ends = starts[order], ends[order]
        limit = self.base + self._span
        if size > self._span or align > self._span:
            # more than the whole window (a caller's 2**63): no room, and numpy's int64 could not hold it
            return None
        if hint and hint % align == 0 and self.base <= hint and hint + size <= limit and \
                not np.any((ends > hint) & (starts < hint + size)):
            return hint
        # where each gap begins: past every range before it (ranges may nest), aligned up
        cursors = np.maximum.accumulate(np.concatenate([[self.base], ends]))
        cursors = -(-cursors // align) * align
        room = np.concatenate([starts, [limit]]) - cursors
        fits = np.flatnonzero(room >= size)
        return int(cursors[fits[0]]) if fits.size else None

    # -- virtual memory management (the bookkeeping is server/api/vmm.py's) -------------------
    def reserve_range(self, size: int, align: int, hint: int = 0) -> int:
        """Address space for cuMemAddressReserve: `size` bytes at `hint` when free, else anywhere,
        with a guard after it like an allocation's."""
        addr = self._find_hole(size + GUARD, align, hint)
        if addr is None:
            raise SimError("CUDA_ERROR_OUT_OF_MEMORY", f"no {size} bytes of free address space on the device")
        bisect.insort(self._reserved, (addr, addr + size + GUARD))
        return addr

    def unreserve_range(self, addr: int) -> None:
        i = bisect.bisect_left(self._reserved, (addr, 0))
        if i == len(self._reserved) or self._reserved[i][0] != addr:
            raise SimError("CUDA_ERROR_INVALID_VALUE", f"0x{addr:x} is not a reserved address range")
        del self._reserved[i]

    def expose(self, lo: int, hi: int, runs) -> None:
        """Make the accessible memory of [lo, hi) exactly `runs` ((start, size) pairs, in order):
        kernels and copies may touch them like any allocation, and only them."""
        with self._lock:
            keep = [i for i, a in enumerate(self._starts) if not (lo <= a < hi and a in self._vmm_runs)]
            starts = [self._starts[i] for i in keep]
            ends = [self._ends[i] for i in keep]
            spans = [self._spans[i] for i in keep]
            self._vmm_runs = {a for a in self._vmm_runs if not lo <= a < hi}
            for start, size in runs:
                i = bisect.bisect_left(starts, start)
                starts.insert(i, start)
                ends.insert(i, start + size)
                spans.insert(i, start + size)
                self._vmm_runs.add(start)
            self._starts, self._ends, self._spans = starts, ends, spans
            self._sync_tables()
        self._mirror_all()

    def store(self, addr: int, nbytes: int) -> list[tuple[int, bytes]]:
        """The written parts of [addr, addr+nbytes) as (offset, bytes), and the pages given back:
        what an unmapped physical allocation keeps for its next mapping."""
        kept = [(a - addr, self.read_raw(a, n)) for a, n in self.written(addr, nbytes)]
        self._discard(addr - self.base, nbytes)
        return kept

    def load(self, addr: int, kept) -> None:
        """Put back what `store` kept, at a mapping's new address."""
        off = addr - self.base
        for o, data in kept:
            self.arena[off + o:off + o + len(data)] = np.frombuffer(data, np.uint8)

    def _discard(self, off: int, size: int) -> None:
        """Give back the pages wholly inside [off, off+size) of the arena (they read as zeros)."""
        first = -(-off // mmap.PAGESIZE) * mmap.PAGESIZE
        last = (off + size) // mmap.PAGESIZE * mmap.PAGESIZE
        if last > first:
            self._map.madvise(mmap.MADV_DONTNEED, first, last - first)
            if self.sharing is not None:
                self.sharing.discard(first, last)

    def placement_region(self) -> tuple[int, int] | None:
        """[lo, hi) of the range the client places its allocations in: a quarter of the address
        window (the capacity, in whole granules), at its top; None where the window has no room."""
        if self.region is None:
            lo, hi = self.region_bounds()
            if lo == hi or any(s < hi and lo < e for s, e in self._taken()):
                return None
            self.region = (lo, hi)
        return self.region

    def region_bounds(self) -> tuple[int, int]:
        """Where the placement range lies (or would): the same in every worker for the same window
        and capacity, so that a session restored elsewhere finds its placed allocations inside it."""
        size = self._span // 4 // GRANULE * GRANULE
        lo = (self.base + self._span - size) // GRANULE * GRANULE
        return lo, lo + size

    def place(self, addr: int, nbytes: int, span: int, charge: int) -> None:
        """The client's allocation of ``nbytes`` at ``addr``, ``span`` bytes of its range taken (its
        guard inside them), charged ``charge`` already (the session's spare): a kernel may touch it
        up to the charge, as an allocation's granule. Invalid-value where it lies outside the range or
        over another."""
        lo, hi = self.region or (0, 0)
        if not (lo <= addr and addr + span <= hi and 0 < nbytes and nbytes + GUARD <= span and charge <= span):
            raise SimError("CUDA_ERROR_INVALID_VALUE", f"[0x{addr:x}, +{span}) is not in this session's placement range")
        i = bisect.bisect_left(self._starts, addr)
        if (i < len(self._starts) and self._starts[i] < addr + span) or (i > 0 and self._spans[i - 1] > addr):
            raise SimError("CUDA_ERROR_INVALID_VALUE", f"[0x{addr:x}, +{span}) overlaps an allocation")
        with self._lock:
            self._starts.insert(i, addr)
            self._ends.insert(i, addr + nbytes)
            self._spans.insert(i, addr + span)
            self._np_starts = np.insert(self._np_starts, i, np.uint64(addr))
            self._np_ends = np.insert(self._np_ends, i, np.uint64(addr + nbytes))
            self._np_spans = np.insert(self._np_spans, i, np.uint64(addr + span))
            self._np_reach = np.insert(self._np_reach, i, np.uint64(addr + charge))
            self.placed[addr] = charge
        if self.mirror is not None:
            self.mirror.track(addr, nbytes)

    def alloc_at(self, addr: int, nbytes: int, span: int) -> None:
        """Allocate exactly [addr, addr+span) (``nbytes`` of it usable): a checkpoint's allocation
        restored where the program knows it (server/checkpoint). Raises out-of-memory when the quota
        cannot hold it, invalid-value when the range is taken or outside this window."""
        if not (self.base <= addr and addr + span + GUARD <= self.base + self._span and 0 < nbytes <= span):
            raise SimError("CUDA_ERROR_INVALID_VALUE", f"[0x{addr:x}, +{span}) is outside this device's address window")
        i = bisect.bisect_left(self._starts, addr)
        if any(s < addr + span + GUARD and addr < e for s, e in self._taken()):
            raise SimError("CUDA_ERROR_INVALID_VALUE", f"[0x{addr:x}, +{span}) overlaps an allocation")
        self.charge(span, f"{span} bytes to restore")
        with self._lock:
            self._starts.insert(i, addr)
            self._ends.insert(i, addr + nbytes)
            self._spans.insert(i, addr + span + GUARD)
            self._sync_tables()
        if self.mirror is not None:
            self.mirror.track(addr, nbytes)

    def layout(self) -> list[list[int]]:
        """[address, size asked for, span taken] of every allocation."""
        with self._lock:
            return [[s, e - s, p - GUARD - s] for s, e, p in zip(self._starts, self._ends, self._spans)]

    def written(self, addr: int, nbytes: int) -> list[tuple[int, int]]:
        """The parts of [addr, addr+nbytes) whose pages were ever written, from the kernel's page
        tables (/proc/self/pagemap): a page of this private anonymous mapping is present and
        exclusively mapped once written; untouched or only-read pages (the shared zero page) are
        not, and freed ones were dropped (MADV_DONTNEED). Swapped-out pages count as written.
        Where the page tables cannot be read, all of it counts."""
        if nbytes <= 0:
            return []
        page = mmap.PAGESIZE
        off = addr - self.base
        first, last = off // page, (off + nbytes - 1) // page
        vpage = self.arena.ctypes.data // page
        try:
            with open("/proc/self/pagemap", "rb", buffering=0) as f:
                f.seek((vpage + first) * 8)
                raw = f.read((last - first + 1) * 8)
        except OSError:
            return [(addr, nbytes)]
        if len(raw) != (last - first + 1) * 8:
            return [(addr, nbytes)]
        entries = np.frombuffer(raw, dtype=np.uint64)
        written = (((entries >> np.uint64(63)) & np.uint64(1)).astype(bool)
                   & ((entries >> np.uint64(56)) & np.uint64(1)).astype(bool)) \
            | ((entries >> np.uint64(62)) & np.uint64(1)).astype(bool)
        if self.sharing is not None:
            # pages moved into the IPC memory file (sharing.py): their bytes are the file's, which
            # another process may have written without this one's page tables showing it
            for a, b in self.sharing.shared:
                lo, hi = max(a // page, first), min(-(-b // page), last + 1)
                if lo < hi:
                    written[lo - first:hi - first] = True
        if not written.any():
            return []
        # runs of written pages -> byte ranges, clipped to the asked range
        edges = np.flatnonzero(np.diff(np.concatenate(([False], written, [False])).astype(np.int8)))
        out = []
        for s, e in zip(edges[0::2], edges[1::2]):
            lo = max(addr, self.base + (first + int(s)) * page)
            hi = min(addr + nbytes, self.base + (first + int(e)) * page)
            if hi > lo:
                out.append((lo, hi - lo))
        return out

    def read_raw(self, addr: int, nbytes: int) -> bytes:
        """A copy of [addr, addr+nbytes) within the window, allocated or not (a pre-copy thread may
        read a range the program freed a moment ago: it reads zeros, and the next round corrects it)."""
        off = addr - self.base
        if off < 0 or off + nbytes > self._span:
            raise SimError("CUDA_ERROR_INVALID_VALUE", f"[0x{addr:x}, +{nbytes}) is outside the address window")
        return self.arena[off:off + nbytes].tobytes()

    def free(self, addr: int, release: bool = False) -> int:
        """Free the allocation that starts at ``addr``; returns its size (a placed one's charge, which
        stays charged for the session's spare unless `release`: the session's memory is going)."""
        i = bisect.bisect_left(self._starts, addr)
        if i == len(self._starts) or self._starts[i] != addr:
            raise SimError("CUDA_ERROR_INVALID_VALUE", f"0x{addr:x} is not an allocation")
        if addr in self._vmm_runs:
            raise SimError("CUDA_ERROR_INVALID_VALUE", f"0x{addr:x} is mapped by cuMemMap: cuMemUnmap it")
        charge = self.placed.pop(addr, None)
        size = self._spans[i] - GUARD - self._starts[i] if charge is None else charge
        with self._lock:
            del self._starts[i], self._ends[i], self._spans[i]
            self._np_starts = np.delete(self._np_starts, i)
            self._np_ends = np.delete(self._np_ends, i)
            self._np_spans = np.delete(self._np_spans, i)
            self._np_reach = np.delete(self._np_reach, i)
        if self.mirror is not None:  # before its pages are given back
            self.mirror.untrack(addr)
        if charge is None or release:
            self.uncharge(size)
        # Give the pages back so a freed region does not keep host memory committed: only pages wholly
        # inside it, since a page it shares with a neighbouring allocation would be zeroed too.
        self._discard(addr - self.base, size)
        return size

    def free_all(self) -> None:
        for addr in list(self._starts):
            if addr not in self._vmm_runs:
                self.free(addr, release=True)

    def _sync_tables(self) -> None:
        self._np_starts = np.array(self._starts, dtype=np.uint64)
        self._np_ends = np.array(self._ends, dtype=np.uint64)
        self._np_spans = np.array(self._spans, dtype=np.uint64)
        # a VMM run's span is its end (no guard); an allocation's is its granule's end plus the guard
        self._np_reach = np.array([p if s in self._vmm_runs else s + self.placed[s] if s in self.placed else p - GUARD
                                   for s, p in zip(self._starts, self._spans)], dtype=np.uint64)

    def allocation(self, addr: int) -> tuple[int, int] | None:
        """(start, size) of the allocation containing ``addr``, or None."""
        i = bisect.bisect_right(self._starts, addr) - 1
        if i >= 0 and addr < self._ends[i]:
            return self._starts[i], self._ends[i] - self._starts[i]
        return None

    def allocations(self) -> list[tuple[int, int]]:
        return [(s, e - s) for s, e in zip(self._starts, self._ends)]

    # -- host-side access (API calls: memcpy, memset) ----------------------------------------
    def check_range(self, addr: int, nbytes: int, code: str = "CUDA_ERROR_INVALID_VALUE") -> int:
        """Offset of [addr, addr+nbytes) in the arena; the range must lie in one allocation."""
        found = self.allocation(addr) if nbytes >= 0 else None  # a negative length is a slice to the arena's end
        if found is None or addr + nbytes > found[0] + found[1]:
            raise SimError(code, f"[0x{addr:x}, +{nbytes}) is outside any allocation")
        return addr - self.base

    def view(self, addr: int, nbytes: int) -> np.ndarray:
        """Writable uint8 view of device memory; raises CUDA_ERROR_INVALID_VALUE if out of bounds."""
        off = self.check_range(addr, nbytes)
        return self.arena[off:off + nbytes]

    def read(self, addr: int, nbytes: int) -> bytes:
        return self.view(addr, nbytes).tobytes()

    def write(self, addr: int, data) -> None:
        open_into = getattr(data, "open_into", None)
        if open_into is not None:  # a frame sealed on the bulk channel (server/bulk.py): opened in place
            open_into(self.view(addr, len(data)))
            return
        src = np.frombuffer(data, dtype=np.uint8)
        self.view(addr, src.size)[:] = src

    # -- kernel-side access (vectorised over lanes) -----------------------------------------
    def check_lanes(self, addrs: np.ndarray, width: int) -> np.ndarray:
        """Arena offsets for a vector of device addresses, each accessing ``width`` bytes.

        A lane outside every allocation's granule is an illegal address (sticky, as on a GPU);
        a lane not aligned to ``width`` is a misaligned address."""
        addrs = np.asarray(addrs, dtype=np.uint64)
        if addrs.size == 0:
            return addrs.astype(np.int64)
        idx = np.searchsorted(self._np_starts, addrs, side="right").astype(np.int64) - 1
        ok = idx >= 0
        safe = np.where(ok, idx, 0)
        if self._np_reach.size:
            ok &= addrs + np.uint64(width) <= self._np_reach[safe]
        else:
            ok[:] = False
        if not ok.all():
            bad = int(addrs[~ok][0])
            raise SimFault("CUDA_ERROR_ILLEGAL_ADDRESS",
                           f"access of {width} bytes at 0x{bad:x} is outside any allocation")
        if width > 1 and (addrs % np.uint64(width)).any():
            bad = int(addrs[(addrs % np.uint64(width)) != 0][0])
            raise SimFault("CUDA_ERROR_MISALIGNED_ADDRESS", f"{width}-byte access at 0x{bad:x}")
        return (addrs - np.uint64(self.base)).astype(np.int64)

    def gather(self, addrs: np.ndarray, dtype) -> np.ndarray:
        """Load one ``dtype`` value per lane."""
        dt = np.dtype(dtype)
        off = self.check_lanes(addrs, dt.itemsize)
        # Aligned offsets index the arena reinterpreted as dtype (base is 256-aligned).
        return self.arena[: self._span - self._span % dt.itemsize].view(dt)[off // dt.itemsize]

    def scatter(self, addrs: np.ndarray, values: np.ndarray, dtype) -> None:
        """Store one ``dtype`` value per lane; with duplicate addresses the last lane wins."""
        dt = np.dtype(dtype)
        off = self.check_lanes(addrs, dt.itemsize)
        self.arena[: self._span - self._span % dt.itemsize].view(dt)[off // dt.itemsize] = \
            np.asarray(values).astype(dt, copy=False)

    def close(self) -> None:
        if self.mirror is not None:  # nothing copies into the mapping once it is gone
            self.mirror.clear()
            self.mirror.flat(0, 0, 0)
            self.mirror = None
        self.arena = None
        self._map.close()
        if self.sharing is not None:
            self.sharing.close_file()
